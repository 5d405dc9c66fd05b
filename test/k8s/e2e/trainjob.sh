#!/bin/sh
# Kubeflow Trainer's TrainJob (trainer.kubeflow.org/v1alpha1) queued as
# Kueue queues it, on the real control plane (no Trainer operator: nothing
# runs it) and, through test/e2e/controller_trainjob.sh, on
# turnstile-apiserver, whose job simulator plays the operator.  A TrainJob
# on a ClusterTrainingRuntime is suspended by the webhook at creation and
# given Kueue's runtime patch; its Workload (trainjob-NAME-HASH) has the
# runtime's pod sets with the TrainJob's overrides (trainer.numNodes,
# resourcesPerNode); admitted, the flavor goes into the runtime patch and
# the job is unsuspended; deactivated, it is suspended and the patch
# restored.  A TrainJob whose runtime does not exist gets no Workload and a
# Warning event, until the runtime is created.  On ours the TrainJob then
# runs again and finishes.
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

runtime() { # KIND NAME [NAMESPACE LINE]: a torch runtime, an initializer and the trainer nodes
    cat <<Y | K apply -f - >/dev/null
apiVersion: trainer.kubeflow.org/v1alpha1
kind: $1
metadata:
  name: $2
  ${3:-}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: dataset-initializer
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer}}
          spec:
            template:
              spec:
                containers:
                - {name: dataset-initializer, image: init, resources: {requests: {cpu: 100m}}}
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                containers:
                - {name: node, image: torch, resources: {requests: {cpu: 250m}}}
Y
}
trainjob() { # NAME RUNTIME KIND NODES CPU: creates it, prints spec.suspend as created
    cat <<Y | K create -f - -o jsonpath='{.spec.suspend}' 2>&1
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  runtimeRef: {name: $2, kind: $3}
  trainer:
    numNodes: $4
    resourcesPerNode: {requests: {cpu: $5}}
Y
}
field() { K get trainjob -n team-a "$1" -o jsonpath="$2"; }
field_is() { [ "$(field "$1" "$2")" = "$3" ]; }
patch_of() { field "$1" "{.spec.runtimePatches[?(@.manager==\"kueue.x-k8s.io/manager\")]$2}"; }
wlget() { K get workload -n team-a "$(wl_of "$1")" -o jsonpath="$2"; }
deactivate() { K patch workload -n team-a "$(wl_of "$1")" --type=merge -p "{\"spec\":{\"active\":$2}}" >/dev/null; }

runtime ClusterTrainingRuntime torch
ctl_start
# the API server picks the webhook configurations up a moment after kubectl apply
first() { [ "$(trainjob tj torch ClusterTrainingRuntime 3 500m)" = true ]; }
wait_for "TrainJob suspended by the webhook at creation" first
check "Kueue's runtime patch added, naming the queue" eq "$(patch_of tj '.trainingRuntimeSpec.template.metadata.labels.kueue\.x-k8s\.io/queue-name')" lq
wait_for "TrainJob admitted" admitted tj
uid=$(field tj '{.metadata.uid}')
want=$($PY -c "import hashlib,sys; print('trainjob-tj-' + hashlib.sha1(('TrainJob\ntrainer.kubeflow.org\ntj\n' + sys.argv[1]).encode()).hexdigest()[:5])" "$uid")
check "TrainJob Workload has Kueue's name" eq "$(wl_of tj)" "$want"
check "pod sets: the runtime's jobs, trainer.numNodes nodes" eq "$(wlget tj '{.spec.podSets[*].name}/{.spec.podSets[*].count}')" "dataset-initializer node/1 3"
check "resourcesPerNode replaces the node container's resources" eq "$(wlget tj '{.spec.podSets[1].template.spec.containers[0].resources.requests.cpu} {.spec.podSets[0].template.spec.containers[0].resources.requests.cpu}')" "500m 100m"
check "TrainJob Workload owner" eq "$(wlget tj '{.metadata.ownerReferences[0].apiVersion} {.metadata.ownerReferences[0].kind}')" "trainer.kubeflow.org/v1alpha1 TrainJob"
wait_for "TrainJob unsuspended" field_is tj '{.spec.suspend}' false
check "the flavor injected through the runtime patch" eq "$(patch_of tj '.trainingRuntimeSpec.template.spec.replicatedJobs[*].name') $(patch_of tj '.trainingRuntimeSpec.template.spec.replicatedJobs[1].template.spec.template.spec.nodeSelector.instance-type') $(patch_of tj '.trainingRuntimeSpec.template.spec.replicatedJobs[1].template.spec.template.spec.tolerations[0].key') $(patch_of tj '.trainingRuntimeSpec.template.spec.replicatedJobs[1].template.spec.template.metadata.labels.kueue\.x-k8s\.io/podset')" \
    "dataset-initializer node on-demand spot node"

# a runtime that does not exist: no Workload, an event, until it is created
check "TrainJob on a missing runtime created" eq "$(trainjob later later TrainingRuntime 2 500m)" true
said() { K get events -n team-a -o jsonpath='{range .items[*]}{.involvedObject.name} {.reason} {.message}{"\n"}{end}' | grep -q "^later ErrWorkloadCompose runtime 'later' not found"; }
wait_for "a Warning event says the runtime is missing" said
check "no Workload without its runtime" eq "$(K get workloads -n team-a -o name | grep -c trainjob-later)" 0
runtime TrainingRuntime later "namespace: team-a"
has_wl() { [ -n "$(wl_of later 2>/dev/null)" ]; }
wait_for "the runtime's arrival creates the Workload" has_wl
check "its pod sets from the namespaced runtime" eq "$(wlget later '{.spec.podSets[*].name}/{.spec.podSets[*].count}')" "dataset-initializer node/1 2"
K delete trainjob -n team-a later >/dev/null

# evicted (deactivated): suspended, then the runtime patch restored
deactivate tj false
wait_for "TrainJob suspended again" field_is tj '{.spec.suspend}' true
check "TrainJob evicted as Kueue says" eq "$(wlget tj '{.status.conditions[?(@.type=="Evicted")].reason}')" Deactivated
restored() { [ -z "$(patch_of tj '.trainingRuntimeSpec.template.spec.replicatedJobs')" ]; }
wait_for "the runtime patch restored" restored
released() { [ "$(wl_cond tj QuotaReserved)" = False ]; }
wait_for "quota released" released

if [ "${TS_SERVER:-real}" = ours ]; then
    # readmitted, it runs for 1s under the simulated operator and finishes
    K annotate trainjob -n team-a tj turnstile.dev/simulated-runtime=1s >/dev/null
    deactivate tj true
    wait_for "TrainJob admitted again" admitted tj
    finished() { [ "$(wl_cond tj Finished)" = True ]; }
    wait_for "TrainJob finished by the simulated operator" finished
    check "finished as it succeeded" eq "$(wl_cond tj Finished reason) $(field tj '{.status.conditions[?(@.type=="Complete")].status}')" "Succeeded True"
fi

ctl_check_log
[ "$FAILS" -eq 0 ] || K get trainjobs,workloads,events -n team-a -o wide
finish
