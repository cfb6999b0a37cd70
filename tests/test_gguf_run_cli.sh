#!/bin/sh
# GGUF models through the commands: `generate --model FILE.gguf` gives llama.cpp's (and run.c's)
# greedy story for stories260K beyond the file's 128-token context with a warning; `e2e --model
# FILE.gguf` runs the file's weights and says per kind of weight what happened (TQ2_0 used as
# stored by tq2_0; F32 padded for q4_0), and a model sweep's run.json says it per model and
# kernel; `list models DIR` lists the GGUF files of DIR; a model
# file with a bad architecture is one error line; with no kernel options `perplexity`, `e2e` and
# model sweeps run each GGUF tensor through the kernel that stores its type, the classifier as
# stored, and --kernel says on stderr what it requantizes.  $1 is the bitbench binary.
BB="$1"
. "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/lib/shared_dir.sh"
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

out=$("$BB" e2e --model "$G/stories260K/stories260K.gguf" --kernel q4_0 --prompt 4 --gen 4 --reps 1 --csv 2>"$tmp/err"); rc=$?
pad=$(printf '%s\n' "$out" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "weight_pad_bytes_per_token") c = i } NR == 2 { print $c }')
if [ "$rc" -eq 0 ] && [ "${pad:-0}" -gt 0 ]; then ok; else bad "e2e stories260K q4_0 --csv -> rc=$rc pad=$pad: $out $(cat "$tmp/err")"; fi

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

# With no kernel options a GGUF file's tensors each go through the kernel that stores their type
# and the classifier stays as stored: what llama-perplexity computes on the file (the running
# value after 24 chunks within 1 % of llama.cpp's log; test_perplexity holds the whole text's PPL
# to 0.1 %); --kernel K names the linear layers only and stderr says what it requantizes.
GPL3=/usr/share/common-licenses/GPL-3
# The default rearranges Q4_0 into q4_0x8 only where q4_0x8 has a SIMD variant on this CPU (not
# under BITBENCH_CPU_MASK=scalar, where q4_0 runs as stored).
if [ "$("$BB" list kernels | awk '$1 == "q4_0x8" { print $5 }')" = scalar ]; then
    wq_json='"wq":"Q4_0usedasstoredbyq4_0"'; wq_text="weights  wq: Q4_0 used as stored by q4_0"; rearranges=0
else
    wq_json='"wq":"Q4_0blocksrearranged(notrequantized)forq4_0x8"'
    wq_text="weights  wq: Q4_0 blocks rearranged (not requantized) for q4_0x8"; rearranges=1
fi
# Likewise the Q8_0 classifier into q8_0_x16.
if [ "$("$BB" list kernels | awk '$1 == "q8_0_x16" { print $5 }')" = scalar ]; then
    cls_kernel=q8_0; cls_json='"classifier":"Q8_0usedasstoredbyq8_0"'; cls_text="weights  classifier: Q8_0 used as stored by q8_0"
    cls_note="the classifier (output) stays Q8_0 (--out-kernel to change it)"
else
    cls_kernel=q8_0_x16; cls_json='"classifier":"Q8_0blocksrearranged(notrequantized)forq8_0_x16"'
    cls_text="weights  classifier: Q8_0 blocks rearranged (not requantized) for q8_0_x16"
    cls_note="the classifier (output) stays Q8_0, its blocks rearranged for q8_0_x16 (--out-kernel to change it)"
fi
llama_at() { tr ',' '\n' <"$1" | sed -n "s/^\[$2\]//p" | head -1; } # running value [i] of a log
final() { sed -n 's/^Final estimate: PPL = \([0-9.]*\).*/\1/p' "$1"; }
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a / b - 1; if (d < 0) d = -d; exit !(b > 0 && d < t) }'; }
if [ -r "$GPL3" ]; then
    "$BB" perplexity --model "$G/stories260K/stories260K-q4_0.gguf" --file "$GPL3" --ctx 128 --chunks 24 --threads 2 \
        --csv "$tmp/q4.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
    got=$(final "$tmp/out"); want=$(llama_at "$G/stories260K/perplexity_gpl3_c128_q4_0_kvf32.txt" 24)
    conv=$(tr -d '\n ' <"$tmp/q4.json" 2>/dev/null)
    if [ "$rc" -eq 0 ] && near "$got" "$want" 0.01 && printf '%s' "$conv" | grep -q "\"kernel\":\"as-stored\",\"out_kernel\":\"$cls_kernel\"" &&
       printf '%s' "$conv" | grep -qF "$wq_json" &&
       printf '%s' "$conv" | grep -q '"w1":"Q4_0usedasstoredbyq4_0"' && printf '%s' "$conv" | grep -q '"w2":"F32usedasstoredbyf32"' &&
       printf '%s' "$conv" | grep -qF "$cls_json" && ! grep -q requantizes "$tmp/err"; then ok
    else bad "perplexity q4_0 default -> rc=$rc PPL[24] $got, llama.cpp $want: $(cat "$tmp/err") $conv"; fi

    "$BB" perplexity --model "$G/stories260K/stories260K-q4_0.gguf" --file "$GPL3" --ctx 128 --chunks 1 --no-repack \
        --csv "$tmp/q4k.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
    conv=$(tr -d '\n ' <"$tmp/q4k.json" 2>/dev/null)
    if [ "$rc" -eq 0 ] && printf '%s' "$conv" | grep -q '"kernel":"as-stored-no-repack","out_kernel":"q8_0"' &&
       printf '%s' "$conv" | grep -q '"wq":"Q4_0usedasstoredbyq4_0"' && ! grep -q rearrang "$tmp/err"; then ok
    else bad "perplexity q4_0 --no-repack -> rc=$rc: $(cat "$tmp/err") $conv"; fi

    "$BB" perplexity --model "$G/bitnet/tiny-bitnet-tq2_0-embf16.gguf" --file "$GPL3" --ctx 128 --chunks 24 --threads 2 \
        --kernel tq2_0 >"$tmp/out" 2>"$tmp/err"; rc=$?
    got=$(final "$tmp/out"); want=$(llama_at "$G/bitnet/perplexity_gpl3_c128_tq2_0-embf16_kvf32.txt" 24)
    if [ "$rc" -eq 0 ] && near "$got" "$want" 0.02 &&
       grep -qx "bitbench: --kernel tq2_0 uses every linear tensor as stored; the classifier (token_embd) stays F16 (--out-kernel to change it)" "$tmp/err"
    then ok; else bad "perplexity tiny bitnet --kernel tq2_0 -> rc=$rc PPL[24] $got, llama.cpp $want: $(cat "$tmp/err")"; fi

    "$BB" perplexity --model "$G/stories260K/stories260K-q8_0.gguf" --file "$GPL3" --ctx 128 --chunks 1 --kernel q4_0 \
        >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ "$rc" -eq 0 ] && grep -qxF "bitbench: --kernel q4_0 requantizes 35 tensors: 30 Q8_0 (attn_q, attn_k, attn_v, attn_output, ffn_gate, ffn_up), 5 F32 (ffn_down); $cls_note" "$tmp/err"
    then ok; else bad "perplexity q8_0 --kernel q4_0 -> rc=$rc: $(cat "$tmp/err")"; fi
