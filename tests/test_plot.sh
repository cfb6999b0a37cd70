#!/bin/sh
# bitbench plot on a small fixed results folder (tests/data/plot_results: a GEMV sweep's CSV and
# run.json, a machine profile, and a synthetic model-sweep CSV): every kind gives a non-empty PNG
# and SVG; a kind without its data is skipped with a message; bad arguments are refused.  Then what
# a reader sees (issue 33), read from the SVG files: a roofline ceiling per thread count and level,
# min(peak, bandwidth x intensity), each point in its own thread count's colour; keys right of the
# data; titles naming the experiment and run; axis units; bar labels that do not overlap at 37
# kernels; error bars said to hide behind their marker when they do; the reason for a missing
# prefill panel; --out under missing folders.
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
grep -q 'operational intensity (operations per weight byte' "$tmp/plots/roofline.svg" || fail "roofline x label"
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
# rows measured in rounds: their bars span the rounds too, and the key says so (tokens, e2e_threads,
# e2e_depth); a rounds list that is not numbers widens nothing
mkdir "$tmp/rounds" "$tmp/badrounds"
printf 'model,kernel,threads,depth,kv_type_k,kv_type_v,pp_tps,pp_tps_min,pp_tps_max,tg_tps,tg_tps_min,tg_tps_max,rounds,rounds_pp_tps,rounds_tg_tps\ntiny,i2_s,1,0,f16,f16,100,95,105,10,9,11,3,90;100;110,8;10;12\ntiny,i2_s,1,512,f16,f16,90,85,95,9,8,10,3,80;90;99,7;9;11\n' > "$tmp/rounds/e2e.csv"
sed 's/8;10;12/8;x;12/; s/7;9;11/7/; s/90;100;110/nan;1/; s/80;90;99//' "$tmp/rounds/e2e.csv" > "$tmp/badrounds/e2e.csv"
for kind in tokens e2e_threads e2e_depth; do
    "$bin" plot "$tmp/rounds" --kind $kind >/dev/null 2>"$tmp/rounds.err" || fail "$kind with rounds: $(cat "$tmp/rounds.err")"
    grep -q 'slowest to fastest round or repetition' "$tmp/rounds/plots/$kind.svg" || fail "$kind: the key does not say the bars span rounds"
    "$bin" plot "$tmp/badrounds" --kind $kind >/dev/null 2>"$tmp/rounds.err" || fail "$kind with bad rounds lists: $(cat "$tmp/rounds.err")"
    grep -q 'slowest to fastest repetition' "$tmp/badrounds/plots/$kind.svg" && ! grep -q 'round or repetition' "$tmp/badrounds/plots/$kind.svg" ||
        fail "$kind: a rounds list that is not numbers widened a bar"
done
# a model sweep that measured no prefill: its cells are empty and the prefill panel is left out
mkdir "$tmp/nopp"
printf 'model,kernel,threads,pp_tps,pp_tps_min,pp_tps_max,tg_tps,tg_tps_min,tg_tps_max\ntiny,i2_s,1,,,,10,9,11\n' > "$tmp/nopp/e2e.csv"
"$bin" plot "$tmp/nopp" --kind tokens >/dev/null 2>&1 || fail "tokens without prefill"
grep -q 'generation throughput' "$tmp/nopp/plots/tokens.svg" && ! grep -q 'prompt throughput' "$tmp/nopp/plots/tokens.svg" ||
    fail "the prefill panel of a sweep without prefill is not left out"
grep -q 'prompt throughput' "$tmp/plots/tokens.svg" || fail "prefill panel missing where prefill was measured"

