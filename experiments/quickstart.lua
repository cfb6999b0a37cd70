-- Quickstart: a handful of kernels on the two GEMV shapes of BitNet b1.58 2B4T that dominate its
-- decode (attention q/o 2560x2560 and FFN gate/up 6912x2560), one token (N = 1), on 1 and 2
-- threads.  Under a minute on two cores:
--
--   bitbench run experiments/quickstart.lua
--
-- Kernels missing from this build are left out, so the file runs whatever is registered.
-- `--smoke` (the tests) keeps one small shape and a few calls.
local smoke = bitbench.size == "smoke"

local wanted = { "i2_s", "tl2_1", "tq2_0", "q4_0", "f32" }
local kernels = {}
for _, name in ipairs(wanted) do
  if bitbench.kernel(name) then kernels[#kernels + 1] = name end
end

bitbench.experiment {
  name = "quickstart",
  description = "GEMV of a few kernels on BitNet b1.58 2B4T's q/o and gate/up shapes, 1 and 2 threads",
  sweeps = {
    bitbench.sweep {
      name = "gemv",
      kernels = kernels,
      shapes = smoke and { { m = 256, k = 512 } } or { { m = 2560, k = 2560 }, { m = 6912, k = 2560 } },
      n = 1,
      threads = bitbench.range(1, math.min(2, bitbench.machine.pus)),
      cache = "resident",
      warmup = smoke and 1 or 3,
      reps = smoke and 2 or 10,
      min_seconds = smoke and 0.005 or 0.2,
    },
  },
}
