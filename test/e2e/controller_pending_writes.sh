#!/bin/sh
# Pending reasons are written late and coalesced (pkg/controller/tell.c):
# while the messages of waiting workloads change many times (here: the
# ClusterQueue's quota is edited every 0.2 s, which moves the "N more
# needed" of every message), each workload gets at most one write per 5 s
# refresh, and once the changes stop each shows its latest verdict.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start

K apply -f crds/ >/dev/null
K apply -f "$CD/queues.yaml" >/dev/null 2>&1
setq() {
    K patch clusterqueue cq --type=json \
        -p "[{\"op\":\"replace\",\"path\":\"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota\",\"value\":\"$1\"}]" >/dev/null
}
setq 10
ctl_start

# two holders take 8 of 10 cpu
for h in holder holder2; do
    sed "s/NAME/$h/; s/cpu: \"1\"/cpu: \"4\"/" "$CD/job.tmpl" | K create -f - >/dev/null
    wait_for "$h admitted" admitted $h
done
# five waiting jobs of different sizes: each is a head of its own
for n in 3 4 5 6 7; do
    sed "s/NAME/wait$n/; s/cpu: \"1\"/cpu: \"$n\"/" "$CD/job.tmpl" | K create -f - >/dev/null
done
told() { [ "$(wl_cond "wait$1" QuotaReserved reason)" = WaitingForQuota ]; }
for n in 3 4 5 6 7; do
    wait_for "wait$n told it waits for quota" told $n
done
check "the verdict names the missing amount" contains "$(wl_cond wait3 QuotaReserved message)" \
    "insufficient unused quota for cpu in flavor on-demand, 1 more needed"

# 16 quota edits in ~3 s: the old controller wrote every change (16 per
# workload); now each workload gets at most 2 writes (one refresh per 5 s)
mark=$(wc -l <"$T/server.log")
for m in 10100 10200 10300 10400 10500 10600 10700 10800 10900 10950 10960 10970 10980 10990 10995 10999; do
    setq "${m}m"
    sleep 0.2
done
# the last edit (10999m: 2999m free) makes wait3 need 1m more
last_told() {
    wl_cond wait3 QuotaReserved message | grep -q " 1m more needed" &&
        wl_cond wait7 QuotaReserved message | grep -q " 4001m more needed"
}
WAIT_TENTHS=150 wait_for "the latest verdict is written once the edits stop" last_told
sleep 1
for n in 3 4 5 6 7; do
    w=$(wl_of "wait$n")
    writes=$(tail -n +"$mark" "$T/server.log" |
        grep -c "method=PUT path=/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/$w/status code=200")
    check "wait$n: at most 3 status writes for 16 changes (got $writes)" test "$writes" -le 3
done
check "the holders still run" unsuspended holder

kill -TERM "$CTL_PID"
ctl_check_log
finish
