#!/bin/sh
# A sweep's `rounds` (issue 32: goals measured as medians of alternating rounds): every point of
# the sweep is measured round by round (round 1 of each point, then round 2, ...), and its row is
# the median round - of a model sweep by its share of the read-alone bound, of a kernel sweep by
# its time over a read of its bytes (else its median time) - with every round's figures in the
# rounds_* columns and every round's repetitions or calls in the samples file.  Bad values are
# refused before anything runs.  $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_e2e_rounds_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
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
    printf 'bitbench.experiment { name = "er", out = "%s", sweeps = {\n  bitbench.sweep { models = {"small"},
      kernels = {"f32", "f16"}, threads = {1}, prompt = 8, gen = 4, reps = 2, remeasure = 0, %s } } }\n' \
        "$T/res_${1%.lua}" "$2" > "$T/$1"
}

exp three.lua 'rounds = 3, compare_logits = "f32", compare_tokens = 4'
"$BB" run "$T/three.lua" >/dev/null 2>"$T/three.err"; rc=$?
R=$(ls -d "$T"/res_three/er-* 2>/dev/null)
check '[ "$rc" -eq 0 ] && [ "$(col "$R/e2e.csv" rounds | tr "\n" " ")" = "3 3 " ]' \
    "rounds = 3: rc=$rc rounds '$(col "$R/e2e.csv" rounds)': $(cat "$T/three.err")"
