#!/bin/sh
# Working sets by cache level and sweep settings as lists (issue 33 items 5 and 6), end to end: a
# Lua sweep with cache = "l2" and lists for reps and warmup runs their product, each row recording
# the level, the bytes rotated, where the sizes came from and the settings it ran with; `gemm
# --cache l1` refuses a matrix too big for the L1d; roofline_fraction is filled against a machine
# profile of this CPU and empty (with the reason) where a ceiling was not measured.  The caches
# are a synthetic hwloc topology (HWLOC_SYNTHETIC), never this host's.  $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_cachelv_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
col() { # $1 file, $2 column: the values, one per line (no quoted commas in these rows' columns)
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR > 1 { print $c }' "$1"
}
# 16 PUs (this host's CPUs among them), a 48 KiB L1d and a 1 MiB L2 per core, one 16 MiB L3
HWLOC_SYNTHETIC="pack:1 l3:1(size=16MiB) l2:8(size=1MiB) l1d:1(size=48KiB) core:1 pu:2"
export HWLOC_SYNTHETIC

cat > "$T/l2.lua" <<LUA
bitbench.experiment { name = "l2", out = "$T/res", sweeps = {
  bitbench.sweep { kernels = { "i2_s@scalar" }, shapes = { { 128, 256 } }, threads = { 1 }, cache = "l2",
                   reps = { 2, 3 }, warmup = { 0, 1 }, max_reps = 3, min_seconds = 0, seed = { 7 } } } }
LUA
"$BB" run --quiet "$T/l2.lua" >"$T/o" 2>"$T/e"; rc=$?
d=$(ls -d "$T"/res/l2-* 2>/dev/null | head -1)
csv="$d/results.csv"
check '[ "$rc" -eq 0 ] && [ "$(col "$csv" kernel | wc -l)" -eq 4 ]' "4 rows (2 reps x 2 warmup): rc=$rc $(cat "$T/e")"
check '[ "$(col "$csv" cache | sort -u)" = l2 ] && [ "$(col "$csv" cache_source | sort -u)" = hwloc ]' \
    "cache l2 from hwloc: $(col "$csv" cache | tr '\n' ' ') $(col "$csv" cache_source | tr '\n' ' ')"
check '[ "$(col "$csv" min_reps | tr "\n" " ")" = "2 3 2 3 " ] && [ "$(col "$csv" warmup | tr "\n" " ")" = "0 0 1 1 " ]' \
    "the product, in order: min_reps $(col "$csv" min_reps | tr '\n' ' ') warmup $(col "$csv" warmup | tr '\n' ' ')"
check '[ "$(col "$csv" reps | tr "\n" " ")" = "2 3 2 3 " ] && [ "$(col "$csv" seed | sort -u)" = 7 ]' \
    "each row ran its reps, seed 7: $(col "$csv" reps | tr '\n' ' ') $(col "$csv" seed | sort -u)"
# half the 1 MiB L2 in whole copies, and more than the 48 KiB L1d
rot=$(col "$csv" rotated_bytes | sort -u)
wb=$(col "$csv" weight_bytes | sort -u)
check 'awk -v r="$rot" -v w="$wb" "BEGIN { exit !(r > 49152 && r <= 524288 && r + w > 524288 && r % w == 0) }"' \
    "rotated $rot bytes of $wb-byte copies: within half the L2, beyond the L1d"
check '[ -z "$(col "$csv" roofline_fraction | sort -u)" ] && grep -q "roofline_fraction is empty: no machine profile" "$d/results.md"' \
    "no profile: empty, and results.md says why: $(grep roofline "$d/results.md")"
check '[ "$(awk "NR > 1" "$d/samples.csv" | wc -l)" -eq 10 ]' "samples of all four points: $(wc -l < "$d/samples.csv")"
check 'tr -d " \n" < "$d/run.json" | grep -q "\"lists\":{\"warmup\":\[0,1\],\"reps\":\[2,3\]"' "run.json lists the settings' values"

# a profile of this CPU (bandwidths and peaks given here): the fraction is filled, in [0, 1.2];
# a thread count it has no ceiling for stays empty with the reason
cpu=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1)
[ -n "$cpu" ] || cpu=unknown
mkdir -p "$T/res2"
cat > "$T/res2/machine-profile.json" <<JSON
{"kind": "bitbench machine profile", "machine": {"cpu_model": "$cpu"},
 "read_bandwidth": [{"level": "L1", "threads": 1, "gbps": 1000}, {"level": "L2", "threads": 1, "gbps": 500},
  {"level": "L3", "threads": 1, "gbps": 200}, {"level": "DRAM", "threads": 1, "gbps": 50},
  {"level": "L1", "threads": 2, "gbps": 2000}],
 "peaks": [{"instruction": "vpdpbusd", "gops_1t_derived": 1000000, "gops_all_derived": 2000000, "threads_all": 2},
  {"instruction": "sdot", "gops_1t_derived": 1000000, "gops_all_derived": 2000000, "threads_all": 2},
  {"instruction": "fma_fp32", "gops_1t_derived": 1000000, "gops_all_derived": 2000000, "threads_all": 2},
  {"instruction": "fmla_fp32", "gops_1t_derived": 1000000, "gops_all_derived": 2000000, "threads_all": 2}]}
