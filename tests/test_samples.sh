#!/bin/sh
# Raw samples (harness/samples.h): samples.csv holds one row per timed call of every kernel point,
# as many as results.csv's reps and with a median equal to its t_median_s; e2e_samples.csv one row
# per repetition and phase of every end-to-end point; the run id of run.json is in every row; and
# --resume keeps exactly the samples of the rows results.csv has (a point cut short by a kill
# leaves samples without a row: they are dropped and the point's samples written once).
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_samples_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

cat > "$T/k.lua" <<LUA
bitbench.experiment { name = "smp", out = "$T/res", sweeps = {
  bitbench.sweep { name = "g", kernels = { "i2_s", "q8_0" }, shapes = { { m = 128, k = 256 } }, n = { 1, 2 },
                   threads = { 1 }, warmup = 1, reps = 5, min_seconds = 0, max_reps = 5 } } }
LUA
"$BB" run --quiet "$T/k.lua" >/dev/null 2>"$T/err"; rc=$?
dir=$(ls -d "$T"/res/smp-* | head -1)
check '[ "$rc" -eq 0 ] && [ -f "$dir/samples.csv" ]' "run: rc=$rc $(cat "$T/err")"
check '[ "$(head -1 "$dir/samples.csv")" = "run_id,experiment,sweep,point,kernel,variant,m,k,n,threads,cache,rep,seconds" ]' \
    "samples.csv header: $(head -1 "$dir/samples.csv")"
check '[ "$(wc -l < "$dir/samples.csv")" -eq 21 ]' "want 4 points x 5 reps: $(wc -l < "$dir/samples.csv") lines"
id=$(sed -n 's/.*"run_id": "\([^"]*\)".*/\1/p' "$dir/run.json")
check '[ -n "$id" ] && [ -z "$(awk -F, -v id="$id" "NR > 1 && \$1 != id" "$dir/samples.csv")" ]' "run id $id in every sample"
# the median of each point's samples is its row's t_median_s (5 samples: the third smallest)
for p in 1 2 3 4; do
    med=$(awk -F, -v p=$p 'NR > 1 && $4 == p { print $13 }' "$dir/samples.csv" | sort -g | sed -n 3p)
    row=$(awk -F, -v p=$p 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "t_median_s") c = i } NR > 1 && $3 == p { print $c }' "$dir/results.csv")
    check 'awk -v a="$med" -v b="$row" "BEGIN { exit !(a == b && a > 0) }"' "point $p: median of samples $med, row $row"
    reps=$(awk -F, -v p=$p 'NR > 1 && $4 == p' "$dir/samples.csv" | cut -d, -f12 | tr '\n' ' ')
    check '[ "$reps" = "0 1 2 3 4 " ]' "point $p: reps $reps"
done

# --resume after a kill between a point's samples and its row: the last row is gone, its samples
# stay (and a half-written sample line); the resumed run writes that point's samples once
sed -i '$d' "$dir/results.csv"
printf '%s,smp,g,4,q8_0,x,1' "$id" >> "$dir/samples.csv"
sed -i 's/"status": "complete"/"status": "incomplete"/' "$dir/run.json"
"$BB" run --quiet --resume "$T/k.lua" >/dev/null 2>"$T/err2"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(wc -l < "$dir/samples.csv")" -eq 21 ]' "resume: rc=$rc, $(wc -l < "$dir/samples.csv") lines: $(cat "$T/err2")"
check '[ "$(awk -F, "NR > 1 && \$4 == 4" "$dir/samples.csv" | wc -l)" -eq 5 ]' "resume: point 4 has 5 samples"
check '[ -z "$(awk -F, -v id="$id" "NR > 1 && \$1 != id" "$dir/samples.csv")" ]' "resume keeps the run id"

# end-to-end samples: one row per repetition and phase
mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 256, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
cat > "$T/e.lua" <<LUA
bitbench.experiment { name = "smpe", out = "$T/res", sweeps = {
  bitbench.sweep { models = { "tiny" }, kernels = { "i2_s" }, threads = { 1 }, prompt = { 8 }, gen = { 4 }, reps = 3 } } }
