-- bitbench beside the peers (issue 18): end-to-end tokens/s of bitbench's kernels and of
-- llama.cpp's and bitnet.cpp's llama-bench on identical weights.  Each model is exported once per
-- peer type from the same synthetic weights bitbench's points use (RUN_DIR/peers/*.gguf), and
-- each peer point runs just before a bitbench point of the same model, threads and lengths, so
-- both see the same machine (docs/models.md, "Peers side by side").
--
--   bitbench's kernels  i2_s, tq2_0, tq2_0_x16, tl2_0, tmac_w2, f16 (tq2_0_x16: the layout the
--                       engine rearranges a GGUF TQ2_0 file into; tq2_0: its stored layout)
--   llama.cpp           TQ2_0, TQ1_0, Q4_0, F16       ($BITBENCH_LLAMA_BENCH or llama-bench on PATH)
--   bitnet.cpp          I2_S                          ($BITBENCH_BITNET_BENCH)
--
-- A peer that is not installed is skipped with its reason; bitbench's rows are written either
-- way.  The ratios and their spread: lua5.4 scripts/peers.lua RUN_DIR/e2e.csv
--
-- Sizes (2-core VM; exporting a model costs ~10-60 s per type):
--   --smoke:  bitnet-dummy-125m, i2_s and tq2_0 against llama.cpp TQ2_0 and bitnet.cpp I2_S, 1
--             thread, tg4: seconds.
--   default:  the 700M (bitnet-b1.58-large) at 1 and 2 threads, pp32 tg16, 3 repetitions.
--   --full:   700M, the 2B4T shape and 3B, pp128 tg64, 5 repetitions (the 3B's dim 3200 is no
--             multiple of 256: its exported TQ types keep those matrices in F32, as llama-quantize
--             falls back, and bitbench's kernels that need 256 skip it).  Hours on the 2-core VM:
--             the 3B's TQ2_0/TQ1_0 files are 13 GB (llama-bench's peak RSS ~12.8 GB) and decode at
--             ~0.5-1 t/s there, so one such peer point (6 x tg64 + 6 x pp128) can pass the default
--             peer_timeout of 900 s; --full allows 3600 s.  The 2B4T shape is squared-ReLU: both
--             peers run it with SiLU (docs/models.md, "Peers side by side"), same work, other outputs.
--
--   bitbench run experiments/peers_e2e.lua [--smoke|--full]
local S = bitbench.size

local kernels = bitbench.usable { "i2_s", "tq2_0", "tq2_0_x16", "tl2_0", "tmac_w2", "f16" }
local peers = { "llama.cpp:tq2_0", "llama.cpp:tq1_0", "llama.cpp:q4_0", "llama.cpp:f16", "bitnet.cpp:i2_s" }
local models, prompt, gen, reps, threads, peer_timeout = { "bitnet-b1.58-large" }, 32, 16, 3, nil, 900
threads = bitbench.range(1, math.min(2, bitbench.machine.cores))
if S == "smoke" then
  models, prompt, gen, reps, threads = { "bitnet-dummy-125m" }, 4, 4, 1, { 1 }
  kernels = bitbench.usable { "i2_s", "tq2_0" }
  peers = { "llama.cpp:tq2_0", "bitnet.cpp:i2_s" }
elseif S == "full" then
  models, prompt, gen, reps = { "bitnet-b1.58-large", "bitnet-b1.58-2b4t", "bitnet-b1.58-3b" }, 128, 64, 5
  peer_timeout = 3600
end

-- Decode at depth beside the peers: experiments/peers_depth.lua.
local sweeps = {
  bitbench.sweep {
    name = "e2e",
    models = models,
    kernels = kernels,
    out_kernel = "f16",
    threads = threads,
    prompt = prompt,
    gen = gen,
    reps = reps,
    kv = "f16",
    on_unsupported = "skip",
    peers = peers,
    peer_timeout = peer_timeout,
  },
}

bitbench.experiment {
  name = "peers_e2e",
  description = "bitbench's i2_s, tq2_0, tq2_0_x16, tl2_0, tmac_w2, f16 against llama.cpp and bitnet.cpp "
    .. "on identical weights",
  sweeps = sweeps,
}
