#!/bin/sh
# bitbench slurm against a real Slurm (Debian's slurm-wlm and munge, scripts/bootstrap): munged,
# slurmctld and slurmd are started on this machine with a generated key and slurm.conf (one node,
# localhost, this machine's cores and memory, state in a temporary directory, no accounting), a
# small experiment is submitted with `bitbench slurm --submit` as 3 shards, and the merged run
# must hold exactly the points of an unsharded run.  Then a heterogeneous submission: the node
# has two features, each a --constraint of its own (one array per node type, 2 shards each), and
# the merge holds both groups, each the whole plan, each row naming its host.  Daemons that do
# not start fail the test, with the reason; they are stopped at the end whatever happens.
# $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol sinfo; do
    if ! command -v "$tool" > /dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
        echo "FAIL: $tool is not installed (scripts/bootstrap installs slurm-wlm and munge)"
        exit 1
    fi
done
PATH="$PATH:/usr/sbin"
BB=$(cd "$(dirname "$BB")" && pwd)/$(basename "$BB")

T=$(mktemp -d /tmp/bb_slurm_XXXXXX)
chmod 755 "$T" # munged wants every directory above its socket searchable by all
stop() {
    for pid in "$T/slurmd.pid" "$T/slurmctld.pid" "$T/munge/munged.pid"; do
        [ -s "$pid" ] && kill "$(cat "$pid")" 2> /dev/null
    done
    sleep 1
    rm -rf "$T"
}
trap stop EXIT
trap 'exit 1' INT TERM
why() { # the end of the daemons' logs, to say why they did not work
    for log in "$T/munge/munged.log" "$T/slurmctld.log" "$T/slurmd.log"; do
        [ -f "$log" ] && { echo "--- $log"; tail -n 8 "$log"; }
    done
}

# munge: a fresh key, the socket in the temporary directory
mkdir -p "$T/munge" "$T/state" "$T/spool"
if ! mungekey --create --keyfile="$T/munge/munge.key" --force > "$T/munge/mungekey.log" 2>&1; then
    echo "FAIL: mungekey could not create a key: $(cat "$T/munge/mungekey.log")"; exit 1
fi
chmod 600 "$T/munge/munge.key"
if ! munged --key-file="$T/munge/munge.key" --socket="$T/munge/munge.sock" --pid-file="$T/munge/munged.pid" \
        --log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" > "$T/munge/start.log" 2>&1; then
    echo "FAIL: munged did not start: $(cat "$T/munge/start.log")"; why; exit 1
fi

# slurm.conf: this host as controller and only node, with the hardware slurmd sees
host=$(hostname -s)
node=$(slurmd -C 2> /dev/null | head -n 1)
case "$node" in NodeName=*) ;; *) echo "FAIL: slurmd -C did not describe this machine: '$node'"; exit 1 ;; esac
port=$((20000 + $$ % 10000 * 2))
export SLURM_CONF="$T/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=bbtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
$node NodeAddr=127.0.0.1 Features=typea,typeb State=UNKNOWN
PartitionName=bbtest Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
if ! slurmctld -f "$SLURM_CONF" > "$T/ctld.start" 2>&1; then
    echo "FAIL: slurmctld did not start: $(cat "$T/ctld.start")"; why; exit 1
fi
if ! slurmd -f "$SLURM_CONF" > "$T/d.start" 2>&1; then
    echo "FAIL: slurmd did not start: $(cat "$T/d.start")"; why; exit 1
fi
state=
for _ in $(seq 1 40); do
    state=$(sinfo -h -N -o %T 2> /dev/null | head -n 1)
    [ "$state" = idle ] && break
    sleep 0.5
done
if [ "$state" != idle ]; then
    echo "FAIL: the Slurm node did not become idle within 20 s (state '$state')"; why; exit 1
fi

mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 256, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
BITBENCH_MODELS="$T/models"; export BITBENCH_MODELS # sbatch passes the environment on to the jobs
E="$T/exp.lua"
cat > "$E" <<'LUA'
local smoke = bitbench.size == "smoke"
bitbench.experiment {
  name = "cluster",
  sweeps = {
    bitbench.sweep { name = "k", kernels = { "i2_s", "f32" }, shapes = { {256, 256}, {128, 512} }, n = { 1, 4 },
                     threads = 1, warmup = 0, reps = smoke and 2 or 10, min_seconds = 0 },
    bitbench.sweep { name = "e", models = { "tiny" }, kernels = { "i2_s" }, prompt = 4, gen = 2, threads = 1,
                     reps = 1 },
  },
}
LUA
"$BB" run "$E" --smoke --quiet --out "$T/full" > /dev/null || echo "FAIL: the unsharded run"

