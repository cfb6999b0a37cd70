-- Report for experiments/bitnet_table2_ppl.lua: bitnet.cpp Table 2 as real perplexity,
-- each kernel running every linear layer of a ternary model on a real text, beside the paper's
-- WikiText2 figures and llama.cpp's own perplexity of the same file.

-- The paper's Table 2 (bitnet_b1_58-large, WikiText2 perplexity) and its claim per kernel, copied
-- from bitnet.cpp; TQ2_0 is not in Table 2 (§2.3 says TQX_0 is not lossless).
local PAPER = {
  f16 = { "11.29", "baseline" },
  i2_s = { "11.29", "lossless" },
  tl1_1 = { "11.29", "lossless" },
  tl2_1 = { "11.29", "lossless" },
  tl1_0 = { "11.30", "negligible loss" },
  tl2_0 = { "11.30", "negligible loss" },
  q4_0 = { "11.57", "lossy" },
  tq2_0 = { "–", "not lossless (§2.3)" },
}
local ORDER = { "f16", "i2_s", "tl1_1", "tl2_1", "tl1_0", "tl2_0", "q4_0", "tq2_0" }
local LOSSLESS = { "i2_s", "tl1_1", "tl2_1" }

-- llama.cpp c392e50's llama-perplexity on the golden files, GPL-3 at -c 128, f32 KV, every chunk
-- ($BITBENCH_SHARED_DIR/golden/gguf/bitnet/perplexity_gpl3_c128_*_kvf32.txt): an independent measurement of the
-- same file and text, for the rows whose kernel computes what llama.cpp's type does.
local LLAMA_CPP = {
  ["tiny-bitnet-tq2_0-embf16.gguf"] = { tq2_0 = "6339.5571", f32_model = "6334.5112", tokens = "10899" },
}

local function find_kernel(rows, k)
  for _, r in ipairs(rows) do if r.kernel == k then return r end end
end

-- "as stored" / "converted" for a kernel's linear layers, from run.json's conversions.
local function weights_of(run, model, kernel)
  for _, c in ipairs(run.json.conversions or {}) do
    if c.model == model and c.kernel == kernel and c.weights and c.weights.wq then
      local w = c.weights.wq
      if w:find("used as stored", 1, true) then return (w:match("^(%S+)") or "") .. " as stored" end
      return (w:match("^(%S+)") or "?") .. " → " .. kernel
    end
  end
  return "–"
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
  local f16, ref = find_kernel(rows, "f16"), find_kernel(rows, "i2_s")
  add(string.format("Perplexity of %s on %s, chunked as llama-perplexity at ctx %s (%s tokens scored, KV %s), "
    .. "every linear layer through the kernel and the classifier through %s; *weights* says what became of the "
    .. "file's linear weights (run.json's `conversions`). tokens/s is the perplexity throughput on %s "
    .. "thread(s) (ctx tokens per chunk over its forward time). The paper's columns are its Table 2 "
    .. "(bitnet_b1_58-large, WikiText2).",
    model, ppl.file and ppl.file:match("([^/]*)$") or "the text", ppl.ctx or "?", rows[1].ppl_tokens,
    sw and sw.kv or "?", rows[1].out_kernel, rows[1].threads))
  add("")
  local t = {}
  for _, k in ipairs(ORDER) do
    local r = find_kernel(rows, k)
    if r then
      local p = PAPER[k]
      local function delta(base)
        local a, b = util.num(r.ppl), base and util.num(base.ppl)
        if not a or not b then return "–" end
        return string.format("%+.3f %%", 100 * (a - b) / b)
      end
      t[#t + 1] = { k, util.fmt(r.bits_per_weight, 3), weights_of(run, r.ppl_model, r.kernel),
        string.format("%.4f ± %.2f", util.num(r.ppl), util.num(r.ppl_err) or 0), delta(f16), delta(ref),
        util.mark(util.fmt(r.ppl_tps, 3), r), p[2], p[1] }
    end
  end
  add(util.table({ "kernel", "bpw:", "weights", "PPL:", "vs f16:", "vs i2_s:", "tokens/s:", "paper's claim",
    "paper PPL:" }, t))
  add("")

  local same, differ = {}, {}
  for _, k in ipairs(LOSSLESS) do
    local r = find_kernel(rows, k)
    if r and ref then
      if r.ppl == ref.ppl and r.ppl_err == ref.ppl_err then same[#same + 1] = k else differ[#differ + 1] = k end
    end
  end
  add(string.format("**The lossless claim.** i2_s, tl1_1 and tl2_1 give the same perplexity to every printed "
    .. "digit here: %s%s. They compute one arithmetic — ternary weights with one scale per tensor, int8 "
    .. "activations with one absmax scale per token — so their logits are identical and so is every NLL.",
    #same > 0 and table.concat(same, ", ") or "none", #differ > 0 and ("; NOT equal: " .. table.concat(differ, ", ")) or ""))
  add("")

  local lc = LLAMA_CPP[model]
  local tq = find_kernel(rows, "tq2_0")
  if lc and tq and tq.ppl_tokens == lc.tokens and ppl.ctx == 128 and sw.kv == "f32" then
    add(string.format("**Against llama.cpp.** llama.cpp's llama-perplexity on the same file and text gives %s "
      .. "(TQ2_0 as stored, f32 KV); bitbench's tq2_0, which uses the same bytes as stored, gives %s (%s). "
      .. "llama.cpp's f32 original of this model gives %s; bitbench's f16 kernel on the TQ2_0 file's "
      .. "weights gives %s.", lc.tq2_0, tq.ppl, string.format("%+.3f %%", 100 * (util.num(tq.ppl) - util.num(lc.tq2_0))
      / util.num(lc.tq2_0)), lc.f32_model, f16 and f16.ppl or "–"))
    add("")
  end

  add("**Where and why it differs from the paper.** The paper's model is the trained bitnet_b1_58-large; "
    .. "the default here is llama.cpp's golden tiny BitNet (the test data directory's golden/gguf/README.md §3, getting-started.md): random ternary "
    .. "weights with one scale per tensor, stored by llama.cpp as TQ2_0, so its perplexity is that of a "
    .. "random model (thousands, above its 512-token vocabulary) and no kernel is closer to a \"right\" "
    .. "answer. The paper's Float16 row equals I2_S because the checkpoint was trained for int8 "
    .. "activations; this model was not, so f16 (activations kept in float) and the int8 kernels differ "
    .. "by the activation quantization alone. What carries over is the structure of the claim: the "
    .. "lossless kernels agree with each other exactly, tl1_0 / tl2_0 (int8 lookup tables) and tq2_0 "
    .. "(per-block activation scales) move the perplexity by a fraction of a per cent, q4_0 (the ternary "
    .. "weights re-rounded to 4 bits per block) by more. tokens/s are of a model of a few hundred thousand "
    .. "parameters on a shared, loaded machine: compare them within this table only. "
    .. "`BITBENCH_PPL_MODEL=FILE.gguf` runs the same table on any GGUF model (e.g. bitnet_b1_58-large "
    .. "exported by `bitbench export`).")
  return table.concat(out, "\n")
end

return {
  title = "bitnet.cpp Table 2 as perplexity: lossless i2_s / tl1_1 / tl2_1 on a ternary model",
  paper = "000",
  render = render,
}
