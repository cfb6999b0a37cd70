#!/bin/sh
# Issue 29 item 1: `bitbench run` writes only inside its new RUN_DIR.  An experiment's `out` that
# is a folder of someone else's, holding a machine-profile.json, report.html, results.csv and a
# plots/ link, is left as it was: after the run the folder holds the same files with the same
# bytes, plus the one new NAME-TIMESTAMP folder; the run's report.html is inside it.  (A guard:
# this already held when it was written -- the profile has been RUN_DIR's since the harness was
# split into rooms -- and it fails if a write at the `out` level comes back.)
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
out="$tmp/theirs"
mkdir -p "$out" "$tmp/elsewhere"
echo '{"kind": "not bitbench'"'"'s"}' > "$out/machine-profile.json"
echo "their page" > "$out/report.html"
echo "a,b" > "$out/results.csv"
ln -s "$tmp/elsewhere" "$out/plots"
(cd "$out" && find . -exec ls -ld {} + | sort && cat machine-profile.json report.html results.csv) > "$tmp/before"
cat > "$tmp/e.lua" <<LUA
bitbench.experiment { name = "t", out = "$out", sweeps = {
  bitbench.sweep { kernels = { "i2_s@scalar" }, shapes = { { 64, 256 } }, threads = { 1 }, reps = 2, warmup = 0 } } }
LUA
"$bin" run --quiet "$tmp/e.lua" >/dev/null 2>"$tmp/err" || fail "run: $(cat "$tmp/err")"
run=$(cd "$out" && ls -d t-*) || fail "no run folder"
[ "$(echo "$run" | wc -l)" = 1 ] || fail "more than one run folder: $run"
[ -s "$out/$run/report.html" ] && [ -s "$out/$run/results.csv" ] || fail "the run's files are not in its folder"
(cd "$out" && find . -path "./$run" -prune -o -exec ls -ld {} + | sort && cat machine-profile.json report.html results.csv) \
    > "$tmp/after"
# the listing of the out folder itself changes its size/time with the new entry: compare the rest
grep -v ' \.$' "$tmp/before" > "$tmp/b2"; grep -v ' \.$' "$tmp/after" > "$tmp/a2"
cmp -s "$tmp/b2" "$tmp/a2" || fail "the out level changed: $(diff "$tmp/b2" "$tmp/a2")"
[ -z "$(ls -A "$tmp/elsewhere")" ] || fail "written through out/plots"
# --resume picks the latest NAME-* folder of out; one whose path is longer than a run folder's
# (a hand-made name) is refused as such, not cut short into a folder that "does not exist"
long="$tmp/$(printf 'd%.0s' $(seq 200))"; long="$long/${long##*/}/${long##*/}/${long##*/}/$(printf 'd%.0s' $(seq 150))"
mkdir -p "$long/t-20261128-150000-$(printf '9%.0s' $(seq 235))"
sed "s|out = \"[^\"]*\"|out = \"$long\"|" "$tmp/e.lua" > "$tmp/long.lua"
"$bin" run --resume --quiet "$tmp/long.lua" >/dev/null 2>"$tmp/err" && fail "resume of an over-long run folder ran"
grep -q -- "--resume: the run folder .* is a longer path than bitbench keeps" "$tmp/err" || fail "resume: $(cat "$tmp/err")"
echo "test_run_out_level: ok"
