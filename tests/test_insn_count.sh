#!/bin/sh
# scripts/insn-count on hand-written loops whose counts are known: a main loop of 2 FMAs (16 float
# multiply-adds) beside a remainder loop of 1, the main one chosen; its classes, W from --weights
# dot and the instructions per 32 weights; a helper reached through a call; bad arguments refused.
# x86-64 assembly where the host compiler targets x86-64, aarch64 assembly where a compiler for
# aarch64 is found (the cross compiler on an x86 host, cc on an Arm host); at least one must run.
src=$BITBENCH_SOURCE_DIR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ic="$src/scripts/insn-count"
ran=0

# expect FILE SYMBOL "tsv fields but the span in bytes (an encoding detail)"
expect() {
    out=$("$ic" --tsv --weights dot "$1" "$2" | cut -f 1,3-) || fail "insn-count $2 exited $?"
    [ "$(printf '%s' "$out" | tr '\t' ' ')" = "$3" ] || fail "$2: got '$(printf '%s' "$out" | tr '\t' ' ')', expected '$3'"
}

if cc -dumpmachine 2>/dev/null | grep -q '^x86_64'; then
    cat >"$tmp/x86.s" <<'EOF'
    .text
    .globl kernel
kernel:
    call helper
    ret
helper:
    xor %eax, %eax
1:  vmovups (%rdi,%rax,4), %ymm1
    vfmadd231ps (%rsi,%rax,4), %ymm1, %ymm0
    vfmadd231ps 32(%rsi,%rax,4), %ymm1, %ymm2
    vpand %ymm3, %ymm4, %ymm5
    add $16, %rax
    cmp %rdx, %rax
    jb 1b
2:  vfmadd231ps (%rsi,%rax,4), %xmm1, %xmm0
    add $4, %rax
    cmp %rcx, %rax
    jb 2b
    ret
EOF
    cc -c "$tmp/x86.s" -o "$tmp/x86.o" || fail "cannot assemble the x86-64 loop"
    # helper: 7 instructions from 1: to jb, 1 load, 2 FMAs, 1 AND, 3 other; W = 2 x 8 lanes
    expect "$tmp/x86.o" kernel "helper 7 1 2 0 1 3 14.0 16"
    # dot/2: each weight met by two of the FMAs, W = 8
    out=$("$ic" --tsv --weights dot/2 "$tmp/x86.o" kernel | cut -f 9,10 | tr '\t' ' ')
    [ "$out" = "28.0 8" ] || fail "--weights dot/2: got '$out', expected '28.0 8'"
    "$ic" "$tmp/x86.o" helper | grep -q '^innermost hot loop: .*7 instructions' || fail "plain output"
    ran=$((ran + 1))
fi

armcc=
if cc -dumpmachine 2>/dev/null | grep -q '^aarch64'; then armcc=cc
elif command -v aarch64-linux-gnu-gcc >/dev/null; then armcc=aarch64-linux-gnu-gcc; fi
if [ -n "$armcc" ]; then
    cat >"$tmp/arm.s" <<'EOF'
    .arch armv8.2-a+dotprod
    .text
    .globl kernel
kernel:
    mov x3, #0
1:  ldr q1, [x0, x3]
    ushr v2.16b, v1.16b, #4
    and v1.16b, v1.16b, v7.16b
    sdot v0.4s, v1.16b, v3.16b
    sdot v4.4s, v2.16b, v3.16b
    tbl v5.16b, {v6.16b}, v1.16b
    add x3, x3, #16
    cmp x3, x2
    b.lt 1b
2:  ldr s1, [x0, x3]
    sdot v0.4s, v1.16b, v3.4b[0]
    add x3, x3, #4
    cmp x3, x4
    b.lt 2b
    ret
EOF
    $armcc -c "$tmp/arm.s" -o "$tmp/arm.o" || fail "cannot assemble the aarch64 loop"
    # 9 instructions: 1 load, 2 SDOT, 1 TBL, 2 shift/logic, 3 other; W = 2 x 16
    expect "$tmp/arm.o" kernel "kernel 9 1 2 1 2 3 9.0 32"
    ran=$((ran + 1))
fi
[ "$ran" -gt 0 ] || fail "no compiler for x86-64 or aarch64 found to assemble the test loops"

obj=$(ls "$tmp"/*.o | head -1)
"$ic" "$obj" no_such_function >/dev/null 2>"$tmp/err" && fail "an unknown function was accepted"
grep -q 'no function no_such_function' "$tmp/err" || fail "unknown function not explained: $(cat "$tmp/err")"
"$ic" --weights x "$obj" kernel >/dev/null 2>&1 && fail "--weights x accepted"
for bad in dot/ dot/0 dot/x dot/2x; do
    "$ic" --weights "$bad" "$obj" kernel >/dev/null 2>&1 && fail "--weights $bad accepted"
done
"$ic" "$(ls "$tmp"/*.s | head -1)" kernel >/dev/null 2>&1 && fail "a non-ELF file accepted"
echo "test_insn_count: passed ($ran architecture(s))"
