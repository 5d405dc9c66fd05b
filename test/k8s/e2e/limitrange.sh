#!/bin/sh
# LimitRange defaults and RuntimeClass overhead on the real control plane
# (Kueue's AdjustResources): kube-apiserver's LimitRange defaulting, then a
# Job without requests admitted with the namespace's defaults as its usage,
# a Job with runtimeClassName with the class's overhead added, the
# Workload's template left as the job's; a Job above a LimitRange's max
# waits with Kueue's message until that LimitRange is deleted; a default
# limit below a job's own request makes its requests exceed its limits.
# test/e2e/controller_limitrange.sh runs this on turnstile-apiserver.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/queues.yaml"
K patch clusterqueue cq --type=json \
    -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota","value":"8"}]' >/dev/null
K apply -f "$CD/limitrange.yaml" -f "$CD/limitrange-max.yaml" >/dev/null
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=300

out=$(K get limits -n team-a a-defaults -o jsonpath='{.spec.limits[0].defaultRequest.cpu} {.spec.limits[0].defaultRequest.memory}')
check "kube-apiserver defaults defaultRequest from default" eq "$out" "500m 256Mi"
out=$(K get limitrange -n team-a max -o jsonpath='{.spec.limits[0].default.cpu} {.spec.limits[0].defaultRequest.cpu}')
check "and default and defaultRequest from max" eq "$out" "2 2"
out=$(K get runtimeclass kata -o jsonpath='{.handler} {.overhead.podFixed.cpu}')
check "runtimeclasses served" eq "$out" "kata 250m"

ctl_start
wait_for "lr1 admitted" admitted lr1
wait_for "rc1 admitted" admitted rc1
usage() { K get workload -n team-a "$(wl_of "$1")" -o jsonpath='{.status.admission.podSetAssignments[0].resourceUsage.cpu} {.status.admission.podSetAssignments[0].resourceUsage.memory}'; }
check "lr1: the LimitRange defaults are its requests (2 pods)" eq "$(usage lr1)" "1 512Mi"
check "rc1: its own cpu, the default memory, the RuntimeClass overhead" eq "$(usage rc1)" "1250m 320Mi"
out=$(K get workload -n team-a "$(wl_of lr1)" -o jsonpath='{.spec.podSets[0].template.spec.containers[0].resources}')
check "the Workload's template stays the job's" eq "$out" "{}"
out=$(K get workload -n team-a "$(wl_of rc1)" -o jsonpath='{.spec.podSets[0].template.spec.overhead}')
check "no overhead written into the Workload" eq "$out" ""

big_waits() { [ -n "$(wl_cond big QuotaReserved message)" ]; }
wait_for "big evaluated" big_waits
check "big stays suspended" suspended big
check "big waits with Kueue's LimitRange message" eq "$(wl_cond big QuotaReserved message)" \
    "resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec.containers[0]: Invalid value: [\"cpu\"]: requests must not be above the limitRange max"
K delete limitrange -n team-a max >/dev/null
wait_for "big admitted once the LimitRange is gone" admitted big
check "big's usage" eq "$(usage big)" "3 256Mi"
# a default limit below the job's own request: requests exceed limits
# (Kueue's ValidateResources runs on the adjusted pod sets)
sed "s/NAME/low/" "$CD/job.tmpl" | sed 's/cpu: "1", memory: 1Gi/cpu: "1"/' | K create -f - >/dev/null
low_waits() { [ -n "$(wl_cond low QuotaReserved message)" ]; }
wait_for "low evaluated" low_waits
check "low: the default limit is below its request" eq "$(wl_cond low QuotaReserved message)" \
    "resources validation failed: spec.podSets[0].template.spec.containers[0]: Invalid value: [\"cpu\"]: requests must not exceed its limits"

ctl_check_log
[ "$FAILS" -eq 0 ] || {
    K get jobs,workloads -n team-a -o wide
    [ "${TS_SERVER:-real}" = ours ] || k8s_logs 5
}
finish
