#!/bin/sh
# Meters from the command line: `bitbench run --meters` adds meters to the file's; an unavailable
# meter's columns are empty cells and run.json carries its reason code; `list meters` shows
# every meter with yes/no and a reason; an unknown meter is refused.
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat >"$tmp/e.lua" <<'LUA'
bitbench.experiment { name = "meters_cli", sweeps = { { kernels = 'i2_s', shapes = {{256,512}} } } }
LUA
"$bin" run "$tmp/e.lua" --meters rapl,papi,pcm --threads 1 --reps 3 --min-time 0.001 --out "$tmp/out" --quiet >/dev/null 2>&1 ||
    fail "run with --meters exited $?"
csv=$(ls "$tmp"/out/*/results.csv)
json=$(ls "$tmp"/out/*/run.json)
head -1 "$csv" | grep -q 'rapl_pkg_energy_j,rapl_energy_per_call_j_derived,rapl_avg_power_w_derived,papi_cycles_per_call' ||
    fail "meter columns in the header: $(head -1 "$csv")"
head -1 "$csv" | grep -q 'pcm_dram_read_mbps' || fail "pcm columns"
for m in papi pcm rapl; do grep -q "\"name\": \"$m\"" "$json" || fail "run.json lists $m"; done
"$bin" list meters >"$tmp/list.txt" || fail "list meters"
for m in timer papi pcm rapl; do grep -q "^$m " "$tmp/list.txt" || fail "list shows $m"; done
grep -q '^timer  *yes' "$tmp/list.txt" || fail "timer available"
# every unavailable meter gives a reason code from the vocabulary
grep ' no ' "$tmp/list.txt" | grep -vqE '(not_built|no_pmu|perf_paranoid|no_permission|not_intel|no_msr|no_uncore|no_powercap|event_missing|tool_missing|tool_failed): ' &&
    fail "a reason outside the vocabulary: $(cat "$tmp/list.txt")"
"$bin" run "$tmp/e.lua" --meters bogus --out "$tmp/o2" >/dev/null 2>"$tmp/err.txt" && fail "unknown meter accepted"
grep -q "unknown meter 'bogus'" "$tmp/err.txt" || fail "message for an unknown meter"
echo "test_meters_cli: passed"
