#!/bin/sh
# Peer rows are flagged, re-measured and placed by bitbench's own rules (issue 30 items 7 and 9),
# with fake llama-bench / test-backend-ops programs (tests/data/peers/README.md):
# - a llama-bench row whose repetitions disagree (its samples_ts: the recorded output's prefill
#   samples 25658, 1939 and 23794 t/s) runs again, up to the sweep's remeasure more times; a fake
#   noisy only on its first call gives attempts 2 and spread_flag 0, one always noisy attempts
#   1 + remeasure and spread_flag 1, with the spreads in pp_spread / tg_spread;
# - the peer program runs on the CPUs bitbench may use: under `taskset -c 0` it sees only CPU 0
#   (not every CPU of the machine), with a sweep's cpus those CPUs; the row's cpus says which;
# - --resume counts "k of N peer points ran" over the whole run: the peer points of an earlier
#   session count, so a resumed run whose peers never ran still ends with exit 3.
# $1 is the bitbench binary.
BB="$1"
SRC="${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}"
D=$(cd "$SRC/tests/data/peers" && pwd)
pass=0; fail=0
T=$(mktemp -d /tmp/bb_peers_noise_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
unset BITBENCH_LLAMA_BENCH BITBENCH_BITNET_BENCH BITBENCH_TEST_BACKEND_OPS

mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 320, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
BITBENCH_MODELS="$T/models"; export BITBENCH_MODELS
exp() { # file, extra sweep fields
    printf 'bitbench.experiment { name = "pn", out = os.getenv("BITBENCH_TEST_OUT"), sweeps = {\n  bitbench.sweep { models = {"tiny"}, kernels = {"f32"}, threads = {1}, prompt = 4, gen = 2, reps = 3, kv = "f16", peers = {"llama.cpp"}, peer_timeout = 10, %s } } }\n' "$2" > "$T/$1"
}
csvcol() { # file, column: the peer row's cell
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == name) c = i; if ($i == "peer") p = i } }
                          NR > 1 && $p != "" { print $c }' "$1"
}
# a quiet copy of the recorded output: its prefill samples agree
sed 's/25657.7, 1938.58, 23794.1/25657.7, 25100.0, 23794.1/' "$D/llama_bench_c392e50_tq2_0.json" > "$T/quiet.json"
# noisy on the first call, quiet after (a counter file); every call appends its CPUs
cat > "$T/once_noisy.sh" <<EOF2
#!/bin/sh
echo x >> "$T/calls"
grep Cpus_allowed_list /proc/self/status | awk '{ print \$2 }' >> "$T/cpus_seen"
if [ "\$(wc -l < "$T/calls")" -gt 1 ]; then BB_FAKE_BENCH_JSON="$T/quiet.json"; export BB_FAKE_BENCH_JSON; fi
exec "$D/fake_llama_bench.sh" "\$@"
EOF2
cat > "$T/always_noisy.sh" <<EOF2
#!/bin/sh
echo x >> "$T/calls"
exec "$D/fake_llama_bench.sh" "\$@"
EOF2
chmod +x "$T/once_noisy.sh" "$T/always_noisy.sh"

# noisy, then quiet: run again once, the quiet run kept
exp once.lua 'remeasure = 2'
rm -f "$T/calls"
BITBENCH_TEST_OUT="$T/once" "$BB" run "$T/once.lua" --peer "llama.cpp=$T/once_noisy.sh" >/dev/null 2>"$T/once.err"; rc=$?
R=$(ls -d "$T"/once/pn-* 2>/dev/null)
check '[ "$rc" -eq 0 ] && [ "$(wc -l < "$T/calls")" -eq 2 ]' "noisy once: rc=$rc, $(cat "$T/calls" 2>/dev/null | wc -l) peer runs: $(cat "$T/once.err")"
check '[ "$(csvcol "$R/e2e.csv" attempts)" = 2 ] && [ "$(csvcol "$R/e2e.csv" spread_flag)" = 0 ]' \
    "noisy once: attempts $(csvcol "$R/e2e.csv" attempts), spread_flag $(csvcol "$R/e2e.csv" spread_flag)"
check 'grep -q "bitbench run: peer .*llama.cpp:f32.*: spread pp [0-9.]*%, tg [0-9.]*%: running it again (1 of 2)" "$T/once.err"' \
    "noisy once: the note: $(cat "$T/once.err")"
check '[ "$(csvcol "$R/e2e.csv" pp_samples)" = "25657.7;25100;23794.1" ]' "the quiet run's samples kept: $(csvcol "$R/e2e.csv" pp_samples)"

# always noisy: 1 + remeasure runs, flagged, counted
exp always.lua 'remeasure = 1'
rm -f "$T/calls"
BITBENCH_TEST_OUT="$T/always" "$BB" run "$T/always.lua" --peer "llama.cpp=$T/always_noisy.sh" >/dev/null 2>"$T/always.err"; rc=$?
R=$(ls -d "$T"/always/pn-* 2>/dev/null)
pps=$(csvcol "$R/e2e.csv" pp_spread)
check '[ "$rc" -eq 0 ] && [ "$(wc -l < "$T/calls")" -eq 2 ] && [ "$(csvcol "$R/e2e.csv" attempts)" = 2 ] && [ "$(csvcol "$R/e2e.csv" spread_flag)" = 1 ]' \
    "always noisy: rc=$rc runs $(wc -l < "$T/calls") attempts $(csvcol "$R/e2e.csv" attempts) flag $(csvcol "$R/e2e.csv" spread_flag)"
