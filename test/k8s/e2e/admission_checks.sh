#!/bin/sh
# Admission checks through the controller, with this script playing the
# check's controller (as a third-party one would, Kueue's AdmissionCheck
# API): a ClusterQueue naming a check that is not Active is inactive
# (AdmissionCheckInactive); once Active, a Job's Workload gets its quota
# with the check Pending and the Job stays suspended; the check Ready with
# a podSetUpdate admits it (event Admitted) and the Job starts with the
# update's nodeSelector; a Retry check evicts the Workload (AdmissionCheck,
# check reset to Pending, retryCount 1), which is requeued (BackoffFinished)
# and reserves again; a Rejected check deactivates it
# (DeactivatedDueToAdmissionCheck, event AdmissionCheckRejected).  A
# Workload created directly (no job) is Admitted once its check is Ready.
# test/e2e/controller_admission_checks.sh runs this on turnstile-apiserver.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/queues.yaml"
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=300

cat <<YAML | K apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: capacity}
spec: {controllerName: example.com/capacity}
YAML
K patch clusterqueue cq --type=merge \
    -p '{"spec":{"admissionChecksStrategy":{"admissionChecks":[{"name":"capacity"}]}}}' >/dev/null
ctl_start

cq_active() { K get clusterqueue cq -o jsonpath="{.status.conditions[?(@.type==\"Active\")].$1}"; }
inactive() { [ "$(cq_active reason)" = AdmissionCheckInactive ]; }
wait_for "cq inactive: its check is not Active" inactive
check "cq's message" eq "$(cq_active message)" \
    "Can't admit new workloads: references inactive AdmissionCheck(s): capacity."

job a
pending_inactive() { [ "$(wl_cond a QuotaReserved message)" = "ClusterQueue cq is inactive" ]; }
wait_for "a waits: ClusterQueue cq is inactive" pending_inactive

# the check's controller says it is active
K patch admissioncheck capacity --subresource=status --type=merge -p "{\"status\":{\"conditions\":[{\"type\":\"Active\",\"status\":\"True\",\"reason\":\"Active\",\"message\":\"ok\",\"lastTransitionTime\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}]}}" >/dev/null ||
    fail "AdmissionCheck status not patched"
active() { [ "$(cq_active status)" = True ]; }
wait_for "cq active once the check is" active
reserved() { [ "$(wl_cond "$1" QuotaReserved)" = True ]; }
wait_for "a's quota reserved" reserved a
wl_get() { K get workload -n team-a "$(wl_of "$1")" -o jsonpath="$2"; }
check_state() { [ "$(wl_get "$1" '{.status.admissionChecks[0].name}={.status.admissionChecks[0].state}')" = "capacity=$2" ]; }
wait_for "a's check capacity Pending" check_state a Pending
sleep 1
check "a not Admitted while its check is Pending" ne "$(wl_cond a Admitted)" True
check "a's job stays suspended" suspended a
check "cq counts a as reserving, not admitted" eq \
    "$(K get clusterqueue cq -o jsonpath='{.status.reservingWorkloads}/{.status.admittedWorkloads}')" "1/0"

# set_check JOB STATE [EXTRA-FIELDS-JSON]: what the check's controller writes
# (WL=NAME: of that Workload instead of the job's)
set_check() {
    extra=${3:-}
    [ -z "$extra" ] || extra=",$extra"
    now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    K patch workload -n team-a "${WL:-$(wl_of "$1")}" --subresource=status --type=merge -p "{\"status\":{\"admissionChecks\":[{\"name\":\"capacity\",\"state\":\"$2\",\"message\":\"$2 by the test\",\"lastTransitionTime\":\"$now\"$extra}]}}" >/dev/null ||
        fail "check of $1 not set to $2"
}

set_check a Ready '"podSetUpdates":[{"name":"main","nodeSelector":{"capacity":"booked"}}]'
wait_for "a Admitted once its check is Ready" admitted a
wait_for "a's job started" unsuspended a
check "the check's podSetUpdate reached the job" eq \
    "$(K get job -n team-a a -o jsonpath='{.spec.template.spec.nodeSelector.capacity}')" booked
check "the flavor's node labels too" eq \
    "$(K get job -n team-a a -o jsonpath='{.spec.template.spec.nodeSelector.instance-type}')" on-demand
out=$(K get events -n team-a --field-selector involvedObject.kind=Workload 2>&1)
check "event Admitted after the check" contains "$out" "wait time since reservation was"

# Retry: evicted, requeued after the backoff, reserved again
job b
wait_for "b's quota reserved" reserved b
wait_for "b's check Pending" check_state b Pending
set_check b Retry '"requeueAfterSeconds":4'
evicted() { [ "$(wl_cond b Evicted reason)" = AdmissionCheck ]; }
wait_for "b evicted by its Retry check" evicted
check "eviction message" eq "$(wl_cond b Evicted message)" "At least one admission check is false"
check "requeueAt set from the check's requeueAfterSeconds" ne "$(wl_get b '{.status.requeueState.requeueAt}')" ""
released() { [ "$(wl_cond b Requeued reason)" = AdmissionCheck ] && [ "$(wl_cond b QuotaReserved)" = False ]; }
wait_for "b released, Requeued=False AdmissionCheck, in backoff" released
check "b's job suspended" suspended b
requeued() { [ "$(wl_cond b Requeued reason)" = BackoffFinished ]; }
wait_for "b requeued (BackoffFinished)" requeued
wait_for "b reserves again" reserved b
wait_for "b's check Pending again" check_state b Pending
check "b's retryCount" eq "$(wl_get b '{.status.admissionChecks[0].retryCount}')" 1
check "b's eviction counted" eq "$(wl_get b '{.status.schedulingStats.evictions[0].reason}={.status.schedulingStats.evictions[0].count}')" AdmissionCheck=1

# Rejected: deactivated
set_check b Rejected
inactive_b() { [ "$(wl_get b '{.spec.active}')" = false ]; }
wait_for "b deactivated by its Rejected check" inactive_b
deact() { [ "$(wl_cond b Evicted reason)" = DeactivatedDueToAdmissionCheck ]; }
wait_for "b evicted: DeactivatedDueToAdmissionCheck" deact
out=$(K get events -n team-a 2>&1)
check "event AdmissionCheckRejected" contains "$out" "AdmissionCheckRejected"
check "a still admitted" admitted a

# a Workload without a job: the same checks, Kueue's workload controller
wl_yaml direct 0 | K create -f - >/dev/null
wait_for "direct's quota reserved" wl_reserved direct
direct_state() { [ "$(K get workload -n team-a direct -o jsonpath='{.status.admissionChecks[0].state}')" = "$1" ]; }
wait_for "direct's check Pending" direct_state Pending
WL=direct set_check "" Ready
direct_admitted() { [ "$(K get workload -n team-a direct -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}')" = True ]; }
wait_for "direct Admitted once its check is Ready" direct_admitted

ctl_check_log
[ "$FAILS" -eq 0 ] || {
    K get workloads -n team-a -o yaml | tail -80
    [ "${TS_SERVER:-real}" = ours ] || k8s_logs 5
}
finish
