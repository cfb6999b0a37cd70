#!/bin/sh
# Meters from the command line: `bitbench run --meters` adds meters to the file's; an unavailable
# meter's columns are empty cells and run.json carries its reason code; `list meters` shows
# every meter with yes/no and a reason; an unknown meter is refused.  With the fake PCM sidecars
# (BB_PCM_MEMORY, BB_PCM_POWER) the pcm columns carry the fakes' bandwidth and power, and the
# energy is that power over the measured region.
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
head -1 "$csv" | grep -q 'pcm_dram_read_mbps,pcm_dram_write_mbps,pcm_samples,pcm_pkg_power_w,pcm_dram_power_w,pcm_pkg_energy_j,pcm_dram_energy_j,pcm_power_samples' ||
    fail "pcm columns: $(head -1 "$csv")"
for m in papi pcm rapl; do grep -q "\"name\": \"$m\"" "$json" || fail "run.json lists $m"; done
"$bin" list meters >"$tmp/list.txt" || fail "list meters"
for m in timer papi pcm rapl; do grep -q "^$m " "$tmp/list.txt" || fail "list shows $m"; done
grep -q '^timer  *yes' "$tmp/list.txt" || fail "timer available"
# every unavailable meter gives a reason code from the vocabulary
grep ' no ' "$tmp/list.txt" | grep -vqE '(not_built|no_pmu|perf_paranoid|no_permission|not_intel|no_msr|no_uncore|no_powercap|event_missing|tool_missing|tool_failed): ' &&
    fail "a reason outside the vocabulary: $(cat "$tmp/list.txt")"
data=${BITBENCH_SOURCE_DIR:-.}/tests/data
BB_PCM_MEMORY="$data/fake_pcm_memory.sh" BB_PCM_POWER="$data/fake_pcm_power.sh" BB_PCM_INTERVAL=0.05 \
    "$bin" run "$tmp/e.lua" --meters pcm --threads 1 --reps 3 --min-time 0.3 --out "$tmp/fake" --quiet >/dev/null 2>&1 ||
    fail "run with the fake pcm sidecars exited $?"
# the columns by name (the row's fields before the last, free-text note, hold no commas)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { region = $col["timer_region_s"]; w = $col["pcm_pkg_power_w"]; e = $col["pcm_pkg_energy_j"]
      if ($col["pcm_dram_read_mbps"] != 1234.5 || w != 50.25 || $col["pcm_dram_power_w"] != 6.5) { print "values: " $0; exit 1 }
      if ($col["pcm_samples"] < 1 || $col["pcm_power_samples"] < 1) { print "sample counts: " $0; exit 1 }
      d = e - w * region; if (d < 0) d = -d
      if (d > 0.02 * w * region) { print "energy " e " J is not " w " W x " region " s"; exit 1 } }' \
    "$(ls "$tmp"/fake/*/results.csv)" || fail "pcm columns from the fake sidecars"
# the sidecars' output files go in a folder under TMPDIR, removed afterwards
mkdir -p "$tmp/tt"
printf '#!/bin/sh\nprintf "%%s\\n" "$2" >> "%s/paths"\nexec "%s/fake_pcm_memory.sh" "$@"\n' "$tmp" "$data" > "$tmp/rec_memory.sh"
chmod +x "$tmp/rec_memory.sh"
TMPDIR="$tmp/tt" BB_PCM_MEMORY="$tmp/rec_memory.sh" BB_PCM_POWER=none BB_PCM_INTERVAL=0.05 \
    "$bin" run "$tmp/e.lua" --meters pcm --threads 1 --reps 3 --min-time 0.3 --out "$tmp/fake2" --quiet >/dev/null 2>&1 ||
    fail "run with TMPDIR exited $?"
grep -q "^-csv=$tmp/tt/bitbench-pcm-[A-Za-z0-9]*/pcm-memory.out\$" "$tmp/paths" || fail "pcm's output not under TMPDIR: $(cat "$tmp/paths")"
[ -z "$(ls -A "$tmp/tt")" ] || fail "the pcm folder left in TMPDIR: $(ls -A "$tmp/tt")"
TMPDIR="$tmp/missing" BB_PCM_MEMORY="$tmp/rec_memory.sh" BB_PCM_POWER=none \
    "$bin" run "$tmp/e.lua" --meters pcm --threads 1 --reps 3 --min-time 0.1 --out "$tmp/fake3" --quiet >/dev/null 2>&1 ||
    fail "run with a missing TMPDIR exited $?"
grep -q "no temporary folder for pcm's output: cannot create a temporary folder in $tmp/missing" "$tmp"/fake3/*/run.json ||
    fail "missing TMPDIR: $(grep -o '"reason[^}]*' "$tmp"/fake3/*/run.json | head -3)"
"$bin" run "$tmp/e.lua" --meters bogus --out "$tmp/o2" >/dev/null 2>"$tmp/err.txt" && fail "unknown meter accepted"
grep -q "unknown meter 'bogus'" "$tmp/err.txt" || fail "message for an unknown meter"
echo "test_meters_cli: passed"
