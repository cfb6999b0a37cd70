-- Report for experiments/arm_table4_ppl.lua: the Arm paper's Table 4 as real perplexity,
-- each format running every linear layer of a real model on a real text, beside
-- the paper's WikiText2 figures: the perplexity increase of cb2 against q2_k and of iq4_nl against
-- q4_0.

-- Seed 003, Table 4: method, average bits per weight, perplexity LLaMA-2 7B, LLaMA-3 8B.
local FP16 = { 5.79, 6.23 }
local PAPER = {
  cb2 = { "Group-wise codebook", 3.2, 6.39, 7.77 },
  q2_k = { "Q2_K", 3.15, 6.68, 8.65 },
  iq4_nl = { "IQ4_NL", 4.65, 5.87, 6.45 },
  q4_0 = { "Q4_0", 4.65, 5.96, 6.70 },
  q8_0 = { "Q8_0", 8.50, 5.80, 6.23 },
  f32 = { "FP16 (the paper's reference)", 16, FP16[1], FP16[2] },
}
local ORDER = { "f32", "q8_0", "iq4_nl", "q4_0", "cb2", "q2_k" }
local PAIRS = { { "cb2", "q2_k" }, { "iq4_nl", "q4_0" } }

-- llama.cpp c392e50's llama-perplexity on stories260K's GGUF forms, GPL-3 at -c 128, f32 KV
-- ($BITBENCH_SHARED_DIR/golden/gguf/stories260K/perplexity_gpl3_c128_*_kvf32.txt; Q8_0/Q4_0 from the build
-- without AMX): its F32 figure is the model bitbench's f32 kernel runs; its Q8_0 / Q4_0 files keep the
-- 172-column ffn_down in F32 and the classifier in Q8_0, where bitbench puts every linear layer
-- through the kernel.
local LLAMA_CPP = {
  ["stories260K.bin"] = { f32 = "105.3222", q8_0 = "105.3450", q4_0 = "113.0535", tokens = "10899" },
}

local function find_kernel(rows, k)
  for _, r in ipairs(rows) do if r.kernel == k then return r end end
end

-- The perplexities do not depend on timing; tokens/s does, and carries the mark when its row is
-- flagged (busy, or a wide range of its repetitions).
local function render(run, util)
  local out = {}
  local function add(s) out[#out + 1] = s end
  local rows = util.filter(run.e2e or {}, { sweep = "ppl" })
  local sw
  for _, s in ipairs(run.json.sweeps or {}) do if s.name == "ppl" then sw = s end end
  local ppl = sw and type(sw.perplexity) == "table" and sw.perplexity or {}
  if #rows == 0 or not util.num(rows[1].ppl) then
    add("No perplexity rows in e2e.csv (N/A).")
    return table.concat(out, "\n")
  end
  local model = rows[1].ppl_model
  local base = find_kernel(rows, "f32")
  local b = base and util.num(base.ppl)
  local lc = LLAMA_CPP[model]
  local full = lc and rows[1].ppl_tokens == lc.tokens and ppl.ctx == 128 and sw.kv == "f32"
  add(string.format("Perplexity of %s on %s, chunked as llama-perplexity at ctx %s (%s tokens scored, KV %s), "
    .. "every linear layer through the kernel and the classifier through %s; the increase "
    .. "is over the f32 kernel. tokens/s is the perplexity throughput on %s thread(s). Beside them the "
    .. "paper's Table 4: average bits per weight and WikiText2 perplexity (its FP16: %.2f and %.2f)%s.",
    model, ppl.file and ppl.file:match("([^/]*)$") or "the text", ppl.ctx or "?", rows[1].ppl_tokens,
    sw and sw.kv or "?", rows[1].out_kernel, rows[1].threads, FP16[1], FP16[2],
    full and ", and llama.cpp's llama-perplexity on the same model and text where it has the type" or ""))
  add("")
  local t = {}
  for _, k in ipairs(ORDER) do
    local r = find_kernel(rows, k)
    if r then
      local p, x = PAPER[k], util.num(r.ppl)
      t[#t + 1] = { k, util.fmt(r.bits_per_weight, 4), string.format("%.4f ± %.2f", x, util.num(r.ppl_err) or 0),
        b and string.format("%+.2f", x - b) or "–", util.mark(util.fmt(r.ppl_tps, 3), r), full and lc[k] or "–",
        p[1], util.fmt(p[2], 3), util.fmt(p[3], 3), util.fmt(p[4], 3) }
    end
  end
  add(util.table({ "kernel", "bits/weight:", "PPL:", "increase:", "tokens/s:", "llama.cpp PPL:", "paper's method",
    "paper bits/weight:", "paper PPL LLaMA-2 7B:", "paper PPL LLaMA-3 8B:" }, t))
  add("")

  -- the comparisons of Table 4: ratio of the perplexity increases over the float reference
  local function incr(k)
    local r = find_kernel(rows, k)
    return r and b and util.num(r.ppl) - b
  end
  local cmp, agree = {}, true
  for _, pair in ipairs(PAIRS) do
    local a, c = pair[1], pair[2]
    local ia, ic = incr(a), incr(c)
    if not ia or not ic or ia >= ic then agree = false end
    cmp[#cmp + 1] = { a .. " / " .. c, util.ratio(ia, ic),
      util.ratio(PAPER[a][3] - FP16[1], PAPER[c][3] - FP16[1]), util.ratio(PAPER[a][4] - FP16[2], PAPER[c][4] - FP16[2]) }
  end
  add("The paper's comparisons as ratios of the perplexity increases over the float reference (below 1: the "
    .. "first format loses less).")
  add("")
  add(util.table({ "pair", "ours:", "paper LLaMA-2 7B:", "paper LLaMA-3 8B:" }, cmp))
  add("")
  add("**Where and why they differ.** " .. (agree
    and "The direction agrees with the paper in both pairs: at about the same size the group-wise codebook "
      .. "loses less than Q2_K, and IQ4_NL's non-uniform grid loses less than Q4_0's uniform one. "
    or "The paper's order (codebook below Q2_K, IQ4_NL below Q4_0) does not hold in every pair of this run "
      .. "(or a kernel is missing). ")
    .. "The sizes differ: the paper quantizes LLaMA-2 7B / LLaMA-3 8B, whose rows are thousands of "
    .. "weights long; stories260K is a 260K-parameter model whose rows are 64 and 172 weights long, so "
    .. "K is padded with zeros to each format's block (a row of 64 weights fills a quarter of q2_k's "
    .. "256-weight super-block; the zeros change no scale but the row has few weights to share it), and a "
    .. "model this small likely has little redundancy to absorb rounding: the 2-bit formats lose far more "
    .. "perplexity than on a 7B model, so read the ratios, not the increases. Q8_0 and Q4_0 here differ "
    .. "from llama.cpp's files by what each quantizes: llama.cpp keeps ffn_down (K = 172) in F32 and its "
    .. "classifier is Q8_0, where bitbench runs ffn_down through the kernel (K padded to 192) and the "
    .. "classifier in f32. tokens/s are of a tiny model on a shared, loaded machine: compare them within "
    .. "this table only. `BITBENCH_PPL_MODEL` runs the same table on any GGUF or llama2.c model.")
  return table.concat(out, "\n")
end

return {
  title = "Arm Table 4 as perplexity: cb2 against Q2_K, IQ4_NL against Q4_0 on a real model",
  paper = "003",
  render = render,
}
