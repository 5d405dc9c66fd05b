#!/bin/sh
# KubeRay's RayJob and RayCluster (ray.io/v1) queued as Kueue queues them,
# on the real control plane (no KubeRay operator: nothing runs them) and,
# through test/e2e/controller_ray.sh, on turnstile-apiserver, whose job
# simulator plays the operator.  Both are suspended by the webhook at
# creation, get Kueue's Workload (rayjob-/raycluster-NAME-HASH; pod sets
# head, the worker groups with replicas x numOfHosts, the RayJob's
# submitter from the CRD's default submissionMode K8sJobMode), are admitted
# with the flavor injected into every template, and deactivated: stopped
# with the templates restored.  On ours the RayJob then runs again and
# finishes.  Kueue's refusals: a RayJob that keeps its cluster, a
# RayCluster that autoscales.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
[ -x "$BUILD/bin/turnstile" ] || { echo "skip: $BUILD/bin/turnstile not built"; exit 77; }
CD=test/e2e/data/controller
if [ "${TS_SERVER:-real}" = ours ]; then as_start --simulate-job-runtime 1h; else as_start_real; fi
crds_apply
wh_start
K apply -f "$CD/queues.yaml" >/dev/null
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=200

head_group() { # INDENT: the head group both kinds use
    sed "s/^/$1/" <<'H'
headGroupSpec:
  rayStartParams: {}
  template:
    spec:
      containers:
      - {name: head, image: rayproject/ray:2.9.0, resources: {requests: {cpu: 250m}}}
H
}
rayjob() { # NAME [EXTRA SPEC LINE]: creates it, prints spec.suspend as created
    cat <<Y | K create -f - -o jsonpath='{.spec.suspend}' 2>&1
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  entrypoint: python -c "print(1)"
  ${2:-shutdownAfterJobFinishes: true}
  rayClusterSpec:
$(head_group '    ')
    workerGroupSpecs:
    - groupName: Small
      replicas: 2
      minReplicas: 1
      maxReplicas: 5
      rayStartParams: {}
      template:
        spec:
          containers:
          - {name: w, image: rayproject/ray:2.9.0, resources: {requests: {cpu: 250m}}}
Y
}
raycluster() { # NAME [AUTOSCALING]
    cat <<Y | K create -f - -o jsonpath='{.spec.suspend}' 2>&1
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  enableInTreeAutoscaling: ${2:-false}
$(head_group '  ')
  workerGroupSpecs:
  - groupName: tpu
    replicas: 1
    numOfHosts: 2
    rayStartParams: {}
    template:
      spec:
        containers:
        - {name: w, image: rayproject/ray:2.9.0, resources: {requests: {cpu: 100m}}}
Y
}
field() { K get "$1" -n team-a "$2" -o jsonpath="$3"; }
field_is() { [ "$(field "$1" "$2" "$3")" = "$4" ]; }
wlget() { K get workload -n team-a "$(wl_of "$1")" -o jsonpath="$2"; }
deactivate() { K patch workload -n team-a "$(wl_of "$1")" --type=merge -p "{\"spec\":{\"active\":$2}}" >/dev/null; }

# the API server picks the webhook configurations up a moment after kubectl apply
refused() { rayjob keep "shutdownAfterJobFinishes: false" | grep -q denied; }
wait_for "the Ray webhooks are called" refused
check "a RayJob keeping its cluster is refused with Kueue's message" contains \
    "$(rayjob keep 'shutdownAfterJobFinishes: false')" \
    'admission webhook "vrayjob.kb.io" denied the request: spec.shutdownAfterJobFinishes: Invalid value: false: a kueue managed job should delete the cluster after finishing'
check "an autoscaling RayCluster is refused with Kueue's message" contains "$(raycluster auto true)" \
    'spec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job can use autoscaling only when the ElasticJobsViaWorkloadSlices feature gate is on and the job is an elastic job'

