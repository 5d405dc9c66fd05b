#!/bin/sh
# Queue status under a saturated client budget (pkg/controller/sched.c):
# a ClusterQueue's or LocalQueue's status write waits while the Workload
# writes use the whole budget, and the controller does not compute a
# waiting status again until its inputs change or the budget has room.
# Once the budget has room it must still be written at once, not when the
# 30 s limit runs out.  Under a budget of 5 writes a second, 25 Jobs for
# queue lq arrive, then 40 for lq2, whose ClusterQueue has no quota: their
# Workloads' creation keeps the budget busy after lq's last admission (a
# write of lq's status then waits), and both of lq's queues must show the
# 25 admissions within 15 s of the last Workload being created (the 40
# pending Workloads' first reasons take 8 s of the budget; the 30 s limit is
# what must not be waited for).  First, a
# status overwritten by hand is put right at once.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start --no-access-log

K apply -f crds/ >/dev/null
K apply -f "$CD/burst.yaml" >/dev/null
K apply -f "$CD/no-quota.yaml" >/dev/null
jobs_yaml q 25 >"$T/jobs.yaml"
jobs_yaml r 40 lq2 >"$T/jobs2.yaml"

ctl_start --config "$CD/qps5-config.yaml"
wait_for "the ClusterQueue's first status" sh -c \
    "[ \"\$($KUBECTL --kubeconfig $KC get cq cq -o jsonpath='{.status.pendingWorkloads}')\" = 0 ]"
# A status written by someone else is put right at the next pass, not when
# the 30 s limit runs out: the object's change alone, with no change in the
# engine, makes the controller compute it again.  (3 s: the passes after
# the first write find the status written, and then skip the queue.)
sleep 3
got=$(K patch cq cq --subresource=status --type=merge -p '{"status":{"pendingWorkloads":99}}' \
    -o jsonpath='{.status.pendingWorkloads}')
[ "$got" = 99 ] || fail "the ClusterQueue's status was not overwritten: $got"
WAIT_TENTHS=60 wait_for "the overwritten status put right within 6 s" sh -c \
    "[ \"\$($KUBECTL --kubeconfig $KC get cq cq -o jsonpath='{.status.pendingWorkloads}')\" = 0 ]"
K create -f "$T/jobs.yaml" >/dev/null
K create -f "$T/jobs2.yaml" >/dev/null
all_created() {
    [ "$(K get workloads -n team-a -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Admitted")].status}{"\n"}{end}' | grep -c True)" -eq 25 ] &&
        [ "$(K get workloads -n team-a -o name | wc -l)" -eq 65 ]
}
WAIT_TENTHS=600 wait_for "25 Workloads admitted and 65 created under 5 writes/s" all_created
counts() { # KIND NAME: pending/reserving/admitted in its status
    K get "$1" "$2" -n team-a -o jsonpath='{.status.pendingWorkloads}/{.status.reservingWorkloads}/{.status.admittedWorkloads}'
}
queues_show() { [ "$(counts cq cq)" = 0/25/25 ] && [ "$(counts lq lq)" = 0/25/25 ]; }
WAIT_TENTHS=150 wait_for "both queues show the 25 admissions within 15 s" queues_show

kill -TERM "$CTL_PID"
ctl_check_log
finish
