#!/bin/sh
# GGUF models through the commands: `generate --model FILE.gguf` gives llama.cpp's (and run.c's)
# greedy story for stories260K beyond the file's 128-token context with a warning; `e2e --model
# FILE.gguf` runs the file's weights and says per kind of weight what happened (TQ2_0 used as
# stored by tq2_0; F32 padded for q4_0), and a model sweep's run.json says it per model and
# kernel; `list models DIR` lists the GGUF files of DIR; a model
# file with a bad architecture is one error line.  $1 is the bitbench binary.
BB="$1"
SHARED="${BITBENCH_SHARED_DIR:-${BITBENCH_SOURCE_DIR:-.}/../shared}"
G="$SHARED/golden/gguf"
pass=0; fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$BB" generate --model "$G/stories260K/stories260K.gguf" --tokenizer "$SHARED/models/stories260K/tok512.bin" \
    --prompt "Once upon a time" --steps 200 --kernel f32 --kv f32 >"$tmp/out" 2>"$tmp/err"; rc=$?
want=$(cat "$SHARED/golden/stories260K/runc_greedy_n200_prompt1.txt")
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "$want" ] && grep -q "more than the 128" "$tmp/err"; then ok
else bad "generate stories260K.gguf -> rc=$rc: $(head -c 300 "$tmp/out") / $(cat "$tmp/err")"; fi

out=$("$BB" e2e --model "$G/bitnet/tiny-bitnet-tq2_0-embf16.gguf" --kernel tq2_0 --out-kernel f16 --prompt 4 --gen 4 --reps 1 2>&1); rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "wq: TQ2_0 used as stored by tq2_0" &&
   printf '%s\n' "$out" | grep -q "(0.000 MB of it padding)"; then ok; else bad "e2e tiny bitnet -> rc=$rc: $out"; fi

out=$("$BB" e2e --model "$G/stories260K/stories260K.gguf" --kernel q4_0 --prompt 4 --gen 4 --reps 1 --csv 2>&1); rc=$?
pad=$(printf '%s\n' "$out" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "weight_pad_bytes_per_token") c = i } NR == 2 { print $c }')
if [ "$rc" -eq 0 ] && [ "${pad:-0}" -gt 0 ]; then ok; else bad "e2e stories260K q4_0 --csv -> rc=$rc pad=$pad: $out"; fi

out=$("$BB" list models "$G/bitnet" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "^tiny-bitnet-tq1_0-embf16.gguf bitnet" &&
   printf '%s\n' "$out" | grep -q "^tiny-bitnet-tq2_0-embf16.gguf bitnet"; then ok; else bad "list models DIR -> rc=$rc: $out"; fi

# a model sweep's run.json says per model, kernel and kind of weight what became of it, and a
# resumed run keeps what an earlier session built
cat >"$tmp/conv.lua" <<EOF
bitbench.experiment { name = "conv", out = "$tmp/res", sweeps = {
  bitbench.sweep { models = {"$G/bitnet/tiny-bitnet-tq2_0-embf16.gguf"}, kernels = {"tq2_0", "q4_0"},
                   out_kernel = "f16", threads = {1}, prompt = 4, gen = 4, reps = 1 } } }
EOF
conv_ok() { # $1 run.json
    tr -d '\n ' <"$1" | grep -q '"model":"tiny-bitnet-tq2_0-embf16.gguf","kernel":"tq2_0","out_kernel":"f16","weights":{"embedding":"F16rowsreadfromtheclassifier(tied)","wq":"TQ2_0usedasstoredbytq2_0"' &&
    tr -d '\n ' <"$1" | grep -q '"kernel":"q4_0","out_kernel":"f16","weights":{[^}]*"w2":"TQ2_0dequantizedtof32,packedintoq4_0","classifier":"F16usedasstoredbyf16"}'
}
"$BB" run --quiet "$tmp/conv.lua" >"$tmp/out" 2>&1; rc=$?
run=$(ls -d "$tmp"/res/conv-* 2>/dev/null | head -1)
if [ "$rc" -eq 0 ] && conv_ok "$run/run.json"; then ok; else bad "sweep conversions -> rc=$rc: $(cat "$tmp/out" "$run/run.json")"; fi
sed 's/"status": "complete"/"status": "incomplete"/' "$run/run.json" >"$tmp/r.json" && mv "$tmp/r.json" "$run/run.json"
"$BB" run --quiet --resume "$tmp/conv.lua" >"$tmp/out" 2>&1; rc=$?
if [ "$rc" -eq 0 ] && conv_ok "$run/run.json" && grep -q '"sessions": 2' "$run/run.json"; then ok
else bad "resumed sweep conversions -> rc=$rc: $(cat "$tmp/out" "$run/run.json")"; fi

# a long file name widens the name column of every row, header included
mkdir "$tmp/long" && ln -s "$G/bitnet/tiny-bitnet-tq2_0-embf16.gguf" "$tmp/long/a-long-gguf-file-name-past-twenty-columns-tq2_0.gguf"
out=$("$BB" list models "$tmp/long" 2>&1); rc=$?
starts=$(printf '%s\n' "$out" | awk '!/^mem:/ { match($0, /^[^ ]+ +/); print RLENGTH }' | sort -u)
if [ "$rc" -eq 0 ] && [ "$starts" = 53 ]; then ok; else bad "list models long names: columns start at $starts: $out"; fi

printf 'GGUF\003\000\000\000' >"$tmp/bad.gguf"
"$BB" e2e --model "$tmp/bad.gguf" --kernel f32 >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "bad.gguf" "$tmp/err"; then ok
else bad "e2e bad.gguf -> rc=$rc: $(cat "$tmp/err")"; fi

echo "gguf_run_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
