#!/bin/sh
# bitbench's command line on bad input: one clear error line naming the problem and what is
# valid, a non-zero exit, never a crash.  $1 is the bitbench binary.
BB="$1"
. "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/lib/check.sh"
# Huge allocations must fail cleanly under the sanitizer build too.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"

expect_ok() {
    out=$("$BB" "$@" 2>&1); rc=$?
    if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: bitbench $* -> rc=$rc: $out"; fi
}

expect_error "unknown kernel 'nope'; valid kernels: .*i2_s" gemm --kernel nope --m 8 --k 128
expect_error "has no variant 'nope'; usable on this CPU: scalar" gemm --kernel i2_s@nope --m 8 --k 128
expect_error "needs K to be a multiple of 128, got K=100" gemm --kernel i2_s --m 8 --k 100
expect_error "K must be at most" gemm --kernel i2_s --m 8 --k 1048576
expect_error "\-\-m: 0 is out of range" gemm --kernel i2_s --m 0 --k 128
expect_error "\-\-k: -128 is out of range" gemm --kernel i2_s --m 8 --k -128
expect_error "\-\-n: 'x' is not an integer" gemm --kernel i2_s --m 8 --k 128 --n x
expect_error "\-\-threads: 100000 is out of range (valid: 1.." gemm --kernel i2_s --m 8 --k 128 --threads 100000
expect_error "\-\-threads: 0 is out of range" gemm --kernel i2_s --m 8 --k 128 --threads 0
expect_error "unknown mode 'l5'; valid: l1, l2, l3, resident, dram" gemm --kernel i2_s --m 8 --k 128 --cache l5
expect_error "unknown or incomplete option '--bogus'" gemm --kernel i2_s --m 8 --k 128 --bogus
expect_error "are required" gemm --kernel i2_s
expect_error "out of memory" gemm --kernel i2_s --m 16000000 --k 262144
expect_error "unknown list 'foo'" list foo
expect_error "unknown command 'frob'" frob
# The CPU levels and variants are the binary's architecture's (x86-64 or aarch64; an aarch64 build
# may run under qemu on an x86 host, so ask the binary, not uname).
if BITBENCH_CPU_MASK=pentium "$BB" list kernels 2>&1 | grep -q "scalar, neon"; then
    simd=dotprod levels="scalar, neon, dotprod, i8mm" older=neon newer=dotprod
else
    simd=avx2 levels="scalar, avx2, avx512" older=avx2 newer=avx512
fi
BITBENCH_CPU_MASK=ffffffff expect_error "needs CPU features this machine lacks" gemm --kernel i2_s@$simd --m 8 --k 128
unset BITBENCH_CPU_MASK  # a prefix assignment to a shell function may persist
# CPU levels: an AVX2-class CPU has no AVX-512 variant, a NEON-only one no dotprod variant, whatever
# this host has; a typo stops.
BITBENCH_CPU_MASK=$older expect_error "needs CPU features this machine lacks" gemm --kernel i2_s@$newer --m 8 --k 128
unset BITBENCH_CPU_MASK
# x86-64: @amx without AMX-INT8 (absent, not granted by Linux, or masked as here) says why: the
# list of missing features names amx-int8 (and, on a host without AVX-512, the AVX-512 features too).
if [ "$simd" = avx2 ]; then
    BITBENCH_CPU_MASK=avx512 expect_error "variant 'amx' needs CPU features this machine lacks ([a-z0-9 -]*amx-int8): ..*" gemm --kernel i2_s@amx --m 8 --k 128
    unset BITBENCH_CPU_MASK
fi
BITBENCH_CPU_MASK=pentium expect_error "BITBENCH_CPU_MASK='pentium': not a hex mask .* $levels" list kernels
unset BITBENCH_CPU_MASK

expect_ok list kernels
expect_ok gemm --kernel i2_s --m 64 --k 256 --reps 3 --min-time 0 --verify
expect_ok gemm --kernel i2_s@scalar --m 8 --k 128 --n 3 --reps 2 --min-time 0 --csv
# With every SIMD feature masked off, dispatch falls back to the scalar reference.
for mask in ffffffff scalar; do
    out=$(BITBENCH_CPU_MASK=$mask "$BB" gemm --kernel i2_s --m 8 --k 128 --reps 2 --min-time 0 --csv | tail -1)
    case "$out" in gemm,gemm,1,i2_s,scalar,*) pass=$((pass + 1)) ;; *) fail=$((fail + 1)); echo "FAIL: masked ($mask) dispatch gave $out" ;; esac
done
# --read: the same bytes read alone after every call; positive times, GB/s and call-by-call ratio,
# in results.csv's columns (by name: python's csv reads a quoted cpu_model too).
out=$("$BB" gemm --kernel i2_s --m 64 --k 256 --reps 3 --min-time 0 --read --csv)
hdr=$(echo "$out" | head -1)
case "$hdr" in experiment,sweep,point,kernel,*,cpus,*,gbps,*,read_t_median_s,read_t_min_s,read_gbps,read_ratio_paired,*,cpu_model) pass=$((pass + 1)) ;; *) fail=$((fail + 1)); echo "FAIL: --read csv header $hdr" ;; esac
if printf '%s\n' "$out" | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))[0]
f = lambda k: float(r[k])
sys.exit(not (len(r) > 40 and r["variant_ran"] != "" and r["fallback_calls"] == "0" and f("t_median_s") > 0 and
              f("read_t_median_s") > 0 and f("read_t_min_s") <= f("read_t_median_s") and f("read_gbps") > 0 and
              0 < f("read_ratio_paired") < float("inf") and r["read_streams"] in ("1", "8") and f("rotated_bytes") > 0 and r["cache_source"] == ""))'; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --read csv row $out"; fi
case "$("$BB" gemm --kernel i2_s --m 64 --k 256 --reps 3 --min-time 0 --read)" in
*"the same bytes read alone after each call: median"*"per thread;"*"the kernel takes"*"call by call"*) pass=$((pass + 1)) ;;
*) fail=$((fail + 1)); echo "FAIL: --read text output" ;; esac

check_summary cli
