-- Intel up-convert paper, Figure 4 and Sec. III-F, equations (1)-(3): the effective
-- bandwidth roofline ebw = min(beta, B/gamma) of the 2-bit and 1-bit up-convert GEMV kernels,
-- from this machine's own numbers.  The run first measures the machine profile (what
-- `bitbench roofline` measures, into RUN_DIR/machine-profile.json): the read bandwidth beta per
-- cache level and thread count, the instruction peaks, and per kernel gamma = cycles per 32
-- up-converted weights (one 256-bit int8 vector, the paper's unit) from a cache-resident GEMV of
-- one thread.  Then a small GEMV sweep (N = 1, from DRAM and cache-resident, 1..cores threads)
-- puts measured points under those ceilings.  Kernels: up_i2 and up_i1 (the paper's), q8_0 (its
-- int8 baseline of Figs. 5-7), i2_s (bitnet.cpp's 2-bit MAD kernel) and bf16 (the 16-bit baseline).
--
--   bitbench run experiments/intel_fig4.lua          # default: full profile (~30 s) + 36 GEMV points, ~1.5 min here
--   bitbench run experiments/intel_fig4.lua --full   # + the 256-bit AVX-VNNI variants, 20 reps of 0.2 s: ~3 min
--   bitbench run experiments/intel_fig4.lua --smoke  # quick profile, one small shape: ~5 s
--
-- Report: scripts/reproduce/intel_fig4.lua (gamma per kernel beside the paper's, which kernels are
-- bandwidth- or compute-bound here).
local S = bitbench.size
local smoke, full = S == "smoke", S == "full"

local profiled = bitbench.usable { "q8_0", "up_i2", "up_i1", "i2_s", "bf16" }
local swept = bitbench.usable { "q8_0", "up_i2", "up_i1", "i2_s", "bf16" }
if full then
  for _, k in ipairs(bitbench.usable { "up_i2@avxvnni", "up_i1@avxvnni" }) do swept[#swept + 1] = k end
end

-- Llama-3-8B's FFN gate/up (the largest shape of Figs. 5-7) and MobileLLM's 1600x1600 (the
-- smallest, where the paper sees fork/join overheads); every shape of Figs. 5-7 is intel_gemv's.
local shapes = smoke and { { m = 256, k = 512 } } or { { m = 14336, k = 4096 }, { m = 1600, k = 1600 } }

bitbench.experiment {
  name = "intel_fig4",
  description = "Intel up-convert paper Fig. 4: effective-bandwidth rooflines ebw = min(beta, B/gamma) "
    .. "from this machine's measured beta and gamma, with measured GEMV points",
  profile = { kernels = profiled, threads = bitbench.machine.cores },
  plots = { "ebw", "roofline" },
  sweeps = {
    bitbench.sweep {
      name = "gemv",
      kernels = swept,
      shapes = shapes,
      n = 1,
      threads = smoke and { 1 } or bitbench.range(1, bitbench.machine.cores),
      cache = smoke and "resident" or { "resident", "dram" },
      warmup = smoke and 1 or 3,
      reps = smoke and 2 or (full and 20 or 10),
      min_seconds = smoke and 0.01 or (full and 0.2 or 0.05),
      on_unsupported = "skip",
    },
  },
}
