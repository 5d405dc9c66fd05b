#!/bin/sh
# turnstile-apiserver + kubectl apply of the
# real crds/ + the seeds' ClusterQueue, LocalQueue and ResourceFlavor YAML
# + kubectl get clusterqueues,localqueues,workloads -A, default kubectl
# flags; plus the Kubeflow PyTorchJob CRD and a PyTorchJob.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ls "$ROOT"/crds/*.yaml >/dev/null 2>&1 || { echo "skip: crds/ not present"; exit 77; }
as_start
# the whole directory, with default flags, as README says
out=$(K apply -f "$ROOT/crds/" 2>&1)
check "kubectl apply -f crds/ exits 0" [ $? -eq 0 ]
check "kubectl apply -f crds/" contains "$out" "customresourcedefinition.apiextensions.k8s.io/workloads.kueue.x-k8s.io created"
out=$(K apply -f "$ROOT/config/external/kubeflow.org_pytorchjobs.yaml" 2>&1)
check "apply PyTorchJob CRD" contains "$out" "created"
out=$(K wait --for=condition=Established --timeout=10s crd --all 2>&1)
check "all CRDs established" contains "$out" "condition met"
if [ "${TS_SERVER:-ours}" = real ]; then
    # kube-apiserver converts v1beta1 through the CRDs' conversion webhook,
    # Turnstile's webhook server (turnstile-apiserver converts in-process)
    . "$ROOT/test/k8s/e2e/lib/k8s.sh"
    wh_start
fi
SEEDS=$ROOT/../shared/samples/seeds
[ -d "$SEEDS" ] || SEEDS=$ROOT/config/samples
out=$(K apply -f "$ROOT/config/samples/namespaces.yaml" 2>&1)
check "namespaces" contains "$out" "created"
for f in cluster-queue-gpu.yaml ai-cluster-queue.yaml multi-team.yaml borrowing-and-reclaim.yaml; do
    [ -f "$SEEDS/$f" ] || continue
    out=$(K apply -f "$SEEDS/$f" 2>&1)
    check "apply seed $f" contains "$out" "created"
done
out=$(K get clusterqueues,localqueues,workloads -A 2>&1)
check "get cq,lq,wl -A (cq)" contains "$out" "clusterqueue.kueue.x-k8s.io/cluster-queue-gpu"
check "get cq,lq,wl -A (lq)" contains "$out" "localqueue.kueue.x-k8s.io/local-queue-a"
out=$(K get resourceflavors 2>&1)
check "resource flavors" contains "$out" "NAME"
out=$(K get cq cluster-queue-gpu -o yaml 2>&1)
check "CRD defaults on real schema" contains "$out" "queueingStrategy: BestEffortFIFO"
# v1beta1 seeds are stored in v1beta2 through Kueue's conversion and read back in
# either version: cohort <-> cohortName survives (it would be pruned otherwise)
out=$(K get clusterqueues.v1beta2.kueue.x-k8s.io multi-team-cq -o jsonpath='{.spec.cohortName}' 2>&1)
check "v1beta1 cohort stored as v1beta2 cohortName" [ "$out" = "ai-cohort" ]
out=$(K get clusterqueues.v1beta1.kueue.x-k8s.io multi-team-cq -o jsonpath='{.apiVersion} {.spec.cohort}' 2>/dev/null)
check "read back as v1beta1 cohort" [ "$out" = "kueue.x-k8s.io/v1beta1 ai-cohort" ]
out=$(K get cq multi-team-cq 2>&1)
check "printer column Cohort" contains "$out" "ai-cohort"
out=$(K patch clusterqueues.v1beta1.kueue.x-k8s.io multi-team-cq --type=merge -p '{"spec":{"cohort":"other"}}' 2>&1)
check "v1beta1 merge patch" contains "$out" "patched"
out=$(K get clusterqueues.v1beta2.kueue.x-k8s.io multi-team-cq -o jsonpath='{.spec.cohortName}' 2>&1)
check "patched through v1beta1, seen in v1beta2" [ "$out" = "other" ]
if [ -f "$SEEDS/pytorchjob-annotated.yaml" ]; then
    out=$(K apply -f "$SEEDS/pytorchjob-annotated.yaml" 2>&1)
    check "pytorchjob seed" contains "$out" "pytorchjob.kubeflow.org/"
fi
finish
