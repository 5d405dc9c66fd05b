#!/bin/sh
# Under a saturated client budget the controller decides only when its
# decisions can be written at once (pkg/controller/sched.c, run_cycle).
# Decided early, admissions would wait in the client's FIFO in the order
# they were decided, and a high-priority Workload created a moment later
# would be admitted after every low-priority one decided before it.  Here the
# budget is 0.5 QPS, the queue has room for all eight Workloads, six low
# ones are created at once and a high one 3 s later: it must be written
# third (at the second token after it appears), not seventh.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start

queues_with_cpu 10
budget_config 0.5 1
ctl_start --config "$T/config.yaml"
sleep 1
for i in 1 2 3 4 5 6; do wl_yaml low-$i 0; done | K apply -f - >/dev/null
sleep 3
wl_yaml high 100 | K apply -f - >/dev/null
for w in low-1 low-2 low-3 low-4 low-5 low-6 high; do
    WAIT_TENTHS=400 wait_for "$w admitted" wl_reserved $w
done
order=$(grep -o "method=PUT path=/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/[a-z0-9-]*/status code=200" "$T/server.log" |
    sed 's|.*/workloads/||; s|/status.*||' | awk '!seen[$0]++' | tr '\n' ' ')
pos=$(echo "$order" | tr ' ' '\n' | grep -n '^high$' | cut -d: -f1)
check "the high-priority Workload is admitted before most low ones (order: $order)" \
    test -n "$pos" -a "${pos:-9}" -le 4

kill -TERM "$CTL_PID"
ctl_check_log
finish