# ---- what a reader sees ----
# key_outside SVG: every key entry's text lies right of every panel's border (the black closed
# rectangles over 50 px tall; the key samples are smaller); exit 2 when the file has no key entry.
key_outside() {
    awk '
    /Z *'"'"'\/>/ && /stroke=.black./ {
        n = split($0, a, /[ML ,]+/); x0 = 1e9; x1 = -1; y0 = 1e9; y1 = -1
        for (i = 1; i < n; i++) if (a[i] ~ /^[0-9.]+$/ && a[i + 1] ~ /^[0-9.]+$/) {
            if (a[i] + 0 < x0) x0 = a[i] + 0; if (a[i] + 0 > x1) x1 = a[i] + 0
            if (a[i + 1] + 0 < y0) y0 = a[i + 1] + 0; if (a[i + 1] + 0 > y1) y1 = a[i + 1] + 0; i++ }
        if (y1 - y0 > 50 && x1 > border) border = x1
    }
    /<g id="gnuplot_plot_/ { first = 1; next }
    first && /<g transform="translate\(/ { x = substr($0, index($0, "translate(") + 10) + 0; if (!nk++ || x < minkey) minkey = x; first = 0 }
    first && /<path|<use/ { first = 0 }
    END { if (!nk) exit 2; if (minkey <= border) { printf "key text at x=%s, data area to x=%s\n", minkey, border; exit 1 } }' "$1"
}
# group_colour SVG TEXT: the first rgb() of the plot group whose key text begins with TEXT
group_colour() {
    awk -v t="$2" '/<g id="gnuplot_plot_/ { g++ } index($0, "<text>" t) { want = g }
        want && g == want && /rgb\(/ { s = substr($0, index($0, "rgb(")); s = substr(s, 1, index(s, ")")); gsub(/ /, "", s); print s; exit }' "$1"
}
grep -q 'ceiling = min(int8 peak, read GB/s x op/B)' "$tmp/plots/roofline.svg" || fail "roofline: the key does not say what a ceiling is"
# ends_flat SVG TEXT: the last two points drawn by the group whose key text begins with TEXT share
# their y (the roof's flat compute part)
ends_flat() {
    awk -v t="$2" '/<g id="gnuplot_plot_/ { g++ } index($0, "<text>" t) { want = g }
        want && g == want { n = split($0, a, /[ML ]+/); for (i = 1; i <= n; i++) if (a[i] ~ /^[0-9.]+,[0-9.]+$/) { p2 = p1; p1 = a[i] } }
        END { split(p1, u, ","); split(p2, v, ","); exit !(p1 != "" && p2 != "" && u[2] == v[2] && u[1] != v[1]) }' "$1"
}
r="$tmp/plots/roofline.svg"
for t in "1 thread" "2 threads"; do
    for l in DRAM L3 L2; do # the fixture's points are resident: cache levels too
        [ "$(grep -c "<text>ceiling $t, $l: [0-9.]* GB/s, peak [0-9]* GOP/s" "$r")" -eq 1 ] ||
            fail "roofline: not one '$l' ceiling min(peak, bandwidth) for $t"
    done
done
[ "$(grep -c '<text>ceiling [0-9]' "$r")" -eq 6 ] || fail "roofline: ceilings other than 3 levels x 2 thread counts"
ends_flat "$r" "ceiling 1 thread, DRAM" && ends_flat "$r" "ceiling 2 threads, DRAM" ||
    fail "roofline: a ceiling does not end flat at the compute peak"
c1=$(group_colour "$r" "ceiling 1 thread, DRAM"); c2=$(group_colour "$r" "ceiling 2 threads, DRAM")
p1=$(group_colour "$r" "i2_s@avx512, 1 thread"); p2=$(group_colour "$r" "i2_s@avx512, 2 threads")
[ -n "$c1" ] && [ "$c1" != "$c2" ] && [ "$p1" = "$c1" ] && [ "$p2" = "$c2" ] ||
    fail "roofline: points not in their thread count's ceiling colour (ceilings $c1 $c2, points $p1 $p2)"
for k in roofline threads gemv_bw tokens ebw e2e_threads; do
    key_outside "$tmp/plots/$k.svg" || fail "$k: the key overlaps the data area"
    grep -q 'experiment plot_fixture, run (no run id) - Intel' "$tmp/plots/$k.svg" || fail "$k: the title does not name the run"
done
key_outside "$tmp/nopp/plots/tokens.svg" || fail "tokens without prefill: the key overlaps the data area"
grep -q '(GOP/s)' "$r" && grep -q 'op/B)' "$r" || fail "roofline: axis units"
grep -q 'threads (count)' "$tmp/plots/threads.svg" && grep -q '(tokens/s)' "$tmp/plots/e2e_threads.svg" ||
    fail "threads: axis units"
# a point without a spread (the fixture predates the quartile columns) draws no bar end at the
# x axis: no horizontal stroke of a series on a panel's bottom edge
awk '/Z *'"'"'\/>/ && /stroke=.black./ { n = split($0, a, /[ML ,]+/); y0 = 1e9; y1 = -1
        for (i = 1; i < n; i++) if (a[i] ~ /^[0-9.]+$/ && a[i + 1] ~ /^[0-9.]+$/) { y = a[i + 1]; i++
            if (y + 0 < y0) y0 = y + 0; if (y + 0 > y1) { y1 = y + 0; ys = y } }
        if (y1 - y0 > 50) bottom[ys] = 1 }
     /<g id="gnuplot_plot_/ { inplot = 1 }
     inplot && /stroke=.rgb\(/ { series = 1 }
     series { n = split($0, a, /[ML ]+/); if (index($0, "/>")) series = 0
        for (i = 1; i < n; i++) if (a[i] ~ /,/ && a[i + 1] ~ /,/) { split(a[i], u, ","); split(a[i + 1], v, ",")
            if (u[2] == v[2] && (u[2] in bottom)) { print "a bar end on the axis at y=" u[2]; bad = 1; exit } } }
     END { exit bad }' "$tmp/plots/threads.svg" || fail "threads: a missing error bar is drawn at the axis"
# the title names the run id from run.json
mkdir "$tmp/withid"
cp "$data/results.csv" "$tmp/withid/"
awk '/"started_at"/ { print "  \"run_id\": \"20261121T220045Z-host-0badc0de\"," } { print }' "$data/run.json" > "$tmp/withid/run.json"
"$bin" plot "$tmp/withid" --kind threads --profile "$data/machine-profile.json" >/dev/null 2>&1 || fail "plot with a run id"
grep -q 'experiment plot_fixture, run 20261121T220045Z-host-0badc0de' "$tmp/withid/plots/threads.svg" ||
    fail "the title does not carry run.json's run_id"
# a prefill panel left out says why
grep -q 'no prefill panel:' "$tmp/nopp/plots/tokens.svg" && grep -q 'no row measured prefill' "$tmp/nopp/plots/tokens.svg" || fail "the missing prefill panel is not explained"
# error bars a reader cannot see are said to be hidden (a sweep whose calls agree to 0.1 %)
mkdir "$tmp/tight"
printf 'kernel,variant,m,k,n,threads,gops,gbps,t_median_s,t_q1_s,t_q3_s\n' > "$tmp/tight/results.csv"
for th in 1 2; do
    printf 'i2_s,,1024,1024,1,%d,%d,%d,0.001,0.000999,0.001001\n' $th $((50 * th)) $((6 * th)) >> "$tmp/tight/results.csv"
done
"$bin" plot "$tmp/tight" --kind threads >/dev/null 2>"$tmp/tight.err" || fail "plot of tight bars: $(cat "$tmp/tight.err")"
grep -q 'every bar is smaller than its marker' "$tmp/tight/plots/threads.svg" ||
    fail "bars smaller than their marker are not said to be"
# 37 kernels (the reference kernel_claims profile): the canvas widens and the labels stand
# vertical, far enough apart not to overlap
mkdir "$tmp/many"
awk '/"gamma": \[/ { print; for (i = 1; i <= 37; i++)
            printf "    {\"kernel\": \"kernel_number_%02d\", \"bits_per_weight\": %d, \"compute_bound_gbps_derived\": %d}%s\n", i, i % 8 + 1, 5 + i, i < 37 ? "," : ""
        skip = 1; next }
     skip && /^  \]/ { skip = 0 }
     !skip { print }' "$data/machine-profile.json" > "$tmp/many/machine-profile.json"
