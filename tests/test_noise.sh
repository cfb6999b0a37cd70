#!/bin/sh
# Noise handled (issue 20 item 5): a point whose spread exceeds its bounds is measured again up to
# the sweep's `remeasure` times (results.csv's attempts, the last attempt's samples kept, then
# flagged); remeasure = 0 measures once; `delay` cools down between points; bad values are refused
# with the file and line.  $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_noise_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
col() { # $1 file, $2 column: the values, one per line
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR > 1 { print $c }' "$1"
}
sweep() { # $1 name, $2 extra fields
    printf 'bitbench.experiment { name = "%s", out = "%s", sweeps = {\n  bitbench.sweep { kernels = { "i2_s" }, shapes = { { m = 128, k = 256 } }, n = { 1, 2, 3 }, threads = { 1 }, warmup = 1, reps = 20, max_reps = 20, min_seconds = 0, %s } } }\n' \
        "$1" "$T/res" "$2" > "$T/$1.lua"
}

# sd_limit = 0 and spread_limit = 0: no measurement is ever quiet enough (unless every call took
# exactly the same time), so each point takes 1 + remeasure attempts and is flagged
sweep always 'spread_limit = 0, sd_limit = 0, remeasure = 2'
"$BB" run --quiet "$T/always.lua" >/dev/null 2>"$T/err"; rc=$?
d=$(ls -d "$T"/res/always-*)
check '[ "$rc" -eq 0 ] && [ "$(col "$d/results.csv" attempts | sort -u)" = 3 ]' "attempts 3: rc=$rc $(col "$d/results.csv" attempts) $(cat "$T/err")"
check '[ "$(col "$d/results.csv" spread_flag | sort -u)" = 1 ]' "flagged after the last attempt"
check '[ "$(wc -l < "$d/samples.csv")" -eq 61 ]' "the last attempt's samples only: $(wc -l < "$d/samples.csv")"
check 'grep -q "after 3 attempts" "$d/run.json"' "run.json warning names the attempts"

sweep once 'spread_limit = 0, sd_limit = 0, remeasure = 0, delay = 0.25'
start=$(date +%s.%N)
"$BB" run --quiet "$T/once.lua" >/dev/null 2>"$T/err"; rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
d=$(ls -d "$T"/res/once-*)
check '[ "$rc" -eq 0 ] && [ "$(col "$d/results.csv" attempts | sort -u)" = 1 ]' "remeasure 0: one attempt: $(col "$d/results.csv" attempts)"
check 'awk -v t="$took" "BEGIN { exit !(t >= 0.5) }"' "delay 0.25 before points 2 and 3: the run took only $took s"
check 'grep -q "\"delay\": 0.25" "$d/run.json" && grep -q "\"remeasure\": 0" "$d/run.json"' "run.json records remeasure and delay"

sweep badr 'remeasure = -1'
"$BB" run --quiet "$T/badr.lua" >/dev/null 2>"$T/err"; rc=$?
check '[ "$rc" -eq 2 ] && grep -q "badr.lua:2: .*remeasure" "$T/err"' "bad remeasure: rc=$rc $(cat "$T/err")"
sweep badd 'delay = "long"'
"$BB" run --quiet "$T/badd.lua" >/dev/null 2>"$T/err"; rc=$?
check '[ "$rc" -eq 2 ] && grep -q "badd.lua:2: .*delay" "$T/err"' "bad delay: rc=$rc $(cat "$T/err")"

echo "test_noise: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
