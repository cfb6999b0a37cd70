#!/bin/sh
# A stand-in for llama.cpp's llama-batched-bench (tests have no peer installed): takes its options
# (-m -c -b -ub -npp -ntg -npl -t -ctk -ctv --output-format), refuses a missing model as it does,
# appends its arguments as one line to $BB_FAKE_BATCHED_ARGS when set, and prints the log line and
# the JSON line of batched-bench.cpp's --output-format jsonl for (npp, ntg, npl, t).  speed_tg is
# the first line of the file $BB_FAKE_BATCHED_SPEEDS (removed, so each call takes the next), else
# 20.  BB_FAKE_BATCHED_MODE: "garbage" prints a JSON line that is not batched-bench's, "notjson"
# a line that is not JSON, "fail" exits 1 with an error, "hang" sleeps.  --version prints its
# version line on stderr as the real one does ("version: 4748 (c392e5094)"), with commit fake0123.
model=; npp=; ntg=; npl=; t=; fmt=md
if [ "$*" = --version ]; then
    printf 'version: 1 (fake0123)\nbuilt with cc for x86_64-linux-gnu\n' >&2
    exit 0
fi
[ -n "$BB_FAKE_BATCHED_ARGS" ] && echo "$*" >> "$BB_FAKE_BATCHED_ARGS"
while [ $# -gt 0 ]; do
    case "$1" in
        -m) model=$2; shift ;;
        -npp) npp=$2; shift ;;
        -ntg) ntg=$2; shift ;;
        -npl) npl=$2; shift ;;
        -t) t=$2; shift ;;
        -c|-b|-ub|-ctk|-ctv) shift ;;
        --output-format) fmt=$2; shift ;;
        *) echo "error: invalid argument: $1" >&2; exit 1 ;;
    esac
    shift
done
if [ ! -r "$model" ]; then
    echo "llama_model_load: error loading model: failed to open $model" >&2
    exit 1
fi
[ "$fmt" = jsonl ] || { echo "this fake prints only jsonl" >&2; exit 1; }
speed=20
if [ -n "$BB_FAKE_BATCHED_SPEEDS" ] && [ -s "$BB_FAKE_BATCHED_SPEEDS" ]; then
    speed=$(head -n 1 "$BB_FAKE_BATCHED_SPEEDS")
    sed -i 1d "$BB_FAKE_BATCHED_SPEEDS"
fi
case "${BB_FAKE_BATCHED_MODE:-}" in
    fail) echo "main: error: failed to create the llama_context" >&2; exit 1 ;;
    hang) sleep 30 ;;
    notjson) echo "{pp: 1"; exit 0 ;;
    garbage) echo '{"pp": "many", "tg": 2}'; exit 0 ;;
esac
echo "main: n_kv_max = 4352, n_batch = 4096, n_ubatch = 512, flash_attn = 0"
awk -v pp="$npp" -v tg="$ntg" -v pl="$npl" -v t="$t" -v s="$speed" 'BEGIN {
    printf "{\"n_kv_max\": %d, \"n_batch\": %d, \"n_ubatch\": 512, \"flash_attn\": 0, \"is_pp_shared\": 0, \"n_gpu_layers\": 0, \"n_threads\": %d, \"n_threads_batch\": %d, \"pp\": %d, \"tg\": %d, \"pl\": %d, \"n_kv\": %d, \"t_pp\": %f, \"speed_pp\": %f, \"t_tg\": %f, \"speed_tg\": %f, \"t\": %f, \"speed\": %f}\n",
        pp + tg, pp, t, t, pp, tg, pl, pp + tg, pp / 500.0, 500.0, tg / s, s, pp / 500.0 + tg / s, (pp + tg) / (pp / 500.0 + tg / s) }'
