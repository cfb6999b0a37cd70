#!/bin/sh
# Threads go only on the CPUs the process may use (issue 30 item 4): under `taskset -c C` a
# one-thread gemm records CPU C (not CPU 0); --threads beyond the affinity mask, a --cpus CPU
# outside it and a malformed --cpus list are refused with one line; --cpus places thread t on its
# t-th CPU and the results say so (gemm --csv, results.csv, e2e.csv, run.json, the database); a
# Lua sweep's `cpus` does the same and its thread counts are checked against the mask when the
# run is planned.  Every CPU is taken from this test's own affinity mask, so that it checks the
# contract on any host (one CPU, an emulator, another topology).  $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_placement_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
lines() { wc -l <"$1" | tr -d ' '; }
# the value of column $2 in the second line of CSV file $1
cell() { awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i } NR == 2 { print $c }' "$1"; }

# This process's allowed CPUs, expanded from "0-3,8".
list=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null)
if [ -z "$list" ]; then
    echo "test_placement: SKIP: no Cpus_allowed_list in /proc/self/status"
    exit 0
fi
allowed=$(echo "$list" | tr ',' '\n' | while IFS=- read a b; do seq "$a" "${b:-$a}"; done | tr '\n' ' ')
set -- $allowed
nallowed=$#
first=$1
eval "last=\${$#}"
outside=0
while echo " $allowed " | grep -q " $outside "; do outside=$((outside + 1)); done
have_taskset=0
command -v taskset >/dev/null 2>&1 && have_taskset=1
G="--kernel i2_s --m 256 --k 256 --reps 3 --warmup 1 --min-time 0"

# --cpus: a CPU outside the mask, a malformed list
"$BB" gemm $G --cpus "$outside" >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "CPU $outside is not one this process may run on (affinity mask " "$T/e"' \
    "--cpus $outside (outside the mask $list): rc=$rc $(cat "$T/e")"
for bad in "1-" "x" "0,,1" "" "3-1" "$first,$first"; do
    "$BB" gemm $G --cpus "$bad" >"$T/o" 2>"$T/e"; rc=$?
    check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "^bitbench: --cpus" "$T/e"' "--cpus '$bad': rc=$rc $(cat "$T/e")"
done

# --cpus: the threads on exactly those CPUs, in order
if [ "$nallowed" -ge 2 ]; then want="$last;$first"; cpus="$last,$first"; n=2; else want="$first"; cpus="$first"; n=1; fi
"$BB" gemm $G --cpus "$cpus" --csv >"$T/c.csv" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(cell "$T/c.csv" threads)" = "$n" ] && [ "$(cell "$T/c.csv" cpus)" = "$want" ]' \
    "--cpus $cpus: recorded '$(cell "$T/c.csv" cpus)', want '$want': rc=$rc $(cat "$T/e")"
"$BB" gemm $G --cpus "$first" --threads 2 >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "^bitbench: --threads 2: the CPU list $first names 1 CPU" "$T/e"' \
    "--cpus $first --threads 2: rc=$rc $(cat "$T/e")"

