-- Report for experiments/arm_tables.lua: Arm paper Tables 1-3, linear-layer tokens/s at
-- batch b (prefill and token generation) for q4_0, q4_0x8 and iq4_nl, and the speed-ups over q4_0
-- beside the paper's; Table 2's interleavings q4_0_4_4 and q4_0_4_8 beside q4_0x8 where the run
-- has them.

-- n_layers of the models (models/llama-3-8b.lua, models/llama-3.2-3b.lua)
local LAYERS = { ["llama-3-8b"] = 32, ["llama-3.2-3b"] = 28 }

-- The paper's tokens/s, copied from Arm paper: Table 1 (Graviton3: Q4_0 llama.cpp, Q4_0_8_8
-- optimized) and Table 3 (Graviton3: IQ4_NL optimized); {prefill, token generation} per batch.
local PAPER = {
  ["llama-3-8b"] = {
    q4_0 = { [1] = { 190.4, 46.0 }, [4] = { 204.2, 112.1 }, [8] = { 223.8, 139.1 }, [16] = { 222.8, 157.5 }, [32] = { 222.2, 166.8 } },
    q4_0x8 = { [1] = { 570.9, 46.8 }, [4] = { 650.2, 149.8 }, [8] = { 683.2, 199.5 }, [16] = { 678.5, 315.8 }, [32] = { 665.0, 342.9 } },
    iq4_nl = { [1] = { 470.1, 45.5 }, [4] = { 520.5, 142.0 }, [8] = { 531.1, 184.8 }, [16] = { 527.7, 282.9 }, [32] = { 522.8, 304.9 } },
  },
  ["llama-3.2-3b"] = {
    q4_0 = { [1] = { 409.8, 84.3 }, [4] = { 473.0, 195.7 }, [8] = { 538.7, 268.3 }, [16] = { 538.8, 313.1 }, [32] = { 533.7, 339.0 } },
    q4_0x8 = { [1] = { 1137.2, 87.7 }, [4] = { 1472.5, 270.6 }, [8] = { 1588.8, 371.4 }, [16] = { 1579.3, 535.4 }, [32] = { 1550.0, 585.0 } },
    iq4_nl = { [1] = { 1015.7, 87.6 }, [4] = { 1274.0, 264.7 }, [8] = { 1357.3, 356.4 }, [16] = { 1349.5, 506.3 }, [32] = { 1333.6, 554.0 } },
  },
}

-- Table 2 (Q4_0_4_8 optimized on Graviton4, Q4_0_4_4 optimized on Graviton2): {prefill, token
-- generation} per batch.  Two machines and no Q4_0 baseline on either, so no ratio is formed.
local PAPER2 = {
  ["llama-3-8b"] = {
    q4_0_4_8 = { [1] = { 643.6, 66.2 }, [4] = { 756.8, 192.9 }, [8] = { 779.5, 246.2 }, [16] = { 767.9, 341.4 }, [32] = { 767.3, 375.7 } },
    q4_0_4_4 = { [1] = { 339.6, 29.1 }, [4] = { 355.4, 92.6 }, [8] = { 359.2, 123.6 }, [16] = { 357.8, 181.1 }, [32] = { 353.6, 186.0 } },
  },
  ["llama-3.2-3b"] = {
    q4_0_4_8 = { [1] = { 1210.0, 115.5 }, [4] = { 1609.8, 323.8 }, [8] = { 1751.4, 436.7 }, [16] = { 1739.5, 568.7 }, [32] = { 1721.8, 642.0 } },
    q4_0_4_4 = { [1] = { 700.8, 57.1 }, [4] = { 784.3, 161.7 }, [8] = { 816.3, 231.1 }, [16] = { 811.5, 311.2 }, [32] = { 800.1, 325.4 } },
  },
}

local KERNELS = { "q4_0", "q4_0x8", "q4_0_4_4", "q4_0_4_8", "iq4_nl" }

local function nroles(roles)
  if not roles or roles == "" then return 1 end
  local c = 0
  for _ in roles:gmatch("[^+]+") do c = c + 1 end
  return c
end

