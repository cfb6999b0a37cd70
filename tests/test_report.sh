#!/bin/sh
# bitbench report (harness/report/html_report.h): a small real run writes report.html itself; the
# command's page of a run folder holds the tables, the flagged rows with their reasons, the
# provenance (run.json), the meters, an inline SVG plot (where gnuplot is installed) and the
# paper-table report of an experiment that has one; a results folder with hostile strings
# (<script> in run.json's cpu_model, markup in a kernel cell) comes out escaped; a database gives
# the history of each point across two commits, with its SVG plot and the comparison; the page
# loads nothing from anywhere; bad arguments are refused with one line.
BB="$1"
src=${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}
. "$src/tests/lib/check.sh"
check_scratch report

cat > "$T/k.lua" <<LUA
bitbench.experiment { name = "rpt", out = "$T/res", plots = { "gemv_bw" }, sweeps = {
  bitbench.sweep { name = "g", kernels = { "i2_s", "q8_0" }, shapes = { { m = 128, k = 256 } }, n = { 1 },
                   threads = { 1 }, warmup = 1, reps = 5, min_seconds = 0, max_reps = 5, read = true } } }
LUA
"$BB" run --quiet "$T/k.lua" >/dev/null 2>"$T/err"; rc=$?
dir=$(ls -d "$T"/res/rpt-* | head -1)
check '[ "$rc" -eq 0 ] && [ -s "$dir/report.html" ]' "bitbench run writes report.html: rc=$rc $(cat "$T/err")"
have_gnuplot=0
command -v gnuplot >/dev/null 2>&1 && have_gnuplot=1
if [ "$have_gnuplot" -eq 1 ]; then
    check 'grep -q "<figure id=\"plot-gemv_bw\">" "$dir/report.html" && grep -q "<svg" "$dir/report.html"' \
        "the run's report inlines the plot its experiment drew"
else
    echo "note: gnuplot is not installed; the plot checks are left out"
fi

# the chosen columns include which read set the bound (the sweep reads beside its calls)
check 'grep -q "<th>read_ratio_paired</th><th>read_streams</th>" "$dir/report.html"' \
    "the results table does not show read_streams beside read_ratio_paired"

# bitbench report on the run folder: the default place, and -o
"$BB" report "$dir" >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(cat "$T/out")" = "$dir/report.html" ]' "report RUN_DIR: rc=$rc, out $(cat "$T/out"), $(cat "$T/err")"
check 'grep -q "<meta name=\"generator\" content=\"bitbench report\">" "$dir/report.html"' "the page names its generator"
# the default place holds a file bitbench did not write (someone's notes, a page of the first
# reports, which lack the mark): someone else's file is left as it is, a page of ours replaced
cp -r "$dir" "$T/theirs"
echo "their notes" > "$T/theirs/report.html"
"$BB" report "$T/theirs" >/dev/null 2>"$T/err"; rc=$?
check '[ "$rc" -eq 1 ] && [ "$(cat "$T/theirs/report.html")" = "their notes" ] && grep -q "report.html is a file that bitbench report did not write: left as it is (give -o FILE" "$T/err"' \
    "report over someone's report.html: rc=$rc $(cat "$T/err")"
grep -v 'name="generator"' "$dir/report.html" > "$T/theirs/report.html"
"$BB" report "$T/theirs" >/dev/null 2>"$T/err"; rc=$?
check '[ "$rc" -eq 0 ] && grep -q "name=\"generator\"" "$T/theirs/report.html"' "an older page of bitbench's replaced: rc=$rc $(cat "$T/err")"
rm -rf "$T/theirs"
"$BB" report "$dir" -o "$T/page.html" >/dev/null 2>"$T/err"; rc=$?
P="$T/page.html"
# the plots' temporary folder is made where TMPDIR says (support/temp_dir.h), not always in /tmp,
# and removed afterwards with only what report put there
mkdir "$T/tmpd"
TMPDIR="$T/tmpd" "$BB" report "$dir" -o "$T/tmpdir.html" >/dev/null 2>"$T/err"; rc=$?
check '[ "$rc" -eq 0 ] && [ -z "$(ls -A "$T/tmpd")" ]' "report with TMPDIR: rc=$rc $(ls -A "$T/tmpd") $(cat "$T/err")"
TMPDIR="$T/no-such-tmp" "$BB" report "$dir" -o "$T/notmp.html" >/dev/null 2>"$T/err"; rc=$?
check '[ "$rc" -eq 0 ] && grep -q "cannot create a temporary folder in $T/no-such-tmp (TMPDIR)" "$T/notmp.html"' \
    "report with a missing TMPDIR says so in the page: rc=$rc $(cat "$T/err")"
