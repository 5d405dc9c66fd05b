#!/bin/sh
# The job kinds added to the one adapter, on the real control plane (no
# operator runs them: the checks are what Turnstile writes): kubeflow.org/v1
# XGBoostJob, PaddleJob, JAXJob and jobset.x-k8s.io/v1alpha2 JobSet are
# suspended by the webhook on creation, get Kueue's Workload (pod sets in
# Kueue's order; a JobSet's replicas x min(parallelism, completions)), are
# admitted and started with the flavor's node selector, toleration and pod
# set label in every template; a deactivated Workload stops its job and
# restores the templates; a Job whose controller is a JobSet with a queue
# name gets no Workload of its own.  test/e2e/controller_kinds.sh runs this
# on turnstile-apiserver, whose job simulator also finishes the jobs.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
if [ "${TS_SERVER:-real}" = ours ]; then as_start --simulate-job-runtime 1h; else as_start_real; fi
crds_apply
wh_start
K apply -f "$CD/queues.yaml" >/dev/null 2>&1
K patch clusterqueue cq --type=json \
    -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota","value":"40"}]' >/dev/null
ctl_start
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=200

# kubeflow KIND NAME KEY RUNTIME TYPE=REPLICAS...: a Kubeflow job of 1-cpu
# replicas, created unsuspended; prints spec.runPolicy.suspend as created
kubeflow() {
    kind=$1 name=$2 key=$3 rt=$4
    shift 4
    {
        cat <<Y
apiVersion: kubeflow.org/v1
kind: $kind
metadata:
  name: $name
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {turnstile.dev/simulated-runtime: $rt}
spec:
  $key:
Y
        for r in "$@"; do
            cat <<Y
    ${r%=*}:
      replicas: ${r#*=}
      template:
        spec:
          containers:
          - {name: c, image: img, resources: {requests: {cpu: "1"}}}
Y
        done
    } | K create -f - -o jsonpath='{.spec.runPolicy.suspend}'
}

# jobset NAME RUNTIME: driver (1 x 1 pod of 1 cpu) and workers (2 replicas
# x min(3, 2) pods of 500m); prints spec.suspend as created
jobset() {
    cat <<Y | K create -f - -o jsonpath='{.spec.suspend}'
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {turnstile.dev/simulated-runtime: $2}
spec:
  replicatedJobs:
  - name: driver
    template:
      spec:
        parallelism: 1
        completions: 1
        template:
          spec:
            restartPolicy: Never
            containers:
            - {name: d, image: img, resources: {requests: {cpu: "1"}}}
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 3
        completions: 2
        template:
          metadata: {labels: {role: worker}}
          spec:
            restartPolicy: Never
            containers:
            - {name: w, image: img, resources: {requests: {cpu: 500m}}}
Y
}

wlget() { K get workload -n team-a "$(wl_of "$1")" -o jsonpath="$2"; }
field() { K get "$1" -n team-a "$2" -o jsonpath="$3"; }
field_is() { [ "$(field "$1" "$2" "$3")" = "$4" ]; }
PS='metadata.labels.kueue\.x-k8s\.io/podset'
NS='spec.nodeSelector.instance-type'

check "XGBoostJob suspended at creation" eq "$(kubeflow XGBoostJob xgb-a xgbReplicaSpecs 3s Worker=3 Master=1)" true
check "PaddleJob suspended at creation" eq "$(kubeflow PaddleJob paddle-a paddleReplicaSpecs 3s Worker=2 Master=1)" true
check "JAXJob suspended at creation" eq "$(kubeflow JAXJob jax-a jaxReplicaSpecs 3s Worker=4)" true
check "JobSet suspended at creation" eq "$(jobset js-a 3s)" true

wl_named() { # JOB PREFIX: the job's Workload is named PREFIX + 5 hex digits
    case $(wl_of "$1") in "$2"?????) return 0 ;; esac
    return 1
}
# kind plural name key TYPES PODSETS
while read -r kind plural name key types podsets; do
    wait_for "$kind admitted" admitted "$name"
    check "$kind Workload's owner" eq "$(wlget "$name" '{.metadata.ownerReferences[0].apiVersion} {.metadata.ownerReferences[0].kind}')" "kubeflow.org/v1 $kind"
    check "$kind Workload has Kueue's name" wl_named "$name" "$(echo "$kind" | tr 'A-Z' 'a-z')-$name-"
    check "$kind pod sets in Kueue's order" eq "$(wlget "$name" '{range .spec.podSets[*]}{.name}:{.count},{end}')" "$podsets,"
    wait_for "$kind unsuspended" field_is "$plural" "$name" '{.spec.runPolicy.suspend}' false
    for t in $(echo "$types" | tr , ' '); do
        check "$kind $t template: node selector, pod set label" eq \
            "$(field "$plural" "$name" "{.spec.$key.$t.template.$NS} {.spec.$key.$t.template.$PS}")" \
            "on-demand $(echo "$t" | tr 'A-Z' 'a-z')"
    done
