#!/bin/sh
# `bitbench gguf`: a golden GGUF file is listed (exit 0); a truncated copy, a missing file and a
# missing argument each give exactly one line on stderr and a non-zero exit, never a crash.
# $1 is the bitbench binary.
BB="$1"
. "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/lib/shared_dir.sh"
GOLD="$SHARED/golden/gguf/stories260K/stories260K-q8_0.gguf"
pass=0; fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

out=$("$BB" gguf "$GOLD" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "GGUF version 3" &&
   printf '%s\n' "$out" | grep -q "tensors (48)" &&
   printf '%s\n' "$out" | grep -q "tokenizer.ggml.tokens .*STRING\[512\] \['<unk>', '<s>'" &&
   printf '%s\n' "$out" | grep -Eq "blk.4.ffn_down.weight +F32 +\[172, 64\]"; then ok; else bad "gguf $GOLD -> rc=$rc: $out"; fi

# expect_one_line pattern args...: exit 1 or 2, one line on stderr matching pattern
expect_one_line() {
    pattern="$1"; shift
    "$BB" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ge 1 ] && [ "$rc" -le 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$pattern" "$tmp/err"; then ok
    else bad "bitbench $* -> rc=$rc, $lines lines: $(cat "$tmp/err") (wanted /$pattern/)"; fi
}

head -c 20000 "$GOLD" >"$tmp/cut.gguf"
expect_one_line "cut.gguf: tensor 'output.weight': data \[0, 34816) of 34816 bytes (Q8_0) runs past the end of the file" gguf "$tmp/cut.gguf"
head -c 5000 "$GOLD" >"$tmp/cut2.gguf"
expect_one_line "cut2.gguf: metadata key #0 'tokenizer.ggml.tokens': .*runs past the end of the file" gguf "$tmp/cut2.gguf"
printf 'GGUF\001\000\000\000' >"$tmp/v1.gguf"
expect_one_line "v1.gguf: header: GGUF version 1 is not supported (valid: 2, 3)" gguf "$tmp/v1.gguf"
expect_one_line "nope.gguf: cannot open" gguf "$tmp/nope.gguf"
expect_one_line "usage: bitbench gguf FILE.gguf" gguf

echo "gguf_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
