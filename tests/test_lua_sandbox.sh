#!/bin/sh
# The Lua environment of experiment files and model configs (support/lua_sandbox.h, README
# "Experiments in Lua"): what a file may use, what it may not (unless run --unsafe-lua, recorded
# in run.json), the instruction and memory bounds (an endless loop in an experiment, a loop of
# large strings, a model config, or one config of the models folder that `list models` reads), and
# the plan-size bound (--max-points).  Each refusal is one line naming the file.  $1 is the
# bitbench binary.
BB="$1"
pass=0; fail=0
T=$(mktemp -d /tmp/bb_lua_sandbox_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
# run bitbench; rc, stdout in $T/out, stderr in $T/err
bb() { "$BB" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
one_line() { [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$1" "$T/err"; }

# experiment with body $2 before a one-point declaration, in $T/$1.lua
exp() {
    printf '%s\nbitbench.experiment { name = "%s", out = "%s/res", sweeps = { { kernels = "f32", shapes = { {16, 16} }, threads = 1, reps = 1, min_seconds = 0 } } }\n' \
        "$2" "$1" "$T" >"$T/$1.lua"
}

# allowed: base, math, string, table, utf8, coroutine, os.time/clock/date/getenv, read-only io
printf 'line one\nline two\n' >"$T/data.txt"
exp allowed "local f = assert(io.open(\"$T/data.txt\", \"r\")); local first = f:read(\"l\"); f:close()
assert(first == \"line one\")
local n = 0; for l in io.lines(\"$T/data.txt\") do n = n + 1 end; assert(n == 2)
assert(io.open(\"$T/data.txt\", \"rb\")):close()
assert(math.floor(2.5) == 2 and string.rep(\"a\", 3) == \"aaa\" and table.concat({1, 2}, \",\") == \"1,2\")
assert(utf8.len(\"\\u{e9}\") == 1 and coroutine.wrap(function() coroutine.yield(7) end)() == 7)
assert(os.time() > 0 and os.clock() >= 0 and os.date(\"%Y\") and os.getenv(\"BITBENCH_NOT_SET\") == nil)
assert(load(\"return 1 + 1\")() == 2 and load(\"return x\", \"c\", \"t\", { x = 3 })() == 3)
assert(bitbench.file:match(\"allowed.lua\$\") and bitbench.dir == \"$T\")"
bb run "$T/allowed.lua" --dry-run
check '[ "$rc" -eq 0 ] && grep -q "^1 points" "$T/out"' "the allowed libraries: rc=$rc $(cat "$T/err")"

# refused: each fails with the file, the line and the name the sandbox took out
for expr in 'os.execute("true")' 'io.popen("true")' 'os.exit(7)' 'os.remove("x")' 'os.rename("x", "y")' \
    'os.tmpname()' 'dofile("x")' 'loadfile("x")' 'require("os")' 'debug.getinfo(1)' 'package.loadlib("x", "y")' \
    'io.write("x")' 'io.output("x")'; do
    exp refused "$expr"
    bb run "$T/refused.lua" --dry-run
    name=$(printf '%s' "$expr" | sed 's/(.*//; s/^\(debug\|package\)\..*/\1/')
    check '[ "$rc" -eq 2 ] && one_line "refused.lua:1: $name is not available to this file (bitbench.s Lua sandbox: README, \"Experiments in Lua\"); bitbench run --unsafe-lua gives every library$"' \
        "$expr: rc=$rc $(cat "$T/err")"
done
exp write "io.open(\"$T/written\", \"w\")"
bb run "$T/write.lua" --dry-run
check '[ "$rc" -eq 2 ] && one_line "write.lua:1: io.open mode .w. is not allowed: experiment files may only read" && [ ! -e "$T/written" ]' \
    "io.open for writing: rc=$rc $(cat "$T/err")"
exp binary 'assert(load(string.dump(function() return 1 end)))'
bb run "$T/binary.lua" --dry-run
check '[ "$rc" -eq 2 ] && one_line "binary.lua:1: attempt to load a binary chunk"' "a binary chunk: rc=$rc $(cat "$T/err")"

# --unsafe-lua: every library, and run.json says so
exp unsafe "local f = assert(io.open(\"$T/written\", \"w\")); f:write(\"x\"); f:close(); assert(os.execute(\"true\"))"
bb run "$T/unsafe.lua" --unsafe-lua --quiet
json=$(ls "$T"/res/unsafe-*/run.json 2>/dev/null)
check '[ "$rc" -eq 0 ] && [ -e "$T/written" ] && grep -q "\"unsafe_lua\": true" "$json"' "--unsafe-lua: rc=$rc $(cat "$T/err")"
bb run "$T/allowed.lua" --quiet
json=$(ls "$T"/res/allowed-*/run.json 2>/dev/null)
check '[ "$rc" -eq 0 ] && grep -q "\"unsafe_lua\": false" "$json"' "run.json without --unsafe-lua: rc=$rc $(cat "$T/err")"

# bounds: instructions (flag and environment), memory, and a pcall that tries to swallow the stop
exp loop 'while true do end'
bb run "$T/loop.lua" --dry-run --lua-max-instructions 1000000
check '[ "$rc" -eq 2 ] && one_line "loop.lua: stopped after 1000000 Lua instructions, the bound (an endless loop?); raise it with BITBENCH_LUA_MAX_INSTRUCTIONS=N or bitbench run --lua-max-instructions N"' \
    "endless loop: rc=$rc $(cat "$T/err")"
exp pcall 'while true do pcall(function() while true do end end) end'
BITBENCH_LUA_MAX_INSTRUCTIONS=1000000 "$BB" run "$T/pcall.lua" --dry-run >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -eq 2 ] && one_line "pcall.lua: stopped after 1000000 Lua instructions"' "loop in pcall: rc=$rc $(cat "$T/err")"
exp grow 'local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 100) .. i end'
bb run "$T/grow.lua" --dry-run --lua-max-memory 16
check '[ "$rc" -eq 2 ] && one_line "grow.lua: stopped at 16 MiB of Lua memory, the bound; raise it with BITBENCH_LUA_MAX_MEMORY_MB=N or bitbench run --lua-max-memory N"' \
    "growing memory: rc=$rc $(cat "$T/err")"
# work done in the C library counts too: a loop of 4 MB string.rep results (garbage at once, so
# under the memory bound) runs few VM instructions; before allocations counted as work it ran for
# minutes under a million-instruction bound (fuzz_lua_experiment); `timeout` only guards the test
exp strings 'for i = 1, 1e9 do local s = string.rep("x", 4000000 + i) end'
timeout 120 "$BB" run "$T/strings.lua" --dry-run --lua-max-instructions 1000000 >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -eq 2 ] && one_line "strings.lua: stopped after 1000000 Lua instructions, the bound"' \
    "a loop of large strings: rc=$rc $(cat "$T/err")"
# and work that runs no VM instruction and allocates nothing (a backtracking pattern inside
# string.find) is bounded by CPU time: the process ends with one line; it hung before
exp pattern 'local s = string.find(string.rep("a", 22), string.rep("a*", 22) .. "b")'
BITBENCH_LUA_MAX_SECONDS=1 timeout 120 "$BB" run "$T/pattern.lua" --dry-run >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -eq 2 ] && one_line "pattern.lua: stopped after 1 s of CPU time, the bound" && grep -q BITBENCH_LUA_MAX_SECONDS "$T/err"' \
    "a backtracking pattern: rc=$rc $(cat "$T/err")"
BITBENCH_LUA_MAX_SECONDS=0 "$BB" run "$T/allowed.lua" --dry-run >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -eq 2 ] && one_line "BITBENCH_LUA_MAX_SECONDS=.0. is not a whole number"' "BITBENCH_LUA_MAX_SECONDS=0: rc=$rc $(cat "$T/err")"
BITBENCH_LUA_MAX_INSTRUCTIONS=lots "$BB" run "$T/allowed.lua" --dry-run >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -eq 2 ] && one_line "BITBENCH_LUA_MAX_INSTRUCTIONS=.lots. is not a whole number"' "bad bound: rc=$rc $(cat "$T/err")"
bb run "$T/allowed.lua" --dry-run --lua-max-memory 0
check '[ "$rc" -eq 2 ] && one_line "\-\-lua-max-memory: .0. must be from 1"' "--lua-max-memory 0: rc=$rc $(cat "$T/err")"

# model configs: the same environment without io, the same bounds; one bad config in the models
# folder is one line of `list models`, the others are listed
mkdir "$T/models"
cat >"$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 256, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
printf 'while true do end\n' >"$T/models/spin.lua"
printf 'io.open("x")\nreturn {}\n' >"$T/models/io.lua"
BITBENCH_MODELS="$T/models" BITBENCH_LUA_MAX_INSTRUCTIONS=1000000 "$BB" list models >"$T/out" 2>"$T/err"; rc=$?
check 'grep -q "^tiny " "$T/out" && [ "$(wc -l <"$T/err")" -eq 2 ] && grep -q "spin.lua: stopped after 1000000 Lua instructions" "$T/err" &&
    grep -q "io.lua:1: io is not available to this file (bitbench.s Lua sandbox: README, \"Experiments in Lua\")$" "$T/err"' "list models with bad configs: rc=$rc $(cat "$T/out" "$T/err")"
BITBENCH_MODELS="$T/models" BITBENCH_LUA_MAX_INSTRUCTIONS=1000000 "$BB" e2e --model spin --kernel i2_s >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && one_line "spin.lua: stopped after 1000000 Lua instructions"' "e2e --model spin: rc=$rc $(cat "$T/err")"
printf 'bitbench.experiment { name = "m", sweeps = { { models = { "spin" }, kernels = "i2_s", prompt = 8, gen = 4 } } }\n' >"$T/usespin.lua"
BITBENCH_MODELS="$T/models" BITBENCH_LUA_MAX_INSTRUCTIONS=1000000 "$BB" run "$T/usespin.lua" --dry-run >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -eq 2 ] && one_line "spin.lua: stopped after 1000000 Lua instructions"' "an experiment naming the config: rc=$rc $(cat "$T/err")"

# plan size: refused with the count and the flag, before the plan is built; allowed with the flag
cat >"$T/big.lua" <<LUA
local n = {} for i = 1, 4096 do n[i] = i end
bitbench.experiment { name = "big", out = "$T/res", sweeps = { { kernels = { "f32", "i2_s" }, shapes = { {256, 256}, {256, 200} }, n = n, threads = 1 } } }
LUA
bb run "$T/big.lua" --dry-run --quiet
check '[ "$rc" -eq 0 ] && grep -q "^12288 points, 1 skipped" "$T/out"' "12288 points are under the default: rc=$rc $(cat "$T/err")"
bb run "$T/big.lua" --dry-run --max-points 12287
check '[ "$rc" -eq 2 ] && one_line "big.lua: the plan has 12288 points, more than the 12287 allowed without confirmation; pass --max-points 12288 (or more) to run it"' \
    "--max-points 12287: rc=$rc $(cat "$T/err")"
# 2 kernels x 1024 shapes x 4096 N: 8388608 points, refused at once
cat >"$T/huge.lua" <<LUA
local n, shapes = {}, {}
for i = 1, 4096 do n[i] = i end
for i = 1, 1024 do shapes[i] = { 256, 128 * i } end
bitbench.experiment { name = "huge", out = "$T/res", sweeps = { { kernels = { "f32", "i2_s" }, shapes = shapes, n = n, threads = 1 } } }
LUA
start=$(date +%s)
bb run "$T/huge.lua" --dry-run
check '[ "$rc" -eq 2 ] && one_line "huge.lua: the plan has 8388608 points, more than the 100000 allowed" && [ $(($(date +%s) - start)) -lt 20 ]' \
    "an 8388608-point plan: rc=$rc $(cat "$T/err")"

echo "lua_sandbox: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
