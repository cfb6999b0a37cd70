#!/bin/sh
# Verification is a gate (gemm_bench.h, bb_gemm_verify_passed): a sweep with verify = true over a
# variant that is wrong on purpose (test_wrong, registered only in the test program
# bitbench_hooks, tests/hooks/test_kernels.h) exits non-zero, run.json says "failed", the row's
# verify cell says FAILED, stderr names the kernel, variant, shape and how far, results.md marks
# it, and a --resume keeps it failed (before, the run ended "complete", exit 0, with err_max_abs
# 5771964 in the row and no word on stderr); the correct kernels beside it pass, and a run of
# correct kernels completes.  `gemm --verify` decides the same.  The release bitbench has no test
# kernels and no environment variable that slows a kernel's timed calls (the test-only delay
# BITBENCH_TEST_DELAY_KERNEL once spun inside bb_gemm_measure's timed loop of every build).
# $1 is the bitbench binary; BITBENCH_HOOKS_BIN the test program.
BB="$1"
BBH="${BITBENCH_HOOKS_BIN:?BITBENCH_HOOKS_BIN: the bitbench_hooks test program (ctest sets it)}"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_verify_gate_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
col() { # $1 file, $2 column name, $3 kernel, $4 variant: the cell of that row
    awk -F, -v c="$2" -v k="$3" -v v="$4" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) n = i }
        NR > 1 && $4 == k && $5 == v { print $n }' "$1"
}

cat >"$T/v.lua" <<LUA
bitbench.experiment { name = "vg", out = "$T/res", sweeps = {
  bitbench.sweep { name = "acc", kernels = { "f32", "test_wrong", "test_wrong@scalar" }, shapes = { { 64, 256 } },
                   n = { 1 }, threads = { 1 }, warmup = 0, reps = 2, max_reps = 2, min_seconds = 0, verify = true } } }
LUA
"$BBH" run "$T/v.lua" --quiet >"$T/out" 2>"$T/err"; rc=$?
dir=$(ls -d "$T"/res/vg-* 2>/dev/null | head -1)
csv="$dir/results.csv"
check '[ "$rc" -eq 1 ]' "a wrong variant verified: exit $rc, want 1: $(cat "$T/err")"
check 'grep -q "\"status\": \"failed\"" "$dir/run.json" && grep -q "\"verify_failed\": 1" "$dir/run.json"' \
    "run.json: status failed, 1 verify_failed: $(grep -A2 '"status"' "$dir/run.json")"
check '[ "$(col "$csv" verify test_wrong wrong)" = FAILED ]' "the wrong row's verify: '$(col "$csv" verify test_wrong wrong)'"
check '[ "$(col "$csv" verify test_wrong scalar)" = passed ]' \
    "the correct variant passes: '$(col "$csv" verify test_wrong scalar)'"
check '[ -z "$(awk -F, "NR > 1 && \$4 == \"f32\"" "$csv" | grep -v ",passed,")" ]' "f32 passes: $(cat "$csv")"
check '[ "$(grep -c "FAILED verify" "$T/err")" -eq 1 ] && grep -q "^bitbench run: point [0-9]* (acc: test_wrong@wrong M=64 K=256 N=1) FAILED verify: max |error| [0-9.e+-]* is [0-9.e+-]* times its format.s bound" "$T/err"' \
    "the stderr line, even with --quiet: $(cat "$T/err")"
check 'grep -q "test_wrong@wrong .*| \*\*FAILED\*\* |" "$dir/results.md" && grep -q "test_wrong@scalar .*| passed |" "$T/out"' \
    "results.md and the printed table mark it: $(cat "$dir/results.md")"
check 'grep -q "point [0-9]* (acc: test_wrong@wrong M=64 K=256 N=1) FAILED verify" "$dir/run.json"' "run.json's failed names it"

# --resume of the failed run measures nothing and stays failed
"$BBH" run "$T/v.lua" --resume --quiet >/dev/null 2>"$T/err2"; rc=$?
check '[ "$rc" -eq 1 ] && grep -q "\"status\": \"failed\"" "$dir/run.json" && grep -q "FAILED verify: max |error| [0-9.e+-]* exceeds" "$T/err2"' \
    "resumed: rc=$rc $(cat "$T/err2")"

# correct kernels only: verified, passed, complete
sed 's/"f32", "test_wrong", "test_wrong@scalar"/"f32", "test_wrong@scalar"/; s/name = "vg"/name = "vok"/' "$T/v.lua" >"$T/ok.lua"
"$BBH" run "$T/ok.lua" --quiet >/dev/null 2>"$T/err"; rc=$?
okdir=$(ls -d "$T"/res/vok-* 2>/dev/null | head -1)
check '[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && grep -q "\"status\": \"complete\"" "$okdir/run.json" && [ "$(tail -n +2 "$okdir/results.csv" | grep -c ",passed,")" -eq 2 ]' \
    "correct kernels: rc=$rc $(cat "$T/err") $(cat "$okdir/results.csv")"

# gemm --verify: the same decision
"$BBH" gemm --kernel test_wrong --m 64 --k 256 --reps 2 --min-time 0 --verify >"$T/g.out" 2>&1; rc=$?
check '[ "$rc" -eq 1 ] && grep -q "EXCEEDS the format" "$T/g.out"' "gemm --verify of the wrong variant: rc=$rc $(cat "$T/g.out")"
"$BBH" gemm --kernel test_wrong@scalar --m 64 --k 256 --reps 2 --min-time 0 --verify >"$T/g.out" 2>&1; rc=$?
check '[ "$rc" -eq 0 ] && grep -q "within the format" "$T/g.out"' "gemm --verify of the right variant: rc=$rc $(cat "$T/g.out")"

# the release bitbench: no test kernels, and BITBENCH_TEST_DELAY_KERNEL no longer slows a timed call
check '! "$BB" list kernels 2>&1 | grep -q "test_wrong\|test_slow"' "the release build lists no test kernel"
median() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "t_median_s") c = i } NR == 2 { print $c }' "$1"; }
BITBENCH_TEST_DELAY_KERNEL=f32:0.05 "$BB" gemm --kernel f32 --m 64 --k 256 --reps 3 --warmup 0 --min-time 0 --csv >"$T/d.csv" 2>&1
check 'awk -v t="$(median "$T/d.csv")" "BEGIN { exit !(t > 0 && t < 0.05) }"' \
    "the release build ignores BITBENCH_TEST_DELAY_KERNEL: median $(median "$T/d.csv") s: $(cat "$T/d.csv")"
# while the test program's slowed kernel is slower: the check above can see a delay
BITBENCH_TEST_SLOW=0.05 "$BBH" gemm --kernel test_slow --m 64 --k 256 --reps 3 --warmup 0 --min-time 0 --csv >"$T/s.csv" 2>&1
check 'awk -v t="$(median "$T/s.csv")" "BEGIN { exit !(t >= 0.05) }"' "test_slow is slowed: median $(median "$T/s.csv") s"

echo "test_verify_gate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
