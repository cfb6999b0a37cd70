#!/bin/sh
# Peers in kernel sweeps (harness/peers/peer_kernels.h), with a fake test-backend-ops (given as
# --peer test-backend-ops=PATH; the file names only the peer) that prints a recorded real output
# (tests/data/peers/README.md; CI has no peer installed): its cases of the sweep's types and
# shapes become rows of results.csv beside bitbench's (kernel llama.cpp:q4_0,
# variant peer, its time per run and runs), a (type, shape, N) it has no case for is one note; a
# program that fails, hangs (peer_timeout) or prints garbage is one clear line and every bitbench
# point still runs; a run whose peer rows are not all there exits 3, its last line "k of N peer
# points ran"; bad fields are one error line.  $1 is the bitbench binary.
BB="$1"
SRC="${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}"
. "$SRC/tests/lib/check.sh"
. "$SRC/tests/lib/peers.sh"
peers_begin peers_kernels
BB_FAKE_M=256 BB_FAKE_K=512; export BB_FAKE_M BB_FAKE_K

# one sweep with a llama.cpp peer; its test-backend-ops comes from the command line (--peer)
exp() { # name, n list
    printf 'bitbench.experiment { name = "peers_k", out = "%s", sweeps = { bitbench.sweep { name = "%s", kernels = {"q4_0", "f32"}, shapes = {{m = 256, k = 512}}, n = %s, threads = 1, reps = 2, max_reps = 2, min_seconds = 0, peers = {"llama.cpp"}, peer_timeout = 1 } } }\n' "$T/res_$1" "$1" "$2" > "$T/$1.lua"
}
exp ok '{1, 512, 16}'
PATH=/usr/bin:/bin "$BB" run "$T/ok.lua" --peer "test-backend-ops=$D/fake_backend_ops.sh" > "$T/out" 2> "$T/err"; rc=$?
# no case at N=16: 4 of the 6 peer rows, exit 3 and the last line
check '[ $rc -eq 3 ] && tail -n 1 "$T/err" | grep -q "^bitbench run: 4 of 6 peer points ran"' \
    "run exit code $rc (3: peer rows missing), last line: $(cat "$T/err")"
csv=$(ls "$T"/res_ok/*/results.csv)
row() { grep "^peers_k,$1," "$csv"; } # sweep
col() { # name, row text
    printf '%s\n' "$2" | awk -F, -v name="$1" -v hdr="$(head -1 "$csv")" \
        'BEGIN { n = split(hdr, h, ","); for (i = 1; i <= n; i++) if (h[i] == name) c = i } { print $c }'
}
ok=$(row ok)
check '[ "$(printf "%s\n" "$ok" | wc -l)" -eq 10 ]' "6 bitbench rows + 4 peer rows (q4_0, f32 at n 1 and 512; none at 16): $ok"
q=$(printf '%s\n' "$ok" | grep ',llama.cpp:q4_0,' | head -1)
check '[ "$(col variant "$q")" = peer ] && [ "$(col n "$q")" = 1 ] && [ "$(col m "$q")" = 256 ] && [ "$(col k "$q")" = 512 ]' \
    "peer row: $q"
check '[ "$(col t_median_s "$q")" = 0.01708736 ] && [ "$(col reps "$q")" = 69 ] && [ "$(col threads "$q")" = "$(getconf _NPROCESSORS_ONLN)" ]' \
    "peer time, runs, threads: $q"
check '[ "$(col bits_per_weight "$q")" = 4.5 ] && [ -z "$(col spread "$q")" ]' "peer bits and empty spread: $q"
check 'printf "%s\n" "$ok" | grep -q ",llama.cpp:f32,peer,.*,512,"' "f32 prefill row"
# other_cpu_share is empty when the program ran for less than one clock tick of /proc/stat (the fake
# peer here often does): not measured, never 0
share=$(col other_cpu_share "$q")
check '[ -n "$(col load_before "$q")" ] && [ -n "$(col load_after "$q")" ] && [ -n "$(col run_id "$q")" ] &&
       { [ -z "$share" ] || awk -v s="$share" "BEGIN { exit !(s >= 0 && s <= 1) }"; }' \
    "the peer row's load around its program, as bitbench's rows have: $q"
prev=$(printf '%s\n' "$ok" | grep -B1 ',llama.cpp:q4_0,' | head -1)
check '[ "$(col kernel "$prev")" = q4_0 ]' "a peer row follows its bitbench point: $prev"
check 'grep -q "peer row (ok: llama.cpp:q4_0 M=256 K=512 N=16) skipped: .*fake_backend_ops.sh ran no MUL_MAT case of this type and shape (it has no option for shapes; its cases: m=256 k=512 n=1,2,3,4,5,8,512)" "$T/err"' \
    "missing shape: $(grep 'N=16' "$T/err")"
# --peer llama.cpp=PATH names llama-bench (model sweeps), not the kernel-level program
PATH=/usr/bin:/bin "$BB" run "$T/ok.lua" --peer "llama.cpp=$D/fake_backend_ops.sh" > "$T/out" 2> "$T/err"; rc=$?
check '[ $rc -eq 3 ] && grep -q "peer row (ok: llama.cpp:q4_0 M=256 K=512 N=1) skipped: llama.cpp: test-backend-ops is not on PATH, BITBENCH_TEST_BACKEND_OPS is not set and no --peer test-backend-ops=PATH was given" "$T/err"' \
    "--peer llama.cpp in a kernel sweep: rc $rc, $(cat "$T/err")"
for s in fails:fail hangs:hang garbage:garbage; do
    prog=${s#*:} s=${s%:*}
    exp $s 1
    PATH=/usr/bin:/bin "$BB" run "$T/$s.lua" --peer "test-backend-ops=$D/fake_peer_$prog.sh" > "$T/out" 2> "$T/err_$s"; rc=$?
    scsv=$(ls "$T"/res_$s/*/results.csv)
    check '[ $rc -eq 3 ] && tail -n 1 "$T/err_$s" | grep -q "^bitbench run: 0 of 2 peer points ran" && [ "$(grep -c "^peers_k,$s," "$scsv")" -eq 2 ]' "bitbench rows of sweep $s: rc $rc, $(cat "$scsv" "$T/err_$s")"