LUA
BITBENCH_MODELS="$T/models" "$BB" run --quiet "$T/e.lua" >/dev/null 2>"$T/err3"; rc=$?
edir=$(ls -d "$T"/res/smpe-* | head -1)
es="$edir/e2e_samples.csv"
check '[ "$rc" -eq 0 ] && [ "$(head -1 "$es")" = "run_id,experiment,sweep,point,model,kernel,variant,threads,prompt,gen,phase,rep,tokens,seconds,depth,kv_type_k,kv_type_v" ]' \
    "e2e samples: rc=$rc $(cat "$T/err3") $(head -1 "$es" 2>&1)"
check '[ "$(awk -F, "NR > 1 && \$11 == \"pp\" && \$13 == 8 && \$14 > 0" "$es" | wc -l)" -eq 3 ]' "3 prefill samples: $(cat "$es")"
check '[ "$(awk -F, "NR > 1 && \$11 == \"tg\" && \$13 == 4 && \$14 > 0" "$es" | wc -l)" -eq 3 ]' "3 generation samples"
# the median tg sample is the row's tg_tps
tgm=$(awk -F, 'NR > 1 && $11 == "tg" { print $13 / $14 }' "$es" | sort -g | sed -n 2p)
tgr=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "tg_tps") c = i } NR == 2 { print $c }' "$edir/e2e.csv")
check 'awk -v a="$tgm" -v b="$tgr" "BEGIN { exit !(a > 0 && (a - b) / b < 1e-4 && (b - a) / b < 1e-4) }"' "median tg $tgm vs tg_tps $tgr"

# A run whose disk filled before its headers were written (results.csv, samples.csv zero bytes, a
# header cut short) resumes as one with no rows yet, and measures every point (issue 29); files of
# someone else's named like the old fixed temporaries (run.json.tmp, samples.csv.tmp) are left alone.
: > "$dir/results.csv"; : > "$dir/samples.csv"
sed -i 's/"status": "complete"/"status": "incomplete"/' "$dir/run.json"
echo mine > "$dir/run.json.tmp"; echo mine > "$dir/samples.csv.tmp"
"$BB" run --quiet --resume "$T/k.lua" >/dev/null 2>"$T/err3"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(wc -l < "$dir/results.csv")" -eq 5 ] && [ "$(wc -l < "$dir/samples.csv")" -eq 21 ]' \
    "resume of zero-byte tables: rc=$rc, $(wc -l < "$dir/results.csv") rows: $(cat "$T/err3")"
check '[ "$(cat "$dir/run.json.tmp")" = mine ] && [ "$(cat "$dir/samples.csv.tmp")" = mine ]' \
    "a run clobbered a file named like its old temporary: $(ls -A "$dir")"
printf 'sweep,poi' > "$dir/results.csv"; : > "$dir/samples.csv"
sed -i 's/"status": "complete"/"status": "incomplete"/' "$dir/run.json"
"$BB" run --quiet --resume "$T/k.lua" >/dev/null 2>"$T/err4"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(wc -l < "$dir/results.csv")" -eq 5 ]' \
    "resume of a header cut short: rc=$rc, $(wc -l < "$dir/results.csv") lines: $(cat "$T/err4")"

# A resumed run checks the files it replaces before measuring: a FIFO in results.md's place is one
# line, at once (it blocked the run at its end); --db that is not a regular file likewise.
sed -i 's/"status": "complete"/"status": "incomplete"/' "$dir/run.json"
rm -f "$dir/results.md"; mkfifo "$dir/results.md"
timeout 10 "$BB" run --quiet --resume "$T/k.lua" >/dev/null 2>"$T/err5"; rc=$?
check '[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$(wc -l < "$T/err5")" -eq 1 ] && grep -q "results.md: is a FIFO" "$T/err5" && [ -p "$dir/results.md" ]' \
    "resume with a FIFO as results.md: rc=$rc $(cat "$T/err5")"
rm -f "$dir/results.md"
timeout 10 "$BB" run --quiet --db /dev/null "$T/k.lua" >/dev/null 2>"$T/err6"; rc=$?
check '[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/err6")" -eq 1 ] && grep -q "^bitbench run: --db: /dev/null: is a character device" "$T/err6" &&
       [ -c /dev/null ]' "run --db /dev/null: rc=$rc $(cat "$T/err6")"

echo "test_samples: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
