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
for _, m in ipairs(report.distinct(rows, "m", true)) do
  for _, k in ipairs(report.distinct(report.filter(rows, { m = m }), "k", true)) do
    for _, n in ipairs(report.distinct(report.filter(rows, { m = m, k = k }), "n", true)) do
      local here = report.filter(rows, { m = m, k = k, n = n })
      local ours, theirs = {}, {}
      for _, r in ipairs(here) do
        if t(r) and t(r) > 0 then
          if r.variant == "peer" then theirs[#theirs + 1] = r else ours[#ours + 1] = r end
        end
      end
      if #theirs > 0 then
        printed = printed + 1
        print(string.format("### M=%s K=%s N=%s\n", m, k, n))
        local speed = {}
        for _, r in ipairs(here) do
          local who = r.variant == "peer" and r.kernel or (r.kernel .. "@" .. r.variant)
          speed[#speed + 1] = { who, r.threads, report.fmt(t(r) * 1e6, 4), report.fmt(report.num(r.gops), 4) }
        end
        print(report.table({ "kernel", "threads:", "time us:", "GFLOP/s:" }, speed))
        if #ours > 0 then
          local marked = false
          print("\n" .. report.versus("speed-up over", ours, theirs, function(a, b)
            local slow, fast = report.num(a.t_max_s) or t(a), report.num(a.t_min_s) or t(a)
            marked = marked or (report.disturbed(a) or report.disturbed(b)) ~= nil
            return report.marked(string.format("%.2f (%.2f – %.2f)", t(b) / t(a), t(b) / slow, t(b) / fast), a, b)
          end))
          if marked then print("\n" .. report.DISTURBED_NOTE) end
        end
        print("")
      end
    end
  end
end
if printed == 0 then print("no shape has both bitbench's and a peer's rows in " .. path) end
