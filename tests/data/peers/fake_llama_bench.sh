#!/bin/sh
# A stand-in for llama.cpp's llama-bench (tests have no peer installed): takes llama-bench's
# options, refuses a missing model as llama-bench does ("main: error: failed to load model"),
# and prints a recorded real output (llama_bench_c392e50_tq2_0.json, or $BB_FAKE_BENCH_JSON)
# with the tests the options ask for: the recorded pp test when -p > 0 and tg test when -n > 0,
# their n_threads, n_prompt and n_gen set to the options'.  Timings are the recorded ones.
# --help prints a usage whose -d line (llama.cpp's --n-depth) is there only when
# BB_FAKE_BENCH_DEPTH=1 (an older build has none); -d D is accepted then, and D is noted in
# $BB_FAKE_BENCH_DEPTH_LOG when set.
here=$(dirname "$0")
json=${BB_FAKE_BENCH_JSON:-$here/llama_bench_c392e50_tq2_0.json}
model=; t=4; p=512; n=128; out=md
while [ $# -gt 0 ]; do
    case "$1" in
        -m) model=$2; shift ;;
        -t) t=$2; shift ;;
        -p) p=$2; shift ;;
        -n) n=$2; shift ;;
        -o) out=$2; shift ;;
        -r) shift ;;
        -d) [ "${BB_FAKE_BENCH_DEPTH:-0}" = 1 ] || { echo "error: invalid parameter for argument: -d" >&2; exit 1; }
            [ -n "$BB_FAKE_BENCH_DEPTH_LOG" ] && echo "$2" >>"$BB_FAKE_BENCH_DEPTH_LOG"
            shift ;;
        --help)
            echo "usage: llama-bench [options]"
            echo "  -p, --n-prompt <n>                        (default: 512)"
            echo "  -n, --n-gen <n>                           (default: 128)"
            [ "${BB_FAKE_BENCH_DEPTH:-0}" = 1 ] && echo "  -d, --n-depth <n>                         (default: 0)"
            exit 0 ;;
        *) echo "error: invalid parameter for argument: $1" >&2; exit 1 ;;
    esac
    shift
done
if [ ! -r "$model" ]; then
    echo "main: error: failed to load model '$model'" >&2
    exit 1
fi
[ "$out" = json ] || { echo "this fake prints only -o json" >&2; exit 1; }
awk -v t="$t" -v p="$p" -v n="$n" '
    /^  \{/ { obj = $0 "\n"; inside = 1; next }
    inside && /^  \}/ {
        pp = (obj ~ /"n_gen": 0,/)
        if ((pp && p > 0) || (!pp && n > 0)) {
            sub(/"n_threads": [0-9]+/, "\"n_threads\": " t, obj)
            if (pp) sub(/"n_prompt": [0-9]+/, "\"n_prompt\": " p, obj)
            else sub(/"n_gen": [0-9]+/, "\"n_gen\": " n, obj)
            printf "%s%s  }", (count++ ? ",\n" : ""), obj
        }
        inside = 0; next
    }
    inside { obj = obj $0 "\n" }
    END { printf "\n]\n" }
    BEGIN { printf "[\n" }
' "$json"
