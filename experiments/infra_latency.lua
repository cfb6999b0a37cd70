-- 1-bit AI Infra, "実験結果": the x86 latency table (Intel Core Ultra 7-155H, P-cores:
-- FP16 against BitNet b1.58 for 700M, 1.3B, 3B, 7B, 13B and 30B models) and the energy table
-- (Core Ultra E-cores, FP16 and BitNet power).  Here: the latency of a fixed generation (a 16-token
-- prompt, then `gen` generated tokens, batch 1, all cores) with f16 weights against bitnet.cpp's
-- x86 kernels i2_s (MAD, lossless) and tl2_0 (element-wise LUT), on BitNet b1.58 models of those
-- sizes (synthetic ternary weights): 700M = bitnet-b1.58-large; models/ has no 1.3B config, the
-- nearest preset is bitnet-dummy-1.5b; 3B = bitnet-dummy-2.7b (the released bitnet-b1.58-3b's
-- FFN width 8640 is no multiple of 128, which i2_s needs); 7B, 13B, 30B = bitnet.cpp's presets.
-- The paper does not say how many tokens its latency covers; the report compares speed-ups.
-- Energy: the meters rapl and pcm bracket every point's token generation; where the machine
-- cannot measure (this VM: no powercap, no MSRs) their columns stay empty and run.json says why.
--
--   bitbench run experiments/infra_latency.lua          # default: 700M, 1.5B, 2.7B; 32 tokens, 1 rep:
--                                                       #   ~2 min here (175 s of CPU time, measured under load)
--   bitbench run experiments/infra_latency.lua --full   # all six sizes (what fits in memory), 128 tokens, 3 reps: ~15 min
--   bitbench run experiments/infra_latency.lua --smoke  # bitnet-dummy-125m, 2 tokens: seconds
--
-- Report: scripts/reproduce/infra_latency.lua (speed-up over f16 per size beside the paper's table).
local S = bitbench.size
local smoke, full = S == "smoke", S == "full"

local models
if smoke then
  models = { "bitnet-dummy-125m" }
elseif full then
  models = { "bitnet-b1.58-large", "bitnet-dummy-1.5b", "bitnet-dummy-2.7b", "bitnet-dummy-7b",
             "bitnet-dummy-13b", "bitnet-dummy-30b" }
else
  models = { "bitnet-b1.58-large", "bitnet-dummy-1.5b", "bitnet-dummy-2.7b" }
end

local kernels = {}
for _, k in ipairs({ "f16", "i2_s", "tl2_0" }) do
  if bitbench.kernel(k) then kernels[#kernels + 1] = k end
end

bitbench.experiment {
  name = "infra_latency",
  description = "1-bit AI Infra x86 latency and energy tables: f16 vs i2_s and tl2_0 on BitNet b1.58 "
    .. "models from 700M to 30B, fixed generation, all cores",
  meters = { "timer", "rapl", "pcm" },
  plots = { "tokens" },
  sweeps = {
    bitbench.sweep {
      name = "latency",
      models = models,
      kernels = kernels,
      out_kernel = "f16",
      threads = { smoke and 1 or bitbench.machine.cores },
      prompt = { smoke and 4 or 16 },
      gen = { smoke and 2 or (full and 128 or 32) },
      reps = smoke and 1 or (full and 3 or 1),
      kv = "f32",
      distinct_layers = smoke and 1 or 2,
      on_unsupported = "skip",
    },
  },
}
