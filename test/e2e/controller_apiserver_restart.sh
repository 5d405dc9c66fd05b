#!/bin/sh
# The API server dies under the controller: turnstile-apiserver (with
# --data-dir) is killed with SIGKILL and restarted on the same address while
# the controller runs.  The controller's watches break and resume (or
# relist), nothing is admitted twice or beyond quota, and scheduling goes on:
# a job that finishes after the restart lets the waiting one in, a job
# created after the restart gets its Workload.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start_http
PORT=${URL##*:}

K apply -f crds/ >/dev/null
K apply -f "$CD/queues.yaml" >/dev/null 2>&1
ctl_start

job j1
wait_for "j1 admitted" admitted j1
job j2
wait_for "j2 admitted" admitted j2
job j3
j3_waiting() { [ "$(wl_cond j3 QuotaReserved reason)" = WaitingForQuota ]; }
wait_for "j3 waits" j3_waiting

kill -9 "$PID"
wait "$PID" 2>/dev/null
sleep 1 # the controller's watches and requests fail meanwhile
as_start_http "$PORT"
out=$(K get workloads -n team-a -o name | wc -l)
check "Workloads survived the crash" eq "$out" "3"

K patch job j1 -n team-a --subresource=status --type=merge \
    -p '{"status":{"succeeded":1,"conditions":[{"type":"Complete","status":"True","reason":"Completed","lastTransitionTime":"2026-11-22T00:00:00Z"}]}}' >/dev/null
WAIT_TENTHS=300 wait_for "j3 admitted after j1 finished, past the restart" admitted j3
job j4
WAIT_TENTHS=300 wait_for "j4 gets a Workload after the restart" sh -c "[ -n \"\$($KUBECTL --kubeconfig $KC get workloads -n team-a -o name | grep j4)\" ]"
j4_waiting() { [ "$(wl_cond j4 QuotaReserved reason)" = WaitingForQuota ]; }
wait_for "j4 waits for quota" j4_waiting
n=$(K get workloads -n team-a -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="QuotaReserved")].status}{"\n"}{end}' | grep -c True)
check "never beyond quota: j1 finished, j2 and j3 hold it" eq "$n" "3"
out=$(K get jobs -n team-a -o jsonpath='{range .items[*]}{.metadata.name}={.spec.suspend}{" "}{end}')
check "running jobs are exactly the admitted ones" eq "$out" "j1=false j2=false j3=false j4=true "

kill -TERM "$CTL_PID"
ctl_check_log
finish
