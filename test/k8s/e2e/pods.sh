#!/bin/sh
# Plain Pods (Kueue's pod integration) on the real control plane: the
# webhook gates a Pod with a queue name (label kueue.x-k8s.io/managed,
# finalizer, scheduling gate kueue.x-k8s.io/admission); of three Pods of
# 1 cpu in a queue of 2, two are ungated with the flavor's node selector and
# bound by kube-scheduler to a node of that flavor, the third stays gated
# with Kueue's pending message; deleting a running Pod lets the controller
# drop its finalizer, frees its quota and the third Pod starts; a Pod that
# succeeds finishes its Workload and loses its finalizer; a Pod without a
# queue name is never touched; a Pod owned by a Job is the Job's; a pod
# group of three waits (Kueue's event) until all its members exist, runs as
# one Workload and finishes "Pods succeeded: 3/3".
# test/e2e/controller_pods.sh runs this on turnstile-apiserver (no
# scheduler there: the binding checks are the real plane's).
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/queues.yaml"
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=300

pod() { # NAME [LABELS]: a Pod of 1 cpu in team-a
    cat <<EOF | K create -f - >/dev/null
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: team-a
  labels: {${2-kueue.x-k8s.io/queue-name: lq}}
spec:
  restartPolicy: Never
  containers:
  - {name: c, image: busybox, resources: {requests: {cpu: "1", memory: 1Gi}}}
EOF
}
pget() { K get pod -n team-a "$1" -o jsonpath="$2"; }
gated() { [ "$(pget "$1" '{.spec.schedulingGates[*].name}')" = kueue.x-k8s.io/admission ]; }
ungated() { [ -z "$(pget "$1" '{.spec.schedulingGates}')" ]; }
pod_gone() { ! K get pod -n team-a "$1" >/dev/null 2>&1; }
wl_of_pod() {
    K get workloads -n team-a -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$1\")]}{.metadata.ownerReferences[0].kind} {.metadata.name}{end}"
}
wl_cond_pod() { # POD TYPE [FIELD]
    w=$(wl_of_pod "$1" | cut -d' ' -f2)
    [ -n "$w" ] && K get workloads -n team-a "$w" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].${3:-status}}"
}
admitted_pod() { [ "$(wl_cond_pod "$1" Admitted)" = True ]; }

ctl_start
pod p1
pod p2
sleep 1 # p3 queued last: Workloads' creation times have seconds
pod p3
pod free "app: free"
check "the webhook marks p1 managed" eq "$(pget p1 '{.metadata.labels.kueue\.x-k8s\.io/managed}')" true
check "and holds it with Kueue's finalizer" eq "$(pget p1 '{.metadata.finalizers[*]}')" kueue.x-k8s.io/managed
check "and names its role" eq "$(pget p1 '{.metadata.annotations.kueue\.x-k8s\.io/role-hash}' | wc -c)" 8
check "a Pod without a queue name is not touched" eq "$(pget free '{.metadata.labels.kueue\.x-k8s\.io/managed}{.spec.schedulingGates}{.metadata.finalizers}')" ""
wait_for "p1 admitted" admitted_pod p1
wait_for "p2 admitted" admitted_pod p2
check "p1's Workload is Kueue's, owned by the Pod" eq "$(wl_of_pod p1 | sed 's/-[0-9a-f]*$//')" "Pod pod-p1"
wait_for "p1 ungated" ungated p1
wait_for "p2 ungated" ungated p2
check "p1 carries the flavor's node selector" eq "$(pget p1 '{.spec.nodeSelector.instance-type}')" on-demand
check "and its toleration" eq "$(pget p1 '{.spec.tolerations[?(@.key=="spot")].effect}')" NoSchedule
check "and Kueue's pod set label" eq "$(pget p1 '{.metadata.labels.kueue\.x-k8s\.io/podset}')" main
p3_waits() { [ -n "$(wl_cond_pod p3 QuotaReserved message)" ]; }
wait_for "p3 evaluated" p3_waits
check "p3 stays gated (the webhook's gate)" gated p3
check "p3 waits with Kueue's message" eq "$(wl_cond_pod p3 QuotaReserved message)" \
    "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 1 more needed"
if [ "${TS_SERVER:-real}" != ours ]; then
    bound() { [ -n "$(pget "$1" '{.spec.nodeName}')" ]; }
    wait_for "kube-scheduler binds p1" bound p1
    node=$(pget p1 '{.spec.nodeName}')
    check "on a node of the flavor" eq "$(K get node "$node" -o jsonpath='{.metadata.labels.instance-type}')" on-demand
    running() { [ "$(pget "$1" '{.status.phase}')" = Running ]; }
    wait_for "p1 runs (KWOK)" running p1
