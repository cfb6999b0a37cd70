-- Decode at context depth beside the peers (issue 32 item 6): tg tokens/s after `depth` tokens
-- are in the KV cache (filled untimed first), bitbench's i2_s, tq2_0 and tq2_0_x16 (the layout
-- the engine rearranges TQ2_0 into) against llama.cpp's TQ2_0 and bitnet.cpp's I2_S on identical
-- weights, 700M BitNet shape, f16 KV cache, at the machine's largest thread count up to 2.
-- Models are exported as in peers_e2e.lua; each peer point runs just before a bitbench point of
-- the same model, threads and depth.
--
-- A peer's llama-bench measures at depth when it has -d; the llama.cpp (c392e5094) and bitnet.cpp
-- builds of the README's table have none, and their llama-batched-bench measures instead
-- (`-npp DEPTH -ntg GEN -npl 1`; rows with peer "llama.cpp-batched", no pp).  Without either, the
-- point is skipped with its reason.
--
--   bitbench run experiments/peers_depth.lua --peer llama.cpp=.../llama-bench
--     --peer llama.cpp-batched=.../llama-batched-bench --peer bitnet.cpp=.../llama-bench
--     --peer bitnet.cpp-batched=.../llama-batched-bench
--
-- Sizes (2-core VM):
--   --smoke:  bitnet-dummy-125m, depths 0 and 64, tg4, 1 repetition: seconds.
--   default:  700M, depths 0 and 4096, tg16, 3 repetitions: each peer point prefills 4096 tokens
--             per repetition (minutes each), about 30-40 min in all.
--   --full:   the same with depths 0, 1024 and 4096 and 5 repetitions.
local S = bitbench.size

local model, depth, gen, reps, peer_timeout = "bitnet-b1.58-large", { 0, 4096 }, 16, 3, 1800
if S == "smoke" then
  model, depth, gen, reps, peer_timeout = "bitnet-dummy-125m", { 0, 64 }, 4, 1, 900
elseif S == "full" then
  depth, reps, peer_timeout = { 0, 1024, 4096 }, 5, 3600
end

bitbench.experiment {
  name = "peers_depth",
  description = "Decode at KV-cache depth: bitbench's i2_s, tq2_0, tq2_0_x16 against llama.cpp TQ2_0 "
    .. "and bitnet.cpp I2_S",
  plots = { "e2e_depth" },
  sweeps = {
    bitbench.sweep {
      name = "e2e_depth",
      models = { model },
      kernels = bitbench.usable { "i2_s", "tq2_0", "tq2_0_x16" },
      out_kernel = "f16",
      threads = { math.min(2, bitbench.machine.cores) },
      depth = depth,
      prompt = 0,
      gen = gen,
      reps = reps,
      kv = "f16",
      distinct_layers = 1,
      on_unsupported = "skip",
      peers = { "llama.cpp:tq2_0", "bitnet.cpp:i2_s" },
      peer_timeout = peer_timeout,
    },
  },
}
