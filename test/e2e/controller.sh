#!/bin/sh
# The controller manager (build/bin/turnstile) against turnstile-apiserver,
# driven with real kubectl: Jobs and a PyTorchJob labelled with a queue get
# Workloads, are admitted within quota (unsuspended, flavor nodeLabels and
# tolerations injected), wait with Kueue's message otherwise, release quota
# when they finish or are deleted, and a controller killed with SIGKILL
# restarts without admitting beyond quota.  Queue status columns, events and
# Kueue's metrics (with metrics-config.yaml: the per-flavor ClusterQueue
# gauges and the local_queue_* series) follow.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
D=$CD
as_start

out=$(timeout 20 "$CTL" --kubeconfig "$KC" --metrics-bind-address 0 2>&1)
check "without the CRDs the controller stops and says why" contains "$out" \
    "turnstile: kueue.x-k8s.io/v1beta2 resourceflavors are not served: install the CRDs first (kubectl apply -f crds/)"

K apply -f crds/ >/dev/null
K apply -f config/external/kubeflow.org_pytorchjobs.yaml >/dev/null
K apply -f "$D/queues.yaml" >/dev/null
ctl_start --config "$D/metrics-config.yaml"

# one at a time: timestamps have second precision, so jobs created in the
# same second could be admitted in either order
job j1
wait_for "j1 admitted" admitted j1
job j2
wait_for "j2 admitted" admitted j2
job j3
wait_for "j1 unsuspended" unsuspended j1
out=$(K get job -n team-a j1 -o jsonpath='{.spec.template.spec.nodeSelector.instance-type} {.spec.template.spec.tolerations[0].key}')
check "flavor nodeLabels and tolerations injected" eq "$out" "on-demand spot"
out=$(K get job -n team-a j1 -o jsonpath='{.spec.template.metadata.labels.kueue\.x-k8s\.io/podset}')
check "podset label injected" eq "$out" "main"
j3_evaluated() { [ "$(wl_cond j3 QuotaReserved reason)" = WaitingForQuota ]; }
wait_for "j3 evaluated" j3_evaluated
check "j3 stays suspended" suspended j3
w3=$(wl_of j3)
out=$(K get workloads -n team-a "$w3" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].message}')
check "j3 waits with Kueue's message" eq "$out" \
    "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 1 more needed"
# why-pending on the live cluster, from the same engine
out=$("$BUILD/bin/turnstilectl" explain --kubeconfig "$KC" -n team-a job/j3 2>&1)
check "explain (live): reason" contains "$out" "Reason:         WaitingForQuota"
check "explain (live): numbers" contains "$out" "main       cpu              on-demand        1          0          2"
check "explain (live): what would admit it" contains "$out" "fits in flavor on-demand if 1 cpu are freed in ClusterQueue cq"
sed 's/nominalQuota: 2}/nominalQuota: 3}/' "$D/queues.yaml" >"$T/more.yaml"
out=$("$BUILD/bin/turnstilectl" what-if --kubeconfig "$KC" --change "$T/more.yaml" 2>&1)
check "what-if (live): more quota admits j3" contains "$out" "$w3"
check "what-if (live): admitted" contains "$out" "would be admitted"
check "what-if wrote nothing" suspended j3
out=$(K get workloads -n team-a 2>&1)
check "kubectl get workloads columns" contains "$out" "QUEUE   RESERVED IN   ADMITTED   FINISHED   AGE"
check "admitted row" contains "$out" "$(wl_of j1)   lq      cq            True"
wait_for "cq status counts" sh -c "[ \"\$($KUBECTL --kubeconfig $KC get cq cq -o jsonpath='{.status.pendingWorkloads}/{.status.admittedWorkloads}')\" = 1/2 ]"
out=$(K get lq -n team-a 2>&1)
check "lq columns" contains "$out" "lq     cq             1                   2"
out=$(K get events -n team-a 2>&1)
check "CreatedWorkload event" contains "$out" "CreatedWorkload"
check "Started event" contains "$out" "Admitted by clusterQueue cq"
check "QuotaReserved event on the Workload" contains "$out" "Quota reserved in ClusterQueue cq, wait time since queued was"
check "Admitted event on the Workload" contains "$out" "Admitted by ClusterQueue cq, wait time since reservation was 0s"
check "Warning event for the pending one" contains "$out" "Warning   WaitingForQuota"
# the events name the Workload as written (its uid, and the resourceVersion
# read out of the write's reply)
w1=$(wl_of j1)
ref=$(K get events -n team-a -o jsonpath="{range .items[?(@.reason==\"QuotaReserved\")]}{.involvedObject.name} {.involvedObject.kind} {.involvedObject.uid} {.involvedObject.resourceVersion}{\"\\n\"}{end}" | grep "^$w1 ")
uid=$(K get workload -n team-a "$w1" -o jsonpath='{.metadata.uid}')
check "QuotaReserved names the Workload" contains "$ref" "$w1 Workload $uid "
check "QuotaReserved carries a resourceVersion" test -n "$(echo "$ref" | cut -d' ' -f4)"

