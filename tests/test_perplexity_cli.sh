#!/bin/sh
# bitbench perplexity and the model sweep field `perplexity` on the command line: every bad input
# is one error line naming the option, field or file and what is valid, with a non-zero exit; a
# good run prints llama-perplexity's lines and writes its CSV, sidecar and e2e.csv's ppl columns.
# $1 is the bitbench binary.
BB="$1"
. "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/lib/shared_dir.sh"
MODEL="$SHARED/models/stories260K/stories260K.bin"
TEXT=/usr/share/common-licenses/GPL-3
pass=0; fail=0
T=$(mktemp -d /tmp/bb_ppl_cli_XXXXXX)
trap 'rm -rf "$T"' EXIT

expect_error() {
    pattern="$1"; shift
    err=$("$BB" "$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -ge 1 ] && [ "$rc" -le 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
        printf '%s' "$err" | grep -q -- "$pattern"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL: bitbench $* -> rc=$rc, stderr: $err (wanted one line /$pattern/)"
    fi
}
check() {
    if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi
}

P="perplexity --model $MODEL --file $TEXT"
expect_error "--model, --file and --ctx are required" perplexity --model "$MODEL" --file "$TEXT"
expect_error "--ctx: " $P --ctx 2
expect_error "unknown or incomplete option '--bogus'" $P --ctx 128 --bogus
# more positions than the file's training context: allowed with a warning, as llama.cpp allows it
out=$("$BB" $P --ctx 1024 --chunks 1 2>&1); rc=$?
check '[ $rc -eq 0 ] && printf "%s" "$out" | grep -q "warning: stories260K.bin: running 1024 positions, more than the 512"' \
    "--ctx 1024 past the training context warns and runs: rc=$rc $out"
expect_error "--batch 200 exceeds --ctx 128" $P --ctx 128 --batch 200
expect_error "--kv: KV cache type 'q8' is not one of f32, f16, bf16, q8_0" $P --ctx 128 --kv q8
expect_error "unknown kernel 'nosuch'" $P --ctx 128 --kernel nosuch
expect_error "/nonexistent: cannot open it" perplexity --model "$MODEL" --file /nonexistent --ctx 128
expect_error "--model nosuch: unknown model 'nosuch'; valid models: " \
    perplexity --model nosuch --file "$TEXT" --ctx 128
printf 'short text' > "$T/short.txt"
expect_error "less than one chunk of --ctx 128" perplexity --model "$MODEL" --file "$T/short.txt" --ctx 128

out=$("$BB" $P --ctx 128 --chunks 3 --threads 1 --csv "$T/ppl.csv" 2>/dev/null); rc=$?
check '[ $rc -eq 0 ]' "a good run exits $rc"
check 'printf "%s" "$out" | grep -q "^\[1\]114\.08[0-9]*,\[2\]101\.78[0-9]*,\[3\]67\.52[0-9]*,$"' \
    "running values as llama-perplexity prints them: $out"
check 'printf "%s" "$out" | grep -q "^Final estimate: PPL = 67\.52[0-9]* +/- [0-9.]*$"' "final line: $out"
check '[ "$(head -1 "$T/ppl.csv")" = "chunk,ppl,chunk_nll,scored,seconds" ] && [ "$(wc -l < "$T/ppl.csv")" -eq 4 ]' \
    "CSV header and three rows"
check 'grep -q "\"scored_tokens\": 189" "$T/ppl.json" && grep -q "\"text_tokens\": 22155" "$T/ppl.json" &&
    grep -q "\"cpu_model\"" "$T/ppl.json" && grep -q "\"classifier\": \"f32 packed into" "$T/ppl.json"' \
    "sidecar: $(cat "$T/ppl.json" 2>/dev/null | head -c 300)"

# writes never destroy (issue 29): a failing run leaves the CSV already at --csv as it was (it was
# truncated to its header); a FIFO in the sidecar's place is refused in one line before the model
# is read (it blocked the command at the end)
cp "$T/ppl.csv" "$T/ppl.before"
"$BB" perplexity --model "$MODEL" --file "$T/short.txt" --ctx 128 --csv "$T/ppl.csv" >/dev/null 2>&1; rc=$?
check '[ $rc -ne 0 ] && cmp -s "$T/ppl.before" "$T/ppl.csv"' "a failed run changed the CSV at --csv: rc=$rc"
mkfifo "$T/f.json"
err=$(timeout 10 "$BB" $P --ctx 128 --chunks 1 --threads 1 --csv "$T/f.csv" 2>&1 >/dev/null); rc=$?
check '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$err" | wc -l)" -eq 1 ] && printf "%s" "$err" | grep -q "f.json: is a FIFO" &&
       [ ! -e "$T/f.csv" ]' "--csv with a FIFO as its sidecar: rc=$rc $err"

# the model sweep field
sweep() { # $1: the perplexity field
    cat > "$T/s.lua" <<LUA
bitbench.experiment {
  name = "pplsweep", out = "$T/res",
  sweeps = {
    bitbench.sweep { name = "m", models = { "bitnet-dummy-125m" }, kernels = { "f32" }, out_kernel = "f32",
                     threads = 1, prompt = 0, gen = 1, reps = 1, distinct_layers = 1,
                     perplexity = $1 },
  },
}
LUA
}
sweep '"GPL-3"'
expect_error "s.lua:4: sweep 'm': field 'perplexity': must be a table" run "$T/s.lua"
sweep "{ file = \"$TEXT\" }"
expect_error "field 'perplexity': 'ctx' (tokens per chunk, >= 4) is required" run "$T/s.lua"
sweep "{ ctx = 128 }"
expect_error "field 'perplexity': 'file' (the text) is required" run "$T/s.lua"
sweep "{ file = \"$TEXT\", ctx = 128, chunk = 2 }"
expect_error "field 'perplexity': unknown field 'chunk' (did you mean 'chunks'?)" run "$T/s.lua"
sweep "{ file = \"$T/none.txt\", ctx = 128 }"
expect_error "field 'perplexity', file: $T/none.txt: cannot open it" run "$T/s.lua"
sweep "{ file = \"$TEXT\", ctx = 128, model = \"$T/none.bin\" }"
expect_error "field 'perplexity', model: $T/none.bin: cannot open it" run "$T/s.lua"
sweep "{ file = \"$TEXT\", ctx = 128, chunks = 2, model = \"$MODEL\" }"
"$BB" run "$T/s.lua" --quiet >/dev/null 2>"$T/run.err"; rc=$?
csv=$(ls "$T"/res/pplsweep-*/e2e.csv 2>/dev/null | head -1)
check '[ $rc -eq 0 ] && [ -n "$csv" ]' "the sweep ran: rc=$rc $(cat "$T/run.err")"
# ppl_model,ppl,ppl_err,ppl_tokens: stories260K's first two chunks at 128 (llama.cpp: [2]101.7836)
check 'awk -F, "NR==1{for(i=1;i<=NF;i++)c[\$i]=i} NR==2{print \$c[\"ppl_model\"], \$c[\"ppl\"], \$c[\"ppl_tokens\"]}" "$csv" |
    grep -q "^stories260K.bin 101.78[0-9]* 126$"' "e2e.csv ppl columns: $(cat "$csv" 2>/dev/null)"

echo "test_perplexity_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
