#!/bin/sh
# Build the seed corpora and run the libFuzzer targets (README "Fuzzing").
#
#   tests/fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...]
#
# BUILD_DIR is a build configured with -DCMAKE_C_COMPILER=clang -DBITBENCH_FUZZ=ON whose
# fuzz_targets are built (scripts/test's fuzz stage does both).  Each target (all of them by
# default; names as in tests/fuzz/fuzz_<name>.c) runs for SECONDS (default 60) under ASan+UBSan
# with a max_len chosen for its inputs, starting from:
#   BUILD_DIR/fuzz/seeds/<target>     made here from the real files of the tree and $BITBENCH_SHARED_DIR
#                                     (models, tokenizers, GGUF goldens, experiments, model configs,
#                                     the reference runs' results.csv/e2e.csv/run.json, the recorded
#                                     PCM outputs, a Slurm job's values), cut or wrapped as the
#                                     target's input layout says;
#   tests/fuzz/regressions/<target>   small inputs kept in the tree (crashes found once, refusals);
#   BUILD_DIR/fuzz/corpus/<target>    what earlier runs found, kept between runs.
# A crash, leak, timeout (10 s per input) or out-of-memory (2 GiB) fails the script and prints
# the input's path, to be copied into tests/fuzz/regressions/<target>/ once fixed.  A summary
# line per target gives its executions and executions per second.
# BITBENCH_SHARED_DIR is the test data directory (docs/getting-started.md); unset, the folder shared beside the tree.
set -eu

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [SECONDS] [TARGET...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
seconds=${2:-60}
[ $# -ge 2 ] && shift 2 || shift 1
src=$(cd "$(dirname "$0")/../.." && pwd)
shared=${BITBENCH_SHARED_DIR:-$src/../shared}
bin=$build/tests/fuzz
work=$build/fuzz

all="llama2c tokenizer gguf lua_experiment model_config results_csv json pcm_memory pcm_power gnuplot_script slurm_script html_escape shell_word roof_ceilings run_folder term_text peer_output"
targets=${*:-$all}
for t in $targets; do
  if [ ! -x "$bin/fuzz_$t" ]; then
    echo "run.sh: $bin/fuzz_$t is missing: configure $1 with -DCMAKE_C_COMPILER=clang -DBITBENCH_FUZZ=ON" \
         "and build it with --target fuzz_targets (targets: $all)" >&2
    exit 2
  fi
done

# max_len per target: above the largest seed that matters, small enough to keep executions fast.
max_len() {
  case $1 in
    gguf) echo 32768 ;;
    tokenizer|llama2c|results_csv|json|pcm_memory|pcm_power) echo 16384 ;;
    *) echo 8192 ;;
  esac
}

# Copy file to dir/name with the given bytes (printf format) in front and at most max bytes.
seed() { # dir name prefix file max
  [ -f "$4" ] || return 0
  { printf "$3"; head -c "$5" "$4"; } > "$1/$2"
}