"$bin" plot "$tmp/many" --kind ebw >/dev/null 2>"$tmp/many.err" || fail "ebw of 37 kernels: $(cat "$tmp/many.err")"
e="$tmp/many/plots/ebw.svg"
[ "$(grep -c 'kernel_number_' "$e")" -eq 37 ] || fail "ebw: not every kernel labelled"
awk '/<g transform="translate\([0-9.]+,[0-9.]+\) rotate\(-90\)"/ && /font-size="9.00"/ {
        x[++n] = substr($0, index($0, "translate(") + 10) + 0 }
     END { if (n != 37) { print n " vertical labels"; exit 1 }
           for (i = 2; i <= n; i++) if (x[i] - x[i - 1] < 12) { printf "labels %d and %d %.1f px apart\n", i - 1, i, x[i] - x[i - 1]; exit 1 } }' "$e" ||
    fail "ebw: the 37 kernel labels are not vertical and apart"
# more series than a line plot draws (12): the rest are said on stderr and in the title, not
# dropped silently (14 kernels at 1 and 2 threads, at 2 threads also at depth 512)
mkdir "$tmp/wide"
{
    echo 'model,kernel,threads,depth,kv_type_k,kv_type_v,pp_tps,tg_tps,tg_gbps_derived'
    for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14; do
        for t in 1 2; do echo "tiny,kern_$i,$t,0,f16,f16,50,$t$i,$i"; done
        echo "tiny,kern_$i,2,512,f16,f16,40,1$i,$i"
    done
} > "$tmp/wide/e2e.csv"
# (a threads series is a kernel at one depth: 28, kern_01..06 drawn; a depth series a kernel at
# one thread count, and only those at 2 threads reach past depth 0: 14, kern_01..12 drawn)
for case in "e2e_threads 28 kern_06 kern_07" "e2e_depth 14 kern_12 kern_13"; do
    set -- $case
    "$bin" plot "$tmp/wide" --kind $1 >/dev/null 2>"$tmp/wide.err" || fail "$1 of $2 series: $(cat "$tmp/wide.err")"
    grep -q "$1: 12 of $2 series drawn, $(($2 - 12)) left out" "$tmp/wide.err" ||
        fail "$1: the series left out not said: $(cat "$tmp/wide.err")"
    grep -q "(the first 12 of $2 series)" "$tmp/wide/plots/$1.svg" || fail "$1: the title does not say 12 of $2"
    grep -q "$3" "$tmp/wide/plots/$1.svg" && ! grep -q "$4" "$tmp/wide/plots/$1.svg" || fail "$1: not the first 12 drawn"
