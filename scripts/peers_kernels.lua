-- The report of a peers_kernels run (experiments/peers_kernels.lua): per shape and N, the time
-- and GFLOP/s of bitbench's kernels and of the peer's rows (variant "peer"), then each bitbench
-- kernel's speed-up over each peer row (peer time / bitbench time).  The peer prints only a mean
-- time, so a ratio's spread is bitbench's: from its slowest to its fastest repetition.  A ratio
-- from a row flagged for its spread or measured on a busy machine (report.disturbed) is marked.
--
--   lua5.4 scripts/peers_kernels.lua RUN_DIR/results.csv
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local report = require("report")

local rows, path = report.rows_of_arg("peers_kernels.lua", "RUN_DIR/results.csv")

local function t(r) return report.num(r.t_median_s) end
local printed = 0
for _, g in ipairs(report.groups(rows, { { "m", true }, { "k", true }, { "n", true } })) do
  local ours, theirs = {}, {}
  for _, r in ipairs(g.rows) do
    if t(r) and t(r) > 0 then
      if r.variant == "peer" then theirs[#theirs + 1] = r else ours[#ours + 1] = r end
    end
  end
  if #theirs > 0 then
    printed = printed + 1
    print(string.format("### M=%s K=%s N=%s\n", table.unpack(g.values)))
    local speed = {}
    for _, r in ipairs(g.rows) do
      local who = r.variant == "peer" and r.kernel or (r.kernel .. "@" .. r.variant)
      speed[#speed + 1] = { who, r.threads, report.fmt(t(r) * 1e6, 4), report.fmt(report.num(r.gops), 4) }
    end
    print(report.table({ "kernel", "threads:", "time us:", "GFLOP/s:" }, speed))
    if #ours > 0 then
      print("\n" .. report.versus("speed-up over", ours, theirs, function(a, b)
        local slow, fast = report.num(a.t_max_s) or t(a), report.num(a.t_min_s) or t(a)
        return string.format("%.2f (%.2f – %.2f)", t(b) / t(a), t(b) / slow, t(b) / fast)
      end))
    end
    print("")
  end
end
if printed == 0 then print("no shape has both bitbench's and a peer's rows in " .. path) end
