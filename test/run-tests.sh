#!/bin/sh
# Runs every test binary in BUILD/test (cmocka), then prints one summary.
# Usage: test/run-tests.sh BUILD_DIR [NAME_FILTER]
# NAME_FILTER: substrings separated by spaces; a test runs when its name
# contains one of them.  TS_UNIT=0 skips the cmocka programs, TS_E2E=0 the
# end-to-end scripts.
# TS_TEST_WRAPPER (e.g. valgrind ...) is prefixed to every cmocka program;
# the e2e scripts put TS_BIN_WRAPPER before the binaries they start.
# TS_TEST_TIMEOUT (seconds, default 900) bounds each program and script: a
# hang fails that test, with everything it started (timeout signals its
# process group), instead of the whole run.  Tests read no terminal: in
# their own process group, a read from one would stop them (SIGTTIN).
# Tests run from the repository root so they find test/data and ../shared.
set -u
build=${1:?usage: run-tests.sh BUILD_DIR [FILTER]}
filter=${2:-}
cd "$(dirname "$0")/.." || exit 1
log_dir=$build/test-logs
mkdir -p "$log_dir"

selected() {
    [ -z "$filter" ] && return 0
    for f in $filter; do
        case "$1" in *"$f"*) return 0 ;; esac
    done
    return 1
}

limit=${TS_TEST_TIMEOUT:-900}
passed=0 failed=0 bins=0 bad_bins=""
for t in "$build"/test/test_*; do
    [ "${TS_UNIT:-1}" != 0 ] && [ -x "$t" ] || continue
    name=$(basename "$t")
    selected "$name" || continue
    bins=$((bins + 1))
    log=$log_dir/$name.log
    # shellcheck disable=SC2086
    timeout -k 10 "$limit" ${TS_TEST_WRAPPER:-} "$t" </dev/null >"$log" 2>&1
    rc=$?
    [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || echo "[  FAILED  ] $name: timed out after $limit s" >>"$log"
    cat "$log"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # crashed, or a sanitizer/valgrind error after the tests passed
        failed=$((failed + 1))
        bad_bins="$bad_bins $name(exit $rc)"
    elif [ "$rc" -ne 0 ]; then
        bad_bins="$bad_bins $name"
    fi
done

# End-to-end tests: each test/e2e/*.sh (executable) is one test; it starts
# the real binaries on loopback and exits 0 when everything held.  They get
# the build directory in TS_BUILD and may print "skip: why" and exit 77.
skipped=0
for t in test/e2e/*.sh; do
    [ "${TS_E2E:-1}" != 0 ] && [ -x "$t" ] || continue
    name=$(basename "$t" .sh)
    selected "$name" || continue
    bins=$((bins + 1))
    log=$log_dir/e2e-$name.log
    TS_BUILD=$build timeout -k 10 "$limit" ${TS_E2E_WRAPPER:-} "$t" </dev/null >"$log" 2>&1
    rc=$?
    [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || echo "timed out after $limit s" >>"$log"
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1)); echo "[  PASSED  ] e2e $name"
    elif [ "$rc" -eq 77 ]; then
        skipped=$((skipped + 1)); echo "[ SKIPPED  ] e2e $name: $(tail -1 "$log")"
    else
        failed=$((failed + 1)); bad_bins="$bad_bins e2e-$name"
        echo "[  FAILED  ] e2e $name (log: $log)"; tail -20 "$log"
    fi
done

echo
echo "== $bins test programs in $build =="
[ -n "$bad_bins" ] && echo "failing:$bad_bins"
echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$bins" -gt 0 ] && [ "$failed" -eq 0 ] && [ -z "$bad_bins" ]
