#!/bin/sh
# Model sweeps (bitbench.sweep{ models = ... }): validation errors name the file and line, a tiny
# model sweep runs end to end into a well-formed e2e.csv with positive tokens/s, and a model that
# cannot fit in memory is refused before any work.  $1 is the bitbench binary.
BB="$1"
. "${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/lib/check.sh"
check_scratch e2e_sweep

# a tiny BitNet model in a models directory of our own
mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 256, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
cp models/bitnet-dummy-100b.lua "$T/models/" 2>/dev/null || cp "$(dirname "$0")/../models/bitnet-dummy-100b.lua" "$T/models/"
BITBENCH_MODELS="$T/models"; export BITBENCH_MODELS

sweep() { # $1 file, $2 the sweep's fields
    printf 'bitbench.experiment {\n  name = "e2e_t", out = "%s",\n  sweeps = {\n    bitbench.sweep { %s },\n  },\n}\n' \
        "$T/res" "$2" > "$T/$1"
}

sweep typo.lua 'models = {"tiny"}, kernels = {"i2_s"}, prompts = {4}'
expect_error "typo.lua:4: sweep 'sweep1': unknown field 'prompts'" run "$T/typo.lua"
# a model sweep's reps, seed and delay are one value each (a kernel sweep's are lists): a list is
# refused by name, and warmup / min_seconds (kernel-sweep fields) are unknown there
for f in reps seed delay; do
    sweep list_$f.lua "models = {\"tiny\"}, kernels = {\"i2_s\"}, $f = {1, 2}"
    expect_error "list_$f.lua:4: sweep 'sweep1': field '$f' of a model sweep is one value, got a list" run "$T/list_$f.lua"
done
sweep warm.lua 'models = {"tiny"}, kernels = {"i2_s"}, warmup = {1, 2}'
expect_error "warm.lua:4: sweep 'sweep1': unknown field 'warmup'" run "$T/warm.lua"
sweep model.lua 'models = {"tinny"}, kernels = {"i2_s"}'
expect_error "model.lua:4: sweep 'sweep1': field 'models', entry 1: .*tiny" run "$T/model.lua"
sweep kern.lua 'models = {"tiny"}, kernels = {"i2s"}'
expect_error "kern.lua:4: .*unknown kernel 'i2s' (did you mean 'i2_s'?)" run "$T/kern.lua"
sweep outk.lua 'models = {"tiny"}, kernels = {"i2_s"}, out_kernel = "f61"'
expect_error "outk.lua:4: .*field 'out_kernel': unknown kernel 'f61'" run "$T/outk.lua"
sweep kv.lua 'models = {"tiny"}, kernels = {"i2_s"}, kv = "q8"'
expect_error "kv.lua:4: .*kv.*f32.*f16" run "$T/kv.lua"
sweep both.lua 'models = {"tiny"}, shapes = {{256,256}}, kernels = {"i2_s"}'
expect_error "both.lua:4: .*both 'models'.*'shapes'" run "$T/both.lua"
sweep zero.lua 'models = {"tiny"}, kernels = {"i2_s"}, prompt = 0, gen = 0'
expect_error "zero.lua:4: .*both 0" run "$T/zero.lua"
sweep reps.lua 'models = {"tiny"}, kernels = {"i2_s"}, reps = 0'
expect_error "reps.lua:4: .*reps" run "$T/reps.lua"
sweep cmpk.lua 'models = {"tiny"}, kernels = {"i2_s"}, compare_logits = "i2s"'
expect_error "cmpk.lua:4: .*field 'compare_logits': unknown kernel 'i2s' (did you mean 'i2_s'?); valid kernels: .*f32" \
    run "$T/cmpk.lua"
sweep cmpt.lua 'models = {"tiny"}, kernels = {"i2_s"}, compare_logits = "f32", compare_tokens = 0'
expect_error "cmpt.lua:4: .*compare_tokens.*1" run "$T/cmpt.lua"
sweep cmpn.lua 'models = {"tiny"}, kernels = {"i2_s"}, compare_tokens = 8'
expect_error "cmpn.lua:4: .*'compare_tokens' is set but 'compare_logits' is not" run "$T/cmpn.lua"

# a model that cannot fit is refused up front (on_unsupported = "error"), or skipped and reported
sweep big.lua 'models = {"bitnet-dummy-100b"}, kernels = {"f32"}, on_unsupported = "error"'
expect_error "big.lua:4: sweep 'sweep1': f32 cannot run model bitnet-dummy-100b: does not fit in memory: needs" \
    run "$T/big.lua"
sweep bigskip.lua 'models = {"bitnet-dummy-100b"}, kernels = {"f32"}'
expect_error "nothing to run" run "$T/bigskip.lua"

