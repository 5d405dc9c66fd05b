#!/bin/sh
# make run: Turnstile on the embedded default.  Starts turnstile-apiserver
# (the local Kubernetes API server, playing the job controller so admitted
# Jobs run and finish), Turnstile's webhook server (registered with the API
# server) and the controller, applies the CRDs and the samples, then shows
# what Kueue users look at: queues and `kubectl get workloads`.
#
#   RUN_SECONDS=N  stop after N seconds instead of waiting for Ctrl-C
#   JOB_RUNTIME=D  how long an admitted job runs (default 20s)
#   BUILD=dir      where the binaries are (default build)
set -u
BUILD=${BUILD:-build}
DIR=$BUILD/run
JOB_RUNTIME=${JOB_RUNTIME:-20s}
BIN=$BUILD/bin

command -v kubectl >/dev/null 2>&1 || {
    echo "make run: kubectl is missing; install with: sudo apt-get install -y kubernetes-client"
    exit 1
}
for b in turnstile-apiserver turnstile; do
    [ -x "$BIN/$b" ] || { echo "make run: $BIN/$b is not built (run make)"; exit 1; }
done

rm -rf "$DIR"
mkdir -p "$DIR"
PIDS=""
stop() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
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
VIS_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null) ||
    VIS_PORT=8082
"$BIN/turnstile-apiserver" --listen 127.0.0.1:0 --kubeconfig-out "$DIR/kubeconfig" \
    --simulate-job-runtime "$JOB_RUNTIME" --no-access-log \
    --webhook-service "turnstile-system/turnstile-visibility-server=127.0.0.1:$VIS_PORT" \
    >"$DIR/apiserver.out" 2>"$DIR/apiserver.log" &
PIDS="$PIDS $!"
wait_file "$DIR/apiserver.out" "serving on"
KUBECONFIG=$(pwd)/$DIR/kubeconfig
export KUBECONFIG
K() { kubectl --cache-dir "$DIR/kubectl-cache" "$@"; }
echo "turnstile-apiserver: $(sed -n 's/^turnstile-apiserver: serving on //p' "$DIR/apiserver.out")"

K apply -f crds/ >/dev/null
K apply -f config/external/ >/dev/null
K apply -f config/visibility/apiservice.yaml >/dev/null
K wait --for=condition=Established --timeout=10s crd --all >/dev/null

"$BIN/turnstile" --webhook-only --webhook-port 0 --health-port -1 \
    --webhook-configs-out "$DIR/webhooks.json" >"$DIR/webhook.log" 2>&1 &
PIDS="$PIDS $!"
wait_file "$DIR/webhook.log" "webhook serving"
wait_file "$DIR/webhooks.json" "caBundle"
K apply -f "$DIR/webhooks.json" >/dev/null
echo "webhook: $(sed -n 's/.*webhook serving port=\([0-9]*\).*/https:\/\/127.0.0.1:\1/p' "$DIR/webhook.log")"

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
echo "\$ kubectl get --raw $VIS      # Kueue's visibility API"
K get --raw "$VIS"
echo
echo
echo "Admitted jobs run for $JOB_RUNTIME (simulated), then finish and free their quota;"
echo "big-training is admitted when the PyTorchJobs finish."
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