fi

# a running Pod deleted: the controller lets it go, its quota frees
K delete pod -n team-a p1 --wait=false >/dev/null
wait_for "p1's finalizer dropped, p1 gone" pod_gone p1
wait_for "p3 admitted in p1's place" admitted_pod p3
wait_for "p3 ungated" ungated p3

# a Pod that succeeds finishes its Workload and loses its finalizer
K patch pod -n team-a p2 --subresource=status --type=merge -p '{"status":{"phase":"Succeeded"}}' >/dev/null
finished() { [ "$(wl_cond_pod p2 Finished reason)" = Succeeded ]; }
wait_for "p2's Workload finished Succeeded" finished p2
no_finalizer() { [ -z "$(pget p2 '{.metadata.finalizers}')" ]; }
wait_for "p2's finalizer dropped" no_finalizer

# preemption of a running Pod deletes it (Kueue's Pod.Stop)
K patch workload -n team-a "$(wl_of_pod p3 | cut -d' ' -f2)" --type=merge -p '{"spec":{"active":false}}' >/dev/null
wait_for "p3 deleted once deactivated" pod_gone p3

# a Job's Pods are the Job's: never their own Workload
kjob j1 1h
if [ "${TS_SERVER:-real}" != ours ]; then
    wait_for "j1 admitted" admitted j1
    jpod() { [ -n "$(pods_of j1)" ]; }
    wait_for "j1's Pod exists" jpod
    p=$(pods_of j1 | cut -d' ' -f1)
    check "j1's Pod is not gated" eq "$(pget "$p" '{.spec.schedulingGates}{.metadata.labels.kueue\.x-k8s\.io/managed}')" ""
fi
pod_wls() { [ "$(K get workloads -n team-a -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].kind}{"\n"}{end}' | grep -c '^Pod$')" = 1 ]; }
wait_for "the deleted Pods' Workloads collected: p2's alone is left" pod_wls

# a pod group waits for all its members, then runs as one Workload
gpod() { # NAME: a member of group g (3 members) of 300m
    cat <<EOF | K create -f - >/dev/null
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/pod-group-name: g}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "3"}
spec:
  restartPolicy: Never
  containers:
  - {name: c, image: busybox, resources: {requests: {cpu: 300m, memory: 1Gi}}}
EOF
}
gpod g1
gpod g2
few() { K get events -n team-a --field-selector involvedObject.name=g1 -o jsonpath='{.items[*].message}' | grep -q "'g' group has fewer runnable pods than expected"; }
wait_for "two of three members: Kueue's event, no Workload" few
nowl() { ! K get workload -n team-a g >/dev/null 2>&1; }
check "no Workload for the group yet" nowl
gpod g3
gadm() { [ "$(K get workload -n team-a g -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}' 2>/dev/null)" = True ]; }
wait_for "the group's Workload g admitted" gadm
check "one pod set of 3 (one role)" eq "$(K get workload -n team-a g -o jsonpath='{.spec.podSets[0].count} {.metadata.annotations.kueue\.x-k8s\.io/is-group-workload}')" "3 true"
wait_for "g1 ungated" ungated g1
wait_for "g2 ungated" ungated g2
wait_for "g3 ungated" ungated g3
for m in g1 g2 g3; do
    K patch pod -n team-a "$m" --subresource=status --type=merge -p '{"status":{"phase":"Succeeded"}}' >/dev/null
done
gfin() { [ "$(K get workload -n team-a g -o jsonpath='{.status.conditions[?(@.type=="Finished")].message}')" = "Pods succeeded: 3/3." ]; }
wait_for "the group finished with Kueue's message" gfin
gnofin() { [ -z "$(pget g1 '{.metadata.finalizers}')$(pget g2 '{.metadata.finalizers}')$(pget g3 '{.metadata.finalizers}')" ]; }
wait_for "the members' finalizers dropped" gnofin

ctl_check_log
[ "$FAILS" -eq 0 ] || {
    K get pods,workloads -n team-a -o wide
    K get pod -n team-a p2 -o yaml
    grep -E 'p2|p3' "$T/ctl.log" | tail -20
    [ "${TS_SERVER:-real}" = ours ] || k8s_logs 5
}
finish