# the recorded prefill times 1/25657.7, 1/1938.58, 1/23794.1 s per token: IQR / median 5.7
check 'awk -v s="$pps" "BEGIN { exit !(s > 5.6 && s < 5.8) }" && [ -n "$(csvcol "$R/e2e.csv" tg_spread)" ]' "pp_spread $pps"
check 'grep -q "\"flagged\": [1-9]" "$R/run.json" && grep -q "e2e point 1 (.*llama.cpp:f32.*peer llama.cpp): spread pp 56[0-9].[0-9]%" "$R/run.json"' \
    "run.json counts and names the flagged peer row: $(grep -A3 '"e2e_points"' "$R/run.json")"
check 'grep -q "end-to-end rows* flagged for a large spread" "$T/always.err"' "the end-of-run line: $(tail -3 "$T/always.err")"

# remeasure = 0: run once
exp zero.lua 'remeasure = 0'
rm -f "$T/calls"
BITBENCH_TEST_OUT="$T/zero" "$BB" run --quiet "$T/zero.lua" --peer "llama.cpp=$T/always_noisy.sh" >/dev/null 2>"$T/zero.err"
R=$(ls -d "$T"/zero/pn-* 2>/dev/null)
check '[ "$(wc -l < "$T/calls")" -eq 1 ] && [ "$(csvcol "$R/e2e.csv" attempts)" = 1 ]' "remeasure 0: $(wc -l < "$T/calls") runs"

# the peer's CPUs: bitbench's own mask
rm -f "$T/calls" "$T/cpus_seen"
BITBENCH_TEST_OUT="$T/mask" taskset -c 0 "$BB" run --quiet "$T/once.lua" --peer "llama.cpp=$T/once_noisy.sh" >/dev/null 2>"$T/mask.err"; rc=$?
R=$(ls -d "$T"/mask/pn-* 2>/dev/null)
check '[ "$rc" -eq 0 ] && [ "$(sort -u "$T/cpus_seen")" = 0 ]' "under taskset -c 0 the peer saw CPUs $(cat "$T/cpus_seen" 2>/dev/null | tr '\n' ' '): $(cat "$T/mask.err")"
check '[ "$(csvcol "$R/e2e.csv" cpus)" = 0 ]' "the peer row's cpus: '$(csvcol "$R/e2e.csv" cpus)'"
last=$(getconf _NPROCESSORS_ONLN); last=$((last - 1))
if [ "$last" -ge 1 ] && taskset -c "$last" true 2>/dev/null; then
    exp cpus.lua "remeasure = 2, cpus = {$last}"
    rm -f "$T/calls" "$T/cpus_seen"
    BITBENCH_TEST_OUT="$T/cpus" "$BB" run --quiet "$T/cpus.lua" --peer "llama.cpp=$T/once_noisy.sh" >/dev/null 2>"$T/cpus.err"; rc=$?
    R=$(ls -d "$T"/cpus/pn-* 2>/dev/null)
    check '[ "$rc" -eq 0 ] && [ "$(sort -u "$T/cpus_seen")" = "$last" ] && [ "$(csvcol "$R/e2e.csv" cpus)" = "$last" ]' \
        "the sweep's cpus {$last}: the peer saw $(cat "$T/cpus_seen" 2>/dev/null | tr '\n' ' '), row cpus '$(csvcol "$R/e2e.csv" cpus)': $(cat "$T/cpus.err")"
fi

# --resume counts the whole run's peer points: a first session without the peer program (0 of 1,
# exit 3), resumed with nothing left to measure: still 0 of 1, exit 3
exp res.lua 'remeasure = 0'
PATH=/usr/bin:/bin BITBENCH_TEST_OUT="$T/res" "$BB" run --quiet "$T/res.lua" >/dev/null 2>"$T/res1.err"; rc1=$?
R=$(ls -d "$T"/res/pn-* 2>/dev/null)
PATH=/usr/bin:/bin BITBENCH_TEST_OUT="$T/res" "$BB" run --quiet --resume "$T/res.lua" >/dev/null 2>"$T/res2.err"; rc2=$?
check '[ "$rc1" -eq 3 ] && [ "$rc2" -eq 3 ] && [ "$(tail -n 1 "$T/res2.err")" = "bitbench run: 0 of 1 peer points ran (see run.json'"'"'s \"failed\")" ]' \
    "resumed: rc $rc1 then $rc2, last line: $(cat "$T/res2.err")"
check 'grep -q "\"status_reason\": \"0 of 1 peer points ran" "$R/run.json"' "resumed run.json: $(grep status "$R/run.json")"

echo "test_peers_noise: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
