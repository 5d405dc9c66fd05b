#!/bin/sh
# TFJob and MPIJob end to end: turnstile-apiserver (playing the Kubeflow
# operators with --simulate-job-runtime) + Turnstile's webhook + the
# controller + real kubectl.  Kueue's TFJob example applies unchanged, is
# suspended by the webhook, gets Kueue's Workload (tfjob-NAME-HASH, pod sets
# ps and worker), is admitted, started with the flavor injected, runs and
# finishes.  Two MPIJobs compete for the quota: the second waits with
# Kueue's message and is admitted when the first finishes.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
EX=../shared/samples/kueue-examples
as_start --simulate-job-runtime 2s

K apply -f crds/ >/dev/null
K apply -f config/external/ >/dev/null
K wait --for=condition=Established --timeout=10s crd --all >/dev/null
K apply -f "$EX/admin-single-clusterqueue-setup.yaml" >/dev/null
K patch resourceflavor default-flavor --type=merge -p '{"spec":{"nodeLabels":{"pool":"batch"}}}' >/dev/null

"$CTL" --webhook-only --webhook-port 0 --health-port -1 --webhook-configs-out "$T/webhooks.json" \
    >>"$T/ctl.log" 2>&1 &
PIDS="$PIDS $!"
has_ca() { grep -q caBundle "$T/webhooks.json"; }
wait_for "webhook configurations written" has_ca
K apply -f "$T/webhooks.json" >/dev/null
ctl_start

# Workload helpers for namespace default
wl() { # KIND NAME: the Workload its job owns
    K get workloads -n default -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$2\")]}{.metadata.ownerReferences[0].kind}/{.metadata.name}{\"\\n\"}{end}" |
        sed -n "s|^$1/||p"
}
wlget() { # KIND NAME JSONPATH
    w=$(wl "$1" "$2")
    [ -n "$w" ] && K get workloads -n default "$w" -o jsonpath="$3"
}
cond_is() { # KIND NAME TYPE STATUS
    [ "$(wlget "$1" "$2" "{.status.conditions[?(@.type==\"$3\")].status}")" = "$4" ]
}
job_field() { K get "$1" -n default "$2" -o jsonpath="$3"; }
field_is() { [ "$(job_field "$1" "$2" "$3")" = "$4" ]; }

# --- TFJob: Kueue's example, unchanged -----------------------------------------
out=$(K create -f "$EX/jobs-sample-tfjob.yaml" -o jsonpath='{.spec.runPolicy.suspend}' 2>&1)
check "TFJob suspended by the webhook at creation" eq "$out" "true"
uid=$(job_field tfjob tensorflow-dist-mnist '{.metadata.uid}')
want=$(python3 -c "import hashlib,sys; print('tfjob-tensorflow-dist-mnist-' + hashlib.sha1(('TFJob\nkubeflow.org\ntensorflow-dist-mnist\n' + sys.argv[1]).encode()).hexdigest()[:5])" "$uid")
wait_for "TFJob admitted" cond_is TFJob tensorflow-dist-mnist Admitted True
check "TFJob Workload has Kueue's name" eq "$(wl TFJob tensorflow-dist-mnist)" "$want"
check "TFJob pod sets in Kueue's order" eq "$(wlget TFJob tensorflow-dist-mnist '{.spec.podSets[*].name}/{.spec.podSets[*].count}')" "ps worker/1 2"
check "TFJob Workload owner" eq "$(wlget TFJob tensorflow-dist-mnist '{.metadata.ownerReferences[0].apiVersion} {.metadata.ownerReferences[0].controller}')" "kubeflow.org/v1 true"
check "TFJob reserved quota" eq "$(wlget TFJob tensorflow-dist-mnist '{.status.admission.podSetAssignments[1].resourceUsage.cpu}')" "2"
wait_for "TFJob unsuspended" field_is tfjob tensorflow-dist-mnist '{.spec.runPolicy.suspend}' false
check "TFJob PS template injected" eq "$(job_field tfjob tensorflow-dist-mnist '{.spec.tfReplicaSpecs.PS.template.spec.nodeSelector.pool} {.spec.tfReplicaSpecs.PS.template.metadata.labels.kueue\.x-k8s\.io/podset}')" "batch ps"
check "TFJob Worker template injected" eq "$(job_field tfjob tensorflow-dist-mnist '{.spec.tfReplicaSpecs.Worker.template.metadata.labels.kueue\.x-k8s\.io/podset}')" "worker"
WAIT_TENTHS=200 wait_for "TFJob finished by the simulated operator" cond_is TFJob tensorflow-dist-mnist Finished True
check "TFJob finished reason" eq "$(wlget TFJob tensorflow-dist-mnist '{.status.conditions[?(@.type=="Finished")].reason}')" "Succeeded"

# --- MPIJob: two compete for 9 cpu ------------------------------------------------
mpijob() { # NAME RUNTIME: creates it, prints spec.runPolicy.suspend as created
    cat <<Y | K create -f - -o jsonpath='{.spec.runPolicy.suspend}'
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: $1
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue, team: hpc}
  annotations: {turnstile.dev/simulated-runtime: $2}
spec:
  slotsPerWorker: 1
  runPolicy: {cleanPodPolicy: Running}
  mpiReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {name: w, image: mpi, resources: {requests: {cpu: "4", memory: 1Gi}}}
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - {name: l, image: mpi, resources: {requests: {cpu: "1"}}}
Y
}
check "MPIJob suspended by the webhook at creation" eq "$(mpijob mpi-a 4s)" "true"
wait_for "mpi-a admitted" cond_is MPIJob mpi-a Admitted True
case $(wl MPIJob mpi-a) in mpijob-mpi-a-?????) ok=yes ;; *) ok=no ;; esac
check "MPIJob Workload name" eq "$ok" "yes"
check "no labels copied without labelKeysToCopy" eq "$(wlget MPIJob mpi-a '{.metadata.labels.team}')" ""
check "MPIJob pod sets launcher, worker" eq "$(wlget MPIJob mpi-a '{.spec.podSets[*].name}/{.spec.podSets[*].count}')" "launcher worker/1 2"
wait_for "mpi-a unsuspended" field_is mpijob mpi-a '{.spec.runPolicy.suspend}' false
check "MPIJob launcher injected" eq "$(job_field mpijob mpi-a '{.spec.mpiReplicaSpecs.Launcher.template.spec.nodeSelector.pool}')" "batch"
mpijob mpi-b 1s >/dev/null
waiting() { [ "$(wlget MPIJob mpi-b '{.status.conditions[?(@.type=="QuotaReserved")].reason}')" = WaitingForQuota ]; }
wait_for "mpi-b evaluated" waiting
check "mpi-b waits with Kueue's message" eq "$(wlget MPIJob mpi-b '{.status.conditions[?(@.type=="QuotaReserved")].message}')" \
    "couldn't assign flavors to pod set launcher: insufficient unused quota for cpu in flavor default-flavor, 1 more needed; couldn't assign flavors to pod set worker: insufficient unused quota for cpu in flavor default-flavor, 9 more needed"
