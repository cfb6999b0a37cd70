#!/bin/sh
# bitbench run --shard i/n and bitbench merge: the shards of a plan are disjoint and cover it, a
# merge of all of them has exactly the points (kernel and end-to-end) of an unsharded run and
# every table of the shards; missing and unfinished shards are merged and named (exit 1); shards
# of other files, settings, counts or plans, a shard given twice, tables with other columns and
# rows outside their shard's share are refused (exit 2); --resume continues the right shard.
# $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_shard_merge_XXXXXX)
trap 'rm -rf "$T"' EXIT

check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
expect() { # $1 wanted exit status, $2 stderr pattern, then the bitbench arguments
    want="$1"; pattern="$2"; shift 2
    err=$("$BB" "$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq "$want" ] && printf '%s' "$err" | grep -q -- "$pattern"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: bitbench $* -> rc=$rc (wanted $want), stderr: $err (wanted /$pattern/)"; fi
}

mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 256, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
BITBENCH_MODELS="$T/models"; export BITBENCH_MODELS
E="$T/exp.lua"
cat > "$E" <<'LUA'
bitbench.experiment {
  name = "sharded",
  sweeps = {
    bitbench.sweep { name = "k", kernels = { "i2_s", "f32" }, shapes = { {256, 256}, {128, 512} }, n = { 1, 4 },
                     threads = 1, warmup = 0, reps = 2, min_seconds = 0 },
    bitbench.sweep { name = "e", models = { "tiny" }, kernels = { "i2_s", "f32" }, prompt = 4, gen = 2,
                     threads = 1, reps = 1 },
  },
}
LUA

# the shards' points are disjoint and together the plan's (8 kernel points)
for i in 0 1 2; do "$BB" run "$E" --dry-run --shard "$i/3" > "$T/dry$i" || echo "FAIL: dry run of shard $i"; done
ids() { # $1 = 0: the kernel points' ids of the dry runs, 1: the end-to-end points'
    for f in "$T/dry0" "$T/dry1" "$T/dry2"; do
        awk -F'|' -v want="$1" '/^\| e2e point/ { e = 1 } e == want && $2 ~ /^ [0-9]+ $/ { print $2 + 0 }' "$f"
    done | sort -n | tr '\n' ' '
}
ids=$(ids 0)
check '[ "$ids" = "1 2 3 4 5 6 7 8 " ]' "kernel point ids of the 3 shards: '$ids', wanted 1..8 once each"
e2e=$(ids 1)
check '[ "$e2e" = "1 2 " ]' "end-to-end point ids of the 3 shards: '$e2e', wanted 1 2"
check 'grep -q "^shard 1/3: .* plan sha256 [0-9a-f]\{64\}" "$T/dry1"' "dry run names the shard and the plan's hash"
"$BB" run "$E" --dry-run --shard 1/3 > "$T/dry1b"
check 'cmp -s "$T/dry1" "$T/dry1b"' "the split is deterministic"

expect 2 "expected i/n with 0 <= i < n" run "$E" --shard 3/3
expect 2 "expected i/n" run "$E" --shard 1/0
expect 2 "expected i/n" run "$E" --shard x/2
expect 2 "expected i/n" run "$E" --shard -1/2
expect 2 "needs --shard" run "$E" --shard-group zen4
expect 2 "expected 1 to 63 letters" run "$E" --shard 0/2 --shard-group 'a b'
expect 2 "would measure none; use at most 10 shards" run "$E" --shard 11/12

for i in 0 1 2; do "$BB" run "$E" --quiet --shard "$i/3" --out "$T/sh/s$i" > /dev/null || echo "FAIL: shard $i/3"; done
"$BB" run "$E" --quiet --out "$T/full" > /dev/null || echo "FAIL: the unsharded run"
expect 0 "3 shards, 4 tables -> $T/m: complete" merge "$T/sh" -o "$T/m"
keys() { # the point identities of a table, sorted
    awk -F, 'function col(n) { return (n in c) ? $c[n] : "" }
             NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             { print col("sweep"), col("point"), col("kernel"), col("variant"), col("model"), col("m"), col("k"),
                     col("n"), col("prompt"), col("gen"), col("threads"), col("cache") }' "$1" | sort
}
check '[ "$(keys "$T/m/results.csv")" = "$(keys "$T/full"/*/results.csv)" ]' "merged results.csv has the unsharded run's points"
check '[ "$(keys "$T/m/e2e.csv")" = "$(keys "$T/full"/*/e2e.csv)" ]' "merged e2e.csv has the unsharded run's points"
check '[ "$(head -1 "$T/m/results.csv")" = "$(head -1 "$T/full"/*/results.csv)" ]' "merged header is a run's"
check '[ "$(awk -F, "NR > 1 {print \$3}" "$T/m/results.csv" | tr "\n" " ")" = "1 2 3 4 5 6 7 8 " ]' "rows in plan order"
for t in samples.csv e2e_samples.csv; do
    if [ -f "$T/full"/*/"$t" ]; then
        n=$(cat "$T"/sh/s*/*/"$t" | grep -vc '^run_id\|^experiment')
        check '[ "$(($(wc -l < "$T/m/$t") - 1))" -eq "$n" ]' "merged $t has every shard's rows"
    fi
done
check 'grep -q "\"status\": \"complete\"" "$T/m/run.json"' "merged run is complete"
# the stored texts travel with the merge: the experiment and its model config once, byte for byte,
# so that the merged folder is repeated as a single run is
check 'cmp -s "$E" "$T/m/experiment.lua" && cmp -s "$T/models/tiny.lua" "$T/m/models/tiny.lua"' \
    "merged folder's experiment.lua / models/tiny.lua: $(ls -A "$T/m" "$T/m/models" 2>&1 | tr '\n' ' ')"
out=$("$BB" run --repeat "$T/m" --dry-run 2>&1); rc=$?
check '[ "$rc" -eq 0 ]' "run --repeat of the merged folder: rc=$rc: $out"
# a shard whose stored text no longer has its recorded sha256: merged, the texts left out and said why
cp -r "$T/sh" "$T/shx"
s0=$(ls -d "$T/shx/s0"/*/)
printf -- '-- changed\n' >> "$s0/experiment.lua"
expect 0 "complete" merge "$T/shx" -o "$T/mx"
check '[ ! -e "$T/mx/experiment.lua" ] && grep -q "\"sources\": null" "$T/mx/run.json" && grep -q "\"sources_note\": \".*experiment.lua: its sha256 is .* but run.json records" "$T/mx/run.json"' \
    "changed shard text: $(ls -A "$T/mx"; grep -o '"sources_note": "[^"]*"' "$T/mx/run.json")"
rm -rf "$T/shx" "$T/mx"
check '[ "$(grep -c "\"cpu_model\"" "$T/m/run.json")" -eq 4 ]' "run.json has the machine of each of the 3 shards"
check 'grep -q "\"total\": 8" "$T/m/run.json" && grep -q "\"done\": 8" "$T/m/run.json"' "points total/done of the plan"
check 'grep -q "| 2/3 |" "$T/m/results.md"' "results.md lists the shards"
expect 0 "complete" merge "$T/sh/s0" "$T/sh/s1" "$T/sh/s2" -o "$T/m"
expect 0 "3 shards, .* complete" merge "$T/sh" -o "$T/sh/merged"
expect 0 "3 shards, .* complete" merge "$T/sh" -o "$T/sh/merged"
expect 2 "the run directories given are earlier merges" merge "$T/sh/merged" -o "$T/r0"

# writes never destroy (issue 29): a file of someone else's named like the old fixed temporary
# (run.json.tmp) is left alone; a target that is not a folder, or a file in it that is not a
# regular file, is refused in one line before anything is written (a FIFO blocked the merge)
echo mine > "$T/m/run.json.tmp"
expect 0 "complete" merge "$T/sh" -o "$T/m"
check '[ "$(cat "$T/m/run.json.tmp")" = mine ] && [ -z "$(ls -A "$T/m" | grep -v "^\.lock$" | grep "^\.")" ]' \
    "a merge clobbered run.json.tmp or left a temporary file: $(ls -A "$T/m")"
expect 2 "^bitbench merge: -o /dev/null: is not a folder" merge "$T/sh" -o /dev/null
check '[ -c /dev/null ]' "/dev/null is still a character device"
cp "$T/m/run.json" "$T/run.json.before"
rm "$T/m/results.md"; mkfifo "$T/m/results.md"
err=$(timeout 10 "$BB" merge "$T/sh" -o "$T/m" 2>&1 >/dev/null); rc=$?
check '[ "$rc" -eq 2 ] && [ "$(printf "%s\n" "$err" | wc -l)" -eq 1 ] && printf "%s" "$err" | grep -q "results.md: is a FIFO" &&
       [ -p "$T/m/results.md" ] && cmp -s "$T/run.json.before" "$T/m/run.json"' "merge -o with a FIFO as results.md -> rc=$rc: $err"
rm "$T/m/results.md"

# missing and unfinished shards: merged, named, exit 1
expect 1 "shard 2/3 is missing" merge "$T/sh/s0" "$T/sh/s1" -o "$T/m2"
check 'grep -q "\"status\": \"incomplete\"" "$T/m2/run.json" && grep -q "shard 2/3 is missing" "$T/m2/run.json"' \
    "a merge without shard 2 is incomplete and says so"
expect 1 "shard 1/3 of group zen4 is missing" merge "$T/sh" -o "$T/m3" --groups zen4
cp -r "$T/sh/s1" "$T/s1i"
sed -i 's/"status": "complete"/"status": "incomplete"/' "$T/s1i"/*/run.json
expect 1 "shard 1/3 is incomplete" merge "$T/sh/s0" "$T/s1i" "$T/sh/s2" -o "$T/m4"

# refusals: nothing written, exit 2
expect 2 "is given twice" merge "$T/sh" "$T/s1i" -o "$T/r1"
check '[ ! -e "$T/r1/run.json" ]' "a refused merge writes nothing"
"$BB" run "$E" --quiet --shard 0/3 --reps 3 --out "$T/reps" > /dev/null
expect 2 "different settings" merge "$T/reps" "$T/sh/s1" "$T/sh/s2" -o "$T/r2"
"$BB" run "$E" --quiet --shard 0/2 --out "$T/two" > /dev/null
expect 2 "split the plan differently: into 2 and 3" merge "$T/two" "$T/sh/s1" "$T/sh/s2" -o "$T/r3"
cp "$E" "$T/exp2.lua"; echo "-- edited" >> "$T/exp2.lua"
"$BB" run "$T/exp2.lua" --quiet --shard 0/3 --out "$T/edit" > /dev/null
expect 2 "different experiment files (sha256)" merge "$T/edit" "$T/sh/s1" "$T/sh/s2" -o "$T/r4"
cp -r "$T/sh/s2" "$T/s2c"
sed -i '1s/gops/gopz/' "$T/s2c"/*/results.csv
expect 2 "have different columns" merge "$T/sh/s0" "$T/sh/s1" "$T/s2c" -o "$T/r5"
cp -r "$T/sh/s2" "$T/s2r"
tail -1 "$T"/sh/s1/*/results.csv >> "$(echo "$T"/s2r/*/results.csv)"
expect 2 "is not one of the kernel points of this shard's share" merge "$T/sh/s0" "$T/sh/s1" "$T/s2r" -o "$T/r6"
expect 2 "is not a shard" merge "$T/full" -o "$T/r7"
expect 2 "no run directory" merge "$T/models" -o "$T/r8"
expect 2 "holds a run that is not a merge" merge "$T/sh" -o "$(echo "$T"/full/*)"

# --resume per shard: shards 0/2 and 1/2 in one results directory; the unfinished one is resumed
"$BB" run "$E" --quiet --shard 1/2 --out "$T/res" > /dev/null
"$BB" run "$E" --quiet --shard 0/2 --out "$T/res" > /dev/null
d1=$(grep -l '"index": 1' "$T"/res/*/run.json | xargs dirname)
rows=$(wc -l < "$d1/results.csv")
sed -i '$d' "$d1/results.csv"
sed -i 's/"status": "complete"/"status": "incomplete"/' "$d1/run.json"
expect 1 "is complete; nothing to resume" run "$E" --quiet --resume --shard 0/2 --out "$T/res"
expect 1 "no run of experiment 'sharded'" run "$E" --quiet --resume --out "$T/res"
expect 1 "no run of shard 1/3" run "$E" --quiet --resume --shard 1/3 --out "$T/res"
check '"$BB" run "$E" --quiet --resume --shard 1/2 --out "$T/res" > /dev/null && [ "$(wc -l < "$d1/results.csv")" -eq "$rows" ] && grep -q "\"status\": \"complete\"" "$d1/run.json"' \
    "the resumed shard measured its missing point and is complete"
check '[ "$(ls "$T/res" | wc -l)" -eq 2 ]' "resuming made no new run directory"

# bitbench slurm writes the scripts (no Slurm needed here; tests/test_slurm.sh submits them)
expect 2 "how many shards" slurm "$E"
expect 2 "expected any or ok" slurm "$E" --shards 2 --merge-after some
expect 2 "same group name 'a_b'" slurm "$E" --shards 2 --constraint 'a&b' --constraint 'a|b'
printf 'bitbench.experiment {\n  sweeps = {\n    { kernels = "i2_s" shapes = {} },\n  },\n}\n' > "$T/bad.lua"
expect 2 "does not run as a shard (above); no scripts written" slurm "$T/bad.lua" --shards 2 --out "$T/slbad"
check '[ ! -e "$T/slbad/array.sbatch" ]' "no scripts for a bad file"
cp "$E" "$T/cl.lua"
"$BB" slurm "$T/cl.lua" --shards 2 --out "$T/sl" --partition p1 --time 10 --account acc --cpus-per-task 3 \
    --reps 2 > "$T/sl.out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "submit with: $T/sl/submit.sh" "$T/sl.out"' "bitbench slurm writes the scripts"
for line in "--array=0-1" "--nodes=1" "--exclusive" "--cpus-per-task=3" "--hint=nomultithread" "--partition=p1" \
            "--account=acc" "--time=10" "--output=$T/sl/logs/shard-%a.out"; do
    check 'grep -qx -- "#SBATCH $line" "$T/sl/array.sbatch"' "array.sbatch has #SBATCH $line"
done
check 'grep -q "pin \"\$bitbench\" '"'"'$(sha256sum "$BB" | cut -d" " -f1)'"'"'" "$T/sl/array.sbatch"' "the binary is pinned"
check 'grep -q "pin \"\$experiment\" '"'"'$(sha256sum "$T/cl.lua" | cut -d" " -f1)'"'"'" "$T/sl/array.sbatch"' "the file is pinned"
check 'grep -q -- "\"--dependency=afterany\$after\" merge.sbatch" "$T/sl/submit.sh"' "the merge job runs after any end"
for i in 0 1; do SLURM_ARRAY_TASK_ID=$i bash "$T/sl/array.sbatch" > /dev/null 2>&1 || echo "FAIL: array task $i by hand"; done
check 'bash "$T/sl/merge.sbatch" 2>&1 | grep -q "2 shards, .* complete"' "the array and merge scripts run as Slurm would"
check '[ "$(keys "$T/sl/merged/results.csv")" = "$(keys "$T/full"/*/results.csv)" ]' "their merge has the plan's points"
check 'SLURM_ARRAY_TASK_ID=1 bash "$T/sl/array.sbatch" | grep -q "shard 1/2 is complete already"' \
    "a task of a complete shard leaves it alone"
echo "-- edited" >> "$T/cl.lua"
SLURM_ARRAY_TASK_ID=0 bash "$T/sl/array.sbatch" > "$T/pin.out" 2>&1; rc=$?
check '[ $rc -eq 3 ] && grep -q "cl.lua has changed since the script was written" "$T/pin.out"' \
    "a task refuses an edited experiment: $(cat "$T/pin.out")"
"$BB" slurm "$E" --shards 2 --out "$T/sl2" --constraint 'a&b' --constraint c --merge-after ok > /dev/null 2>&1
check '[ -f "$T/sl2/array-a_b.sbatch" ] && grep -qx "#SBATCH --constraint=a&b" "$T/sl2/array-a_b.sbatch"' \
    "one array per node type, with its constraint"
check 'grep -qx "group='"'c'"'" "$T/sl2/array-c.sbatch" && grep -q -- "--shard-group \"\$group\" " "$T/sl2/array-c.sbatch" && grep -qx "groups='"'a_b,c'"'" "$T/sl2/merge.sbatch"' \
    "the group of each array, all groups in the merge"
check 'grep -q -- "--dependency=afterok" "$T/sl2/submit.sh"' "--merge-after ok"

echo "shard_merge: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
