#!/bin/sh
# bitbench slurm with hostile values (issue 29), without a Slurm: fake `sbatch` and `srun` on PATH
# record their arguments and run the job scripts as Slurm would (each array task with its
# SLURM_ARRAY_TASK_ID, in the #SBATCH --chdir folder, output into the #SBATCH --output file).
#  - A value with a newline or another control character, in any field (--out, the experiment
#    path, --partition, --account, --constraint, --time, a run option), is refused with one line
#    naming it, exit 2, and no script is written; so are blanks, quotes, backslashes, '#' and '%'
#    in the values that go into #SBATCH lines, and an --out longer than a script's path may be.
#  - A job whose values hold $(...), backquotes, ';', '&', '|', glob characters and non-ASCII
#    (and, in the experiment's path, blanks, quotes, backslashes and bytes that are not UTF-8
#    too) is written, submitted
#    with --submit and by its submit.sh, runs every shard (the SHA-256 pin passes for such a path,
#    and still refuses an edited file) and merges them, and no injected command ever runs: no
#    CANARY file appears anywhere.
# $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
BB=$(cd "$(dirname "$BB")" && pwd)/$(basename "$BB")
T=$(mktemp -d /tmp/bb_slurm_hostile_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
canaries() { find "$T" -name 'CANARY*' -type f | wc -l; }
NL='
'

# The fake Slurm: argv logged one argument per line in brackets, job ids from 101 on.
mkdir -p "$T/bin"
cat > "$T/bin/sbatch" <<'EOF'
#!/bin/sh
{ echo "sbatch:"; for a in "$@"; do printf '  [%s]\n' "$a"; done; } >> "$FAKE_LOG"
[ -n "${FAKE_SBATCH_FAIL:-}" ] && { echo "sbatch: error: the cluster is down" >&2; exit 1; }
for script in "$@"; do :; done
case $script in /*) ;; *) script=$PWD/$script ;; esac
n=$(cat "$FAKE_IDS" 2> /dev/null || echo 100); n=$((n + 1)); echo "$n" > "$FAKE_IDS"
chdir=$(sed -n 's/^#SBATCH --chdir=//p' "$script")
output=$(sed -n 's/^#SBATCH --output=//p' "$script")
last=$(sed -n 's/^#SBATCH --array=0-//p' "$script")
if [ -n "$last" ]; then
    i=0
    while [ "$i" -le "$last" ]; do
        log=$(printf '%s' "$output" | sed "s/%a/$i/")
        (cd "$chdir" && SLURM_ARRAY_TASK_ID=$i bash "$script") > "$log" 2>&1
        echo "job $n task $i: exit $?" >> "$FAKE_LOG"
        i=$((i + 1))
    done
else
    (cd "$chdir" && bash "$script") > "$output" 2>&1
    echo "job $n: exit $?" >> "$FAKE_LOG"
fi
echo "$n;bbtest"
EOF
# The scripts do not use srun today; should they, the command runs here as it would in a job.
cat > "$T/bin/srun" <<'EOF'
#!/bin/sh
{ echo "srun:"; for a in "$@"; do printf '  [%s]\n' "$a"; done; } >> "$FAKE_LOG"
exec "$@"
EOF
chmod +x "$T/bin/sbatch" "$T/bin/srun"
PATH="$T/bin:$PATH"; FAKE_LOG="$T/fake.log"; FAKE_IDS="$T/ids"; export PATH FAKE_LOG FAKE_IDS

mkdir -p "$T/models"
BITBENCH_MODELS="$T/models"; export BITBENCH_MODELS
cat > "$T/exp.lua" <<'LUA'
bitbench.experiment {
  name = "hostile",
  sweeps = {
    bitbench.sweep { name = "k", kernels = { "i2_s", "f32" }, shapes = { {128, 256} }, n = { 1, 2 },
                     threads = 1, warmup = 0, reps = 2, min_seconds = 0 },
  },
}
LUA

# Refusals: one line naming the option, exit 2, nothing written, nothing run.
refused() { # $1 the option or field named in the error, then the bitbench slurm arguments
    what="$1"; shift
    rm -rf "$T/refused"
    err=$(cd "$T" && "$BB" slurm "$@" 2>&1 > /dev/null); rc=$?
    lines=$(printf '%s\n' "$err" | wc -l)
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && printf '%s' "$err" | grep -q -- "^bitbench slurm: $what '" &&
       [ ! -e "$T/refused/submit.sh" ] && [ "$(canaries)" -eq 0 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL: bitbench slurm $* -> rc=$rc, $lines lines: $err (wanted exit 2, one line naming $what)"
    fi
}
inject="x${NL}touch CANARY"
for opt in --partition --account --time --constraint; do
    refused "$opt" "$T/exp.lua" --shards 2 --out "$T/refused" "$opt" "$inject"
    refused "$opt" "$T/exp.lua" --shards 2 --out "$T/refused" "$opt" "x$(printf '\r')"
    refused "$opt" "$T/exp.lua" --shards 2 --out "$T/refused" "$opt" 'x $(touch CANARY)'
    refused "$opt" "$T/exp.lua" --shards 2 --out "$T/refused" "$opt" "x'y"
    refused "$opt" "$T/exp.lua" --shards 2 --out "$T/refused" "$opt" 'x\y'
    refused "$opt" "$T/exp.lua" --shards 2 --out "$T/refused" "$opt" 'x#y'
done
refused --out "$T/exp.lua" --shards 2 --out "$T/refused/$inject"
refused --out "$T/exp.lua" --shards 2 --out "$T/refused/a b"
refused --out "$T/exp.lua" --shards 2 --out "$T/refused/a%jb"
# longer than a script's path may be: refused, not cut short into another folder
refused --out "$T/exp.lua" --shards 2 --out "$T/refused/$(printf 'a/%.0s' $(seq 1 600))"
refused --only "$T/exp.lua" --shards 2 --out "$T/refused" --only "i2_s${NL}touch CANARY"
refused --meters "$T/exp.lua" --shards 2 --out "$T/refused" --meters "$(printf 'timer\033[2J')"
refused --peer "$T/exp.lua" --shards 2 --out "$T/refused" --peer "llama.cpp=/opt/x${NL}touch CANARY"
refused --peer "$T/exp.lua" --shards 2 --out "$T/refused" --peer "/opt/llama-bench"
refused --peer "$T/exp.lua" --shards 2 --out "$T/refused" --peer "sh=/bin/sh"
mkdir -p "$T/nl${NL}touch CANARY"
cp "$T/exp.lua" "$T/nl${NL}touch CANARY/exp.lua"
refused "the experiment path" "$T/nl${NL}touch CANARY/exp.lua" --shards 2 --out "$T/refused"
check '[ ! -e "$T/nl${NL}touch CANARY/slurm" ] && [ ! -e "$T/refused" ]' "a refusal makes no folder"

# A clean job with odd values.  The experiment's path may hold anything but control characters;
# the working directory and --out go into #SBATCH lines, so they hold no blanks, quotes,
# backslashes, '#' or '%', but $(...), backquotes, ';', '&', '|', globs and non-ASCII.
odd="$T/-odd dir 'q' \"dq\" \$HOME \\back ü$(printf '\377\376');&|*?[a] \$(touch CANARY) \`touch CANARY\`"
mkdir -p "$odd"
E="$odd/-exp \$(touch CANARY) 'x'.lua"
cp "$T/exp.lua" "$E"
work="$T/w\$(touch\${IFS}CANARY)\`touch\${IFS}CANARY\`;ü&|*?[a]"
mkdir -p "$work"
out='o$(touch${IFS}CANARY)`touch${IFS}CANARY`;ü&|*?[a]'
(cd "$work" && "$BB" slurm "$E" --shards 2 --out "$out" --submit --partition 'p;touch${IFS}CANARY' \
     --account '$(touch${IFS}CANARY)' --time '1:00|touch${IFS}CANARY' \
     --constraint 'a&b|$(touch${IFS}CANARY)' --constraint '`touch${IFS}CANARY`*?[' --only i2_s \
     --peer 'llama.cpp=/opt/l b/$(touch${IFS}CANARY)/llama-bench' --allow-missing-peers) \
    > "$T/odd.out" 2>&1; rc=$?
dir="$work/$out"
check '[ $rc -eq 0 ]' "bitbench slurm --submit of the odd job: exit $rc: $(cat "$T/odd.out")"
check '[ "$(canaries)" -eq 0 ]' "no injected command ran: $(find "$T" -name 'CANARY*' -type f)"
check 'grep -q "^array job 101: array-a_b___touch__IFS_CANARY_.sbatch, shards 0-1" "$T/odd.out" && grep -qF "merge job 103: merge.sbatch, into $dir/merged" "$T/odd.out"' \
    "the job ids and scripts are printed: $(cat "$T/odd.out")"
check 'grep -qx "  \[--dependency=afterany:101:102\]" "$FAKE_LOG"' "the merge job depends on both arrays: $(cat "$FAKE_LOG")"
check '[ "$(grep -c "task [01]: exit 0" "$FAKE_LOG")" -eq 4 ] && grep -q "job 103: exit 0" "$FAKE_LOG"' \
    "every task and the merge succeeded: $(cat "$FAKE_LOG") $(cat "$dir"/logs/* 2> /dev/null)"
check 'grep -q "\"status\": \"complete\"" "$dir/merged/run.json" && [ "$(grep -c "^hostile" "$dir/merged/results.csv")" -eq 4 ]' \
    "the merged run is complete, with both node types' points: $(cat "$dir"/logs/* 2> /dev/null)"
check 'grep -qx "#SBATCH --partition=p;touch\${IFS}CANARY" "$dir/merge.sbatch"' "--partition reaches sbatch as it was given"
check '[ -z "$(grep "srun:" "$FAKE_LOG")" ]' "the scripts do not use srun"
peer_words="'--peer' 'llama.cpp=/opt/l b/\$(touch\${IFS}CANARY)/llama-bench' '--allow-missing-peers'"
check 'grep -qF -- "$peer_words" "$dir/array-a_b___touch__IFS_CANARY_.sbatch"' \
    "--peer and --allow-missing-peers reach every shard as single words: $(grep -h -- "exec" "$dir"/array*.sbatch)"

# submit.sh by hand: the same, through bash
rm -f "$FAKE_LOG"
(cd "$dir" && ./submit.sh) > "$T/submit.out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -qF "merge job 106: merge.sbatch, into $dir/merged" "$T/submit.out" && [ "$(canaries)" -eq 0 ]' \
    "submit.sh of the odd job: exit $rc: $(cat "$T/submit.out") $(find "$T" -name 'CANARY*' -type f)"
check 'grep -q "shard 1/2 is complete already" "$dir/logs/shard-a_b___touch__IFS_CANARY_-1.out"' \
    "a resubmitted task leaves its complete shard alone: $(cat "$dir"/logs/* 2> /dev/null)"

# The pin still refuses an edited file at such a path.
rm -rf "$dir/shards"
echo "-- edited" >> "$E"
(cd "$work" && SLURM_ARRAY_TASK_ID=0 bash "$dir/array-a_b___touch__IFS_CANARY_.sbatch") > "$T/pin.out" 2>&1; rc=$?
check '[ $rc -eq 3 ] && grep -q "exp \$(touch CANARY) .x..lua has changed since the script was written" "$T/pin.out"' \
    "a task refuses an edited experiment: exit $rc: $(cat "$T/pin.out")"

# An experiment file from someone else named with $(...): the scripts go to slurm/NAME, and the
# "submit with:" command printed, run by sh, names that submit.sh as one word and runs nothing.
mkdir -p "$T/named"
cp "$T/exp.lua" "$T/named/x\$(touch\${IFS}CANARY)\`touch\${IFS}CANARY\`.lua"
(cd "$T/named" && "$BB" slurm "x\$(touch\${IFS}CANARY)\`touch\${IFS}CANARY\`.lua" --shards 2) > "$T/named.out" 2>&1; rc=$?
cmd=$(sed -n 's/^submit with: //p' "$T/named.out")
want="$T/named/slurm/x\$(touch\${IFS}CANARY)\`touch\${IFS}CANARY\`/submit.sh"
check '[ $rc -eq 0 ] && [ -x "$want" ] && [ -n "$cmd" ]' "bitbench slurm of a file named with \$(...): exit $rc: $(cat "$T/named.out")"
got=$(cd "$T/named" && eval "set -- $cmd" && [ $# -eq 1 ] && printf '%s' "$1")
check '[ "$got" = "$want" ] && [ "$(canaries)" -eq 0 ]' \
    "the suggested '$cmd' is, read by sh, '$got' (wanted '$want'; canaries: $(find "$T" -name 'CANARY*' -type f))"

# sbatch failing: one line, exit 1
FAKE_SBATCH_FAIL=1 "$BB" slurm "$T/exp.lua" --shards 2 --out "$T/down" --submit > /dev/null 2> "$T/down.err"; rc=$?
check '[ $rc -eq 1 ] && grep -q "^bitbench slurm: sbatch array.sbatch in $T/down failed (exit 1)" "$T/down.err"' \
    "a failing sbatch is named: exit $rc: $(cat "$T/down.err")"
check '[ "$(canaries)" -eq 0 ]' "no injected command ran at all"

echo "slurm_hostile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
