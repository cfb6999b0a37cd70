-- Intel up-convert paper, Figures 5-7: attained GEMV bandwidth per matrix shape for
-- int8 weights (q8_0: loads and int8 dot products only, the paper's baseline), 2-bit up-convert
-- (up_i2, Sec. III-B/C) and 1-bit up-convert (up_i1, Sec. III-D), on the projection shapes of
-- Falcon3-1B, MobileLLM-1.5B and Llama-3-8B (Sec. IV-B), one token (N = 1), weights streamed
-- from DRAM (cache = "dram": the packed copies rotate through more than 4x the last-level
-- cache), on 1..cores threads.  Attained bandwidth = packed weight bytes / time per call
-- (activation quantization included, as in the paper's kernels).  The paper draws no BF16 bars
-- in these figures, so none are measured here (BF16 is the baseline of Figs. 12-14: intel_e2e).
--
--   bitbench run experiments/intel_gemv.lua            # default: 3 kernels x 12 shapes x 1..2 threads = 72 points,
--                                                      #   ~1.5 min here (75 s of CPU time, measured under load)
--   bitbench run experiments/intel_gemv.lua --full     # + the 256-bit AVX-VNNI variants (the paper's ISA), 20 reps
--                                                      #   of at least 0.2 s: 120 points, ~10 min
--   bitbench run experiments/intel_gemv.lua --smoke    # two small literal shapes, cache-resident: seconds
--
-- Report: scripts/reproduce/intel_gemv.lua (up_i2 / q8_0 and up_i1 / q8_0 bandwidth per shape).
local S = bitbench.size
local smoke, full = S == "smoke", S == "full"

local kernels = { "q8_0", "up_i2", "up_i1" }
if full then
  -- the paper's kernels are AVX2 (256-bit) with VNNI; the best variant here is AVX-512
  kernels[#kernels + 1] = "up_i2@avxvnni"
  kernels[#kernels + 1] = "up_i1@avxvnni"
end

bitbench.experiment {
  name = "intel_gemv",
  description = "Intel up-convert paper Figs. 5-7: attained GEMV bandwidth of q8_0, up_i2, up_i1 on "
    .. "Falcon3-1B, MobileLLM-1.5B and Llama-3-8B shapes, from DRAM, 1..cores threads",
  plots = { "gemv_bw", "threads" },
  sweeps = {
    bitbench.sweep {
      name = "gemv",
      kernels = bitbench.usable(kernels),
      -- smoke: MobileLLM's k+v shape and a small square one, cache-resident (a DRAM rotation of
      -- tiny matrices means many copies: seconds of packing for nothing the test checks)
      shapes = smoke and { { m = 320, k = 1600 }, { m = 512, k = 512 } }
        or { "falcon3-1b", "mobilellm-1.5b", "llama-3-8b" },
      n = 1,
      threads = smoke and { 1 } or bitbench.range(1, bitbench.machine.cores),
      cache = smoke and "resident" or "dram",
      warmup = smoke and 1 or 3,
      reps = smoke and 2 or (full and 20 or 10),
      min_seconds = smoke and 0.01 or (full and 0.2 or 0.05),
      on_unsupported = "skip",
    },
  },
}
