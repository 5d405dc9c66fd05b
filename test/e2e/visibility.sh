#!/bin/sh
# Kueue's visibility API end to end: the controller serves
# visibility.kueue.x-k8s.io on its TLS port, config/visibility registers it
# as APIServices, turnstile-apiserver proxies to the service, and real
# `kubectl get --raw` reads positions in the scheduler's order, with
# limit/offset, per ClusterQueue and per LocalQueue, in v1beta1 and v1beta2;
# a finished job moves the line; a stopped controller gives 503.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
PORT=$(free_port)
as_start --webhook-service "turnstile-system/turnstile-visibility-server=127.0.0.1:$PORT"

K apply -f crds/ >/dev/null
K apply -f "$CD/queues.yaml" >/dev/null
K apply -f config/visibility/apiservice.yaml >/dev/null
K apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-b, namespace: team-a}
spec: {clusterQueue: cq}
EOF
ctl_start --visibility-bind-address "127.0.0.1:$PORT"
wait_for "visibility API serving" grep -q "visibility API serving on 127.0.0.1:$PORT" "$T/ctl.log"

V1=/apis/visibility.kueue.x-k8s.io/v1beta1
V2=/apis/visibility.kueue.x-k8s.io/v1beta2
raw() { K get --raw "$1" 2>&1; }
names() { raw "$1" | jq_py '",".join(i["metadata"]["name"] for i in d["items"])'; }

# two jobs fill the 2-cpu queue; three more wait: low-1, low-2 (lq-b), high
job run-1
job run-2
wait_for "run-1 admitted" admitted run-1
wait_for "run-2 admitted" admitted run-2
job low-1
sleep 1.1 # creation times have second precision: make the FIFO order certain
sed "s/NAME/low-2/; s/queue-name: lq}/queue-name: lq-b}/" "$CD/job.tmpl" | K create -f - >/dev/null
job high high
WL_HIGH="" WL_LOW1="" WL_LOW2=""
has_wls() {
    WL_HIGH=$(wl_of high) WL_LOW1=$(wl_of low-1) WL_LOW2=$(wl_of low-2)
    [ -n "$WL_HIGH" ] && [ -n "$WL_LOW1" ] && [ -n "$WL_LOW2" ]
}
wait_for "workloads for the waiting jobs" has_wls
in_line() { [ "$(names "$V1/clusterqueues/cq/pendingworkloads")" = "$WL_HIGH,$WL_LOW1,$WL_LOW2" ]; }
wait_for "three pending in the scheduler's order" in_line

out=$(raw "$V1/clusterqueues/cq/pendingworkloads")
check "kind" contains "$out" '"kind":"PendingWorkloadsSummary","apiVersion":"visibility.kueue.x-k8s.io/v1beta1"'
got=$(echo "$out" | jq_py '";".join("%s %s %d %d %d %s/%s" % (i["metadata"]["name"], i["localQueueName"], i["priority"], i["positionInClusterQueue"], i["positionInLocalQueue"], i["metadata"]["ownerReferences"][0]["kind"], i["metadata"]["ownerReferences"][0]["name"]) for i in d["items"])')
check "names, queues, priorities, positions, owners" eq "$got" \
    "$WL_HIGH lq 1000 0 0 Job/high;$WL_LOW1 lq 0 1 1 Job/low-1;$WL_LOW2 lq-b 0 2 0 Job/low-2"
check "creationTimestamp is the Workload's" eq \
    "$(echo "$out" | jq_py 'd["items"][0]["metadata"]["creationTimestamp"]')" \
    "$(K get workload -n team-a "$WL_HIGH" -o jsonpath='{.metadata.creationTimestamp}')"

check "limit/offset page" eq "$(names "$V1/clusterqueues/cq/pendingworkloads?limit=1&offset=1")" "$WL_LOW1"
check "offset past the end: empty" eq "$(names "$V1/clusterqueues/cq/pendingworkloads?offset=10")" ""
check "a huge limit is capped, not an error" eq \
    "$(names "$V2/clusterqueues/cq/pendingworkloads?limit=99999999999")" "$WL_HIGH,$WL_LOW1,$WL_LOW2"
out=$(raw "$V2/namespaces/team-a/localqueues/lq/pendingworkloads")
check "v1beta2 LocalQueue lq" eq "$(echo "$out" | jq_py '",".join("%s@%d/%d" % (i["metadata"]["name"], i["positionInLocalQueue"], i["positionInClusterQueue"]) for i in d["items"])')" \
    "$WL_HIGH@0/0,$WL_LOW1@1/1"
check "v1beta2 apiVersion" contains "$out" '"apiVersion":"visibility.kueue.x-k8s.io/v1beta2"'
check "LocalQueue lq-b" eq "$(names "$V1/namespaces/team-a/localqueues/lq-b/pendingworkloads")" "$WL_LOW2"

out=$(raw "$V1/clusterqueues/nope/pendingworkloads")
check "unknown ClusterQueue: NotFound" contains "$out" 'clusterqueue.visibility.kueue.x-k8s.io "nope" not found'
out=$(raw "$V1/namespaces/team-a/localqueues/nope/pendingworkloads")
check "unknown LocalQueue: NotFound" contains "$out" 'localqueue.visibility.kueue.x-k8s.io "nope" not found'
out=$(raw "$V1/clusterqueues/cq/pendingworkloads?limit=ten")
check "bad limit: BadRequest naming it" contains "$out" 'for query parameter "limit"'
check "discovery of the group version" contains "$(raw "$V1")" '"name":"clusterqueues/pendingworkloads"'
check "APIGroup" contains "$(raw /apis/visibility.kueue.x-k8s.io)" '"preferredVersion":{"groupVersion":"visibility.kueue.x-k8s.io/v1beta2"'
check "kubectl's own discovery is unaffected" contains "$(K get clusterqueues 2>&1)" "cq"

# a job finishes (deleted): high is admitted, the line moves up
K delete job -n team-a run-1 >/dev/null
wait_for "high admitted" admitted high
moved() { [ "$(names "$V1/clusterqueues/cq/pendingworkloads")" = "$WL_LOW1,$WL_LOW2" ]; }
wait_for "the line moved up" moved
check "positions renumbered" eq \
    "$(raw "$V1/clusterqueues/cq/pendingworkloads" | jq_py '",".join(str(i["positionInClusterQueue"]) for i in d["items"])')" "0,1"

# the aggregator's answer when the backend is gone
stop_pid "$CTL_PID"
out=$(raw "$V1/clusterqueues/cq/pendingworkloads")
check "controller stopped: 503 from the proxy" contains "$out" "error trying to reach service"

ctl_check_log
finish