out=$(metrics /readyz)
check "readyz once synced" eq "$out" "ok"
out=$(metrics)
check "metric admitted_workloads_total" contains "$out" 'kueue_admitted_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 2'
check "metric quota_reserved_workloads_total" contains "$out" 'kueue_quota_reserved_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 2'
check "metric admission_wait_time_seconds" contains "$out" 'kueue_admission_wait_time_seconds_count{cluster_queue="cq",priority_class="",replica_role="standalone"} 2'
check "metric pending_workloads inadmissible" contains "$out" 'kueue_pending_workloads{cluster_queue="cq",replica_role="standalone",status="inadmissible"} 1'
check "metric cluster_queue_status" contains "$out" 'kueue_cluster_queue_status{cluster_queue="cq",replica_role="standalone",status="active"} 1'
check "metric admission_attempts_total" contains "$out" 'kueue_admission_attempts_total{replica_role="standalone",result="success"}'
# metrics.enableClusterQueueResources and localQueueMetrics (metrics-config.yaml)
has_metric() { metrics | grep -qF "$1"; }
fr='cluster_queue="cq",cohort="",flavor="on-demand",replica_role="standalone"'
wait_for "metric cluster_queue_resource_usage" has_metric "kueue_cluster_queue_resource_usage{$fr,resource=\"cpu\"} 2"
out=$(metrics)
check "metric cluster_queue_resource_reservation" contains "$out" "kueue_cluster_queue_resource_reservation{$fr,resource=\"memory\"} 2.147483648e+09"
check "metric cluster_queue_nominal_quota" contains "$out" "kueue_cluster_queue_nominal_quota{$fr,resource=\"memory\"} 8.589934592e+09"
check "no borrowing/lending limit gauges without limits" eq "$(echo "$out" | grep -c '^kueue_cluster_queue_\(borrowing\|lending\)_limit{')" "0"
lq='name="lq",namespace="team-a"'
wait_for "metric local_queue_reserving_active_workloads" has_metric "kueue_local_queue_reserving_active_workloads{$lq,replica_role=\"standalone\"} 2"
out=$(metrics)
check "metric local_queue_admitted_active_workloads" contains "$out" "kueue_local_queue_admitted_active_workloads{$lq,replica_role=\"standalone\"} 2"
check "metric local_queue_pending_workloads" contains "$out" "kueue_local_queue_pending_workloads{$lq,replica_role=\"standalone\",status=\"inadmissible\"} 1"
check "metric local_queue_quota_reserved_workloads_total" contains "$out" "kueue_local_queue_quota_reserved_workloads_total{$lq,priority_class=\"\",replica_role=\"standalone\"} 2"
check "metric local_queue_admitted_workloads_total" contains "$out" "kueue_local_queue_admitted_workloads_total{$lq,priority_class=\"\",replica_role=\"standalone\"} 2"
check "metric local_queue_admission_wait_time_seconds" contains "$out" "kueue_local_queue_admission_wait_time_seconds_count{$lq,priority_class=\"\",replica_role=\"standalone\"} 2"
check "metric local_queue_status" contains "$out" "kueue_local_queue_status{active=\"True\",$lq,replica_role=\"standalone\"} 1"
check "metric local_queue_resource_usage" contains "$out" "kueue_local_queue_resource_usage{flavor=\"on-demand\",$lq,replica_role=\"standalone\",resource=\"cpu\"} 2"

# waitForPodsReady (on by default in v1beta2): PodsReady follows the job's pods
pods_ready_is() { [ "$(wl_cond j1 PodsReady reason)" = "$1" ]; }
wait_for "PodsReady False WaitForStart while no pod is ready" pods_ready_is WaitForStart
K patch job j1 -n team-a --subresource=status --type=merge -p '{"status":{"active":1,"ready":1}}' >/dev/null
wait_for "PodsReady True Started once the pod is ready" pods_ready_is Started
check "PodsReady status" eq "$(wl_cond j1 PodsReady)" "True"

