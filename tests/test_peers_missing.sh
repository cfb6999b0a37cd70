#!/bin/sh
# A peers run whose peers did not run says so as its result (fake llama-bench programs,
# tests/data/peers/README.md): with no peer program found the run is "incomplete" in run.json,
# exits 3 and its last line says "0 of N peer points ran"; --allow-missing-peers accepts it
# (exit 0, "complete"); a run where some peer points ran says "k of N"; a peer row that ran has
# the load columns bitbench's own rows have; scripts/peers.lua marks a ratio built from a row
# measured on a busy machine instead of printing it as an ordinary one.  $1 is the bitbench binary.
BB="$1"
SRC="${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}"
. "$SRC/tests/lib/check.sh"
. "$SRC/tests/lib/peers.sh"
peers_begin peers_missing
peers_tiny_model
cat > "$T/exp.lua" <<'LUA'
bitbench.experiment { name = "pm", out = os.getenv("BITBENCH_TEST_OUT"), sweeps = {
  bitbench.sweep { models = {"tiny"}, kernels = {"f32"}, threads = {1, 2}, prompt = 4, gen = 2, reps = 2, kv = "f16",
                   peers = {"llama.cpp"}, peer_timeout = 5 } } }
LUA
# the fake llama-bench, refusing 2 threads: one of the two peer points runs
cat > "$T/half_bench.sh" <<EOF2
#!/bin/sh
case " \$* " in *" -t 2 "*) echo "main: error: failed to load model" >&2; exit 1 ;; esac
exec "$D/fake_llama_bench.sh" "\$@"
EOF2
chmod +x "$T/half_bench.sh"
status_of() { sed -n 's/.*"status": "\([^"]*\)".*/\1/p' "$1"/run.json | head -1; }
reason_of() { sed -n 's/.*"status_reason": "\([^"]*\)".*/\1/p' "$1"/run.json | head -1; }

# no peer program anywhere
PATH=/usr/bin:/bin BITBENCH_TEST_OUT="$T/none" "$BB" run --quiet "$T/exp.lua" >/dev/null 2>"$T/none.err"; rc=$?
R=$(ls -d "$T"/none/pm-* 2>/dev/null)
check '[ "$rc" -eq 3 ]' "no peer: exit 3, got $rc: $(cat "$T/none.err")"
check '[ "$(tail -n 1 "$T/none.err")" = "bitbench run: 0 of 2 peer points ran (see run.json'"'"'s \"failed\")" ]' \
    "no peer: the last line: $(tail -n 1 "$T/none.err")"
check '[ "$(status_of "$R")" = incomplete ] && reason_of "$R" | grep -q "^0 of 2 peer points ran"' \
    "no peer: run.json: $(status_of "$R") / $(reason_of "$R")"
check '[ "$(awk -F, "NR > 1" "$R/e2e.csv" | wc -l)" -eq 2 ]' \
    "no peer: bitbench's own rows stand: $(cat "$R/e2e.csv" 2>&1 | head -3)"

PATH=/usr/bin:/bin BITBENCH_TEST_OUT="$T/allowed" "$BB" run --quiet --allow-missing-peers "$T/exp.lua" >/dev/null 2>"$T/al.err"; rc=$?
R=$(ls -d "$T"/allowed/pm-* 2>/dev/null)
check '[ "$rc" -eq 0 ] && [ "$(status_of "$R")" = complete ] && tail -n 1 "$T/al.err" | grep -q "0 of 2 peer points ran (allowed by --allow-missing-peers)"' \
    "--allow-missing-peers: rc=$rc $(status_of "$R"): $(cat "$T/al.err")"

# one of two peer points ran
BITBENCH_LLAMA_BENCH="$T/half_bench.sh" BITBENCH_TEST_OUT="$T/half" "$BB" run --quiet "$T/exp.lua" >/dev/null 2>"$T/half.err"; rc=$?
R=$(ls -d "$T"/half/pm-* 2>/dev/null)
check '[ "$rc" -eq 3 ] && tail -n 1 "$T/half.err" | grep -q "^bitbench run: 1 of 2 peer points ran" && [ "$(status_of "$R")" = incomplete ]' \
    "partial: rc=$rc $(status_of "$R"): $(cat "$T/half.err")"

# every peer point ran: complete, no peer line; the peer row has its load columns.  The recorded
# output's prefill repetitions disagree (25658, 1939 and 23794 t/s: the row would be flagged and run
# again, tests/test_peers_noise.sh); a quiet copy of it here
sed 's/25657.7, 1938.58, 23794.1/25657.7, 25100.0, 23794.1/' "$D/llama_bench_c392e50_tq2_0.json" > "$T/quiet.json"
BB_FAKE_BENCH_JSON="$T/quiet.json" BITBENCH_LLAMA_BENCH="$D/fake_llama_bench.sh" BITBENCH_TEST_OUT="$T/ok" "$BB" run --quiet "$T/exp.lua" >/dev/null 2>"$T/ok.err"; rc=$?
R=$(ls -d "$T"/ok/pm-* 2>/dev/null)
check '[ "$rc" -eq 0 ] && [ "$(status_of "$R")" = complete ] && ! grep -q "peer points ran" "$T/ok.err"' \
    "all peers ran: rc=$rc $(status_of "$R"): $(cat "$T/ok.err")"
csv="$R/e2e.csv"
col() { csv_col "$csv" "$1" "$2"; }
check '[ "$(col peer 1)" = llama.cpp ] && [ -n "$(col load_before 1)" ] && [ -n "$(col load_after 1)" ] && [ -n "$(col busy 1)" ] && [ -n "$(col run_id 1)" ]' \
    "the peer row's provenance and load: $(head -1 "$csv" | tr , '\n' | grep -n "load\|other_cpu\|busy" | tr '\n' ' ') $(sed -n 2p "$csv")"

# scripts/peers.lua marks a ratio from a peer row measured on a busy machine
if command -v lua5.4 >/dev/null 2>&1; then
    awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "other_cpu_share") s = i; if ($i == "peer") p = i } }
                      NR > 1 && $p != "" { $s = "0.6" } { print }' "$csv" > "$T/busy.csv"
    lua5.4 "$SRC/scripts/peers.lua" "$T/busy.csv" tg >"$T/busy.out" 2>&1
    check 'grep -q "^| f32 *| [0-9.]* ([0-9.]* – [0-9.]*) ⚠ \(spread, \)\?busy" "$T/busy.out" && grep -q "other_cpu_share" "$T/busy.out"' \
        "peers.lua marks the busy peer's ratio: $(cat "$T/busy.out")"
    lua5.4 "$SRC/scripts/peers.lua" "$csv" tg >"$T/quiet.out" 2>&1
    # (unless a row was measured while busy, or its repetitions disagreed: this machine is shared)
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "other_cpu_share") s = i; if ($i == "spread_flag") f = i } }
             NR > 1 && ($s > 0.25 || $f == 1) { b = 1 } END { exit !b }' "$csv" ||
        check '! grep -q "⚠" "$T/quiet.out"' "peers.lua: a quiet run's ratios are not marked: $(cat "$T/quiet.out")"
fi

check_summary test_peers_missing
