#!/bin/sh
# `generate --model FILE.gguf` takes the tokenizer from the file's metadata (no --tokenizer):
# stories260K.gguf gives llama.cpp's greedy text (llama-simple, golden/gguf README §1.3), the tiny
# BitNet GGUF llama.cpp's "Once upon a timeoo>>>>" (§3.4; ids 414 414 21 21 21 65 ..., 21 being
# the byte token <0x12>, which the README's text does not show); --tokenizer FILE.gguf serves a
# llama2.c checkpoint with run.c's text; a tokenizer larger than the model's vocabulary is refused
# in one line.  $1 is the bitbench binary.
BB="$1"
. "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/lib/shared_dir.sh"
G="$SHARED/golden/gguf"
pass=0; fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$BB" generate --model "$G/stories260K/stories260K.gguf" --prompt "The little dog" --steps 200 --kv f32 \
    >"$tmp/out" 2>"$tmp/err"; rc=$?
want=$(sed '1s/^<s> //' "$G/stories260K/llamacpp_simple_greedy_f32_prompt2.txt")
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "$want" ]; then ok
else bad "generate stories260K.gguf, own tokenizer -> rc=$rc: $(head -c 300 "$tmp/out") / $(cat "$tmp/err")"; fi

"$BB" generate --model "$G/bitnet/tiny-bitnet-tq2_0-embf16.gguf" --prompt "Once upon a time" --steps 20 \
    >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" -eq 0 ] && grep -q "$(printf '^Once upon a timeoo\022\022\022>>>>XXX')" "$tmp/out"; then ok
else bad "generate tiny bitnet, own tokenizer -> rc=$rc: $(cat "$tmp/out") / $(cat "$tmp/err")"; fi

"$BB" generate --model "$SHARED/models/stories260K/stories260K.bin" --tokenizer "$G/stories260K/stories260K.gguf" \
    --prompt "Once upon a time" --steps 200 >"$tmp/out" 2>"$tmp/err"; rc=$?
want=$(cat "$SHARED/golden/stories260K/runc_greedy_n200_prompt1.txt")
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "$want" ]; then ok
else bad "generate stories260K.bin --tokenizer X.gguf -> rc=$rc: $(head -c 300 "$tmp/out") / $(cat "$tmp/err")"; fi

"$BB" generate --model "$G/stories260K/stories260K.gguf" --tokenizer "$G/tokenizer/ggml-vocab-gpt-2.gguf" \
    >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "50257 tokens but the model's vocabulary only 512" "$tmp/err"
then ok; else bad "a tokenizer larger than the vocabulary -> rc=$rc: $(cat "$tmp/err")"; fi

echo "generate_tokenizer_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
