-- The report of a peers_e2e run (experiments/peers_e2e.lua): tokens/s of bitbench's kernels and of
-- the peers on identical weights, then each bitbench kernel's ratio to each peer row with its
-- spread.  The spread of a ratio is the range it takes over the repetitions' extremes: from
-- (slowest bitbench) / (fastest peer) to (fastest bitbench) / (slowest peer).  A ratio from a row
-- measured on a busy machine (report.disturbed) is marked "⚠ busy", with a note under the table.
-- Rows at several KV-cache depths (experiments/peers_depth.lua) get one table per depth; a peer's
-- row at depth may come from its llama-batched-bench (its peer column says so).
--
--   lua5.4 scripts/peers.lua RUN_DIR/e2e.csv [tg|pp]
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local report = require("report")

local test = arg[2] or "tg"
if test ~= "tg" and test ~= "pp" then arg[1] = nil end -- the usage line
local rows = report.rows_of_arg("peers.lua", "RUN_DIR/e2e.csv [tg|pp]")

local function rate(r) return report.num(r[test .. "_tps"]) end
local function lo(r) return report.num(r[test .. "_tps_min"]) end
local function hi(r) return report.num(r[test .. "_tps_max"]) end
local function label(r)
  if r.peer == "" then return r.kernel end
  local via = r.peer:match("%-batched$") and ", llama-batched-bench" or ""
  return r.kernel .. " (" .. r.peer_commit .. via .. ")"
end

local function depth_of(r) return r.depth ~= nil and r.depth ~= "" and r.depth or "0" end
for _, r in ipairs(rows) do r.depth = depth_of(r) end
local several_depths = #report.distinct(rows, "depth") > 1

for _, g in ipairs(report.groups(rows, { { "model" }, { "threads", true }, { "depth", true } })) do
  local model, t, d = table.unpack(g.values)
  local ours, theirs = {}, {}
  for _, r in ipairs(g.rows) do
    if rate(r) and rate(r) > 0 then
      if r.peer == "" then ours[#ours + 1] = r else theirs[#theirs + 1] = r end
    end
  end
  local first = g.rows[1]
  print(string.format("### %s, %s threads, %s%s%s\n", model, t, test, first[test == "tg" and "gen" or "prompt"],
                      several_depths and (" at depth " .. d) or ""))
  local speed = {}
  for _, r in ipairs(g.rows) do
    speed[#speed + 1] = { label(r), report.fmt(rate(r), 4), report.fmt(lo(r), 4) .. " – " .. report.fmt(hi(r), 4) }
  end
  print(report.table({ "kernel", "t/s (median):", "min – max:" }, speed))
  if #ours > 0 and #theirs > 0 then
    print("\n" .. report.versus("bitbench ÷", ours, theirs, function(a, b)
      return string.format("%.2f (%.2f – %.2f)", rate(a) / rate(b), lo(a) / hi(b), hi(a) / lo(b))
    end))
  end
  print("")
end
