#!/bin/sh
# Preemption on a real control plane: two low-priority Jobs fill the
# ClusterQueue and run (real Pods, KWOK); a high-priority Job preempts the
# newer one.  The victim is evicted with Kueue's reasons, re-suspended, the
# real job controller deletes its Pods, its pod template is restored (no
# injected nodeSelector left: the real API server only lets a suspended Job
# that has not started change its template), the high-priority Job is
# admitted and runs, and the victim is admitted again when it finishes.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/preempt.yaml"
ctl_start
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=300

# pjob NAME PRIORITY-CLASS RUNTIME: one pod of 1 cpu, done RUNTIME after it runs
pjob() {
    cat <<YAML | K create -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: $2}
spec:
  template:
    metadata:
      annotations: {pod-complete.stage.kwok.x-k8s.io/delay: "$3"}
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, resources: {requests: {cpu: "1", memory: 1Gi}}}
YAML
}
running() { pods_of "$1" | grep -q ' Running$'; }

pjob low1 low 1h
wait_for "low1 admitted" admitted low1
wait_for "low1 running" running low1
sleep 1.1 # condition times have second precision: make low2 the newer one
pjob low2 low 1h
wait_for "low2 admitted" admitted low2
wait_for "low2 running" running low2
out=$(K get job -n team-a low2 -o jsonpath='{.spec.template.spec.nodeSelector}')
check "low2 got the flavor's nodeSelector" contains "$out" "on-demand"

pjob high high 5s
# (a failure here leaves nothing else to see: stop at once)
dump() {
    K get jobs,pods,workloads -n team-a -o wide
    grep -v ' I metrics\| I controller: \(metrics\|visibility\|started\)' "$T/ctl.log" | cut -c1-600 | tail -5
    k8s_logs 5
}
wait_for "high admitted" admitted high || { dump; finish; }
check "low2 evicted by preemption" eq "$(wl_cond low2 Evicted reason)" "Preempted"
check "low2 Preempted condition" eq "$(wl_cond low2 Preempted reason)" "InClusterQueue"
out=$(wl_cond low2 Preempted message)
check "preemption message names the preemptor" contains "$out" "Preempted to accommodate a workload (UID:"
wait_for "low2 suspended" suspended low2 || { dump; finish; }
wait_for "the job controller deleted low2's pod" no_pods low2
restored() { [ -z "$(K get job -n team-a low2 -o jsonpath='{.spec.template.spec.nodeSelector}')" ]; }
wait_for "low2 template restored (nodeSelector removed)" restored
check "low1 untouched" eq "$(wl_cond low1 Admitted)" "True"
check "low1 still running" running low1
wait_for "high unsuspended" unsuspended high
wait_for "high running on a real pod" running high
n=$(pods_of high | awk '{print $2}')
check "high bound to the on-demand node" eq "$(K get node "$n" -o jsonpath='{.metadata.labels.instance-type}')" on-demand
out=$(K get events -n team-a 2>&1)
check "Preempted event" contains "$out" "Preempted"

# high finishes after 5 s (KWOK); low2 is admitted again and runs
wait_for "low2 readmitted after high finished" admitted low2
wait_for "low2 running again" running low2
out=$(K get job -n team-a low2 -o jsonpath='{.spec.template.spec.nodeSelector.instance-type}')
check "low2 nodeSelector injected again" eq "$out" on-demand
ctl_check_log
[ "$FAILS" -eq 0 ] || dump
finish