check '[ "$rc" -eq 0 ] && [ -s "$P" ]' "report -o: rc=$rc $(cat "$T/err")"
run_id=$(sed -n 's/.*"run_id": "\([^"]*\)".*/\1/p' "$dir/run.json")
cpu=$(sed -n 's/.*"cpu_model": "\([^"]*\)".*/\1/p' "$dir/run.json" | head -1)
for want in '<!DOCTYPE html>' 'Kernel points' '<td>i2_s</td>' '<td>q8_0</td>' "$run_id" 'Meters' '<td>timer</td>' \
            'Machine and build' 'Placement of the threads' 'Paper tables' 'no paper-table report'; do
    check 'grep -qF -- "$want" "$P"' "the page lacks '$want'"
done
check '[ -z "$cpu" ] || grep -qF -- "$cpu" "$P"' "the page lacks the CPU model $cpu"
if [ "$have_gnuplot" -eq 1 ]; then
    check 'grep -q "<figure id=\"plot-gemv_bw\">" "$P" && [ "$(grep -c "<svg" "$P")" -ge 1 ]' "report draws the plots: no gemv_bw figure"
    check '! grep -q "<?xml\|<!DOCTYPE svg" "$P"' "an SVG's XML prolog was inlined"
fi
# self-contained: nothing loads from anywhere, nothing runs
check '! grep -qi "<script\|<link\|<iframe\|<img\|@import\|src=\|url(http" "$P"' "the page loads or runs something: $(grep -oi "<script[^>]*>\|<link[^>]*>\|src=[^ ]*\|url(http[^)]*" "$P" | head -3)"

# a hostile results folder: markup in run.json and in CSV cells; flagged and busy rows
mkdir "$T/evil"
cp "$dir/run.json" "$dir/results.csv" "$T/evil/"
sed -i 's/"cpu_model": "[^"]*"/"cpu_model": "<script>alert(1)<\/script>"/' "$T/evil/run.json"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
    NR == 2 { $c["kernel"] = "<img src=x onerror=alert(1)>"; $c["spread_flag"] = 1; $c["spread"] = 0.42 }
    NR == 3 { $c["busy"] = 1; $c["other_cpu_share"] = 0.37 }
    { print }' "$dir/results.csv" > "$T/evil/results.csv"
"$BB" report "$T/evil" -o "$T/evil.html" >/dev/null 2>"$T/err"; rc=$?
check '[ "$rc" -eq 0 ]' "report of the hostile folder: rc=$rc $(cat "$T/err")"
check '! grep -qF "<script>alert(1)" "$T/evil.html"' "run.json's <script> reached the page unescaped"
check 'grep -qF "&lt;script&gt;alert(1)&lt;/script&gt;" "$T/evil.html"' "the escaped cpu_model is not in the page"
check '! grep -qF "<img src=x" "$T/evil.html" && grep -qF "&lt;img src=x onerror=alert(1)&gt;" "$T/evil.html"' \
    "a kernel cell's markup reached the page unescaped"
check 'grep -qF "noisy: IQR/median 42% above the sweep" "$T/evil.html"' "the flagged row is not marked with its spread"
check 'grep -qF "busy: other processes took 37% of the CPUs" "$T/evil.html"' "the busy row is not marked with its share"
check '[ "$(grep -c "<tr class=\"flag\">" "$T/evil.html")" -ge 2 ]' "flagged rows are not marked"
check 'grep -qF "2 flagged" "$T/evil.html"' "the flagged count is not said"

