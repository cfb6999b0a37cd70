#!/bin/sh
# Machine-readable results (issue 33): `gemm --csv` and `e2e --csv` print results.csv's and
# e2e.csv's header and row (provenance and cpu_model included) and nothing else on stdout, at full
# precision (each number is the double the database stores); `--json` prints the same row as one
# JSON object on one line; a run folder's results.jsonl and e2e.jsonl hold results.csv's and
# e2e.csv's rows, value for value; --csv and --json together are refused.  $1 is the bitbench
# binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_machine_out_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

# csv FILE -> "ok" when FILE is exactly one header and one row of as many fields; else why
csv_only() {
    python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
ok = len(rows) == 2 and len(rows[0]) == len(rows[1]) and len(rows[0]) > 40
print("ok" if ok else "%d lines: %r" % (len(rows), rows[:3]))
PY
}
# same CSV JSONL -> "ok" when the JSONL's objects are the CSV's rows, key for column and value for
# cell: text equal, numbers equal as doubles, null for an empty cell
same() {
    python3 - "$1" "$2" <<'PY'
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
objs = [json.loads(l) for l in open(sys.argv[2])]
head = next(csv.reader(open(sys.argv[1], newline="")))
def bad(why):
    print(why); sys.exit(0)
if len(rows) != len(objs) or not rows: bad("%d CSV rows, %d JSON lines" % (len(rows), len(objs)))
for r, o in zip(rows, objs):
    if list(o.keys()) != head: bad("keys %s != header %s" % (list(o.keys())[:5], head[:5]))
    for k in head:
        c, v = r[k], o[k]
        if v is None:
            if c != "": bad("%s: null for cell %r" % (k, c))
        elif isinstance(v, str):
            if v != c: bad("%s: %r != %r" % (k, v, c))
        elif isinstance(v, bool) or not isinstance(v, (int, float)):
            bad("%s: %r is not a number or text" % (k, v))
        elif float(c) != float(v) or (isinstance(v, float) and math.isnan(v)):
            bad("%s: JSON %r != CSV %r" % (k, v, c))
print("ok")
PY
}

mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 256, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
export BITBENCH_MODELS="$T/models"
G="--kernel i2_s --m 64 --k 256 --reps 5 --warmup 1 --min-time 0"
"$BB" gemm $G --csv >"$T/g.csv" 2>"$T/g.err"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(csv_only "$T/g.csv")" = ok ]' "gemm --csv: stdout is one header and one row: rc=$rc $(csv_only "$T/g.csv") $(cat "$T/g.err")"
# results.csv's columns, in its order, then nothing (no --read, no --verify)
"$BB" list columns results | sed -n 's/^| `\([a-z0-9_]*\)` .*/\1/p' | tr '\n' , | sed 's/,$//' >"$T/want.head"
check '[ "$(head -1 "$T/g.csv")" = "$(cat "$T/want.head")" ]' "gemm --csv header is results.csv's: $(head -1 "$T/g.csv")"
cell() { python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1], newline="")))[sys.argv[2]])' "$@"; }
check '[ "$(cell "$T/g.csv" experiment)" = gemm ] && [ -n "$(cell "$T/g.csv" run_id)" ] && [ -n "$(cell "$T/g.csv" host)" ] && [ -n "$(cell "$T/g.csv" commit)" ] && [ -n "$(cell "$T/g.csv" cpu_model)" ]' \
    "gemm --csv provenance: $(tail -1 "$T/g.csv")"
"$BB" gemm $G --read --verify --csv >"$T/gv.csv" 2>"$T/gv.err"; rc=$?
check '[ "$rc" -eq 0 ] && head -1 "$T/gv.csv" | grep -q ",cpu_model,rel_err,bound_ratio$" && [ -n "$(cell "$T/gv.csv" read_ratio_paired)" ] && [ "$(cell "$T/gv.csv" verify)" = passed ]' \
    "gemm --read --verify --csv: the read in results.csv's columns, the verify columns last: rc=$rc $(head -1 "$T/gv.csv") $(cat "$T/gv.err")"

