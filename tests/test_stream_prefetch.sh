#!/bin/sh
# The software prefetch of the one-stream variants (kernels/cpu.h, bb_variant's stream_prefetch):
# BITBENCH_STREAM_PREFETCH=on or off overrides the CPU's rule and anything else is one error line
# and exit status 2; the same call gives the same bits either way (a prefetch never changes a
# result: --verify's errors are equal to the last digit); gemm says the setting for such a kernel
# and not for another, `describe` names the variants that follow it, results.csv and e2e.csv
# carry it in stream_prefetch (empty for code that does not follow it: another kernel, or the
# scalar reference), run.json's kernel_settings says it and why; the x16 readers of q8_K
# activations give the same bits read in lockstep or in order.  $1 is the bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_stream_prefetch_XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
csvcol() { # text column row
    printf '%s\n' "$1" | awk -F, -v name="$2" -v row="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR == row + 1 { print $c }'
}

out=$(BITBENCH_STREAM_PREFETCH=maybe "$BB" gemm --kernel q8_0_x16 --m 32 --k 256 --reps 3 --min-time 0 2>&1); rc=$?
check '[ $rc -eq 2 ] && [ "$out" = "BITBENCH_STREAM_PREFETCH='"'"'maybe'"'"': not on or off (unset: the rule for this CPU)" ]' \
    "a bad value: rc $rc: $out"

gemm() { # setting kernel: the --verify --csv output
    BITBENCH_STREAM_PREFETCH=$1 "$BB" gemm --kernel "$2" --m 64 --k 512 --seed 7 --reps 3 --min-time 0 --verify --csv 2>"$T/err"
}
on=$(gemm on q8_0_x16); off=$(gemm off q8_0_x16)
# the scalar reference prefetches nothing (the only variant under BITBENCH_CPU_MASK=scalar): empty
if [ "$(csvcol "$on" variant_ran 1)" = scalar ]; then want_on="" want_off=""; else want_on=on want_off=off; fi
check '[ "$(csvcol "$on" stream_prefetch 1)" = "$want_on" ] && [ "$(csvcol "$off" stream_prefetch 1)" = "$want_off" ]' \
    "stream_prefetch column of q8_0_x16@$(csvcol "$on" variant_ran 1): '$(csvcol "$on" stream_prefetch 1)' '$(csvcol "$off" stream_prefetch 1)' $(cat "$T/err")"
for c in err_max_abs err_rel_rms verify; do
    check '[ -n "$(csvcol "$on" $c 1)" ] && [ "$(csvcol "$on" $c 1)" = "$(csvcol "$off" $c 1)" ]' \
        "$c differs with the prefetch on and off: '$(csvcol "$on" $c 1)' '$(csvcol "$off" $c 1)'"
done
check '[ "$(csvcol "$(gemm off i2_s)" stream_prefetch 1)" = "" ]' "i2_s does not follow the setting: its cell is not empty"
# the x16 readers of q8_K activations: off reads the groups in order without prefetch, on in
# lockstep (N = 1) or in order with it (N > 1); the same bits at both (--verify's errors), and the
# column says it where their AVX-512 code ran
for k in tq2_0_x16 q2_k_x16 tq1_0_x16; do
    for n in 1 5; do
        on=$(BITBENCH_STREAM_PREFETCH=on "$BB" gemm --kernel $k --m 64 --k 512 --n $n --seed 7 --reps 3 --min-time 0 --verify --csv 2>"$T/err")
        off=$(BITBENCH_STREAM_PREFETCH=off "$BB" gemm --kernel $k --m 64 --k 512 --n $n --seed 7 --reps 3 --min-time 0 --verify --csv 2>"$T/err")
        check '[ "$(csvcol "$on" verify 1)" = passed ] && [ -n "$(csvcol "$on" err_max_abs 1)" ] && [ "$(csvcol "$on" err_max_abs 1)" = "$(csvcol "$off" err_max_abs 1)" ] && [ "$(csvcol "$on" err_rel_rms 1)" = "$(csvcol "$off" err_rel_rms 1)" ]' \
            "$k N=$n on/off: $(csvcol "$on" verify 1) '$(csvcol "$on" err_max_abs 1)' '$(csvcol "$off" err_max_abs 1)' $(cat "$T/err")"
        case "$(csvcol "$on" variant_ran 1)" in avx512) want=on ;; *) want="" ;; esac
        check '[ "$(csvcol "$on" stream_prefetch 1)" = "$want" ]' "$k@$(csvcol "$on" variant_ran 1) N=$n: stream_prefetch '$(csvcol "$on" stream_prefetch 1)'"
    done