done
# rows that agree in kernel, model (or shape) and x but were measured differently - two sweeps, a
# second depth, another cache - are series of their own, named by the columns that tell them
# apart, where one series would have drawn one of them and hidden the other
mkdir "$tmp/split"
printf 'sweep,model,kernel,threads,depth,kv_type_k,kv_type_v,pp_tps,tg_tps\ndecode,tiny,i2_s,1,0,f16,f16,50,11\ndepth,tiny,i2_s,1,0,f16,f16,40,7\ndepth,tiny,i2_s,1,512,f16,f16,30,5\n' > "$tmp/split/e2e.csv"
printf 'sweep,kernel,variant,m,k,n,threads,cache,gops,gbps\nmad,i2_s,avx2,4096,4096,1,1,dram,10,5\nmad,i2_s,avx2,4096,4096,1,1,resident,30,15\n' > "$tmp/split/results.csv"
cp "$data/machine-profile.json" "$tmp/split/"
for case in "tokens sweep=decode sweep=depth depth=512" "e2e_threads sweep=decode sweep=depth depth=512" \
            "e2e_depth sweep=depth sweep=depth sweep=depth" "threads cache=dram cache=resident cache=dram"; do
    set -- $case
    "$bin" plot "$tmp/split" --kind $1 >/dev/null 2>"$tmp/split.err" || fail "$1 of rows to split: $(cat "$tmp/split.err")"
    for label in "$2" "$3" "$4"; do
        grep -q "$label" "$tmp/split/plots/$1.svg" || fail "$1: no series named by $label: rows of two kinds drawn as one"
    done
done
# a column of near-unique cells (here 1100 sweeps of one row each) is no setting: not split by,
# and said so, rather than 1100 series
mkdir "$tmp/unique"
awk 'BEGIN { print "sweep,model,kernel,threads,depth,kv_type_k,kv_type_v,pp_tps,tg_tps"
             for (i = 0; i < 1100; i++) print "s" i ",tiny,i2_s," (i % 2 + 1) ",0,f16,f16,50," (10 + i % 7) }' > "$tmp/unique/e2e.csv"
"$bin" plot "$tmp/unique" --kind e2e_threads >/dev/null 2>"$tmp/unique.err" || fail "1100 sweeps: $(cat "$tmp/unique.err")"
grep -q "rows differ in column 'sweep' in 1100 values, more than a setting's 64: not told apart by it" "$tmp/unique.err" &&
    ! grep -q 'sweep=' "$tmp/unique/plots/e2e_threads.svg" || fail "1100 sweeps: split by them: $(cat "$tmp/unique.err")"
# the decode sweep's series reaches no depth but 0: e2e_depth leaves it out, not joins it to the other
grep -q 'sweep=decode' "$tmp/split/plots/e2e_depth.svg" && fail "e2e_depth: a series of depth 0 only drawn"
grep -q 'depth=512' "$tmp/wide/plots/e2e_threads.svg" && ! grep -q 'kv_type_k=' "$tmp/wide/plots/e2e_threads.svg" ||
    fail "e2e_threads: the wide series not named by depth alone"