local function render(run, util)
  local rows = run.csv or {}
  local desc = (run.json and run.json.experiment and run.json.experiment.description) or ""
  local P = tonumber(desc:match("P=(%d+)"))
  local batches = {}
  for b in (desc:match("batches=([%d,]+)") or ""):gmatch("%d+") do batches[#batches + 1] = tonumber(b) end
  if #batches == 0 then batches = { 1, 4, 8, 16 } end

  -- seconds per token-step of the model's linear layers at N rows: sum over its distinct shapes of
  -- time x projections of that shape per layer, x layers; nil when a shape is missing; and whether
  -- any of the points summed is flagged
  local function step_time(model, kernel, threads, n)
    local mrows = util.filter(rows, { model = model, kernel = kernel, threads = threads, n = n })
    local all = util.filter(rows, { model = model, kernel = kernel, threads = threads })
    if #mrows == 0 then return nil end
    local shapes = {}
    for _, r in ipairs(all) do shapes[r.m .. "x" .. r.k] = r.roles end
    local sum, flagged = 0, false
    for key, roles in pairs(shapes) do
      local m, k = key:match("(%d+)x(%d+)")
      local r = util.find(mrows, { m = m, k = k })
      local t = r and util.num(r.t_median_s)
      if not t then return nil end
      sum = sum + t * nroles(roles)
      flagged = flagged or util.flagged(r) ~= nil
    end
    return sum * (LAYERS[model] or 1), flagged
  end

  local out = {}
  out[#out + 1] = string.format("Linear-layer tokens/s at batch b (users): token generation = b / (time of one "
    .. "step at N = b), prefill = N / (time at N = min(b·P, 512)) with P = %s prompt tokens per user; the "
    .. "time of a step is the sum over the model's projection shapes of the kernel's median time × "
    .. "projections per layer × layers, weights %s. Speed-ups are over q4_0, ours / "
    .. "the paper's (Table 1 for Q4_0_8_8, Table 3's optimized IQ4_NL over Table 1's Q4_0, both Graviton3).",
    P and tostring(P) or "–",
    (rows[1] and rows[1].cache == "resident") and "cache-resident" or "streamed from DRAM")
  out[#out + 1] = ""

  local models = util.distinct(rows, "model")
  local threads = util.distinct(rows, "threads", true)
  local has_table2 = #util.filter(rows, { kernel = "q4_0_4_4" }) > 0 and #util.filter(rows, { kernel = "q4_0_4_8" }) > 0
  if #models == 0 then out[#out + 1] = "No points in this run (N/A)." end
  for _, model in ipairs(models) do
    for _, t in ipairs(threads) do
      local body, body2 = {}, {}
      for _, b in ipairs(batches) do
        local npp = P and math.min(b * P, 512) or nil
        local pp, tg, ppf, tgf = {}, {}, {}, {}
        for _, k in ipairs(KERNELS) do
          local st
          st, tgf[k] = step_time(model, k, t, b)
          tg[k] = st and b / st or nil
          local sp
          if npp then sp, ppf[k] = step_time(model, k, t, npp) end
          pp[k] = sp and npp / sp or nil
        end
        -- a value or a ratio built from a flagged point carries the mark
        local function v(x, k) return util.mark(util.fmt(x[k], 3), (x == pp and ppf or tgf)[k] == true) end
        local function q(x, a, c)
          local f = x == pp and ppf or tgf
          return util.mark(util.ratio(x[a], x[c]), f[a] == true or f[c] == true)
        end
        local paper = PAPER[model]
        local function pr(k, i)
          if not paper or not paper[k][b] then return "–" end
          return util.ratio(paper[k][b][i], paper.q4_0[b][i])
        end
        local function both(ours, theirs) return ours .. " / " .. theirs end
        body[#body + 1] = {
          b,
          v(pp, "q4_0"), v(pp, "q4_0x8"), v(pp, "iq4_nl"),
          v(tg, "q4_0"), v(tg, "q4_0x8"), v(tg, "iq4_nl"),
          both(q(pp, "q4_0x8", "q4_0"), pr("q4_0x8", 1)),
          both(q(tg, "q4_0x8", "q4_0"), pr("q4_0x8", 2)),
          both(q(pp, "iq4_nl", "q4_0"), pr("iq4_nl", 1)),
          both(q(tg, "iq4_nl", "q4_0"), pr("iq4_nl", 2)),
        }
        local p2 = PAPER2[model]
        local function paper2(k, i) return p2 and p2[k][b] and util.fmt(p2[k][b][i], 4) or "–" end
        body2[#body2 + 1] = {
          b,
          v(pp, "q4_0_4_4"), v(pp, "q4_0_4_8"), v(tg, "q4_0_4_4"), v(tg, "q4_0_4_8"),
          q(pp, "q4_0_4_4", "q4_0"), q(pp, "q4_0_4_8", "q4_0"),
          q(tg, "q4_0_4_4", "q4_0"), q(tg, "q4_0_4_8", "q4_0"),
          paper2("q4_0_4_4", 1) .. " / " .. paper2("q4_0_4_8", 1), paper2("q4_0_4_4", 2) .. " / " .. paper2("q4_0_4_8", 2),
        }
      end
      out[#out + 1] = string.format("**%s, %s thread%s**%s", model ~= "" and model or "literal shapes (one layer)",
        t, t == "1" and "" or "s", LAYERS[model] and string.format(" (%d layers)", LAYERS[model]) or "")
      out[#out + 1] = ""
      out[#out + 1] = util.table({ "batch:", "pp q4_0:", "pp q4_0x8:", "pp iq4_nl:", "tg q4_0:", "tg q4_0x8:",
        "tg iq4_nl:", "pp q4_0x8/q4_0 ours / paper:", "tg q4_0x8/q4_0 ours / paper:",
        "pp iq4_nl/q4_0 ours / paper:", "tg iq4_nl/q4_0 ours / paper:" }, body)
      out[#out + 1] = ""
      if has_table2 then
        out[#out + 1] = string.format("Table 2's layouts, %s, %s thread%s: ours, and the paper's tokens/s "
          .. "(Q4_0_4_4 on Graviton2, Q4_0_4_8 on Graviton4)", model ~= "" and model or "literal shapes",
          t, t == "1" and "" or "s")
        out[#out + 1] = ""
        out[#out + 1] = util.table({ "batch:", "pp q4_0_4_4:", "pp q4_0_4_8:", "tg q4_0_4_4:", "tg q4_0_4_8:",
          "pp 4_4/q4_0:", "pp 4_8/q4_0:", "tg 4_4/q4_0:", "tg 4_8/q4_0:", "paper pp 4_4 / 4_8:",
          "paper tg 4_4 / 4_8:" }, body2)
        out[#out + 1] = ""
      end
    end
  end

  if has_table2 then
    out[#out + 1] = "Table 2: q4_0_4_4 (4 rows in 4-byte chunks, the layout for SDOT by element) and q4_0_4_8 (4 "
      .. "rows in 8-byte chunks, the layout for SMMLA) compute q4_0's numbers bit for bit, like q4_0x8. The paper "
      .. "measured Q4_0_4_4 on Graviton2 (Neoverse N1, no MMLA) and Q4_0_4_8 on Graviton4 (Neoverse V2), with no "
      .. "Q4_0 baseline on either machine, so its columns are tokens/s only; here all run on one machine. On "
      .. "x86, which has neither SDOT nor SMMLA, both 4-row layouts run the same integer dot products and differ "
      .. "only in how the weight and activation bytes are permuted to meet; on Arm q4_0_4_4 runs SDOT by "
      .. "element and q4_0_4_8 SMMLA on pairs of activation rows (i8mm), as in the paper."
  else
    out[#out + 1] = "Table 2 (Q4_0_4_8 on Graviton4, Q4_0_4_4 on Graviton2): the kernels q4_0_4_4 and q4_0_4_8 "
      .. "came after this run (a run of experiments/arm_tables.lua now includes them; kernel figures at "
      .. "4096×4096 are in Measured numbers, \"Interleaved Q4_0 on x86\"). The paper's Table 2 has no Q4_0 "
      .. "baseline on its two machines (Graviton2 for Q4_0_4_4, Graviton4 for Q4_0_4_8), so only tokens/s "
      .. "compare, not ratios."
  end
  out[#out + 1] = ""
  out[#out + 1] = "**Why they differ.** The paper runs llama.cpp end to end on Graviton3 (Neoverse V1, with the int8 "
    .. "matrix multiply-accumulate (MMLA) instructions Q4_0_8_8 uses) on many cores (the thread count did "
    .. "not survive in the copy this project has); here " .. util.machine_sentence(run) .. ", and only the linear layers are timed (attention, norms and the classifier are left "
    .. "out, so our tokens/s are upper bounds and only the ratios compare). The paper's Q4_0 baseline is "
    .. "llama.cpp's generic kernel, one output row at a time with NEON dot products; bitbench's q4_0 is "
    .. "already a SIMD dot-product kernel (here " .. (util.isa_text(run.csv) or "its recorded variant") .. "), so q4_0x8's gain from interleaving 8 rows (sharing each activation "
    .. "load and the per-block scale work across rows) is smaller than Q4_0_8_8's MMLA gain. In "
    .. "token generation at small batches both read the same 4.5 bits per weight from DRAM and the "
    .. "ratio tends to 1, as in the paper's batch-1 column (1.02× and 1.04×). iq4_nl here is bitbench's codebook "
    .. "kernel (the 16-entry table in a register, looked up with byte shuffles, like the paper's `vtbl` "
    .. "version). The weights are synthetic Gaussian and the paper's prompt length is unknown (P above "
    .. "is ours)."
  return table.concat(out, "\n")
end

return {
  title = "Arm Tables 1-3: prefill and token generation vs batch size, Q4_0 against Q4_0_8_8 (q4_0x8), Q4_0_4_4, "
    .. "Q4_0_4_8 and IQ4_NL",
  paper = "003",
  render = render,
}
