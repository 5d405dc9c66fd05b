#!/bin/sh
# waitForPodsReady with real Pod readiness (Kueue Configuration, timeout 3s):
# a Job whose Pod is scheduled and made Ready by KWOK gets PodsReady=True
# (Started) and is left running past the timeout; a Job whose Pod can never
# be scheduled (it asks for a node label no Node has) is evicted with
# PodsReadyTimeout, suspended, its Pod deleted by the real job controller
# and its template restored.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/queues.yaml"
ctl_start --config "$CD/podsready-config.yaml"
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=300

# rjob NAME [EXTRA-NODE-SELECTOR-LABEL]: one pod of 1 cpu, running for 1h
rjob() {
    sel=""
    [ -z "${2:-}" ] || sel="nodeSelector: {$2: \"yes\"}"
    cat <<YAML | K create -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  template:
    metadata:
      annotations: {pod-complete.stage.kwok.x-k8s.io/delay: 1h}
    spec:
      $sel
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, resources: {requests: {cpu: "1", memory: 1Gi}}}
YAML
}

rjob fine
wait_for "fine admitted" admitted fine
started() { [ "$(wl_cond fine PodsReady reason)" = Started ]; }
wait_for "fine: PodsReady True (Started) from the real Pod's readiness" started
check "fine's job reports a ready pod" eq "$(K get job -n team-a fine -o jsonpath='{.status.ready}')" 1
sleep 4
check "fine not evicted after the timeout" eq "$(wl_cond fine Evicted)" ""
check "fine still running" unsuspended fine

rjob slow example.com/no-such-node
wait_for "slow admitted" admitted slow
wait_for "slow unsuspended" unsuspended slow
pending() { pods_of slow | grep -q ' Pending$'; }
wait_for "slow's pod stays Pending (unschedulable)" pending
check "PodsReady False" eq "$(wl_cond slow PodsReady)" False
evicted() { [ "$(wl_cond slow Evicted reason)" = PodsReadyTimeout ]; }
wait_for "slow evicted after the 3 s timeout" evicted
wait_for "slow suspended" suspended slow || {
    grep 'write failed' "$T/ctl.log" | cut -c1-400 | tail -3
    finish
}
wait_for "the job controller deleted slow's pod" no_pods slow
# One read for both halves: the backoff (1 s) re-admits slow soon after, and
# the flavor's label comes back until the second timeout deactivates it.
restored() {
    [ "$(K get job -n team-a slow -o jsonpath='{.spec.template.spec.nodeSelector}')" = \
        '{"example.com/no-such-node":"yes"}' ]
}
wait_for "slow's template restored (flavor nodeSelector removed, its own kept)" restored
ctl_check_log
[ "$FAILS" -eq 0 ] || {
    K get jobs,pods,workloads -n team-a -o wide
    k8s_logs 5
}
finish
