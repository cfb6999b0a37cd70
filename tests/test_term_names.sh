#!/bin/sh
# Issue 29: names from an experiment file from someone else reach the terminal as text.  A sweep
# name holding terminal control sequences (CSI clear screen, OSC 0 window title, OSC 8 link, a C1
# CSI) is shown escaped (\x1b...) in `run --dry-run`'s plan, the progress line, the notes and the
# table `run` prints; an experiment name with them is refused in a line that shows it escaped.
# results.csv and run.json keep the name (their own escaping: CSV quoting, JSON \u001b).
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
esc=$(printf '\033')
c1=$(printf '\302\233')
no_raw() { # file what
    ! grep -q "$esc" "$1" || fail "$2: a raw ESC reached the terminal: $(od -c "$1" | grep -m1 '033')"
    ! grep -q "$c1" "$1" || fail "$2: a raw C1 CSI reached the terminal"
}
cat > "$tmp/e.lua" <<LUA
bitbench.experiment { name = "t", out = "$tmp/res", sweeps = {
  bitbench.sweep { name = "s\27]0;owned\7\27[2J\27]8;;http://x\7l\27]8;;\7\194\155H", kernels = { "i2_s@scalar" },
                   shapes = { { 64, 256 } }, threads = { 1 }, reps = 2, warmup = 0 } } }
LUA
"$bin" run --dry-run "$tmp/e.lua" >"$tmp/out" 2>"$tmp/err" || fail "dry run: $(cat "$tmp/err")"
no_raw "$tmp/out" "the plan"
grep -q 's\\x1b\]0;owned\\x07\\x1b\[2J\\x1b\]8;;http://x\\x07l\\x1b\]8;;\\x07\\xc2\\x9bH' "$tmp/out" ||
    fail "the sweep name not shown escaped in the plan: $(cat "$tmp/out")"
# a real run, not quiet: the notes (a point measured again names its sweep), the table on stdout
"$bin" run "$tmp/e.lua" >"$tmp/out" 2>"$tmp/err" || fail "run: $(cat "$tmp/err")"
no_raw "$tmp/out" "the table"
no_raw "$tmp/err" "the progress line and notes"
# the files keep the name, in their own escaping
grep -q 'u001b\]0;owned' "$tmp"/res/t-*/run.json || grep -q 'u001b\]0;owned' "$tmp"/res/t-*/results.jsonl ||
    fail "run.json/results.jsonl do not keep the name (JSON \\u001b)"
# an experiment name with a control sequence: refused, shown escaped
printf 'bitbench.experiment { name = "x\\27]0;owned\\7", out = "%s/res", sweeps = { bitbench.sweep { kernels = { "i2_s" }, shapes = { { 64, 256 } } } } }\n' \
    "$tmp" > "$tmp/n.lua"
"$bin" run --dry-run "$tmp/n.lua" >"$tmp/out" 2>"$tmp/err" && fail "a name with a control sequence accepted"
no_raw "$tmp/err" "the refusal"
grep -q "name 'x\\\\x1b\]0;owned\\\\x07' may only use letters" "$tmp/err" || fail "refusal: $(cat "$tmp/err")"
# merge of shards whose run.json names hold control sequences: its refusal shows them escaped
cat > "$tmp/m.lua" <<LUA
bitbench.experiment { name = "m", out = "$tmp/sh", sweeps = {
  bitbench.sweep { kernels = { "i2_s@scalar", "f32" }, shapes = { { 64, 256 } }, threads = { 1 }, reps = 2, warmup = 0 } } }
LUA
for i in 0 1; do "$bin" run --quiet --shard "$i/2" "$tmp/m.lua" >/dev/null 2>&1 || fail "shard $i"; done
j=$(ls "$tmp"/sh/*/run.json | tail -1)
sed 's/"name": "m"/"name": "m\\u001b]0;owned\\u0007\\u009bH"/' "$j" > "$j.x" && mv "$j.x" "$j"
grep -q 'u001b' "$j" || fail "the shard's run.json was not edited"
"$bin" merge "$tmp/sh" -o "$tmp/merged" >"$tmp/out" 2>"$tmp/err" && fail "shards of different experiments merged"
no_raw "$tmp/err" "merge's refusal"
grep -q 'different experiments.*m\\x1b\]0;owned\\x07\\xc2\\x9bH' "$tmp/err" || fail "merge refusal: $(cat "$tmp/err")"
echo "test_term_names: ok"

# compare's Markdown on stdout names the rows' hosts and CPUs (results.csv): shown escaped
mkdir "$tmp/a" "$tmp/b"
a=$(ls -d "$tmp"/res/t-*); cp -r "$a"/. "$tmp/a"; cp -r "$a"/. "$tmp/b"
awk -F, -v OFS=, -v e="$esc" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "host") h = i }
    NR > 1 && h { $h = "evil" e "]0;owned\007" e "[2J" } { print }' "$a/results.csv" > "$tmp/b/results.csv"
grep -q "$esc" "$tmp/b/results.csv" || fail "fixture: results.csv has no host to replace"
"$bin" compare "$tmp/a" "$tmp/b" >"$tmp/out" 2>"$tmp/err" || fail "compare: $(cat "$tmp/err")"
no_raw "$tmp/out" "compare's table"
grep -q 'evil\\x1b\]0;owned\\x07\\x1b\[2J' "$tmp/out" || fail "the host not shown escaped: $(cat "$tmp/out")"
echo "test_term_names: compare ok"

# db list names the runs' hosts and CPUs of a database (here imported from run.json): shown escaped
if "$bin" db list --db "$tmp/probe.sqlite" >/dev/null 2>"$tmp/err" || ! grep -q "without SQLite" "$tmp/err"; then
    sed 's/"host": "[^"]*"/"host": "evil\\u001b]0;owned\\u0007\\u001b[2J"/' "$a/run.json" > "$tmp/b/run.json"
    grep -q 'u001b' "$tmp/b/run.json" || fail "fixture: run.json has no host to replace"
    "$bin" db import --db "$tmp/r.sqlite" "$tmp/b" >/dev/null 2>"$tmp/err" || fail "db import: $(cat "$tmp/err")"
    "$bin" db list --db "$tmp/r.sqlite" >"$tmp/out" 2>"$tmp/err" || fail "db list: $(cat "$tmp/err")"
    no_raw "$tmp/out" "db list"
    grep -q 'evil\\x1b\]0;owned\\x07\\x1b\[2J' "$tmp/out" || fail "db list: the host not shown escaped: $(cat "$tmp/out")"
    echo "test_term_names: db list ok"
fi