JSON
cat > "$T/p.lua" <<LUA
bitbench.experiment { name = "p", out = "$T/res2", sweeps = {
  bitbench.sweep { kernels = { "i2_s@scalar" }, shapes = { { 128, 256 } }, threads = { 1, 2 }, cache = { "l2", "resident" },
                   reps = 2, warmup = 0, min_seconds = 0 } } }
LUA
"$BB" run --quiet "$T/p.lua" >"$T/o" 2>"$T/e"; rc=$?
d=$(ls -d "$T"/res2/p-* 2>/dev/null | head -1)
csv="$d/results.csv"
frac1=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "threads") t = i; if ($i == "roofline_fraction") f = i } } NR > 1 && $t == 1 { print $f }' "$csv")
check '[ "$rc" -eq 0 ] && [ "$(echo "$frac1" | wc -w)" -eq 2 ]' "1-thread rows have a fraction: rc=$rc '$frac1' $(cat "$T/e")"
check 'echo "$frac1" | awk "{ if (!(\$1 > 0 && \$1 <= 1.2)) bad = 1 } END { exit bad }"' "fractions in (0, 1.2]: $frac1"
check '[ "$(col "$csv" roofline_ceiling | sort -u | grep -c "L2 read 1 thread")" -eq 1 ]' \
    "the l2 row's ceiling: $(col "$csv" roofline_ceiling | tr '\n' '/')"
check 'col "$csv" roofline_ceiling | grep -q "no L2 read bandwidth at 2 threads"' \
    "2 threads: no L2 bandwidth measured, said: $(col "$csv" roofline_ceiling | tr '\n' '/')"
check 'grep -q "roofline_fraction: attained over the ceilings of the machine profile" "$d/results.md"' "results.md names the profile"
# the profile has no dram_read_streams: its DRAM ceilings are a one-stream read, and results.md says so
check 'grep -q "Its DRAM ceilings were read with one stream per thread" "$d/results.md"' \
    "results.md does not say the profile's DRAM ceilings are a one-stream read"

# gemm --cache l1: a matrix too big for half the L1d is refused before any work, in one line
"$BB" gemm --kernel i2_s --m 1024 --k 1024 --cache l1 >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/e")" -eq 1 ] && grep -q "does not fit in half the L1d of 1 thread (24.0 KiB of 48.0 KiB, hwloc)" "$T/e" && [ ! -s "$T/o" ]' \
    "gemm l1 too big: rc=$rc $(cat "$T/e")"
"$BB" gemm --kernel i2_s@scalar --m 64 --k 128 --cache l1 --reps 2 --min-time 0 >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 0 ] && grep -q "cache=l1 (.* rotated, in half the L1d of 1 thread (48.0 KiB = 48.0 KiB x 1, hwloc))" "$T/o"' \
    "gemm l1 small: rc=$rc $(cat "$T/o" "$T/e")"
"$BB" gemm --kernel i2_s --m 64 --k 128 --cache l4 >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && grep -q "valid: l1, l2, l3, resident, dram" "$T/e"' "unknown mode: $(cat "$T/e")"

# bad lists and modes: the file, the line and what is valid
bad() { # $1 name, $2 fields, $3 expected message
    name=$1 want=$3
    printf 'bitbench.experiment { name = "%s", out = "%s", sweeps = {\n  bitbench.sweep { kernels = { "i2_s" }, shapes = { { 128, 256 } }, %s } } }\n' \
        "$name" "$T/res3" "$2" > "$T/$name.lua"
    "$BB" run --dry-run "$T/$name.lua" >"$T/o" 2>"$T/e"; rc=$?
    check '[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/e")" -eq 1 ] && grep -q "$name.lua:2: .*$want" "$T/e"' "$name: rc=$rc $(cat "$T/e")"
}
bad badmode 'cache = "l4"' "unknown mode 'l4'; valid: l1, l2, l3, resident, dram"
bad twice 'reps = { 2, 2 }' "field 'reps': 2 is listed twice"
bad empty 'warmup = {}' "field 'warmup' must be an integer in 0..1000000 or a non-empty list"
bad frac 'reps = { 2, 2.5 }' "field 'reps', entry 2: must be an integer in 1..10000000, got number 2.5"
bad delay 'delay = { 0, -1 }' "field 'delay', entry 2: must be a number in 0..3600"
bad maxr 'reps = { 5, 50 }, max_reps = 10' "field 'max_reps' (10) is below 'reps' (50)"
# a level the matrix cannot fill for a thread count: skipped by default with the reason, refused
# with on_unsupported = "error"
bad lerr 'shapes = { { 4096, 4096 } }, cache = "l1", threads = { 1 }, on_unsupported = "error"' \
    "threads 1: cache mode l1: the packed matrix .* does not fit in half the L1d"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
