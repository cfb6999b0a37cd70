#!/bin/sh
# Context depth and KV cache types through the commands: `e2e --depth D` measures after D tokens
# in the cache and its read-alone bound counts the KV bytes a token reads (the rows at that depth,
# in each cache type's row size); the CSV gains depth, kv_type_k, kv_type_v and kv_bytes_per_token
# after cpus; a model sweep's `depth` list and KV types become e2e.csv's and e2e_samples.csv's
# columns, the dry run's depth column and results.md's "tg2 @ d260"; a fake llama-bench without
# -d gives one note and no peer row at depth, one with -d gets `-d D`; bad values are one error
# line each (an unknown KV type, q8_0 on a head dimension that is not a multiple of 32, a depth
# past the memory available, a negative depth); a token whose bytes are within twice the
# last-level cache gets a line saying the bound is not a DRAM bound.  $1 is the bitbench binary.
BB="$1"
SRC="${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}"
D=$(cd "$SRC/tests/data/peers" && pwd)
pass=0; fail=0
T=$(mktemp -d /tmp/bb_depth_XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
unset BITBENCH_LLAMA_BENCH BITBENCH_BITNET_BENCH

mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 2, vocab_size = 320, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
cat > "$T/models/odd.lua" <<'LUA'
return { name = "odd", style = "llama", dim = 96, ffn_dim = 256, n_layers = 1, n_heads = 2,
         n_kv_heads = 2, vocab_size = 300, ffn_act = "silu", tied_embedding = true, source = "test" }
LUA
cat > "$T/models/big.lua" <<'LUA'
return { name = "big", style = "bitnet", dim = 1536, ffn_dim = 4096, n_layers = 24, n_heads = 16,
         n_kv_heads = 16, vocab_size = 32002, ffn_act = "silu", tied_embedding = true, source = "test" }
LUA
BITBENCH_MODELS="$T/models"; export BITBENCH_MODELS

csvcol() { # text column row
    printf '%s\n' "$1" | awk -F, -v name="$2" -v row="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR == row + 1 { print $c }'
}
e2e() { "$BB" e2e --model tiny --kernel f32 --prompt 4 --gen 4 --reps 1 --csv "$@" 2>"$T/err"; }

out0=$(e2e --kv f16); rc0=$?
out1=$(e2e --kv f16 --depth 300); rc1=$?
out2=$(e2e --kv-type-k q8_0 --kv-type-v bf16 --depth 300); rc2=$?
check '[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]' "e2e rc $rc0 $rc1 $rc2: $(cat "$T/err")"
check '[ "$(printf "%s\n" "$out1" | head -1 | sed "s/.*,cpus,//; s/,run_id,.*//")" = "depth,kv_type_k,kv_type_v,kv_bytes_per_token" ]' \
    "columns after cpus: $(printf '%s\n' "$out1" | head -1)"
# bytes a token reads at the middle of tg4 (position depth + 4 + 1) after the prompt of 4: 2 layers
# x 2 KV heads x (depth + 6) rows x (key row + value row); head dim 32: f16 and bf16 64 bytes, q8_0 34
check '[ "$(csvcol "$out0" kv_bytes_per_token 1)" = $((2 * 2 * 6 * 128)) ] && [ "$(csvcol "$out1" kv_bytes_per_token 1)" = $((2 * 2 * 306 * 128)) ]' \
    "f16 KV bytes: $(csvcol "$out0" kv_bytes_per_token 1) at depth 0, $(csvcol "$out1" kv_bytes_per_token 1) at 300"
check '[ "$(csvcol "$out2" kv_bytes_per_token 1)" = $((2 * 2 * 306 * (34 + 64))) ] && [ "$(csvcol "$out2" kv_type_k 1)" = q8_0 ] && [ "$(csvcol "$out2" kv_type_v 1)" = bf16 ] && [ "$(csvcol "$out2" depth 1)" = 300 ]' \
    "q8_0/bf16: $out2"
out=$("$BB" e2e --model tiny --kernel f32 --prompt 4 --gen 4 --reps 1 --depth 300 2>&1); rc=$?
check '[ $rc -eq 0 ] && printf "%s\n" "$out" | grep -q "context  depth 300, KV cache keys f32, values f32" && printf "%s\n" "$out" | grep -q "MB of KV cache"' \
    "e2e text at depth: $out"
# a token's bytes (tiny: well under a MiB, the least last-level cache bitbench assumes) within
# twice the LLC: the text says so, and its ratio is the bytes over the cache it names (to the
# rounding of its two decimals)
line=$(printf "%s\n" "$out" | sed -n 's/^  cache    the \([0-9.]*\) MB a token reads are \([0-9.]*\)x the \([0-9.]*\) MiB last-level cache (.*/\1 \2 \3/p')
check 'echo "$line" | awk "NF == 3 && \$3 >= 1 { r = \$1 * 1e6 / (\$3 * 1048576); exit !((r - \$2) ^ 2 <= 0.0000251) } END { if (NF != 3) exit 1 }"' \
    "e2e text names the LLC a small model's token fits in: [$line] $out"
out=$("$BB" e2e --model tiny --kernel f32 --prompt 4 --gen 0 --reps 1 2>&1)
check '! printf "%s\n" "$out" | grep -q "^  cache "' "no cache line without a decode: $out"

# refusals: one line each, non-zero exit
out=$("$BB" e2e --model tiny --kernel f32 --kv q4_0 2>&1); rc=$?
check '[ $rc -eq 2 ] && [ "$out" = "bitbench e2e: --kv: KV cache type '"'"'q4_0'"'"' is not one of f32, f16, bf16, q8_0" ]' "--kv q4_0: rc $rc: $out"
out=$("$BB" e2e --model odd --kernel f32 --kv-type-v q8_0 --prompt 2 --gen 2 --reps 1 2>&1); rc=$?
check '[ $rc -ne 0 ] && [ $(printf "%s\n" "$out" | wc -l) -eq 1 ] && printf "%s\n" "$out" | grep -q "q8_0 needs a head dimension that is a multiple of 32; this model.s is 48"' \
    "q8_0 at head dim 48: rc $rc: $out"
out=$("$BB" e2e --model tiny --kernel f32 --depth -1 2>&1); rc=$?
check '[ $rc -eq 2 ] && [ $(printf "%s\n" "$out" | wc -l) -eq 1 ] && printf "%s\n" "$out" | grep -q -- "--depth"' "--depth -1: rc $rc: $out"
# a depth whose KV cache cannot fit: refused before anything is allocated, naming the context
out=$("$BB" e2e --model big --kernel i2_s --prompt 4 --gen 4 --depth 1000000 --reps 1 2>&1); rc=$?
check '[ $rc -ne 0 ] && [ $(printf "%s\n" "$out" | wc -l) -eq 1 ] && printf "%s\n" "$out" | grep -q "1000008-token context needs .*KV cache"' \
    "a depth past memory: rc $rc: $out"

# a model sweep: depth list and KV types into e2e.csv, the dry run's depth column
cat > "$T/d.lua" <<LUA
bitbench.experiment { name = "d", out = "$T/res", plots = { "e2e_depth" }, sweeps = {
  bitbench.sweep { name = "s", models = {"tiny"}, kernels = {"f32"}, threads = 1, prompt = 4, gen = 2,
                   reps = 1, depth = { 0, 260 }, kv_type_k = "q8_0", kv_type_v = "f16" } } }
LUA
"$BB" run "$T/d.lua" --dry-run > "$T/dry" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "| prompt | gen | depth |" "$T/dry" && grep -q "| 1 | 4 | 2 | 260 |" "$T/dry"' "dry run: $(cat "$T/dry")"
"$BB" run "$T/d.lua" --quiet > "$T/out" 2> "$T/err"; rc=$?
csv=$(ls "$T"/res/*/e2e.csv 2>/dev/null)
c=$(cat "$csv" 2>/dev/null)
check '[ $rc -eq 0 ] && [ "$(csvcol "$c" depth 1)" = 0 ] && [ "$(csvcol "$c" depth 2)" = 260 ] && [ "$(csvcol "$c" kv_type_k 2)" = q8_0 ] && [ "$(csvcol "$c" kv_type_v 2)" = f16 ]' \
    "sweep rows: rc $rc $(cat "$T/err") $c"
check 'grep -q "tg2 @ d260" "$(dirname "$csv")/results.md"' "results.md names the depth: $(cat "$(dirname "$csv")/results.md")"
if command -v gnuplot >/dev/null 2>&1; then
    check 'grep -q "f32@.* tiny t1 kv q8_0/f16" "$(dirname "$csv")/plots/e2e_depth.svg"' "e2e_depth plot: $(ls "$(dirname "$csv")/plots")"
fi
# a sweep without prefill (prompt = 0, as experiments/peers_depth.lua): the plot draws the
# generation panel alone (before, gnuplot stopped on the prefill panel's undefined points)
cat > "$T/g.lua" <<LUA
bitbench.experiment { name = "g", out = "$T/resg", plots = { "e2e_depth" }, sweeps = {
  bitbench.sweep { name = "s", models = {"tiny"}, kernels = {"f32"}, threads = 1, prompt = 0, gen = 2,
                   reps = 1, depth = { 0, 40 } } } }
LUA
"$BB" run "$T/g.lua" --quiet > "$T/gout" 2> "$T/gerr"; rc=$?
check '[ $rc -eq 0 ] && ! grep -q "not drawn" "$T/gerr"' "a sweep without prefill: rc $rc: $(cat "$T/gerr")"
if command -v gnuplot >/dev/null 2>&1; then
    gsvg=$(ls "$T"/resg/*/plots/e2e_depth.svg 2>/dev/null)
    check '[ -n "$gsvg" ] && grep -q "generation throughput" "$gsvg" && ! grep -q "prefill throughput" "$gsvg"' \
        "e2e_depth without prefill: $(ls "$T"/resg/*/plots 2>&1) $(cat "$T/gerr")"
fi
sc=$(cat "$(dirname "$csv")/e2e_samples.csv")
check '[ "$(csvcol "$sc" depth 3)" = 260 ] && [ "$(csvcol "$sc" kv_type_k 3)" = q8_0 ]' "e2e_samples.csv depth: $sc"
# bad sweep fields: one line each
printf 'bitbench.experiment { name = "b", sweeps = { bitbench.sweep { name = "s", models = {"tiny"}, kernels = {"f32"}, kv = "q4_0" } } }\n' > "$T/b1.lua"
printf 'bitbench.experiment { name = "b", sweeps = { bitbench.sweep { name = "s", models = {"tiny"}, kernels = {"f32"}, depth = { -1 } } } }\n' > "$T/b2.lua"
for f in b1 b2; do
    "$BB" run "$T/$f.lua" --dry-run > "$T/out_$f" 2>&1; rc=$?
    check '[ $rc -ne 0 ] && [ $(wc -l < "$T/out_$f") -eq 1 ]' "$f: rc $rc: $(cat "$T/out_$f")"
done
check 'grep -q "kv.*q4_0" "$T/out_b1"' "unknown kv type: $(cat "$T/out_b1")"
check 'grep -q "depth" "$T/out_b2"' "negative depth: $(cat "$T/out_b2")"

# peers at depth: a llama-bench without -d: one note, no peer row; with -d: -d 260 and a row
cat > "$T/p.lua" <<LUA
bitbench.experiment { name = "p", out = "$T/resp", sweeps = {
  bitbench.sweep { name = "s", models = {"tiny"}, kernels = {"f32"}, threads = 1, prompt = 4, gen = 2,
                   reps = 1, depth = { 260 }, kv = "f16", peers = {"llama.cpp"}, peer_timeout = 5 } } }
LUA
PATH=/usr/bin:/bin "$BB" run "$T/p.lua" --quiet --peer "llama.cpp=$D/fake_llama_bench.sh" > "$T/out" 2> "$T/err"; rc=$?
pcsv=$(ls "$T"/resp/*/e2e.csv)
check '[ $rc -eq 3 ] && grep -q "peer point (s tiny llama.cpp:f32 pp4 tg2 d260 t1) skipped: .*fake_llama_bench.sh has no -d (its --help lists no --n-depth): depth 260 not measured by this peer, point skipped" "$(dirname "$pcsv")/run.json" && [ "$(wc -l < "$pcsv")" -eq 2 ]' \
    "peer without -d: rc $rc, $(cat "$T/err") $(grep -A3 failed "$(dirname "$pcsv")/run.json") $(cat "$pcsv")"
rm -rf "$T/resp"
BB_FAKE_BENCH_DEPTH=1 BB_FAKE_BENCH_DEPTH_LOG="$T/depths" PATH=/usr/bin:/bin "$BB" run "$T/p.lua" --quiet \
    --peer "llama.cpp=$D/fake_llama_bench.sh" > "$T/out" 2> "$T/err"; rc=$?
pcsv=$(ls "$T"/resp/*/e2e.csv)
pc=$(cat "$pcsv")
# (the recorded llama-bench output is noisy, so the peer point is re-measured: every run gets -d 260)
check '[ $rc -eq 0 ] && [ "$(sort -u "$T/depths")" = 260 ] && [ "$(csvcol "$pc" peer 1)" = llama.cpp ] && [ "$(csvcol "$pc" depth 1)" = 260 ]' \
    "peer with -d: rc $rc, $(cat "$T/err") $pc $(cat "$T/depths" 2>/dev/null)"

echo "test_depth_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
