#!/bin/sh
# waitForPodsReady through the controller (Kueue Configuration file,
# timeout 3s, backoff base 1s): a Job whose pods never get ready is
# evicted with PodsReadyTimeout, suspended with its template restored,
# kept out of the queue for the backoff, then requeued (BackoffFinished)
# and admitted again; with backoffLimitCount 1 its second timeout
# deactivates it (spec.active=false, Evicted DeactivatedDueTo
# RequeuingLimitExceeded, job stopped, quota released, never admitted
# until reactivated); a Job whose pods are ready is left alone.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start

K apply -f crds/ >/dev/null
K apply -f "$CD/queues.yaml" >/dev/null 2>&1
ctl_start --config "$CD/podsready-config.yaml"

job slow
wait_for "slow admitted" admitted slow
wait_for "slow running" unsuspended slow
check "PodsReady False WaitForStart" eq "$(wl_cond slow PodsReady reason)" "WaitForStart"
# PodsReady comes with the admission: one Workload status write, not two
w=$(wl_of slow)
sleep 0.5 # let a redundant write, if any, land
check "one status write for the admission" eq \
    "$(grep -c "method=PUT path=/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/$w/status code=200" "$T/server.log")" 1
evicted() { [ "$(wl_cond slow Evicted reason)" = PodsReadyTimeout ]; }
WAIT_TENTHS=100 wait_for "evicted after the 3 s timeout" evicted
out=$(wl_cond slow Evicted message)
check "Kueue's eviction message" contains "$out" "Exceeded the PodsReady timeout team-a/"
w=$(wl_of slow)
out=$(K get workloads -n team-a "$w" -o jsonpath='{.status.requeueState.count}')
check "requeueState.count 1" eq "$out" "1"
backoff_over() { [ "$(wl_cond slow Requeued reason)" = BackoffFinished ]; }
WAIT_TENTHS=100 wait_for "requeued after the backoff" backoff_over
WAIT_TENTHS=100 wait_for "admitted again" admitted slow
WAIT_TENTHS=100 wait_for "running again" unsuspended slow

out=$(metrics)
check "metric evicted_workloads_total PodsReadyTimeout" contains "$out" 'kueue_evicted_workloads_total{cluster_queue="cq",priority_class="",reason="PodsReadyTimeout",replica_role="standalone",underlying_cause="WaitForStart"}'

# backoffLimitCount 1: the second timeout deactivates it, in Kueue's steps
deactivated() { [ "$(wl_cond slow Evicted reason)" = DeactivatedDueToRequeuingLimitExceeded ]; }
WAIT_TENTHS=150 wait_for "deactivated at the second timeout" deactivated
check "deactivation message" eq "$(wl_cond slow Evicted message)" \
    "The workload is deactivated due to exceeding the maximum number of re-queuing retries"
check "spec.active false" eq "$(K get workloads -n team-a "$w" -o jsonpath='{.spec.active}')" "false"
wait_for "slow stopped" suspended slow
released() { [ -z "$(K get workloads -n team-a "$w" -o jsonpath='{.status.admission}')" ]; }
wait_for "quota released" released
check "DeactivationTarget removed" eq "$(wl_cond slow DeactivationTarget)" ""
check "requeueState cleared" eq "$(K get workloads -n team-a "$w" -o jsonpath='{.status.requeueState}')" ""
out=$(metrics)
check "metric evicted_workloads_total Deactivated" contains "$out" 'kueue_evicted_workloads_total{cluster_queue="cq",priority_class="",reason="Deactivated",replica_role="standalone",underlying_cause="RequeuingLimitExceeded"} 1'

# a job whose pod becomes ready is left running
job fine
wait_for "fine admitted" admitted fine
K patch job fine -n team-a --subresource=status --type=merge -p '{"status":{"active":1,"ready":1}}' >/dev/null
started() { [ "$(wl_cond fine PodsReady reason)" = Started ]; }
wait_for "fine PodsReady Started" started
sleep 4
check "fine not evicted after the timeout" eq "$(wl_cond fine Evicted)" ""
check "fine still running" unsuspended fine
check "slow not admitted while inactive" suspended slow
check "slow's Workload not reserved while inactive" eq "$(wl_cond slow QuotaReserved)" "False"

# reactivated: Requeued Reactivated, admitted and started again
K patch workloads -n team-a "$w" --type=merge -p '{"spec":{"active":true}}' >/dev/null
reactivated() { [ "$(wl_cond slow Requeued reason)" = Reactivated ]; }
wait_for "Requeued Reactivated" reactivated
wait_for "admitted after reactivation" admitted slow
wait_for "running after reactivation" unsuspended slow

kill -TERM "$CTL_PID"
ctl_check_log
finish