# the tiny model end to end
sweep good.lua 'name = "tiny_e2e", models = {"tiny"}, kernels = {"i2_s", "f16"}, threads = {1}, prompt = {8}, gen = {4}, reps = 2, kv = "f16"'
out=$("$BB" run "$T/good.lua" 2>"$T/stderr"); rc=$?
check '[ "$rc" -eq 0 ]' "tiny sweep exit $rc: $(cat "$T/stderr")"
csv=$(ls "$T"/res/e2e_t-*/e2e.csv 2>/dev/null | head -1)
check '[ -f "$csv" ]' "no e2e.csv"
check '[ "$(head -1 "$csv")" = "experiment,sweep,point,model,kernel,variant,variant_ran_pp,variant_ran_tg,fallback_calls,family,bits_per_weight,out_kernel,threads,prompt,gen,reps,pp_tps,pp_tps_min,pp_tps_max,tg_tps,tg_tps_min,tg_tps_max,ms_per_token,matmul_share,weight_bytes_per_token,tg_gbps_derived,read_tps,read_tps_max,read_gbps,tg_of_read,footprint_bytes,ref_kernel,logit_max_abs_err,logit_rel_rms_err,top1_agreement,logits_identical,ppl_model,ppl,ppl_err,ppl_tokens,ppl_tps,peer,peer_commit,pp_samples,tg_samples,energy_per_token_j,cpus,depth,kv_type_k,kv_type_v,kv_bytes_per_token,run_id,host,commit,load_before,load_after,other_cpu_share,busy,pp_spread,tg_spread,spread_flag,attempts,rounds,round,rounds_pp_tps,rounds_tg_tps,rounds_tg_of_read,interleaved,read_streams,stream_prefetch,cpu_model,timer_region_s,timer_tsc_ticks_per_call,timer_tsc_ghz" ]' "e2e.csv header"
check '[ "$(wc -l < "$csv")" -eq 3 ]' "e2e.csv: want 2 rows"
bad=$(awk -F, 'NR > 1 && (NF != 74 || ($69 != 1 && $69 != 8) || $70 != "" || $48 != 0 || $49 != "f16" || $50 != "f16" || !($51 > 0) || $7 != ($6 == "amx" ? "avx512" : $6) || $8 != ($6 == "amx" ? "avx512" : $6) || $9 != 0 || $32 != "" || $4 != "tiny" || $13 != 1 || $14 != 8 || $15 != 4 || !($17 > 0) || !($20 > 0) || !($18 <= $17 && $17 <= $19) || !($21 <= $20 && $20 <= $22) || !($25 > 0) || !($27 > 0) || !($28 >= $27) || !($29 > 0) || !($30 > 0) || !($31 > 0)) { print }' "$csv")
check '[ -z "$bad" ]' "malformed rows: $bad"
check 'printf "%s" "$out" | grep -q "| tiny | i2_s@[a-z0-9]*\( (ran [a-z0-9+]*)\)\? | 1 | tg4 |"' "markdown table: $out"
check 'grep -q "\"e2e_csv\": \"e2e.csv\"" "$T"/res/e2e_t-*/run.json' "run.json names e2e.csv"
check 'grep -q "\"status\": \"complete\"" "$T"/res/e2e_t-*/run.json' "run.json complete"

# --resume measures only the end-to-end points e2e.csv lacks
dir=$(dirname "$csv")
sed -i '$d' "$csv"
sed -i 's/"status": "complete"/"status": "incomplete"/' "$dir/run.json"
"$BB" run "$T/good.lua" --resume >/dev/null 2>"$T/stderr2"; rc=$?
check '[ "$rc" -eq 0 ] && [ "$(wc -l < "$csv")" -eq 3 ]' "resume: exit $rc, $(wc -l < "$csv") lines: $(cat "$T/stderr2")"
check '[ "$(cut -d, -f5 "$csv" | sort | tr "\n" " ")" = "f16 i2_s kernel " ]' "resume: each kernel once: $(cat "$csv")"

# meters bracket each point's token generation: the timer's region is the median repetition's
# generation (gen tokens at tg_tps), an energy meter that cannot run here leaves its columns and
# energy_per_token_j empty (never 0), one that can gives positive joules per token
printf 'bitbench.experiment {\n  name = "e2e_m", out = "%s", meters = {"rapl"},\n  sweeps = {\n    bitbench.sweep { models = {"tiny"}, kernels = {"i2_s"}, threads = {1}, prompt = {4}, gen = {6}, reps = 3 },\n  },\n}\n' \
    "$T/res" > "$T/meters.lua"
"$BB" run "$T/meters.lua" >/dev/null 2>"$T/stderr3"; rc=$?
check '[ "$rc" -eq 0 ]' "meters sweep exit $rc: $(cat "$T/stderr3")"
mcsv=$(ls "$T"/res/e2e_m-*/e2e.csv 2>/dev/null | head -1)
col() { # $1 column name: its value in the first row
    awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR == 2 && c { print $c }' "$mcsv"
}
check '[ "$(head -1 "$mcsv" | tr , "\n" | tail -20 | tr "\n" " ")" = "busy pp_spread tg_spread spread_flag attempts rounds round rounds_pp_tps rounds_tg_tps rounds_tg_of_read interleaved read_streams stream_prefetch cpu_model timer_region_s timer_tsc_ticks_per_call timer_tsc_ghz rapl_pkg_energy_j rapl_energy_per_call_j_derived rapl_avg_power_w_derived " ]' \
    "meter columns appended: $(head -1 "$mcsv")"