done
check 'grep -q "peer row (fails: llama.cpp:q4_0 M=256 K=512 N=1) skipped: .*fake_peer_fail.sh exited with status 1" "$T/err_fails"' \
    "failing peer: $(cat "$T/err_fails")"
check 'grep -q "peer row (hangs: llama.cpp:q4_0 M=256 K=512 N=1) skipped: .*fake_peer_hang.sh timed out after 1 s" "$T/err_hangs"' \
    "hanging peer: $(cat "$T/err_hangs")"
check 'grep -q "peer row (garbage: llama.cpp:q4_0 M=256 K=512 N=1) skipped: .*no timed MUL_MAT line" "$T/err_garbage"' \
    "garbage peer: $(cat "$T/err_garbage")"
check '[ "$(grep -c "peer row (fails" "$T/err_fails")" -eq 1 ]' "a failed program is noted once per sweep"
check 'grep -q "peer row (hangs" "$(dirname "$(ls "$T"/res_hangs/*/results.csv)")/run.json"' "skipped peer rows listed in run.json"

bad() { # fields, pattern
    printf 'bitbench.experiment { name = "b", out = "%s", sweeps = { bitbench.sweep { kernels = {"q4_0"}, shapes = {{m = 256, k = 512}}, %s } } }\n' "$T/res" "$1" > "$T/bad.lua"
    err=$("$BB" run "$T/bad.lua" 2>&1 >/dev/null); r=$?; pat=$2
    check '[ $r -ne 0 ] && printf "%s" "$err" | grep -q -- "$pat"' "bad fields '$1': rc $r, $err (wanted /$2/)"
}
bad 'peers = {"bitnet.cpp:q4_0"}' "field 'peers': bitnet.cpp has no kernel-level program for a kernel sweep"
bad 'peers = {"llama"}' "field 'peers', entry 1: unknown peer 'llama'"
bad 'peers = {"llama.cpp"}, kernels = {"i2_s"}' "llama.cpp runs none of the sweep's kernels' GGUF types"
bad 'peers = {"llama.cpp"}, peer_timeout = -1' "peer_timeout"
bad 'peers = {"llama.cpp"}, peer_paths = {["llama.cpp"] = "/x"}' "field 'peer_paths': an experiment names peers, not their programs; give the program on the command line: bitbench run --peer NAME=PATH"

check_summary test_peers_kernels
