-- Helpers for the scripts that turn results folders into README text (scripts/reproduce.lua and
-- the per-experiment modules in scripts/reproduce/): reading bitbench's CSV and JSON files and
-- formatting numbers and markdown tables.  Plain Lua 5.4, no libraries.
local M = {}

-- One CSV line into fields.  bitbench writes no quoted fields today, but a quoted field (RFC 4180,
-- "" for a quote) is read correctly so that a future text column cannot shift the others.
local function split_csv(line)
  local out, i, n = {}, 1, #line
  while i <= n + 1 do
    if line:sub(i, i) == '"' then
      local buf, j = {}, i + 1
      while j <= n do
        local ch = line:sub(j, j)
        if ch == '"' and line:sub(j + 1, j + 1) == '"' then buf[#buf + 1] = '"'; j = j + 2
        elseif ch == '"' then j = j + 1; break
        else buf[#buf + 1] = ch; j = j + 1 end
      end
      out[#out + 1] = table.concat(buf)
      i = j + 1 -- past the comma
    else
      local j = line:find(",", i, true) or (n + 1)
      out[#out + 1] = line:sub(i, j - 1)
      i = j + 1
    end
  end
  return out
end

-- The rows of a CSV file as tables keyed by column name (values are strings; an empty cell is
-- ""), or nil when the file does not exist.
function M.read_csv(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local header_line = f:read("l")
  if not header_line then f:close(); return {} end
  local header = split_csv(header_line)
  local rows = {}
  for line in f:lines() do
    if line ~= "" then
      local v, r = split_csv(line), {}
      for i, name in ipairs(header) do r[name] = v[i] end
      rows[#rows + 1] = r
    end
  end
  f:close()
  return rows
end

-- bitbench.compare's table for report modules, which run under plain lua5.4 and so reach it
-- through the program: `bitbench compare A B --csv` ($BITBENCH_BIN, else bitbench on the PATH),
-- A and B run directories or FILE.sqlite:RUN / FILE.sqlite:COMMIT, threshold a fraction (0.05).
-- Returns {rows = {{key, kind, kernel, ..., ratio, ci_lo, ci_hi, significant, change}, ...},
-- regressions, improvements} with numbers as numbers, or nil and bitbench's message.
function M.compare(a, b, threshold)
  local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
  local cmd = q(os.getenv("BITBENCH_BIN") or "bitbench") .. " compare " .. q(a) .. " " .. q(b) .. " --csv" ..
    (threshold and (" --threshold " .. string.format("%.6g", threshold)) or "")
  local errfile = os.tmpname()
  local p = io.popen(cmd .. " 2>" .. q(errfile), "r")
  local text = p:read("a")
  p:close()
  local ef = io.open(errfile, "r")
  local errtext = ef and ef:read("a") or ""
  if ef then ef:close() end
  os.remove(errfile)
  if not text:match("^key,") then return nil, (errtext:gsub("%s+$", "")) end
  local lines, header, out = {}, nil, {rows = {}, regressions = 0, improvements = 0}
  for line in text:gmatch("[^\n]+") do lines[#lines + 1] = line end
  header = split_csv(lines[1])
  for i = 2, #lines do
    local v = split_csv(lines[i])
    if #v == #header then
      local r = {}
      for j, name in ipairs(header) do r[name] = tonumber(v[j]) or v[j] end
      r.significant = r.significant == 1
      if r.ci_lo == "" then r.ci_lo, r.ci_hi = nil, nil end
      out.regressions = out.regressions + (r.change == "slower" and 1 or 0)
      out.improvements = out.improvements + (r.change == "faster" and 1 or 0)
      out.rows[#out.rows + 1] = r
    end
  end
  return out
end

-- The rows of the CSV file a report script is given as its first argument; on a missing argument
-- or an unreadable file, the usage line or the reason on stderr and exit (2 or 1).
function M.rows_of_arg(script, usage)
  if not arg[1] then
    io.stderr:write("usage: lua5.4 scripts/" .. script .. " " .. usage .. "\n")
    os.exit(2)
  end
  local rows = M.read_csv(arg[1])
  if not rows then
    io.stderr:write(script .. ": cannot read " .. arg[1] .. "\n")
    os.exit(1)
  end
  return rows, arg[1]
end

-- Why a row's measurement is no ordinary one, or nil: "spread" (its spread_flag: the repetitions
-- disagreed beyond the sweep's spread_limit), "busy" (its busy flag, or other processes took
-- more than M.DISTURBED_SHARE of the CPUs' time while it ran: other_cpu_share).  A ratio built
-- from such a row is marked, not printed as an ordinary one; a row both is "spread, busy".
M.DISTURBED_SHARE = 0.25
function M.disturbed(r)
  local why = {}
  if tostring(r.spread_flag) == "1" then why[#why + 1] = "spread" end
  local share = M.num(r.other_cpu_share)
  if tostring(r.busy) == "1" or (share and share > M.DISTURBED_SHARE) then why[#why + 1] = "busy" end
  return #why > 0 and table.concat(why, ", ") or nil
end

-- cell's text for rows a and b, marked "⚠ busy" / "⚠ spread" when either is disturbed.
function M.marked(text, a, b)
  local spread, busy = false, false
  for _, r in ipairs({ a or {}, b or {} }) do
    local w = M.disturbed(r) or ""
    spread = spread or w:find("spread", 1, true) ~= nil
    busy = busy or w:find("busy", 1, true) ~= nil
  end
  local why = spread and busy and "spread, busy" or spread and "spread" or busy and "busy" or nil
  return why and (text .. " ⚠ " .. why) or text
end

M.DISTURBED_NOTE = "⚠ busy: a row was measured while other processes took more than a quarter of the CPUs' time " ..
  "(other_cpu_share) or was flagged busy; ⚠ spread: its repetitions disagreed (spread_flag). Such a ratio is no " ..
  "ordinary result: measure again on a quiet machine."

-- A table of each row of `ours` (by kernel) against each row of `theirs` (a column per kernel),
-- the cells text(a, b), each marked (M.marked) when a or b is disturbed, and M.DISTURBED_NOTE
-- under the table when any is.
function M.versus(title, ours, theirs, text)
  local header, cells, any = { title }, {}, false
  for _, b in ipairs(theirs) do header[#header + 1] = b.kernel .. ":" end
  for _, a in ipairs(ours) do
    local row = { a.kernel }
    for _, b in ipairs(theirs) do
      any = any or (M.disturbed(a) or M.disturbed(b)) ~= nil
      row[#row + 1] = M.marked(text(a, b), a, b)
    end
    cells[#cells + 1] = row
  end
  return M.table(header, cells) .. (any and ("\n\n" .. M.DISTURBED_NOTE) or "")
end

-- A small JSON decoder (objects, arrays, strings with escapes, numbers, true/false/null -> nil).
function M.decode_json(text)
  local pos = 1
  local function ws() pos = text:find("[^ \t\r\n]", pos) or #text + 1 end
  local value
  local function str()
    local buf = {}
    pos = pos + 1
    while true do
      local c = text:sub(pos, pos)
      if c == "" then error("unterminated string") end
      if c == '"' then pos = pos + 1; break end
      if c == "\\" then
        local e = text:sub(pos + 1, pos + 1)
        local map = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", ['"'] = '"', ["\\"] = "\\", ["/"] = "/" }
        if e == "u" then
          local cp = tonumber(text:sub(pos + 2, pos + 5), 16)
          buf[#buf + 1] = utf8.char(cp or 63)
          pos = pos + 6
        else
          buf[#buf + 1] = map[e] or e
          pos = pos + 2
        end
      else
        buf[#buf + 1] = c
        pos = pos + 1
      end
    end
    return table.concat(buf)
  end
  function value()
    ws()
    local c = text:sub(pos, pos)
    if c == "{" then
      local obj = {}
      pos = pos + 1
      ws()
      if text:sub(pos, pos) == "}" then pos = pos + 1; return obj end
      while true do
        ws()
        local k = str()
        ws()
        if text:sub(pos, pos) ~= ":" then error("':' expected at " .. pos) end
        pos = pos + 1
        obj[k] = value()
        ws()
        local d = text:sub(pos, pos)
        pos = pos + 1
        if d == "}" then return obj end
        if d ~= "," then error("',' or '}' expected at " .. pos) end
      end
    elseif c == "[" then
      local arr = {}
      pos = pos + 1
      ws()
      if text:sub(pos, pos) == "]" then pos = pos + 1; return arr end
      while true do
        arr[#arr + 1] = value()
        ws()
        local d = text:sub(pos, pos)
        pos = pos + 1
        if d == "]" then return arr end
        if d ~= "," then error("',' or ']' expected at " .. pos) end
      end
    elseif c == '"' then
      return str()
    elseif text:sub(pos, pos + 3) == "true" then pos = pos + 4; return true
    elseif text:sub(pos, pos + 4) == "false" then pos = pos + 5; return false
    elseif text:sub(pos, pos + 3) == "null" then pos = pos + 4; return nil
    else
      local num = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      if not num or num == "" then error("unexpected '" .. c .. "' at " .. pos) end
      pos = pos + #num
      return tonumber(num)
    end
  end
  return value()
end

function M.read_json(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  local ok, v = pcall(M.decode_json, text)
  return ok and v or nil
end

-- tonumber that also takes nil and "" (an empty cell: not measured).
function M.num(s)
  if s == nil or s == "" then return nil end
  return tonumber(s)
end

-- A number with `digits` significant digits (3 by default); "–" when missing.
function M.fmt(x, digits)
  x = type(x) == "string" and M.num(x) or x
  if x == nil or x ~= x then return "–" end
  digits = digits or 3
  if x == 0 then return "0" end
  local mag = math.floor(math.log(math.abs(x), 10)) + 1
  local dec = math.max(0, digits - mag)
  return string.format("%." .. dec .. "f", x)
end

function M.median(list)
  local v = {}
  for _, x in ipairs(list) do
    x = type(x) == "string" and M.num(x) or x
    if x then v[#v + 1] = x end
  end
  if #v == 0 then return nil end
  table.sort(v)
  local m = (#v + 1) // 2
  return #v % 2 == 1 and v[m] or (v[m] + v[m + 1]) / 2
end

-- The rows whose columns equal the given values (compared as strings, so 2 matches "2").
function M.filter(rows, want)
  local out = {}
  for _, r in ipairs(rows or {}) do
    local ok = true
    for k, v in pairs(want) do
      if tostring(r[k]) ~= tostring(v) then ok = false; break end
    end
    if ok then out[#out + 1] = r end
  end
  return out
end

-- The first row matching, or nil.
function M.find(rows, want) return M.filter(rows, want)[1] end

-- The distinct values of a column, in order of first appearance (numeric columns sorted when
-- sort_numeric is true).
function M.distinct(rows, col, sort_numeric)
  local seen, out = {}, {}
  for _, r in ipairs(rows or {}) do
    local v = r[col]
    if v ~= nil and not seen[v] then seen[v] = true; out[#out + 1] = v end
  end
  if sort_numeric then table.sort(out, function(a, b) return (tonumber(a) or 0) < (tonumber(b) or 0) end) end
  return out
end

-- The groups a report prints a table each for: every distinct combination of the columns
-- cols[i] = { name, sort_numeric } (M.distinct's order, the first column outermost) that rows
-- hold, as { values = { v1, v2, ... }, rows = the rows with those values, in their order }.
function M.groups(rows, cols)
  local out = {}
  local function walk(subset, i, values)
    if i > #cols then
      out[#out + 1] = { values = values, rows = subset }
      return
    end
    for _, v in ipairs(M.distinct(subset, cols[i][1], cols[i][2])) do
      local next_values = { table.unpack(values) }
      next_values[i] = v
      walk(M.filter(subset, { [cols[i][1]] = v }), i + 1, next_values)
    end
  end
  walk(rows, 1, {})
  return out
end

-- a / b as "1.23×"; "–" when either is missing or b is 0.
function M.ratio(a, b)
  a, b = type(a) == "string" and M.num(a) or a, type(b) == "string" and M.num(b) or b
  if not a or not b or b == 0 then return "–" end
  return string.format("%.2f×", a / b)
end

-- Flagged points.  The harness flags a point whose spread stayed above its sweep's limits after
-- re-measuring (spread_flag: kernel points in results.csv, end-to-end points and peer rows in
-- e2e.csv, harness/results/noise.h), and a point measured while other work took the CPUs (busy).  An
-- e2e.csv written before its spread_flag column (no attempts cell, or 0) has its slowest and
-- fastest repetitions stand in: with the 2-3 repetitions of a model sweep the interquartile range
-- is half the range, so a range over E2E_RANGE_LIMIT (twice the default spread_limit) is the same
-- bound.  A table never presents such a point as a finding: its value, and any ratio built from
-- it, carry MARK, and the table a legend (M.table adds it).
M.MARK = "†"
M.LEGEND = "† a point the harness flagged as noisy or disturbed (its spread stayed above the limits after "
  .. "re-measuring, or other work took the CPUs): the value, and any ratio built from it, is not a finding."
local SPREAD_LIMIT, SD_LIMIT, E2E_RANGE_LIMIT = 0.10, 0.50, 0.20

local function pct(x) return string.format("%.0f %%", 100 * x) end

-- Is row an e2e.csv row (it has the prefill or generation rates)?
local function is_e2e(row) return row.pp_tps ~= nil or row.tg_tps ~= nil end

-- Does the row carry the harness's own flag?  Every results.csv row does; an e2e.csv row only
-- from the version that added spread_flag and attempts (attempts >= 1 in each of its rows).
local function has_flag(row)
  if not is_e2e(row) then return true end
  local attempts = M.num(row.attempts)
  return attempts ~= nil and attempts >= 1
end

-- Why a row is flagged, as a few words with the measure that exceeded its limit and its value
-- ("IQR/median 117 %", "sd/median 18000 %", "tg IQR/median 44 %", "tg range/median 44 %",
-- "busy"), or nil when it is not.  limits: {spread_limit, sd_limit} of the row's sweep when known
-- (run.json), else defaults.
function M.flagged(row, limits)
  if type(row) ~= "table" then return nil end
  local why = {}
  local spread_limit = (limits and limits.spread_limit) or SPREAD_LIMIT
  local sd_limit = (limits and limits.sd_limit) or SD_LIMIT
  local flag = row.spread_flag == "1" or row.spread_flag == 1
  if flag and is_e2e(row) then
    -- the spreads of the phases (the sd is not in the row: name both when neither is over)
    local spreads = {}
    for _, test in ipairs({ "pp", "tg" }) do
      local v = M.num(row[test .. "_spread"])
      if v then spreads[#spreads + 1] = { test, v } end
    end
    for _, t in ipairs(spreads) do
      if t[2] > spread_limit then why[#why + 1] = t[1] .. " IQR/median " .. pct(t[2]) end
    end
    if #why == 0 then
      for _, t in ipairs(spreads) do why[#why + 1] = t[1] .. " IQR/median " .. pct(t[2]) end
      why[#why + 1] = "sd/median over " .. pct(sd_limit)
    end
  elseif flag then
    local spread, sd, med = M.num(row.spread), M.num(row.t_sd_s), M.num(row.t_median_s)
    local sd_rel = sd and med and med > 0 and sd / med or nil
    if spread and spread > spread_limit then why[#why + 1] = "IQR/median " .. pct(spread) end
    if sd_rel and sd_rel > sd_limit then why[#why + 1] = "sd/median " .. pct(sd_rel) end
    if #why == 0 then
      why[#why + 1] = string.format("IQR/median %s, sd/median %s", spread and pct(spread) or "?",
        sd_rel and pct(sd_rel) or "?")
    end
  end
  if not has_flag(row) then
    for _, test in ipairs({ "pp", "tg" }) do
      local med, lo, hi = M.num(row[test .. "_tps"]), M.num(row[test .. "_tps_min"]), M.num(row[test .. "_tps_max"])
      if med and lo and hi and med > 0 and (hi - lo) / med > E2E_RANGE_LIMIT then
        why[#why + 1] = test .. " range/median " .. pct((hi - lo) / med)
      end
    end
  end
  if row.busy == "1" or row.busy == 1 then
    local share = M.num(row.other_cpu_share)
    why[#why + 1] = share and ("busy: other work took " .. pct(share) .. " of the CPUs") or "busy"
  end
  return #why > 0 and table.concat(why, ", ") or nil
end

-- text with MARK appended when any of the rows after it is flagged (a row table, or a boolean for
-- a value already known to be built from a flagged point); nil rows are skipped.
function M.mark(text, ...)
  for i = 1, select("#", ...) do
    local r = select(i, ...)
    if r == true or (type(r) == "table" and M.flagged(r)) then return tostring(text) .. M.MARK end
  end
  return text
end

-- Whether any of a list of rows is flagged (for a value built from several points).
function M.any_flagged(rows)
  for _, r in ipairs(rows or {}) do
    if M.flagged(r) then return true end
  end
  return false
end

-- The sentence describing the run's machine, from run.json's machine section and the machine
-- profile (`bitbench roofline`'s read bandwidths): "2 cores of Intel(R) Xeon(R) Processor (a
-- virtual machine), reading 27.5 GB/s from DRAM with 2 threads".  A figure the files lack is said
-- to be not measured, never filled in from another machine.
function M.dram_gbps(profile, threads)
  local best
  for _, b in ipairs((profile or {}).read_bandwidth or {}) do
    if b.level == "DRAM" and b.gbps and (not threads or b.threads == threads) then
      if not best or (b.threads or 0) > (best.threads or 0) then best = b end
    end
  end
  return best and best.gbps, best and best.threads
end

function M.machine_sentence(run)
  local m = ((run or {}).json or {}).machine or ((run or {}).profile or {}).machine or {}
  local cores = m.cores and (m.cores .. " core" .. (m.cores == 1 and "" or "s")) or "an unknown number of cores"
  local cpu = (m.cpu_model and m.cpu_model ~= "") and m.cpu_model or "an unrecorded CPU model"
  local guest = m.virtualized and " (a virtual machine)" or ""
  local gbps, t = M.dram_gbps(run and run.profile)
  local bw = gbps and string.format("reading %s GB/s from DRAM with %d thread%s (its machine profile)", M.fmt(gbps, 3),
    t or 0, t == 1 and "" or "s") or "whose DRAM bandwidth was not measured (no machine profile in the run)"
  return string.format("%s of %s%s, %s", cores, cpu, guest, bw)
end

-- The instruction sets of the variants that ran in rows (results.csv's variant_ran, e2e.csv's
-- variant_ran_tg, else the variant asked for), as text: "AVX2", "AVX2 and AVX-512", or nil when
-- no row says.  Reports name the code that ran from this, never from the machine they were
-- written on.
local ISA_NAMES = { scalar = "scalar", avx2 = "AVX2", avxvnni = "AVX-VNNI", avx512 = "AVX-512", amx = "AMX",
  neon = "NEON", dotprod = "NEON dot-product", i8mm = "NEON i8mm", sve = "SVE" }
local ISA_ORDER = { "scalar", "avx2", "avxvnni", "avx512", "amx", "neon", "dotprod", "i8mm", "sve" }
local function ran_variant(r)
  local v = r.variant_ran_tg or r.variant_ran
  if v == nil or v == "" or v == "per-tensor" then v = r.variant end
  return v
end

function M.isa_text(rows)
  local seen = {}
  for _, r in ipairs(rows or {}) do
    local v = ran_variant(r)
    if v and v ~= "" then seen[v] = true end
  end
  local names = {}
  for _, v in ipairs(ISA_ORDER) do if seen[v] then names[#names + 1] = ISA_NAMES[v] end end
  if #names == 0 then return nil end
  if #names == 1 then return names[1] end
  return table.concat(names, ", ", 1, #names - 1) .. " and " .. names[#names]
end

-- True when a variant of this instruction set ran in any of rows.
function M.ran_isa(rows, isa)
  for _, r in ipairs(rows or {}) do
    if ran_variant(r) == isa then return true end
  end
  return false
end

-- The DRAM read bandwidth of the machine profile at each thread count it measured, as text
-- ("13.8 GB/s with 1 thread, 27.1 GB/s with 2, by the run's machine profile"), or that it was not
-- measured; written to stand inside parentheses.
function M.dram_text(profile)
  local per = {}
  for _, b in ipairs((profile or {}).read_bandwidth or {}) do
    if b.level == "DRAM" and b.gbps and b.threads then per[#per + 1] = b end
  end
  if #per == 0 then return "DRAM bandwidth not measured: no machine profile in the run" end
  table.sort(per, function(a, b) return a.threads < b.threads end)
  local parts = {}
  for i, b in ipairs(per) do
    parts[i] = string.format("%s GB/s with %d%s", M.fmt(b.gbps, 3), b.threads,
      i == 1 and (b.threads == 1 and " thread" or " threads") or "")
  end
  return table.concat(parts, ", ") .. ", by the run's machine profile"
end

-- The run's last-level cache from run.json's cache list, as "260 MiB L3", or nil when run.json
-- lists no caches; and its size in bytes.
function M.llc_text(run)
  local llc
  for _, c in ipairs((((run or {}).json or {}).machine or {}).caches or {}) do
    if c.size and (not llc or (c.level or 0) > llc.level) then llc = { level = c.level or 0, size = c.size } end
  end
  if not llc then return nil end
  return string.format("%.0f MiB L%d", llc.size / 1048576, llc.level), llc.size
end

-- A markdown table: header is a list of strings, rows a list of lists (nil cells print "–").
-- A header entry ending in ":" right-aligns its column (the colon is dropped).  A table with a
-- cell marked by M.mark gets the legend line under it.
function M.table(header, rows)
  local names, align = {}, {}
  for i, h in ipairs(header) do
    if h:sub(-1) == ":" then names[i], align[i] = h:sub(1, -2), "---:" else names[i], align[i] = h, "---" end
  end
  local out = { "| " .. table.concat(names, " | ") .. " |", "|" .. table.concat(align, "|") .. "|" }
  local marked = false
  for _, r in ipairs(rows) do
    local cells = {}
    for i = 1, #header do
      local v = r[i]
      cells[i] = v == nil and "–" or tostring(v)
    end
    out[#out + 1] = "| " .. table.concat(cells, " | ") .. " |"
    for i = 1, #header do
      if cells[i]:find(M.MARK, 1, true) then marked = true end
    end
  end
  if marked then out[#out + 1] = "\n" .. M.LEGEND end
  return table.concat(out, "\n")
end

-- For a model sweep's rows: which points' weights per token fit in the machine's last-level cache
-- (from run.json's cache list), as a sentence (empty when run.json has no caches): those points
-- are partly served from cache rather than DRAM.
function M.llc_note(run, rows)
  local llc
  for _, c in ipairs(((run.json or {}).machine or {}).caches or {}) do
    if c.size and (not llc or (c.level or 0) > llc.level) then llc = { level = c.level or 0, size = c.size } end
  end
  if not llc then return "" end
  local fit = {}
  for _, r in ipairs(rows) do
    local b = M.num(r.weight_bytes_per_token)
    if b and b < llc.size then
      fit[#fit + 1] = string.format("%s %s (%s MB)", r.model, r.kernel, M.fmt(b / 1e6, 3))
    end
  end
  if #fit == 0 then
    return string.format(" No point's weights per token fit in this machine's %s MB L%d.", M.fmt(llc.size / 1e6, 3),
      llc.level)
  end
  return string.format(" Weights per token that fit in this machine's %s MB L%d, so that decode is partly served "
    .. "from cache rather than DRAM: %s.", M.fmt(llc.size / 1e6, 3), llc.level, table.concat(fit, ", "))
end

-- Which of the read-alone bound's two reads counted (the read_streams column: one stream per
-- thread, or several in lockstep, the faster by median), as a sentence over the rows that have
-- it; "" when none has (a run from before the column, or without a read).
function M.streams_note(rows)
  local count, n = {}, 0
  for _, r in ipairs(rows) do
    local s = M.num(r.read_streams)
    if s then
      count[s] = (count[s] or 0) + 1
      n = n + 1
    end
  end
  if n == 0 then return "" end
  local parts = {}
  for s, c in pairs(count) do parts[#parts + 1] = { s, c } end
  table.sort(parts, function(a, b) return a[1] < b[1] end)
  local text = {}
  for _, p in ipairs(parts) do
    text[#text + 1] = string.format("%d stream%s per thread in %d", p[1], p[1] == 1 and "" or "s", p[2])
  end
  return string.format("The plain read that set the bound (the faster of one stream per thread and several in "
    .. "lockstep, read side by side): %s of %d rows.", table.concat(text, ", "), n)
end

return M
