#!/bin/sh
# Crash safety on a real control plane: 200 Jobs (through the real admission
# chain, Turnstile's webhook suspending each) arrive at once for a
# ClusterQueue with room for 50; the controller is killed with SIGKILL while
# it admits them and restarted.  At no sampled moment are more than 50
# Workloads holding quota, more than 50 Jobs unsuspended or more than 50 real
# Pods (job controller, scheduler, KWOK) alive; in the end exactly 50 run.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/burst.yaml"

burst_yaml b 200 >"$T/jobs.yaml"

admitted_n() {
    K get workloads -n team-a -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="QuotaReserved")].status}{"\n"}{end}' | grep -c True
}
running_n() {
    K get jobs -n team-a -o jsonpath='{range .items[*]}{.spec.suspend}{"\n"}{end}' | grep -c false
}
pods_n() {
    K get pods -n team-a -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | grep -c .
}
MAX=0
sample() {
    a=$(admitted_n)
    r=$(running_n)
    p=$(pods_n)
    for v in $a $r $p; do [ "$v" -gt "$MAX" ] && MAX=$v; done
    [ "$a" -le 50 ] || fail "$a Workloads hold quota, over the 50 that fit"
    [ "$r" -le 50 ] || fail "$r Jobs unsuspended, over the 50 that fit"
    [ "$p" -le 50 ] || fail "$p Pods exist, over the 50 that fit"
}

ctl_start
# kill it while it admits: the Jobs are still arriving (kubectl in the
# background), some hold quota already
K create -f "$T/jobs.yaml" >"$T/create.out" 2>&1 &
creator=$!
some_admitted() { [ "$(admitted_n)" -gt 5 ]; }
WAIT_TENTHS=600 wait_for "first admissions" some_admitted
kill -9 "$CTL_PID"
wait "$CTL_PID" 2>/dev/null
sample
before=$a
wait "$creator"
check "all 200 Jobs created" eq "$(grep -c created "$T/create.out")" 200
ctl_start
i=0
while [ $i -lt 120 ]; do
    sample
    [ "$a" -eq 50 ] && [ "$r" -eq 50 ] && [ "$p" -eq 50 ] && break
    sleep 1
    i=$((i + 1))
done
sleep 2
sample
check "exactly 50 admitted after the restart (had $before at the kill)" eq "$a" 50
check "exactly 50 Jobs running" eq "$r" 50
check "exactly 50 Pods" eq "$p" 50
bound=$(K get pods -n team-a -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort | uniq -c | tr -s ' ')
check "every Pod on the on-demand node" eq "$bound" " 50 cpu-1"
n=$(K get workloads -n team-a -o name | wc -l)
check "every job has its Workload" eq "$n" 200
cq_counts() {
    [ "$(K get cq cq -o jsonpath='{.status.pendingWorkloads}/{.status.reservingWorkloads}')" = "$1" ]
}
WAIT_TENTHS=300 wait_for "ClusterQueue status 150 pending / 50 reserving" cq_counts 150/50
echo "admitted at the kill: $before; most seen at once: $MAX"
ctl_check_log
finish
