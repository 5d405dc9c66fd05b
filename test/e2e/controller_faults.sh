#!/bin/sh
# The controller against turnstile-apiserver --faults: a third of the replies are cut
# halfway (the request was carried out, the client sees a broken
# connection).  The controller is started eleven times; each time it must
# still tell that kubeflow.org PyTorchJobs are not served (a cut reply
# counted as "served" would start an informer that never syncs, so nothing
# would ever be scheduled); the last one admits jobs.  Then half the writes fail
# with 500 and the Workloads of deleted jobs must still go.  Then every
# reply of a write carried out is cut and the watches lag: an admission
# whose reply was lost is read back, not taken again.  /debug/faults counts
# what was injected.  The test's own requests carry X-Turnstile-Faults: off.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start_http
PORT=${URL##*:}
K apply -f crds/ >/dev/null
K apply -f "$CD/queues.yaml" >/dev/null 2>&1
stop_pid "$PID"
as_start_http "$PORT" --no-access-log --faults seed=11,cut=0.3

x() { # METHOD PATH [curl args]: a request exempt from the faults
    m=$1 p=$2
    shift 2
    curl -s -X "$m" -H 'X-Turnstile-Faults: off' "$@" "$URL$p"
}
mkjob() { # NAME [CPU]
    x POST /apis/batch/v1/namespaces/team-a/jobs -H 'Content-Type: application/json' -d "{\"metadata\":{\"name\":\"$1\",\"labels\":{\"kueue.x-k8s.io/queue-name\":\"lq\"}},\"spec\":{\"suspend\":true,\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"resources\":{\"requests\":{\"cpu\":\"${2:-1}\"}}}]}}}}" >/dev/null
}
reserved() { # JOB: its Workload holds quota
    x GET /apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads | jq_py "any(w['metadata']['ownerReferences'][0]['name'] == '$1' and any(c['type'] == 'QuotaReserved' and c['status'] == 'True' for c in w.get('status', {}).get('conditions', [])) for w in d['items'])" | grep -q True
}
complete() {
    x PATCH "/apis/batch/v1/namespaces/team-a/jobs/$1/status" -H 'Content-Type: application/merge-patch+json' \
        -d '{"status":{"succeeded":1,"conditions":[{"type":"Complete","status":"True","reason":"Completed","lastTransitionTime":"2026-11-22T00:00:00Z"}]}}' >/dev/null
}

started() { [ "$(grep -c 'started against' "$T/ctl.log")" -ge "$1" ]; }
round=1
while [ $round -le 10 ]; do # fast starts: each asks whether PyTorchJobs are served
    ctl_start
    WAIT_TENTHS=300 wait_for "start $round" started $round
    kill -9 "$CTL_PID"
    wait "$CTL_PID" 2>/dev/null
    round=$((round + 1))
done
ctl_start
mkjob r1
WAIT_TENTHS=400 wait_for "r1 admitted under faults" reserved r1
complete r1
mkjob r2
WAIT_TENTHS=400 wait_for "r2 admitted after r1 finished, under faults" reserved r2
kill -9 "$CTL_PID"
wait "$CTL_PID" 2>/dev/null
check "every start found PyTorchJobs not served" eq "$(grep -c 'pytorchjobs not served' "$T/ctl.log")" 11
cuts=$(x GET /debug/faults | jq_py "d['injected']['cut']")
check "cut replies were injected ($cuts)" test "$cuts" -gt 10

# Half the writes fail with 500 (not performed, and a PATCH is not retried
# by the client): deleted jobs' Workloads must still lose Kueue's finalizer
# and go (without waiting for an update event that never comes).
stop_pid "$PID"
as_start_http "$PORT" --no-access-log --faults seed=12,write-500=0.5
ctl_start
for j in d1 d2 d3 d4 d5 d6; do mkjob $j 100m; done
for j in d1 d2 d3 d4 d5 d6; do WAIT_TENTHS=300 wait_for "$j admitted under 500s" reserved $j; done
for j in d1 d2 d3 d4 d5 d6; do
    x DELETE /apis/batch/v1/namespaces/team-a/jobs/$j -H 'Content-Type: application/json' -d '{"propagationPolicy":"Background"}' >/dev/null
done
wls_gone() {
    x GET /apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads | jq_py "[w['metadata']['name'] for w in d['items'] if w['metadata']['name'].startswith('job-d')]" | grep -qx '\[\]'
}
WAIT_TENTHS=300 wait_for "the deleted jobs' Workloads are gone despite failed finalizer patches" wls_gone
fails=$(grep -c 'finalizer removal failed' "$T/ctl.log")
check "some finalizer removals failed and were retried ($fails)" test "$fails" -gt 0

# A write carried out has its reply cut (write-cut=1; refusals are sent
# whole) and the controller's watches run 1-2 s behind (watch-lag=1s): an
# admission's reply is lost, and its retry meets a 409 of its own making
# before the watch shows the admission.  Forgetting that admission, as a
# plain 409 is forgotten, gave its quota to the next Workload in line:
# q1 and q2 both held the ClusterQueue's last free cpu (r2 holds the
# other; here q1 is taken again, a 409 each time, until the watch shows
# it).  The controller reads the Workload back instead.
kill -9 "$CTL_PID"
wait "$CTL_PID" 2>/dev/null
stop_pid "$PID"
as_start_http "$PORT" --faults seed=13,write-cut=1,watch-lag=1s
ctl_start
mkjob b1 1
WAIT_TENTHS=400 wait_for "b1 admitted with every write's reply cut" reserved b1
mkjob q1 1
mkjob q2 1
pending() { # JOB: its Workload exists and waits for quota
    x GET /apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads | jq_py "any(w['metadata']['ownerReferences'][0]['name'] == '$1' and any(c['type'] == 'QuotaReserved' and c['status'] == 'False' for c in w.get('status', {}).get('conditions', [])) for w in d['items'])" | grep -q True
}
WAIT_TENTHS=400 wait_for "q1 waits behind b1" pending q1
WAIT_TENTHS=400 wait_for "q2 waits behind b1" pending q2
sleep $((3 * SLOW)) # the lagging watch has shown the controller both
complete b1
one_reserved() { reserved q1 || reserved q2; }
WAIT_TENTHS=400 wait_for "q1 or q2 admitted once b1 finished" one_reserved
both=0 i=0
while [ $i -lt $((12 * SLOW)) ]; do # the lagging watch shows each write 1-2 s late
    reserved q1 && reserved q2 && both=1
    sleep 0.5
    i=$((i + 1))
done
check "never both q1 and q2 in the one free cpu" eq "$both" 0
check "an admission whose reply was lost was read back and kept" \
    test "$(grep -c 'admission write landed after all' "$T/ctl.log")" -gt 0
if reserved q1; then first=q1 second=q2; else first=q2 second=q1; fi
w=$(wl_of $first)
# the 409s since its last status write that was carried out: the admission
refused=$(grep "method=PUT path=/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/$w/status " \
    "$T/server.log" | awk '/code=200/ { n = 0 } /code=409/ { n++ } END { print n + 0 }')
check "$first's admission was refused once, its own retry, not taken again ($refused)" eq "$refused" 1
# The job's start is such a write too: planned again on the cached job
# (still suspended) until the watch shows the start, it would be refused
# over and over, and a stop planned so would find nothing to stop and
# release the quota under a running job.  Plans wait for a newer copy.
refused=$(grep -c "method=PUT path=/apis/batch/v1/namespaces/team-a/jobs/$first code=409" "$T/server.log")
check "$first's start was refused once, its own retry, not planned again on the old copy ($refused)" \
    eq "$refused" 1
complete $first
WAIT_TENTHS=400 wait_for "$second admitted once $first finished" reserved $second
ctl_check_log
finish
