-- bitnet.cpp, Table 2 as real perplexity: Float16, the lossless I2_S, TL1_1, TL2_1, the
-- table-quantized TL1_0, TL2_0, and Q4_0 / TQ2_0 (the paper: WikiText-2 on bitnet_b1_58-large,
-- 11.29 for Float16, I2_S, TL1_1 and TL2_1, 11.30 for TL1_0 / TL2_0, 11.57 for Q4_0).  Every kernel
-- runs every linear layer of a real model on a real text, the classifier in f16 as bitnet.cpp's
-- runs keep it.  The model is the one named by BITBENCH_PPL_MODEL (a GGUF file or a llama2.c
-- checkpoint), by default the golden fixture tiny-bitnet-tq2_0-embf16.gguf: a BitNet-architecture
-- model whose linear layers llama.cpp stored as TQ2_0, i.e. ternary weights, as the paper's
-- bitnet_b1_58-large has (a float model such as stories260K would measure what ternarizing it
-- costs, not the claim).  The text is BITBENCH_PPL_TEXT (default Debian's GPL-3, the text of
-- llama.cpp's reference figures in shared/golden/gguf/README.md §1.4), chunked as llama-perplexity
-- at ctx 128 (BITBENCH_PPL_CTX).
-- e2e.csv's ppl / ppl_err columns are the Table; ppl_tps is each kernel's perplexity throughput.
-- The synthetic-weight version (bit-identical logits, per-kernel GEMV error) is
-- experiments/bitnet_table2.lua.  Each point also times one decode token of bitnet-dummy-125m's
-- synthetic weights (the sweep's model; the speed is not the point here).
--
--   bitbench run experiments/bitnet_table2_ppl.lua           # every chunk of the text: ~1 min for the tiny BitNet
--   bitbench run experiments/bitnet_table2_ppl.lua --smoke   # f16 and i2_s, 2 chunks: ~7 s
local S = bitbench.size
local smoke = S == "smoke"
local here = bitbench.dir .. "/.."
local shared = os.getenv("BITBENCH_SHARED_DIR") or (here .. "/../shared")

bitbench.experiment {
  name = "bitnet_table2_ppl",
  description = "bitnet.cpp Table 2 as perplexity: f16, i2_s, tl1_1, tl2_1, tl1_0, tl2_0, q4_0, tq2_0 on a real "
    .. "model and text",
  sweeps = {
    bitbench.sweep {
      name = "ppl",
      models = { "bitnet-dummy-125m" },
      kernels = bitbench.usable(smoke and { "f16", "i2_s" }
                     or { "f16", "i2_s", "tl1_1", "tl2_1", "tl1_0", "tl2_0", "q4_0", "tq2_0" }),
      out_kernel = "f16",
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
        model = os.getenv("BITBENCH_PPL_MODEL") or (shared .. "/golden/gguf/bitnet/tiny-bitnet-tq2_0-embf16.gguf"),
      },
    },
  },
}
