#!/bin/sh
# bitbench e2e --breakdown (issue 32 item 1): where a decode token's time goes, per token over the
# timed generations only (calls = gen x reps, the prefills left out), one row per group stretch
# (prepare, matmul, barrier of qkv, wo, w13, w2, cls), per row-wise stage, attention, and other;
# those rows' ms are non-negative and add up to the measured total, their shares to 100 %; each
# thread's idle time is listed apart; the measured total agrees with tg's ms/token.  Refused with
# --csv and with --gen 0.  $1 is the bitbench binary.
BB="$1"
src=${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}
. "$src/tests/lib/check.sh"
check_scratch e2e_breakdown
mkdir -p "$T/models"
cat > "$T/models/small.lua" <<'LUA'
return { name = "small", style = "bitnet", dim = 256, ffn_dim = 512, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 320, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
BITBENCH_MODELS="$T/models"; export BITBENCH_MODELS

for k in i2_s tl2_0; do
    for th in 1 2; do
        out="$T/$k.$th"
        # what no stage covers is a small part of a step, unless the machine took a thread away in
        # the middle of one (ctest runs two tests at once on two cores): up to three runs, so that
        # only a share that stays high (a stage left out of the profile) fails
        for attempt in 1 2 3; do
            "$BB" e2e --model small --kernel $k --threads $th --prompt 4 --gen 8 --reps 2 --breakdown >"$out" 2>"$out.err"; rc=$?
            other=$(awk '/^    other / { print $4 + 0 }' "$out")
            awk -v o="${other:-100}" 'BEGIN { exit !(o <= 10) }' && break
        done
        check '[ "$rc" -eq 0 ]' "$k t$th: rc=$rc $(cat "$out.err")"
        # 8 tokens x 2 reps; 4 groups per layer x 2 layers + the classifier per token
        check 'grep -q "^  breakdown per decode token, 16 tokens, 144 matmul jobs, $th threads: [0-9.]* ms measured$" "$out"' \
            "$k t$th header: $(grep breakdown "$out")"
        rows=$(awk '/^  breakdown/ { on = 1; next } on && /^    [a-z0-9_.]+ +[-0-9.]+ ms +[-0-9.]+%$/ && $1 !~ /^idle/ { print }' "$out")
        check '[ "$(printf "%s\n" "$rows" | wc -l)" -eq 23 ]' "$k t$th: 23 rows, got: $rows"
        for g in qkv wo w13 w2 cls; do
            for p in prepare matmul barrier; do
                check 'printf "%s\n" "$rows" | grep -q "^    $g\.$p "' "$k t$th: no row $g.$p"
            done
        done
        for s in embed resid_norm rope_store attention sub_norm gate final_norm other; do
            check 'printf "%s\n" "$rows" | grep -q "^    $s "' "$k t$th: no row $s"
        done
        total=$(sed -n 's/^  breakdown per decode token.*: \([0-9.]*\) ms measured$/\1/p' "$out")
        # non-negative; ms add up to the total (4-decimal rounding of 23 rows), shares to 100 %;
        # every matmul ran; what no stage covers is a small part
        verdict=$(printf "%s\n" "$rows" | awk -v total="$total" '
            { ms += $2; share += $4 + 0; if ($2 < 0 || $4 + 0 < 0) bad = bad " negative " $1
              if ($1 ~ /\.matmul$/ && $2 <= 0) bad = bad " zero " $1
              if ($1 == "other") other = $4 + 0 }
            END { if (ms < total - 0.002 || ms > total + 0.002) bad = bad " ms sum " ms " vs " total
                  if (share < 99.7 || share > 100.3) bad = bad " share sum " share
                  if (other > 10) bad = bad " other " other "%"
                  print bad == "" ? "ok" : bad }')
        check '[ "$verdict" = ok ]' "$k t$th:$verdict in: $rows"
        # one idle row per thread, non-negative
        idle=$(grep -c "^    idle\.t[0-9]* *[0-9.]* ms *[0-9.]*%$" "$out")
        check '[ "$idle" -eq "$th" ]' "$k t$th: $idle idle rows: $(grep idle "$out")"
        # the measured total is the mean decode step of the timed repetitions (the same clock
        # readings are in both): between the fastest and the slowest repetition's ms/token, less
        # the little each timed loop spends outside the forward calls
        range=$(sed -n 's/^  tg[0-9]* *[0-9.]* tok\/s  (min \([0-9.]*\), max \([0-9.]*\)).*/\1 \2/p' "$out")
        check 'echo "$range" | awk -v a="$total" "{ exit !(\$1 > 0 && a >= 800 / \$2 && a <= 1000 / \$1) }"' \
            "$k t$th: breakdown $total ms/token outside the repetitions' range (tok/s min, max: $range)"
        check 'grep -q "^  engine   [0-9.]* ms/token in the matmuls. dispatch-to-last-chunk: the decode step takes [0-9.]*x that$" "$out"' \
            "$k t$th engine line: $(grep engine "$out")"
        # the attention's KV rate: the middle generated token (position 4 + 7 / 2 = 7) reads 8 rows
        # of keys and values, f32, 64 wide, of 4 KV heads in 2 layers: 2 * 4 * 8 * 512 = 32768
        # bytes; its ms is the attention row's, its GB/s those bytes over that time (within the
        # rounding of the printed ms and GB/s)
        att=$(sed -n 's/^  attention \([0-9.]*\) ms\/token over \([0-9.]*\) MB of KV cache: \([0-9.]*\) GB\/s, [0-9]*% of the run.s read rate ([0-9.]* GB\/s)$/\1 \2 \3/p' "$out")
        row=$(printf "%s\n" "$rows" | awk '$1 == "attention" { print $2 }')
        check 'echo "$att $row" | awk "{ exit !(\$2 == 0.033 && \$1 == \$4 && \$1 > 0 && (\$3 * \$1 - 0.032768) ^ 2 <= (0.00005 * \$3 + 0.005 * \$1 + 0.0001) ^ 2) }"' \
            "$k t$th attention line (ms MB GB/s, row ms): $att $row: $(grep "^  attention" "$out")"
    done
done

# off by default
"$BB" e2e --model small --kernel i2_s --prompt 4 --gen 2 --reps 1 >"$T/plain" 2>&1
check '! grep -q breakdown "$T/plain" && grep -q "tok/s" "$T/plain"' "without --breakdown: $(cat "$T/plain")"
expect_error "--breakdown prints a text table, --csv and --json one row" e2e --model small --kernel i2_s --breakdown --csv
expect_error "--breakdown times the decode steps: --gen must be at least 1, got 0" e2e --model small --kernel i2_s --gen 0 --prompt 4 --breakdown
check_summary test_e2e_breakdown