# the paper-table report of an experiment that has a module (scripts/reproduce/bitnet_fig8.lua)
ref=$(ls -d "$src"/results/reference/bitnet_fig8-* 2>/dev/null | tail -1)
if [ -n "$ref" ]; then
    cp -r "$ref" "$T/fig8"
    "$BB" report "$T/fig8" -o "$T/fig8.html" >/dev/null 2>"$T/err"; rc=$?
    title=$(lua5.4 -e "print(dofile('$src/scripts/reproduce/bitnet_fig8.lua').title)" 2>/dev/null |
        sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g; s/'"'"'/\&#39;/g')
    check '[ "$rc" -eq 0 ] && [ -n "$title" ] && grep -qF "<h3>$title</h3>" "$T/fig8.html"' \
        "the paper-table report's title ($title) is not in the page: rc=$rc $(cat "$T/err")"
    check 'grep -q "<table class=\"md\">" "$T/fig8.html" && ! grep -q "No paper-table report" "$T/fig8.html"' \
        "the paper-table report has no table: $(grep -o "No paper-table report[^<]*" "$T/fig8.html")"
    check 'grep -qF "Peers" "$T/fig8.html" || ! grep -q "llama" "$ref/e2e.csv"' "peers' rows"
    check 'grep -qF "End-to-end points" "$T/fig8.html"' "e2e.csv's table"
fi

# a database: two commits of the run (the second a copy with another run id, commit and date)
cp -r "$dir" "$T/second"
sed -i 's/"run_id": "[^"]*"/"run_id": "second-run"/; s/"git_commit": "[^"]*"/"git_commit": "f00dcafe<b>"/;
        s/"started_at": "\([0-9]*\)-/"started_at": "2099-/' "$T/second/run.json"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next } { $c["run_id"] = "second-run"; print }' \
    "$dir/results.csv" > "$T/second/results.csv"
awk -F, -v OFS=, 'NR == 1 { print; next } { $1 = "second-run"; print }' "$dir/samples.csv" > "$T/second/samples.csv"
"$BB" db import --db "$T/h.sqlite" "$dir" "$T/second" >/dev/null 2>"$T/err"; rc=$?
check '[ "$rc" -eq 0 ]' "db import: rc=$rc $(cat "$T/err")"
"$BB" report "$T/h.sqlite" >"$T/out" 2>"$T/err"; rc=$?
H="$T/h.html"
check '[ "$rc" -eq 0 ] && [ "$(cat "$T/out")" = "$H" ] && [ -s "$H" ]' "report FILE.sqlite: rc=$rc $(cat "$T/out") $(cat "$T/err")"
for want in 'History of each point' 'History plot' '<svg' 'i2_s@' 'second-run' "$run_id" 'f00dcafe&lt;b&gt;' \
            'Newest run against the commit before' 'B/A'; do
    check 'grep -qF -- "$want" "$H"' "the database page lacks '$want'"
done
check '! grep -qF "f00dcafe<b>" "$H"' "a commit from the database reached the page unescaped"
check '[ "$(grep -c "<path fill=\"none\"" "$H")" -ge 2 ]' "the history plot has fewer lines than points"

# refusals: one line, non-zero status
expect_error "No such file" report "$T/nothing"
expect_error "not a run folder" report "$T/res"
mkfifo "$T/fifo"
expect_error "is a FIFO" report "$T/fifo"
printf 'not sqlite\n' > "$T/plain.sqlite"
expect_error "plain.sqlite" report "$T/plain.sqlite" -o "$T/plain.html"
expect_error "folder" report "$dir" -o "$T/missing/x.html"
expect_error "one run folder or database" report "$dir" "$dir"
expect_error "unknown option" report --bogus "$dir"
check '[ ! -e "$T/plain.html" ]' "a refused database left a page"
"$BB" report --help >"$T/help" 2>&1
check 'grep -q "^usage: bitbench report" "$T/help"' "report --help"
check_summary test_report
