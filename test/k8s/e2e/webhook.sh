#!/bin/sh
# Turnstile's webhook server in a real kube-apiserver's admission chain
# (local mode: the configurations it writes, applied with kubectl; the CRDs'
# conversion webhook pointed at it): a labelled Job is created suspended, an
# invalid ClusterQueue is refused with Kueue's message through kubectl,
# v1beta1 objects are converted and read back as v1beta2 (and v1beta1), and
# with the webhook server stopped a Job without the queue-name label is still
# created (objectSelector scoping on the real failurePolicy) while a labelled
# one is refused (failurePolicy Fail).
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
[ -x "$BUILD/bin/turnstile" ] || { echo "skip: $BUILD/bin/turnstile not built"; exit 77; }
k8s_up
crds_apply
wh_start
K create namespace team-a >/dev/null

bad_cq() {
    printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: bad}\nspec:\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: x\n      resources:\n      - {name: cpu, nominalQuota: -1}\n' |
        K apply -f - 2>&1
}
# the API server picks the new configurations up a moment after kubectl apply
refused() { ! bad_cq >/dev/null; }
wait_for "the webhook is called" refused
out=$(bad_cq)
check "invalid ClusterQueue refused with Kueue's message" contains "$out" \
    'admission webhook "vclusterqueue.kb.io" denied the request: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: "-1": must be greater than or equal to 0'
out=$(printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: bad2}\nspec:\n  queueingStrategy: Sometimes\n' |
    K apply -f - 2>&1)
check "enum checked by the CRD schema" contains "$out" 'spec.queueingStrategy: Unsupported value: "Sometimes"'

# a labelled Job is created suspended
out=$(sed 's/NAME/j1/; s/suspend: true/suspend: false/' test/e2e/data/controller/job.tmpl |
    K create -f - -o jsonpath='{.spec.suspend}' 2>&1)
check "labelled Job created suspended by the mutating webhook" eq "$out" true
out=$(sed 's/NAME/plain/; s/suspend: true/suspend: false/; s/labels: {kueue.x-k8s.io\/queue-name: lq}/labels: {app: plain}/' \
    test/e2e/data/controller/job.tmpl | K create -f - -o jsonpath='{.spec.suspend}' 2>&1)
check "unlabelled Job left alone" eq "$out" false
K delete job -n team-a plain --wait=false >/dev/null 2>&1

# v1beta1 in, v1beta2 stored and read back (our conversion webhook)
cat >"$T/v1beta1.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: rf1}
spec:
  nodeLabels: {instance-type: on-demand}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq1}
spec:
  cohort: team-cohort
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: rf1
      resources:
      - {name: cpu, nominalQuota: 4}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq1}
YAML
out=$(K apply -f "$T/v1beta1.yaml" 2>&1)
check "v1beta1 objects applied" eq "$?" 0
[ "$FAILS" -eq 0 ] || echo "$out"
out=$(K get clusterqueues.v1beta2.kueue.x-k8s.io cq1 -o jsonpath='{.apiVersion} {.spec.cohortName} {.spec.queueingStrategy}' 2>&1)
check "v1beta1 ClusterQueue read back as v1beta2 (cohort -> cohortName, defaults)" eq "$out" \
    "kueue.x-k8s.io/v1beta2 team-cohort BestEffortFIFO"
out=$(K get clusterqueues.v1beta1.kueue.x-k8s.io cq1 -o jsonpath='{.apiVersion} {.spec.cohort}' 2>/dev/null)
check "and as v1beta1" eq "$out" "kueue.x-k8s.io/v1beta1 team-cohort"
out=$(K get --raw /apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq1 2>/dev/null | jq_py "d['apiVersion'], d['spec'].get('cohortName')")
check "raw GET v1beta2" eq "$out" "kueue.x-k8s.io/v1beta2 team-cohort"
out=$(K get --raw /apis/kueue.x-k8s.io/v1beta1/namespaces/team-a/localqueues/lq 2>/dev/null | jq_py "d['apiVersion'], d['spec']['clusterQueue']")
check "raw GET v1beta1 LocalQueue" eq "$out" "kueue.x-k8s.io/v1beta1 cq1"
out=$(K get crd clusterqueues.kueue.x-k8s.io -o jsonpath='{.status.storedVersions}')
check "stored as v1beta2 only" eq "$out" '["v1beta2"]'

# the webhook server stopped: unlabelled Jobs still pass, labelled ones fail
stop_pid "$WH_PID"
PIDS=$(echo "$PIDS" | sed "s/ $WH_PID\b//")
out=$(sed 's/NAME/plain2/; s/labels: {kueue.x-k8s.io\/queue-name: lq}/labels: {app: plain}/' \
    test/e2e/data/controller/job.tmpl | K create -f - 2>&1)
check "webhook down: unlabelled Job still created" contains "$out" "job.batch/plain2 created"
out=$(sed 's/NAME/j2/' test/e2e/data/controller/job.tmpl | K create -f - 2>&1)
check "webhook down: labelled Job refused (failurePolicy Fail)" contains "$out" 'failed calling webhook'
[ "$FAILS" -eq 0 ] || { tail -20 "$T/webhook.log"; k8s_logs 5; }
finish
