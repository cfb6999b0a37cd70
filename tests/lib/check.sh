# Sourced by the shell tests (tests/test_*.sh): the counters, a scratch directory, and the checks
# every test makes, so that each test file holds only what it tests.
#
#   . "$src/tests/lib/check.sh"
#   check_scratch NAME            $T: a fresh directory /tmp/bb_NAME_XXXXXX, removed when the test ends
#   check 'CONDITION' "MESSAGE"   CONDITION is shell, evaluated here (it sees the test's variables);
#                                 counts a pass, or a failure and prints "FAIL: MESSAGE"
#   expect_error PATTERN ARGS...  "$BB" ARGS must exit 1 or 2 (a clean refusal, not a signal) with
#                                 stderr matching the grep PATTERN
#   check_summary [NAME]          prints "NAME: N passed, N failed"; its status is the test's (0: none
#                                 failed), so it is the test's last command
pass=0
fail=0

check_scratch() {
    T=$(mktemp -d "/tmp/bb_$1_XXXXXX") || { echo "FAIL: no scratch directory"; exit 1; }
    trap 'rm -rf "$T"' EXIT
}

check() {
    if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi
}

expect_error() {
    pattern="$1"; shift
    err=$("$BB" "$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -ge 1 ] && [ "$rc" -le 2 ] && printf '%s' "$err" | grep -q -- "$pattern"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL: bitbench $* -> rc=$rc, stderr: $err (wanted /$pattern/)"
    fi
}

check_summary() {
    echo "${1:+$1: }$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
