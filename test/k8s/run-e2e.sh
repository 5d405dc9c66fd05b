#!/bin/sh
# Runs every test/k8s/e2e/*.sh (each starts its own control plane with
# test/k8s/cluster.sh, see e2e/lib/k8s.sh) and the contract tests of
# turnstile-apiserver listed in CONTRACT on the real control plane, and
# prints one summary line.
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

# turnstile-apiserver's contract tests that hold on kube-apiserver too, run
# against it (TS_SERVER=real; test/e2e/lib/apiserver.sh): where the two
# servers answer differently, ours is wrong or docs/apiserver-differences.md
# says why not.  The others test what only ours has (--data-dir, --faults,
# its job simulator, its webhook service map).  And `make run K8S=real`,
# and the controller's scripts written for both servers (their jobs' pods
# run under KWOK there, lib/controller.sh pods_run).
CONTRACT="apiserver_crds apiserver_gc apiserver_job_template apiserver_kubectl apiserver_protobuf
apiserver_python apiserver_semantics apiserver_ssa make_run bench_kubeconfig
controller_stop_policy controller_max_exec_time controller_finalizers controller_reclaimable
controller_config kubectl_kueue"

passed=0 failed=0 skipped=0 bad=""
for t in test/k8s/e2e/*.sh $(for c in $CONTRACT; do echo "contract:$c"; done); do
    case "$t" in
    contract:*)
        name=contract-${t#contract:}
        t=test/e2e/${t#contract:}.sh
        server=real
        ;;
    *)
        name=$(basename "$t" .sh)
        server=${TS_SERVER:-}
        ;;
    esac
    [ -x "$t" ] || continue
    selected "$name" || continue
    log=$log_dir/k8s-$name.log
    start=$(date +%s)
    TS_SERVER=$server TS_BUILD=$build timeout -k 10 "$limit" "$t" </dev/null >"$log" 2>&1
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
