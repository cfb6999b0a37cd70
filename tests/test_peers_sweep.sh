#!/bin/sh
# Peers in a model sweep, with fake llama-bench programs (tests/data/peers/README.md; CI has no
# peer installed) given on the command line (--peer llama.cpp=PATH; the file names only the peer):
# a peer that works gives a row beside bitbench's own (kernel llama.cpp:f32, its commit and
# samples); one that fails, one that hangs (peer_timeout) and one that prints garbage each give
# one clear line and no row, and every bitbench point still runs (the run exits 3, its last line
# "0 of 1 peer points ran"); bad peer fields are one error line.  $1 is the bitbench binary.
BB="$1"
SRC="${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}"
. "$SRC/tests/lib/check.sh"
. "$SRC/tests/lib/peers.sh"
peers_begin peers_sweep
peers_tiny_model

# one sweep with a llama.cpp peer; its program comes from the command line (--peer), never the file
exp() { # name
    printf 'print("available", bitbench.peer_available("llama.cpp"), bitbench.peer_available("bitnet.cpp"))\n' > "$T/$1.lua"
    printf 'bitbench.experiment { name = "%s", out = "%s", sweeps = { bitbench.sweep { name = "%s", models = {"tiny"}, kernels = {"f32"}, threads = 1, prompt = 4, gen = 2, reps = 2, kv = "f16", peers = {"llama.cpp"}, peer_timeout = 1 } } }\n' "$1" "$T/res_$1" "$1" >> "$T/$1.lua"
}
for s in ok fails hangs garbage; do exp $s; done
PATH=/usr/bin:/bin "$BB" run "$T/ok.lua" --peer "llama.cpp=$D/fake_llama_bench.sh" > "$T/out" 2> "$T/err"; rc=$?
check '[ $rc -eq 0 ]' "run exit code $rc: $(cat "$T/err")"
check 'grep -q "^available	true	false	bitnet.cpp: llama-bench is not on PATH, BITBENCH_BITNET_BENCH is not set and no --peer bitnet.cpp=PATH was given" "$T/out"' \
    "peer_available with --peer llama.cpp: $(cat "$T/out")"
csv=$(ls "$T"/res_ok/*/e2e.csv)
col() { csv_col "$csv" "$1" "$2"; }
check '[ "$(wc -l < "$csv")" -eq 3 ]' "1 header + 1 bitbench row + 1 peer row, got: $(cat "$csv")"
check '[ "$(col kernel 1)" = "llama.cpp:f32" ] && [ "$(col peer 1)" = llama.cpp ] && [ "$(col peer_commit 1)" = c392e5094 ]' \
    "peer row first (it runs before its bitbench point): $(sed -n 2p "$csv")"
check '[ "$(col tg_samples 1)" = "8301.71;8812.29;10110.8" ] && [ "$(col tg_tps 1)" = 8812.29 ] && [ "$(col pp_tps_max 1)" = 25657.7 ]' \
    "peer samples and median: $(col tg_samples 1) $(col tg_tps 1) $(col pp_tps_max 1)"
check '[ "$(col kernel 2)" = f32 ] && [ -z "$(col peer 2)" ]' "the bitbench row"
check '[ -s "$(dirname "$csv")/peers/tiny-f32.gguf" ]' "the exported model"
# rounds: the peer point runs in every round, just before its bitbench point's, and its row is its
# median round with every round's figures (the fake prints the same figures each time); one peer
# point counted, with its one row (else the run would exit 3, "k of N peer points ran")
sed 's/peer_timeout = 1/peer_timeout = 1, rounds = 3/; s/"ok"/"rounds"/; s/res_ok/res_rounds/' "$T/ok.lua" > "$T/rounds.lua"
PATH=/usr/bin:/bin "$BB" run "$T/rounds.lua" --peer "llama.cpp=$D/fake_llama_bench.sh" > "$T/out" 2> "$T/err"; rc=$?
rcsv=$(ls "$T"/res_rounds/*/e2e.csv 2>/dev/null)
order=$(sed -n 's/^bitbench run: peer: .*/P/p; s/^bitbench run: e2e 1\/1, round \([0-9]\) of 3: .*/\1/p' "$T/err" | tr -d "\n")
check '[ $rc -eq 0 ] && [ "$order" = "P1P2P3" ]' "rounds with a peer: rc $rc, order '$order': $(cat "$T/err")"
check '[ "$(wc -l < "$rcsv")" -eq 3 ] && [ "$(csv_col "$rcsv" kernel 2)" = "llama.cpp:f32" ] && [ "$(csv_col "$rcsv" rounds 2)" = 3 ] && [ "$(csv_col "$rcsv" rounds_tg_tps 2)" = "8812.29;8812.29;8812.29" ] && [ "$(csv_col "$rcsv" rounds 1)" = 3 ]' \
    "the peer row of three rounds: $(cat "$rcsv")"
# without --peer, environment or PATH: not available, a skipped peer point, the bitbench row
PATH=/usr/bin:/bin "$BB" run "$T/ok.lua" > "$T/out" 2> "$T/err"; rc=$?
check '[ $rc -eq 3 ] && grep -q "^available	false	false" "$T/out" && grep -q "peer point (ok tiny llama.cpp:f32 pp4 tg2 t1) skipped: llama.cpp: llama-bench is not on PATH, BITBENCH_LLAMA_BENCH is not set and no --peer llama.cpp=PATH was given" "$T/err"' \
    "no program: rc $rc, $(cat "$T/out" "$T/err")"
