#!/bin/sh
# A depth point for a peer whose llama-bench has no -d is measured by the peer's
# llama-batched-bench when the person gives it (--peer llama.cpp-batched=PATH or
# $BITBENCH_LLAMA_BATCHED_BENCH; harness/peers/batched_bench.h), with fake programs
# (tests/data/peers/fake_llama_bench.sh without -d, fake_batched_bench.sh):
# - its argument vector: -npp D -ntg G -npl 1 -t T -c D+G --output-format jsonl, reps calls;
# - the row: peer llama.cpp-batched, its build commit from --version, depth D, pp empty (its pp is the depth's prefill), tg the
#   median of the calls' speed_tg, each call one sample in tg_samples (as llama-bench rows keep
#   theirs; peer rows write nothing to e2e_samples.csv);
# - noisy calls run the point again (remeasure), as llama-bench rows;
# - a failing, hanging or garbled batched-bench is one reason in run.json, no row;
# - without it the old note stays, now naming the --peer that would measure it.
# $1 is the bitbench binary.
BB="$1"
SRC="${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}"
D=$(cd "$SRC/tests/data/peers" && pwd)
. "$SRC/tests/lib/check.sh"
check_scratch peers_batched
unset BITBENCH_LLAMA_BENCH BITBENCH_BITNET_BENCH BITBENCH_LLAMA_BATCHED_BENCH BITBENCH_BITNET_BATCHED_BENCH
unset BB_FAKE_BENCH_DEPTH BB_FAKE_BATCHED_MODE BB_FAKE_BATCHED_SPEEDS BB_FAKE_BATCHED_ARGS
PATH=/usr/bin:/bin; export PATH

mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 2, vocab_size = 320, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
BITBENCH_MODELS="$T/models"; export BITBENCH_MODELS
cat > "$T/p.lua" <<LUA
bitbench.experiment { name = "p", out = os.getenv("BITBENCH_TEST_OUT"), sweeps = {
  bitbench.sweep { name = "s", models = {"tiny"}, kernels = {"f32"}, threads = 1, prompt = 4, gen = 2,
                   reps = 3, remeasure = 1, depth = { 260 }, kv = "f16", peers = {"llama.cpp"}, peer_timeout = 3 } } }
LUA
csvcol() { # file, column: the peer row's cell
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == name) c = i; if ($i == "peer") p = i } }
                          NR > 1 && $p != "" { print $c }' "$1"
}
run() { # out dir; the rest: bitbench run options
    o=$1; shift
    BITBENCH_TEST_OUT="$T/$o" "$BB" run "$T/p.lua" --quiet --peer "llama.cpp=$D/fake_llama_bench.sh" "$@" \
        > "$T/$o.out" 2> "$T/$o.err"
    rc=$?
    R=$(ls -d "$T/$o"/p-* 2>/dev/null | head -n 1)
}

# quiet samples: three calls, one row
printf '20\n21\n20.5\n' > "$T/speeds"
BB_FAKE_BATCHED_SPEEDS="$T/speeds" BB_FAKE_BATCHED_ARGS="$T/args" run quiet --peer "llama.cpp-batched=$D/fake_batched_bench.sh"
check '[ "$rc" -eq 0 ] && [ "$(wc -l < "$T/args")" -eq 3 ]' "quiet: rc $rc, calls $(wc -l < "$T/args" 2>/dev/null): $(cat "$T/quiet.err")"
check '[ "$(sort -u "$T/args")" = "-m $R/peers/tiny-f32.gguf -c 262 -b 260 -ub 260 -npp 260 -ntg 2 -npl 1 -t 1 --output-format jsonl" ]' \
    "argument vector: $(sort -u "$T/args")"
check '[ "$(csvcol "$R/e2e.csv" peer)" = llama.cpp-batched ] && [ "$(csvcol "$R/e2e.csv" kernel)" = llama.cpp:f32 ] && [ "$(csvcol "$R/e2e.csv" depth)" = 260 ]' \
    "row: peer $(csvcol "$R/e2e.csv" peer) kernel $(csvcol "$R/e2e.csv" kernel) depth $(csvcol "$R/e2e.csv" depth)"
