#!/bin/sh
# turnstile-apiserver driven by real kubectl: apply/get/describe/patch/
# delete/wait/get -w, -o yaml|json|wide, short names, printer columns and
# the Status errors kubectl prints.
. "$(dirname "$0")/lib/apiserver.sh"
D=$(dirname "$0")/data
need_kubectl
as_start

out=$(K version 2>&1)
if ours_only "its version"; then
    check "version reports server 1.32" contains "$out" "Server Version: v1.32.0"
else
    check "version reports a server" contains "$out" "Server Version: v1."
fi
out=$(K get ns 2>&1)
check "seeded namespaces" contains "$out" "kube-system"

out=$(K apply -f "$D/crd-mini-kueue.yaml" 2>&1)
check "apply CRDs" contains "$out" "customresourcedefinition.apiextensions.k8s.io/workloads.kueue.x-k8s.io created"
out=$(K wait --for=condition=Established --timeout=10s crd/clusterqueues.kueue.x-k8s.io 2>&1)
check "wait Established" contains "$out" "condition met"
out=$(K apply -f "$D/queues.yaml" 2>&1)
check "apply queues" contains "$out" "workload.kueue.x-k8s.io/job-sample-abc12 created"
out=$(K apply -f "$D/queues.yaml" 2>&1)
check "re-apply unchanged" contains "$out" "clusterqueue.kueue.x-k8s.io/cluster-queue unchanged"

out=$(K get cq 2>&1)
check "short name cq + columns" contains "$out" "NAME            COHORT   PENDING WORKLOADS"
out=$(K get cq -o wide 2>&1)
check "wide shows Strategy" contains "$out" "BestEffortFIFO"
out=$(K get workloads -A 2>&1)
check "get workloads -A header" contains "$out" "NAMESPACE   NAME               QUEUE        RESERVED IN   ADMITTED   FINISHED   AGE"
check "get workloads -A row" contains "$out" "team-a      job-sample-abc12   user-queue"
out=$(K get cq cluster-queue -o yaml 2>&1)
check "-o yaml defaults applied" contains "$out" "queueingStrategy: BestEffortFIFO"
check "-o yaml nested default" contains "$out" "reclaimWithinCohort: Never"
out=$(K get lq -n team-a -o json 2>&1)
check "-o json list" contains "$out" '"kind": "List"'
out=$(K get wl -n team-a -l env=prod -o name 2>&1)
check "label selector" eq "$out" "workload.kueue.x-k8s.io/job-sample-abc12"
out=$(K get wl -n team-a -l 'env in (dev),!foo' -o name 2>&1)
check "label selector in/!" eq "$out" ""

# status subresource + filter columns
out=$(K patch wl job-sample-abc12 -n team-a --subresource=status --type=merge \
    -p '{"status":{"admission":{"clusterQueue":"cluster-queue"},"conditions":[{"type":"Admitted","status":"True","reason":"Admitted","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' 2>&1)
check "status patch" contains "$out" "patched"
out=$(K get workloads -A 2>&1)
check "Admitted column via filter" contains "$out" "user-queue   cluster-queue   True"
out=$(K wait --for=condition=Admitted --timeout=10s -n team-a workload/job-sample-abc12 2>&1)
check "wait Admitted" contains "$out" "condition met"

