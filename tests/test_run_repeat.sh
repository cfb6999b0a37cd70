#!/bin/sh
# Results that travel whole (issue 33): a run folder keeps the experiment's text (experiment.lua,
# byte for byte, its sha256 run.json's), the model configs it named (models/NAME.lua) and, for a
# -dirty build, the source diff or why there is none; `bitbench run --repeat RUN_DIR` runs that
# text again with those configs and the recorded settings into a new folder, whose points are the
# same; a folder without the text, or whose text or config does not match its recorded sha256, is
# refused in one line; the text goes through the Lua sandbox like any file; the results database
# keeps the texts (run_files) and `db export` gives them back; a database of schema 7 is read as it
# is by db list and report (never changed by a reader) and migrated by db import.
# $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_repeat_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
# the sorted identities of a run's points: kernel rows and end-to-end rows
points() {
    python3 - "$1" <<'PY'
import csv, os, sys
d = sys.argv[1]
for f, cols in (("results.csv", ("sweep", "kernel", "variant", "model", "m", "k", "n", "threads", "cache", "reps")),
                ("e2e.csv", ("sweep", "model", "kernel", "variant", "threads", "prompt", "gen", "depth"))):
    p = os.path.join(d, f)
    if os.path.exists(p):
        rows = sorted(tuple(r[c] for c in cols) for r in csv.DictReader(open(p, newline="")))
        for r in rows: print(f, *r)
PY
}
jget() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v[int(k)] if isinstance(v, list) else v[k]
print("null" if v is None else v)' "$@"; }

mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 256, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
# a kernel sweep over a literal shape and the model's shapes, and a model sweep; the size picks
# the thread list, so that --smoke (recorded in run_settings) shows in the points
cat > "$T/trip.lua" <<LUA
-- a comment, kept byte for byte
local threads = bitbench.size == "smoke" and { 1 } or { 1, 2 }
bitbench.experiment { name = "trip", out = "$T/res", sweeps = {
  bitbench.sweep { name = "k", kernels = { "i2_s", "f32" }, shapes = { { m = 64, k = 128 }, "tiny" }, n = { 1 },
                   threads = threads, warmup = 1, reps = 2, min_seconds = 0 },
  bitbench.sweep { name = "e", models = { "tiny" }, kernels = { "i2_s" }, threads = { 1 }, prompt = 4, gen = 2,
                   reps = 1 } } }
LUA
have_db=1
"$BB" db list --db "$T/probe.sqlite" >/dev/null 2>"$T/probe.err" || have_db=0
command -v sqlite3 >/dev/null 2>&1 || have_db=0
dbopt=""; [ "$have_db" -eq 1 ] && dbopt="--db $T/r.sqlite"
BITBENCH_MODELS="$T/models" "$BB" run "$T/trip.lua" --smoke --quiet $dbopt >/dev/null 2>"$T/a.err"; rc=$?
A=$(ls -d "$T"/res/trip-* 2>/dev/null | head -1)
check '[ "$rc" -eq 0 ] && [ -n "$A" ]' "the first run: rc=$rc $(cat "$T/a.err")"

# the folder keeps the texts, byte for byte, and run.json says what they are
check 'cmp -s "$T/trip.lua" "$A/experiment.lua"' "experiment.lua is the file byte for byte"
check 'cmp -s "$T/models/tiny.lua" "$A/models/tiny.lua" && [ "$(ls "$A/models")" = tiny.lua ]' "models/ holds tiny.lua only: $(ls "$A/models" 2>&1)"
sha=$(sha256sum "$T/trip.lua" | cut -d" " -f1)
check '[ "$(jget "$A/run.json" experiment.sha256)" = "$sha" ] && [ "$(jget "$A/run.json" sources.experiment.sha256)" = "$sha" ] &&
       [ "$(jget "$A/run.json" sources.models.0.name)" = tiny ] &&
       [ "$(jget "$A/run.json" sources.models.0.sha256)" = "$(sha256sum "$T/models/tiny.lua" | cut -d" " -f1)" ]' \
    "run.json's sources: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("sources"))' "$A/run.json")"
# the diff: kept for a -dirty build, or the reason there is none
commit=$(jget "$A/run.json" tool.git_commit)
case "$commit" in
*-dirty)
    if [ -f "$A/source.diff" ]; then
        check '[ -s "$A/source.diff" ] && [ "$(jget "$A/run.json" sources.source_diff.sha256)" = "$(sha256sum "$A/source.diff" | cut -d" " -f1)" ] && grep -q "^diff --git" "$A/source.diff"' \
            "a -dirty build's source.diff: $(head -3 "$A/source.diff")"
    else
        check '[ -n "$(jget "$A/run.json" sources.source_diff.reason)" ]' "a -dirty build without a diff says why"
    fi ;;
