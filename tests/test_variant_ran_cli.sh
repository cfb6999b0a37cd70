#!/bin/sh
# What ran (kernel.h, bb_variant): `bitbench gemm --csv` records the variant asked for and the code
# that ran.  On any host a variant without a dispatch rule records itself; where i2_s@amx can run,
# at N = 1 it records avx512 (its documented rule: N < 16 runs @avx512) and at N = 16 amx; on a
# host without AMX that part is skipped with a message.  $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_ran_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

# the cell of column $2 in the one-row CSV file $1
cell() { awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i } NR == 2 { print $c }' "$1"; }

gemm() { "$BB" gemm --m 256 --k 256 --reps 3 --warmup 1 --min-time 0 --csv "$@"; }

gemm --kernel i2_s@scalar --n 1 >"$T/scalar.csv" 2>&1; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(cell "$T/scalar.csv" variant)" = scalar ] && [ "$(cell "$T/scalar.csv" variant_ran)" = scalar ] && [ "$(cell "$T/scalar.csv" fallback_calls)" = 0 ]' \
    "i2_s@scalar records itself: rc=$rc $(cat "$T/scalar.csv")"

if gemm --kernel i2_s@amx --n 1 >"$T/amx1.csv" 2>"$T/amx.err"; then
    check '[ "$(cell "$T/amx1.csv" variant)" = amx ] && [ "$(cell "$T/amx1.csv" variant_ran)" = avx512 ]' \
        "i2_s@amx at N=1 records the avx512 code: $(cat "$T/amx1.csv")"
    gemm --kernel i2_s@amx --n 16 >"$T/amx16.csv" 2>&1; rc=$?
    check '[ "$rc" -eq 0 ] && [ "$(cell "$T/amx16.csv" variant_ran)" = amx ] && [ "$(cell "$T/amx16.csv" fallback_calls)" = 0 ]' \
        "i2_s@amx at N=16 records amx: rc=$rc $(cat "$T/amx16.csv")"
    "$BB" gemm --kernel i2_s@amx --m 256 --k 256 --n 1 --reps 3 --min-time 0 >"$T/amx1.txt" 2>&1
    check 'grep -q "ran    i2_s@avx512: @amx runs it below N=16" "$T/amx1.txt"' "the text output says so: $(cat "$T/amx1.txt")"
else
    echo "skipped: i2_s@amx cannot run on this host ($(cat "$T/amx.err"))"
fi

echo "test_variant_ran_cli.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
