-- End-to-end quick look (< 1 minute): the 125M BitNet dummy model (bitnet.cpp's dummy-model
-- shapes) through the lossless ternary kernel (i2_s), a lookup-table kernel (tl2_0), llama.cpp's
-- ternary type (tq2_0) and the f16 baseline; a 16-token prompt (pp16) and 8 generated tokens (tg8)
-- on 1 and 2 threads.  Synthetic weights; two distinct layers generated, the rest reuse them.
-- Results: e2e.csv in the run directory (one row per point) and a llama-bench style table.
-- `--smoke` (the tests): i2_s and tl2_0, one thread, pp4 and tg2, one distinct layer, one repetition.
local smoke = bitbench.size == "smoke"
local kernels = {}
for _, k in ipairs(smoke and {"i2_s", "tl2_0"} or {"i2_s", "tl2_0", "tq2_0", "f16"}) do
  if bitbench.kernel(k) then kernels[#kernels + 1] = k end
end

return bitbench.experiment{
  name = "e2e_quick",
  description = "bitnet-dummy-125m end to end: pp16 and tg8 with i2_s, tl2_0, tq2_0, f16 on 1 and 2 threads",
  sweeps = {
    bitbench.sweep{
      name = "e2e",
      models = {"bitnet-dummy-125m"},
      kernels = kernels,
      out_kernel = "f16",
      threads = smoke and {1} or {1, 2},
      prompt = smoke and {4} or {16},
      gen = smoke and {2} or {8},
      reps = smoke and 1 or 3,
      kv = "f32",
      distinct_layers = smoke and 1 or 2,
    },
  },
}
