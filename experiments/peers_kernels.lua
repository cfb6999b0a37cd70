-- bitbench's kernels beside llama.cpp's, kernel by kernel (issue 18): one matrix-vector (GEMV,
-- N = 1, decode) and one matrix-matrix (N = 512, prefill) product per type, timed by bitbench and
-- by llama.cpp's `test-backend-ops perf -o MUL_MAT` on its CPU backend, rows side by side in
-- results.csv (kernel "llama.cpp:q4_0"; docs/models.md, "Peers side by side").
--
--   bitbench's kernels  i2_s, tq2_0, tq1_0, q4_0, q8_0, f16
--   llama.cpp           TQ2_0, TQ1_0, Q4_0, Q8_0, F16   ($BITBENCH_TEST_BACKEND_OPS or
--                                                        test-backend-ops on PATH)
--
-- test-backend-ops cannot be given shapes: its perf cases are compiled in.  At c392e5094 they are
-- M = 4096, K = 14336 (Llama-3-8B's FFN down projection) for N = 1, 2, 3, 4, 5, 8, 512 and every
-- type but TQ1_0/TQ2_0, so the side-by-side sweep uses that shape and those N, and the ternary
-- types get llama.cpp rows only from a version whose perf cases include them (the run notes each
-- missing one).  It runs all of its ~150 MUL_MAT cases once, each for at least a second, on every
-- online CPU (it has no thread option): minutes, hence the long peer_timeout, and bitbench's
-- threads are the machine's cores to match.  The BitNet shapes (700M, 2B4T) are timed by bitbench
-- alone in a second sweep.  Ratios: lua5.4 scripts/peers_kernels.lua RUN_DIR/results.csv
--
--   --smoke: i2_s and q4_0 on one small shape, no peer (test-backend-ops takes minutes): seconds.
--   default: the shared shape at N = 1 and 512 with llama.cpp, the BitNet shapes at N = 1 and 64.
--   --full:  also N = 8, and 5 repetitions at least.
--
--   bitbench run experiments/peers_kernels.lua [--smoke|--full]
local S = bitbench.size

local kernels = bitbench.usable { "i2_s", "tq2_0", "tq1_0", "q4_0", "q8_0", "f16" }
local peers = { "llama.cpp:tq2_0", "llama.cpp:tq1_0", "llama.cpp:q4_0", "llama.cpp:q8_0", "llama.cpp:f16" }
local threads = bitbench.machine.cores
local n, reps = { 1, 512 }, 3
if S == "full" then n, reps = { 1, 8, 512 }, 5 end

local sweeps
if S == "smoke" then
  sweeps = {
    bitbench.sweep {
      name = "smoke",
      kernels = bitbench.usable { "i2_s", "q4_0" },
      shapes = { { m = 256, k = 512 } },
      n = { 1, 8 },
      threads = 1,
      reps = 2,
      min_seconds = 0,
    },
  }
else
  sweeps = {
    bitbench.sweep {
      name = "shared",
      kernels = kernels,
      shapes = { { m = 4096, k = 14336 } },
      n = n,
      threads = threads,
      reps = reps,
      on_unsupported = "skip",
      peers = peers,
      peer_timeout = 3600,
    },
    bitbench.sweep {
      name = "bitnet",
      kernels = kernels,
      shapes = { "bitnet-b1.58-large", "bitnet-b1.58-2b4t" },
      n = { 1, 64 },
      threads = threads,
      reps = reps,
      on_unsupported = "skip",
    },
  }
end

bitbench.experiment {
  name = "peers_kernels",
  description = "bitbench's i2_s, tq2_0, tq1_0, q4_0, q8_0, f16 GEMV and prefill against llama.cpp's test-backend-ops",
  sweeps = sweeps,
}
