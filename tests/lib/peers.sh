# Sourced by the peers tests (test_peers_sweep.sh, test_peers_missing.sh, test_peers_kernels.sh),
# after tests/lib/check.sh: the fake peer programs and a tiny model to run them on.
#
#   peers_begin NAME   the scratch directory $T (check_scratch NAME); $D, the absolute path of
#                      tests/data/peers (the fake llama-bench and test-backend-ops programs and their
#                      recorded outputs, tests/data/peers/README.md); no peer program from the
#                      environment (BITBENCH_LLAMA_BENCH, BITBENCH_BITNET_BENCH,
#                      BITBENCH_TEST_BACKEND_OPS unset), so only what a test gives is found
#   peers_tiny_model   $T/models/tiny.lua (a 2-layer BitNet config small enough for seconds-long
#                      end-to-end points and peer runs), BITBENCH_MODELS=$T/models exported
#   csv_col FILE NAME ROW   the cell of column NAME in data row ROW (1-based) of a CSV file
#                      without quoted commas (e2e.csv, results.csv)

peers_begin() {
    D=$(cd "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/data/peers" && pwd) || {
        echo "FAIL: no tests/data/peers"
        exit 1
    }
    check_scratch "$1"
    unset BITBENCH_LLAMA_BENCH BITBENCH_BITNET_BENCH BITBENCH_TEST_BACKEND_OPS
}

peers_tiny_model() {
    mkdir -p "$T/models"
    cat >"$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 320, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
    BITBENCH_MODELS="$T/models"
    export BITBENCH_MODELS
}

csv_col() {
    awk -F, -v name="$2" -v row="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR == row + 1 { print $c }' "$1"
}
