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
# without --out the plots go into RESULTS_DIR/plots; kernel names print literally (noenhanced:
# "i2_s", not i2 with a subscript s); the error bars and flagged points are named in the key
cp -r "$data" "$tmp/run"
"$bin" plot "$tmp/run" --kind threads >/dev/null 2>&1 || fail "plot into the run directory"
[ -s "$tmp/run/plots/threads.svg" ] || fail "default output folder is not RESULTS_DIR/plots"
grep -q 'i2_s@avx512' "$tmp/run/plots/threads.svg" || fail "kernel name not printed literally"
grep -q 'bars: interquartile range of the calls' "$tmp/run/plots/threads.svg" || fail "error bars not said in the key"
grep -q 'slowest to fastest repetition' "$tmp/plots/tokens.svg" || fail "tokens error bars not said in the key"
# a model sweep that measured no prefill: its cells are empty and the prefill panel is left out
mkdir "$tmp/nopp"
printf 'model,kernel,threads,pp_tps,pp_tps_min,pp_tps_max,tg_tps,tg_tps_min,tg_tps_max\ntiny,i2_s,1,,,,10,9,11\n' > "$tmp/nopp/e2e.csv"
"$bin" plot "$tmp/nopp" --kind tokens >/dev/null 2>&1 || fail "tokens without prefill"
grep -q 'generation throughput' "$tmp/nopp/plots/tokens.svg" && ! grep -q 'prompt throughput' "$tmp/nopp/plots/tokens.svg" ||
    fail "the prefill panel of a sweep without prefill is not left out"
grep -q 'prompt throughput' "$tmp/plots/tokens.svg" || fail "prefill panel missing where prefill was measured"
"$bin" plot "$data" --kind nope >/dev/null 2>&1 && fail "unknown kind accepted"
"$bin" plot >/dev/null 2>&1 && fail "missing folder accepted"
echo "test_plot: passed"
