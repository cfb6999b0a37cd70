-- The kernel-level speed claims the README reports, measured side by side in one run:
--   mad:       i2_s and tq2_0 GEMV against q4_0 on BitNet-2B4T's FFN shape (M=6912, K=2560),
--              weights streamed from DRAM (bitnet.cpp §2; foundation issue), beside every main
--              kernel and its interleaved layout (issue 22: each at its share of the DRAM read),
--              each call beside a plain read of its own bytes, in five rounds over the kernels
--              (issue 32's goals: medians of alternating rounds);
--   lut:       T-MAC (tmac_w2) and bitnet.cpp's TL kernels against i2_s and tq1_0 on the
--              bitnet_b1_58-large and BitNet-2B4T shapes, cache-resident and from DRAM;
--   upconvert: Intel's up_i2 / up_i1 against q8_0 on Falcon3-1B, MobileLLM-1.5B and Llama-3-8B
--              projection shapes, from DRAM (Intel paper Figures 5-7);
--   codebook:  cb2 against q2_k, iq4_nl against q4_0 (Arm paper §5-6).
-- About 15 minutes on 2 cores.  Then:  lua5.4 scripts/claims.lua RESULTS_DIR/results.csv
--
--   bitbench run experiments/kernel_claims.lua

local threads = bitbench.range(1, math.min(2, bitbench.machine.pus))
-- `--smoke` (the tests): the same sweeps on one small shape, from cache, with a few calls.
local smoke = bitbench.size == "smoke"
local function shapes(list) return smoke and { { m = 256, k = 1536 } } or list end
local function cache(c) return smoke and "resident" or c end
local function reps(r) return smoke and 2 or r end
local function secs(t) return smoke and 0.005 or t end
if smoke then threads = { 1 } end

bitbench.experiment {
  name = "kernel_claims",
  description = "GEMV speed claims of bitnet.cpp, T-MAC, Arm and Intel papers, side by side",
  sweeps = {
    bitbench.sweep {
      name = "mad",
      kernels = bitbench.usable { "i2_s", "tq2_0", "tq1_0", "q4_0", "q4_0x8", "q8_0", "q8_0_x16", "up_i2", "tl2_0", "tmac_w2",
                                  "tq1_0_x16", "tq2_0_x16", "q2_k", "q2_k_x16", "iq4_nl", "iq4_nl_x8", "f16", "bf16" },
      shapes = shapes({ { m = 6912, k = 2560 } }),
      threads = threads,
      cache = cache("dram"),
      read = true, -- each call beside a read of its own bytes: issue 32's goals (scripts/claims.lua)
      rounds = smoke and 2 or 5, -- the median of five rounds, every kernel in each (issue 32: alternating rounds)
      reps = reps(20), min_seconds = secs(0.3),
    },
    bitbench.sweep {
      name = "lut",
      kernels = bitbench.usable { "i2_s", "tmac_w2", "tmac_w2_exact", "tl1_0", "tl2_0", "tl2_1", "tq1_0", "tq2_0" },
      shapes = shapes({ { m = 4096, k = 1536 }, { m = 1536, k = 4096 }, { m = 6912, k = 2560 }, { m = 2560, k = 6912 } }),
      threads = threads,
      cache = cache({ "resident", "dram" }),
      reps = reps(20), min_seconds = secs(0.2),
    },
    bitbench.sweep {
      name = "upconvert",
      kernels = bitbench.usable { "q8_0", "up_i2", "up_i1" },
      shapes = shapes({ "falcon3-1b", "mobilellm-1.5b", "llama-3-8b" }),
      threads = threads,
      cache = cache("dram"),
      reps = reps(10), min_seconds = secs(0.2),
    },
    bitbench.sweep {
      name = "codebook",
      kernels = bitbench.usable { "cb2", "q2_k", "iq4_nl", "q4_0" },
      shapes = shapes({ { m = 6912, k = 2560 }, { m = 4096, k = 4096 } }),
      threads = threads,
      cache = cache({ "resident", "dram" }),
      reps = reps(20), min_seconds = secs(0.2),
    },
  },
}
