#!/bin/sh
# make run: Turnstile on the embedded default.  Starts turnstile-apiserver
# (the local Kubernetes API server, playing the job controller so admitted
# Jobs run and finish), Turnstile's webhook server (registered with the API
# server) and the controller, applies the CRDs and the samples, then shows
# what Kueue users look at: queues and `kubectl get workloads`.
#
#   RUN_SECONDS=N  stop after N seconds instead of waiting for Ctrl-C
#   JOB_RUNTIME=Ns how long an admitted job runs (default 20s)
#   BUILD=dir      where the binaries are (default build)
#   K8S=real       the real control plane instead (test/k8s/cluster.sh:
#                  etcd, kube-apiserver, kube-controller-manager,
#                  kube-scheduler and KWOK's Nodes from build/k8s/bin, which
#                  `make run K8S=real` builds): the real job controller
#                  creates the Pods, kube-scheduler binds them, KWOK runs them
set -u
BUILD=${BUILD:-build}
DIR=$BUILD/run
JOB_RUNTIME=${JOB_RUNTIME:-20s}
BIN=$BUILD/bin
K8S=${K8S:-}
case "$JOB_RUNTIME" in
*[!0-9]*s | s | *[!0-9s]*) echo "make run: JOB_RUNTIME is seconds, like 20s"; exit 1 ;;
esac

command -v kubectl >/dev/null 2>&1 || {
    echo "make run: kubectl is missing; install with: sudo apt-get install -y kubernetes-client"
    exit 1
}
for b in turnstile-apiserver turnstile; do
    [ -x "$BIN/$b" ] || { echo "make run: $BIN/$b is not built (run make)"; exit 1; }
done

[ -d "$DIR/k8s" ] && test/k8s/cluster.sh down "$DIR/k8s" >/dev/null 2>&1
rm -rf "$DIR"
mkdir -p "$DIR"
PIDS=""
stop() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    [ "$K8S" != real ] || test/k8s/cluster.sh down "$DIR/k8s" >/dev/null 2>&1
}
trap 'stop; exit 0' INT TERM
trap stop EXIT

