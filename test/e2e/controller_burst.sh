#!/bin/sh
# Crash safety: 200 Jobs arrive at once for a ClusterQueue with room for
# 50; the controller is killed with SIGKILL in the middle of admitting
# them and restarted.  At no sampled moment are more than 50 Workloads
# admitted or more than 50 Jobs running, and in the end exactly 50 are
# admitted and running (everything that fits), the other 150 pending.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start --no-access-log

K apply -f crds/ >/dev/null
K apply -f "$CD/burst.yaml" >/dev/null
jobs_yaml b 200 >"$T/jobs.yaml"

admitted_n() {
    K get workloads -n team-a -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="QuotaReserved")].status}{"\n"}{end}' | grep -c True
}
running_n() {
    K get jobs -n team-a -o jsonpath='{range .items[*]}{.spec.suspend}{"\n"}{end}' | grep -c false
}
MAX=0
sample() {
    a=$(admitted_n)
    r=$(running_n)
    [ "$a" -gt "$MAX" ] && MAX=$a
    [ "$r" -gt "$MAX" ] && MAX=$r
    [ "$a" -le 50 ] || fail "$a Workloads hold quota, over the 50 that fit"
    [ "$r" -le 50 ] || fail "$r Jobs running, over the 50 that fit"
}

ctl_start
K create -f "$T/jobs.yaml" >/dev/null
# kill it while it is admitting: once some, but not all, hold quota
WAIT_TENTHS=300 wait_for "first admissions" sh -c "[ \$($KUBECTL --kubeconfig $KC get workloads -n team-a -o name | wc -l) -gt 20 ]"
kill -9 "$CTL_PID"
wait "$CTL_PID" 2>/dev/null
sample
before=$a
ctl_start
i=0
while [ $i -lt 40 ]; do
    sample
    [ "$a" -eq 50 ] && [ "$r" -eq 50 ] && break
    sleep 0.5
    i=$((i + 1))
done
sleep 1
sample
check "exactly 50 admitted after the restart (had $before at the kill)" eq "$a" 50
check "exactly 50 running" eq "$r" 50
n=$(K get workloads -n team-a -o name | wc -l)
check "every job has its Workload" eq "$n" 200
cq_counts() {
    [ "$(K get cq cq -o jsonpath='{.status.pendingWorkloads}/{.status.reservingWorkloads}')" = "$1" ]
}
wait_for "ClusterQueue status 150 pending / 50 reserving" cq_counts 150/50
echo "admitted at the kill: $before; most seen at once: $MAX"

kill -TERM "$CTL_PID"
ctl_check_log
finish
