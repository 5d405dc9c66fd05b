#!/bin/sh
# turnstilectl bench --live --kubeconfig: the run on a cluster it did not
# start (turnstile-apiserver here; kube-apiserver with TS_SERVER=real, as
# test/k8s/run-e2e.sh runs it).  Every workload is admitted and finished,
# ClusterQueue usage is read from status as Kueue's runner reads it, the
# controller's process wall is measured, and afterwards exactly what the
# plan made is gone: an unlabelled ClusterQueue and Workload of the user's
# stay.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
ctl=${TS_BUILD:-build}/bin/turnstilectl
[ -x "${TS_BUILD:-build}/bin/turnstile" ] || { echo "skip: turnstile not built"; exit 77; }
as_start

K apply --server-side -f crds/ >/dev/null 2>&1 || K apply --server-side -f crds/ >"$T/apply" 2>&1 ||
    { cat "$T/apply"; fail "apply CRDs"; }
K wait --for=condition=Established --timeout=30s crd/workloads.kueue.x-k8s.io >/dev/null
K apply -f - >"$T/apply" 2>&1 <<'YAML' || { cat "$T/apply"; fail "user's objects"; }
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: users-queue}
spec: {namespaceSelector: {}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: users-workload, namespace: default}
spec:
  queueName: nowhere
  podSets:
  - name: main
    count: 1
    template: {spec: {containers: [{name: c, image: pause}]}}
YAML

"$ctl" bench test/perf/smoke.yaml --live --kubeconfig "$KC" --crds crds --timeout 120 -o json \
    >"$T/out.json" 2>"$T/err" || { cat "$T/err"; fail "bench --kubeconfig"; }
out=$($PY - "$T/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
l = r["live"]
assert r["admitted"] == 24 and r["neverAdmitted"] == 0, r
u = l["kueueRecorderUsagePercent"]["cq"]
# 2 queues of 4 cpu that may borrow 4 each: between nothing and twice nominal
assert 0 < u <= 200, u
assert l["controllerWallSeconds"]["mean"] >= r["wallSeconds"]["mean"], l
assert "apiWrites" not in l and "controllerWorkloadWrites" not in l, l
print("ok usage %.1f %%" % u)
PY
)
check "report of a run on a given cluster" contains "$out" "ok usage"

left=$(K get workloads,localqueues,clusterqueues,cohorts,resourceflavors,workloadpriorityclasses -A \
    -l kueue.x-k8s.io/performance-scheduler-cleanup -o name 2>&1)
check "the plan's objects are deleted" eq "$left" ""
out=$(K get clusterqueue users-queue -o name 2>&1)
check "the user's ClusterQueue stays" eq "$out" "clusterqueue.kueue.x-k8s.io/users-queue"
out=$(K get workload users-workload -o name 2>&1)
check "the user's Workload stays" eq "$out" "workload.kueue.x-k8s.io/users-workload"

if "$ctl" bench test/perf/smoke.yaml --live --jobs --kubeconfig "$KC" 2>"$T/err"; then
    fail "--jobs with --kubeconfig accepted"
fi
check "--jobs needs our server" contains "$(cat "$T/err")" "--jobs needs the job simulator"
if "$ctl" bench test/perf/smoke.yaml --ideal --kubeconfig "$KC" 2>"$T/err"; then
    fail "--ideal with --kubeconfig accepted"
fi
check "--kubeconfig is for --live" contains "$(cat "$T/err")" "--kubeconfig is for --live"
if "$ctl" bench test/perf/smoke.yaml --live --no-cleanup 2>"$T/err"; then
    fail "--no-cleanup without --kubeconfig accepted"
fi
check "--no-cleanup is for --kubeconfig" contains "$(cat "$T/err")" "--no-cleanup is for --kubeconfig"
finish
