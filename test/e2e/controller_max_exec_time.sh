#!/bin/sh
# kueue.x-k8s.io/max-exec-time-seconds (Kueue's maximumExecutionTimeSeconds):
# the label becomes the Workload's spec.maximumExecutionTimeSeconds; once
# the Job has been admitted that long the Workload is deactivated
# (DeactivationTarget MaximumExecutionTimeExceeded, spec.active=false,
# Evicted DeactivatedDueToMaximumExecutionTimeExceeded, a Warning event)
# and the Job is suspended; a Job without the label runs on.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start
queues_with_cpu 4
ctl_start

sed "s/NAME/short/; s|labels: {|labels: {kueue.x-k8s.io/max-exec-time-seconds: \"2\", |" \
    "$CD/job.tmpl" | pods_run | K create -f - >/dev/null
job long
wait_for "short admitted" admitted short
w=$(wl_of short)
check "spec.maximumExecutionTimeSeconds from the label" \
    eq "$(K get workload -n team-a "$w" -o jsonpath='{.spec.maximumExecutionTimeSeconds}')" 2
wait_for "short running" unsuspended short
deactivated() { [ "$(K get workload -n team-a "$w" -o jsonpath='{.spec.active}')" = false ]; }
evicted() { [ "$(wl_cond short Evicted reason)" = DeactivatedDueToMaximumExecutionTimeExceeded ]; }
WAIT_TENTHS=150 wait_for "short deactivated after 2 s" deactivated
wait_for "short evicted" evicted
wait_for "short suspended" suspended short
out=$(K get events -n team-a 2>&1)
check "Warning event MaximumExecutionTimeExceeded" contains "$out" "The maximum execution time (2s) exceeded"
check "long, without the label, still runs" unsuspended long
check "long still admitted" admitted long

kill -TERM "$CTL_PID"
ctl_check_log
finish
