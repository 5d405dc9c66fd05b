#!/bin/sh
# Every installed kubectl 1.27-1.33: the Google Cloud SDK dispatcher picks
# kubectl.1.<minor> from the server's /version, so the server is started
# with each minor; discovery (v2beta1 for 1.27-1.29, v2 after), OpenAPI
# validation on apply, printer columns and short names must work for all.
. "$(dirname "$0")/lib/apiserver.sh"
D=$(dirname "$0")/data
need_kubectl
SDK=/usr/lib/google-cloud-sdk/bin
ran=0
for minor in 27 28 29 30 31 32 33; do
    [ -x "$SDK/kubectl.1.$minor" ] || continue
    ran=$((ran + 1))
    as_start --version-minor "$minor" --no-access-log
    rm -rf "$T/cache"
    out=$(K version -o json 2>&1)
    check "1.$minor: dispatcher picks kubectl 1.$minor" contains "$out" "\"gitVersion\": \"v1.$minor."
    out=$(K apply -f "$D/crd-mini-kueue.yaml" 2>&1)
    check "1.$minor: apply CRDs" contains "$out" "workloads.kueue.x-k8s.io created"
    out=$(K apply -f "$D/queues.yaml" 2>&1)
    check "1.$minor: apply queues" contains "$out" "localqueue.kueue.x-k8s.io/user-queue created"
    out=$(K get cq 2>&1)
    check "1.$minor: get cq" contains "$out" "cluster-queue"
    out=$(K get workloads -A 2>&1)
    check "1.$minor: workload columns" contains "$out" "NAMESPACE   NAME               QUEUE        RESERVED IN   ADMITTED   FINISHED   AGE"
    out=$(K apply -f "$D/job.yaml" 2>&1 && K apply -f "$D/job.yaml" 2>&1)
    check "1.$minor: job apply twice" contains "$out" "job.batch/sample-job configured"
    stop_pid "$PID"
done
[ $ran -gt 0 ] || { echo "skip: no versioned kubectl in $SDK"; exit 77; }
finish
