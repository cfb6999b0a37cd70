#!/bin/sh
# Issue 29: `bitbench gguf` on a GGUF from someone else lists its keys, string values (general.name)
# and tensor names for a terminal: terminal control sequences in them (ESC ] 0 ; title, ESC [ 2 J,
# a C1 CSI) are shown as \x1b..., never sent raw.  $1 is the bitbench binary.
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
u32() { printf "\\$(printf %03o "$1")\\000\\000\\000"; }      # n < 256, little-endian
u64() { u32 "$1"; printf '\000\000\000\000'; }
str() { u64 "$(printf '%s' "$1" | wc -c)"; printf '%s' "$1"; } # length, bytes
name=$(printf 'evil\033]0;owned\007\033[2J\302\233H')
tensor=$(printf 'w\033[31m')
{
    printf 'GGUF'; u32 3; u64 1; u64 1
    str "general.name"; u32 8; str "$name"                    # 8: STRING
    str "$tensor"; u32 1; u64 4; u32 0; u64 0                  # one dimension of 4, F32, offset 0
} > "$tmp/h"
size=$(wc -c <"$tmp/h")
pad=$(( (32 - size % 32) % 32 ))
{ cat "$tmp/h"; head -c "$pad" /dev/zero; head -c 16 /dev/zero; } > "$tmp/evil.gguf"
"$bin" gguf "$tmp/evil.gguf" >"$tmp/out" 2>"$tmp/err" || fail "gguf: $(cat "$tmp/err")"
! grep -q "$(printf '\033')" "$tmp/out" || fail "a raw ESC reached the terminal: $(od -c "$tmp/out" | grep -m1 033)"
! grep -q "$(printf '\302\233')" "$tmp/out" || fail "a raw C1 CSI reached the terminal"
grep -q "'evil\\\\x1b\]0;owned\\\\x07\\\\x1b\[2J\\\\xc2\\\\x9bH'" "$tmp/out" || fail "general.name not shown escaped: $(cat "$tmp/out")"
grep -q ' w\\x1b\[31m ' "$tmp/out" || fail "the tensor name not shown escaped: $(cat "$tmp/out")"
# `list models DIR`: a GGUF file's name is the model's name; one holding control sequences is
# shown escaped in the table, and so is the refusal of a file that does not load
src=${BITBENCH_SHARED_DIR:-$(dirname "$0")/../../shared}/golden/gguf/stories260K/stories260K.gguf
mkdir -p "$tmp/dir"
cp "$src" "$tmp/dir/$(printf 'good\033]0;owned\007').gguf"
cp "$tmp/evil.gguf" "$tmp/dir/$(printf 'bad\033[2J').gguf"
"$bin" list models "$tmp/dir" >"$tmp/out" 2>"$tmp/err"
! grep -q "$(printf '\033')" "$tmp/out" "$tmp/err" || fail "list models: a raw ESC reached the terminal: $(od -c "$tmp/out" "$tmp/err" | grep -m1 033)"
grep -q '^good\\x1b\]0;owned\\x07\.gguf ' "$tmp/out" || fail "list models: the file's name not shown escaped: $(cat "$tmp/out")"
grep -q 'bad\\x1b\[2J\.gguf' "$tmp/err" || fail "list models: the refusal not shown escaped: $(cat "$tmp/err")"
# the table's columns line up as a terminal shows them: the name column is as wide as the longest
# name shown (escapes and all), and a UTF-8 name takes a column per character, not per byte
cp "$src" "$tmp/dir/$(printf 'mod\303\250le-\343\203\242\343\203\207\343\203\253-long-enough-to-set-the-width').gguf"
"$bin" list models "$tmp/dir" >"$tmp/out" 2>/dev/null
cols=$(grep -E '^(model|good|mod)' "$tmp/out" | while IFS= read -r line; do
    printf '%s' "${line%% llama*}" | sed 's/ style.*//' | LC_ALL=C.UTF-8 wc -m; done | sort -u | tr '\n' ' ')
[ "$(echo "$cols" | wc -w)" = 1 ] || fail "list models: the name column is not one width as shown: $cols; $(cat "$tmp/out")"
echo "test_gguf_names: ok"
