#!/bin/sh
# Overdue queue statuses take turns (pkg/controller/qstatus.c).  Under a
# saturated client budget a changed queue status waits for spare budget
# for at most --queue-status-max-wait; after that it is overdue and takes
# a token of a small budget of its own (5 % of the QPS).  Overdue writes
# take those tokens oldest first: a LocalQueue's status must not starve
# behind ClusterQueues whose statuses keep changing (visited first, they
# could take every token).  Under 5 writes/s (0.25 overdue tokens/s)
# and a 2 s limit, 100 Jobs for lq2, whose ClusterQueue has no quota, keep
# the budget busy for about 20 s while both cq2's and lq2's pending counts
# grow: lq2's status must show pending Workloads while fewer than 70 of
# the 100 have been created.  Meanwhile the queue metrics, which need no
# write, must follow the engine.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start --no-access-log

K apply -f crds/ >/dev/null
K apply -f "$CD/burst.yaml" >/dev/null
K apply -f "$CD/no-quota.yaml" >/dev/null
jobs_yaml r 100 lq2 >"$T/jobs.yaml"

ctl_start --config "$CD/qps5-config.yaml" --queue-status-max-wait 2
wait_for "lq2's first status" sh -c \
    "[ \"\$($KUBECTL --kubeconfig $KC get lq lq2 -n team-a -o jsonpath='{.status.pendingWorkloads}')\" = 0 ]"
K create -f "$T/jobs.yaml" >/dev/null
pending() { K get "$1" "$2" -n team-a -o jsonpath='{.status.pendingWorkloads}'; }
created() { K get workloads -n team-a -o name | wc -l; }
i=0
ahead=0
while [ "$(pending lq lq2)" = 0 ] && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
done
n=$(created)
p=$(pending lq lq2)
# the gauges follow the engine each period while the status writes wait
# for their turn: they run ahead of the written status
i=0
while [ $i -lt 50 ] && [ "$ahead" = 0 ]; do
    m=$(pending_gauges cq2)
    s=$(pending cq cq2)
    [ "$m" -gt $((s + 5)) ] && ahead="$m against $s"
    sleep 0.2
    i=$((i + 1))
done
echo "cq2's pending gauges ahead of its written status: $ahead"
[ "$ahead" != 0 ] || fail "cq2's pending gauges did not run ahead of its held status"
echo "lq2 first showed $p pending with $n of 100 Workloads created"
[ "$p" != 0 ] || fail "lq2's status never showed its pending Workloads"
[ "$n" -lt 70 ] || fail "lq2's status waited until $n of 100 Workloads were created (starved behind cq2)"
[ "$(pending cq cq2)" != 0 ] || fail "cq2's status does not show its pending Workloads"
all_pending() { [ "$(pending lq lq2)" = 100 ] && [ "$(pending cq cq2)" = 100 ]; }
WAIT_TENTHS=600 wait_for "both queues show the 100 pending Workloads" all_pending

kill -TERM "$CTL_PID"
ctl_check_log
finish
