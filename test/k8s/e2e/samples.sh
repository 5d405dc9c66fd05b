#!/bin/sh
# On a real kube-apiserver: kubectl apply --server-side -f crds/ (the server
# checks our CRDs' structural schemas and CEL rules), Turnstile's webhook
# server registered (validation, defaulting, the CRDs' v1beta1<->v1beta2
# conversion), then every file of config/samples/, ../shared/samples/seeds/
# and ../shared/samples/kueue-examples/ unchanged: `kubectl apply
# --server-side`, or `kubectl create` for a file with generateName (as Kueue's
# docs do).  Each failure is printed with the server's own message.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/k8s/e2e/lib/k8s.sh
[ -x "$BUILD/bin/turnstile" ] || { echo "skip: $BUILD/bin/turnstile not built"; exit 77; }
k8s_up

crds_apply
# CEL rules and schemas are compiled by the server: each CRD reports it
for c in $(K get crd -o name | grep 'kueue.x-k8s.io$'); do
    bad=$(K get "$c" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')
    check "$c: Established, no NonStructural/ names conflict" eq "$bad" "NamesAccepted Established "
done
wh_start

# namespaces the samples use (the samples' own namespaces.yaml first)
K apply --server-side -f config/samples/namespaces.yaml >/dev/null
for ns in default team-a team-b ai-team; do
    K get namespace "$ns" >/dev/null 2>&1 || K create namespace "$ns" >/dev/null
done
# the webhook configuration reaches the API server's informer a moment after
# kubectl apply: wait until a bad object is refused
wait_refused() {
    K apply --dry-run=server -f - >/dev/null 2>&1 <<'YAML' && return 1
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: probe}
spec: {queueingStrategy: Wrong}
YAML
    return 0
}
i=0
until wait_refused; do
    i=$((i + 1))
    [ $i -lt 100 ] || { fail "the webhook was never called"; break; }
    sleep 0.1
done

applied=0
apply_file() {
    f=$1
    if grep -q generateName "$f"; then
        verb="create"
        out=$(K create -f "$f" 2>&1)
    else
        verb="apply --server-side"
        out=$(K apply --server-side -f "$f" 2>&1)
    fi
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "kubectl $verb -f $f (exit $rc):"
        echo "$out" | sed 's/^/    /'
    else
        applied=$((applied + 1))
    fi
}
# priority classes before the jobs that name them
for f in config/samples/workload-priority-classes.yaml config/samples/*.yaml; do
    apply_file "$f"
done
SH=../shared/samples
if [ -d "$SH/seeds" ]; then
    for f in "$SH"/seeds/*.yaml; do apply_file "$f"; done
else
    echo "note: $SH/seeds missing, not applied"
fi
if [ -d "$SH/kueue-examples" ]; then
    for f in "$SH"/kueue-examples/*.yaml; do apply_file "$f"; done
else
    echo "note: $SH/kueue-examples missing, not applied"
fi
echo "applied $applied sample files"

# what was stored reads back in both versions (conversion by our webhook)
out=$(K get clusterqueues.v1beta2.kueue.x-k8s.io multi-team-cq -o jsonpath='{.apiVersion} {.spec.cohortName}' 2>&1)
check "v1beta1 sample read back as v1beta2 (cohort -> cohortName)" eq "$out" "kueue.x-k8s.io/v1beta2 ai-cohort"
out=$(K get clusterqueues.v1beta1.kueue.x-k8s.io multi-team-cq -o jsonpath='{.apiVersion} {.spec.cohort}' 2>"$T/warn")
check "v1beta1 is served deprecated" contains "$(cat "$T/warn")" "Warning: This version is deprecated. Use v1beta2 instead."

check "and as v1beta1" eq "$out" "kueue.x-k8s.io/v1beta1 ai-cohort"
# the labelled sample Jobs were suspended by the webhook (no controller runs)
for j in $(K get jobs -A -l kueue.x-k8s.io/queue-name -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}{" "}{end}'); do
    s=$(K get job -n "${j%%/*}" "${j#*/}" -o jsonpath='{.spec.suspend}')
    check "sample job $j created suspended" eq "$s" true
done
out=$(K get clusterqueues,localqueues,resourceflavors,workloadpriorityclasses -A 2>&1)
check "kubectl get cq,lq,rf,wpc -A" contains "$out" "clusterqueue.kueue.x-k8s.io/"
[ "$FAILS" -eq 0 ] || {
    echo "--- webhook log"
    tail -20 "$T/webhook.log"
}
finish
