#!/bin/sh
# The software prefetches are in the built code.  GCC deletes a call it does not inline to a
# function that only prefetches (no side effects): it happened to the kernels' tiles and to the
# attention's helpers (kernels/common/prefetch.h, models/attention.c), the results stayed the same
# bits, and only a slower decode showed it.  So the disassembly of the functions that stream
# from DRAM must hold prefetch instructions: bb_attn_chunk in every build (its helpers are
# always inlined), and in an optimized build (-O2/-O3, where the kernels' static helpers are
# inlined into them) a sample of the streaming kernels.  The aarch64 build (scripts/test's qemu
# stage) is read with the cross objdump; skipped (77) where no objdump reads the binary.
bin=$1 elf=$1
# the emulated build's wrapper (tests/CMakeLists.txt) is "exec EMULATOR BINARY "$@"": read BINARY
if [ "$(head -c 2 "$bin")" = "#!" ]; then
    elf=$(sed -n 's/^exec [^ ]* \([^ ]*\) .*/\1/p' "$bin")
fi
od=objdump
command -v objdump >/dev/null 2>&1 || { echo "SKIP: no objdump"; exit 77; }
fmt=$(objdump -f "$elf" 2>/dev/null | sed -n 's/.*file format //p')
if [ "$fmt" = elf64-little ] && command -v aarch64-linux-gnu-objdump >/dev/null 2>&1; then
    od=aarch64-linux-gnu-objdump
    fmt=$($od -f "$elf" 2>/dev/null | sed -n 's/.*file format //p')
fi
case "$fmt" in
elf64-x86-64) insn=prefetch
    kernels="bb_i2_s_matmul_avx512 bb_q2_k_x16_matmul_avx512 bb_tq1_0_x16_matmul_avx512 bb_q8_0_matmul_avx2
             bb_q8_0_x16_matmul_avx512 bb_q8_0_x16_matmul_avx2
             bb_tmac_w2_avx512 bb_q4_0x8_matmul_avx512" ;;
elf64-littleaarch64) insn=prfm
    kernels="bb_q2_k_x16_matmul_dotprod bb_q8_0_matmul_dotprod bb_q8_0_x16_matmul_dotprod" ;;
*) echo "SKIP: objdump reads '$elf' as '$fmt'"; exit 77 ;;
esac
count() { $od -d --no-show-raw-insn --disassemble="$1" "$elf" | grep -c "$insn"; }
fail=0
n=$(count bb_attn_chunk)
[ "$n" -ge 2 ] || {
    echo "FAIL: bb_attn_chunk holds $n $insn instructions (the keys' and the values' prefetch)"
    fail=1
}
if "$bin" --version | grep -q '^C flags:.*-O[23]'; then
    for k in $kernels; do
        n=$(count "$k")
        [ "$n" -ge 1 ] || { echo "FAIL: $k holds no $insn instruction"; fail=1; }
    done
fi
[ $fail -eq 0 ] && echo "prefetches present ($insn)"
exit $fail