# 422 naming the field, 415 for SMP on a CR, 404, 409
out=$(K patch cq cluster-queue --type=merge -p '{"spec":{"queueingStrategy":"Bogus"}}' 2>&1)
check "422 enum" contains "$out" 'The ClusterQueue "cluster-queue" is invalid: spec.queueingStrategy: Unsupported value: "Bogus": supported values: "StrictFIFO", "BestEffortFIFO"'
out=$(K patch cq cluster-queue -p '{"spec":{"cohort":"x"}}' 2>&1)
check "415 strategic merge on CR" contains "$out" "application/strategic-merge-patch+json is not supported"
out=$(K get cq nope 2>&1)
check "404 message" contains "$out" 'Error from server (NotFound): clusterqueues.kueue.x-k8s.io "nope" not found'
out=$(K create -f "$D/queues.yaml" 2>&1)
check "409 AlreadyExists" contains "$out" 'Error from server (AlreadyExists): error when creating'
out=$(K patch cq cluster-queue --type=json -p '[{"op":"add","path":"/spec/cohort","value":"team"}]' 2>&1)
check "json patch" contains "$out" "patched"
out=$(K label cq cluster-queue tier=gold 2>&1)
check "label" contains "$out" "labeled"
out=$(K get cq -l tier=gold -o jsonpath='{.items[*].spec.cohort}' 2>&1)
check "patched cohort" eq "$out" "team"
out=$(K describe wl job-sample-abc12 -n team-a 2>&1)
check "describe" contains "$out" "Queue Name:     user-queue"
out=$(K explain cq.spec.queueingStrategy 2>&1)
check "explain from OpenAPI v3" contains "$out" "StrictFIFO"

# get -w sees a change (Table events)
K get cq -w --request-timeout=4s >"$T/watch.out" 2>&1 &
WP=$!
PIDS="$PIDS $WP"
sleep 1
K patch cq cluster-queue --type=merge -p '{"spec":{"cohort":"other"}}' >/dev/null 2>&1
i=0
while [ $i -lt 40 ] && ! grep -q other "$T/watch.out"; do sleep 0.1; i=$((i + 1)); done
check "get -w shows change" contains "$(cat "$T/watch.out")" "cluster-queue   other"
kill $WP 2>/dev/null

# Jobs: defaults, columns, client-side apply (strategic merge keeps fields)
out=$(K apply -f "$D/job.yaml" 2>&1)
check "apply job" contains "$out" "job.batch/sample-job created"
# a suspended Job that never started may change its pods' scheduling
# directives and resources, nothing else (its image is immutable)
sed 's/cpu: 1$/cpu: 2/' "$D/job.yaml" >"$T/job2.yaml"
out=$(K apply -f "$T/job2.yaml" 2>&1)
check "re-apply job (SMP)" contains "$out" "job.batch/sample-job configured"
out=$(K get job sample-job -n team-a -o jsonpath='{.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].args} {.spec.template.spec.containers[0].resources.requests.cpu} {.spec.template.spec.containers[1].env[0].name} {.spec.backoffLimit} {.metadata.generation}' 2>&1)
check "SMP kept args/resources" eq "$out" 'registry.k8s.io/e2e-test-images/agnhost:2.53 ["entrypoint-tester","hello","world"] 2 A 6 2'
sed 's/agnhost:2.53/agnhost:2.54/' "$T/job2.yaml" >"$T/job3.yaml"
out=$(K apply -f "$T/job3.yaml" 2>&1)
check "a suspended Job's image is immutable" contains "$out" "spec.template.spec: Invalid value"
check "a suspended Job's image is immutable" contains "$out" "field is immutable"
out=$(K get jobs -n team-a -o wide 2>&1)
check "job columns" contains "$out" "COMPLETIONS"
check "job wide columns" contains "$out" "dummy-job,sidecar"

# deletes
out=$(K delete wl job-sample-abc12 -n team-a 2>&1)
check "delete workload" contains "$out" 'workload.kueue.x-k8s.io "job-sample-abc12" deleted'
out=$(K delete ns team-a --timeout=10s 2>&1)
check "delete namespace" contains "$out" 'namespace "team-a" deleted'
out=$(K get lq -A 2>&1)
check "namespace contents gone" contains "$out" "No resources found"
out=$(K delete crd workloads.kueue.x-k8s.io 2>&1)
check "delete crd" contains "$out" "deleted"
rm -rf "$T/cache"
out=$(K get workloads 2>&1)
check "resource gone with its CRD" contains "$out" "the server doesn't have a resource type"
finish
