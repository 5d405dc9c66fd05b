#!/bin/sh
# Deployments (Kueue's deployment integration) on the real control plane:
# a Deployment of 3 replicas with the queue-name label in a queue with
# quota for 2.  The webhook marks its pod template; the real ReplicaSet
# controller creates 3 Pods, each gated and queued as its own Workload; 2
# are admitted, ungated and bound by the real kube-scheduler to nodes of the
# flavor; the third stays gated with Kueue's pending message and is ungated
# when a running one is deleted (the ReplicaSet's replacement waits in
# turn).  Real plane only: turnstile-apiserver has no ReplicaSet controller.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
[ "${TS_SERVER:-real}" != ours ] || { echo "skip: needs kube-controller-manager's ReplicaSets"; exit 77; }
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/queues.yaml"
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=400
ctl_start
cat <<EOF | K create -f - >/dev/null
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: c, image: nginx, resources: {requests: {cpu: "1", memory: 1Gi}}}
EOF
out=$(K get deployment -n team-a web -o jsonpath='{.spec.template.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent} {.spec.template.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.template.metadata.labels.kueue\.x-k8s\.io/managed}')
check "the webhook marks the pod template" eq "$out" "deployment lq true"
pods() { K get pods -n team-a -l app=web -o jsonpath="{range .items[*]}{.metadata.name} {.spec.schedulingGates[*].name} {.spec.nodeName}{'\n'}{end}"; }
three() { [ "$(pods | grep -c .)" = 3 ]; }
wait_for "the ReplicaSet made 3 Pods" three
two_bound() { [ "$(pods | awk 'NF==2 && $2 !~ /admission/' | grep -c .)" = 2 ]; }
wait_for "2 ungated and bound by kube-scheduler" two_bound
one_gated() { [ "$(pods | grep -c 'kueue.x-k8s.io/admission')" = 1 ]; }
check "the third stays gated" one_gated
gated=$(pods | awk '/kueue.x-k8s.io\/admission/ {print $1}')
for n in $(pods | awk 'NF==2 && $2 !~ /admission/ {print $2}'); do
    check "node $n is of the flavor" eq "$(K get node "$n" -o jsonpath='{.metadata.labels.instance-type}')" on-demand
done
check "no finalizer on a Deployment's Pod" eq "$(K get pod -n team-a "$gated" -o jsonpath='{.metadata.finalizers}')" ""
wl_msg() {
    K get workloads -n team-a -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$gated\")]}{.status.conditions[?(@.type==\"QuotaReserved\")].message}{end}"
}
has_msg() { [ -n "$(wl_msg)" ]; }
wait_for "the gated Pod's Workload evaluated" has_msg
check "it waits with Kueue's message" eq "$(wl_msg)" \
    "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 1 more needed"
victim=$(pods | awk 'NF==2 && $2 !~ /admission/ {print $1; exit}')
K delete pod -n team-a "$victim" --wait=false >/dev/null
ungated_now() { [ -z "$(K get pod -n team-a "$gated" -o jsonpath='{.spec.schedulingGates}')" ]; }
wait_for "the gated Pod is ungated once quota frees" ungated_now
replacement_gated() { one_gated && three; }
wait_for "the ReplicaSet's replacement waits gated" replacement_gated
ctl_check_log
[ "$FAILS" -eq 0 ] || { K get pods,workloads -n team-a -o wide; k8s_logs 5; }
finish
