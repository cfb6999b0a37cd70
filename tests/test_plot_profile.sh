#!/bin/sh
# Issue 29: `bitbench plot` and `bitbench report` on a results folder from someone else.
#  - the roofline's ceilings are the run's own machine profile (RUN_DIR/machine-profile.json) or
#    one named with --profile, never the working directory's results/machine-profile.json; a
#    profile of another CPU than run.json's is drawn with a warning on stderr and in the titles,
#    and stderr says which profile was used;
#  - a plots folder, an image in it, or a report.html that is a symbolic link is refused with one
#    line and nothing is written through it;
#  - names from the files (cpu_model) reach stderr without a raw terminal control byte.
bin=$1
data="$BITBENCH_SOURCE_DIR/tests/data/plot_results"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
esc=$(printf '\033')

# a run folder without a profile, plotted from a working directory that has one
mkdir -p "$tmp/cwd/results" "$tmp/run"
cp "$data/results.csv" "$data/run.json" "$tmp/run/"
cp "$data/machine-profile.json" "$tmp/cwd/results/"
(cd "$tmp/cwd" && "$bin" plot "$tmp/run" --kind roofline) >/dev/null 2>"$tmp/err" && fail "roofline drawn without the run's profile"
[ ! -e "$tmp/run/plots/roofline.svg" ] || fail "roofline drawn with the working directory's results/machine-profile.json"
grep -q 'roofline skipped: no machine profile in the folder' "$tmp/err" || fail "no reason given: $(cat "$tmp/err")"

# the run's own profile: drawn, and stderr names it
cp "$data/machine-profile.json" "$tmp/run/"
"$bin" plot "$tmp/run" --kind roofline >/dev/null 2>"$tmp/err" || fail "roofline with the run's profile: $(cat "$tmp/err")"
grep -q "ceilings from the machine profile $tmp/run/machine-profile.json (Intel(R) Xeon(R) Processor, the run's CPU)" \
    "$tmp/err" || fail "which profile is not said: $(cat "$tmp/err")"
! grep -q 'ANOTHER machine' "$tmp/run/plots/roofline.svg" || fail "the run's own profile is called another machine's"
# --quiet (what `run --quiet` passes): no note of the profile; a warning stays (below)
"$bin" plot "$tmp/run" --kind roofline --quiet >/dev/null 2>"$tmp/err" || fail "plot --quiet: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "plot --quiet still notes: $(cat "$tmp/err")"

# a profile of another CPU, named with --profile (with an escape sequence in its cpu_model)
sed 's/"cpu_model": "[^"]*"/"cpu_model": "Other CPU \\u001b]0;owned\\u0007\\u001b[2J"/' "$data/machine-profile.json" \
    > "$tmp/other.json"
grep -q 'u001b' "$tmp/other.json" || fail "fixture: cpu_model not replaced"
"$bin" plot "$tmp/run" --kind roofline --profile "$tmp/other.json" --out "$tmp/o1" >/dev/null 2>"$tmp/err" ||
    fail "roofline with another machine's profile: $(cat "$tmp/err")"
grep -q "warning: the machine profile $tmp/other.json is of Other CPU" "$tmp/err" || fail "no warning: $(cat "$tmp/err")"
grep -q 'ceilings of ANOTHER machine' "$tmp/o1/roofline.svg" || fail "the title does not say the ceilings are another machine's"
! grep -q "$esc" "$tmp/err" || fail "a raw ESC from cpu_model reached stderr"
grep -q 'Other CPU \\x1b\]0;owned\\x07\\x1b\[2J' "$tmp/err" || fail "cpu_model not shown escaped: $(cat "$tmp/err")"
"$bin" plot "$tmp/run" --kind roofline --profile "$tmp/other.json" --out "$tmp/o2" --quiet >/dev/null 2>"$tmp/err" ||
    fail "plot --quiet with another machine's profile: $(cat "$tmp/err")"
grep -q "warning: the machine profile $tmp/other.json is of Other CPU" "$tmp/err" || fail "--quiet hid the warning: $(cat "$tmp/err")"

# plots folder that is a symbolic link: refused, nothing written where it points
mkdir "$tmp/elsewhere" "$tmp/run2"
cp "$data/results.csv" "$data/run.json" "$data/machine-profile.json" "$tmp/run2/"
ln -s "$tmp/elsewhere" "$tmp/run2/plots"
"$bin" plot "$tmp/run2" --kind threads >/dev/null 2>"$tmp/err" && fail "a plots folder that is a link was written"
[ -z "$(ls -A "$tmp/elsewhere")" ] || fail "files written through the plots link: $(ls "$tmp/elsewhere")"
[ "$(grep -c . "$tmp/err")" = 1 ] && grep -q 'plots folder, is a symbolic link' "$tmp/err" ||
    fail "not one line naming the link: $(cat "$tmp/err")"
ln -s "$tmp/nowhere" "$tmp/run2/dangling" # a dangling link named with --out: refused as well, nothing made
"$bin" plot "$tmp/run2" --kind threads --out "$tmp/run2/dangling" >/dev/null 2>"$tmp/err" && fail "--out a dangling link"
[ ! -e "$tmp/nowhere" ] || fail "the dangling link's target was created"

# an image in the plots folder that is a link: refused, its target unchanged
mkdir "$tmp/run3" "$tmp/run3/plots"
cp "$data/results.csv" "$data/run.json" "$data/machine-profile.json" "$tmp/run3/"
echo "someone's file" > "$tmp/victim"
ln -s "$tmp/victim" "$tmp/run3/plots/threads.svg"
"$bin" plot "$tmp/run3" --kind threads >/dev/null 2>"$tmp/err" && fail "an image that is a link was written"
[ "$(cat "$tmp/victim")" = "someone's file" ] || fail "written through the image link"
grep -q 'threads.svg, an image of the plots folder, is a symbolic link' "$tmp/err" || fail "no line: $(cat "$tmp/err")"

# report.html that is a link in a run folder: refused, its target unchanged
ln -s "$tmp/victim" "$tmp/run/report.html"
"$bin" report "$tmp/run" >/dev/null 2>"$tmp/err" && fail "report.html written through a link"
[ "$(cat "$tmp/victim")" = "someone's file" ] || fail "report written through the link"
grep -q "report.html, the run's report, is a symbolic link" "$tmp/err" || fail "no line: $(cat "$tmp/err")"
echo "test_plot_profile: ok"
