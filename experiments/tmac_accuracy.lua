-- T-MAC §3.3, §4 and §5.6 (error analysis): the error T-MAC's arithmetic adds, which
-- the paper attributes to table quantization and fast 8-bit aggregation.  For 1, 2, 3 and 4 bits:
--   tmac_wB_exact  int8 activations, exact int16 tables (the baseline: no table error),
--   tmac_wB        tables quantized to int8 with one scale per 128 activations (T-MAC's default),
--   tmac_wB_fa     int8 tables plus fast aggregation (rounding averages, bias removed);
-- with q2_k and q4_0 (llama.cpp's int8 activations, q8_K / q8_0) as a reference for what an
-- ordinary 8-bit activation path adds.  verify = true gives per point err_rel_rms (output against
-- an fp64 product of the kernel's OWN dequantized weights and the float activations: the
-- kernel's arithmetic alone), err_master_rel_rms (against the float master weights: the weight
-- format included) and weight_rel_rms (the reconstruction error of the weight format).
--
-- The error of one output depends on K (the length of the sums), not on M, so the default
-- measures 256-row slices of Llama-2-7B's two K values (4096: q/k/v/o, gate, up; 11008: down);
-- --full measures every distinct projection shape of Llama-2-7B and 13B.  Gaussian master
-- weights and activations (seed 42), N = 1.
--
-- Sizes on the 2-core Emerald Rapids VM: default ~15 s (packing dominates), --full ~15 min,
-- --smoke a few seconds.
--
--   bitbench run experiments/tmac_accuracy.lua [--full]
local S = bitbench.size

local kernels = {}
for _, b in ipairs({ 1, 2, 3, 4 }) do
  for _, suffix in ipairs({ "_exact", "", "_fa" }) do
    local k = "tmac_w" .. b .. suffix
    if bitbench.kernel(k) then kernels[#kernels + 1] = k end
  end
end
for _, k in ipairs({ "q2_k", "q4_0" }) do
  if bitbench.kernel(k) then kernels[#kernels + 1] = k end
end

local shapes
if S == "smoke" then
  shapes = { { m = 64, k = 512 } }
elseif S == "full" then
  shapes = { "llama-2-7b", "llama-2-13b" }
else
  shapes = { { m = 256, k = 4096 }, { m = 256, k = 11008 } }
end

bitbench.experiment {
  name = "tmac_accuracy",
  description = "T-MAC §5.6: error added by table quantization (tmac_wB) and fast aggregation (tmac_wB_fa) "
    .. "against exact tables (tmac_wB_exact), 1-4 bits",
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