done
text=$(BITBENCH_STREAM_PREFETCH=off "$BB" gemm --kernel q8_0_x16 --m 64 --k 512 --reps 3 --min-time 0 2>&1)
if [ -n "$want_off" ]; then
    check 'printf "%s\n" "$text" | grep -q "^  prefetch off  (BITBENCH_STREAM_PREFETCH=off; kernels/cpu.h)$"' "gemm text: $text"
else
    check '! printf "%s\n" "$text" | grep -q prefetch' "gemm text of q8_0_x16@scalar names a prefetch setting: $text"
fi
text=$("$BB" gemm --kernel i2_s --m 64 --k 512 --reps 3 --min-time 0 2>&1)
check '! printf "%s\n" "$text" | grep -q prefetch' "gemm text of i2_s names a prefetch setting: $text"

# describe names the variants that follow it and the setting here; nothing for i2_s
d=$(BITBENCH_STREAM_PREFETCH=off "$BB" describe q8_0_x16 --json)
check 'printf "%s" "$d" | python3 -c "
import json, sys
d = json.load(sys.stdin)
v = {x[\"isa\"]: x.get(\"stream_prefetch\", False) for x in d[\"all_variants\"]}
sys.exit(not (d[\"stream_prefetch\"] == \"off\" and d[\"stream_prefetch_why\"] == \"BITBENCH_STREAM_PREFETCH=off\"
              and v[\"scalar\"] is False and any(v.values())))"' "describe q8_0_x16 --json: $d"
check 'BITBENCH_STREAM_PREFETCH=on "$BB" describe q8_0_x16 | grep -q "^one stream .*: software prefetch on here (BITBENCH_STREAM_PREFETCH=on; kernels/cpu.h)$"' \
    "describe q8_0_x16: $("$BB" describe q8_0_x16 2>&1 | tail -3)"
check '! "$BB" describe i2_s | grep -q "^one stream" && "$BB" describe i2_s --json | python3 -c "
import json, sys; sys.exit(json.load(sys.stdin)[\"stream_prefetch\"] is not None)"' "describe i2_s names a stream prefetch"

# e2e: a classifier through q8_0_x16 follows it, f16 does not
mkdir -p "$T/models"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 2, vocab_size = 320, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
e2e() { BITBENCH_MODELS="$T/models" BITBENCH_STREAM_PREFETCH=on "$BB" e2e --model tiny --kernel i2_s --prompt 2 --gen 2 --reps 1 --csv "$@" 2>"$T/err"; }
check '[ "$(csvcol "$(e2e --out-kernel q8_0_x16)" stream_prefetch 1)" = "$want_on" ]' "e2e with a q8_0_x16 classifier: $(cat "$T/err")"
check '[ "$(csvcol "$(e2e)" stream_prefetch 1)" = "" ]' "e2e with an f16 classifier: not empty"

# run.json says the setting and why
cat > "$T/k.lua" <<LUA
bitbench.experiment { name = "pf", out = "$T/res", sweeps = {
  bitbench.sweep { name = "g", kernels = { "q8_0_x16" }, shapes = { { m = 64, k = 512 } }, n = { 1 },
                   threads = { 1 }, warmup = 1, reps = 3, min_seconds = 0 } } }
LUA
BITBENCH_STREAM_PREFETCH=off "$BB" run --quiet "$T/k.lua" >/dev/null 2>"$T/err"; rc=$?
run=$(ls -d "$T"/res/pf-* 2>/dev/null | head -1)
check '[ $rc -eq 0 ] && python3 -c "
import json, sys
k = json.load(open(sys.argv[1]))[\"kernel_settings\"]
sys.exit(not (k[\"stream_prefetch\"] is False and k[\"stream_prefetch_why\"] == \"BITBENCH_STREAM_PREFETCH=off\"))" "$run/run.json"' \
    "run.json kernel_settings: rc $rc $(cat "$T/err") $(grep -A3 kernel_settings "$run/run.json" 2>&1)"
check '[ "$(csvcol "$(cat "$run/results.csv")" stream_prefetch 1)" = "$want_off" ]' "results.csv stream_prefetch: $(cat "$run/results.csv")"

echo "test_stream_prefetch: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
