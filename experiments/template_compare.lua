-- Template: compare a new kernel against chosen baselines on one model's projection shapes, as
-- the papers' kernel tables do (decode GEMV with weights streamed from memory, and a small-batch
-- GEMM).  Copy it, set the four values below, and run:
--
--   cp experiments/template_compare.lua experiments/compare_mykernel.lua
--   bitbench run experiments/compare_mykernel.lua
--
-- Parts of it can be rerun without editing, e.g. only two kernels on one thread:
--
--   bitbench run experiments/template_compare.lua --only i2_s,tq2_0 --threads 1

local NEW_KERNEL = "i2_s"                                  -- the kernel under study: "name" or "name@isa"
local BASELINES = { "tl2_1", "tq2_0", "q4_0", "f16", "f32" } -- left out when not in this build
local MODEL = "bitnet-b1.58-2b4t"                          -- whose shapes (bitbench list models)
local THREADS = bitbench.range(1, bitbench.machine.cores)  -- 1 .. physical cores
local smoke = bitbench.size == "smoke"                     -- --smoke (the tests): one small shape

local new, why = bitbench.kernel(NEW_KERNEL)
if not new then error("NEW_KERNEL: " .. why) end

local kernels = { NEW_KERNEL }
for _, name in ipairs(BASELINES) do
  if name ~= new.name and bitbench.kernel(name) then kernels[#kernels + 1] = name end
end

bitbench.experiment {
  name = "compare-" .. (NEW_KERNEL:gsub("@", "-")),
  description = NEW_KERNEL .. " against " .. table.concat(kernels, ", ", 2) .. " on " .. MODEL .. "'s projections",
  sweeps = {
    -- token generation: one activation row, weights from DRAM (copies rotate past the LLC)
    bitbench.sweep {
      name = "gemv",
      kernels = kernels,
      shapes = smoke and { { m = 256, k = 512 } } or MODEL,
      n = 1,
      threads = THREADS,
      cache = smoke and "resident" or "dram",
      warmup = smoke and 1 or 3,
      reps = smoke and 2 or 10,
      min_seconds = smoke and 0.005 or 0.2,
      on_unsupported = "skip",   -- a shape a kernel cannot do is reported and left out
    },
    -- prompt processing / batching: a few activation rows, all threads
    bitbench.sweep {
      name = "gemm",
      kernels = kernels,
      shapes = smoke and { { m = 256, k = 512 } } or MODEL,
      n = smoke and 8 or { 8, 32 },
      threads = THREADS[#THREADS],
      cache = "resident",
      reps = smoke and 2 or 5,
      min_seconds = smoke and 0.005 or 0.2,
    },
  },
}
