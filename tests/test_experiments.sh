#!/bin/sh
# Every experiment file in experiments/ runs end to end at its smoke size (bitbench run --smoke:
# tiny shapes and models, seconds each) and completes; every report module of
# scripts/reproduce/ renders from those smoke runs; and the README's "Reproducing the papers"
# section is exactly what scripts/reproduce.lua makes of results/reference (so the text cannot
# drift from the files).
bin=$1
src="$BITBENCH_SOURCE_DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v lua5.4 >/dev/null || fail "lua5.4 is not installed (scripts/bootstrap installs it)"

n=0
for f in "$src"/experiments/*.lua; do
    name=$(basename "$f" .lua)
    start=$(date +%s)
    # the files name models and the machine profile relative to the repository; CI has no peer
    # programs, so the peers experiments' peer points are allowed to be missing (exit 3 otherwise)
    (cd "$src" && "$bin" run "$f" --smoke --quiet --allow-missing-peers --out "$tmp/results") >"$tmp/$name.out" \
        2>"$tmp/$name.err" ||
        fail "$name --smoke exited $?: $(tail -5 "$tmp/$name.err")"
    end=$(date +%s)
    run=$(ls -d "$tmp/results/$name"-* 2>/dev/null | tail -1)
    [ -n "$run" ] || run=$(ls -td "$tmp"/results/*/ | head -1)
    grep -q '"status": *"complete"' "$run/run.json" || fail "$name: run.json does not say complete"
    grep -q '"--smoke"' "$run/run.json" || fail "$name: the command line in run.json lacks --smoke"
    echo "$name: smoke run complete in $((end - start)) s"
    n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no experiment files found in $src/experiments"

# every report module renders from the smoke runs
if ls "$src"/scripts/reproduce/*.lua >/dev/null 2>&1; then
    lua5.4 "$src/scripts/reproduce.lua" --results "$tmp/results" --plots "$tmp/noplots" --stdout \
        >"$tmp/section.md" 2>"$tmp/reproduce.err" || fail "reproduce.lua on the smoke runs: $(cat "$tmp/reproduce.err")"
    grep -q '^## Reproducing the papers' "$tmp/section.md" || fail "no section heading"
    if grep -q 'No reference run yet' "$tmp/section.md"; then
        fail "a report module found no smoke run of its experiment: $(grep -B2 'No reference run yet' "$tmp/section.md")"
    fi
    echo "report modules: $(ls "$src"/scripts/reproduce/*.lua | wc -l) rendered"
fi

# the README section matches results/reference
lua5.4 "$src/scripts/reproduce.lua" --check >"$tmp/check.out" 2>&1 || fail "$(cat "$tmp/check.out")"

# bad arguments
lua5.4 "$src/scripts/reproduce.lua" --only no_such_experiment --stdout >/dev/null 2>"$tmp/bad.err" &&
    fail "--only with an unknown experiment was accepted"
grep -q 'no report module' "$tmp/bad.err" || fail "unknown --only not explained: $(cat "$tmp/bad.err")"
echo "test_experiments: $n experiment files ok"