check "mpi-b stays suspended" eq "$(job_field mpijob mpi-b '{.spec.runPolicy.suspend}')" "true"
WAIT_TENTHS=300 wait_for "mpi-b admitted once mpi-a finished" cond_is MPIJob mpi-b Admitted True
check "mpi-a finished" eq "$(wlget MPIJob mpi-a '{.status.conditions[?(@.type=="Finished")].status}')" "True"
wait_for "mpi-b unsuspended" field_is mpijob mpi-b '{.spec.runPolicy.suspend}' false

# deleting a Kubeflow job deletes its Workload
K delete mpijob -n default mpi-b >/dev/null
no_wl() { [ -z "$(wl MPIJob mpi-b)" ]; }
wait_for "mpi-b's Workload deleted with the job" no_wl

# integrations.frameworks without kubeflow.org/tfjob: TFJobs are left alone;
# labelKeysToCopy copies the team label onto new Workloads
stop_pid "$CTL_PID"
cat >"$T/config.yaml" <<'Y'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, kubeflow.org/mpijob]
  labelKeysToCopy: [team]
Y
ctl_start --config "$T/config.yaml"
sed 's/name: tensorflow-dist-mnist/name: tf-unmanaged/; /runPolicy/d' "$EX/jobs-sample-tfjob.yaml" | K create -f - >/dev/null
mpijob mpi-c 1s >/dev/null
wait_for "mpi-c admitted (MPIJob still managed)" cond_is MPIJob mpi-c Admitted True
check "integrations.labelKeysToCopy: the job's team label on the Workload" eq "$(wlget MPIJob mpi-c '{.metadata.labels.team}')" "hpc"
check "no Workload for a TFJob when tfjob is not a framework" eq "$(wl TFJob tf-unmanaged)" ""
check "controller says the TFJob integration is off" contains "$(cat "$T/ctl.log")" "kubeflow.org/v1 tfjobs not in integrations.frameworks; not managed"

ctl_check_log
finish