if [ "$have_taskset" -eq 1 ]; then
    # one thread under a one-CPU mask: recorded on that CPU (csv, text, database)
    taskset -c "$last" "$BB" gemm $G --threads 1 --csv >"$T/t.csv" 2>"$T/e"; rc=$?
    check '[ "$rc" -eq 0 ] && [ "$(cell "$T/t.csv" cpus)" = "$last" ]' \
        "taskset -c $last gemm --threads 1: recorded CPU '$(cell "$T/t.csv" cpus)': rc=$rc $(cat "$T/e")"
    taskset -c "$last" "$BB" gemm $G --threads 1 >"$T/t.txt" 2>"$T/e"; rc=$?
    check '[ "$rc" -eq 0 ] && grep -q "placed t0:\(core[0-9]*/\)\?pu$last  (allowed CPUs $last)" "$T/t.txt"' \
        "taskset -c $last gemm: text output: $(cat "$T/t.txt" "$T/e")"
    # more threads than the mask allows: one line naming the mask
    taskset -c "$last" "$BB" gemm $G --threads 2 >"$T/o" 2>"$T/e"; rc=$?
    check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "^bitbench: --threads 2: this process may run on 1 CPU (affinity mask $last)" "$T/e"' \
        "taskset -c $last gemm --threads 2: rc=$rc $(cat "$T/e")"
    taskset -c "$last" "$BB" e2e --model tiny --kernel i2_s --threads 2 >"$T/o" 2>"$T/e"; rc=$?
    check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "affinity mask $last" "$T/e"' \
        "taskset -c $last e2e --threads 2: rc=$rc $(cat "$T/e")"
    taskset -c "$last" "$BB" overhead --threads 1,2 >"$T/o" 2>"$T/e"; rc=$?
    check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "affinity mask $last" "$T/e"' \
        "taskset -c $last overhead --threads 1,2: rc=$rc $(cat "$T/e")"
    if [ "$nallowed" -ge 2 ]; then
        # the default placement stays inside a two-CPU mask
        taskset -c "$first,$last" "$BB" gemm $G --threads 2 --csv >"$T/t2.csv" 2>"$T/e"; rc=$?
        got=$(cell "$T/t2.csv" cpus)
        check '[ "$rc" -eq 0 ] && { [ "$got" = "$first;$last" ] || [ "$got" = "$last;$first" ]; }' \
            "taskset -c $first,$last gemm --threads 2: recorded '$got': rc=$rc $(cat "$T/e")"
    else
        echo "test_placement: one allowed CPU ($list): the two-CPU mask is not checked"
    fi
else
    echo "test_placement: no taskset: the one-CPU mask checks are skipped"
fi

# A Lua sweep's cpus: the kernel sweep's results.csv and run.json, the model sweep's e2e.csv
mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 256, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
cat > "$T/s.lua" <<LUA
bitbench.experiment { name = "placed", out = "$T/res", sweeps = {
  bitbench.sweep { name = "k", kernels = { "i2_s" }, shapes = { {256, 256} }, cpus = { $last }, reps = 3,
                   warmup = 1, min_seconds = 0 },
  bitbench.sweep { name = "d", kernels = { "i2_s" }, shapes = { {256, 256} }, cpus = { $first }, reps = 3,
                   warmup = 1, min_seconds = 0 },
  bitbench.sweep { name = "m", models = { "tiny" }, kernels = { "i2_s" }, cpus = { $last }, prompt = { 4 },
                   gen = { 2 }, reps = 1 } } }
LUA
BITBENCH_MODELS="$T/models" "$BB" run --quiet --db "$T/r.sqlite" "$T/s.lua" >"$T/o" 2>"$T/e"; rc=$?
dir=$(ls -d "$T"/res/placed-* 2>/dev/null | head -1)
check '[ "$rc" -eq 0 ] && [ "$(cell "$dir/results.csv" cpus)" = "$last" ] && [ "$(cell "$dir/results.csv" threads)" = 1 ]' \
    "sweep cpus = {$last}: results.csv cpus '$(cell "$dir/results.csv" cpus)': rc=$rc $(cat "$T/e")"
check '[ "$(awk -F, "NR == 3" "$dir/results.csv" | cut -d, -f2)" = d ] && [ "$(sed -n 3p "$dir/results.csv" | grep -c ",1,$first,")" = 1 ]' \
    "sweep d cpus = {$first} after sweep k cpus = {$last} (the pool placed again): $(sed -n 3p "$dir/results.csv" | cut -c1-120)"
check '[ "$(cell "$dir/e2e.csv" cpus)" = "$last" ]' "sweep cpus = {$last}: e2e.csv cpus '$(cell "$dir/e2e.csv" cpus)'"
check 'grep -q "\"allowed_cpus\": \"$list\"" "$dir/run.json" && grep -q "\"1\": \"t0:\(core[0-9]*/\)\?pu$last[\" ]" "$dir/run.json"' \
    "run.json: allowed_cpus and placement: $(grep -A3 '"placement"' "$dir/run.json" 2>/dev/null)"
