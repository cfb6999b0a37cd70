-- Intel up-convert paper, Figures 12-14 and equation (4): end-to-end decode tokens/s
-- of BF16, 2-bit (up_i2) and 1-bit (up_i1) weights on Falcon3-1B, MobileLLM-1.5B and Llama-3-8B
-- (Sec. IV-D: dummy weights, batch 1, 128 generated tokens), on all cores.  Every GEMV of the
-- model runs through the named kernel, the classifier included (out_kernel = the same kernel): the
-- paper's Llama-3-8B speed-ups over BF16 (5.8x 2-bit, 8.3x 1-bit, ARL) are above what a BF16
-- classifier would allow even if decode were nothing but weight reads (15.0 GB per token in BF16
-- against 2.8 GB and 1.9 GB with a 1.05 GB BF16 classifier: 5.4x and 7.8x), so its classifier is
-- not left in BF16 either.  The report takes alpha = the share of the BF16
-- run's decode time spent in GEMVs (e2e.csv's matmul_share) and x = the measured GEMV speed-up to
-- give the Amdahl bound s = 1 / (1 - alpha + alpha / x) of equation (4).
--
--   bitbench run experiments/intel_e2e.lua           # default: Falcon3-1B and MobileLLM-1.5B, 32 tokens, 2 reps:
--                                                    #   ~2.5 min here (250 s of CPU time, measured under load)
--   bitbench run experiments/intel_e2e.lua --full    # + Llama-3-8B (16 GiB in BF16), 128 tokens, 3 reps: ~10 min
--   bitbench run experiments/intel_e2e.lua --smoke   # bitnet-dummy-125m, 2 tokens: seconds
--
-- Report: scripts/reproduce/intel_e2e.lua (speed-ups over BF16 beside the paper's Figs. 12-14).
local S = bitbench.size
local smoke, full = S == "smoke", S == "full"

local models
if smoke then
  models = { "bitnet-dummy-125m" }
elseif full then
  models = { "falcon3-1b", "mobilellm-1.5b", "llama-3-8b" }
else
  models = { "falcon3-1b", "mobilellm-1.5b" }
end

-- one sweep per precision, so that the classifier runs through the same kernel as the layers
local function precision(name, kernel)
  return bitbench.sweep {
    name = name,
    models = models,
    kernels = { kernel },
    -- (smoke: bitnet-dummy-125m's vocabulary of 32002 is no multiple of 32, which up_i2/up_i1
    -- need for M, so its classifier stays in BF16)
    out_kernel = smoke and "bf16" or kernel,
    threads = { smoke and 1 or bitbench.machine.cores },
    prompt = { smoke and 4 or 16 },
    gen = { smoke and 2 or (full and 128 or 32) },
    reps = smoke and 1 or (full and 3 or 2),
    kv = "f32",
    distinct_layers = smoke and 1 or 2,
    on_unsupported = "skip",
  }
end

bitbench.experiment {
  name = "intel_e2e",
  description = "Intel up-convert paper Figs. 12-14: end-to-end tokens/s of BF16, 2-bit (up_i2) and "
    .. "1-bit (up_i1) on Falcon3-1B, MobileLLM-1.5B, Llama-3-8B; Amdahl bound of Eq. (4)",
  plots = { "tokens" },
  sweeps = {
    precision("bf16", "bf16"),
    precision("int2", "up_i2"),
    precision("int1", "up_i1"),
  },
}
