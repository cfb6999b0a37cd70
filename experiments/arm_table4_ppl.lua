-- Arm paper §6.5, Table 4 as real perplexity: the group-wise codebook format cb2
-- (2.5625 bits per weight) against the uniform Q2_K (q2_k, 2.625) at about the same size, the
-- 4.5-bit IQ4_NL and Q4_0, Q8_0 near lossless and f32 as the reference, each kernel running every
-- linear layer of a real model on a real text (the classifier in f32, as the reference's).  The
-- paper measures WikiText-2 on LLaMA-2 7B / LLaMA-3 8B; here the model is the one named by
-- BITBENCH_PPL_MODEL (a GGUF file or a llama2.c checkpoint), by default the golden fixture
-- stories260K, and the text BITBENCH_PPL_TEXT (default
-- Debian's GPL-3, the text of llama.cpp's reference figures in shared/golden/gguf/README.md §1.4),
-- chunked as llama-perplexity at ctx 128 (BITBENCH_PPL_CTX).  e2e.csv's ppl / ppl_err columns
-- are the Table; ppl_tps is each kernel's perplexity throughput (tokens/s through the model).
-- The synthetic-weight version (reconstruction and output error) is experiments/arm_table4.lua.
-- Each point also times one decode token of bitnet-dummy-125m's synthetic weights (the sweep's
-- model; the speed is not the point here).
--
--   bitbench run experiments/arm_table4_ppl.lua           # every chunk of the text: ~20 s for stories260K
--   bitbench run experiments/arm_table4_ppl.lua --smoke   # f32 and cb2, 2 chunks: ~7 s (mostly the 125M model's build)
local S = bitbench.size
local smoke = S == "smoke"
local here = bitbench.dir .. "/.."
local shared = os.getenv("BITBENCH_SHARED_DIR") or (here .. "/../shared")

bitbench.experiment {
  name = "arm_table4_ppl",
  description = "Arm Table 4 as perplexity: cb2 against q2_k, iq4_nl, q4_0, q8_0 and f32 on a real model and text",
  sweeps = {
    bitbench.sweep {
      name = "ppl",
      models = { "bitnet-dummy-125m" },
      kernels = bitbench.usable(smoke and { "f32", "cb2" } or { "f32", "q8_0", "q4_0", "iq4_nl", "q2_k", "cb2" }),
      out_kernel = "f32",
      threads = { bitbench.machine.cores },
      prompt = { 0 },
      gen = { 1 },
      reps = 1,
      kv = "f32",
      distinct_layers = 1,
      on_unsupported = "skip",
      perplexity = {
        file = os.getenv("BITBENCH_PPL_TEXT") or "/usr/share/common-licenses/GPL-3",
        ctx = tonumber(os.getenv("BITBENCH_PPL_CTX") or "128"),
        chunks = smoke and 2 or 0,
        model = os.getenv("BITBENCH_PPL_MODEL") or (shared .. "/models/stories260K/stories260K.bin"),
      },
    },
  },
}
