#!/bin/sh
# Evidence for docs/apiserver-differences.md: the same requests against a
# real kube-apiserver (test/k8s/cluster.sh, with Turnstile's webhook server
# registered for the CRDs' conversion) and against turnstile-apiserver, and a
# diff of the answers after normalising uids, timestamps, resourceVersions,
# generated names and ports.  Prints the diffs; exits 0 (a tool, not a test).
# Usage: test/k8s/compare.sh   (from anywhere; needs build/ and build/k8s/bin)
# shellcheck disable=SC1091,SC2016,SC2119 # sourced libs; $KC is expanded by sh -c
set -u
cd "$(dirname "$0")/../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/k8s/e2e/lib/k8s.sh

as_start
KC_OURS=$KC
K apply -f crds/ >/dev/null
k8s_up
KC_REAL=$KC
crds_apply >/dev/null
wh_start >/dev/null

norm() {
    $PY -c '
import json, re, sys
text = sys.stdin.read()
try:
    d = json.loads(text)
except ValueError:
    d = None
def walk(o):
    if isinstance(o, dict):
        out = {}
        for k, v in o.items():
            if k in ("uid", "resourceVersion", "creationTimestamp", "lastTransitionTime", "time",
                     "startTime", "lastProbeTime", "controller-uid", "batch.kubernetes.io/controller-uid"):
                v = "X"
            out[k] = walk(v)
        return out
    if isinstance(o, list):
        return [walk(v) for v in o]
    if isinstance(o, str):
        o = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "UID", o)
        o = re.sub(r"127\.0\.0\.1:[0-9]+", "127.0.0.1:PORT", o)
    return o
if d is None:
    t = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "UID", text)
    print(re.sub(r"127\.0\.0\.1:[0-9]+", "127.0.0.1:PORT", t), end="")
else:
    print(json.dumps(walk(d), indent=1, sort_keys=True))
'
}

n=0
# same TITLE CMD...: run CMD (using $KC) on both servers, diff normalised
same() {
    title=$1
    shift
    n=$((n + 1))
    KC=$KC_REAL
    export KC
    "$@" 2>&1 | norm >"$T/real.$n"
    KC=$KC_OURS
    "$@" 2>&1 | norm >"$T/ours.$n"
    if diff -u "$T/real.$n" "$T/ours.$n" >"$T/diff.$n"; then
        echo "== $n. $title: same"
    else
        echo "== $n. $title: DIFFERENT (- kube-apiserver, + turnstile-apiserver)"
        sed 1,2d "$T/diff.$n" | head -"${LINES_MAX:-80}"
    fi
}

# Turnstile's webhooks on both (conversion: ours converts natively)
KC=$KC_OURS K apply -f "$T/webhooks.json" >/dev/null
for KC in $KC_OURS $KC_REAL; do K create namespace cmp >/dev/null; done
sleep 1
JOB='{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"cmp"},"spec":{"suspend":true,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1"}}}]}}}}'
CQ='{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq"},"spec":{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"f","resources":[{"name":"cpu","nominalQuota":"2"}]}]}]}}'
LQ1='{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"LocalQueue","metadata":{"name":"lq","namespace":"cmp"},"spec":{"clusterQueue":"cq"}}'

same "create a suspended Job (defaults)" sh -c "echo '$JOB' | kubectl --kubeconfig \"\$KC\" create -f - -o json"
same "create it again (409)" sh -c "echo '$JOB' | kubectl --kubeconfig \"\$KC\" create -f -"
same "get a missing Job (404)" sh -c 'kubectl --kubeconfig "$KC" get job -n cmp nope'
same "invalid Job (422)" sh -c "echo '{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"bad\",\"namespace\":\"cmp\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[]}}}}' | kubectl --kubeconfig \"\$KC\" create -f -"
same "change the template of a suspended, never started Job" sh -c 'kubectl --kubeconfig "$KC" patch job -n cmp j --type=merge -p "{\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":{\"a\":\"b\"}}}}}"'
same "unsuspend it" sh -c 'kubectl --kubeconfig "$KC" patch job -n cmp j --type=merge -p "{\"spec\":{\"suspend\":false}}" && sleep 2'
same "change the template of a running Job" sh -c 'kubectl --kubeconfig "$KC" patch job -n cmp j --type=merge -p "{\"spec\":{\"suspend\":true,\"template\":{\"spec\":{\"nodeSelector\":null}}}}"'
same "create a v1beta2 ClusterQueue (CRD defaults)" sh -c "echo '$CQ' | kubectl --kubeconfig \"\$KC\" create -f - -o json"
same "create a v1beta1 LocalQueue (conversion)" sh -c "echo '$LQ1' | kubectl --kubeconfig \"\$KC\" create -f - -o json"
same "read it as v1beta2" sh -c 'kubectl --kubeconfig "$KC" get localqueues.v1beta2.kueue.x-k8s.io -n cmp lq -o json'
same "CQ enum violation (CRD schema)" sh -c "echo '$CQ' | sed 's/\"spec\":{/\"spec\":{\"queueingStrategy\":\"X\",/; s/\"name\":\"cq\"/\"name\":\"cq2\"/' | kubectl --kubeconfig \"\$KC\" create -f -"
same "list ClusterQueues (raw)" sh -c 'kubectl --kubeconfig "$KC" get --raw /apis/kueue.x-k8s.io/v1beta2/clusterqueues'
same "server-side apply a ClusterQueue (managedFields)" sh -c "echo '$CQ' | sed 's/\"name\":\"cq\"/\"name\":\"cq3\"/' | kubectl --kubeconfig \"\$KC\" apply --server-side -f - -o json"
same "discovery: kueue.x-k8s.io/v1beta2" sh -c 'kubectl --kubeconfig "$KC" get --raw /apis/kueue.x-k8s.io/v1beta2'
same "api-resources (kueue)" sh -c 'kubectl --kubeconfig "$KC" api-resources --api-group=kueue.x-k8s.io'
same "Table (kubectl get cq -o wide)" sh -c 'kubectl --kubeconfig "$KC" get cq -o wide | sed -E "s/ +[0-9]+s\$//"'
same "delete with propagation, Job gone" sh -c 'kubectl --kubeconfig "$KC" delete job -n cmp j --cascade=foreground --wait=true --timeout=20s && kubectl --kubeconfig "$KC" get job -n cmp j'
same "namespace delete: phase Terminating / gone" sh -c 'kubectl --kubeconfig "$KC" delete namespace cmp --wait=false && kubectl --kubeconfig "$KC" get namespace cmp -o jsonpath="{.status.phase}"'
FAILS=0 # differences are the output, not failures
export FAILS
finish