make_seeds() { # target dir
  d=$2
  rm -rf "$d"
  mkdir -p "$d"
  case $1 in
    llama2c)
      seed "$d" stories260K-head "" "$shared/models/stories260K/stories260K.bin" 4096 ;;
    tokenizer)
      # u16 vocab (512 = 00 02), flags (1: BOS/EOS), text length, text, then the file.
      seed "$d" tok512 '\000\002\001\020Once upon a time' "$shared/models/stories260K/tok512.bin" 16384
      seed "$d" tok512-bytes '\000\002\003\016\303\251\342\226\201 <0x41>\n\t' "$shared/models/stories260K/tok512.bin" 16384 ;;
    gguf)
      for f in "$shared"/golden/gguf/*/*.gguf; do seed "$d" "$(basename "$f")" "" "$f" 32768; done ;;
    lua_experiment)
      # A size byte (0 smoke, 1 default, 2 full), then the file.
      for f in "$src"/experiments/*.lua; do seed "$d" "$(basename "$f")" '\000' "$f" 8192; done ;;
    model_config)
      for f in "$src"/models/*.lua; do seed "$d" "$(basename "$f")" "" "$f" 8192; done ;;
    results_csv)
      # A mode byte: 0 lenient load, 1 truncating load, 2 results.csv rows, 3 e2e.csv rows.
      i=0
      for f in "$src"/results/reference/*/results.csv "$src"/tests/data/plot_results/results.csv; do
        i=$((i + 1))
        seed "$d" "results-$i-lenient" '\000' "$f" 16384
        seed "$d" "results-$i-rows" '\002' "$f" 16384
      done
      for f in "$src"/results/reference/*/e2e.csv "$src"/tests/data/plot_results/e2e_fixture.csv; do
        i=$((i + 1))
        seed "$d" "e2e-$i-truncate" '\001' "$f" 16384
        seed "$d" "e2e-$i-rows" '\003' "$f" 16384
      done ;;
    json)
      i=0
      for f in "$src"/results/reference/*/run.json "$src"/results/reference/*/machine-profile.json \
               "$src"/tests/data/plot_results/*.json "$src"/tests/data/peers/*.json; do
        i=$((i + 1))
        seed "$d" "$i-$(basename "$f")" "" "$f" 16384
      done ;;
    peer_output)
      # A reader byte (fuzz_peer_output.c): 0 llama-bench's JSON, 1 llama-batched-bench's JSONL.
      for f in "$src"/tests/data/peers/*.json; do seed "$d" "bench-$(basename "$f")" '\000' "$f" 16384; done
      for f in "$src"/tests/fuzz/regressions/peer_output/batched-*; do seed "$d" "$(basename "$f")" "" "$f" 4096; done ;;
    gnuplot_script)
      # Fields split at NUL bytes (fuzz_gnuplot_script.c): ttl, bars, y1, a path, a data label --
      # here a title with a reference run's cpu_model and its first kernel name.
      i=0
      for f in "$src"/results/reference/*/run.json "$src"/tests/data/plot_results/run.json; do
        [ -f "$f" ] || continue
        i=$((i + 1))
        cpu=$(sed -n 's/.*"cpu_model": "\(.*\)",*$/\1/p' "$f" | head -n 1)
        kernel=$(awk -F, 'NR == 2 { print $4 }' "$(dirname "$f")/results.csv" 2>/dev/null) || kernel=""  # a run with no results.csv (set -e)
        printf 'Roofline: %s, 2026-01-01\000bars: interquartile range of the calls\000throughput (GOP/s)\000%s\000%s 1024x1024x1\000' \
          "$cpu" "$src/scripts/roofline.gp" "$kernel" > "$d/run-$i"
      done ;;
    html_escape)
      # A mode byte (fuzz_html_escape.c): 0 text (a reference run.json), 1 markdown (results.md),
      # 2 an SVG of gnuplot's (the reference plots).
      i=0
      for f in "$src"/results/reference/*/run.json; do i=$((i + 1)); seed "$d" "text-$i" '\000' "$f" 8192; done
      for f in "$src"/results/reference/*/results.md; do i=$((i + 1)); seed "$d" "md-$i" '\001' "$f" 8192; done
      for f in "$src"/plots/reference/*/*.svg; do i=$((i + 1)); seed "$d" "svg-$i" '\002' "$f" 8192; done ;;
    pcm_memory)
      seed "$d" pcm_memory_sample.csv "" "$src/tests/data/pcm_memory_sample.csv" 16384 ;;
    pcm_power)
      seed "$d" pcm_power_sample.txt "" "$src/tests/data/pcm_power_sample.txt" 16384
      # The relay's form: each line stamped "SECONDS.NANOSECONDS<TAB>" (pcm_sidecar.h).
      if [ -f "$src/tests/data/pcm_power_sample.txt" ]; then
        awk '{ printf "%d.%09d\t%s\n", 1763750000 + int(NR / 10), (NR % 10) * 100000000, $0 }' \
            "$src/tests/data/pcm_power_sample.txt" > "$d/pcm_power_stamped.txt"
      fi ;;
    shell_word)
      # A mode byte (fuzz_shell_word.c: 0 word, 1 quoted, 2 path), then a path a run could have.
      printf '\000/home/me/results/shared-20261128-141500' > "$d/word-plain"
      printf '\002-results/$(date)/shared-20261128-141500' > "$d/path-dash" ;;
    roof_ceilings|run_folder|term_text)
      ;; # their tests/fuzz/regressions/ inputs are the seeds
    slurm_script)
      # The layout of fuzz_slurm_script.c: flags (partition, account, time, 2 constraints), 1 run
      # option, 3 shards, 8 cpus; then the fields at NUL bytes: the values of a real cluster job.
      sha=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
      printf '\047\001\002\007%s\000%s\000%s\000%s\000%s\000%s\000%s\000%s\000%s\000%s\000%s\000%s\000%s' \
        /opt/bitbench/build/bitbench /home/me/bitbench/experiments/kernels.lua /home/me/slurm/kernels \
        /home/me/bitbench kernels batch proj 2:00:00 "bitbench slurm kernels.lua --shards 3" "$sha" \
        'icelake&avx512' 'zen4|zen5' --smoke > "$d/cluster-job" ;;
  esac
}

# One target: its fuzzing, then its summary line into $work/$t.summary; non-zero on a finding.
fuzz_one() { # target
  t=$1
  seeds=$work/seeds/$t corpus=$work/corpus/$t crashes=$work/crashes/$t
  make_seeds "$t" "$seeds"
  mkdir -p "$corpus" "$crashes"
  regressions=$src/tests/fuzz/regressions/$t
  [ -d "$regressions" ] || regressions=""
  log=$work/$t.log
  echo "run.sh: fuzz_$t for ${seconds}s (max_len $(max_len "$t"); log $log)"
  rc=0
  (cd "$work" && "$bin/fuzz_$t" -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=10 \
     -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" \
     "$corpus" "$seeds" $regressions) > "$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  line="fuzz_$t: ${execs:-?} executions, ${speed:-?} exec/s, $cov, $(ls "$corpus" | wc -l) corpus inputs"
  if [ "$rc" -ne 0 ]; then
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    line="$line: FAILED (exit $rc), input: ${artifact:-see $log}"
    grep -E "^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz_$t: )" "$log" | head -n 3 >&2 || true
  fi
  echo "$line"
  echo "$line" > "$work/$t.summary"
  [ "$rc" -eq 0 ]
}

# A libFuzzer process is one thread: the targets run BITBENCH_FUZZ_JOBS (default: the number of
# CPUs) at a time, each for its SECONDS on a core of its own, in batches (they all take SECONDS).
# On CI's 2 cores the 17 targets of 30 s take 4.5 min instead of 8.5, with the same time each.
jobs=${BITBENCH_FUZZ_JOBS:-$(nproc)}
case $jobs in '' | *[!0-9]* | 0) echo "run.sh: BITBENCH_FUZZ_JOBS='$jobs': a positive number of targets at a time" >&2; exit 2 ;; esac
failed=0
pids=""
running=0
for t in $targets; do
  rm -f "$work/$t.summary"
  fuzz_one "$t" &
  pids="$pids $!"
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    for p in $pids; do wait "$p" || failed=1; done
    pids=""
    running=0
  fi
done
for p in $pids; do wait "$p" || failed=1; done
summary=""
for t in $targets; do
  summary="$summary$(cat "$work/$t.summary" 2>/dev/null || echo "fuzz_$t: no summary (see $work/$t.log)")
"
done
echo "run.sh: summary ($(uptime | sed 's/.*load average/load average/'))"
printf '%s' "$summary"
exit $failed
