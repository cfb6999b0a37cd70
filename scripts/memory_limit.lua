-- The tables of issue 32's items 1, 2 and 5 from a memory_limit run (experiments/memory_limit.lua):
--
--   item 1: each kernel's decode share of its own read-alone bound (e2e.csv's tg_of_read), the
--           median round's, with the range over the rounds; goal at least 90 %.
--   item 2: the same share after `depth` tokens in the KV cache, whose rows a token reads count in
--           the bound (rows with a depth); goal at least 85 %.
--   item 5: tl2_0's decode tokens/s over i2_s's, the median of the ratios of the same round (the
--           rounds alternate, so a round's two points ran within minutes of each other), beside
--           what their bytes allow: i2_s's bytes per token over tl2_0's (weights and KV rows, as
--           the read-alone bound counts them); goal at least 1.10.  When the two points were
--           interleaved (e2e.csv's interleaved names both), also the median of the ratios of the
--           same repetition, from e2e_samples.csv beside e2e.csv: two generations seconds apart.
--
-- A row the harness flagged (report.flagged) carries report.MARK and is no finding.
--
--   lua5.4 scripts/memory_limit.lua RUN_DIR/e2e.csv
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local report = require("report")

local SHARE_GOAL, DEPTH_SHARE_GOAL, SPEEDUP_GOAL = 0.90, 0.85, 1.10
local rows, path = report.rows_of_arg("memory_limit.lua", "RUN_DIR/e2e.csv")
-- the repetitions of every round, when the run wrote them (bitbench's samples file, beside e2e.csv)
local samples = report.read_csv((path:match("^(.*)/[^/]*$") or ".") .. "/e2e_samples.csv") or {}

-- A row's per-round values of a rounds_* column, or its single value when it has one round.
local function per_round(r, list, single)
  local out = {}
  for v in tostring(r[list] or ""):gmatch("[^;]+") do out[#out + 1] = tonumber(v) end
  if #out == 0 then out[1] = report.num(r[single]) end
  return out
end

local function pct(x) return x and string.format("%.0f %%", 100 * x) or "–" end

-- bitbench's decode rows, without a depth (items 1 and 5) and with one (item 2)
local ours, deep = {}, {}
for _, r in ipairs(rows) do
  if (r.peer or "") == "" and report.num(r.gen) and report.num(r.gen) > 0 then
    if (report.num(r.depth) or 0) > 0 then deep[#deep + 1] = r else ours[#ours + 1] = r end
  end
end
if #ours == 0 and #deep == 0 then
  io.stderr:write("memory_limit.lua: " .. arg[1] .. " has no decode rows of bitbench's\n")
  os.exit(1)
end
local kernels = report.distinct(ours, "kernel")
-- A run whose decode sweeps differ in their classifier (memory_limit's "classifier" sweep): the
-- tables keep them apart, the model cell naming the classifier.
local by_classifier = #report.distinct(ours, "out_kernel") > 1
local decode_groups = by_classifier and { { "model" }, { "out_kernel" }, { "threads", true } }
  or { { "model" }, { "threads", true } }
local function model_cell(g)
  return by_classifier and string.format("%s (classifier %s)", g.values[1], g.values[2]) or g.values[1]
end
local function threads_cell(g) return g.values[#g.values] end

-- "91 % (88-93) ✓": the row's share, the range over its rounds, ✓ at the goal; marked when flagged
local function share_cell(r, goal)
  local share = r and report.num(r.tg_of_read)
  if not share then return "–" end
  local shares = per_round(r, "rounds_tg_of_read", "tg_of_read")
  local lo, hi = math.min(table.unpack(shares)), math.max(table.unpack(shares))
  local text = pct(share) .. (#shares > 1 and string.format(" (%.0f-%.0f)", 100 * lo, 100 * hi) or "")
    .. (share >= goal and " ✓" or "")
  return report.mark(text, r)
end

print(string.format("### Item 1: decode's share of the read-alone bound (goal ≥ %.0f %%)\n", 100 * SHARE_GOAL))
print("Each cell: the median round's share (the range over the rounds), ✓ when it meets the goal.\n")
local header = { "model", "threads" }
for _, k in ipairs(kernels) do header[#header + 1] = k end
print("| " .. table.concat(header, " | ") .. " |")
print("|---|---:|" .. string.rep("---:|", #kernels))
local any_marked = false
for _, g in ipairs(report.groups(ours, decode_groups)) do
  local cells = { model_cell(g), threads_cell(g) }
  for _, k in ipairs(kernels) do
    local r = report.find(g.rows, { kernel = k })
    any_marked = any_marked or (r ~= nil and report.flagged(r) ~= nil)
    cells[#cells + 1] = share_cell(r, SHARE_GOAL)
  end
  print("| " .. table.concat(cells, " | ") .. " |")
end
if any_marked then print("\n" .. report.LEGEND) end

if #deep > 0 then
  print(string.format("\n### Item 2: at depth, share of the read-alone bound with the KV rows (goal ≥ %.0f %%)\n",
    100 * DEPTH_SHARE_GOAL))
  print("| model | kernel | KV cache | depth | threads | share |")
  print("|---|---|---|---:|---:|---:|")
  local marked = false
  for _, r in ipairs(deep) do
    marked = marked or report.flagged(r) ~= nil
    print(string.format("| %s | %s | %s | %s | %s | %s |", r.model, r.kernel, r.kv_type_k or "", r.depth, r.threads,
      share_cell(r, DEPTH_SHARE_GOAL)))
  end
  if marked then print("\n" .. report.LEGEND) end
end

-- The decode seconds of point r's repetitions, in the order they ran (every round's).
local function decode_seconds(r)
  local out = {}
  for _, s in ipairs(samples) do
    if s.point == r.point and s.sweep == r.sweep and s.phase == "tg" and (s.run_id or "") == (r.run_id or "") then
      out[#out + 1] = { rep = tonumber(s.rep), seconds = report.num(s.seconds) }
    end
  end
  table.sort(out, function(x, y) return x.rep < y.rep end)
  return out
end

-- Whether a and b ran side by side: each row's interleaved list names both kernels.
local function interleaved_pair(a, b)
  local function names(r, k) return (";" .. (r.interleaved or "") .. ";"):find(";" .. k .. ";", 1, true) ~= nil end
  return names(a, a.kernel) and names(a, b.kernel) and names(b, a.kernel) and names(b, b.kernel)
end

-- The median and range of tl2_0's over i2_s's tokens/s of the same repetition (i2_s's seconds over
-- tl2_0's: the same tokens), or nil when they were not interleaved or their samples are missing.
local function paired_repetitions(a, b)
  if not interleaved_pair(a, b) then return nil end
  local sa, sb = decode_seconds(a), decode_seconds(b)
  if #sa == 0 or #sa ~= #sb then return nil end
  local ratios = {}
  for i = 1, #sa do
    if sa[i].rep ~= sb[i].rep or not sa[i].seconds or not sb[i].seconds or sa[i].seconds <= 0 then return nil end
    ratios[i] = sb[i].seconds / sa[i].seconds
  end
  return report.median(ratios), math.min(table.unpack(ratios)), math.max(table.unpack(ratios)), #ratios
end

local function bytes(r) return (report.num(r.weight_bytes_per_token) or 0) + (report.num(r.kv_bytes_per_token) or 0) end

print(string.format("\n### Item 5: tl2_0 over i2_s (goal ≥ %.2f×)\n", SPEEDUP_GOAL))
print("tok/s ratio: the median over the rounds of tl2_0's over i2_s's of the same round (the range). "
  .. "Paired repetitions: when the two were interleaved, the median over every repetition of the ratio of the "
  .. "same repetition (the range, the count). "
  .. "Bytes allow: i2_s's bytes per token over tl2_0's. Of that: the ratio over what the bytes allow "
  .. "(the paired repetitions' when there are some).\n")
print("| model | threads | tl2_0 / i2_s tok/s | paired repetitions | bytes allow | of that |")
print("|---|---:|---:|---:|---:|---:|")
local any_pair, marked = false, false
for _, g in ipairs(report.groups(ours, decode_groups)) do
  local a, b = report.find(g.rows, { kernel = "tl2_0" }), report.find(g.rows, { kernel = "i2_s" })
  if a and b and report.num(a.tg_tps) and report.num(b.tg_tps) then
    any_pair = true
    local ta, tb = per_round(a, "rounds_tg_tps", "tg_tps"), per_round(b, "rounds_tg_tps", "tg_tps")
    local ratios = {}
    if #ta == #tb then
      for i = 1, #ta do ratios[i] = ta[i] / tb[i] end
    else -- not the same rounds: the rows' own figures
      ratios[1] = report.num(a.tg_tps) / report.num(b.tg_tps)
    end
    local med = report.median(ratios)
    local cap = bytes(a) > 0 and bytes(b) / bytes(a) or nil
    local range = #ratios > 1 and string.format(" (%.2f-%.2f)", math.min(table.unpack(ratios)),
      math.max(table.unpack(ratios))) or ""
    local text = string.format("%.2f×%s%s", med, range, med >= SPEEDUP_GOAL and " ✓" or "")
    local pmed, plo, phi, npairs = paired_repetitions(a, b)
    local paired = pmed and report.mark(string.format("%.2f× (%.2f-%.2f, %d)%s", pmed, plo, phi, npairs,
      pmed >= SPEEDUP_GOAL and " ✓" or ""), a, b) or "–"
    marked = marked or report.flagged(a) or report.flagged(b)
    print(string.format("| %s | %s | %s | %s | %s | %s |", model_cell(g), threads_cell(g), report.mark(text, a, b), paired,
      cap and string.format("%.3f×", cap) or "–", cap and pct((pmed or med) / cap) or "–"))
  end
end
if not any_pair then print("| (no model and thread count with both tl2_0 and i2_s) | | | | | |") end
if marked then print("\n" .. report.LEGEND) end
local streams = {}
for _, r in ipairs(ours) do streams[#streams + 1] = r end
for _, r in ipairs(deep) do streams[#streams + 1] = r end
local note = report.streams_note(streams)
if note ~= "" then print("\n" .. note) end
