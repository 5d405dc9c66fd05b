#!/bin/sh
# Kueue's ProvisioningRequest admission check through the controller, with
# this script playing the cluster autoscaler (conditions of the
# ProvisioningRequest set through its status subresource): an AdmissionCheck
# of controller kueue.x-k8s.io/provisioning-request is Active only once its
# ProvisioningRequestConfig exists (BadParametersRef with Kueue's message
# before); a Job's Workload with quota gets a ProvisioningRequest
# "<workload>-prov-1" and a PodTemplate "ppt-<request>-main" with Kueue's
# labels, owner, class, parameters, count and the flavor's nodeSelector;
# Provisioned=True makes the check Ready, the Workload Admitted and the Job
# start with the consume-provisioning-request annotation; Failed=True gives
# Retry (requeueAfterSeconds from backoffBaseSeconds), the Workload is
# evicted and requeued, attempt 2 is created and attempt 1 deleted; attempt
# 2 Failed past backoffLimitCount rejects the check and deactivates the
# Workload.
# test/e2e/controller_provisioning.sh runs this on turnstile-apiserver.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/queues.yaml"
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=${WAIT_TENTHS:-300}

cat <<YAML | K apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: prc}
YAML
K patch clusterqueue cq --type=merge \
    -p '{"spec":{"admissionChecksStrategy":{"admissionChecks":[{"name":"prov"}]}}}' >/dev/null
ctl_start

ac_active() { K get admissioncheck prov -o jsonpath="{.status.conditions[?(@.type==\"Active\")].$1}"; }
bad_ref() { [ "$(ac_active reason)" = BadParametersRef ]; }
wait_for "check prov inactive: its config is missing" bad_ref
check "BadParametersRef message (the API server's NotFound)" eq "$(ac_active message)" \
    'provisioningrequestconfigs.kueue.x-k8s.io "prc" not found'

cat <<YAML | K apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {name: prc}
spec:
  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  parameters: {ValidUntilSeconds: "60"}
  managedResources: [cpu]
  retryStrategy: {backoffLimitCount: 1, backoffBaseSeconds: 2, backoffMaxSeconds: 10}
  podSetUpdates:
    nodeSelector:
    - {key: provisioned-zone, valueFromProvisioningClassDetail: zone}
YAML
active() { [ "$(ac_active status)" = True ]; }
wait_for "check prov Active once its config exists" active
check "Active reason" eq "$(ac_active reason)/$(ac_active message)" "Active/The admission check is active"
cq_active() { [ "$(K get clusterqueue cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}')" = True ]; }
wait_for "cq active" cq_active

job a
reserved() { [ "$(wl_cond "$1" QuotaReserved)" = True ]; }
wait_for "a's quota reserved" reserved a
WA=$(wl_of a)
PR1="$WA-prov-1"
pr_get() { K get provisioningrequests.autoscaling.x-k8s.io -n team-a "$1" -o jsonpath="$2" 2>/dev/null; }
pr_exists() { [ -n "$(pr_get "$1" '{.metadata.name}')" ]; }
wait_for "ProvisioningRequest $PR1 created" pr_exists "$PR1"
check "request's class" eq "$(pr_get "$PR1" '{.spec.provisioningClassName}')" check-capacity.autoscaling.x-k8s.io
check "request's parameters" eq "$(pr_get "$PR1" '{.spec.parameters.ValidUntilSeconds}')" 60
check "request's pod set" eq "$(pr_get "$PR1" '{.spec.podSets[0].podTemplateRef.name}={.spec.podSets[0].count}')" "ppt-$PR1-main=1"
check "request's label" eq "$(pr_get "$PR1" '{.metadata.labels.kueue\.x-k8s\.io/managed}')" true
check "request owned by the Workload" eq "$(pr_get "$PR1" '{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].controller}')" "Workload/$WA/true"
PT1="ppt-$PR1-main"
pt_get() { K get podtemplate -n team-a "$1" -o jsonpath="$2" 2>/dev/null; }
check "PodTemplate has the flavor's nodeSelector" eq "$(pt_get "$PT1" '{.template.spec.nodeSelector.instance-type}')" on-demand
check "PodTemplate's requests" eq "$(pt_get "$PT1" '{.template.spec.containers[0].resources.requests.cpu}')" 1
check "PodTemplate's label" eq "$(pt_get "$PT1" '{.metadata.labels.kueue\.x-k8s\.io/managed}')" true
pt_owned_by_pr() { [ "$(pt_get "$PT1" '{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}')" = "ProvisioningRequest/$PR1" ]; }
wait_for "PodTemplate handed over to the request" pt_owned_by_pr
wl_get() { K get workload -n team-a "$(wl_of "$1")" -o jsonpath="$2"; }
check_state() { [ "$(wl_get "$1" '{.status.admissionChecks[0].name}={.status.admissionChecks[0].state}')" = "prov=$2" ]; }
sleep 1
check "a's check Pending" check_state a Pending
check "a not Admitted yet" ne "$(wl_cond a Admitted)" True
check "a's job suspended" suspended a

