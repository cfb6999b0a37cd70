#!/bin/sh
# Readers of a user's file (issue 29): each one, handed a FIFO, a character device (/dev/zero) or a
# directory, answers at once with one line naming the file and a non-zero exit, where it used to
# block forever on the FIFO or read /dev/zero until the machine ran out of memory.  Covered: the
# perplexity text, a llama2.c checkpoint, a GGUF file, a llama2.c tokenizer, a model config (and
# `list models`, which reports such a config and lists the rest), `list models DIR` over *.gguf,
# an experiment file.  Also: a perplexity text over its bound (--max-text-bytes), and perplexity
# and generate refusing a model that cannot fit in memory before they allocate it, with e2e's
# message.  Every command runs under `timeout 20`, so a hang fails the test instead of blocking.
# $1 is the bitbench binary.
BB="$1"
. "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/lib/shared_dir.sh"
L2C="$SHARED/models/stories260K/stories260K.bin"
TOK="$SHARED/models/stories260K/tok512.bin"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_input_files_XXXXXX)
trap 'rm -rf "$T"' EXIT
# a refusal that the fix makes must not turn, before it, into a real allocation of hundreds of GiB
# on a shared machine: such a command fails on its own allocation here instead
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"

# expect_refusal "pattern" args...: within 20 s, exit 1 or 2 and one stderr line matching pattern.
expect_refusal() {
    pattern="$1"; shift
    err=$(timeout 20 "$BB" "$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -ge 1 ] && [ "$rc" -le 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
        printf '%s' "$err" | grep -q -- "$pattern"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL: bitbench $* -> rc=$rc, stderr: $err (wanted one line /$pattern/)"
    fi
}
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

# $T/bad/{fifo,zero,dir}.EXT: a FIFO, a link to /dev/zero, a directory
mkdir -p "$T/bad"
bad_files() { # $1: the extension
    mkfifo "$T/bad/fifo.$1"; ln -s /dev/zero "$T/bad/zero.$1"; mkdir "$T/bad/dir.$1"
}
kind() { case "$1" in fifo) echo "a FIFO" ;; zero) echo "a character device" ;; dir) echo "a directory" ;; esac; }
for ext in txt bin gguf lua tok; do bad_files "$ext"; done
printf 'Once upon a time there was a little dog.\n' > "$T/text.txt"

for k in fifo zero dir; do
    what="is $(kind $k), not a regular file"
    expect_refusal "bad/$k.txt: $what; bitbench reads a perplexity text only" \
        perplexity --model bitnet-dummy-125m --file "$T/bad/$k.txt" --ctx 16
    expect_refusal "bad/$k.bin: $what; bitbench reads a llama2.c checkpoint only" \
        perplexity --model "$T/bad/$k.bin" --file "$T/text.txt" --ctx 16
    expect_refusal "bad/$k.gguf: $what; bitbench reads a GGUF model only" \
        generate --model "$T/bad/$k.gguf" --prompt x
    expect_refusal "bad/$k.gguf: $what" gguf "$T/bad/$k.gguf"
    expect_refusal "bad/$k.lua: $what; bitbench reads a Lua experiment only" run "$T/bad/$k.lua"
    if [ -f "$L2C" ]; then
        expect_refusal "bad/$k.tok: $what; bitbench reads a llama2.c tokenizer only" \
            generate --model "$L2C" --tokenizer "$T/bad/$k.tok" --prompt x --steps 4
    fi
done

# model configs: one of them a FIFO, a link to /dev/zero, a directory, each reported with one
# line while the good config is still listed; loading one by name refuses it
mkdir -p "$T/models"
cp "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/models/bitnet-dummy-125m.lua" "$T/models/"
mkfifo "$T/models/fifo.lua"; ln -s /dev/zero "$T/models/zero.lua"; mkdir "$T/models/dir.lua"
out=$(BITBENCH_MODELS="$T/models" timeout 20 "$BB" list models 2>"$T/list.err"); rc=$?
check '[ "$rc" -eq 1 ] && [ "$(wc -l < "$T/list.err")" -eq 3 ] && grep -q "fifo.lua: is a FIFO" "$T/list.err" &&
    grep -q "zero.lua: is a character device" "$T/list.err" && grep -q "dir.lua: is a directory" "$T/list.err" &&
    printf "%s" "$out" | grep -q "^bitnet-dummy-125m "' "list models over bad configs: rc=$rc $(cat "$T/list.err")"