# wait_file FILE PATTERN: until FILE contains PATTERN (10 s)
wait_file() {
    i=0
    until grep -q "$2" "$1" 2>/dev/null; do
        i=$((i + 1))
        [ $i -lt 200 ] || { echo "make run: timed out waiting for $1"; cat "$DIR"/*.log; exit 1; }
        sleep 0.05
    done
}

# The visibility API's port is chosen first: the API server proxies its
# APIService to it (as kube-aggregator proxies to the Service).
VIS_PORT=$(config/local/free-ports 2>/dev/null) ||
    VIS_PORT=8082
K() { kubectl --kubeconfig "$KUBECONFIG" --cache-dir "$DIR/kubectl-cache" "$@"; }

start_ours() {
    "$BIN/turnstile-apiserver" --listen 127.0.0.1:0 --kubeconfig-out "$DIR/kubeconfig" \
        --simulate-job-runtime "$JOB_RUNTIME" --no-access-log \
        --webhook-service "turnstile-system/turnstile-visibility-server=127.0.0.1:$VIS_PORT" \
        >"$DIR/apiserver.out" 2>"$DIR/apiserver.log" &
    PIDS="$PIDS $!"
    wait_file "$DIR/apiserver.out" "serving on"
    KUBECONFIG=$(pwd)/$DIR/kubeconfig
    echo "turnstile-apiserver: $(sed -n 's/^turnstile-apiserver: serving on //p' "$DIR/apiserver.out")"
    K apply -f crds/ >/dev/null
    K apply -f config/external/ >/dev/null
    K apply -f config/visibility/apiservice.yaml >/dev/null
}

# The real control plane.  CRDs go in by server-side apply (the client-side
# annotation of the biggest is past the real server's size limit); the
# webhook server and the visibility API are reached on loopback through the
# URL of the conversion webhook and an ExternalName Service (cluster.sh
# explains why).
start_real() {
    for b in etcd kube-apiserver kube-controller-manager kube-scheduler kwok; do
        [ -x "$BUILD/k8s/bin/$b" ] || { echo "make run: $BUILD/k8s/bin/$b is not built (make k8s-bins)"; exit 1; }
    done
    secs=${JOB_RUNTIME%s}
    KWOK_POD_RUNTIME_MS=$((secs * 1000)) K8S_BIN=$BUILD/k8s/bin \
        test/k8s/cluster.sh up "$DIR/k8s" >"$DIR/cluster.out" 2>&1 ||
        { cat "$DIR/cluster.out"; echo "make run: the control plane did not start"; exit 1; }
    KUBECONFIG=$(pwd)/$DIR/k8s/kubeconfig
    echo "kube-apiserver: $(sed -n 's/^APISERVER_URL=//p' "$DIR/k8s/env") ($(sed -n 's/^cluster.sh: up in \([0-9]*\) ms.*/up in \1 ms/p' "$DIR/cluster.out"); logs in $DIR/k8s/)"
    K apply --server-side -f crds/ >/dev/null
    K apply --server-side -f config/external/ >/dev/null
    K create namespace turnstile-system >/dev/null
    K create service externalname turnstile-visibility-server -n turnstile-system \
        --external-name 127.0.0.1 >/dev/null
    sed "s/port: 443/port: $VIS_PORT/" config/visibility/apiservice.yaml | K apply -f - >/dev/null
}

# the CRDs' conversion webhook names the in-cluster Service; on the real
# server it is the local webhook server by URL
point_conversion() {
    ca=$(python3 -c "import json,sys
print(json.load(open(sys.argv[1]))['items'][0]['webhooks'][0]['clientConfig']['caBundle'])" "$DIR/webhooks.json")
    for crd in $(K get crd -o name | grep 'kueue.x-k8s.io$'); do
        [ "$(K get "$crd" -o jsonpath='{.spec.conversion.strategy}')" = Webhook ] || continue
        K patch "$crd" --type=merge -p "{\"spec\":{\"conversion\":{\"webhook\":{\"clientConfig\":{\"service\":null,\"url\":\"https://127.0.0.1:$1/convert\",\"caBundle\":\"$ca\"}}}}}" >/dev/null
    done
}

if [ "$K8S" = real ]; then start_real; else start_ours; fi
export KUBECONFIG
K wait --for=condition=Established --timeout=10s crd --all >/dev/null

"$BIN/turnstile" --webhook-only --webhook-port 0 --health-port -1 \
    --webhook-configs-out "$DIR/webhooks.json" >"$DIR/webhook.log" 2>&1 &
PIDS="$PIDS $!"
wait_file "$DIR/webhook.log" "webhook serving"
wait_file "$DIR/webhooks.json" "caBundle"
K apply -f "$DIR/webhooks.json" >/dev/null
WH_PORT=$(sed -n 's/.*webhook serving port=\([0-9]*\).*/\1/p' "$DIR/webhook.log" | head -1)
[ "$K8S" != real ] || point_conversion "$WH_PORT"
echo "webhook: https://127.0.0.1:$WH_PORT"

# with leader election, as Kueue's default Configuration and config/default:
# a controller restarted quickly waits out its predecessor's Lease instead
# of admitting on a view that misses its last writes
K create namespace turnstile-system >/dev/null 2>&1 || true
"$BIN/turnstile" --kubeconfig "$KUBECONFIG" --metrics-bind-address 127.0.0.1:0 \
    --visibility-bind-address "127.0.0.1:$VIS_PORT" --leader-elect \
    --lease-namespace turnstile-system >"$DIR/controller.log" 2>&1 &
PIDS="$PIDS $!"
wait_file "$DIR/controller.log" "started against"
echo "controller: running (logs in $DIR/)"

# namespaces and priority classes first, then queues, then the jobs
K apply -f config/samples/namespaces.yaml -f config/samples/workload-priority-classes.yaml >/dev/null
for f in config/samples/*.yaml; do
    case "$f" in */namespaces.yaml|*/workload-priority-classes.yaml) continue ;; esac
    K apply -f "$f" 2>&1 | grep -v "^Warning: .*deprecated" | sed 's/^/  /'
done
# our own example: a job too big to fit while the samples run
K apply -f config/local/demo-job.yaml | sed 's/^/  /'

sleep 3
echo
echo "\$ kubectl get clusterqueues,localqueues -A"
K get clusterqueues,localqueues -A
echo
echo "\$ kubectl get workloads -A"
K get workloads -A
echo
echo "\$ turnstilectl explain -n ai-team job/big-training"
"$BIN/turnstilectl" explain -n ai-team job/big-training
echo
VIS=/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/ai-team/localqueues/ai-local-queue/pendingworkloads
i=0 # the real aggregator marks the APIService Available after its own check
until [ "$(K get apiservice v1beta2.visibility.kueue.x-k8s.io -o jsonpath='{.status.conditions[?(@.type=="Available")].status}' 2>/dev/null)" = True ] ||
    [ $i -ge 60 ]; do
    sleep 0.5
    i=$((i + 1))
done
echo "\$ kubectl get --raw $VIS      # Kueue's visibility API"
K get --raw "$VIS"
echo
echo
if [ "$K8S" = real ]; then
    echo "Admitted Jobs' Pods are created by kube-controller-manager, bound by kube-scheduler to"
    echo "the KWOK Node of their flavor and run for $JOB_RUNTIME; then the Jobs finish and free their"
    echo "quota.  Nothing runs PyTorchJobs here (no Kubeflow training operator): they stay"
    echo "admitted, and big-training keeps waiting for their quota."
    echo "\$ kubectl get pods -A -o wide     # also: kubectl get nodes --show-labels"
    K get pods -A -o wide
else
    echo "Admitted jobs run for $JOB_RUNTIME (simulated), then finish and free their quota;"
    echo "big-training is admitted when the PyTorchJobs finish."
fi
if [ -n "${RUN_SECONDS:-}" ]; then
    sleep "$RUN_SECONDS"
    echo "\$ kubectl get workloads -A     # $RUN_SECONDS s later"
    K get workloads -A
    exit 0
fi
echo "Try:  export KUBECONFIG=$KUBECONFIG; kubectl get workloads -A -w"
echo "      $BIN/turnstilectl explain -n ai-team job/big-training"
echo "Ctrl-C stops everything."
while :; do sleep 3600; done
