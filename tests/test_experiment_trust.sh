#!/bin/sh
# What an experiment file from elsewhere can make bitbench do (issue 29; support/lua_sandbox.h,
# harness/peers/peer.h): it names peers but never their programs (peer_paths is refused, the
# person gives --peer NAME=PATH), and its io reads only regular files of a bounded size under its
# own folder or $BITBENCH_SHARED_DIR (no FIFO, device, /proc, link out of the folder, hidden
# name), its os.getenv only BITBENCH_* variables.  Each refusal is one line naming the file and
# the rule, with or without --dry-run, and nothing blocks: every run is under `timeout 20`, so a
# regression fails instead of hanging.  $1 is the bitbench binary.
BB="$1"
DATA="${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/tests/data/peers"
DATA=$(cd "$DATA" && pwd)
pass=0; fail=0
T=$(mktemp -d /tmp/bb_trust_XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
# run bitbench under a time bound; rc, stdout in $T/out, stderr in $T/err
bb() { timeout 20 "$BB" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
one_line() { [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$1" "$T/err"; }
unset BITBENCH_LLAMA_BENCH BITBENCH_BITNET_BENCH BITBENCH_TEST_BACKEND_OPS BITBENCH_SHARED_DIR

E="$T/exp" O="$T/outside"
mkdir -p "$E" "$O" "$T/models" "$T/res"
cat > "$T/models/tiny.lua" <<'LUA'
return { name = "tiny", style = "bitnet", dim = 128, ffn_dim = 256, n_layers = 2, n_heads = 4,
         n_kv_heads = 4, vocab_size = 320, ffn_act = "relu2", tied_embedding = true, source = "test" }
LUA
BITBENCH_MODELS="$T/models"; export BITBENCH_MODELS

# ---- programs: the file names a peer, the person its program ----
# a script shipped beside the experiment, which a file once could have bitbench run
printf '#!/bin/sh\ntouch "%s/canary"\n' "$T" > "$E/x.sh"
chmod +x "$E/x.sh"
model_sweep() { # extra fields
    printf 'bitbench.experiment { name = "p", out = "%s", sweeps = { bitbench.sweep { name = "p", models = {"tiny"}, kernels = {"f32"}, threads = 1, prompt = 4, gen = 2, reps = 2, kv = "f16", peers = {"llama.cpp"}, peer_timeout = 10%s } } }\n' "$T/res" "$1"
}
model_sweep ', peer_paths = { ["llama.cpp"] = bitbench.dir .. "/x.sh" }' > "$E/paths.lua"
for dry in --dry-run ""; do
    bb run "$E/paths.lua" $dry --quiet
    check '[ "$rc" -eq 2 ] && one_line "paths.lua:1: .*field .peer_paths.: an experiment names peers, not their programs; give the program on the command line: bitbench run --peer NAME=PATH (NAME: llama.cpp, bitnet.cpp, test-backend-ops, llama.cpp-batched, bitnet.cpp-batched)$" && [ ! -e "$T/canary" ]' \
        "peer_paths beside the file ($dry): rc=$rc canary=$(ls "$T/canary" 2>&1) $(cat "$T/err")"
done
bb run "$E/paths.lua" --unsafe-lua --quiet
check '[ "$rc" -eq 2 ] && one_line "field .peer_paths." && [ ! -e "$T/canary" ]' "peer_paths under --unsafe-lua: rc=$rc $(cat "$T/err")"

# --peer NAME=PATH is what runs, before the environment variable
printf '#!/bin/sh\nprintf "%%s\\n" "$*" > "%s/cli_ran"\nexec "%s/fake_llama_bench.sh" "$@"\n' "$T" "$DATA" > "$T/cli_peer.sh"
printf '#!/bin/sh\ntouch "%s/env_ran"\nexec "%s/fake_llama_bench.sh" "$@"\n' "$T" "$DATA" > "$T/env_peer.sh"
chmod +x "$T/cli_peer.sh" "$T/env_peer.sh"
model_sweep '' > "$E/peer.lua"
BITBENCH_LLAMA_BENCH="$T/env_peer.sh" timeout 20 "$BB" run "$E/peer.lua" --peer "llama.cpp=$T/cli_peer.sh" --quiet >"$T/out" 2>"$T/err"; rc=$?
csv=$(ls "$T"/res/p-*/e2e.csv 2>/dev/null | head -1)
check '[ "$rc" -eq 0 ] && grep -q -- "-m .*/peers/tiny-f32.gguf -t 1 -p 4 -n 2" "$T/cli_ran" && [ ! -e "$T/env_ran" ] && grep -q "^p,.*,llama.cpp:f32," "$csv"' \
    "--peer llama.cpp=PATH runs: rc=$rc $(cat "$T/err" "$T/cli_ran" 2>&1)"
bb run "$E/peer.lua" --peer "llama=$T/cli_peer.sh" --dry-run
check '[ "$rc" -eq 2 ] && one_line "^bitbench run: --peer .llama=.*.: expected NAME=PATH with NAME one of llama.cpp, bitnet.cpp, test-backend-ops"' \
    "--peer with an unknown name: rc=$rc $(cat "$T/err")"

# ---- reading: regular files of bounded size under the file's folder ----
io_exp() { # name, body: an experiment in $E whose body runs before a one-point declaration
    printf '%s\nbitbench.experiment { name = "%s", out = "%s", sweeps = { { kernels = "f32", shapes = { {16, 16} }, threads = 1, reps = 1, min_seconds = 0 } } }\n' \
        "$2" "$1" "$T/res" > "$E/$1.lua"
}
printf 'inside\n' > "$E/data.txt"
mkdir "$E/sub" "$E/.hidden"
printf 'deeper\n' > "$E/sub/more.txt"
printf 'hidden\n' > "$E/.hidden/x.txt"
printf 'secret\n' > "$O/secret.txt"
ln -s "$O/secret.txt" "$E/link_out.txt"
ln -s "$E/sub/more.txt" "$E/link_in.txt"
mkfifo "$E/fifo"
truncate -s 65M "$E/big.bin"
truncate -s 64M "$E/max.bin"
io_exp allowed 'assert(io.open(bitbench.dir .. "/data.txt"):read("l") == "inside")
local n = 0 for l in io.lines(bitbench.dir .. "/sub/more.txt") do n = n + 1 end assert(n == 1)
assert(io.open(bitbench.dir .. "/link_in.txt"):read("l") == "deeper")
assert(io.open(bitbench.dir .. "/max.bin", "rb"):read(4) == "\0\0\0\0")
local f, msg = io.open(bitbench.dir .. "/missing.txt") assert(f == nil and msg:match("missing.txt: No such file"))
assert(os.getenv("BITBENCH_TRUST_VALUE") == "shared" and os.getenv("BITBENCH_NOT_SET") == nil)'
BITBENCH_TRUST_VALUE=shared timeout 20 "$BB" run "$E/allowed.lua" --dry-run >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -eq 0 ] && [ ! -s "$T/err" ]' "what an experiment may read: rc=$rc $(cat "$T/err")"

refused() { # name, body, message pattern
    io_exp "$1" "$2"
    name=$1 pat=$3 # check's eval sees its own $1
    for dry in --dry-run ""; do
        bb run "$E/$name.lua" $dry --quiet
        check '[ "$rc" -eq 2 ] && one_line "^bitbench run: .*$name.lua:1: $pat"' "$name ($dry): rc=$rc $(cat "$T/err")"
    done
}
refused fifo 'io.open(bitbench.dir .. "/fifo")' "io.open: .*/fifo: is a FIFO, not a regular file"
refused fifo_lines 'for l in io.lines(bitbench.dir .. "/fifo") do end' "io.lines: .*/fifo: is a FIFO, not a regular file"
refused dir 'io.open(bitbench.dir .. "/sub")' "io.open: .*/sub: is a directory, not a regular file"
refused zero 'io.open("/dev/zero"):read(16)' "io.open: /dev/zero is /dev/zero, under /dev; an experiment reads only its own folder's files"
refused environ 'io.open("/proc/self/environ"):read("a")' "io.open: /proc/self/environ is /proc/[0-9]*/environ, under /proc"
refused outside "io.open(\"$O/secret.txt\")" "io.open: $O/secret.txt is outside the folders an experiment may read: its own ($E)"
refused dotdot 'io.open(bitbench.dir .. "/../outside/secret.txt")' "io.open: .*/exp/../outside/secret.txt -> $O/secret.txt is outside the folders"
refused link_out 'io.lines(bitbench.dir .. "/link_out.txt")' "io.lines: .*/link_out.txt -> $O/secret.txt is outside the folders an experiment may read"
refused hidden 'io.open(bitbench.dir .. "/.hidden/x.txt")' "io.open: .*/.hidden/x.txt is .*, a hidden file or folder ('.hidden'); an experiment reads none"
refused big 'io.open(bitbench.dir .. "/big.bin", "rb")' "io.open: .*/big.bin: 68157440 bytes, more than the 67108864 bytes a file an experiment reads may have"
refused compare "bitbench.compare(\"$O\", \"$O\")" "bitbench.compare: $O is outside the folders an experiment may read"
refused secret 'bitbench.description = os.getenv("BB_TRUST_SECRET")' "os.getenv('BB_TRUST_SECRET'): an experiment reads only BITBENCH_\* variables"
# a pcall in the file catches the refusal, but never gets the value
io_exp pcall_secret 'local ok, v = pcall(os.getenv, "BB_TRUST_SECRET") assert(not ok and not tostring(v):match("hunter2")) print("caught")'
BB_TRUST_SECRET=hunter2 timeout 20 "$BB" run "$E/pcall_secret.lua" --dry-run >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -eq 0 ] && grep -q "^caught$" "$T/out" && ! grep -q hunter2 "$T/out" "$T/err"' "getenv refused inside pcall: rc=$rc $(cat "$T/err")"

# $BITBENCH_SHARED_DIR is a folder experiments read data from
BITBENCH_SHARED_DIR="$O" timeout 20 "$BB" run "$E/outside.lua" --dry-run >"$T/out" 2>"$T/err"; rc=$?
check '[ "$rc" -eq 0 ]' "a file under \$BITBENCH_SHARED_DIR: rc=$rc $(cat "$T/err")"

# the Lua files themselves: a FIFO or device named as the experiment or a model config is refused
mkfifo "$T/pipe.lua"
bb run "$T/pipe.lua" --dry-run
check '[ "$rc" -eq 2 ] && one_line "^bitbench run: $T/pipe.lua: is a FIFO, not a regular file; bitbench reads a Lua experiment only from a regular file"' \
    "a FIFO as the experiment: rc=$rc $(cat "$T/err")"
bb run /dev/zero --dry-run
check '[ "$rc" -eq 2 ] && one_line "/dev/zero: is a character device, not a regular file"' "/dev/zero as the experiment: rc=$rc $(cat "$T/err")"
mkfifo "$T/models/pipe.lua"
bb list models
check 'grep -q "^tiny " "$T/out" && one_line "pipe.lua: is a FIFO, not a regular file"' "a FIFO among the model configs: rc=$rc $(cat "$T/out" "$T/err")"
printf 'local x = os.getenv("BB_TRUST_SECRET")\nreturn {}\n' > "$T/models/env.lua"
rm "$T/models/pipe.lua"
BB_TRUST_SECRET=hunter2 timeout 20 "$BB" list models >"$T/out" 2>"$T/err"; rc=$?
check 'grep -q "^tiny " "$T/out" && one_line "env.lua:1: os.getenv(.BB_TRUST_SECRET.): an experiment reads only BITBENCH_"' \
    "a model config reading the environment: rc=$rc $(cat "$T/err")"

echo "test_experiment_trust: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
