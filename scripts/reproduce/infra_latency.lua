-- Report for experiments/infra_latency.lua: 1-bit AI Infra, the x86 latency table
-- (Intel Core Ultra 7-155H P-cores, FP16 vs BitNet b1.58) and the energy table (E-cores).

-- 1-bit AI Infra's x86 latency table: model size -> FP16 s, BitNet b1.58 s (speed-up = their ratio),
-- its printed speed-up, and its E-core power table: FP16 W, BitNet W ("efficiency" = their ratio).
local PAPER = {
  { size = "700M", model = "bitnet-b1.58-large", f16 = 2.18, bitnet = 0.92, speedup = 2.37, w16 = 8.2, wb = 2.3, eff = 3.57 },
  { size = "1.3B", model = "bitnet-dummy-1.5b", f16 = 4.03, bitnet = 1.32, speedup = 3.05, w16 = 9.1, wb = 2.1, eff = 4.33 },
  { size = "3B", model = "bitnet-dummy-2.7b", f16 = 9.45, bitnet = 2.17, speedup = 4.35, w16 = 10.4, wb = 1.8, eff = 5.78 },
  { size = "7B", model = "bitnet-dummy-7b", f16 = 22.1, bitnet = 3.89, speedup = 5.68, w16 = 11.8, wb = 1.6, eff = 7.38 },
  { size = "13B", model = "bitnet-dummy-13b", f16 = 42.3, bitnet = 6.53, speedup = 6.48, w16 = 12.3, wb = 1.58, eff = 7.79 },
  { size = "30B", model = "bitnet-dummy-30b", f16 = 101.7, bitnet = 16.5, speedup = 6.17 },
}

