-- Report for experiments/intel_gemv.lua: Intel up-convert paper Figures 5-7, attained
-- GEMV bandwidth of int8 (q8_0), 2-bit (up_i2) and 1-bit (up_i1) weights per matrix shape.
-- The paper prints no bar values; its figures are quoted from the text of Sec. IV-B.

-- The kernel columns: each (kernel, variant) in order of first appearance, q8_0 first.
local function columns(rows)
  local seen, cols = {}, {}
  for _, r in ipairs(rows) do
    local key = r.kernel .. "@" .. r.variant
    if not seen[key] then
      seen[key] = true
      cols[#cols + 1] = { key = key, kernel = r.kernel, variant = r.variant }
    end
  end
  table.sort(cols, function(a, b)
    local order = { q8_0 = 1, up_i2 = 2, up_i1 = 3 }
    local oa, ob = order[a.kernel] or 9, order[b.kernel] or 9
    if a.variant ~= b.variant then
      -- the best variant (that of q8_0's first row) before the others
      return a.variant < b.variant
    end
    return oa < ob
  end)
  return cols
end

local function shape_label(r)
  local name = r.m .. "×" .. r.k
  if r.model and r.model ~= "" then name = name .. " (" .. r.model .. " " .. r.roles .. ")" end
  return name
end

-- How much of the DRAM bandwidth one core draws, from the machine profile ("" without it).
local function single_core(run, util)
  local one = util.dram_gbps(run.profile, 1)
  local all, t = util.dram_gbps(run.profile)
  if not one or not all or t == 1 then return "" end
  return string.format(" (one core alone %s GB/s, %s of it)", util.fmt(one, 3), util.ratio(one, all))
end

local function render(run, util)
  local rows = util.filter(run.csv, { n = 1 })
  if #rows == 0 then return "No GEMV rows in results.csv (N/A)." end
  local threads = util.distinct(rows, "threads", true)
  local tmax = threads[#threads]
  local cols = columns(rows)
  local q8 -- the q8_0 column that ratios divide by: the best variant's
  for _, c in ipairs(cols) do if c.kernel == "q8_0" and not q8 then q8 = c end end

  local shapes, seen = {}, {}
  for _, r in ipairs(rows) do
    local key = r.m .. "x" .. r.k .. "/" .. (r.model or "") .. "/" .. (r.roles or "")
    if not seen[key] then seen[key] = true; shapes[#shapes + 1] = r end
  end

  local function gbps(shape, col, t)
    local r = util.find(rows, { m = shape.m, k = shape.k, model = shape.model or "", roles = shape.roles or "",
      kernel = col.kernel, variant = col.variant, threads = t })
    return r and util.num(r.gbps), r
  end

  local out = {}
  local function add(s) out[#out + 1] = s end
  add(string.format("Attained weight bandwidth (GB/s, packed weight bytes / time per call, activation "
    .. "quantization included), N = 1, %s, %s thread%s (the paper's Figs. 5-7 use all cores), and each "
    .. "kernel's bandwidth relative to q8_0's on the same shape:", rows[1].cache == "dram"
      and "weights streamed from DRAM" or "weights cache-resident", tmax, tmax == "1" and "" or "s"))
  add("")
  local header = { "shape M×K (model, roles)" }
  for _, c in ipairs(cols) do header[#header + 1] = c.key .. " GB/s:" end
  for _, c in ipairs(cols) do
    if c ~= q8 and q8 then header[#header + 1] = c.key .. " / q8_0:" end
  end
  local body = {}
  local ratio_lists, ratio_flagged = {}, {}
  for _, s in ipairs(shapes) do
    local line = { shape_label(s) }
    for _, c in ipairs(cols) do
      local v, r = gbps(s, c, tmax)
      line[#line + 1] = v and util.mark(util.fmt(v, 3), r) or "N/A"
    end
    local base, base_row
    if q8 then base, base_row = gbps(s, q8, tmax) end
    for _, c in ipairs(cols) do
      if c ~= q8 and q8 then
        local v, r = gbps(s, c, tmax)
        line[#line + 1] = (v and base) and util.mark(util.ratio(v, base), r, base_row) or "N/A"
        if v and base then
          ratio_lists[c.key] = ratio_lists[c.key] or {}
          table.insert(ratio_lists[c.key], v / base)
          ratio_flagged[c.key] = ratio_flagged[c.key] or util.flagged(r) ~= nil or util.flagged(base_row) ~= nil
        end
      end
    end
    body[#body + 1] = line
  end
  add(util.table(header, body))
  add("")

  -- one-thread bandwidth beside the all-thread one, per kernel (median over shapes)
  if #threads > 1 then
    local tl = {}
    for _, c in ipairs(cols) do
      local one, all, f1, fa = {}, {}, false, false
      for _, s in ipairs(shapes) do
        local v, r = gbps(s, c, threads[1])
        one[#one + 1], f1 = v, f1 or util.flagged(r) ~= nil
        v, r = gbps(s, c, tmax)
        all[#all + 1], fa = v, fa or util.flagged(r) ~= nil
      end
      local m1, ma = util.median(one), util.median(all)
      tl[#tl + 1] = { c.key, util.mark(util.fmt(m1, 3), f1), util.mark(util.fmt(ma, 3), fa),
        (m1 and ma) and util.mark(util.ratio(ma, m1), f1 or fa) or "N/A" }
    end
    add("Median over the shapes, per thread count (marked when a flagged point is among them):")
    add("")
    add(util.table({ "kernel", "GB/s, " .. threads[1] .. " thread:", "GB/s, " .. tmax .. " threads:",
      "scaling:" }, tl))
    add("")
  end

  -- speed-up in time per call over q8_0 (median over shapes) and what the byte ratio alone gives
  local function time_of(shape, col, t)
    local r = util.find(rows, { m = shape.m, k = shape.k, model = shape.model or "", roles = shape.roles or "",
      kernel = col.kernel, variant = col.variant, threads = t })
    return r and util.num(r.t_median_s), r and util.num(r.bits_per_weight)
  end
  local summary = {}
  for _, c in ipairs(cols) do
    if ratio_lists[c.key] then
      local l = ratio_lists[c.key]
      table.sort(l)
      local speed, bits, qbits = {}, nil, nil
      for _, sh in ipairs(shapes) do
        local tk, bk = time_of(sh, c, tmax)
        local tq, bq = time_of(sh, q8, tmax)
        if tk and tq and tk > 0 then speed[#speed + 1] = tq / tk; bits, qbits = bk, bq end
      end
      local sp = util.median(speed)
      summary[#summary + 1] = string.format("%s %.2f–%.2f× of q8_0's bandwidth (median %.2f×%s), i.e. a median "
        .. "speed-up in time of %s over q8_0 where the bytes alone would give %s", c.key, l[1], l[#l],
        util.median(l), ratio_flagged[c.key] and (", " .. util.MARK .. " flagged points among the shapes") or "",
        sp and string.format("%.2f×", sp) or "N/A",
        (bits and qbits and bits > 0) and string.format("%.2f×", qbits / bits) or "N/A")
    end
  end
  add("Paper (Sec. IV-B, Figs. 5-7; bar values are not printed, so these are its text's figures):")
  add("")
  add(util.table({ "paper platform", "int2 bandwidth / int8 bandwidth", "int1" }, {
    { "ARL (Core Ultra 9 285K, 8P+16E, 98 GB/s)", "0.80–0.90× (\"within 10-20% of the int8 roofline\"); "
      .. "0.95–0.98× on the larger shapes (\"within 2-5%\")", "below int2, most on small shapes (fork/join overheads)" },
    { "ARLH (Core Ultra 7 255H, 6P+8E, 75 GB/s)", "0.80–0.90× (\"within 10-20%\")",
      "≈55 GB/s modelled = 0.73× of the 75 GB/s peak, matching the larger shapes" },
    { "LNL (Core Ultra 7 258V, 4P+4E, 97 GB/s)", "within 20–25% of the peak on the larger shapes",
      "≈30 GB/s on every shape = 0.31× of the 97 GB/s peak: compute-bound (Fig. 4)" },
  }))
  add("")
  add("Ours: " .. (#summary > 0 and table.concat(summary, "; ") or "N/A (no q8_0 and up-convert rows on the same shapes)") .. ".")
  add("")
  add("Why they differ. The paper's machines have 8-24 cores sharing 75-98 GB/s, so each core must "
    .. "draw only 0.8-3.5 bytes/cycle; here " .. util.machine_sentence(run)
    .. single_core(run, util) .. ", so per core the up-convert sequence "
    .. "must keep up with several bytes per cycle (intel_fig4 measures where it does). The kernels here "
    .. "are the " .. (util.isa_text(run.csv) or "recorded") .. " variants (the paper's are 256-bit "
    .. "AVX2-VNNI; on a CPU with AVX-512, `--full` adds the `@avxvnni` variants). The sweep rotates packed copies exceeding twice the "
    .. "last-level cache (" .. (util.llc_text(run) or "its size not recorded in run.json") .. " here) so that "
    .. "every call reads its weights from DRAM; with " .. tmax .. " thread" .. (tmax == "1" and "" or "s")
    .. " the pool's fork/join cost (about 0.5 µs, results.md, \"Harness overhead\") weighs on the "
    .. "small shapes (MobileLLM's 320×1600 k+v is 128 KB in 2-bit) as OpenMP's 1 µs does in the paper. "
    .. "The paper's text names only its smallest shape (1600×1600); the shapes here are each model's "
    .. "distinct projection shapes (models/, roles as in `bitbench list models`). "
    .. "Synthetic weights; bandwidth counts the packed bytes each kernel must read (q8_0 8.5 bits per "
    .. "weight with its scales, up_i2 2, up_i1 1).")
  return table.concat(out, "\n")
end

return {
  title = "Intel up-convert paper Figures 5-7: attained GEMV bandwidth per shape (q8_0, up_i2, up_i1)",
  paper = "004",
  render = render,
}