# the order: both points' round 1, then both points' round 2, then round 3
order=$(sed -n 's/^bitbench run: e2e \([0-9]\)\/2, round \([0-9]\) of 3: .*/\2\1/p' "$T/three.err" | tr "\n" " ")
check '[ "$order" = "11 12 21 22 31 32 " ]' "round by round: '$order': $(cat "$T/three.err")"
# each row: three rounds listed, and its figures are the round with the median share
for i in 1 2; do
    line=$(awk -F, -v i="$i" 'NR == 1 { for (c = 1; c <= NF; c++) h[$c] = c } NR == i + 1 {
        print $h["round"], $h["rounds_tg_of_read"], $h["tg_of_read"], $h["rounds_tg_tps"], $h["tg_tps"],
              $h["rounds_pp_tps"], $h["top1_agreement"] }' "$R/e2e.csv")
    check 'echo "$line" | awk "{
        n = split(\$2, s, \";\"); split(\$4, t, \";\"); m = split(\$6, p, \";\"); r = \$1
        if (n != 3 || m != 3 || r < 1 || r > 3) exit 1
        below = 0; above = 0
        for (j = 1; j <= 3; j++) if (j != r) { if (s[j] + 0 <= s[r] + 0) below++; if (s[j] + 0 >= s[r] + 0) above++ }
        if (below < 1 || above < 1) exit 1
        if (sprintf(\"%.6g\", \$3) != s[r] || sprintf(\"%.6g\", \$5) != t[r]) exit 1
        if (\$7 == \"\") exit 1
    }"' "row $i is the median round of three, with round 1's logit comparison: $line"
done
# the samples: every round's repetitions, 3 x 2 of each phase per point, numbered in the order they ran
check '[ "$(awk -F, "NR > 1" "$R/e2e_samples.csv" | wc -l)" -eq 24 ]' "e2e_samples.csv: $(wc -l < "$R/e2e_samples.csv") lines"
reps=$(awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) h[$c] = c } NR > 1 && $h["point"] == 1 && $h["phase"] == "tg" { printf "%s ", $h["rep"] }' "$R/e2e_samples.csv")
check '[ "$reps" = "0 1 2 3 4 5 " ]' "point 1's decode samples: '$reps'"
check 'grep -q "\"rounds\": 3" "$R/run.json"' "run.json: $(grep -c rounds "$R/run.json")"
check 'grep -q "\"status\": \"complete\"" "$R/run.json"' "complete: $(grep '"status"' "$R/run.json")"

# --dry-run says so
"$BB" run --dry-run "$T/three.lua" >"$T/dry.out" 2>&1; rc=$?
check '[ "$rc" -eq 0 ] && grep -q "^sweep .sweep1.: every point measured in 3 rounds, round by round over the sweep$" "$T/dry.out"' \
    "dry run: rc=$rc $(tail -3 "$T/dry.out")"

# one round, the default: rounds 1, round 1, the lists empty
exp one.lua ''
"$BB" run --quiet "$T/one.lua" >/dev/null 2>"$T/one.err"; rc=$?
R=$(ls -d "$T"/res_one/er-* 2>/dev/null)
check '[ "$rc" -eq 0 ] && [ "$(col "$R/e2e.csv" rounds | tr "\n" " ")" = "1 1 " ] && [ "$(col "$R/e2e.csv" round | tr "\n" " ")" = "1 1 " ] && [ -z "$(col "$R/e2e.csv" rounds_tg_tps | tr -d "\n")" ]' \
    "one round: rc=$rc $(head -2 "$R/e2e.csv" 2>&1 | cut -c1-200) $(cat "$T/one.err")"
check '[ "$(awk -F, "NR > 1" "$R/e2e_samples.csv" | wc -l)" -eq 8 ]' "one round's samples: $(wc -l < "$R/e2e_samples.csv") lines"

# a point that fails in round 1 (here its perplexity: a text shorter than one chunk) is given up:
# not measured in the later rounds, no row, the run incomplete
printf 'ab' > "$T/short.txt"
exp failing.lua "rounds = 3, perplexity = { file = \"$T/short.txt\", ctx = 64 }"
"$BB" run "$T/failing.lua" >/dev/null 2>"$T/failing.err"; rc=$?
R=$(ls -d "$T"/res_failing/er-* 2>/dev/null)
check '[ "$rc" -ne 0 ] && [ "$(grep -c "failed: perplexity" "$T/failing.err")" -eq 2 ] && ! grep -q "round [23] of 3" "$T/failing.err"' \
    "a point failed in round 1 is not measured again: rc=$rc $(cat "$T/failing.err")"
check '[ "$(awk -F, "NR > 1" "$R/e2e.csv" | wc -l)" -eq 0 ] && grep -q "\"status\": \"incomplete\"" "$R/run.json"' \
    "no row for a failed point: $(cat "$R/e2e.csv" 2>&1 | head -3) $(grep '"status"' "$R/run.json")"

# refused before anything runs, naming the field and what is valid
refused() { # file, fields, what the message says
    exp "$1" "$2"
    f="$1" says="$3"
    "$BB" run "$T/$f" >/dev/null 2>"$T/$f.err"; rc=$?
    check '[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/$f.err")" -eq 1 ] && grep -q "$says" "$T/$f.err" && [ ! -d "$T/res_${f%.lua}" ]' \
        "$2: rc=$rc $(cat "$T/$f.err")"
}
refused zero.lua 'rounds = 0' "field 'rounds'.*1\.\.32"
refused many.lua 'rounds = 33' "field 'rounds'.*1\.\.32"
refused text.lua 'rounds = "3"' "field 'rounds'"
# a kernel sweep: two kernels, two thread counts, three rounds, a read beside every call, verified
printf 'bitbench.experiment { name = "ek", out = "%s", sweeps = { bitbench.sweep { kernels = {"i2_s", "f16"}, shapes = {{256, 256}}, threads = {1, 2}, reps = 5, min_seconds = 0, read = true, verify = true, remeasure = 0, rounds = 3 } } }\n' "$T/res_k" > "$T/k.lua"
"$BB" run "$T/k.lua" >/dev/null 2>"$T/k.err"; rc=$?
R=$(ls -d "$T"/res_k/ek-* 2>/dev/null)
npts=$(grep -c "" "$R/results.csv" 2>/dev/null)
check '[ "$rc" -eq 0 ] && [ "$npts" -eq 5 ] && [ "$(col "$R/results.csv" rounds | sort -u)" = 3 ] && [ "$(col "$R/results.csv" verify | sort -u)" = passed ]' \
    "kernel sweep, rounds = 3: rc=$rc $npts lines: $(cat "$T/k.err")"
# each row is the median of its rounds' read_ratio_paired, its t_median_s that round's
bad=$(awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) h[$c] = c; next } {
    n = split($h["rounds_read_ratio_paired"], q, ";"); split($h["rounds_t_median_s"], t, ";"); r = $h["round"]
    if (n != 3 || r < 1 || r > 3) { print; next }
    below = 0; above = 0
    for (j = 1; j <= 3; j++) if (j != r) { if (q[j] + 0 <= q[r] + 0) below++; if (q[j] + 0 >= q[r] + 0) above++ }
    if (below < 1 || above < 1 || sprintf("%.6g", $h["read_ratio_paired"]) != q[r] || sprintf("%.6g", $h["t_median_s"]) != t[r]) print }' "$R/results.csv")
check '[ -z "$bad" ]' "kernel rows not their median round: $bad"
# the samples: every round's calls (at least 5 a round), numbered in the order they ran
calls=$(awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) h[$c] = c; next } $h["point"] == 1 { n++; if ($h["rep"] != n - 1) bad = 1 } END { print (bad ? -1 : n) }' "$R/samples.csv")
check '[ "$calls" -ge 15 ]' "kernel samples of point 1: $calls (-1: not numbered in the order they ran)"
check 'grep -q "\"rounds\": 3" "$R/run.json"' "kernel run.json: $(grep -c rounds "$R/run.json")"
# a kernel sweep with peers has one round, as a model sweep
printf 'bitbench.experiment { name = "ekp", out = "%s", sweeps = { bitbench.sweep { kernels = {"q4_0"}, shapes = {{256, 256}}, peers = {"llama.cpp"}, rounds = 2 } } }\n' "$T/res_kp" > "$T/kp.lua"
"$BB" run "$T/kp.lua" >/dev/null 2>"$T/kp.err"; rc=$?
check '[ "$rc" -eq 2 ] && grep -q "field .rounds. = 2 with .peers." "$T/kp.err"' "kernel sweep with peers: rc=$rc $(cat "$T/kp.err")"

echo "rounds: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
