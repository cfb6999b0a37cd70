#!/bin/sh
# bitbench roofline on small sizes (--quick, one thread, two kernels): the profile JSON holds the
# clock, the four read-bandwidth levels, the six instruction peaks (or why not) and gamma per
# kernel, all positive numbers; bad options are refused.
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" roofline --quick --threads 1 --kernels i2_s,q4_0 --out "$tmp/sub/p.json" >"$tmp/out.txt" 2>"$tmp/err.txt" ||
    fail "roofline exited $?: $(cat "$tmp/err.txt")"
p="$tmp/sub/p.json"
[ -s "$p" ] || fail "no profile written"
grep -q '"clock_ghz": [0-9]' "$p" || fail "clock"
for l in L1 L2 L3 DRAM; do grep -q "\"level\": \"$l\"" "$p" || fail "level $l"; done
[ "$(grep -c '"gbps": [0-9]' "$p")" -eq 4 ] || fail "4 bandwidth figures for 1 thread"
for i in vpdpbusd vpmaddubsw vpshufb vpermb fma_fp32 vdpbf16ps; do
    grep -q "\"instruction\": \"$i\"" "$p" || fail "peak $i"
done
[ "$(grep -c '"gamma_cycles_per_32_weights": [0-9]' "$p")" -eq 2 ] || fail "gamma of i2_s and q4_0"
grep -q 'gamma(cyc/32w)' "$tmp/out.txt" || fail "table printed"
grep -q 'nan\|inf' "$p" && fail "non-finite number in the profile"
"$bin" roofline --threads 0 >/dev/null 2>&1 && fail "--threads 0 accepted"
"$bin" roofline --bogus >/dev/null 2>&1 && fail "unknown option accepted"
echo "test_roofline: passed"