BITBENCH_MODELS="$T/models" expect_refusal "fifo.lua: is a FIFO, not a regular file; bitbench reads a model config only" \
    e2e --model fifo --kernel i2_s

# list models DIR: each bad *.gguf one line, the listing goes on
out=$(timeout 20 "$BB" list models "$T/bad" 2>"$T/listg.err"); rc=$?
check '[ "$rc" -eq 1 ] && [ "$(grep -c "bad/.*\.gguf: is " "$T/listg.err")" -eq 3 ] && [ "$(wc -l < "$T/listg.err")" -eq 3 ] &&
    printf "%s" "$out" | grep -q "^bitnet-dummy-125m "' "list models DIR over bad *.gguf: rc=$rc $(cat "$T/listg.err")"

# the perplexity text's bound: 256 MiB by default (a sparse file past it costs nothing), lower
# with --max-text-bytes; stated in --help
truncate -s 300M "$T/huge.txt"
expect_refusal "huge.txt: 314572800 bytes, more than the 268435456 bytes a perplexity text may have (raise the bound with --max-text-bytes N)" \
    perplexity --model bitnet-dummy-125m --file "$T/huge.txt" --ctx 16
expect_refusal "text.txt: 41 bytes, more than the 40 bytes a perplexity text may have" \
    perplexity --model bitnet-dummy-125m --file "$T/text.txt" --ctx 16 --max-text-bytes 40
expect_refusal "--max-text-bytes 0: give a positive number" \
    perplexity --model bitnet-dummy-125m --file "$T/text.txt" --ctx 16 --max-text-bytes 0
check '"$BB" perplexity --help | grep -q -- "--max-text-bytes N: the largest TEXT read (default 268435456"' \
    "perplexity --help states the text bound"

# A model that cannot fit (bitnet-dummy-100b with f32 weights: hundreds of GiB) is refused at once
# by perplexity as by e2e, with the same message, before anything is allocated; the address space
# is capped so that the command, before the fix, failed on its allocation rather than the machine.
# cap KB: `ulimit -v KB`, except for a sanitizer build (it reserves terabytes of shadow memory at
# start and cannot run under the cap; its own allocator refuses allocations past its bound)
cap() { grep -q __asan_init "$BB" 2>/dev/null || ulimit -v "$1"; }
fits='needs [0-9.]* GiB (packed weights [0-9.]*, .*) but [0-9.]* GiB is available (the limit is 90% of it)'
(cap 8000000
 expect_refusal "bitbench e2e: model bitnet-dummy-100b with kernel f32 at a [0-9]*-token context $fits" \
     e2e --model bitnet-dummy-100b --kernel f32
 expect_refusal "bitbench perplexity: model bitnet-dummy-100b with kernel f32 at a 16-token context $fits" \
     perplexity --model bitnet-dummy-100b --file "$T/text.txt" --ctx 16 --kernel f32
 echo "$pass $fail" > "$T/counts")
read pass fail < "$T/counts"
# generate takes model files only: a llama2.c checkpoint whose header describes 40 layers of
# 8192 wide (about 130 GB of f32; a sparse file), with its 512-token tokenizer beside it
if [ -f "$TOK" ]; then
    mkdir -p "$T/big"
    # the header: dim 8192, hidden 22016, layers 40, heads 64, kv heads 64, vocab 512, seq_len 256
    printf '\000\040\000\000\000\126\000\000\050\000\000\000\100\000\000\000\100\000\000\000\000\002\000\000\000\001\000\000' \
        > "$T/big/big.bin"
    # the size the header asks for: 28 + 4 * (embedding + per-layer weights + norms + RoPE table)
    size=$(( 28 + 4 * (512*8192 + 40*8192 + 40*8192*8192*4 + 40*8192 + 40*22016*8192*3 + 8192 + 256*128) ))
    truncate -s "$size" "$T/big/big.bin"
    cp "$TOK" "$T/big/tok512.bin"
    # the checkpoint is mapped whole: the cap is its size and 8 GB more
    (cap $(( size / 1024 + 8000000 ))
     expect_refusal "bitbench generate: model big.bin with kernel as-stored at a [0-9]*-token context $fits" \
         generate --model "$T/big/big.bin" --prompt "Once" --steps 8
     echo "$pass $fail" > "$T/counts")
    read pass fail < "$T/counts"
fi

echo "test_input_files: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