# j1 completes: its Workload is Finished and j3 gets the quota
K patch job j1 -n team-a --subresource=status --type=merge \
    -p '{"status":{"succeeded":1,"conditions":[{"type":"Complete","status":"True","reason":"Completed","lastTransitionTime":"2026-11-22T00:00:00Z"}]}}' >/dev/null
wait_for "j1's Workload finished" sh -c "[ \"\$($KUBECTL --kubeconfig $KC get workloads -n team-a $(wl_of j1) -o jsonpath='{.status.conditions[?(@.type==\"Finished\")].status}')\" = True ]"
wait_for "j3 admitted after j1 finished" admitted j3
out=$(metrics)
check "metric finished_workloads_total" contains "$out" 'kueue_finished_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 1'
check "metric execution_time_seconds" contains "$out" 'kueue_execution_time_seconds_count{cluster_queue="cq",priority_class="",replica_role="standalone"} 1'
check "metric local_queue_finished_workloads_total" contains "$out" "kueue_local_queue_finished_workloads_total{$lq,priority_class=\"\",replica_role=\"standalone\"} 1"
wait_for "j3 unsuspended" unsuspended j3

# deleting j2 deletes its Workload (owner GC + finalizer removed)
K delete job j2 -n team-a >/dev/null
wait_for "j2's Workload deleted" gone j2

# the PyTorchJob takes the freed quota
K apply -f "$D/pytorchjob.yaml" >/dev/null
wait_for "PyTorchJob admitted" admitted ptj
wait_for "PyTorchJob unsuspended" unsuspended ptj pytorchjob '{.spec.runPolicy.suspend}'
out=$(K get pytorchjob -n team-a ptj -o jsonpath='{.spec.pytorchReplicaSpecs.Master.template.spec.nodeSelector.instance-type}')
check "PyTorchJob template injected" eq "$out" "on-demand"

# crash: SIGKILL, then a new job while quota is full; the restarted
# controller rebuilds usage from the admitted Workloads and keeps it waiting
kill -9 "$CTL_PID"
wait "$CTL_PID" 2>/dev/null
job j4
ctl_start
wait_for "j4 gets a Workload after restart" sh -c "[ -n \"\$($KUBECTL --kubeconfig $KC get workloads -n team-a -o name | grep j4)\" ]"
w4=$(wl_of j4)
wait_for "j4 evaluated" sh -c "[ -n \"\$($KUBECTL --kubeconfig $KC get workloads -n team-a $w4 -o jsonpath='{.status.conditions[?(@.type==\"QuotaReserved\")].reason}')\" ]"
check "no admission beyond quota after restart" suspended j4
out=$(K get workloads -n team-a "$w4" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].reason}')
check "j4 waiting for quota" eq "$out" "WaitingForQuota"
n=$(K get workloads -n team-a -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Admitted")].status}{"\n"}{end}' | grep -c True)
check "exactly three admitted (j1 finished, j3, ptj)" eq "$n" "3"

# SIGTERM: a clean stop
kill -TERM "$CTL_PID"
i=0
while kill -0 "$CTL_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "controller stops on SIGTERM" eq "$(kill -0 "$CTL_PID" 2>/dev/null && echo running)" ""

# SIGTERM while starting: inside its first requests (discovery) to a server
# that accepts and never answers, the controller still stops at once (a
# stop forgotten once its loop runs would leave it running, unkillable but
# by SIGKILL)
$PY -c '
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
kept = []
while True:
    kept.append(s.accept()[0])
    print("accepted", flush=True)' >"$T/mute.out" &
PIDS="$PIDS $!"
wait_for "the mute server listens" test -s "$T/mute.out"
sed "s#server: .*#server: http://127.0.0.1:$(head -1 "$T/mute.out")#" "$KC" >"$T/mute.kc"
$WRAP "$CTL" --kubeconfig "$T/mute.kc" --metrics-bind-address 0 --visibility-bind-address 0 >"$T/mute.log" 2>&1 &
MPID=$!
wait_for "the starting controller asks the mute server" grep -q accepted "$T/mute.out"
kill -TERM "$MPID"
i=0
while kill -0 "$MPID" 2>/dev/null && [ $i -lt $((50 * SLOW)) ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$MPID" 2>/dev/null; then
    fail "a controller SIGTERMed while starting still runs after $((5 * SLOW)) s"
    kill -9 "$MPID"
fi
wait "$MPID"
check "it exits 0 when stopped while starting" eq "$?" 0
check "it says it stopped" grep -q "signal 15: shutting down" "$T/mute.log"
ctl_check_log
finish
