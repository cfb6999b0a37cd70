#!/bin/sh
# bitbench plot on a small fixed results folder (tests/data/plot_results: a GEMV sweep's CSV and
# run.json, a machine profile, and a synthetic model-sweep CSV): every kind gives a non-empty PNG
# and SVG; a kind without its data is skipped with a message; bad arguments are refused.
bin=$1
data="$BITBENCH_SOURCE_DIR/tests/data/plot_results"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" plot "$data" --out "$tmp/plots" >"$tmp/out.txt" 2>"$tmp/err.txt" || fail "plot exited $?: $(cat "$tmp/err.txt")"
for k in roofline threads gemv_bw tokens ebw e2e_threads; do
    for ext in png svg; do
        [ -s "$tmp/plots/$k.$ext" ] || fail "$k.$ext missing or empty"
    done
done
head -c 8 "$tmp/plots/roofline.png" | od -c | grep -q 'P   N   G' || fail "roofline.png is not a PNG"
grep -q '<svg' "$tmp/plots/threads.svg" || fail "threads.svg is not SVG"
grep -q 'operational intensity (operations per weight byte)' "$tmp/plots/roofline.svg" || fail "roofline x label"
grep -q 'Intel' "$tmp/plots/roofline.svg" || fail "machine in the title"
grep -q 'GB/s' "$tmp/plots/gemv_bw.svg" || fail "gemv_bw units"
# one kind only
"$bin" plot "$data" --kind tokens --out "$tmp/one" >/dev/null 2>&1 || fail "--kind tokens"
[ -s "$tmp/one/tokens.png" ] && [ ! -e "$tmp/one/roofline.png" ] || fail "--kind draws that kind only"
# a folder without a model-sweep CSV: tokens is skipped and said so
mkdir "$tmp/gemm_only"
cp "$data/results.csv" "$data/run.json" "$tmp/gemm_only/"
"$bin" plot "$tmp/gemm_only" --profile "$data/machine-profile.json" --out "$tmp/p2" >/dev/null 2>"$tmp/err2.txt" ||
    fail "plot without e2e CSV failed"
grep -q 'tokens skipped' "$tmp/err2.txt" || fail "tokens skip not reported"
[ -s "$tmp/p2/roofline.svg" ] || fail "roofline with --profile"
"$bin" plot "$data" --kind nope >/dev/null 2>&1 && fail "unknown kind accepted"
"$bin" plot >/dev/null 2>&1 && fail "missing folder accepted"
echo "test_plot: passed"
