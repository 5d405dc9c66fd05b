#!/bin/sh
# `make run` as README promises: local API server, webhook, controller and
# the samples; the queues and workloads are printed, the samples' jobs are
# admitted, the demo job waits and explain says why.  TS_SERVER=real: the
# same with `make run K8S=real`.
BUILD=${TS_BUILD:-build}
command -v kubectl >/dev/null 2>&1 || { echo "skip: kubectl not installed"; exit 77; }
[ -x "$BUILD/bin/turnstile" ] || { echo "skip: not built"; exit 77; }
# TS_SERVER=real: `make run K8S=real`, on the real control plane
K8S=""
if [ "${TS_SERVER:-ours}" = real ]; then
    K8S=real
    [ -x "$BUILD/k8s/bin/kube-apiserver" ] || { echo "skip: $BUILD/k8s/bin not built (make k8s-bins)"; exit 77; }
fi
out=$(BUILD=$BUILD K8S=$K8S RUN_SECONDS=1 JOB_RUNTIME=60s timeout 180 config/local/run.sh 2>&1)
rc=$?
FAILS=0
has() {
    case "$out" in *"$1"*) ;; *) echo "FAIL: missing '$1'"; FAILS=$((FAILS + 1)) ;; esac
}
[ $rc -eq 0 ] || { echo "FAIL: run.sh exited $rc"; FAILS=$((FAILS + 1)); }
has "clusterqueue.kueue.x-k8s.io/ai-cluster-queue"
has "localqueue.kueue.x-k8s.io/ai-local-queue   ai-cluster-queue    1                   3"
for w in job-data-preprocessing pytorchjob-high-priority-training pytorchjob-pytorch-mnist; do
    echo "$out" | grep -q "^ai-team     $w-[0-9a-f]* *ai-local-queue   ai-cluster-queue   True" ||
        { echo "FAIL: $w not admitted"; FAILS=$((FAILS + 1)); }
done
has "Reason:         WaitingForQuota"
has "What would admit it: fits now with count 2 of 4"
has '"kind":"PendingWorkloadsSummary"'
echo "$out" | grep -q '"name":"job-big-training-[0-9a-f]*","namespace":"ai-team".*"positionInLocalQueue":0' ||
    { echo "FAIL: big-training not first in its LocalQueue's visibility list"; FAILS=$((FAILS + 1)); }
if [ "$K8S" = real ]; then
    # the real job controller made the Pod, kube-scheduler bound it to the
    # flavor's Node (gpu-flavor: instance-type gpu-instance)
    echo "$out" | grep -q '^ai-team  *data-preprocessing-[a-z0-9]*  *[01]/1 .* gpu-a100-[12] ' ||
        { echo "FAIL: data-preprocessing's Pod not on a gpu-flavor Node"; FAILS=$((FAILS + 1)); }
fi
grep -q 'leading; scheduling starts' "$BUILD/run/controller.log" ||
    { echo "FAIL: the controller does not run with leader election"; FAILS=$((FAILS + 1)); }
if [ $FAILS -ne 0 ]; then
    echo "$out" | tail -40
    for f in "$BUILD"/run/*.log; do echo "== $f"; tail -5 "$f"; done
    exit 1
fi
if grep -l -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$BUILD"/run/*.log; then
    echo "FAIL: sanitizer report"
    exit 1
fi
echo ok
