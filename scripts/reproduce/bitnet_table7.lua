-- Report for experiments/bitnet_table7.lua: bitnet.cpp Table 7 / Figure 7,
-- token-generation tokens/s per model size and kernel, as speed-ups beside the paper's
-- Intel i7-13700H rows.

-- The paper's Table 7 (tokens/s, "unlimited thread setting"), Intel i7-13700H (20C, 64G) rows,
-- copied from bitnet.cpp, Appendix E.  nil = N/A in the paper (does not fit).
local KERNELS = { "f16", "q4_0", "tmac_w2", "tq1_0", "tq2_0", "tl1_0", "tl2_0", "i2_s" }
local PAPER_I7 = {
  ["700M"] = { 30.73, 67.57, 76.29, 114.20, 123.94, 75.62, 126.99, 125.37 },
  ["1.5B"] = { 15.02, 35.46, 42.38, 64.86, 71.92, 43.44, 74.16, 77.75 },
  ["3.8B"] = { 5.85, 16.33, 18.12, 26.59, 33.19, 17.91, 35.43, 35.04 },
  ["7B"] = { 3.30, 9.09, 12.29, 17.96, 19.92, 11.89, 20.72, 20.62 },
  ["13B"] = { 1.78, 5.04, 6.44, 10.55, 11.21, 6.32, 11.41, 10.62 },
  ["30B"] = { nil, 2.13, 2.54, 4.62, 5.25, 2.65, 4.99, 5.70 },
  ["70B"] = { nil, 0.94, 1.32, 2.09, 2.32, 1.49, 2.42, 2.30 },
  ["100B"] = { nil, 0.67, 0.73, 1.48, 1.61, 0.75, 1.69, 1.65 },
}
-- Our model configs for the paper's sizes (700M is bitnet_b1_58-large; the others are
-- bitnet.cpp's dummy-model presets), in the paper's order.
local SIZES = {
  { "bitnet-dummy-125m", "125M" }, { "bitnet-b1.58-large", "700M" }, { "bitnet-dummy-1.5b", "1.5B" },
  { "bitnet-dummy-3.8b", "3.8B" }, { "bitnet-dummy-7b", "7B" }, { "bitnet-dummy-13b", "13B" },
  { "bitnet-dummy-30b", "30B" }, { "bitnet-dummy-70b", "70B" }, { "bitnet-dummy-100b", "100B" },
}

local function paper(size, kernel)
  local row = PAPER_I7[size]
  if not row then return nil end
  for i, k in ipairs(KERNELS) do if k == kernel then return row[i] end end
end

