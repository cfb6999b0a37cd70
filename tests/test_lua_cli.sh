#!/bin/sh
# bitbench run / list models / list meters / overhead on the command line: every bad input is one
# error line with the file, the line when known, what was wrong and what is valid, and a
# non-zero exit before any measurement; good input is accepted.  $1 is the bitbench binary.
BB="$1"
. "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/lib/check.sh"
check_scratch lua_cli

expect_ok() {
    pattern="$1"; shift
    out=$("$BB" "$@" 2>&1); rc=$?
    if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q -- "$pattern"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: bitbench $* -> rc=$rc: $out (wanted /$pattern/)"; fi
}

good="$T/good.lua"
cat > "$good" <<'LUA'
bitbench.experiment {
  name = "good", out = "RESULTS",
  sweeps = {
    bitbench.sweep { name = "s", kernels = { "i2_s" }, shapes = { {256, 256}, {256, 200} }, threads = 1,
                     reps = 1, min_seconds = 0 },
  },
}
LUA
sed -i "s|RESULTS|$T/res|" "$good"

printf 'bitbench.experiment {\n  sweeps = {\n    { kernels = "i2_s" shapes = {} },\n  },\n}\n' > "$T/syntax.lua"
expect_error "syntax.lua:3: '}' expected near 'shapes'" run "$T/syntax.lua"
printf 'bitbench.experiment {\n  sweeps = {\n    bitbench.sweep { kernels = "i2_s", shapes = { "llama-2-7b" }, thread = 1 },\n  },\n}\n' > "$T/typo.lua"
expect_error "typo.lua:3: sweep 'sweep1': unknown field 'thread' (did you mean 'threads'?); valid fields:" run "$T/typo.lua"
printf 'bitbench.experiment { sweeps = { { kernels = "i2_s", shapes = { "llama-7b" } } } }\n' > "$T/model.lua"
expect_error "model.lua:1: sweep 'sweep1': field 'shapes', entry 1: unknown model 'llama-7b'" run "$T/model.lua"
printf 'bitbench.experiment { sweeps = { { kernels = "q4_k", shapes = { {256, 256} } } } }\n' > "$T/kernel.lua"
expect_error "kernel.lua:1: sweep 'sweep1': field 'kernels', entry 1: unknown kernel 'q4_k'.*valid kernels: .*i2_s" run "$T/kernel.lua"
printf 'bitbench.experiment { sweeps = { { kernels = "i2_s", shapes = { {256, 256} }, n = "1" } } }\n' > "$T/type.lua"
expect_error "type.lua:1: sweep 'sweep1': field 'n' must be an integer or a non-empty list of integers in 1..65536, got string \"1\"" run "$T/type.lua"
printf 'bitbench.experiment {\n sweeps = { bitbench.sweep { kernels = "i2_s", shapes = { {256, 200} }, on_unsupported = "error" } } }\n' > "$T/shape.lua"
expect_error "shape.lua:2: sweep 'sweep1': i2_s cannot run shape M=256 K=200: kernel i2_s needs K to be a multiple of 128, got K=200" run "$T/shape.lua"
printf 'bitbench.experiment { sweeps = { { kernels = "i2_s", shapes = { {256, 200} } } } }\n' > "$T/allskip.lua"
expect_error "nothing to run: every kernel/shape combination was skipped" run "$T/allskip.lua"
expect_error "$T/missing.lua: cannot open it" run "$T/missing.lua"
expect_error "which experiment? give a FILE.lua" run
expect_error "unexpected argument 'extra'" run "$good" extra
expect_error "unknown or incomplete option '--bogus'" run "$good" --bogus
expect_error "\-\-threads: '1,x' is not a list of integers" run "$good" --threads 1,x
expect_error "\-\-threads: '0' is out of range (valid: 1.." run "$good" --threads 0
expect_error "\-\-threads: 1 is listed twice" run "$good" --threads 1,1
expect_error "\-\-reps: 0 is out of range" run "$good" --reps 0
expect_error "\-\-min-time: 'soon' is not a number" run "$good" --min-time soon
expect_error "\-\-only: unknown kernel 'i2s'; valid kernels:" run "$good" --only i2s
expect_error "\-\-only tq2_0@scalar: no sweep of .* uses this kernel (kernels in the file: i2_s)" run "$good" --only tq2_0@scalar,q8_0 --only q8_0
# one unmatched entry among matched ones is refused too (it was dropped without a word)
expect_error "\-\-only q8_0: no sweep of .* uses this kernel (kernels in the file: i2_s)" run "$good" --only i2_s,q8_0
expect_error "\-\-resume: no run of experiment 'good'" run "$good" --resume --out "$T/none"

# good input: dry run lists the plan and reports the skipped shape; a run, a resume refused
expect_ok "1 points, 1 skipped" run "$good" --dry-run
expect_ok "skipped i2_s on M=256 K=200: kernel i2_s needs K to be a multiple of 128" run "$good" --dry-run
expect_ok "| i2_s@" run "$good"
expect_error "is complete; nothing to resume" run "$good" --resume
# --only selects among the file's kernels: i2_s is among them, and so is the variant i2_s runs here
# (i2_s@scalar on a scalar CPU); every entry must select one (issue 23: an unmatched one was dropped)
v=$("$BB" run "$good" --dry-run 2>/dev/null | sed -n 's/^| 1 | s | \(i2_s@[a-z0-9_]*\) .*/\1/p')
expect_ok "1 points, 1 skipped" run "$good" --dry-run --only i2_s --threads 1 --only "$v"

expect_ok "llama-2-7b .* 6.74B .* 4096x4096 (q+k+v+o) 11008x4096 (gate+up) 4096x11008 (down)" list models
expect_ok "bitnet-b1.58-2b4t .* 2.41B .* 2560x2560 (q+o) 640x2560 (k+v)" list models
# the memory each kernel needs (i2_s, f16) at a 2048-token context
expect_ok "bitnet-b1.58-large .* 729M  *[0-9]* MiB  *[0-9.]* GiB 1536x1536" list models
expect_ok "timer .*yes .*timer_tsc_ticks_per_call" list meters
expect_error "unknown list 'foo'; valid: kernels, models, meters" list foo
expect_ok "| *1 | " overhead --threads 1 --samples 5 --batch 10
expect_error "\-\-threads 99: this process may run on" overhead --threads 99

# a broken model config is reported with its file and field
mkdir -p "$T/models"
cp "$BITBENCH_SOURCE_DIR/models/llama-2-7b.lua" "$T/models/"
printf 'return { name = "broken", style = "llama", dim = 64, ffn_dim = 128, n_layers = 2, n_heads = 3,\n  n_kv_heads = 3, vocab_size = 100, source = "test" }\n' > "$T/models/broken.lua"
BITBENCH_MODELS="$T/models" expect_error "broken.lua: dim (64) is not a multiple of n_heads (3): give head_dim" list models
printf 'return { name = "typo", style = "llama", dim = 64, ffn_dim = 128, n_layers = 2, n_heads = 4, n_kv_heads = 4,\n  vocab = 100, source = "test" }\n' > "$T/models/broken.lua"
BITBENCH_MODELS="$T/models" expect_error "unknown field 'vocab' (did you mean 'vocab_size'?)" list models
unset BITBENCH_MODELS

check_summary lua_cli
