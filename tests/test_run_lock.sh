#!/bin/sh
# One writer per run directory (harness/run/run_lock.h): while a run or a --resume writes a run
# directory, a second --resume of it is refused at once with one line naming the holder's pid;
# after two concurrent --resume of an interrupted run, results.csv has exactly the plan's rows
# (before the lock it had 50 for a 30-point plan and run.json said complete).  merge -o refuses an
# output directory another process holds.  $1 is the bitbench binary; the runs are made by
# BITBENCH_HOOKS_BIN, the test program with test_slow (tests/hooks/test_kernels.h), to take seconds.
BB="${BITBENCH_HOOKS_BIN:?BITBENCH_HOOKS_BIN: the bitbench_hooks test program (ctest sets it)}"
BB_RELEASE="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_run_lock_XXXXXX)
trap 'kill $pids 2>/dev/null; rm -rf "$T"' EXIT
pids=""
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
# wait up to 30 s for a condition
await() { i=0; while ! eval "$1" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; eval "$1"; }
rows() { [ -f "$1" ] && echo $(($(wc -l <"$1") - 1)) || echo 0; }

cat >"$T/lock.lua" <<LUA
local n = {} for i = 1, 30 do n[i] = i end
bitbench.experiment { name = "lock", out = "$T/res", sweeps = {
  { kernels = "test_slow", shapes = { {16, 16} }, n = n, threads = 1, warmup = 0, reps = 1, max_reps = 1, min_seconds = 0 } } }
LUA
# every call of test_slow takes 40 ms longer: the 30 points take a few seconds
export BITBENCH_TEST_SLOW=0.04

# a run, and a --resume while it writes: refused, naming the run's pid
"$BB" run "$T/lock.lua" --quiet >/dev/null 2>"$T/a.err" &
a=$!; pids="$a"
await '[ "$(rows "$T"/res/lock-*/results.csv)" -ge 3 ]'
dir=$(ls -d "$T"/res/lock-* | head -1)
"$BB" run "$T/lock.lua" --resume --quiet >/dev/null 2>"$T/c.err"; rc=$?
check '[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/c.err")" -eq 1 ] && grep -q "bitbench run: $dir is being written by process $a (it holds $dir/.lock); wait for it to end or stop it, then run again" "$T/c.err"' \
    "--resume during the run: rc=$rc $(cat "$T/c.err")"
kill -INT "$a"; wait "$a"; rc=$?
check '[ "$rc" -eq 130 ] && grep -q "\"status\": \"incomplete\"" "$dir/run.json"' "the interrupted run: rc=$rc $(cat "$T/a.err")"
done_before=$(rows "$dir/results.csv")

# two --resume at once: the second is refused while the first holds the directory
"$BB" run "$T/lock.lua" --resume --quiet >/dev/null 2>"$T/b.err" &
b=$!; pids="$b"
await 'grep -q "^$b\$" "$dir/.lock" 2>/dev/null'
"$BB" run "$T/lock.lua" --resume --quiet >/dev/null 2>"$T/c.err"; rc=$?
check '[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/c.err")" -eq 1 ] && grep -q "$dir is being written by process $b " "$T/c.err"' \
    "the second --resume: rc=$rc $(cat "$T/c.err")"
wait "$b"; rc=$?
keys=$(tail -n +2 "$dir/results.csv" | cut -d, -f1-8 | sort -u | wc -l)
check '[ "$rc" -eq 0 ] && [ "$(rows "$dir/results.csv")" -eq 30 ] && [ "$keys" -eq 30 ] && [ "$done_before" -lt 30 ] &&
    grep -q "\"status\": \"complete\"" "$dir/run.json"' \
    "after the resume: rc=$rc, $(rows "$dir/results.csv") rows ($keys distinct, $done_before before) $(cat "$T/b.err")"

# the lock goes with its holder: a later --resume is not blocked by the .lock file left behind
"$BB" run "$T/lock.lua" --resume --quiet >/dev/null 2>"$T/c.err"; rc=$?
check '[ "$rc" -eq 1 ] && grep -q "is complete; nothing to resume" "$T/c.err"' "a stale .lock: rc=$rc $(cat "$T/c.err")"

# merge -o into a directory another process holds (flock(1), which writes no pid)
if command -v flock >/dev/null 2>&1; then
    sed 's/for i = 1, 30/for i = 1, 2/; s/name = "lock"/name = "shard"/' "$T/lock.lua" >"$T/shard.lua"
    BITBENCH_TEST_SLOW=0 "$BB" run "$T/shard.lua" --shard 0/1 --quiet >/dev/null 2>&1
    dir=$(ls -d "$T"/res/shard-* | head -1)
    mkdir -p "$T/merged"
    flock "$T/merged/.lock" sleep 5 &
    f=$!; pids="$f"
    await '! flock -n "$T/merged/.lock" true'
    "$BB_RELEASE" merge "$dir" -o "$T/merged" >/dev/null 2>"$T/m.err"; rc=$?
    check '[ "$rc" -eq 2 ] && grep -q "bitbench merge: $T/merged is being written by another process" "$T/m.err"' \
        "merge into a held directory: rc=$rc $(cat "$T/m.err")"
    kill "$f" 2>/dev/null; wait "$f" 2>/dev/null
fi

echo "run_lock: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
