-- Arm paper §6.5, Table 4's idea: the group-wise codebook format (bitbench's cb2,
-- 2.5625 bits per weight) against the uniform Q2_K (q2_k, 2.625) at about the same size, and the
-- 4.5-bit IQ4_NL (iq4_nl) and Q4_0 (q4_0), with Q8_0 (q8_0) as the near-lossless end.  The paper
-- measures WikiText2 perplexity of real LLaMA-2 7B / LLaMA-3 8B models; perplexity needs the real
-- weights (a later issue), so this measures what can be measured on synthetic Gaussian weights:
--   weight_rel_rms      the format's reconstruction error ||dequant(pack(W)) - W|| / ||W||,
--   err_master_rel_rms  the output error against the float master weights (format + int8
--                       activations), per GEMV output,
--   err_rel_rms         the kernel's arithmetic alone (activation quantization).
-- cb2 uses its default codebook set (kernels/codebook/cb2_default.c, 8 codebooks built once on
-- Gaussian data), as the paper reuses the codebooks found on LLaMA-2 7B for LLaMA-3 8B.
--
-- The errors depend on K and the weight distribution, not on M, so the default measures
-- 256-row slices of the K values of LLaMA-2 7B (4096, 11008) and LLaMA-3 8B (4096, 14336);
-- --full every distinct projection shape of both models.  N = 1, Gaussian weights (seed 42).
-- Sizes on the 2-core Emerald Rapids VM (packing dominates: q2_k and cb2 search their grids):
-- default ~20 s, --full ~10 min, --smoke ~1 s.
--
--   bitbench run experiments/arm_table4.lua [--full]
local S = bitbench.size

local kernels = {}
for _, k in ipairs({ "cb2", "q2_k", "iq4_nl", "q4_0", "q8_0" }) do
  if bitbench.kernel(k) then kernels[#kernels + 1] = k end
end

local shapes
if S == "smoke" then
  shapes = { { m = 64, k = 512 } }
elseif S == "full" then
  shapes = { "llama-2-7b", "llama-3-8b" }
else
  shapes = { { m = 256, k = 4096 }, { m = 256, k = 11008 }, { m = 256, k = 14336 } }
end

bitbench.experiment {
  name = "arm_table4",
  description = "Arm Table 4 (idea): reconstruction and output error of cb2 against q2_k, iq4_nl, q4_0, q8_0 "
    .. "on Gaussian weights of LLaMA-2 7B / LLaMA-3 8B shapes",
  sweeps = {
    bitbench.sweep {
      name = "verify",
      kernels = kernels,
      shapes = shapes,
      n = 1,
      threads = 1,
      cache = "resident",
      verify = true,
      warmup = 1, reps = 2, min_seconds = 0.01,
    },
  },
}
