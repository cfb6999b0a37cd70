-- T-MAC §5.2, the mpGEMV / mpGEMM kernel benchmark: T-MAC's bit-serial lookup-table
-- kernels tmac_w1 .. tmac_w4 against the multiply-add kernel llama.cpp runs at the same bit width,
-- on the projection shapes of Llama-2-7B and Llama-2-13B (the paper's kernel shapes, §5.1), for
-- decode (mpGEMV, N = 1, weights streamed from DRAM) and prefill (mpGEMM, N = 256).
--
-- Baselines (llama.cpp b2794 is the paper's baseline, §5.1; bitbench implements its formats):
--   4 bits: q4_0 (llama.cpp Q4_0);
--   3 bits: llama.cpp's Q3_K -- bitbench has no 3-bit multiply-add kernel, so tmac_w3 is measured
--           alone and its speed-up is N/A;
--   2 bits: q2_k (llama.cpp Q2_K, the 2-bit k-quant);
--   1 bit:  llama.cpp has no 1-bit type; 1-bit weights would be stored in its smallest integer
--           type, Q2_K, so q2_k is the baseline here too (the report says so).
-- Every kernel packs the same Gaussian master weights (seed 42) with its own quantizer; times
-- include the online prepare (activation quantization, T-MAC's table build), as in the paper.
--
-- Sizes (2-core Emerald Rapids VM; packing the weights dominates: tmac_w4 and q2_k search their
-- quantization grids, ~0.1-0.2 us per weight, so the default measures a subset of shapes):
--   default: GEMV on 4096x4096, 4096x11008 (Llama-2-7B) and 5120x5120 (Llama-2-13B), 1 and 2
--            threads, from DRAM; GEMM N = 256 on 4096x4096 with 2 threads. About 1.5-2 min.
--   --full:  every distinct projection shape of both models, GEMV and GEMM (N = 256) on 1 and 2
--            threads. About 15-20 min.
--   --smoke: one small shape, seconds.
--
--   bitbench run experiments/tmac_kernels.lua [--full]
--   lua5.4 scripts/reproduce.lua --only tmac_kernels --stdout    (the report, from results/reference)
local S = bitbench.size

local kernels = bitbench.usable { "tmac_w1", "tmac_w2", "tmac_w3", "tmac_w4", "q2_k", "q4_0" }
local cores = math.min(2, bitbench.machine.cores)
local both_threads = bitbench.range(1, cores)

local gemv_shapes, gemm_shapes, gemm_threads, reps, min_s
if S == "smoke" then
  gemv_shapes = { { m = 256, k = 512 } }
  gemm_shapes = { { m = 256, k = 512 } }
  gemm_threads, reps, min_s = { 1 }, 2, 0.01
elseif S == "full" then
  gemv_shapes = { "llama-2-7b", "llama-2-13b" }
  gemm_shapes = { "llama-2-7b", "llama-2-13b" }
  gemm_threads, reps, min_s = both_threads, 10, 0.2
else
  gemv_shapes = { { m = 4096, k = 4096 }, { m = 4096, k = 11008 }, { m = 5120, k = 5120 } }
  gemm_shapes = { { m = 4096, k = 4096 } }
  gemm_threads, reps, min_s = { cores }, 10, 0.1
end

bitbench.experiment {
  name = "tmac_kernels",
  description = "T-MAC §5.2: tmac_w1..w4 against q2_k / q4_0 (llama.cpp) on Llama-2-7B/13B shapes, "
    .. "mpGEMV from DRAM and mpGEMM N=256",
  plots = { "gemv_bw", "threads", "roofline" },
  sweeps = {
    bitbench.sweep {
      name = "gemv",
      kernels = kernels,
      shapes = gemv_shapes,
      n = 1,
      threads = S == "smoke" and { 1 } or both_threads,
      cache = S == "smoke" and "resident" or "dram",
      warmup = S == "smoke" and 1 or 3, reps = reps, min_seconds = min_s,
    },
    bitbench.sweep {
      name = "gemm",
      kernels = kernels,
      shapes = gemm_shapes,
      n = S == "smoke" and 8 or 256,
      threads = gemm_threads,
      cache = "resident",
      -- one N = 256 call takes 0.1-1 s here: a few calls suffice for a median
      warmup = 1, reps = S == "full" and 5 or 2, min_seconds = S == "smoke" and 0.01 or 0.5,
    },
  },
}