else
    echo "skipped: no $GPL3 (Debian's base-files) for the perplexity checks"
fi

# e2e takes the same default: a GGUF file needs no --kernel, and the classifier stays as stored;
# the Q4_0 blocks of tensors whose rows fill q4_0x8's groups of 8 (attn_*, not the 172-row FFN)
# are rearranged into it, and stderr says so in one line; --no-repack keeps every stored layout
out=$("$BB" e2e --model "$G/stories260K/stories260K-q4_0.gguf" --prompt 4 --gen 4 --reps 1 2>"$tmp/err"); rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "kernel as-stored" &&
   printf '%s\n' "$out" | grep -qF "$wq_text" &&
   printf '%s\n' "$out" | grep -q "weights  w1: Q4_0 used as stored by q4_0" &&
   printf '%s\n' "$out" | grep -qF "$cls_text" &&
   [ "$(grep -c rearranges "$tmp/err")" -eq "$rearranges" ] &&
   { [ "$rearranges" -eq 0 ] || grep -q "^bitbench: rearranges 20 tensors at load into a faster layout, bits unchanged: 20 Q4_0 (attn_q, attn_k, attn_v, attn_output) for q4_0x8 (--no-repack keeps the stored layout)" "$tmp/err"; }
then ok
else bad "e2e stories260K-q4_0 with no kernel -> rc=$rc: $out $(cat "$tmp/err")"; fi
out=$("$BB" e2e --model "$G/stories260K/stories260K-q4_0.gguf" --no-repack --prompt 4 --gen 4 --reps 1 2>"$tmp/err"); rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "kernel as-stored-no-repack" &&
   printf '%s\n' "$out" | grep -q "weights  wq: Q4_0 used as stored by q4_0" && ! grep -q rearrang "$tmp/err"; then ok
else bad "e2e stories260K-q4_0 --no-repack -> rc=$rc: $out $(cat "$tmp/err")"; fi
out=$("$BB" e2e --model "$G/stories260K/stories260K-q4_0.gguf" --kernel q4_0 --prompt 4 --gen 4 --reps 1 --csv 2>&1); rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "^bitbench: --kernel q4_0 requantizes 5 tensors: 5 F32 (ffn_down); the classifier (output) stays Q8_0" &&
   printf '%s\n' "$out" | grep -q '^e2e,e2e,1,stories260K-q4_0.gguf,q4_0,'; then ok
else bad "e2e stories260K-q4_0 --kernel q4_0 -> rc=$rc: $out"; fi

# and so does a model sweep without out_kernel: the classifier of a GGUF model as stored
cat >"$tmp/asstored.lua" <<EOF
bitbench.experiment { name = "asstored", out = "$tmp/res2", sweeps = {
  bitbench.sweep { models = {"$G/stories260K/stories260K-q4_0.gguf"}, kernels = {"q4_0"},
                   threads = {1}, prompt = 4, gen = 4, reps = 1 } } }
EOF
"$BB" run --quiet "$tmp/asstored.lua" >"$tmp/out" 2>&1; rc=$?
run=$(ls -d "$tmp"/res2/asstored-* 2>/dev/null | head -1)
if [ "$rc" -eq 0 ] && tr -d '\n ' <"$run/run.json" |
   grep -q "\"kernel\":\"q4_0\",\"out_kernel\":\"$cls_kernel\",\"weights\":{[^}]*\"w2\":\"F32dequantizedtof32,packedintoq4_0(64x172paddedto64x192)\",$cls_json}"
then ok; else bad "sweep of a GGUF model without out_kernel -> rc=$rc: $(cat "$tmp/out" "$run/run.json")"; fi

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