tokens=$(awk -v r="$(col timer_region_s)" -v t="$(col tg_tps)" 'BEGIN { print r * t }')
check 'awk -v x="$tokens" "BEGIN { exit !(x > 5.4 && x < 7.5) }"' "timer region x tg_tps = $tokens, want about 6 generated tokens"
check 'awk -v x="$(col timer_tsc_ticks_per_call)" "BEGIN { exit !(x > 0) }"' "ticks per token $(col timer_tsc_ticks_per_call)"
if grep -A2 '"name": "rapl"' "$T"/res/e2e_m-*/run.json | grep -q '"available": false'; then
    check '[ -z "$(col rapl_pkg_energy_j)" ] && [ -z "$(col energy_per_token_j)" ]' \
        "rapl unavailable: empty energy cells, got '$(col rapl_pkg_energy_j)' '$(col energy_per_token_j)'"
else
    check 'awk -v e="$(col energy_per_token_j)" -v j="$(col rapl_pkg_energy_j)" "BEGIN { exit !(e > 0 && e * 6 > j * 0.99 && e * 6 < j * 1.01) }"' \
        "rapl available: energy_per_token_j = rapl_pkg_energy_j / 6, got $(col energy_per_token_j) $(col rapl_pkg_energy_j)"
fi

# compare_logits: the lossless ternary kernels give logits bit-identical to i2_s's (bitnet.cpp,
# paper 000, Table 2), f16 is close to f32 but not identical; a sweep without it leaves the cells empty
printf 'bitbench.experiment {\n  name = "e2e_c", out = "%s",\n  sweeps = {\n%s\n%s\n  },\n}\n' "$T/res" \
    '    bitbench.sweep { name = "ternary", models = {"tiny"}, kernels = {"tl2_1", "tl1_1", "i2_s", "f32"}, threads = {1}, prompt = {0}, gen = {2}, reps = 1, compare_logits = "i2_s", compare_tokens = 12 },' \
    '    bitbench.sweep { name = "float", models = {"tiny"}, kernels = {"f16"}, threads = {1}, prompt = {0}, gen = {2}, reps = 1, compare_logits = "f32" },' \
    > "$T/compare.lua"
"$BB" run "$T/compare.lua" >/dev/null 2>"$T/stderr4"; rc=$?
check '[ "$rc" -eq 0 ]' "compare sweep exit $rc: $(cat "$T/stderr4")"
ccsv=$(ls "$T"/res/e2e_c-*/e2e.csv 2>/dev/null | head -1)
row() { awk -F, -v s="$1" -v k="$2" '$2 == s && $5 == k { print $32 "," $33 "," $34 "," $35 "," $36 }' "$ccsv"; }
for k in tl2_1 tl1_1 i2_s; do
    check '[ "$(row ternary $k)" = "i2_s,0,0,1,1" ]' "$k vs i2_s: want identical logits, got $(row ternary $k)"
done
check 'row ternary f32 | awk -F, "{ exit !(\$1 == \"i2_s\" && \$2 > 0 && \$3 > 0 && \$3 < 0.1 && \$5 == 0) }"' \
    "f32 vs i2_s: int8 activations differ a little: $(row ternary f32)"
check 'row float f16 | awk -F, "{ exit !(\$1 == \"f32\" && \$2 > 0 && \$3 > 0 && \$3 < 0.01 && \$4 >= 0.75 && \$5 == 0) }"' \
    "f16 vs f32: close, top-1 mostly the same, not identical: $(row float f16)"
check 'grep -q "\"compare_logits\": \"i2_s\"" "$T"/res/e2e_c-*/run.json && grep -q "\"compare_tokens\": 16" "$T"/res/e2e_c-*/run.json' \
    "run.json lists compare_logits and compare_tokens (default 16)"

# the configuration of the bitnet.cpp Table 2 experiment: tl2_1 against i2_s on bitnet-dummy-125m
unset BITBENCH_MODELS
printf 'bitbench.experiment {\n  name = "e2e_d", out = "%s",\n  sweeps = {\n%s\n  },\n}\n' "$T/res" \
    '    bitbench.sweep { models = {"bitnet-dummy-125m"}, kernels = {"tl2_1"}, prompt = {0}, gen = {1}, reps = 1, distinct_layers = 1, compare_logits = "i2_s", compare_tokens = 4 },' \
    > "$T/dummy.lua"
"$BB" run "$T/dummy.lua" >/dev/null 2>"$T/stderr5"; rc=$?
dcsv=$(ls "$T"/res/e2e_d-*/e2e.csv 2>/dev/null | head -1)
check '[ "$rc" -eq 0 ] && [ "$(awk -F, "NR == 2 { print \$32 \",\" \$36 }" "$dcsv")" = "i2_s,1" ]' \
    "bitnet-dummy-125m tl2_1 vs i2_s: exit $rc, want logits_identical 1: $(cat "$dcsv") $(cat "$T/stderr5")"

check_summary
