#!/bin/sh
# Preemption through the controller: two low-priority Jobs fill the
# ClusterQueue; a high-priority Job preempts one of them (withinClusterQueue:
# LowerPriority).  The victim's Workload is Evicted/Preempted with Kueue's
# message, the victim Job is suspended with its pod template restored
# exactly (no injected nodeSelector left), its quota is released only then,
# and the high-priority Job is admitted and unsuspended.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start

K apply -f crds/ >/dev/null
K apply -f "$CD/preempt.yaml" >/dev/null
ctl_start

job low1 low
wait_for "low1 admitted" admitted low1
sleep 1.1 # condition times have second precision: make low2 the newer one
job low2 low
wait_for "low2 admitted" admitted low2
wait_for "low2 unsuspended" unsuspended low2
out=$(K get job -n team-a low2 -o jsonpath='{.spec.template.spec.nodeSelector}')
check "low2 got the flavor's nodeSelector" contains "$out" "on-demand"

job high high
wait_for "high admitted" admitted high
wait_for "high unsuspended" unsuspended high
# the newest low-priority workload is Kueue's first candidate
check "low2 evicted" eq "$(wl_cond low2 Evicted)" "True"
check "low2 evicted by preemption" eq "$(wl_cond low2 Evicted reason)" "Preempted"
check "low2 Preempted condition" eq "$(wl_cond low2 Preempted reason)" "InClusterQueue"
out=$(wl_cond low2 Preempted message)
check "preemption message names the preemptor" contains "$out" "Preempted to accommodate a workload (UID:"
wait_for "low2 suspended" suspended low2
out=$(K get job -n team-a low2 -o jsonpath='{.spec.template.spec.nodeSelector}')
check "low2 template restored" eq "$out" ""
check "low2 not admitted" eq "$(wl_cond low2 Admitted)" "False"
check "low1 untouched" eq "$(wl_cond low1 Admitted)" "True"
check "low1 still running" unsuspended low1
out=$(K get events -n team-a 2>&1)
check "Preempted event" contains "$out" "Preempted"

# counted when the victim's status write lands, which may follow the checks above
preempted_metric() {
    metrics | grep -qF 'kueue_preempted_workloads_total{preempting_cluster_queue="cq",reason="InClusterQueue",replica_role="standalone"} 1'
}
wait_for "metric preempted_workloads_total" preempted_metric
out=$(metrics)
check "metric evicted_workloads_total" contains "$out" "kueue_evicted_workloads_total{cluster_queue=\"cq\",priority_class=\"low\",reason=\"Preempted\""

# low2 waits for quota again; finishing high lets it back in
K patch job high -n team-a --subresource=status --type=merge \
    -p '{"status":{"succeeded":1,"conditions":[{"type":"Complete","status":"True","reason":"Completed","lastTransitionTime":"2026-11-22T00:00:00Z"}]}}' >/dev/null
wait_for "low2 readmitted after high finished" admitted low2
wait_for "low2 running again" unsuspended low2

kill -TERM "$CTL_PID"
ctl_check_log
finish
