-- Report for experiments/tmac_e2e.lua: T-MAC §5.3 end-to-end decode throughput on a
-- BitNet-b1.58-3B-class model, tmac_w2 against llama.cpp's 2-bit / ternary kernels and i2_s.
local KERNELS = { "tmac_w2", "q2_k", "tq1_0", "tq2_0", "i2_s" }
local BASELINES = { "q2_k", "tq1_0", "tq2_0", "i2_s" }
local MODELS = { "bitnet-b1.58-3b", "bitnet-dummy-2.7b" }

local function render(run, util)
  local rows = run.e2e or {}
  local out = {}
  local threads = util.distinct(rows, "threads", true)
  if #threads == 0 then threads = { "1", "2" } end
  local models = {}
  for _, m in ipairs(MODELS) do models[#models + 1] = m end
  for _, m in ipairs(util.distinct(rows, "model")) do
    local known = false
    for _, k in ipairs(models) do if k == m then known = true end end
    if not known then models[#models + 1] = m end
  end

  local header = { "model", "threads:" }
  for _, k in ipairs(KERNELS) do header[#header + 1] = k .. " tok/s:" end
  for _, b in ipairs(BASELINES) do header[#header + 1] = "tmac_w2 / " .. b .. ":" end
  header[#header + 1] = "tmac_w2 GB/s:"
  local body, gen = {}, nil
  for _, m in ipairs(models) do
    for _, t in ipairs(threads) do
      local cells, tps, row = { m, t }, {}, {}
      local any = false
      for _, k in ipairs(KERNELS) do
        local r = util.find(rows, { model = m, kernel = k, threads = t })
        tps[k], row[k] = r and util.num(r.tg_tps) or nil, r
        if r then any = true; gen = gen or r.gen end
        cells[#cells + 1] = tps[k] and util.mark(util.fmt(tps[k], 3), r) or "N/A"
      end
      for _, b in ipairs(BASELINES) do
        cells[#cells + 1] = (tps.tmac_w2 and tps[b]) and util.mark(util.ratio(tps.tmac_w2, tps[b]), row.tmac_w2, row[b])
          or "N/A"
      end
      local r = row.tmac_w2
      cells[#cells + 1] = r and util.mark(util.fmt(r.tg_gbps_derived, 3), r) or "N/A"
      -- a model that only the full size runs is left out of the smaller runs' tables
      if any or m == "bitnet-b1.58-3b" then body[#body + 1] = cells end
    end
  end
  out[#out + 1] = string.format("Decode tokens/s (tg%s, median of the repetitions; prompt 0; every linear "
    .. "layer through the kernel, embedding and classifier f16), and the speed-up of tmac_w2 over each "
    .. "baseline (its tokens/s over theirs):", gen or "–")
  out[#out + 1] = ""
  out[#out + 1] = util.table(header, body)
  out[#out + 1] = ""
  out[#out + 1] = "bitnet-b1.58-3b is N/A for every kernel: its K = 3200 is not a multiple of 256 (q2_k, tq1_0, "
    .. "tq2_0) and its down projection's K = 8640 not a multiple of 128 (tmac_w2, i2_s); bitnet.cpp's "
    .. "2.7B dummy preset (dim 3072, FFN 7680, 24 layers; 2.70B parameters against 3.32B) stands in for it."
  out[#out + 1] = ""
  out[#out + 1] = "**The paper** (T-MAC, abstract and §5.3): BitNet-b1.58-3B through T-MAC generates "
    .. "**30 tokens/s on one core and 71 tokens/s on eight cores of an M2-Ultra**, and 11 tokens/s on a "
    .. "Raspberry Pi 5; across its low-bit Llama and BitNet models T-MAC's end-to-end throughput is **up to "
    .. "4×** llama.cpp's (b2794, whose 2-bit type is Q2_K). The summary this project has (papers.md) gives no per-model ratio for "
    .. "BitNet-3B, so the comparison here is with that upper bound: the paper's ratio over llama.cpp is "
    .. "at most 4.00×."
  out[#out + 1] = ""
  -- the bytes each token reads, over the points measured
  local lo, hi
  for _, r in ipairs(rows) do
    local b = util.num(r.weight_bytes_per_token)
    if b then lo, hi = math.min(lo or b, b), math.max(hi or b, b) end
  end
  local bytes = lo and (lo == hi and string.format("%s GB", util.fmt(lo / 1e9, 2))
    or string.format("%s-%s GB", util.fmt(lo / 1e9, 2), util.fmt(hi / 1e9, 2))) or "N/A"
  out[#out + 1] = "**Why they differ.** Here decode reads " .. bytes .. " of packed weights per token "
    .. "(weight_bytes_per_token) with " .. table.concat(threads, " or ") .. " threads on "
    .. util.machine_sentence(run) .. "." .. util.llc_note(run, rows)
    .. " Where the weights stream from DRAM, tokens/s follows bytes per token more than arithmetic: tmac_w2 stores "
    .. "2.31 bits per weight, i2_s 2, tq2_0 2.06, tq1_0 1.69, q2_k 2.63, and the f16 classifier adds the "
    .. "same ~200 MB to every kernel. The M2-Ultra has 800 GB/s of memory bandwidth (Apple's figure), where compute, which "
    .. "T-MAC reduces, decides more. The baselines are bitbench's re-implementations (here their "
    .. (util.isa_text(rows) or "recorded") .. " variants) of the llama.cpp formats (and bitnet.cpp's i2_s, which did not exist when T-MAC was published), not "
    .. "llama.cpp b2794's NEON/AVX2 code. Weights are synthetic ternary; the default run generates one "
    .. "distinct layer and copies it to the others (each layer still has its own memory)."
  return table.concat(out, "\n")
end

return {
  title = "T-MAC §5.3: end-to-end decode on BitNet-b1.58-3B (tmac_w2 against q2_k, tq1_0, tq2_0, i2_s)",
  paper = "002",
  render = render,
}
