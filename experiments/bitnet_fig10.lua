-- bitnet.cpp, Figure 10 (Appendix C.1): token throughput and memory bandwidth against
-- threads, bitnet_b1_58-large on an Intel i5-13400F, bandwidth measured with Intel PCM: "the shape
-- of token throughput and bandwidth curves are nearly identical.  When the thread count reaches 4,
-- the token throughput also reaches its maximum value due to the saturation of the bandwidth."
-- Here: the element-wise LUT kernel tl2_0 on bitnet_b1_58-large (synthetic ternary weights) over
-- 1..cores threads, with the pcm meter bracketing each point's token generation (DRAM read/write
-- MB/s; where the machine cannot measure — this VM has no MSRs or PMU — its columns stay empty and
-- run.json says why), the bandwidth derived from the bytes each token must read (packed weights and
-- f16 classifier × tokens/s, labelled derived), and the machine profile (DRAM read ceiling per
-- thread count) measured in the same run.  The default and --full runs add bitnet-dummy-3.8b,
-- whose bytes per token exceed this machine's 260 MiB L3: bitnet_b1_58-large at 1.67 bits per
-- weight (~0.24 GB per token) fits in that L3 and is not DRAM-bound here.
--
--   bitbench run experiments/bitnet_fig10.lua          # 700M and 3.8B x 1..cores threads + machine profile: ~1.5 min on 2 quiet cores
--   bitbench run experiments/bitnet_fig10.lua --full   # the same, 64 tokens x 10 repetitions: ~5 min
--   bitbench run experiments/bitnet_fig10.lua --smoke  # bitnet-dummy-125m, 2 tokens, no profile: seconds
--
-- Report: scripts/reproduce/bitnet_fig10.lua (tokens/s, measured and derived GB/s per thread count).
local S = bitbench.size
local smoke, full = S == "smoke", S == "full"

local models
if smoke then
  models = { "bitnet-dummy-125m" }
else
  models = { "bitnet-b1.58-large", "bitnet-dummy-3.8b" }
end

bitbench.experiment {
  name = "bitnet_fig10",
  description = "bitnet.cpp Fig. 10: tl2_0 tokens/s and memory bandwidth (PCM where available, and derived) "
    .. "against threads on bitnet_b1_58-large",
  meters = { "pcm" },
  plots = { "e2e_threads", "tokens" },
  -- the DRAM read ceiling per thread count, which the derived bandwidth is set against
  profile = (not smoke) and { kernels = { "tl2_0" }, threads = bitbench.machine.cores } or nil,
  sweeps = {
    bitbench.sweep {
      name = "threads",
      models = models,
      kernels = { "tl2_0" },
      out_kernel = "f16",
      threads = bitbench.range(1, bitbench.machine.cores),
      prompt = { 0 },
      gen = { smoke and 2 or (full and 64 or 16) },
      reps = smoke and 1 or (full and 10 or 3),
      kv = "f32",
      distinct_layers = 1,
      on_unsupported = "skip",
    },
  },
}
