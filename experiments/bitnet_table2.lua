-- bitnet.cpp, Table 2 and §3.2: "I2_S, TL1_1, and TL2_1 achieve lossless [inference] in
-- BitNet b1.58", while TL1_0 and TL2_0 (int8-quantized lookup tables) "exhibit negligible loss"
-- (WikiText2 perplexity 11.30 against 11.29 for Float16, I2_S, TL1_1, TL2_1; Q4_0 11.57), measured
-- on bitnet_b1_58-large.  Perplexity needs the real checkpoint; what the claim rests on — that the
-- lossless kernels compute exactly BitNet b1.58's arithmetic (ternary weights, one per-tensor weight
-- scale, per-tensor absmax int8 activations) and so agree bit for bit — is checked here directly:
--
--   logits:  bitnet_b1_58-large's shapes with synthetic ternary weights; the logits of 16
--            teacher-forced tokens through every kernel are compared with those through i2_s
--            (compare_logits = "i2_s"): logits_identical = 1 for tl1_1 and tl2_1 means bit-identical
--            at every position; logit_max_abs_err and top1_agreement measure the others (tl1_0,
--            tl2_0, q4_0, tq2_0, and f16, which skips the activation quantization).
--   verify:  GEMV on the same model's three projection shapes with verify = true: each kernel's
--            err_rel_rms against an fp64 product of its own dequantized weights (the error its
--            arithmetic adds) and weight_rel_rms (what its format loses of the master weights).
--
--   bitbench run experiments/bitnet_table2.lua          # 700M, 4 distinct layers, 16 tokens; 10 kernels x 3 shapes: ~1.5 min on 2 quiet cores
--   bitbench run experiments/bitnet_table2.lua --full   # all 24 layers distinct, 64 tokens: ~4 min
--   bitbench run experiments/bitnet_table2.lua --smoke  # bitnet-dummy-125m, 4 tokens, one small shape: seconds
--
-- Report: scripts/reproduce/bitnet_table2.lua ("identical? / max |Δlogit| / top-1 agreement" beside
-- the paper's Table 2).
local S = bitbench.size
local smoke, full = S == "smoke", S == "full"

bitbench.experiment {
  name = "bitnet_table2",
  description = "bitnet.cpp Table 2: lossless i2_s / tl1_1 / tl2_1 (bit-identical logits) against tl1_0, tl2_0, "
    .. "q4_0, tq2_0, f16 on bitnet_b1_58-large shapes; per-kernel GEMV error with verify",
  sweeps = {
    bitbench.sweep {
      name = "logits",
      models = { smoke and "bitnet-dummy-125m" or "bitnet-b1.58-large" },
      kernels = bitbench.usable(smoke and { "i2_s", "tl2_1", "tl2_0" }
                     or { "i2_s", "tl1_1", "tl2_1", "tl1_0", "tl2_0", "q4_0", "tq2_0", "f16" }),
      out_kernel = "f16",
      compare_logits = "i2_s",
      compare_tokens = smoke and 4 or (full and 64 or 16),
      threads = { smoke and 1 or bitbench.machine.cores },
      prompt = { 0 },
      gen = { 1 },     -- the speed is not the point here; one timed token keeps each point short
      reps = 1,
      kv = "f32",
      distinct_layers = smoke and 1 or (full and 0 or 4),
      on_unsupported = "skip",
    },
    bitbench.sweep {
      name = "verify",
      kernels = bitbench.usable(smoke and { "i2_s", "tl2_1", "tl2_0", "q4_0" }
                     or { "i2_s", "tl1_1", "tl2_1", "tl1_0", "tl2_0", "tq2_0", "tq1_0", "tmac_w2", "q4_0", "f16" }),
      shapes = smoke and { { m = 256, k = 1536 } } or { "bitnet-b1.58-large" },
      n = 1,
      threads = 1,
      cache = "resident",
      verify = true,
      warmup = 1, reps = smoke and 2 or 5, min_seconds = smoke and 0.01 or 0.05,
      on_unsupported = "skip",
    },
  },
}