local function render(run, util)
  local out = {}
  local function add(s) out[#out + 1] = s end
  local rows = run.e2e or {}

  -- the models of this run: those measured or skipped (skipped lines name the model)
  local present = {}
  for _, r in ipairs(rows) do present[r.model] = true end
  local no_fit = {} -- "model/kernel" skipped because it does not fit in memory
  for _, line in ipairs(run.json.skipped or {}) do
    local k, m = tostring(line):match("skipped (%S+) on model (%S+):")
    if m then
      present[m] = true
      if tostring(line):find("does not fit", 1, true) then no_fit[m .. "/" .. k:gsub("@.*", "")] = true end
    end
  end
  local models = {}
  for _, s in ipairs(SIZES) do
    if present[s[1]] then models[#models + 1] = { name = s[1], size = s[2] } end
  end
  if #models == 0 then return "No end-to-end rows in e2e.csv and no skipped models (N/A)." end

  local function point(model, kernel)
    local r = util.find(rows, { model = model, kernel = kernel })
    return r
  end
  local function tps(model, kernel)
    local r = point(model, kernel)
    return r and util.num(r.tg_tps)
  end
  -- ours: the number, N/A when it does not fit in memory (the paper's N/A), "–" when not run
  local function ours_cell(model, kernel)
    local x = tps(model, kernel)
    if x then return util.mark(util.fmt(x, 3), point(model, kernel)) end
    return no_fit[model .. "/" .. kernel] and "N/A" or "–"
  end

  local any = rows[1] or {}
  local main, f16row = util.find(rows, { sweep = "tg" }) or any, util.find(rows, { sweep = "tg_f16" })
  add(string.format("Token generation (tokens/s, median of %s repetitions of %s tokens%s), batch 1, empty "
    .. "context, %s thread%s (the default and --full runs use all cores, as the paper's \"unlimited thread "
    .. "setting\"), synthetic ternary weights in bitnet.cpp's model shapes, embedding and classifier in f16. "
    .. "700M is bitnet_b1_58-large; the other sizes are bitnet.cpp's dummy-model presets. N/A: skipped because "
    .. "it does not fit in this machine's memory (as the paper's N/A), and a ratio with such a point; –: not "
    .. "measured in this run.",
    main.reps or "?", main.gen or "?",
    f16row and string.format("; f16: %s of %s", f16row.reps, f16row.gen) or "",
    any.threads or "?", any.threads == "1" and "" or "s"))
  add("")

  -- Table 1: absolute tokens/s, ours and the paper's i7 row beneath
  local header = { "model", "source" }
  for _, k in ipairs(KERNELS) do header[#header + 1] = k .. ":" end
  local t = {}
  for _, m in ipairs(models) do
    local ours = { m.size, "here" }
    for _, k in ipairs(KERNELS) do ours[#ours + 1] = ours_cell(m.name, k) end
    t[#t + 1] = ours
    if PAPER_I7[m.size] then
      local p = { m.size, "paper, i7-13700H" }
      for _, k in ipairs(KERNELS) do -- as printed in the paper, two decimals
        local x = paper(m.size, k)
        p[#p + 1] = x and string.format("%.2f", x) or "N/A"
      end
      t[#t + 1] = p
    end
  end
  add(util.table(header, t))
  add("")

  -- Table 2: speed-ups over f16, tq1_0 and q4_0, ours beside the paper's i7
  add("Speed-ups (tokens/s of the kernel over tokens/s of f16, tq1_0 and q4_0 on the same model), here and "
    .. "on the paper's Intel i7-13700H (Table 7), with the weight bandwidth each point derives (packed "
    .. "linear-layer and f16 classifier bytes per token × tokens/s):")
  add("")
  local t2 = {}
  for _, m in ipairs(models) do
    local f16, tq1, q4 = tps(m.name, "f16"), tps(m.name, "tq1_0"), tps(m.name, "q4_0")
    local rf16, rtq1, rq4 = point(m.name, "f16"), point(m.name, "tq1_0"), point(m.name, "q4_0")
    local pf16, ptq1, pq4 = paper(m.size, "f16"), paper(m.size, "tq1_0"), paper(m.size, "q4_0")
    for _, k in ipairs(KERNELS) do
      local r = point(m.name, k)
      local x, px = tps(m.name, k), paper(m.size, k)
      if not r and not px then goto next_kernel end
      local function na(s) return s == "–" and "N/A" or s end
      t2[#t2 + 1] = { m.size, k, r and util.fmt(r.bits_per_weight, 3) or "N/A", ours_cell(m.name, k),
        r and util.mark(util.fmt(r.tg_gbps_derived, 3), r) or "N/A",
        util.mark(na(util.ratio(x, f16)), r, rf16), na(util.ratio(px, pf16)),
        util.mark(na(util.ratio(x, tq1)), r, rtq1), na(util.ratio(px, ptq1)),
        util.mark(na(util.ratio(x, q4)), r, rq4), na(util.ratio(px, pq4)) }
      ::next_kernel::
    end
  end
  add(util.table({ "model", "kernel", "bpw:", "tok/s:", "GB/s (derived):", "/f16:", "/f16 paper:", "/tq1_0:",
    "/tq1_0 paper:", "/q4_0:", "/q4_0 paper:" }, t2))
  add("")

  -- The paper's headline ratios (§4.1.3) at the largest model measured here.
  local big = models[#models]
  for i = #models, 1, -1 do
    if tps(models[i].name, "i2_s") then big = models[i]; break end
  end
  local function both(a, b)
    return string.format("%s here, %s on the i7",
      util.mark(util.ratio(tps(big.name, a), tps(big.name, b)), point(big.name, a), point(big.name, b)),
      util.ratio(paper(big.size, a), paper(big.size, b)))
  end
  add(string.format("Headline ratios of §4.1.3 at %s: i2_s over f16 %s (the paper: up to 6.25×); tl2_0 over "
    .. "tmac_w2 %s (up to 2.32× on the i7, 1.19× on the M2 Ultra); tl2_0 over tq1_0 %s (up to 1.33× on the i7, "
    .. "1.65× on the M2).", big.size, both("i2_s", "f16"), both("tl2_0", "tmac_w2"), both("tl2_0", "tq1_0")))
  add("")

  -- Which points could stream from L3 rather than DRAM here.
  local mach = run.json.machine or {}
  local l3
  for _, c in ipairs(mach.caches or {}) do
    if c.level == 3 then l3 = c.size end
  end
  local in_l3 = {}
  for _, r in ipairs(rows) do
    local b = util.num(r.weight_bytes_per_token)
    if l3 and b and b <= l3 then in_l3[#in_l3 + 1] = r.model:gsub("^bitnet%-", "") .. "/" .. r.kernel end
  end
  local function gbps(kernel)
    local r = point(big.name, kernel)
    return r and util.mark(util.fmt(r.tg_gbps_derived, 3), r) or "N/A"
  end
  add(string.format("Why the ratios differ. The paper's i7-13700H (\"20C\" in Table 7) has AVX2 but no AVX-512 "
    .. "and a DRAM bandwidth below 100 GB/s (Appendix C.1); here %s. With %s the "
    .. "kernels that spend many instructions per weight can be compute-bound rather than bandwidth-bound: at %s, "
    .. "tq1_0 (base-3 unpacking: several times i2_s's cycles per weight, see γ in "
    .. "results/reference/machine-profile.json) derives %s GB/s of weights against %s GB/s for i2_s and %s GB/s "
    .. "for tl2_0, and f16 %s GB/s. The L3 here is %s: points whose bytes per token fit in it (%s) are not DRAM-bound, "
    .. "whereas every row of the paper's table exceeds the i7's 24 MB L3. Weights are synthetic (speed does "
    .. "not depend on their values), and the layers are real copies in memory, so every token streams all of "
    .. "them.", util.machine_sentence(run), mach.cores and (mach.cores .. " core" .. (mach.cores == 1 and "" or "s"))
      or "an unrecorded number of cores", big.size, gbps("tq1_0"), gbps("i2_s"), gbps("tl2_0"), gbps("f16"),
    l3 and string.format("%.0f MiB", l3 / 1048576) or "large",
    #in_l3 > 0 and table.concat(in_l3, ", ") or "none in this run"))
  return table.concat(out, "\n")
end

return {
  title = "bitnet.cpp Table 7 / Figure 7: token generation by model size and kernel",
  paper = "000",
  render = render,
}
