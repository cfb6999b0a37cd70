-- Report for experiments/intel_fig4.lua: Intel up-convert paper Figure 4 and Sec. III-F,
-- equations (1)-(3): gamma per kernel, the effective-bandwidth roofline ebw = min(beta, B/gamma)
-- per core in bytes/cycle, and the measured GEMV points against it.

-- The paper's gamma (Sec. III-F, measured on its P and E cores), cycles per 256-bit output vector
-- (32 weights), B, the bytes read per 32 weights, and the B/gamma it prints (ebw_P = min(beta, 6.4) ...).
local PAPER = {
  up_i2 = { bits = "2-bit", gamma_p = 1.25, gamma_e = 2.175, B = 8, bg_p = "6.4", bg_e = "3.68" },
  up_i1 = { bits = "1-bit", gamma_p = 2.4, gamma_e = 4.71, B = 4, bg_p = "1.7", bg_e = "0.85" },
}
-- beta per core of the paper's platforms (Sec. IV-B, bytes/cycle, all cores reading)
local PAPER_BETA = "ARL β_P = 0.8, β_E = 0.95; ARLH 1.44 and 1.6; LNL 3.18 and 3.52 bytes/cycle"

local function render(run, util)
  local out = {}
  local function add(s) out[#out + 1] = s end
  local prof = run.profile
  if not prof or type(prof.gamma) ~= "table" then
    add("No machine profile in this run (machine-profile.json missing): γ and the rooflines are N/A.")
    return table.concat(out, "\n")
  end
  local clock = prof.clock_ghz
  -- DRAM read bandwidth per thread count
  local dram, tmax = {}, 0
  for _, b in ipairs(prof.read_bandwidth or {}) do
    if b.level == "DRAM" then
      dram[b.threads] = b.gbps
      if b.threads > tmax then tmax = b.threads end
    end
  end
  local beta_total = dram[tmax]
  local beta_core = (beta_total and clock) and beta_total / tmax / clock or nil -- bytes/cycle per core

  add(string.format("Machine profile measured in the run (%s mode): clock %s GHz (dependent adds); DRAM "
    .. "read bandwidth %s GB/s with 1 thread, %s GB/s with %d, i.e. β = %s bytes/cycle per core with "
    .. "all %d cores reading (the paper's β: %s).", prof.quick and "quick" or "full", util.fmt(clock, 3),
    util.fmt(dram[1], 3), util.fmt(beta_total, 3), tmax, util.fmt(beta_core, 3), tmax, PAPER_BETA))
  add("")
  add("γ = cycles per 32 up-converted weights (one 256-bit int8 vector, the paper's unit) of one "
    .. "thread's cache-resident GEMV, matmul alone; B = packed bytes per 32 weights (scales included); "
    .. "B/γ = bytes/cycle the computation alone can consume per core; ebw = min(β, B/γ) (Eq. 3):")
  add("")
  local rows = {}
  local bound = {}
  for _, g in ipairs(prof.gamma) do
    local gamma = g.gamma_cycles_per_32_weights
    local B = g.bits_per_weight and 4 * g.bits_per_weight or nil
    local bg = (gamma and B) and B / gamma or nil
    local ebw = (bg and beta_core) and math.min(beta_core, bg) or nil
    local which = "N/A"
    if bg and beta_core then which = bg >= beta_core and "bandwidth" or "compute" end
    bound[g.kernel] = which
    local p = PAPER[g.kernel]
    rows[#rows + 1] = {
      g.kernel .. "@" .. (g.variant or "?"), util.fmt(g.bits_per_weight, 3), util.fmt(B, 3), util.fmt(gamma, 3),
      p and (util.fmt(p.gamma_p, 3) .. " / " .. util.fmt(p.gamma_e, 4)) or "–",
      util.fmt(bg, 3), p and (p.bg_p .. " / " .. p.bg_e) or "–",
      util.fmt(ebw, 3), which,
    }
  end
  add(util.table({ "kernel", "bits/weight:", "B:", "γ here:", "paper γ_P / γ_E:", "B/γ here:",
    "paper B/γ_P / B/γ_E:", "ebw here:", "bound here" }, rows))
  add("")

  -- measured GEMV points from DRAM at the most threads against the model T·ebw (GB/s)
  local pts = util.filter(run.csv, { n = 1, cache = "dram", threads = tostring(tmax) })
  if #pts > 0 and clock then
    local r2 = {}
    for _, r in ipairs(pts) do
      local g
      for _, x in ipairs(prof.gamma) do if x.kernel == r.kernel and x.variant == r.variant then g = x end end
      local model
      if g and beta_total then
        model = math.min(beta_total, tmax * 4 * g.bits_per_weight / g.gamma_cycles_per_32_weights * clock)
      end
      r2[#r2 + 1] = { r.kernel .. "@" .. r.variant, r.m .. "×" .. r.k, util.mark(util.fmt(r.gbps, 3), r),
        util.fmt(model, 3), (model and util.num(r.gbps)) and util.mark(util.ratio(util.num(r.gbps), model), r) or "N/A" }
    end
    add(string.format("Measured GEMV (N = 1, from DRAM, %d threads) against the model's %d·ebw in GB/s "
      .. "(min(β, %d·B/γ·clock); γ of another variant than the one that ran gives N/A):", tmax, tmax, tmax))
    add("")
    add(util.table({ "kernel", "shape", "attained GB/s:", "model GB/s:", "attained / model:" }, r2))
    add("")
  else
    add("No DRAM GEMV points at " .. tmax .. " threads in this run (N/A).")
    add("")
  end

  add(string.format("Bandwidth- vs compute-bound here: up_i2 %s-bound, up_i1 %s-bound, q8_0 %s-bound "
    .. "(with all cores reading DRAM). In the paper (Fig. 4), the 2-bit kernel is bandwidth-bound on "
    .. "every platform, the 1-bit kernel compute-bound on LNL's cores and ARLH's E-cores.",
    bound.up_i2 or "N/A", bound.up_i1 or "N/A", bound.q8_0 or "N/A"))
  add("")
  -- where this machine's beta per core sits among the paper's platforms (0.8 .. 3.52 bytes/cycle)
  local beta_text = ""
  if beta_core then
    if beta_core > 3.52 then
      beta_text = string.format("β per core (%.2f bytes/cycle) is larger here than on any of the paper's "
        .. "platforms (" .. tmax .. " cores share this machine's memory system), which moves every kernel toward the "
        .. "compute-bound side of Fig. 4, the 1-bit one first, as on the paper's LNL. ", beta_core)
    elseif beta_core >= 3.18 then
      beta_text = string.format("β per core (%.2f bytes/cycle) is close to the paper's LNL (3.18-3.52), the "
        .. "platform where its 1-bit kernel turns compute-bound. ", beta_core)
    else
      beta_text = string.format("β per core (%.2f bytes/cycle) lies within the paper's platforms' range "
        .. "(0.8-3.52). ", beta_core)
    end
  end
  local isa = util.ran_isa(run.csv, "avx512")
    and ("the AVX-512 variants (64 weights per instruction, so per 32 weights about half the instructions of "
      .. "the paper's 256-bit AVX2-VNNI sequence: 1 shift + 2 AND + 4 shuffles + 4 VNNI per 128 2-bit weights)")
    or ("the " .. (util.isa_text(run.csv) or "recorded") .. " variants (the paper's sequence is 256-bit "
      .. "AVX2-VNNI: 1 shift + 2 AND + 4 shuffles + 4 VNNI per 128 2-bit weights)")
  add("Why they differ. γ here comes from " .. isa .. ", on this machine ("
    .. util.machine_sentence(run) .. "); the paper's P and E cores "
    .. "are those of Core Ultra client chips (ARL, ARLH, LNL). γ here is the whole GEMV matmul on cache-resident weights "
    .. "(loads, loop and reduction included), not the isolated up-convert sequence the paper times. "
    .. beta_text .. "Measured under whatever else shares the machine: the profile takes the fastest "
    .. "of many short runs, so a disturbed figure is only slower.")
  return table.concat(out, "\n")
end

return {
  title = "Intel up-convert paper Figure 4: effective-bandwidth rooflines from measured β and γ",
  paper = "004",
  render = render,
}
