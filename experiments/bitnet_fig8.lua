-- bitnet.cpp, Figure 8 (Appendix B.2-B.3): multi-threaded end-to-end token generation
-- of the 3.8B model on the Intel i7-13700H, TL2_0 against TQ1_0 (element-wise LUT vs element-wise
-- MAD at the same ~1.67 bits per weight: "TL2_0 consistently outperforming TQ1_0 across all
-- threads") and against T-MAC's 2-bit kernel (bit-wise LUT: "TL2_0 continues to improve as the
-- number of threads reaches 5, while the speed of T-MAC begins to decline").  Here: bitnet.cpp's
-- 3.8B dummy-model shapes with synthetic ternary weights, tokens/s over 1..cores threads, batch 1,
-- empty context, embedding and classifier in f16.
--
--   bitbench run experiments/bitnet_fig8.lua          # 3 kernels x 1..cores threads, 16 tokens x 3: ~2 min on 2 quiet cores
--   bitbench run experiments/bitnet_fig8.lua --full   # the same threads, 10 repetitions (the paper averaged 10 tests): ~4 min
--   bitbench run experiments/bitnet_fig8.lua --smoke  # bitnet-dummy-125m, tl2_0 and tq1_0, 2 tokens: seconds
--
-- Time here: each point builds the model (~10 s of one core at 3.8B), then decodes; tq1_0 is the
-- slowest (~1 s per token on one thread).
-- Report: scripts/reproduce/bitnet_fig8.lua (tl2_0 over tq1_0 and tmac_w2 per thread count).
local S = bitbench.size
local smoke, full = S == "smoke", S == "full"

-- --smoke leaves tmac_w2 out: every point builds the model (~1 s even at 125M).
local kernels = {}
for _, k in ipairs(smoke and { "tl2_0", "tq1_0" } or { "tl2_0", "tq1_0", "tmac_w2" }) do
  if bitbench.kernel(k) then kernels[#kernels + 1] = k end
end

bitbench.experiment {
  name = "bitnet_fig8",
  description = "bitnet.cpp Fig. 8: tokens/s of the 3.8B model against threads for tl2_0, tq1_0 and tmac_w2",
  plots = { "e2e_threads", "tokens" }, -- tokens/s and derived GB/s against threads (Fig. 8), and at the most threads
  sweeps = {
    bitbench.sweep {
      name = "threads",
      models = { smoke and "bitnet-dummy-125m" or "bitnet-dummy-3.8b" },
      kernels = kernels,
      out_kernel = "f16",
      threads = bitbench.range(1, bitbench.machine.cores),
      prompt = { 0 },
      gen = { smoke and 2 or 16 },
      reps = smoke and 1 or (full and 10 or 3),
      kv = "f32",
      distinct_layers = 1,
      on_unsupported = "skip",
    },
  },
}