"$BB" gemm $G --json >"$T/g.jsonl" 2>"$T/gj.err"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(wc -l <"$T/g.jsonl")" -eq 1 ] && python3 -c "import json,sys; o=json.loads(open(sys.argv[1]).readline()); assert o[\"kernel\"] == \"i2_s\" and o[\"m\"] == 64 and isinstance(o[\"t_median_s\"], float) and o[\"err_max_abs\"] is None" "$T/g.jsonl"' \
    "gemm --json: one object: rc=$rc $(cat "$T/g.jsonl" "$T/gj.err")"
"$BB" gemm $G --csv --json >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "exclude each other" "$T/e" && [ ! -s "$T/o" ]' "--csv --json: rc=$rc $(cat "$T/e")"

# full precision: the CSV cells are the doubles the database stores (gemm --db stores the same row)
# the value a database column holds for its one row, as Python reads the REAL
dbval() { python3 -c 'import sqlite3,sys; print(repr(sqlite3.connect(sys.argv[1]).execute("SELECT %s FROM %s" % (sys.argv[3], sys.argv[2])).fetchone()[0]))' "$@"; }
if "$BB" db list --db "$T/probe.sqlite" >/dev/null 2>&1; then
    "$BB" gemm $G --csv --db "$T/g.sqlite" >"$T/gd.csv" 2>"$T/gd.err"; rc=$?
    check '[ "$rc" -eq 0 ] && [ "$(csv_only "$T/gd.csv")" = ok ] && grep -q "stored as run" "$T/gd.err"' \
        "gemm --csv --db: the store note on stderr, stdout only CSV: rc=$rc $(cat "$T/gd.csv" "$T/gd.err")"
    for col in t_median_s t_sd_s gops gbps; do
        db=$(dbval "$T/g.sqlite" points $col)
        check 'python3 -c "import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))" "$(cell "$T/gd.csv" $col)" "$db"' \
            "gemm --csv $col at full precision: CSV $(cell "$T/gd.csv" $col), database $db"
    done
    "$BB" e2e --model tiny --kernel i2_s --prompt 4 --gen 4 --reps 2 --csv --db "$T/e.sqlite" >"$T/ed.csv" 2>"$T/ed.err"; rc=$?
    for col in pp_tps tg_tps ms_per_token matmul_share; do
        db=$(dbval "$T/e.sqlite" e2e_points $col)
        check '[ "$rc" -eq 0 ] && python3 -c "import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))" "$(cell "$T/ed.csv" $col)" "$db"' \
            "e2e --csv $col at full precision: CSV $(cell "$T/ed.csv" $col), database $db: rc=$rc $(cat "$T/ed.err")"
    done
else
    echo "test_machine_output: this bitbench has no SQLite: the database comparisons are skipped"
fi

E="--model tiny --kernel i2_s --prompt 4 --gen 4 --reps 2"
"$BB" e2e $E --csv >"$T/e.csv" 2>"$T/e.err"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(csv_only "$T/e.csv")" = ok ] && [ "$(cell "$T/e.csv" model)" = tiny ] && [ -n "$(cell "$T/e.csv" run_id)" ] && [ -n "$(cell "$T/e.csv" cpu_model)" ] && [ -n "$(cell "$T/e.csv" tg_spread)" ]' \
    "e2e --csv: e2e.csv's row with provenance, stdout only CSV: rc=$rc $(cat "$T/e.csv" "$T/e.err")"
"$BB" e2e $E --json >"$T/e.jsonl" 2>"$T/ej.err"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(wc -l <"$T/e.jsonl")" -eq 1 ] && python3 -c "import json,sys; o=json.loads(open(sys.argv[1]).readline()); assert o[\"model\"] == \"tiny\" and o[\"gen\"] == 4 and o[\"tg_tps\"] > 0 and o[\"ppl\"] is None" "$T/e.jsonl"' \
    "e2e --json: one object: rc=$rc $(cat "$T/e.jsonl" "$T/ej.err")"

# a run folder: results.jsonl and e2e.jsonl beside the CSV files, value for value
cat > "$T/j.lua" <<LUA
bitbench.experiment { name = "jl", out = "$T/res", sweeps = {
  bitbench.sweep { name = "k", kernels = { "i2_s", "f32" }, shapes = { { m = 64, k = 128 } }, n = { 1, 2 },
                   threads = { 1 }, warmup = 1, reps = 3, min_seconds = 0, verify = true },
  bitbench.sweep { name = "e", models = { "tiny" }, kernels = { "i2_s" }, threads = { 1 }, prompt = 4, gen = 2,
                   reps = 2 } } }
LUA
"$BB" run "$T/j.lua" --quiet >/dev/null 2>"$T/r.err"; rc=$?
R=$(ls -d "$T"/res/jl-* 2>/dev/null | head -1)
check '[ "$rc" -eq 0 ] && [ "$(same "$R/results.csv" "$R/results.jsonl")" = ok ]' \
    "results.jsonl holds results.csv's rows: rc=$rc $(same "$R/results.csv" "$R/results.jsonl" 2>&1) $(cat "$T/r.err")"
check '[ "$(same "$R/e2e.csv" "$R/e2e.jsonl")" = ok ]' "e2e.jsonl holds e2e.csv's rows: $(same "$R/e2e.csv" "$R/e2e.jsonl" 2>&1)"
check '[ "$(cell "$R/results.csv" cpu_model)" = "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"machine\"][\"cpu_model\"])" "$R/run.json")" ]' \
    "results.csv's cpu_model is run.json's machine.cpu_model"

# a kernel sweep's read = true: gemm --read's figures in every row of that sweep (a read after each
# call, the call-by-call ratio), empty cells in the sweep that did not ask; run.json says which
cat > "$T/rd.lua" <<LUA
bitbench.experiment { name = "rd", out = "$T/resrd", sweeps = {
  bitbench.sweep { name = "with", kernels = { "i2_s" }, shapes = { { m = 64, k = 256 } }, threads = { 1 },
                   warmup = 1, reps = 3, min_seconds = 0, read = true },
  bitbench.sweep { name = "without", kernels = { "i2_s" }, shapes = { { m = 64, k = 256 } }, threads = { 1 },
                   warmup = 1, reps = 3, min_seconds = 0 } } }
LUA
"$BB" run "$T/rd.lua" --quiet >/dev/null 2>"$T/rd.err"; rc=$?
R=$(ls -d "$T"/resrd/rd-* 2>/dev/null | head -1)
check '[ "$rc" -eq 0 ] && python3 -c "
import csv, json, sys
rows = {r[\"sweep\"]: r for r in csv.DictReader(open(sys.argv[1], newline=\"\"))}
w, o = rows[\"with\"], rows[\"without\"]
f = lambda k: float(w[k])
ok = f(\"read_t_median_s\") > 0 and 0 < f(\"read_t_min_s\") <= f(\"read_t_median_s\") and f(\"read_gbps\") > 0
ok = ok and 0 < f(\"read_ratio_paired\") < float(\"inf\")
ok = ok and all(o[k] == \"\" for k in (\"read_t_median_s\", \"read_t_min_s\", \"read_gbps\", \"read_ratio_paired\"))
sweeps = {s[\"name\"]: s for s in json.load(open(sys.argv[2]))[\"sweeps\"]}
sys.exit(not (ok and sweeps[\"with\"][\"read\"] is True and sweeps[\"without\"][\"read\"] is False))
" "$R/results.csv" "$R/run.json"' \
    "sweep read = true: rc=$rc $(cat "$T/rd.err") $(cut -d, -f2,46-49 "$R/results.csv" 2>&1)"
cat > "$T/rb.lua" <<LUA
bitbench.experiment { name = "rb", sweeps = {
  bitbench.sweep { kernels = { "i2_s" }, shapes = { { m = 64, k = 256 } }, read = 1 } } }
LUA
"$BB" run --dry-run "$T/rb.lua" >/dev/null 2>"$T/rb.err"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/rb.err")" -eq 1 ] && grep -q "field .read. must be true or false" "$T/rb.err"' \
    "read = 1 (not a boolean): rc=$rc $(cat "$T/rb.err")"

# compare shows each side's CPU model beside its host
"$BB" compare "$R" "$R" --csv >"$T/cmp.csv" 2>"$T/cmp.err"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(cell "$T/cmp.csv" cpu_model_a)" = "$(cell "$R/results.csv" cpu_model)" ] && [ "$(cell "$T/cmp.csv" cpu_model_b)" = "$(cell "$R/results.csv" cpu_model)" ]' \
    "compare --csv cpu_model_a/b: rc=$rc $(head -2 "$T/cmp.csv") $(cat "$T/cmp.err")"
"$BB" compare "$R" "$R" >"$T/cmp.md" 2>&1
check 'grep -qF "| $(cell "$R/results.csv" host) ($(cell "$R/results.csv" cpu_model)) |" "$T/cmp.md"' "compare's table: host (CPU model): $(sed -n 5,6p "$T/cmp.md")"

echo "test_machine_output: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
