-- bitnet.cpp, Table 7 and Figure 7: end-to-end token-generation speed (tokens/s) of
-- BitNet b1.58 models from 700M to 100B parameters through the general kernels (Float16, Q4_0,
-- T-MAC 2-bit) and the ternary kernels (TQ1_0, TQ2_0, TL1_0, TL2_0, I2_S), "in an unlimited
-- thread setting" (all cores).  Here: synthetic ternary weights in bitnet.cpp's dummy-model shapes
-- (the paper's 700M is bitnet_b1_58-large, its other sizes bitnet.cpp's dummy presets), every
-- linear layer through the kernel, the embedding and classifier in f16 (as llama.cpp and
-- bitnet.cpp keep them), batch 1, an empty context (llama-bench's tg test), all cores.
-- A model × kernel that does not fit in memory is skipped and reported N/A, as in the paper
-- (on 24 GiB: f16 stops after 7B, 2-bit kernels after 70B; 100B fits only below 2 bits, if at all).
--
--   bitbench run experiments/bitnet_table7.lua          # 700M, 1.5B, 3.8B x 8 kernels: ~4-5 min on 2 quiet cores
--   bitbench run experiments/bitnet_table7.lua --full   # + 7B, 13B, 30B, 70B, 100B, 10 reps: hours (a 70B point holds 15-18 GiB)
--   bitbench run experiments/bitnet_table7.lua --smoke  # bitnet-dummy-125m, 4 kernels, 1 thread, 2 tokens: ~6 s
--
-- Time here: builds (synthetic weights, packing, layer copies) take about 3.5 s (700M), 5 s (1.5B)
-- and 10 s (3.8B; f16 25 s) of one core each; decode is 16 tokens x 3 reps (f16: 8 x 2).
-- Report: scripts/reproduce/bitnet_table7.lua (speed-ups over f16, tq1_0 and q4_0 beside the
-- paper's Intel i7-13700H rows).
local S = bitbench.size
local smoke, full = S == "smoke", S == "full"

local models
if smoke then
  models = { "bitnet-dummy-125m" }
elseif full then
  models = { "bitnet-b1.58-large", "bitnet-dummy-1.5b", "bitnet-dummy-3.8b", "bitnet-dummy-7b",
             "bitnet-dummy-13b", "bitnet-dummy-30b", "bitnet-dummy-70b", "bitnet-dummy-100b" }
else
  models = { "bitnet-b1.58-large", "bitnet-dummy-1.5b", "bitnet-dummy-3.8b" }
end

-- The paper's columns, in its order: general kernels, then ternary kernels (T-MAC = tmac_w2, the
-- 2-bit kernel the paper ran ternary weights through, §4.1.2).
-- --smoke keeps the three the report's headline ratios need (a build costs ~1 s even at 125M).
local lowbit = {}
for _, k in ipairs(smoke and { "tq1_0", "tl2_0", "i2_s" }
                   or { "q4_0", "tmac_w2", "tq1_0", "tq2_0", "tl1_0", "tl2_0", "i2_s" }) do
  if bitbench.kernel(k) then lowbit[#lowbit + 1] = k end
end

local threads = { smoke and 1 or bitbench.machine.cores }

-- f16 reads 8x the bytes of a 2-bit kernel per token: fewer tokens keep its points affordable.
local function tg(name, kernels, gen, reps)
  return bitbench.sweep {
    name = name,
    models = models,
    kernels = kernels,
    out_kernel = "f16",
    threads = threads,
    prompt = { 0 },
    gen = { smoke and 2 or gen },
    reps = smoke and 1 or reps,
    kv = "f32",
    distinct_layers = 1,
    on_unsupported = "skip",
  }
end

bitbench.experiment {
  name = "bitnet_table7",
  description = "bitnet.cpp Table 7 / Fig. 7: token-generation tokens/s of BitNet b1.58 dummy models "
    .. "(700M ... 100B) through f16, q4_0, tmac_w2, tq1_0, tq2_0, tl1_0, tl2_0, i2_s on all cores",
  plots = { "tokens" },
  sweeps = {
    tg("tg", lowbit, 16, full and 10 or 3),
    tg("tg_f16", { "f16" }, 8, full and 3 or 2),
  },
}