-- The last-level cache size from run.json, and the points whose weights per token fit in it.
local function render(run, util)
  local out = {}
  local function add(s) out[#out + 1] = s end
  local rows = run.e2e or {}
  if #rows == 0 then return "No end-to-end rows in e2e.csv (N/A)." end

  -- latency of the fixed generation: prompt / pp_tps + gen / tg_tps (medians)
  local function latency(r)
    if not r then return nil end
    local p, g = util.num(r.prompt) or 0, util.num(r.gen) or 0
    local pp, tg = util.num(r.pp_tps), util.num(r.tg_tps)
    if (p > 0 and not pp) or (g > 0 and not tg) then return nil end
    return (p > 0 and p / pp or 0) + (g > 0 and g / tg or 0)
  end
  local function point(model, kernel)
    for _, r in ipairs(rows) do
      if r.model == model and r.kernel == kernel and latency(r) then return r end
    end
  end

  local any = rows[1]
  add(string.format("Latency of a fixed generation — a %s-token prompt (prefill) then %s generated tokens, "
    .. "batch 1, %s thread(s), median of %s repetitions — with f16 weights and with bitnet.cpp's x86 kernels "
    .. "i2_s and tl2_0 (classifier f16 in every run, as bitnet.cpp does), synthetic ternary weights. "
    .. "The paper does not say how many tokens its latencies cover, so the comparison is of speed-ups over "
    .. "FP16. Sizes without a shape of that size use the nearest one: 1.3B → bitnet-dummy-1.5b, 3B → "
    .. "bitnet-dummy-2.7b (N/A: not run at this size, or does not fit in this machine's memory):",
    any.prompt or "?", any.gen or "?", any.threads or "?", any.reps or "?"))
  add("")
  local models = {}
  for _, p in ipairs(PAPER) do models[#models + 1] = p end
  local known = {}
  for _, p in ipairs(PAPER) do known[p.model] = true end
  for _, m in ipairs(util.distinct(rows, "model")) do
    if not known[m] then models[#models + 1] = { size = "–", model = m } end
  end
  local body = {}
  for _, p in ipairs(models) do
    local f, i2, t2 = point(p.model, "f16"), point(p.model, "i2_s"), point(p.model, "tl2_0")
    local lf, li, lt = latency(f), latency(i2), latency(t2)
    local function s(x) return x and util.fmt(x, 3) or "N/A" end
    body[#body + 1] = {
      p.size, p.model, f and util.mark(util.fmt(f.tg_gbps_derived, 3), f) or "N/A", util.mark(s(lf), f),
      util.mark(s(li), i2), util.mark(s(lt), t2),
      (lf and li) and util.mark(util.ratio(lf, li), f, i2) or "N/A",
      (lf and lt) and util.mark(util.ratio(lf, lt), f, t2) or "N/A",
      p.speedup and string.format("%.2f× (%s s / %s s)", p.speedup, p.f16, p.bitnet) or "–",
    }
  end
  add(util.table({ "seed size", "model here", "f16 decode weight GB/s:", "f16 s:", "i2_s s:", "tl2_0 s:", "i2_s / f16 speed-up:",
    "tl2_0 / f16 speed-up:", "seed's speed-up (x86):" }, body))
  add("")

  -- energy: the meters' columns, or why they are empty
  local have_energy = false
  for _, r in ipairs(rows) do
    if util.num(r.energy_per_token_j) then have_energy = true end
  end
  if have_energy then
    local eb = {}
    for _, p in ipairs(models) do
      local f, i2 = point(p.model, "f16"), point(p.model, "i2_s")
      local ef, ei = f and util.num(f.energy_per_token_j), i2 and util.num(i2.energy_per_token_j)
      eb[#eb + 1] = { p.size, p.model, util.fmt(ef, 3), util.fmt(ei, 3), (ef and ei) and util.ratio(ef, ei) or "N/A",
        p.eff and string.format("%.2f× (%s W / %s W)", p.eff, p.w16, p.wb) or "–" }
    end
    add("Energy per generated token (J, from the energy meter) beside the paper's E-core power ratio:")
    add("")
    add(util.table({ "seed size", "model here", "f16 J/token:", "i2_s J/token:", "f16 / i2_s:",
      "seed's FP16 W / BitNet W:" }, eb))
  else
    local why = {}
    for _, m in ipairs((run.json and run.json.meters) or {}) do
      if m.name == "rapl" or m.name == "pcm" then
        if m.available then
          why[#why + 1] = "`" .. m.name .. "` available but recorded no energy for these points"
        else
          why[#why + 1] = string.format("`%s` unavailable (%s: %s)", m.name, m.reason_code or "?",
            m.reason or "no reason recorded")
        end
      end
    end
    add("Energy: not measured on this machine, so there is no energy column — "
      .. (#why > 0 and table.concat(why, "; ") or "run.json records no rapl or pcm meter")
      .. ". The paper's E-core power table (FP16 W / BitNet W: 700M 8.2/2.3 = 3.57×, 1.3B 9.1/2.1 = "
      .. "4.33×, 3B 10.4/1.8 = 5.78×, 7B 11.8/1.6 = 7.38×, 13B 12.3/1.58 = 7.79×) has no counterpart "
      .. "here; no estimate is made.")
  end
  -- the points the run left out because they do not fit in memory (run.json "skipped")
  local unfit_list = {}
  for _, line in ipairs((run.json or {}).skipped or {}) do
    local k, m = tostring(line):match("skipped (%S+) on model (%S+): does not fit in memory")
    if k then unfit_list[#unfit_list + 1] = k .. " " .. m end
  end
  local unfit = #unfit_list > 0 and (" Left out because they do not fit in this machine's memory (N/A above): "
    .. table.concat(unfit_list, ", ") .. ".") or ""
  add("")
  add("Why they differ. The paper measures bitnet.cpp on a Core Ultra 7-155H laptop chip's P-cores; "
    .. "here " .. util.machine_sentence(run) .. ", where f16 decode of the paper's sizes streams its weights from DRAM "
    .. "(the f16 column above), while i2_s and tl2_0 must also keep up with that stream on "
    .. tostring((run.json.machine or {}).cores or "its") .. " cores "
    .. "(their compute bound: measurement.md's γ table and intel_fig4). "
    .. "Prefill (a 16-token GEMM) is part of the latency, as it is of "
    .. "any generation. The default run stops at 2.7B; `--full` adds 7B, 13B and 30B." .. unfit .. util.llc_note(run, rows))
  return table.concat(out, "\n")
end

return {
  title = "1-bit AI Infra: x86 latency vs FP16 across model sizes, and energy",
  paper = "001",
  render = render,
}
