#!/bin/sh
# turnstilectl get (pkg/kube's client) against turnstile-apiserver over
# HTTPS with the kubeconfig the server writes: Kueue printer columns, -A,
# -n, -o name/yaml, a single object, and errors naming the problem.
. "$(dirname "$0")/lib/apiserver.sh"
D=$(dirname "$0")/data
CTL=$BUILD/bin/turnstilectl
[ -x "$CTL" ] || { echo "skip: $CTL not built"; exit 77; }
as_start
J='-H Content-Type:application/json'
MP='-H Content-Type:application/merge-patch+json'
# req METHOD PATH [curl args]: sets RC to the HTTP status
req() {
    m=$1 p=$2
    shift 2
    RC=$(curl -sk -o "$T/body" -w '%{http_code}' -X "$m" -H "Authorization: Bearer $TOKEN" \
        "$@" "$URL$p")
}

$PY - "$D/crd-mini-kueue.yaml" >"$T/crds.jsonl" <<'PYEOF'
import sys
docs, cur = [], []
for line in open(sys.argv[1]):
    if line.strip() == '---':
        docs.append(''.join(cur)); cur = []
    else:
        cur.append(line)
docs.append(''.join(cur))
for d in docs:
    print(d.replace('\n', '\\n'))
PYEOF
while IFS= read -r doc; do
    printf '%b' "$doc" >"$T/crd.yaml"
    req POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions \
        -H 'Content-Type: application/yaml' --data-binary "@$T/crd.yaml"
    check "create CRD" eq "$RC" "201"
done <"$T/crds.jsonl"

req POST /api/v1/namespaces $J -d '{"metadata":{"name":"team-b"}}'
req POST /apis/kueue.x-k8s.io/v1beta1/clusterqueues $J \
    -d '{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"cq-1"},"spec":{"cohort":"all"}}'
WL='{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Workload","metadata":{"name":"NAME"},"spec":{"queueName":"QUEUE","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}]}}'
for spec in default/job-a/user-queue default/job-b/user-queue team-b/job-c/team-queue; do
    ns=${spec%%/*} rest=${spec#*/}
    name=${rest%%/*} queue=${rest#*/}
    body=$(echo "$WL" | sed "s/NAME/$name/; s/QUEUE/$queue/")
    req POST "/apis/kueue.x-k8s.io/v1beta1/namespaces/$ns/workloads" $J -d "$body"
    check "create workload $name" eq "$RC" "201"
done
req PATCH /apis/kueue.x-k8s.io/v1beta1/namespaces/default/workloads/job-a/status $MP -d \
    '{"status":{"admission":{"clusterQueue":"cq-1","podSetAssignments":[{"name":"main","count":1}]},"conditions":[{"type":"QuotaReserved","status":"True","reason":"QuotaReserved","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"},{"type":"Admitted","status":"True","reason":"Admitted","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}'
check "admit job-a" eq "$RC" "200"

out=$("$CTL" get workloads -A --kubeconfig "$KC" 2>&1)
echo "$out"
check "get -A header" contains "$out" "NAMESPACE   NAME    QUEUE        RESERVED IN   ADMITTED   FINISHED   AGE"
check "get -A admitted row" contains "$out" "default     job-a   user-queue   cq-1          True"
check "get -A other namespace" contains "$out" "team-b      job-c   team-queue"
out=$("$CTL" get wl --kubeconfig "$KC" 2>&1)
check "kubeconfig namespace is the default" eq "$(echo "$out" | grep -c job-)" "2"
out=$("$CTL" get wl -n team-b -o name --kubeconfig "$KC" 2>&1)
check "-n and -o name" eq "$out" "workloads/job-c"
out=$(KUBECONFIG="$T/missing:$KC" "$CTL" get cq 2>&1)
check "KUBECONFIG list and cluster-scoped columns" contains "$out" "cq-1   all"
out=$("$CTL" get workload job-a -o yaml --kubeconfig "$KC" 2>&1)
check "-o yaml of one object" contains "$out" "queueName: user-queue"
out=$("$CTL" get wl nope --kubeconfig "$KC" 2>&1)
check "not found exits 1" eq "$?" "1"
check "not found message" contains "$out" 'workloads.kueue.x-k8s.io "nope" not found'
out=$("$CTL" get frobs --kubeconfig "$KC" 2>&1)
check "unknown resource" contains "$out" "doesn't have a resource type \"frobs\""
out=$("$CTL" get wl --kubeconfig "$KC" --context nope 2>&1)
check "unknown context" contains "$out" "context \"nope\" not found in kubeconfig '$KC'"
sed 's/token: .*/token: "wrong"/' "$KC" >"$T/bad-kc"
out=$("$CTL" get wl --kubeconfig "$T/bad-kc" 2>&1)
check "wrong token" contains "$out" "EUNAUTHORIZED"
finish
