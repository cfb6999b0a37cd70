#!/bin/sh
# Small things users tripped over (issue 20 item 6): `bitbench --version` says the version and
# the build commit; `run --dry-run` lists the end-to-end points of model sweeps; `generate` ends
# its text with a newline and prints its statistics on stderr on a line of their own, also when
# both streams go to one file.  $1 is the bitbench binary.
BB="$1"
. "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/lib/shared_dir.sh"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_small_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

"$BB" --version >"$T/v" 2>&1; rc=$?
check '[ "$rc" -eq 0 ] && head -1 "$T/v" | grep -q "^bitbench [0-9][0-9.]* (commit [0-9a-f]\{7,\}\(-dirty\)\?)$"' "--version: rc=$rc $(cat "$T/v")"

mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 256, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
cat > "$T/e.lua" <<LUA
bitbench.experiment { name = "dry", out = "$T/res", sweeps = {
  bitbench.sweep { models = { "tiny" }, kernels = { "i2_s" }, threads = { 1 }, prompt = { 0, 8 }, gen = { 4 } } } }
LUA
BITBENCH_MODELS="$T/models" "$BB" run --dry-run "$T/e.lua" >"$T/dry" 2>&1; rc=$?
check '[ "$rc" -eq 0 ] && grep -q "^| 1 | sweep1 | tiny | i2_s@[a-z0-9]* | 1 | 0 | 4 | 0 |$" "$T/dry" && grep -q "^| 2 | sweep1 | tiny | i2_s@[a-z0-9]* | 1 | 8 | 4 | 0 |$" "$T/dry" && grep -q "^2 end-to-end points$" "$T/dry"' \
    "dry run lists the end-to-end points: rc=$rc $(cat "$T/dry")"
check '[ ! -d "$T/res" ]' "a dry run writes nothing"

model="$SHARED/golden/gguf/stories260K/stories260K.gguf"
if [ -f "$model" ]; then
    "$BB" generate --model "$model" --prompt "Once" --steps 12 --temperature 0 >"$T/both" 2>&1; rc=$?
    check '[ "$rc" -eq 0 ] && [ "$(tail -1 "$T/both" | cut -c1-7)" = "prompt " ] && [ "$(tail -c 1 "$T/both" | od -An -c | tr -d " ")" = "\n" ]' \
        "generate: statistics on their own last line: rc=$rc $(cat "$T/both")"
    "$BB" generate --model "$model" --prompt "Once" --steps 12 --temperature 0 >"$T/out" 2>/dev/null
    check '[ "$(tail -c 1 "$T/out" | od -An -c | tr -d " ")" = "\n" ] && ! grep -q "tok/s" "$T/out"' "generate: text ends with a newline, no statistics on stdout"
else
    echo "test_cli_small_things: no stories260K under $SHARED: generate not checked"
fi

echo "test_cli_small_things: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
