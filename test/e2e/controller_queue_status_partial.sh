#!/bin/sh
# Between passes over every queue, the queue status pass visits only the
# queues the engine names as changed (pkg/controller/qstatus.c,
# ts_engine_status_moved()).  Under a saturated client budget (5 writes/s)
# with the default 30 s limit on a held status write, 100 Jobs for lq2,
# whose ClusterQueue has no quota, keep cq2 changing for tens of seconds
# while its status write waits: its pending gauges must still follow the
# Workloads as they come, within a few seconds, not only at the passes
# over every queue (every 10 s).
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start --no-access-log

K apply -f crds/ >/dev/null
K apply -f "$CD/burst.yaml" >/dev/null
K apply -f "$CD/no-quota.yaml" >/dev/null
jobs_yaml r 100 lq2 >"$T/jobs.yaml"

ctl_start --config "$CD/qps5-config.yaml"
wait_for "cq2's first status" sh -c \
    "[ \"\$($KUBECTL --kubeconfig $KC get cq cq2 -o jsonpath='{.status.pendingWorkloads}')\" = 0 ]"
K create -f "$T/jobs.yaml" >/dev/null
created() { K get workloads -n team-a -o name | wc -l; }
# from 3 s in, for 15 s: how far the gauges trail the Workloads created
# (the gauges read first: the count can only be larger than theirs was)
sleep 3
i=0
worst=0
while [ $i -lt 60 ]; do
    m=$(pending_gauges cq2)
    n=$(created)
    [ $((n - m)) -gt "$worst" ] && worst=$((n - m))
    [ "$n" -ge 100 ] && [ "$m" -ge 100 ] && break
    sleep 0.2
    i=$((i + 1))
done
echo "cq2's pending gauges trailed the created Workloads by at most $worst (last: $m of $n)"
[ "$m" -gt 0 ] || fail "cq2's pending gauges never moved"
[ "$worst" -le 20 ] || fail "cq2's pending gauges trailed the created Workloads by $worst"
held=$(K get cq cq2 -o jsonpath='{.status.pendingWorkloads}')
echo "cq2's written status shows $held pending"
all_pending() { [ "$(pending_gauges cq2)" = 100 ]; }
WAIT_TENTHS=600 wait_for "the gauges show the 100 pending Workloads" all_pending

kill -TERM "$CTL_PID"
ctl_check_log
finish
