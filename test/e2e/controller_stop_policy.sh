#!/bin/sh
# stopPolicy through the controller (Kueue's workload controller): Hold on
# a ClusterQueue keeps an admitted Job running and admits nothing new;
# HoldAndDrain evicts it (ClusterQueueStopped, "The ClusterQueue is
# stopped", event EvictedDueToClusterQueueStopped, metric
# evicted_workloads_total), the Job is suspended, its quota released with
# Requeued=False; running again requeues it (ClusterQueueRestarted) and it
# is admitted again.  The same for a LocalQueue (LocalQueueStopped /
# LocalQueueRestarted).
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start
queues_with_cpu 4
ctl_start

stop_cq() { K patch clusterqueue cq --type=merge -p "{\"spec\":{\"stopPolicy\":\"$1\"}}" >/dev/null; }
stop_lq() { K patch localqueue lq -n team-a --type=merge -p "{\"spec\":{\"stopPolicy\":\"$1\"}}" >/dev/null; }
evicted_by() { [ "$(wl_cond "$1" Evicted reason)" = "$2" ]; }
requeued_by() { [ "$(wl_cond "$1" Requeued reason)" = "$2" ] && [ "$(wl_cond "$1" Requeued)" = "$3" ]; }
released() { [ "$(wl_cond "$1" QuotaReserved)" = False ]; }

job a
wait_for "a admitted" admitted a
wait_for "a running" unsuspended a

# Hold: nothing is drained, nothing new admitted
stop_cq Hold
job b
sleep 1
check "Hold keeps a admitted" admitted a
check "Hold keeps a running" unsuspended a
check "Hold admits nothing new" eq "$(wl_cond b QuotaReserved)" "False"

# HoldAndDrain on the ClusterQueue
stop_cq HoldAndDrain
wait_for "a evicted by ClusterQueueStopped" evicted_by a ClusterQueueStopped
check "eviction message" eq "$(wl_cond a Evicted message)" "The ClusterQueue is stopped"
wait_for "a suspended" suspended a
wait_for "a's quota released" released a
wait_for "a Requeued=False ClusterQueueStopped" requeued_by a ClusterQueueStopped False
out=$(K get events -n team-a 2>&1)
check "event EvictedDueToClusterQueueStopped" contains "$out" "EvictedDueToClusterQueueStopped"
out=$(metrics)
check "metric evicted_workloads_total{ClusterQueueStopped}" contains "$out" \
    'kueue_evicted_workloads_total{cluster_queue="cq",priority_class="",reason="ClusterQueueStopped"'
sleep 1
check "a stays pending while the queue is stopped" eq "$(wl_cond a QuotaReserved)" "False"

stop_cq None
wait_for "a requeued: ClusterQueueRestarted" requeued_by a ClusterQueueRestarted True
check "restart message" eq "$(wl_cond a Requeued message)" \
    "The ClusterQueue was restarted after being stopped"
wait_for "a admitted again" admitted a
wait_for "a running again" unsuspended a
wait_for "b admitted once the queue runs" admitted b

# HoldAndDrain on the LocalQueue drains both
stop_lq HoldAndDrain
wait_for "a evicted by LocalQueueStopped" evicted_by a LocalQueueStopped
wait_for "b evicted by LocalQueueStopped" evicted_by b LocalQueueStopped
check "message" eq "$(wl_cond b Evicted message)" "The LocalQueue is stopped"
wait_for "b suspended" suspended b
wait_for "b Requeued=False LocalQueueStopped" requeued_by b LocalQueueStopped False
stop_lq None
wait_for "b requeued: LocalQueueRestarted" requeued_by b LocalQueueRestarted True
wait_for "b admitted again" admitted b
wait_for "a admitted again" admitted a

kill -TERM "$CTL_PID"
ctl_check_log
finish