*)
    check '[ ! -e "$A/source.diff" ] && jget "$A/run.json" sources.source_diff.reason | grep -q "not from changed files"' \
        "a clean build ($commit) has no diff and says so: $(jget "$A/run.json" sources.source_diff.reason)" ;;
esac

# --repeat: the same points from the folder alone (the local models/ and file gone and changed)
mv "$T/trip.lua" "$T/trip.lua.away"
printf 'return { name = "tiny", style = "bitnet", dim = 256, ffn_dim = 512, n_layers = 2, n_heads = 4, n_kv_heads = 4, vocab_size = 256, ffn_act = "relu2", tied_embedding = true, source = "changed" }\n' >"$T/models/tiny.lua"
BITBENCH_MODELS="$T/models" "$BB" run --repeat "$A" --quiet >/dev/null 2>"$T/b.err"; rc=$?
B=$(ls -d "$T"/res/trip-* 2>/dev/null | grep -v "^$A\$" | head -1)
check '[ "$rc" -eq 0 ] && [ -n "$B" ] && [ "$B" != "$A" ]' "--repeat: rc=$rc $(cat "$T/b.err")"
points "$A" >"$T/a.points"; points "$B" >"$T/b.points" 2>&1
check '[ -s "$T/a.points" ] && [ "$(grep -c results.csv "$T/a.points")" -gt 2 ] && [ "$(grep -c e2e.csv "$T/a.points")" -eq 1 ] && cmp -s "$T/a.points" "$T/b.points"' \
    "the repeat's points are the run's: $(diff "$T/a.points" "$T/b.points" | head -5)"
check 'cmp -s "$A/experiment.lua" "$B/experiment.lua" && cmp -s "$A/models/tiny.lua" "$B/models/tiny.lua"' "the repeat keeps the same texts"
check '[ "$(jget "$B/run.json" sources.repeat_of.run_id)" = "$(jget "$A/run.json" run_id)" ] && [ "$(jget "$B/run.json" run_settings.size)" = smoke ]' \
    "the repeat's run.json names the run it repeats and its size"

# refusals, one line each, nothing run
cp -r "$A" "$T/nofile"; rm "$T/nofile/experiment.lua"
"$BB" run --repeat "$T/nofile" --quiet >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "nofile has no experiment.lua" "$T/e"' "no experiment.lua: rc=$rc $(cat "$T/e")"
cp -r "$A" "$T/changed"; echo "-- changed" >>"$T/changed/experiment.lua"
"$BB" run --repeat "$T/changed" --quiet >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "changed/experiment.lua: its sha256 is .* but run.json records $sha" "$T/e"' \
    "a changed experiment.lua: rc=$rc $(cat "$T/e")"
cp -r "$A" "$T/cfg"; echo "-- changed" >>"$T/cfg/models/tiny.lua"
"$BB" run --repeat "$T/cfg" --quiet >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "cfg/models/tiny.lua: its sha256" "$T/e"' "a changed model config: rc=$rc $(cat "$T/e")"
mkdir "$T/empty"
"$BB" run --repeat "$T/empty" --quiet >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "no run.json there" "$T/e"' "not a run folder: rc=$rc $(cat "$T/e")"
"$BB" run --repeat "$A" "$T/trip.lua.away" >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && grep -q "one file too many" "$T/e"' "--repeat with a file: rc=$rc $(cat "$T/e")"
# the stored text is untrusted: a folder whose experiment.lua (and recorded hash) asks for
# os.execute is loaded in the sandbox and refused, the command never run
cp -r "$A" "$T/evil"
printf 'os.execute("touch %s/pwned")\n' "$T" >"$T/evil/experiment.lua"
python3 - "$T/evil" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
j = json.load(open(d + "/run.json"))
h = hashlib.sha256(open(d + "/experiment.lua", "rb").read()).hexdigest()
j["experiment"]["sha256"] = h
j["sources"]["experiment"]["sha256"] = h
json.dump(j, open(d + "/run.json", "w"))
PY
"$BB" run --repeat "$T/evil" --quiet >"$T/o" 2>"$T/e"; rc=$?
check '[ "$rc" -eq 2 ] && [ ! -e "$T/pwned" ] && grep -q "os.execute" "$T/e"' "the sandbox loads a stored text: rc=$rc $(cat "$T/e")"

