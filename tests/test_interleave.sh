#!/bin/sh
# A model sweep's `interleave` (issue 32: kernels compared side by side): the points that differ
# only in their kernel are measured together, their models held at once and each repetition running
# every one in turn (the order within the repetitions: tests/test_e2e_interleaved.c), with rounds
# round by round over those groups; each row names the kernels it alternated with.  A sweep with
# peers, or a value that is not a boolean, is refused before anything runs.  $1 is the bitbench binary.
BB="$1"
. "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/lib/check.sh"
check_scratch interleave
col() { # file, column: the values, one per line
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR > 1 { print $c }' "$1"
}
mkdir -p "$T/models"
cat > "$T/models/small.lua" <<'LUA'
return { name = "small", style = "bitnet", dim = 256, ffn_dim = 512, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 320, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
BITBENCH_MODELS="$T/models"; export BITBENCH_MODELS
exp() { # file, extra sweep fields
    printf 'bitbench.experiment { name = "ei", out = "%s", sweeps = {\n  bitbench.sweep { models = {"small"},
      kernels = {"f32", "i2_s"}, threads = {1, 2}, prompt = 8, gen = 4, reps = 2, remeasure = 0, %s } } }\n' \
        "$T/res_${1%.lua}" "$2" > "$T/$1"
}

exp two.lua 'interleave = true, rounds = 2'
"$BB" run "$T/two.lua" >"$T/two.out" 2>"$T/two.err"; rc=$?
R=$(ls -d "$T"/res_two/ei-* 2>/dev/null)
check '[ "$rc" -eq 0 ] && grep -q "\"status\": \"complete\"" "$R/run.json"' "interleave: rc=$rc $(cat "$T/two.err")"
# points 1, 2 are f32 at 1 and 2 threads, 3, 4 i2_s: the groups {1, 3} and {2, 4}, round by round
order=$(sed -n 's/^bitbench run: e2e \([0-9]\)\/4, round \([0-9]\) of 2: .*, repetitions interleaved$/\2\1/p' "$T/two.err" | tr "\n" " ")
check '[ "$order" = "11 13 12 14 21 23 22 24 " ]' "groups round by round: '$order': $(cat "$T/two.err")"
check '[ "$(col "$R/e2e.csv" interleaved | sort -u)" = "f32;i2_s" ] && [ "$(col "$R/e2e.csv" interleaved | wc -l)" -eq 4 ]' \
    "interleaved column: '$(col "$R/e2e.csv" interleaved | tr "\n" " ")'"
check '[ "$(col "$R/e2e.csv" rounds | sort -u)" = 2 ]' "rounds: $(col "$R/e2e.csv" rounds | tr "\n" " ")"
check 'grep -q "\"interleave\": true" "$R/run.json"' "run.json: $(grep -c interleave "$R/run.json")"
check 'grep -q "repetitions interleaved with 1 other kernel" "$R/results.md"' "results.md: $(grep tg4 "$R/results.md" | head -2)"
# every round's repetitions of each point in the samples: 2 rounds x 2 repetitions x 2 phases x 4 points
check '[ "$(awk -F, "NR > 1" "$R/e2e_samples.csv" | wc -l)" -eq 32 ]' "samples: $(wc -l < "$R/e2e_samples.csv") lines"
# the database keeps the column
if command -v sqlite3 >/dev/null 2>&1; then
    "$BB" db import "$R" --db "$T/r.sqlite" >/dev/null 2>"$T/db.err"
    check '[ "$(sqlite3 "$T/r.sqlite" "SELECT DISTINCT interleaved FROM e2e_points")" = "f32;i2_s" ]' \
        "database: $(cat "$T/db.err") $(sqlite3 "$T/r.sqlite" "SELECT interleaved FROM e2e_points" 2>&1)"
fi

# --dry-run says so
"$BB" run --dry-run "$T/two.lua" >"$T/dry.out" 2>&1; rc=$?
check '[ "$rc" -eq 0 ] && grep -q "^sweep .sweep1.: the points that differ only in their kernel measured side by side, their repetitions interleaved$" "$T/dry.out"' \
    "dry run: rc=$rc $(tail -3 "$T/dry.out")"

# without it: each point alone, the column empty, no progress line says interleaved
exp alone.lua ''
"$BB" run "$T/alone.lua" >/dev/null 2>"$T/alone.err"; rc=$?
R=$(ls -d "$T"/res_alone/ei-* 2>/dev/null)
check '[ "$rc" -eq 0 ] && [ -z "$(col "$R/e2e.csv" interleaved | tr -d "\n")" ] && ! grep -q interleaved "$T/alone.err"' \
    "alone: rc=$rc '$(col "$R/e2e.csv" interleaved | tr "\n" " ")' $(cat "$T/alone.err")"
check 'grep -q "\"interleave\": false" "$R/run.json"' "run.json alone: $(grep -c interleave "$R/run.json")"

# the models of a group must fit together: an f32 model of two thirds of the available memory and
# its f16 twin (one third) are refused when planned, though each alone fits (f32 and f16, not two
# f32 variants: where only the scalar one runs, two variants are one kernel)
avail=$(awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo)
layers=$(awk -v a="$avail" 'BEGIN { l = int(a * 2 / 3 / (4 * 7 * 4096 * 4096)) + 1; print (l < 1 ? 1 : l) }')
cat > "$T/models/half.lua" <<LUA
return { name = "half", style = "llama", dim = 4096, ffn_dim = 4096, n_layers = $layers, n_heads = 32,
         n_kv_heads = 32, vocab_size = 320, source = "test" }
LUA
printf 'bitbench.experiment { name = "eh", out = "%s", sweeps = { bitbench.sweep { models = {"half"}, kernels = {"f32", "f16"}, threads = {1}, prompt = 0, gen = 1, interleave = true } } }\n' "$T/res_half" > "$T/half.lua"
"$BB" run --dry-run "$T/half.lua" >/dev/null 2>"$T/half.err"; rc=$?
check '[ "$rc" -eq 2 ] && grep -q "field .interleave. holds model half through its 2 kernels at once: they need .* GiB together but .* GiB is available" "$T/half.err" && [ ! -d "$T/res_half" ]' \
    "a group that does not fit: rc=$rc $(cat "$T/half.err")"
sed -i 's/ interleave = true//' "$T/half.lua"
"$BB" run --dry-run "$T/half.lua" >/dev/null 2>"$T/half2.err"; rc=$?
check '[ "$rc" -eq 0 ]' "each alone fits: rc=$rc $(cat "$T/half2.err")"

# refused before anything runs, naming the field and what is valid
refused() { # file, fields, what the message says
    exp "$1" "$2"
    f="$1" says="$3"
    "$BB" run "$T/$f" >/dev/null 2>"$T/$f.err"; rc=$?
    check '[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/$f.err")" -eq 1 ] && grep -q "$says" "$T/$f.err" && [ ! -d "$T/res_${f%.lua}" ]' \
        "$2: rc=$rc $(cat "$T/$f.err")"
}
refused text.lua 'interleave = "yes"' "field 'interleave'"
refused peers.lua 'interleave = true, kv = "f16", peers = {"llama.cpp:f16"}' "field 'interleave' with 'peers'"

check_summary interleave
