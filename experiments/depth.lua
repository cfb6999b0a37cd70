-- Decode and prefill at context depth (issue 32): tokens/s of token generation (tg) and of the
-- prompt (pp) after `depth` tokens are in the KV cache (filled untimed first, as llama-bench's
-- -d), on the 700M BitNet shape (bitnet-b1.58-large: 24 layers, 16 heads of 96, no GQA) through
-- i2_s, with an f16 and a q8_0 KV cache (llama.cpp's -ctk/-ctv), threads x depth.  At depth 4096
-- a decoded token reads about 600 MB of f16 cache (320 MB of q8_0) beside 180 MB of i2_s weights:
-- e2e.csv's read_tps / tg_of_read count those KV bytes, so tg_of_read says how close attention
-- streams the cache to memory speed.  Synthetic weights (one distinct layer, every layer in memory).
--
-- Sizes on the 2-core VM:
--   default: depths 0 512 1024 2048 4096, pp64 tg16, 2 repetitions, 1 and 2 threads, both caches:
--            about 10 min (each point fills its depth once, untimed, then repeats pp and tg).
--   --full:  the same with 5 repetitions.
--   --smoke: bitnet-dummy-125m, depths 0 and 64, pp8 tg2, 1 thread, 1 repetition: seconds.
--
--   bitbench run experiments/depth.lua [--full]
local S = bitbench.size

local model, depth, prompt, gen, reps, threads
if S == "smoke" then
  model, depth, prompt, gen, reps, threads = "bitnet-dummy-125m", { 0, 64 }, 8, 2, 1, { 1 }
else
  model, depth, prompt, gen = "bitnet-b1.58-large", { 0, 512, 1024, 2048, 4096 }, 64, 16
  reps = S == "full" and 5 or 2
  threads = bitbench.range(1, math.min(2, bitbench.machine.cores))
end

local sweeps = {}
for _, kv in ipairs({ "f16", "q8_0" }) do
  sweeps[#sweeps + 1] = bitbench.sweep {
    name = "depth_kv_" .. kv,
    models = { model },
    kernels = { "i2_s" },
    out_kernel = "f16",
    threads = threads,
    depth = depth,
    prompt = prompt,
    gen = gen,
    reps = reps,
    kv = kv,
    distinct_layers = 1,
  }
end

bitbench.experiment {
  name = "depth",
  description = "Decode and prefill tokens/s against KV-cache depth, 700M BitNet shape, i2_s, f16 and q8_0 KV cache",
  plots = { "e2e_depth" },
  sweeps = sweeps,
}