# pr_cond PR TYPE [MESSAGE] [DETAILS-JSON]: the autoscaler sets a condition
pr_cond() {
    now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    det=${4:-}
    [ -z "$det" ] || det=",\"provisioningClassDetails\":$det"
    K patch provisioningrequests.autoscaling.x-k8s.io -n team-a "$1" --subresource=status --type=merge -p "{\"status\":{\"conditions\":[{\"type\":\"$2\",\"status\":\"True\",\"reason\":\"Test\",\"message\":\"${3:-by the test}\",\"lastTransitionTime\":\"$now\"}]$det}}" >/dev/null ||
        fail "condition $2 of $1 not set"
}
pr_cond "$PR1" Provisioned "capacity is ready" '{"zone":"zone-b"}'
wait_for "a's check Ready" check_state a Ready
check "a's check message from Provisioned" eq "$(wl_get a '{.status.admissionChecks[0].message}')" "capacity is ready"
wait_for "a Admitted once its check is Ready" admitted a
wait_for "a's job started" unsuspended a
jt() { K get job -n team-a a -o jsonpath="{.spec.template.$1}"; }
check "consume-provisioning-request annotation on the job" eq \
    "$(jt 'metadata.annotations.autoscaling\.x-k8s\.io/consume-provisioning-request')" "$PR1"
check "provisioning-class-name annotation on the job" eq \
    "$(jt 'metadata.annotations.autoscaling\.x-k8s\.io/provisioning-class-name')" check-capacity.autoscaling.x-k8s.io
check "nodeSelector from provisioningClassDetails" eq "$(jt 'spec.nodeSelector.provisioned-zone')" zone-b
out=$(K get events -n team-a 2>&1)
check "event ProvisioningRequestCreated" contains "$out" "Created ProvisioningRequest"

# Failed: Retry with backoff, a new attempt, then Rejected past the limit
job b
wait_for "b's quota reserved" reserved b
WB=$(wl_of b)
wait_for "ProvisioningRequest $WB-prov-1 created" pr_exists "$WB-prov-1"
pr_cond "$WB-prov-1" Failed "no capacity"
retry() { [ "$(wl_cond b Evicted reason)" = AdmissionCheck ]; }
wait_for "b evicted by its Retry check" retry
check "requeueAt set" ne "$(wl_get b '{.status.requeueState.requeueAt}')" ""
wait_for "b reserves again after the backoff" reserved b
wait_for "attempt 2 created" pr_exists "$WB-prov-2"
check "b's check message after the failure" eq "$(wl_get b '{.status.admissionChecks[0].message}')" "Retrying after failure: no capacity"
check "b's retryCount" eq "$(wl_get b '{.status.admissionChecks[0].retryCount}')" 1
pr_gone() { ! pr_exists "$1"; }
wait_for "attempt 1 deleted" pr_gone "$WB-prov-1"
pr_cond "$WB-prov-2" Failed "still no capacity"
deact() { [ "$(wl_get b '{.spec.active}')" = false ]; }
wait_for "b deactivated: attempt 2 failed past backoffLimitCount 1" deact
out=$(K get events -n team-a 2>&1)
check "event AdmissionCheckRejected" contains "$out" "still no capacity"
check "a still admitted" admitted a

ctl_check_log
[ "$FAILS" -eq 0 ] || {
    K get workloads -n team-a -o yaml | tail -80
    K get provisioningrequests.autoscaling.x-k8s.io -n team-a -o yaml | tail -60
    tail -30 "$T/ctl.log"
    [ "${TS_SERVER:-real}" = ours ] || k8s_logs 5
}
finish