# past 64 distinct labels (a sweep of every kernel and variant has more): every series counted,
# every kernel in the bar charts
mkdir "$tmp/wider"
{
    echo 'model,kernel,threads,depth,kv_type_k,kv_type_v,pp_tps,tg_tps,tg_gbps_derived'
    for i in $(seq 101 170); do for t in 1 2; do echo "tiny,kern_$i,$t,0,f16,f16,50,$t$i,$i"; done; done
} > "$tmp/wider/e2e.csv"
{
    echo 'kernel,variant,m,k,n,threads,cache,gops,gbps'
    for i in $(seq 101 170); do for t in 1 2; do echo "kern_$i,avx2,4096,4096,1,$t,dram,$t$i,$i"; done; done
} > "$tmp/wider/results.csv"
cp "$data/machine-profile.json" "$tmp/wider/"
"$bin" plot "$tmp/wider" >/dev/null 2>"$tmp/wider.err" || fail "70 kernels: $(cat "$tmp/wider.err")"
for kind in e2e_threads threads; do
    grep -q "$kind: 12 of 70 series drawn, 58 left out" "$tmp/wider.err" ||
        fail "$kind: 70 series not counted: $(cat "$tmp/wider.err")"
done
for kind in tokens gemv_bw; do
    grep -q 'kern_170' "$tmp/wider/plots/$kind.svg" || fail "$kind: the 70th kernel not drawn"
done
grep -q 'kern_170@avx2' "$tmp/wider/plots/roofline.svg" || fail "roofline: the 70th kernel not drawn"
# a file of 20000 distinct series (someone else's; 13333 of them reach past depth 0): found by
# hash and drawn from one sort, in seconds (the loops over every series and thread count took
# minutes)
mkdir "$tmp/many_series"
awk 'BEGIN { print "sweep,model,kernel,threads,depth,kv_type_k,kv_type_v,pp_tps,tg_tps"
             for (i = 0; i < 20000; i++) print "s,m,k" i "," (i % 4 + 1) "," (i % 3) * 512 ",f16,f16,5,6" }' \
    > "$tmp/many_series/e2e.csv"
for kind in e2e_threads e2e_depth; do
    timeout 60 "$bin" plot "$tmp/many_series" --kind $kind >/dev/null 2>"$tmp/many_series.err" ||
        fail "$kind of 20000 series: not drawn within 60 s: $(cat "$tmp/many_series.err")"
done
grep -q "e2e_depth: 12 of 13333 series drawn" "$tmp/many_series.err" ||
    fail "e2e_depth of 20000 series: the count: $(cat "$tmp/many_series.err")"
# names past a key's 239 bytes and empty ones: every row still finds its bar (ASan sees an index)
mkdir "$tmp/oddnames"
long=$(printf 'm%.0s' $(seq 300))
printf 'model,kernel,threads,tg_tps\n%s,i2_s,1,11\n%s,,2,21\n,tq2_0,1,9\n' "$long" "$long" > "$tmp/oddnames/e2e.csv"
"$bin" plot "$tmp/oddnames" --kind tokens >/dev/null 2>"$tmp/oddnames.err" ||
    fail "tokens with long and empty names: $(cat "$tmp/oddnames.err")"
# an e2e.csv without the derived bandwidth (hand-made, older): its panel says so, the plot is drawn
mkdir "$tmp/nogbps"
printf 'model,kernel,threads,tg_tps\ntiny,kern_1,1,11\ntiny,kern_1,2,21\n' > "$tmp/nogbps/e2e.csv"
"$bin" plot "$tmp/nogbps" --kind e2e_threads >/dev/null 2>"$tmp/nogbps.err" ||
    fail "e2e_threads without tg_gbps_derived: $(cat "$tmp/nogbps.err")"
grep -q 'e2e.csv has no tg_gbps_derived column' "$tmp/nogbps/plots/e2e_threads.svg" ||
    fail "e2e_threads without tg_gbps_derived: the panel does not say why it is empty"
"$bin" plot "$data" --kind e2e_threads --out "$tmp/few" >/dev/null 2>"$tmp/few.err" || fail "e2e_threads of the data"
! grep -q 'series drawn' "$tmp/few.err" && ! grep -q 'series)' "$tmp/few/e2e_threads.svg" || fail "a plot within the limit says something was left out"
# --out under missing folders: made, as mkdir -p would
"$bin" plot "$data" --kind threads --out "$tmp/new/deeper/plots" >/dev/null 2>"$tmp/new.err" ||
    fail "--out under missing folders: $(cat "$tmp/new.err")"
[ -s "$tmp/new/deeper/plots/threads.svg" ] || fail "--out under missing folders: no threads.svg"
"$bin" plot "$data" --kind nope >/dev/null 2>&1 && fail "unknown kind accepted"
"$bin" plot >/dev/null 2>&1 && fail "missing folder accepted"
echo "test_plot: passed"