ctl_start
check "RayJob suspended by the webhook at creation" eq "$(rayjob rj)" true
check "RayCluster suspended by the webhook at creation" eq "$(raycluster rc)" true
check "the CRD defaults submissionMode" eq "$(field rayjob rj '{.spec.submissionMode}')" K8sJobMode
wait_for "RayJob admitted" admitted rj
wait_for "RayCluster admitted" admitted rc
uid=$(field rayjob rj '{.metadata.uid}')
want=$($PY -c "import hashlib,sys; print('rayjob-rj-' + hashlib.sha1(('RayJob\nray.io\nrj\n' + sys.argv[1]).encode()).hexdigest()[:5])" "$uid")
check "RayJob Workload has Kueue's name" eq "$(wl_of rj)" "$want"
check "RayJob pod sets head, small, submitter" eq "$(wlget rj '{.spec.podSets[*].name}/{.spec.podSets[*].count}')" "head small submitter/1 2 1"
check "the submitter is KubeRay's default" eq "$(wlget rj '{.spec.podSets[2].template.spec.containers[0].name} {.spec.podSets[2].template.spec.containers[0].image} {.spec.podSets[2].template.spec.containers[0].resources.requests.cpu}')" \
    "ray-job-submitter rayproject/ray:2.9.0 500m"
check "RayJob Workload owner" eq "$(wlget rj '{.metadata.ownerReferences[0].apiVersion} {.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].controller}')" "ray.io/v1 RayJob true"
check "RayCluster pod sets: replicas x numOfHosts" eq "$(wlget rc '{.spec.podSets[*].name}/{.spec.podSets[*].count}')" "head tpu/1 2"
wait_for "RayJob unsuspended" field_is rayjob rj '{.spec.suspend}' false
wait_for "RayCluster unsuspended" field_is raycluster rc '{.spec.suspend}' false
check "RayJob head injected" eq "$(field rayjob rj '{.spec.rayClusterSpec.headGroupSpec.template.spec.nodeSelector.instance-type} {.spec.rayClusterSpec.headGroupSpec.template.metadata.labels.kueue\.x-k8s\.io/podset}')" "on-demand head"
check "RayJob worker group injected" eq "$(field rayjob rj '{.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.tolerations[0].key} {.spec.rayClusterSpec.workerGroupSpecs[0].template.metadata.labels.kueue\.x-k8s\.io/podset}')" "spot small"
check "RayCluster templates injected" eq "$(field raycluster rc '{.spec.headGroupSpec.template.spec.nodeSelector.instance-type} {.spec.workerGroupSpecs[0].template.metadata.labels.kueue\.x-k8s\.io/podset}')" "on-demand tpu"

# evicted (deactivated): stopped, every template as it was submitted
deactivate rj false
deactivate rc false
wait_for "RayJob suspended again" field_is rayjob rj '{.spec.suspend}' true
wait_for "RayCluster suspended again" field_is raycluster rc '{.spec.suspend}' true
check "RayJob evicted as Kueue says" eq "$(wlget rj '{.status.conditions[?(@.type=="Evicted")].reason}')" Deactivated
check "RayJob templates restored" eq "$(field rayjob rj '{.spec.rayClusterSpec.headGroupSpec.template.spec.nodeSelector}|{.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.tolerations}|{.spec.rayClusterSpec.workerGroupSpecs[0].template.metadata}')" "||"
check "RayCluster templates restored" eq "$(field raycluster rc '{.spec.headGroupSpec.template.spec.nodeSelector}|{.spec.workerGroupSpecs[0].template.metadata}')" "|"
released() { [ "$(wl_cond "$1" QuotaReserved)" = False ]; }
wait_for "RayCluster's quota released (not ready)" released rc

if [ "${TS_SERVER:-real}" = ours ]; then
    # the simulated operator marks it Suspended, so its quota goes back too;
    # readmitted, it runs for 1s and finishes
    wait_for "RayJob's quota released once the operator suspended it" released rj
    K annotate rayjob -n team-a rj turnstile.dev/simulated-runtime=1s >/dev/null
    deactivate rj true
    wait_for "RayJob admitted again" admitted rj
    finished() { [ "$(wl_cond rj Finished)" = True ]; }
    wait_for "RayJob finished by the simulated operator" finished
    check "finished as it succeeded" eq "$(wl_cond rj Finished reason) $(field rayjob rj '{.status.jobStatus}')" "Succeeded SUCCEEDED"
fi

ctl_check_log
[ "$FAILS" -eq 0 ] || K get rayjobs,rayclusters,workloads -n team-a -o wide
finish
