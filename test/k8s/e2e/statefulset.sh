#!/bin/sh
# StatefulSets (Kueue's statefulset integration) on the real control plane:
# a StatefulSet of 4 replicas of 1 cpu with the queue-name label is one pod
# group, all or nothing.  In a queue of 2 cpu its prebuilt Workload waits
# and every Pod the real StatefulSet controller makes stays gated; with 4
# cpu the group is admitted and all 4 Pods are ungated with the flavor and
# bound by kube-scheduler.  Scaled to 0 its Pods go and so does the
# Workload.  Real plane only: turnstile-apiserver has no StatefulSet
# controller.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
[ "${TS_SERVER:-real}" != ours ] || { echo "skip: needs kube-controller-manager's StatefulSets"; exit 77; }
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/queues.yaml"
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=400
ctl_start
cat <<EOF | K create -f - >/dev/null
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  replicas: 4
  serviceName: db
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - {name: c, image: db, resources: {requests: {cpu: "1", memory: 1Gi}}}
EOF
check "the webhook marks the pod template" eq "$(K get sts -n team-a db -o jsonpath='{.spec.template.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent}')" statefulset
wlname() { K get workloads -n team-a -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].kind=="StatefulSet")]}{.metadata.name}{end}'; }
has_wl() { [ -n "$(wlname)" ]; }
wait_for "the set's prebuilt Workload" has_wl
W=$(wlname)
check "named as Kueue names it" eq "$(echo "$W" | sed 's/-[0-9a-f]*$//')" statefulset-db
check "one pod set of 4" eq "$(K get workload -n team-a "$W" -o jsonpath='{.spec.podSets[0].name} {.spec.podSets[0].count}')" "main 4"
pods() { K get pods -n team-a -l app=db -o jsonpath="{range .items[*]}{.metadata.name} {.spec.schedulingGates[*].name} {.metadata.labels.kueue\.x-k8s\.io/pod-group-name}{'\n'}{end}"; }
four_members() { [ "$(pods | grep -c " $W\$")" = 4 ]; }
wait_for "4 Pods, members of its group" four_members
waits() { [ -n "$(K get workload -n team-a "$W" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].message}')" ]; }
wait_for "the group evaluated" waits
check "4 cpu do not fit 2: all wait" eq "$(pods | grep -c 'kueue.x-k8s.io/admission')" 4
K patch clusterqueue cq --type=json \
    -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota","value":"4"}]' >/dev/null
adm() { [ "$(K get workload -n team-a "$W" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}')" = True ]; }
wait_for "with 4 cpu the group is admitted" adm
none_gated() { [ "$(pods | grep -c 'kueue.x-k8s.io/admission')" = 0 ] && four_members; }
wait_for "all 4 ungated" none_gated
bound() { [ "$(K get pods -n team-a -l app=db -o jsonpath='{range .items[*]}{.spec.nodeSelector.instance-type}{.spec.nodeName}{"\n"}{end}' | grep -c '^on-demand.')" = 4 ]; }
wait_for "bound by kube-scheduler with the flavor's node selector" bound
K scale sts -n team-a db --replicas=0 >/dev/null
no_pods() { [ -z "$(pods)" ]; }
wait_for "scaled to 0: its Pods go" no_pods
wl_gone() { ! K get workload -n team-a "$W" >/dev/null 2>&1; }
wait_for "and its Workload with them" wl_gone
ctl_check_log
[ "$FAILS" -eq 0 ] || { K get sts,pods,workloads -n team-a -o wide; grep -E 'db|statefulset' "$T/ctl.log" | tail -20; k8s_logs 5; }
finish