if command -v sqlite3 >/dev/null 2>&1 && [ -f "$T/r.sqlite" ]; then
    check '[ "$(sqlite3 "$T/r.sqlite" "SELECT cpus FROM points ORDER BY seq; SELECT cpus FROM e2e_points;" | tr "\n" " ")" = "$last $first $last " ]' \
        "database: points.cpus and e2e_points.cpus: $(sqlite3 "$T/r.sqlite" "SELECT cpus FROM points; SELECT cpus FROM e2e_points;" 2>&1)"
    # a database of schema 1 (before e2e_points.cpus) is migrated when a command that writes opens
    # it (db import of another run), its rows kept; readers (db list) leave it as it is
    cp -r "$dir" "$T/other"
    sed 's/"run_id": "[^"]*"/"run_id": "other-run"/' "$dir/run.json" >"$T/other/run.json"
    cp "$T/r.sqlite" "$T/v1.sqlite"
    if sqlite3 "$T/v1.sqlite" "ALTER TABLE e2e_points DROP COLUMN cpus; UPDATE schema_version SET version = 1;" 2>/dev/null; then
        "$BB" db import --db "$T/v1.sqlite" "$T/other" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && [ "$(sqlite3 "$T/v1.sqlite" "SELECT version FROM schema_version")" = 13 ] && [ "$(sqlite3 "$T/v1.sqlite" "SELECT count(*) FROM e2e_points WHERE cpus IS NULL")" = 1 ]' \
            "schema 1 migrated: rc=$rc $(cat "$T/e")"
    fi
    # one of schema 3 (before the code that ran: variant_ran, fallback_calls) likewise, its cells empty
    cp "$T/r.sqlite" "$T/v3.sqlite"
    if sqlite3 "$T/v3.sqlite" "ALTER TABLE points DROP COLUMN variant_ran; ALTER TABLE points DROP COLUMN fallback_calls; ALTER TABLE e2e_points DROP COLUMN variant_ran_pp; ALTER TABLE e2e_points DROP COLUMN variant_ran_tg; ALTER TABLE e2e_points DROP COLUMN fallback_calls; UPDATE schema_version SET version = 3;" 2>/dev/null; then
        "$BB" db import --db "$T/v3.sqlite" "$T/other" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && [ "$(sqlite3 "$T/v3.sqlite" "SELECT version FROM schema_version")" = 13 ] && [ "$(sqlite3 "$T/v3.sqlite" "SELECT count(*) FROM points WHERE variant_ran IS NULL AND fallback_calls IS NULL")" = 2 ] && [ "$(sqlite3 "$T/v3.sqlite" "SELECT count(*) FROM e2e_points WHERE variant_ran_tg IS NULL")" = 1 ]' \
            "schema 3 migrated: rc=$rc $(cat "$T/e")"
    fi
    # one of schema 6 (before the working set, the list settings and the roofline fraction)
    cp "$T/r.sqlite" "$T/v6.sqlite"
    if sqlite3 "$T/v6.sqlite" "ALTER TABLE points DROP COLUMN rotated_bytes; ALTER TABLE points DROP COLUMN cache_source; ALTER TABLE points DROP COLUMN min_reps; ALTER TABLE points DROP COLUMN min_seconds; ALTER TABLE points DROP COLUMN seed; ALTER TABLE points DROP COLUMN delay_s; ALTER TABLE points DROP COLUMN roofline_fraction; ALTER TABLE points DROP COLUMN roofline_ceiling; UPDATE schema_version SET version = 6;" 2>/dev/null; then
        "$BB" db import --db "$T/v6.sqlite" "$T/other" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && [ "$(sqlite3 "$T/v6.sqlite" "SELECT version FROM schema_version")" = 13 ] && [ "$(sqlite3 "$T/v6.sqlite" "SELECT count(*) FROM points WHERE rotated_bytes IS NULL AND seed IS NULL AND roofline_ceiling IS NULL")" = 2 ]' \
            "schema 6 migrated: rc=$rc $(cat "$T/e")"
    fi
    # one of schema 8 (before the read beside every call): the read columns added, empty
    cp "$T/r.sqlite" "$T/v8.sqlite"
    drop8="ALTER TABLE points DROP COLUMN read_t_median_s; ALTER TABLE points DROP COLUMN read_t_min_s;"
    drop8="$drop8 ALTER TABLE points DROP COLUMN read_gbps; ALTER TABLE points DROP COLUMN read_ratio_paired;"
    if sqlite3 "$T/v8.sqlite" "$drop8 UPDATE schema_version SET version = 8;" 2>/dev/null; then
        "$BB" db import --db "$T/v8.sqlite" "$T/other" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && [ "$(sqlite3 "$T/v8.sqlite" "SELECT version FROM schema_version")" = 13 ] && [ "$(sqlite3 "$T/v8.sqlite" "SELECT count(*) FROM points WHERE read_gbps IS NULL AND read_ratio_paired IS NULL")" = 4 ]' \
            "schema 8 migrated: rc=$rc $(cat "$T/e") $(sqlite3 "$T/v8.sqlite" "SELECT count(*) FROM points" 2>&1)"
    fi
    # one of schema 9 (before a model sweep's rounds): the rounds columns added, empty
    cp "$T/r.sqlite" "$T/v9.sqlite"
    if sqlite3 "$T/v9.sqlite" "ALTER TABLE e2e_points DROP COLUMN rounds; ALTER TABLE e2e_points DROP COLUMN round; ALTER TABLE e2e_points DROP COLUMN rounds_pp_tps; ALTER TABLE e2e_points DROP COLUMN rounds_tg_tps; ALTER TABLE e2e_points DROP COLUMN rounds_tg_of_read; UPDATE schema_version SET version = 9;" 2>/dev/null; then
        "$BB" db import --db "$T/v9.sqlite" "$T/other" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && [ "$(sqlite3 "$T/v9.sqlite" "SELECT version FROM schema_version")" = 13 ] && [ "$(sqlite3 "$T/v9.sqlite" "SELECT count(*) FROM e2e_points WHERE rounds IS NULL AND rounds_tg_of_read IS NULL")" = 1 ]' \
            "schema 9 migrated: rc=$rc $(cat "$T/e") $(sqlite3 "$T/v9.sqlite" "SELECT count(*) FROM e2e_points" 2>&1)"
    fi
    # one of schema 10 (before a model sweep's interleave): the interleaved column added, empty
    cp "$T/r.sqlite" "$T/v10.sqlite"
    if sqlite3 "$T/v10.sqlite" "ALTER TABLE e2e_points DROP COLUMN interleaved; UPDATE schema_version SET version = 10;" 2>/dev/null; then
        "$BB" db import --db "$T/v10.sqlite" "$T/other" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && [ "$(sqlite3 "$T/v10.sqlite" "SELECT version FROM schema_version")" = 13 ] && [ "$(sqlite3 "$T/v10.sqlite" "SELECT count(*) FROM e2e_points WHERE interleaved IS NULL")" = 1 ]' \
            "schema 10 migrated: rc=$rc $(cat "$T/e") $(sqlite3 "$T/v10.sqlite" "SELECT count(*) FROM e2e_points" 2>&1)"
    fi
    # one of schema 11 (before read_streams): the column added to both tables, empty
    cp "$T/r.sqlite" "$T/v11.sqlite"
    if sqlite3 "$T/v11.sqlite" "ALTER TABLE points DROP COLUMN read_streams; ALTER TABLE e2e_points DROP COLUMN read_streams; UPDATE schema_version SET version = 11;" 2>/dev/null; then
        "$BB" db import --db "$T/v11.sqlite" "$T/other" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && [ "$(sqlite3 "$T/v11.sqlite" "SELECT version FROM schema_version")" = 13 ] && [ "$(sqlite3 "$T/v11.sqlite" "SELECT count(*) FROM e2e_points WHERE read_streams IS NULL")" = 1 ] && [ "$(sqlite3 "$T/v11.sqlite" "SELECT count(*) FROM e2e_points WHERE read_streams IN (1, 8)")" = 1 ]' \
            "schema 11 migrated: rc=$rc $(cat "$T/e") $(sqlite3 "$T/v11.sqlite" "SELECT read_streams FROM e2e_points" 2>&1)"
    fi
    # one of schema 12 (before stream_prefetch): the column added to both tables, empty for these kernels
    cp "$T/r.sqlite" "$T/v12.sqlite"
    if sqlite3 "$T/v12.sqlite" "ALTER TABLE points DROP COLUMN stream_prefetch; ALTER TABLE e2e_points DROP COLUMN stream_prefetch; UPDATE schema_version SET version = 12;" 2>/dev/null; then
        "$BB" db import --db "$T/v12.sqlite" "$T/other" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && [ "$(sqlite3 "$T/v12.sqlite" "SELECT version FROM schema_version")" = 13 ] && [ "$(sqlite3 "$T/v12.sqlite" "SELECT count(*) FROM e2e_points WHERE stream_prefetch IS NULL OR stream_prefetch = '"''"'")" = "$(sqlite3 "$T/v12.sqlite" "SELECT count(*) FROM e2e_points")" ]' \
            "schema 12 migrated: rc=$rc $(cat "$T/e") $(sqlite3 "$T/v12.sqlite" "SELECT stream_prefetch FROM e2e_points" 2>&1)"
    fi
    check '[ "$(sqlite3 "$T/r.sqlite" "SELECT rotated_bytes > 0 AND seed = '"'"'42'"'"' FROM points ORDER BY seq" | tr "\n" " ")" = "1 1 " ]' \
        "database: points.rotated_bytes and seed stored: $(sqlite3 "$T/r.sqlite" "SELECT rotated_bytes, seed FROM points" 2>&1)"
    check '[ "$(sqlite3 "$T/r.sqlite" "SELECT length(variant_ran) > 0 AND fallback_calls = 0 FROM points ORDER BY seq" | tr "\n" " ")" = "1 1 " ]' \
        "database: points.variant_ran stored: $(sqlite3 "$T/r.sqlite" "SELECT variant, variant_ran FROM points" 2>&1)"
