#!/bin/sh
# Runs every test/k8s/e2e/*.sh (each starts its own control plane with
# test/k8s/cluster.sh, see e2e/lib/k8s.sh) and prints one summary line.
# Usage: test/k8s/run-e2e.sh BUILD_DIR [NAME_FILTER]
# Like test/run-tests.sh: exit 77 is a skip, TS_TEST_TIMEOUT (default 900)
# bounds each script (timeout stops it and everything it started), logs go to
# BUILD_DIR/k8s/test-logs/k8s-NAME.log (build/k8s/ is this suite's).
set -u
build=${1:?usage: run-e2e.sh BUILD_DIR [FILTER]}
filter=${2:-}
cd "$(dirname "$0")/../.." || exit 1
log_dir=$build/k8s/test-logs
mkdir -p "$log_dir"
limit=${TS_TEST_TIMEOUT:-900}

selected() {
    [ -z "$filter" ] && return 0
    for f in $filter; do
        case "$1" in *"$f"*) return 0 ;; esac
    done
    return 1
}

passed=0 failed=0 skipped=0 bad=""
for t in test/k8s/e2e/*.sh; do
    [ -x "$t" ] || continue
    name=$(basename "$t" .sh)
    selected "$name" || continue
    log=$log_dir/k8s-$name.log
    start=$(date +%s)
    TS_BUILD=$build timeout -k 10 "$limit" "$t" </dev/null >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || echo "timed out after $limit s" >>"$log"
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "[  PASSED  ] k8s $name (${secs} s)"
    elif [ "$rc" -eq 77 ]; then
        skipped=$((skipped + 1))
        echo "[ SKIPPED  ] k8s $name: $(tail -1 "$log")"
    else
        failed=$((failed + 1))
        bad="$bad k8s-$name"
        echo "[  FAILED  ] k8s $name (${secs} s, log: $log)"
        tail -30 "$log"
    fi
done

echo
echo "== real control plane (test/k8s/e2e) =="
[ -n "$bad" ] && echo "failing:$bad"
echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