if [ "$have_db" -eq 1 ]; then
    id=$(jget "$A/run.json" run_id)
    check '[ "$(sqlite3 "$T/r.sqlite" "SELECT name FROM run_files WHERE run = '"'$id'"' ORDER BY name" | grep -v source.diff | tr "\n" " ")" = "experiment.lua models/tiny.lua " ]' \
        "the database keeps the texts: $(sqlite3 "$T/r.sqlite" "SELECT run, name FROM run_files" 2>&1)"
    "$BB" db export --db "$T/r.sqlite" "$id" "$T/exp" 2>"$T/e"; rc=$?
    check '[ "$rc" -eq 0 ] && cmp -s "$A/experiment.lua" "$T/exp/experiment.lua" && cmp -s "$A/models/tiny.lua" "$T/exp/models/tiny.lua"' \
        "db export gives the texts back: rc=$rc $(cat "$T/e")"
    BITBENCH_MODELS=/nonexistent "$BB" run --repeat "$T/exp" --quiet --dry-run >"$T/o" 2>"$T/e"; rc=$?
    check '[ "$rc" -eq 0 ] && grep -q "points" "$T/o"' "an exported run can be repeated: rc=$rc $(cat "$T/e")"
    # a text changed inside the database is refused on the way out
    cp "$T/r.sqlite" "$T/bad.sqlite"
    sqlite3 "$T/bad.sqlite" "UPDATE run_files SET text = text || '-- x' WHERE name = 'experiment.lua'"
    "$BB" db export --db "$T/bad.sqlite" "$id" "$T/exp2" 2>"$T/e"; rc=$?
    check '[ "$rc" -ne 0 ] && grep -q "does not match its stored sha256" "$T/e"' "a changed stored text: rc=$rc $(cat "$T/e")"
    # schema 7 (before cpu_model and run_files) is brought up to 8, its rows kept
    cp "$T/r.sqlite" "$T/v7.sqlite"
    if sqlite3 "$T/v7.sqlite" "ALTER TABLE points DROP COLUMN cpu_model; ALTER TABLE e2e_points DROP COLUMN cpu_model; DROP TABLE run_files; UPDATE schema_version SET version = 7;" 2>/dev/null; then
        # a command that only reads (db list, db export, report, compare) reads it as it is, in a
        # copy in memory, even read-only, and leaves the file unchanged: it may be someone else's
        sum7=$(cksum <"$T/v7.sqlite"); chmod a-w "$T/v7.sqlite"
        "$BB" db list --db "$T/v7.sqlite" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && grep -q "$id" "$T/o" && [ "$(cksum <"$T/v7.sqlite")" = "$sum7" ]' \
            "db list reads schema 7 without changing it: rc=$rc $(cat "$T/e")"
        "$BB" report "$T/v7.sqlite" -o "$T/v7.html" >/dev/null 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && [ -s "$T/v7.html" ] && [ "$(cksum <"$T/v7.sqlite")" = "$sum7" ]' \
            "report reads schema 7 without changing it: rc=$rc $(cat "$T/e")"
        "$BB" db list --db "$T/missing.sqlite" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -ne 0 ] && [ ! -e "$T/missing.sqlite" ] && grep -q "missing.sqlite" "$T/e"' \
            "db list of a missing file refuses and creates nothing: rc=$rc $(cat "$T/e")"
        # a command that writes brings it up to 8
        chmod u+w "$T/v7.sqlite"
        "$BB" db import --db "$T/v7.sqlite" "$T/exp" >"$T/o" 2>"$T/e"; rc=$?
        check '[ "$rc" -eq 0 ] && [ "$(sqlite3 "$T/v7.sqlite" "SELECT version FROM schema_version")" = 8 ] &&
               [ "$(sqlite3 "$T/v7.sqlite" "SELECT count(*) FROM points WHERE cpu_model IS NULL")" -gt 0 ] &&
               [ "$(sqlite3 "$T/v7.sqlite" "SELECT count(*) FROM run_files")" -gt 0 ]' "schema 7 migrated by db import: rc=$rc $(cat "$T/e")"
    fi
    check '[ "$(sqlite3 "$T/r.sqlite" "SELECT count(*) FROM points WHERE length(cpu_model) > 0")" = "$(sqlite3 "$T/r.sqlite" "SELECT count(*) FROM points")" ]' \
        "points.cpu_model stored"
else
    echo "test_run_repeat: this bitbench has no SQLite: the database checks are skipped"
fi

echo "test_run_repeat: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