# the environment variable still names the program (a later --peer would come before it)
BITBENCH_LLAMA_BENCH="$D/fake_llama_bench.sh" PATH=/usr/bin:/bin "$BB" run "$T/ok.lua" --quiet > "$T/out" 2> "$T/err"; rc=$?
check '[ $rc -eq 0 ] && grep -q "^available	true	false" "$T/out" && [ ! -s "$T/err" ]' "BITBENCH_LLAMA_BENCH: rc $rc, $(cat "$T/out" "$T/err")"
for s in fails:fail hangs:hang garbage:garbage; do
    prog=${s#*:} s=${s%:*}
    PATH=/usr/bin:/bin "$BB" run "$T/$s.lua" --peer "llama.cpp=$D/fake_peer_$prog.sh" > "$T/out_$s" 2> "$T/err_$s"; rc=$?
    scsv=$(ls "$T"/res_$s/*/e2e.csv)
    # the peer point gave no row: exit 3 and the last line says so
    check '[ $rc -eq 3 ] && [ "$(tail -n 1 "$T/err_$s")" = "bitbench run: 0 of 1 peer points ran (see run.json'"'"'s \"failed\")" ] && [ "$(wc -l < "$scsv")" -eq 2 ] && grep -q "^$s,.*,f32," "$scsv"' \
        "bitbench row of sweep $s, exit 3, last line: rc $rc, $(cat "$scsv" "$T/err_$s")"
done
check 'grep -q "peer point (fails tiny llama.cpp:f32 pp4 tg2 t1) skipped: .*fake_peer_fail.sh exited with status 1: \"main: error: failed to load model" "$T/err_fails"' \
    "failing peer: $(cat "$T/err_fails")"
check 'grep -q "peer point (hangs tiny llama.cpp:f32 pp4 tg2 t1) skipped: .*fake_peer_hang.sh timed out after 1 s" "$T/err_hangs"' \
    "hanging peer: $(cat "$T/err_hangs")"
check 'grep -q "peer point (garbage tiny llama.cpp:f32 pp4 tg2 t1) skipped: .*its output is not JSON" "$T/err_garbage"' \
    "garbage peer: $(cat "$T/err_garbage")"
check 'grep -q "peer point (fails" "$(dirname "$(ls "$T"/res_fails/*/e2e.csv)")/run.json"' "skipped peers listed in run.json"

# a kernel that rearranges a ggml type's blocks (q2_k_x16: Q2_K) brings that type's peer point
cat > "$T/models/tiny256.lua" <<'LUA'
return { name = "tiny256", style = "bitnet", dim = 256, ffn_dim = 512, n_layers = 1, n_heads = 4,
         n_kv_heads = 4, vocab_size = 320, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
printf 'bitbench.experiment { name = "peers_x16", out = "%s", sweeps = { bitbench.sweep { name = "x16", models = {"tiny256"}, kernels = {"q2_k_x16"}, threads = 1, prompt = 4, gen = 2, reps = 2, kv = "f16", peers = {"llama.cpp"}, peer_timeout = 5 } } }\n' "$T/res16" > "$T/x16.lua"
PATH=/usr/bin:/bin "$BB" run "$T/x16.lua" --peer "llama.cpp=$D/fake_llama_bench.sh" > "$T/out16" 2> "$T/err16"; rc=$?
csv16=$(ls "$T"/res16/*/e2e.csv 2>/dev/null)
check '[ $rc -eq 0 ] && [ -n "$csv16" ] && cut -d, -f1-40 "$csv16" | grep -q "llama.cpp:q2_k" && [ -s "$(dirname "$csv16")/peers/tiny256-q2_k.gguf" ]' \
    "q2_k_x16 sweep: rc $rc, $(cat "$T/err16" "$csv16" 2>/dev/null | head -5)"

# bad fields: one line naming the field
bad() { # fields, pattern
    printf 'bitbench.experiment { name = "b", out = "%s", sweeps = { bitbench.sweep { models = {"tiny"}, kernels = {"f32"}, %s } } }\n' "$T/res" "$1" > "$T/bad.lua"
    err=$("$BB" run "$T/bad.lua" 2>&1 >/dev/null); r=$?; pat=$2
    check '[ $r -ne 0 ] && printf "%s" "$err" | grep -q -- "$pat"' "bad fields '$1': rc $r, $err (wanted /$2/)"
}
bad 'kv = "f16", peers = {"llama"}' "bad.lua:1: .*field 'peers', entry 1: unknown peer 'llama' (peers: llama.cpp, bitnet.cpp)"
bad 'kv = "f16", peers = {"llama.cpp:i2_s"}' "llama.cpp does not run type 'i2_s'"
bad 'kv = "f16", peers = {"bitnet.cpp"}, kernels = {"tl2_0"}' "bitnet.cpp runs none of the sweep's kernels' GGUF types"
bad 'peers = {"llama.cpp"}' "needs kv = \"f16\""
bad 'kv = "f16", peers = {"llama.cpp"}, peer_paths = {["llama.cpp"] = "/x"}' "field 'peer_paths': an experiment names peers, not their programs; give the program on the command line: bitbench run --peer NAME=PATH (NAME: llama.cpp, bitnet.cpp, test-backend-ops, llama.cpp-batched, bitnet.cpp-batched)"
bad 'kv = "f16", peers = {"llama.cpp"}, peer_timeout = 0' "peer_timeout"

check_summary test_peers_sweep
