#!/bin/sh
# kueue.x-k8s.io/resource-in-use on ClusterQueues and ResourceFlavors, as
# Kueue's controllers: a ClusterQueue being deleted admits nothing new and
# stays (Terminating) while a Workload holds quota in it, then goes; a
# ResourceFlavor being deleted stays while a ClusterQueue names it, then
# goes.  (The webhook adds the finalizer on create; here the YAML has it.)
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start
crds_with_conversion
K apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand, finalizers: [kueue.x-k8s.io/resource-in-use]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq, finalizers: [kueue.x-k8s.io/resource-in-use]}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: on-demand
      resources:
      - {name: cpu, nominalQuota: 4}
      - {name: memory, nominalQuota: 8Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq}
YAML
ctl_start

exists() { K get "$1" "$2" >/dev/null 2>&1; }
absent() { ! exists "$@"; }
active_reason() { [ "$(K get clusterqueue cq -o jsonpath='{.status.conditions[?(@.type=="Active")].reason}')" = "$1" ]; }

job a
wait_for "a admitted" admitted a
wait_for "cq active" active_reason Ready

# the flavor is named by cq: deleting it leaves it Terminating
K delete resourceflavor on-demand --wait=false >/dev/null
sleep 1
check "flavor in use stays" exists resourceflavor on-demand

# cq holds a's quota: deleting it leaves it Terminating, admitting nothing new
K delete clusterqueue cq --wait=false >/dev/null
wait_for "cq Active=False Terminating" active_reason Terminating
job b
sleep 1.5
check "cq with an admitted workload stays" exists clusterqueue cq
check "a still admitted" admitted a
check "b not admitted by a terminating cq" eq "$(wl_cond b QuotaReserved)" "False"
out=$(wl_cond b QuotaReserved message)
check "b's message" eq "$out" "ClusterQueue cq is terminating or missing"

# a finishes (on the real control plane, where the job controller owns a
# Job's status, it is deleted instead): its quota is released, cq goes, and
# then the flavor
if [ "${TS_SERVER:-ours}" = real ]; then
    K delete job a -n team-a --cascade=foreground --wait=false >/dev/null
else
    K patch job a -n team-a --subresource=status --type=merge \
        -p '{"status":{"succeeded":1,"conditions":[{"type":"Complete","status":"True","reason":"Completed","lastTransitionTime":"2026-11-22T00:00:00Z"}]}}' >/dev/null
fi
WAIT_TENTHS=300
wait_for "cq gone once nothing holds quota in it" absent clusterqueue cq
wait_for "flavor gone once no ClusterQueue names it" absent resourceflavor on-demand

kill -TERM "$CTL_PID"
ctl_check_log
finish
