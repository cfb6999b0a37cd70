#!/bin/sh
# bitbench compare across variants: the same experiment run once under BITBENCH_CPU_MASK=scalar
# and once as the machine is (another variant of i2_s where it has AVX2 or NEON) compares every
# point, by what was measured, with each side's variant as a column and a line naming the
# variants that met; --by-variant keeps the strict matching (nothing in common then).  Both from
# run directories and from the results database (FILE.sqlite:RUN).  $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_compare_variants_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

cat > "$T/k.lua" <<'LUA'
bitbench.experiment { name = "cmpv", out = os.getenv("BITBENCH_TEST_OUT"), sweeps = {
  bitbench.sweep { name = "g", kernels = { "i2_s" }, shapes = { { m = 128, k = 256 }, { m = 256, k = 256 } },
                   n = { 1, 2 }, threads = { 1 }, warmup = 1, reps = 5, min_seconds = 0, max_reps = 5 } } }
LUA
BITBENCH_CPU_MASK=scalar BITBENCH_TEST_OUT="$T/a" "$BB" run --quiet "$T/k.lua" >/dev/null 2>"$T/err" || echo "run a: $(cat "$T/err")"
BITBENCH_TEST_OUT="$T/b" "$BB" run --quiet "$T/k.lua" >/dev/null 2>"$T/err" || echo "run b: $(cat "$T/err")"
A=$(ls -d "$T"/a/cmpv-*); B=$(ls -d "$T"/b/cmpv-*)
va=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "variant") c = i } NR == 2 { print $c }' "$A/results.csv")
vb=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "variant") c = i } NR == 2 { print $c }' "$B/results.csv")
check '[ "$va" = scalar ]' "the masked run ran the scalar variant: $va"
if [ "$vb" = scalar ]; then
    echo "test_compare_variants: this machine's i2_s is scalar unmasked too: the cross-variant checks do not apply"
fi

# col NAME FILE: the column's values, one a line, without the header
col() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$2"; }

"$BB" compare "$A" "$B" --csv >"$T/ab.csv" 2>"$T/ab.err"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(sed 1d "$T/ab.csv" | wc -l)" -eq 4 ]' "every point compared: rc=$rc $(cat "$T/ab.csv" "$T/ab.err")"
check '[ "$(col variant "$T/ab.csv" | sort -u)" = scalar ] && [ "$(col variant_b "$T/ab.csv" | sort -u)" = "$vb" ]' \
    "variant A and variant B columns: $(cat "$T/ab.csv")"
check '[ -n "$(col host_a "$T/ab.csv" | head -1)" ] && [ "$(col host_a "$T/ab.csv" | head -1)" = "$(col host_b "$T/ab.csv" | head -1)" ]' \
    "host columns: $(col host_a "$T/ab.csv") / $(col host_b "$T/ab.csv")"
check 'grep -q "^i2_s M=128 K=256 N=1 threads=1 resident,kernel," "$T/ab.csv"' "the key is what was measured: $(cat "$T/ab.csv")"
"$BB" compare "$A" "$B" >"$T/ab.md" 2>&1; rc=$?
check '[ "$rc" -eq 0 ] && grep -q "^Variants: i2_s: scalar (A) against $vb (B)$" "$T/ab.md" && grep -q "4 points compared" "$T/ab.md" && ! grep -q "only in" "$T/ab.md"' \
    "Markdown: the variants that met, every point: $(cat "$T/ab.md")"

if [ "$vb" != scalar ]; then
    "$BB" compare "$A" "$B" --by-variant >"$T/strict.md" 2>"$T/strict.err"; rc=$?
    check '[ "$rc" -eq 2 ] && grep -q "no point in common.*--by-variant" "$T/strict.err"' \
        "--by-variant: strict matching: rc=$rc $(cat "$T/strict.md" "$T/strict.err")"
fi

# a run that swept two variants against one with a single variant: only its own variant meets it
cat > "$T/two.lua" <<'LUA'
bitbench.experiment { name = "cmp2", out = os.getenv("BITBENCH_TEST_OUT"), sweeps = {
  bitbench.sweep { name = "g", kernels = { "i2_s@scalar", "i2_s" }, shapes = { { m = 128, k = 256 } },
                   n = { 1 }, threads = { 1 }, warmup = 1, reps = 5, min_seconds = 0, max_reps = 5 } } }
LUA
BITBENCH_TEST_OUT="$T/c" "$BB" run --quiet "$T/two.lua" >/dev/null 2>"$T/err" || echo "run c: $(cat "$T/err")"
C=$(ls -d "$T"/c/cmp2-* 2>/dev/null)
if [ -n "$C" ] && [ "$vb" != scalar ]; then
    "$BB" compare "$C" "$A" --csv >"$T/ca.csv" 2>"$T/ca.err"; rc=$?
    check '[ "$rc" -eq 0 ] && grep -Eq "^i2_s M=128 K=256 N=1 threads=1 resident,kernel,,i2_s,scalar,.*,scalar,[^,]*,[^,]*,(\"[^\"]*\"|[^,]*),(\"[^\"]*\"|[^,]*)$" "$T/ca.csv" && [ "$(grep -c "M=128 K=256 N=1 " "$T/ca.csv")" -eq 1 ]' \
        "two variants against one: the same variant meets it, the other stays apart: $(cat "$T/ca.csv" "$T/ca.err")"
fi

if "$BB" db list --db "$T/probe.sqlite" >/dev/null 2>&1; then
    DB="$T/r.sqlite"
    "$BB" db import --db "$DB" "$A" "$B" >/dev/null 2>&1
    ida=$(sed -n 's/.*"run_id": "\([^"]*\)".*/\1/p' "$A/run.json")
    idb=$(sed -n 's/.*"run_id": "\([^"]*\)".*/\1/p' "$B/run.json")
    "$BB" compare "$DB:$ida" "$DB:$idb" --csv >"$T/db.csv" 2>"$T/db.err"; rc=$?
    check '[ "$rc" -eq 0 ] && [ "$(sed 1d "$T/db.csv" | wc -l)" -eq 4 ] && [ "$(col variant_b "$T/db.csv" | sort -u)" = "$vb" ]' \
        "from the database: rc=$rc $(cat "$T/db.csv" "$T/db.err")"
else
    echo "test_compare_variants: this bitbench has no SQLite: the database comparison does not run"
fi

echo "test_compare_variants: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