fi

# threads and cpus of a sweep checked when the run is planned (also with --threads and --cpus)
cat > "$T/t.lua" <<LUA
bitbench.experiment { name = "too_many", out = "$T/res2", sweeps = {
  bitbench.sweep { kernels = { "i2_s" }, shapes = { {256, 256} }, threads = { 1, $((nallowed + 1)) } } } }
LUA
"$BB" run --dry-run "$T/t.lua" >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "t.lua:[0-9]*: sweep .sweep1.: threads $((nallowed + 1)): this process may run on $nallowed CPUs\? (affinity mask $list)" "$T/e"' \
    "sweep threads beyond the mask: rc=$rc $(cat "$T/e")"
"$BB" run --dry-run --threads 1 --cpus "$outside" "$T/t.lua" >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "CPU $outside is not one" "$T/e"' "run --cpus $outside: rc=$rc $(cat "$T/e")"
"$BB" run --dry-run --threads 2 --cpus "$first" "$T/t.lua" >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "threads 2: the CPU list $first names 1 CPU" "$T/e"' \
    "run --threads 2 --cpus $first: rc=$rc $(cat "$T/e")"
sed "s/threads = { 1, $((nallowed + 1)) }/cpus = { $outside }/" "$T/t.lua" >"$T/c.lua"
"$BB" run --dry-run "$T/c.lua" >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "c.lua:[0-9]*: sweep .sweep1.: cpus: CPU $outside is not one this process may run on" "$T/e"' \
    "sweep cpus outside the mask: rc=$rc $(cat "$T/e")"
if [ "$have_taskset" -eq 1 ]; then
    sed "s/threads = { 1, $((nallowed + 1)) }/threads = { 2 }/" "$T/t.lua" >"$T/two.lua"
    taskset -c "$last" "$BB" run --dry-run "$T/two.lua" >"$T/o" 2>"$T/e"; rc=$?
    check '[ "$rc" -eq 2 ] && [ "$(lines "$T/e")" -eq 1 ] && grep -q "threads 2: this process may run on 1 CPU (affinity mask $last)" "$T/e"' \
        "taskset -c $last run with threads = { 2 }: rc=$rc $(cat "$T/e")"
fi

echo "test_placement: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
