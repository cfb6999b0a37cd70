-- T-MAC §5.3, end-to-end generation throughput on BitNet-b1.58-3B: tokens/s of the
-- T-MAC kernel (tmac_w2: BitNet's ternary weights run as 2-bit, split into two 1-bit planes,
-- §5.1) against the llama.cpp kernels for ternary/2-bit weights -- q2_k (the 2-bit type of
-- llama.cpp b2794, the paper's baseline version), tq1_0 and tq2_0 (llama.cpp's later ternary
-- types) -- and bitnet.cpp's i2_s, at 1 and 2 threads.  Every linear layer runs through the
-- kernel; embedding and classifier through f16, as in llama.cpp.  Synthetic ternary weights.
--
-- bitnet-b1.58-3b itself (dim 3200, FFN 8640) cannot run through these kernels: K = 3200 is not
-- a multiple of 256 (q2_k, tq1_0, tq2_0) and the down projection's K = 8640 not one of 128
-- (tmac_w2, i2_s), so its points are skipped up front and reported N/A.  bitnet-dummy-2.7b (bitnet.cpp's 2.7B preset:
-- dim 3072, FFN 7680, 24 layers, 2.70B parameters against 3.32B) stands in for it.
--
-- Generation only (prompt 0), as the paper's throughput (64 tokens x 20 rounds, §5.1).
-- Sizes on the 2-core Emerald Rapids VM (each point builds its model: ~15 s of CPU here):
--   default: bitnet-dummy-2.7b, tg16, 2 repetitions, 1 distinct layer, 1 and 2 threads: ~3 min.
--   --full:  tg64 x 20 repetitions (the paper's), every layer generated: ~15 min.
--   --smoke: bitnet-dummy-125m, tmac_w2 and q2_k, tg2, seconds.
--
--   bitbench run experiments/tmac_e2e.lua [--full]
local S = bitbench.size

local kernels = {}
for _, k in ipairs({ "tmac_w2", "i2_s", "tq2_0", "tq1_0", "q2_k" }) do
  if bitbench.kernel(k) then kernels[#kernels + 1] = k end
end

local models, gen, reps, distinct, threads
if S == "smoke" then
  models, gen, reps, distinct, threads = { "bitnet-dummy-125m" }, 2, 1, 1, { 1 }
  kernels = { kernels[1], kernels[#kernels] } -- T-MAC and one baseline: each point builds a model
elseif S == "full" then
  models, gen, reps, distinct = { "bitnet-b1.58-3b", "bitnet-dummy-2.7b" }, 64, 20, 0
  threads = bitbench.range(1, math.min(2, bitbench.machine.cores))
else
  models, gen, reps, distinct = { "bitnet-b1.58-3b", "bitnet-dummy-2.7b" }, 16, 2, 1
  threads = bitbench.range(1, math.min(2, bitbench.machine.cores))
end

bitbench.experiment {
  name = "tmac_e2e",
  description = "T-MAC §5.3: BitNet-3B-class end-to-end decode tokens/s, tmac_w2 against q2_k, tq1_0, tq2_0, i2_s",
  plots = { "e2e_threads", "tokens" },
  sweeps = {
    bitbench.sweep {
      name = "e2e",
      models = models,
      kernels = kernels,
      out_kernel = "f16",
      threads = threads,
      prompt = 0,
      gen = gen,
      reps = reps,
      kv = "f32",
      distinct_layers = distinct,
      on_unsupported = "skip",
    },
  },
}
