#!/bin/sh
# bitbench roofline on small sizes (--quick, one thread, two kernels): the profile JSON holds the
# clock, the four read-bandwidth levels, the six instruction peaks of the binary's architecture
# (or why not; on aarch64 TBL and f32 FMLA, which every core has, measured), and gamma per kernel,
# all positive numbers; bad options are refused.
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" roofline --quick --threads 1 --kernels i2_s,q4_0 --out "$tmp/sub/p.json" >"$tmp/out.txt" 2>"$tmp/err.txt" ||
    fail "roofline exited $?: $(cat "$tmp/err.txt")"
p="$tmp/sub/p.json"
[ -s "$p" ] || fail "no profile written"
grep -q '"clock_ghz": [0-9]' "$p" || fail "clock"
grep -q '"dram_read_streams": 8' "$p" || fail "the DRAM ceilings' read (dram_read_streams) not said"
for l in L1 L2 L3 DRAM; do grep -q "\"level\": \"$l\"" "$p" || fail "level $l"; done
[ "$(grep -c '"gbps": [0-9]' "$p")" -eq 4 ] || fail "4 bandwidth figures for 1 thread"
# the binary's architecture, not the host's (an aarch64 build may run under qemu): its CPU levels
if BITBENCH_CPU_MASK=pentium "$bin" list kernels 2>&1 | grep -q "scalar, neon"; then
    peaks="sdot smmla tbl fmla_fp32 fmla_fp16 bfdot" always="tbl fmla_fp32"
else
    peaks="vpdpbusd vpmaddubsw vpshufb vpermb fma_fp32 vdpbf16ps" always=""
fi
for i in $peaks; do
    grep -q "\"instruction\": \"$i\"" "$p" || fail "peak $i"
done
for i in $always; do
    grep -A4 "\"instruction\": \"$i\"" "$p" | grep -q '"ginstr_per_s_1t": [0-9.]*[1-9]' ||
        fail "peak $i not measured on an aarch64 core"
done
[ "$(grep -c '"gamma_cycles_per_32_weights": [0-9]' "$p")" -eq 2 ] || fail "gamma of i2_s and q4_0"
grep -q 'gamma(cyc/32w)' "$tmp/out.txt" || fail "table printed"
grep -q 'nan\|inf' "$p" && fail "non-finite number in the profile"
"$bin" roofline --threads 0 >/dev/null 2>&1 && fail "--threads 0 accepted"
"$bin" roofline --bogus >/dev/null 2>&1 && fail "unknown option accepted"
# a kernel name that is not registered is refused before any measurement (it gave an empty table, exit 0)
"$bin" roofline --quick --kernels i2_s,nosuch --out "$tmp/x.json" >/dev/null 2>"$tmp/err.txt"; rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && grep -q "\-\-kernels: unknown kernel 'nosuch'; valid kernels: .*i2_s" "$tmp/err.txt" &&
    [ ! -e "$tmp/x.json" ] || fail "--kernels nosuch -> rc=$rc: $(cat "$tmp/err.txt")"
"$bin" roofline --quick --kernels i2_s@scalar >/dev/null 2>"$tmp/err.txt" && fail "--kernels with a variant accepted"
grep -q "'i2_s@scalar' is a variant; --kernels takes kernel names" "$tmp/err.txt" || fail "variant: $(cat "$tmp/err.txt")"
# An output place that cannot take the profile is refused in one line before the measurement
# (which takes minutes without --quick), not after it (issue 29); a device is never written.
ms() { echo $(($(date +%s%N) / 1000000)); }
refused_fast() { # pattern out
    t0=$(ms)
    "$bin" roofline --quick --threads 1 --kernels i2_s --out "$2" >"$tmp/o.txt" 2>"$tmp/err.txt"; rc=$?
    t=$(($(ms) - t0))
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && grep -q -- "$1" "$tmp/err.txt" && [ "$t" -lt 1000 ] &&
        [ ! -s "$tmp/o.txt" ] || fail "--out $2 -> rc=$rc in $t ms: $(cat "$tmp/err.txt") (wanted /$1/)"
}
refused_fast "--out $tmp/no/such/p.json: cannot write it: the folder $tmp/no/such does not exist" "$tmp/no/such/p.json"
refused_fast "--out /dev/null: is a character device" /dev/null
mkdir "$tmp/d.json"
refused_fast "d.json: is a directory" "$tmp/d.json"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
echo "test_roofline: passed"
