#!/bin/sh
# --resume continues only the run it was started as (harness/plan/run_settings.h): a run begun with
# --threads 1 and resumed with --threads 2 is refused with one line naming the difference (before,
# it ended "complete", exit 0, with points 1 and 2 present twice in one results.csv); so is a
# resume with another --reps, --min-time, --only, --smoke/--full, experiment file, bitbench
# commit, CPU set, or plan (a file that reads its environment), and one of a run.json from before
# the settings were recorded.  A results.csv holding a point id twice is reported, not extended.
# With the same settings the resume completes the run.  $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_resume_gate_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

cat >"$T/r.lua" <<LUA
local n = { 1, 2 }
if os.getenv("BITBENCH_TEST_MORE_N") then n = { 1, 2, 3 } end
bitbench.experiment { name = "rg", out = "$T/res", sweeps = {
  bitbench.sweep { name = "g", kernels = { "f32", "i2_s" }, shapes = { { 64, 256 } }, n = n, threads = { 1 },
                   warmup = 0, reps = 1, max_reps = 2, min_seconds = 0 } } }
LUA
"$BB" run "$T/r.lua" --threads 1 --reps 1 --min-time 0 --only f32 --quiet >/dev/null 2>"$T/run.err"; rc=$?
dir=$(ls -d "$T"/res/rg-* 2>/dev/null | head -1)
check '[ "$rc" -eq 0 ] && [ -n "$dir" ] && grep -q "\"run_settings\"" "$dir/run.json"' "the first run: rc=$rc $(cat "$T/run.err")"
# an interrupted run: its last row gone, its status incomplete
sed -i '$d' "$dir/results.csv"
sed -i 's/"status": "complete"/"status": "incomplete"/' "$dir/run.json"
cp "$dir/results.csv" "$T/before.csv"
cp "$dir/run.json" "$T/before.json"

# refused: $1 the expected text, then the options of the resume
refused() {
    want="$1"; shift
    "$BB" run "$T/r.lua" --resume --quiet "$@" >/dev/null 2>"$T/err"; rc=$?
    check '[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF -- "$want" "$T/err" && cmp -s "$dir/results.csv" "$T/before.csv"' \
        "resume $*: rc=$rc, want '$want': $(cat "$T/err"); rows: $(wc -l <"$dir/results.csv")"
}
same="--reps 1 --min-time 0 --only f32"
refused "bitbench run: --resume: $dir was run with other settings than this command: threads: it was run with --threads 1, this command asks --threads 2" --threads 2 $same
refused "threads: it was run with --threads 1, this command gives no --threads" $same
refused "reps: it was run with --reps 1, this command asks --reps 2" --threads 1 --reps 2 --min-time 0 --only f32
refused "min-time: it was run with --min-time 0, this command asks --min-time 0.5" --threads 1 --reps 1 --min-time 0.5 --only f32
refused "only: it was run with --only f32, this command asks --only i2_s" --threads 1 --reps 1 --min-time 0 --only i2_s
refused "size: it was run without --smoke/--full, this command asks --smoke" --threads 1 $same --smoke
# two differences, both named
refused "threads: it was run with --threads 1, this command asks --threads 2; reps: it was run with --reps 1, this command asks --reps 3" \
    --threads 2 --reps 3 --min-time 0 --only f32
export BITBENCH_TEST_MORE_N=1
refused "the planned points differ (plan sha256" --threads 1 $same
unset BITBENCH_TEST_MORE_N

# the experiment file, the commit and the CPUs: what run.json recorded
cp "$T/r.lua" "$T/r.lua.orig"
echo "-- changed" >>"$T/r.lua"
refused "the experiment file (sha256): " --threads 1 $same
cp "$T/r.lua.orig" "$T/r.lua"
sed -i 's/"bitbench_commit": "[^"]*",$/"bitbench_commit": "0000000",/' "$dir/run.json"
refused "the bitbench commit: 0000000 then, " --threads 1 $same
cp "$T/before.json" "$dir/run.json"
sed -i 's/"cpus": "[^"]*"/"cpus": "0-4095"/' "$dir/run.json"
refused "the CPUs the process may run on: 0-4095 then, " --threads 1 $same
cp "$T/before.json" "$dir/run.json"
# a run.json of a bitbench from before the settings were recorded
sed -i 's/"run_settings"/"other_member"/' "$dir/run.json"
refused "run.json does not record the settings the run began with (it was written by an older bitbench)" --threads 1 $same
cp "$T/before.json" "$dir/run.json"

# a point id twice in results.csv: reported (naming the id and the file), not extended
tail -n 1 "$dir/results.csv" >>"$dir/results.csv"
cp "$dir/results.csv" "$T/before.csv"
id=$(tail -n 1 "$dir/results.csv" | cut -d, -f3)
refused "--resume: $dir/results.csv holds point $id more than once" --threads 1 $same
sed -i '$d' "$dir/results.csv"
cp "$dir/results.csv" "$T/before.csv"

# the same settings: the resume measures the missing point and completes the run
"$BB" run "$T/r.lua" --resume --quiet --threads 1 $same >/dev/null 2>"$T/err"; rc=$?
ids=$(tail -n +2 "$dir/results.csv" | cut -d, -f3 | sort | tr '\n' ' ')
check '[ "$rc" -eq 0 ] && [ "$ids" = "1 2 " ] && grep -q "\"status\": \"complete\"" "$dir/run.json"' \
    "the same settings: rc=$rc, points $ids $(cat "$T/err")"

echo "test_resume_gate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