check '[ "$(csvcol "$R/e2e.csv" peer_commit)" = fake0123 ]' "peer_commit from its --version: '$(csvcol "$R/e2e.csv" peer_commit)'"
check '[ -z "$(csvcol "$R/e2e.csv" pp_tps)" ] && [ -z "$(csvcol "$R/e2e.csv" pp_samples)" ] && [ "$(csvcol "$R/e2e.csv" tg_tps)" = 20.5 ] && [ "$(csvcol "$R/e2e.csv" tg_samples)" = "20;21;20.5" ] && [ "$(csvcol "$R/e2e.csv" attempts)" = 1 ]' \
    "pp empty, tg: pp '$(csvcol "$R/e2e.csv" pp_tps)' tg $(csvcol "$R/e2e.csv" tg_tps) samples $(csvcol "$R/e2e.csv" tg_samples) attempts $(csvcol "$R/e2e.csv" attempts)"

# the environment names it as well
printf '20\n21\n20.5\n' > "$T/speeds"
BITBENCH_LLAMA_BATCHED_BENCH="$D/fake_batched_bench.sh" BB_FAKE_BATCHED_SPEEDS="$T/speeds" run env
check '[ "$rc" -eq 0 ] && [ "$(csvcol "$R/e2e.csv" peer)" = llama.cpp-batched ]' "env: rc $rc $(cat "$T/env.err")"

# noisy, then quiet: run again once (3 more calls), the quiet run kept
printf '20\n5\n20\n20\n20.2\n20.1\n' > "$T/speeds"
rm -f "$T/args"
BB_FAKE_BATCHED_SPEEDS="$T/speeds" BB_FAKE_BATCHED_ARGS="$T/args" run noisy --peer "llama.cpp-batched=$D/fake_batched_bench.sh"
check '[ "$rc" -eq 0 ] && [ "$(wc -l < "$T/args")" -eq 6 ] && [ "$(csvcol "$R/e2e.csv" attempts)" = 2 ] && [ "$(csvcol "$R/e2e.csv" tg_samples)" = "20;20.2;20.1" ]' \
    "noisy: rc $rc calls $(wc -l < "$T/args") attempts $(csvcol "$R/e2e.csv" attempts) samples $(csvcol "$R/e2e.csv" tg_samples)"

# failures: one reason each, no peer row, exit 3
for mode in fail notjson garbage hang; do
    BB_FAKE_BATCHED_MODE=$mode run "f_$mode" --peer "llama.cpp-batched=$D/fake_batched_bench.sh"
    check '[ "$rc" -eq 3 ] && [ -z "$(csvcol "$R/e2e.csv" peer)" ]' "$mode: rc $rc, row '$(csvcol "$R/e2e.csv" peer)': $(cat "$T/f_$mode.err")"
done
check 'grep -q "skipped: .*fake_batched_bench.sh exited with status 1.*failed to create the llama_context" "$T"/f_fail/p-*/run.json' \
    "fail reason: $(grep -A2 '"failed"' "$T"/f_fail/p-*/run.json)"
check 'grep -q "skipped: .*fake_batched_bench.sh: its JSON line is not JSON" "$T"/f_notjson/p-*/run.json' \
    "notjson reason: $(grep -A2 '"failed"' "$T"/f_notjson/p-*/run.json)"
check 'grep -q "skipped: .*fake_batched_bench.sh: its JSON line: .pp. missing or not a count" "$T"/f_garbage/p-*/run.json' \
    "garbage reason: $(grep -A2 '"failed"' "$T"/f_garbage/p-*/run.json)"
check 'grep -q "skipped: .*fake_batched_bench.sh timed out after 3 s" "$T"/f_hang/p-*/run.json' \
    "hang reason: $(grep -A2 '"failed"' "$T"/f_hang/p-*/run.json)"

# without it: the note, naming the --peer that would measure it
run none
check '[ "$rc" -eq 3 ] && grep -q "has no -d (its --help lists no --n-depth): depth 260 not measured by this peer, point skipped (its llama-batched-bench would measure it: --peer llama.cpp-batched=PATH)" "$R/run.json"' \
    "none: rc $rc $(grep -A2 '"failed"' "$R/run.json")"
# a bad --peer name lists the new names
"$BB" run "$T/p.lua" --peer "llama.cpp-batchd=/x" > "$T/bad.out" 2>&1; rc=$?
check '[ "$rc" -ne 0 ] && grep -q "llama.cpp-batched, bitnet.cpp-batched" "$T/bad.out"' "bad name: $(cat "$T/bad.out")"

check_summary test_peers_batched
