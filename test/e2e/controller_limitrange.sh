#!/bin/sh
# LimitRange defaults and RuntimeClass overhead in a pod set's requests
# (Kueue's AdjustResources): turnstile-apiserver serves core/v1
# limitranges (with kube-apiserver's defaulting: default -> defaultRequest)
# and node.k8s.io/v1 runtimeclasses; a Job without requests is admitted
# with the namespace's defaults as its usage, a Job with runtimeClassName
# with the class's overhead added; the Workload's spec keeps the job's
# template as it is (Kueue adjusts only its own copy).  A Job above a
# LimitRange's max waits with Kueue's message and is admitted once that
# LimitRange is deleted.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start
queues_with_cpu 8
K apply -f "$CD/limitrange.yaml" -f "$CD/limitrange-max.yaml" >/dev/null

out=$(K get limits -n team-a a-defaults -o jsonpath='{.spec.limits[0].defaultRequest.cpu} {.spec.limits[0].defaultRequest.memory}')
check "limitranges served, defaultRequest defaulted from default" eq "$out" "500m 256Mi"
out=$(K get limitrange -n team-a max -o jsonpath='{.spec.limits[0].default.cpu} {.spec.limits[0].defaultRequest.cpu}')
check "default and defaultRequest defaulted from max" eq "$out" "2 2"
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

big_waits() { [ "$(wl_cond big QuotaReserved reason)" = Pending ] || [ -n "$(wl_cond big QuotaReserved message)" ]; }
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

kill -TERM "$CTL_PID"
ctl_check_log
finish
