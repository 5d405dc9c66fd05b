#!/bin/sh
# Two controllers with --leader-elect on a real coordination.k8s.io/v1 Lease
# (Kueue's name, c1f6bfd2.kueue.x-k8s.io): one leads and admits, the other
# waits; the leader killed with SIGKILL, the other takes the Lease once it
# expires and admits the next Job; nothing is admitted twice.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/queues.yaml"
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=400

holder() { K get lease -n default c1f6bfd2.kueue.x-k8s.io -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
ctl_start --leader-elect --lease-namespace default --identity ctl-a
A=$CTL_PID
has_holder() { [ -n "$(holder)" ]; }
wait_for "a controller holds the Lease" has_holder
check "ctl-a leads (the only one)" eq "$(holder)" ctl-a
mv "$T/ctl.log" "$T/ctl-a.log"
ctl_start --leader-elect --lease-namespace default --identity ctl-b
B=$CTL_PID
kjob j1
wait_for "j1 admitted by the leader" admitted j1
sleep 2
check "ctl-a still leads" eq "$(holder)" ctl-a
check "ctl-b is not leading" eq "$(grep -c 'leading; scheduling starts' "$T/ctl.log")" 0
dur=$(K get lease -n default c1f6bfd2.kueue.x-k8s.io -o jsonpath='{.spec.leaseDurationSeconds}')
check "leaseDurationSeconds 15 (Kueue's default)" eq "$dur" 15

kill -9 "$A"
wait "$A" 2>/dev/null
PIDS=$(echo "$PIDS" | sed "s/ $A\b//")
b_leads() { [ "$(holder)" = ctl-b ]; }
wait_for "ctl-b takes the Lease after it expires" b_leads
check "ctl-b says it leads" eq "$(grep -c 'leading; scheduling starts' "$T/ctl.log")" 1
kjob j2
wait_for "j2 admitted by the new leader" admitted j2
j3_waits() { [ "$(wl_cond j3 QuotaReserved reason)" = WaitingForQuota ]; }
kjob j3
wait_for "j3 waits (quota 2 cpu, 2 admitted)" j3_waits
check "j1 still admitted, once" eq "$(wl_cond j1 Admitted)" True
out=$(K get cq cq -o jsonpath='{.status.admittedWorkloads}/{.status.pendingWorkloads}')
check "cq counts 2 admitted / 1 pending" eq "$out" 2/1
: "$B"
[ "$FAILS" -eq 0 ] || {
    K get jobs,workloads -n team-a -o wide
    K get cq cq -o yaml | sed -n '/^status:/,$p'
    grep -v 'I metrics' "$T/ctl.log" | tail -20 | cut -c1-300
}
cat "$T/ctl-a.log" >>"$T/ctl.log"
ctl_check_log
finish