done <<'ROWS'
XGBoostJob xgboostjobs xgb-a xgbReplicaSpecs Master,Worker master:1,worker:3
PaddleJob paddlejobs paddle-a paddleReplicaSpecs Master,Worker master:1,worker:2
JAXJob jaxjobs jax-a jaxReplicaSpecs Worker worker:4
ROWS
wait_for "JobSet admitted" admitted js-a
check "JobSet Workload's owner" eq "$(wlget js-a '{.metadata.ownerReferences[0].apiVersion} {.metadata.ownerReferences[0].kind}')" \
    "jobset.x-k8s.io/v1alpha2 JobSet"
check "JobSet Workload has Kueue's name" wl_named js-a jobset-js-a-
check "JobSet pod sets: one per replicated job, replicas x pods" eq \
    "$(wlget js-a '{range .spec.podSets[*]}{.name}:{.count},{end}')" "driver:1,workers:4,"
check "JobSet quota: 1 + 4 x 500m" eq "$(wlget js-a '{.status.admission.podSetAssignments[*].resourceUsage.cpu}')" "1 2"
wait_for "JobSet unsuspended" field_is jobset js-a '{.spec.suspend}' false
RJ='{.spec.replicatedJobs[1].template.spec.template'
check "JobSet workers template injected" eq "$(field jobset js-a "$RJ.$NS} $RJ.$PS} $RJ.spec.tolerations[0].key} $RJ.metadata.labels.role}")" \
    "on-demand workers spot worker"
check "JobSet driver template injected" eq "$(field jobset js-a "{.spec.replicatedJobs[0].template.spec.template.$PS}")" driver

if [ "${TS_SERVER:-real}" = ours ]; then # no operator finishes them on the real plane
    finished() { [ "$(wl_cond "$1" Finished reason)" = Succeeded ]; }
    for j in xgb-a paddle-a jax-a js-a; do
        wait_for "$j finished" finished "$j"
    done
    check "JobSet Completed condition written by the simulator" eq "$(field jobset js-a '{.status.terminalState}')" Completed
fi

# deactivation stops the job and restores every template
check "JobSet js-b suspended at creation" eq "$(jobset js-b 1h)" true
check "JAXJob jax-b suspended at creation" eq "$(kubeflow JAXJob jax-b jaxReplicaSpecs 1h Worker=2)" true
wait_for "js-b unsuspended" field_is jobset js-b '{.spec.suspend}' false
wait_for "jax-b unsuspended" field_is jaxjob jax-b '{.spec.runPolicy.suspend}' false
for j in js-b jax-b; do
    K patch workload -n team-a "$(wl_of $j)" --type=merge -p '{"spec":{"active":false}}' >/dev/null
done
wait_for "js-b suspended once deactivated" field_is jobset js-b '{.spec.suspend}' true
wait_for "js-b templates restored" field_is jobset js-b "$RJ.$NS}" ""
check "js-b labels restored" eq "$(field jobset js-b "$RJ.metadata.labels}")" '{"role":"worker"}'
wait_for "jax-b suspended once deactivated" field_is jaxjob jax-b '{.spec.runPolicy.suspend}' true
wait_for "jax-b template restored" field_is jaxjob jax-b "{.spec.jaxReplicaSpecs.Worker.template.$NS}" ""
released() { [ "$(wl_cond "$1" QuotaReserved)" = False ]; }
wait_for "js-b quota released" released js-b
check "js-b evicted: Deactivated" eq "$(wl_cond js-b Evicted reason)" Deactivated

# a Job controlled by a JobSet with a queue name has no Workload of its own
uid=$(field jobset js-b '{.metadata.uid}')
sed "s/NAME/js-b-workers-0/" "$CD/job.tmpl" |
    sed "s|^  labels: {|  ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: js-b, uid: $uid, controller: true}]\n  labels: {|" |
    K create -f - >/dev/null
check "the JobSet's Job was created" eq "$(field job js-b-workers-0 '{.metadata.ownerReferences[0].kind}')" JobSet
job control # a plain Job created after it: once it has a Workload the child was reconciled
has_wl() { [ -n "$(wl_of "$1")" ]; }
wait_for "control Job has its Workload" has_wl control
check "no Workload for the JobSet's Job" eq "$(wl_of js-b-workers-0)" ""
check "controller logs no error for the kinds" eq "$(grep -c -E 'cannot be reconciled' "$T/ctl.log")" 0

ctl_check_log
[ "$FAILS" -eq 0 ] || {
    K get workloads -n team-a -o wide
    [ "${TS_SERVER:-real}" = ours ] || k8s_logs 5
}
finish
