#!/bin/sh
# The controller (build/bin/turnstile) on a real control plane: a Job that
# fits is admitted and unsuspended with its flavor's nodeSelector and
# tolerations; the real job controller creates its Pods; the real
# kube-scheduler binds each to a Node with that flavor's labels (and never
# to another flavor's Node); KWOK runs them and they succeed; the Workload
# becomes Finished and the quota is released.  A second Job that does not fit
# waits suspended with Kueue's pending message and is admitted when the first
# finishes.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
k8s_with_turnstile "$CD/queues.yaml"
# only cpu-1 carries instance-type=on-demand (cluster.sh); the spot node has
# instance-type=spot and the taint the flavor tolerates
K patch clusterqueue cq --type=json \
    -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota","value":"2"}]' >/dev/null
ctl_start
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=300

# rjob NAME PARALLELISM RUNTIME: a Job of PARALLELISM pods of 1 cpu that
# KWOK completes RUNTIME after they run
rjob() {
    cat <<YAML | K create -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  parallelism: $2
  completions: $2
  template:
    metadata:
      annotations: {pod-complete.stage.kwok.x-k8s.io/delay: "$3"}
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, resources: {requests: {cpu: "1", memory: 1Gi}}}
YAML
}

rjob first 2 12s
wait_for "first admitted" admitted first
wait_for "first unsuspended" unsuspended first
rjob second 1 1s
out=$(K get job -n team-a first -o jsonpath='{.spec.template.spec.nodeSelector.instance-type} {.spec.template.spec.tolerations[0].key}')
check "flavor nodeSelector and tolerations injected" eq "$out" "on-demand spot"

two_running() { [ "$(pods_of first | grep -c ' Running$')" -eq 2 ]; }
wait_for "the job controller created 2 pods, the scheduler bound them, KWOK runs them" two_running
pods_of first | sed 's/^/  /'
for n in $(pods_of first | awk '{print $2}'); do
    l=$(K get node "$n" -o jsonpath='{.metadata.labels.instance-type}')
    check "pod bound to node $n of flavor on-demand (instance-type=$l)" eq "$l" on-demand
done

second_waits() { [ "$(wl_cond second QuotaReserved reason)" = WaitingForQuota ]; }
wait_for "second evaluated" second_waits
check "second stays suspended" suspended second
out=$(wl_cond second QuotaReserved message)
check "second waits with Kueue's message" eq "$out" \
    "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 1 more needed"
check "no pod for second" eq "$(pods_of second)" ""
# why-pending against the real cluster, from the controller's own engine
out=$("$BUILD/bin/turnstilectl" explain --kubeconfig "$KC" -n team-a job/second 2>&1)
check "turnstilectl explain (real cluster): reason" contains "$out" "Reason:         WaitingForQuota"
check "turnstilectl explain (real cluster): what would admit it" contains "$out" \
    "fits in flavor on-demand if 1 cpu are freed in ClusterQueue cq"
sed 's/nominalQuota: 2}/nominalQuota: 3}/' "$CD/queues.yaml" >"$T/more.yaml"
out=$("$BUILD/bin/turnstilectl" what-if --kubeconfig "$KC" --change "$T/more.yaml" 2>&1)
check "turnstilectl what-if (real cluster): more quota admits second" contains "$out" "would be admitted"
check "what-if wrote nothing" suspended second

complete() { [ "$(K get job -n team-a "$1" -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}')" = True ]; }
finished() { [ "$(wl_cond "$1" Finished)" = True ]; }
wait_for "first Complete (real job controller, KWOK)" complete first
out=$(K get job -n team-a first -o jsonpath='{.status.succeeded}')
check "first: 2 pods succeeded" eq "$out" 2
wait_for "first's Workload Finished" finished first
out=$(wl_cond first Finished reason)
check "Finished reason" eq "$out" Succeeded
wait_for "second admitted after first finished" admitted second
wait_for "second unsuspended" unsuspended second
wait_for "second Complete" complete second
wait_for "second's Workload Finished" finished second
released() { [ "$(K get cq cq -o jsonpath='{.status.admittedWorkloads}/{.status.reservingWorkloads}')" = 0/0 ]; }
wait_for "quota released" released
out=$(K get cq cq -o jsonpath='{.status.flavorsUsage[0].resources[0].total}')
check "cpu usage back to 0" eq "$out" 0

# GPUs: the multi-team sample (v1beta1, through our conversion webhook); its
# gpu-flavor selects node.kubernetes.io/instance-type=gpu-instance, where the
# real scheduler also has to find nvidia.com/gpu capacity (8 per node)
K create namespace team-b >/dev/null
K apply -f config/samples/multi-team.yaml >/dev/null 2>&1 || fail "multi-team sample not applied"
cat <<'YAML' | K create -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: gpu-train
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: team-a-queue}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata:
      annotations: {pod-complete.stage.kwok.x-k8s.io/delay: 3s}
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "6"}
          limits: {nvidia.com/gpu: "6"}
YAML
wait_for "gpu-train admitted" admitted gpu-train
out=$(K get job -n team-a gpu-train -o jsonpath='{.spec.template.spec.nodeSelector.node\.kubernetes\.io/instance-type}')
check "gpu-flavor nodeSelector injected" eq "$out" gpu-instance
two_gpu_pods() { [ "$(pods_of gpu-train | awk '$2 != "" {print $2}' | sort -u | wc -l)" -eq 2 ]; }
wait_for "gpu-train's 2 pods bound to 2 different GPU nodes (6 of 8 GPUs each)" two_gpu_pods
for n in $(pods_of gpu-train | awk '{print $2}'); do
    l=$(K get node "$n" -o jsonpath='{.metadata.labels.node\.kubernetes\.io/instance-type}')
    check "gpu pod on $n of gpu-flavor" eq "$l" gpu-instance
done
wait_for "gpu-train Complete" complete gpu-train
wait_for "gpu-train's Workload Finished" finished gpu-train
ctl_check_log
[ "$FAILS" -eq 0 ] || {
    K get jobs,pods,workloads -n team-a -o wide
    k8s_logs 10
}
finish