# Wait (at most $2 seconds) until the job $1 has left the queue; its state on stdout.
wait_job() {
    t=0
    while [ -n "$(squeue -h -j "$1" 2> /dev/null)" ] && [ "$t" -lt "$2" ]; do sleep 1; t=$((t + 1)); done
    scontrol show job "$1" 2> /dev/null | tr ' ' '\n' | grep '^JobState=' | cut -d= -f2
}
keys() { # the point identities of a table, sorted
    awk -F, 'function col(n) { return (n in c) ? $c[n] : "" }
             NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             { print col("sweep"), col("point"), col("kernel"), col("variant"), col("model"), col("m"), col("k"),
                     col("n"), col("prompt"), col("gen"), col("threads"), col("cache") }' "$@" | sort
}

# one node type, 3 shards
"$BB" slurm "$E" --shards 3 --smoke --time 5 --out "$T/job" --submit > "$T/submit.out" 2>&1; rc=$?
check '[ $rc -eq 0 ]' "bitbench slurm --submit: $(cat "$T/submit.out")"
merge_id=$(awk '/^merge job/ {sub(":", "", $3); print $3}' "$T/submit.out")
check 'grep -q "^array job [0-9]*: array.sbatch, shards 0-2" "$T/submit.out"' "the array job id is printed"
state=$(wait_job "$merge_id" 150)
check '[ "$state" = COMPLETED ]' "the merge job $merge_id ended $state: $(cat "$T"/job/logs/*.out 2> /dev/null)"
check 'grep -q "\"status\": \"complete\"" "$T/job/merged/run.json"' "the merged run is complete"
check '[ "$(keys "$T/job/merged/results.csv")" = "$(keys "$T"/full/*/results.csv)" ]' \
    "merged results.csv has the unsharded run's points"
check '[ "$(keys "$T/job/merged/e2e.csv")" = "$(keys "$T"/full/*/e2e.csv)" ]' "merged e2e.csv has the unsharded run's points"
check '[ "$(ls -d "$T"/job/shards/shard-*/cluster-* | wc -l)" -eq 3 ]' "one run directory per shard"

# a task that fails (its shard directory cannot be made): the merge job still runs (afterany),
# merges the other shards, names the failed one and fails itself
"$BB" slurm "$E" --shards 3 --smoke --out "$T/fail" > /dev/null 2>&1
mkdir -p "$T/fail/shards" && : > "$T/fail/shards/shard-1"
"$T/fail/submit.sh" > "$T/fail.out" 2>&1
merge_id=$(awk '/^merge job/ {sub(":", "", $3); print $3}' "$T/fail.out")
state=$(wait_job "$merge_id" 150)
check '[ "$state" = FAILED ] && grep -q "shard 1/3 is missing" "$T/fail/logs/merge.out"' \
    "a failed task is named by the merge job, which fails ($state): $(cat "$T/fail/logs/merge.out" 2> /dev/null)"
check 'grep -q "\"status\": \"incomplete\"" "$T/fail/merged/run.json" && [ "$(grep -c "^cluster" "$T/fail/merged/results.csv")" -gt 0 ]' \
    "the other shards are merged, incomplete"

# heterogeneous: two node types (here both this node), an array each, one merge of both groups
"$BB" slurm "$E" --shards 2 --smoke --constraint typea --constraint typeb --out "$T/het" --submit \
    > "$T/het.out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && [ "$(grep -c "^array job" "$T/het.out")" -eq 2 ]' "two arrays submitted: $(cat "$T/het.out")"
merge_id=$(awk '/^merge job/ {sub(":", "", $3); print $3}' "$T/het.out")
state=$(wait_job "$merge_id" 150)
check '[ "$state" = COMPLETED ]' "the heterogeneous merge job $merge_id ended $state: $(cat "$T"/het/logs/*.out 2> /dev/null)"
for g in typea typeb; do
    awk -F, -v run="$(grep -h '"run_id"' "$T"/het/shards/"$g"-shard-*/*/run.json | cut -d'"' -f4 | tr '\n' '|')" \
        'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next } index("|" run, "|" $c["run_id"] "|")' \
        "$T/het/merged/results.csv" > "$T/$g.csv"
    check '[ "$(keys "$T/$g.csv")" = "$(keys "$T"/full/*/results.csv)" ]' "group $g has the whole plan's points"
done
check '[ "$(grep -c "\"group\": \"type[ab]\"" "$T/het/merged/run.json")" -eq 4 ]' "run.json has 4 shards in 2 groups"
check '[ "$(keys "$T/het/merged-typea/results.csv")" = "$(keys "$T/typea.csv")" ]' "merged-typea holds group typea's rows"
"$BB" compare "$T/het/merged-typea" "$T/het/merged-typeb" > "$T/compare.md" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "i2_s" "$T/compare.md"' "bitbench compare of the two node types: $(cat "$T/compare.md")"
check 'awk -F, "NR == 1 { for (i = 1; i <= NF; i++) if (\$i == \"host\") h = i; next } \$h != \"$host\" { bad = 1 } END { exit bad || !h }" "$T/het/merged/results.csv"' \
    "every merged row names its host"

echo "slurm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
