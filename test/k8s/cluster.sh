#!/bin/sh
# A real Kubernetes control plane on loopback, from the binaries k8s.mk builds
# into build/k8s/bin (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok).
#
#   test/k8s/cluster.sh up DIR     start everything, state and logs in DIR;
#                                  prints KUBECONFIG=DIR/kubeconfig (admin)
#   test/k8s/cluster.sh down DIR   stop what `up DIR` started (by pid)
#   test/k8s/cluster.sh restart DIR COMPONENT   SIGKILL one component (etcd,
#                                  kube-apiserver, ...) by pid and start it
#                                  again with the same arguments and data;
#                                  waits until it is ready (a fault: issue 43)
#
# Every wait is bounded: a component that exits or does not answer in time
# fails `up` at once with the last lines of its log, and `up` then stops what
# it had started.  Ports are free ones picked on 127.0.0.1; DIR/env has them
# (ETCD_URL, APISERVER_URL, ...) and ADMIN_TOKEN,
# a bearer token of system:masters.  Nodes: four KWOK nodes whose labels match
# the samples' ResourceFlavors (see nodes() below).
#
# The aggregation layer is configured (front-proxy CA and client certificate,
# --requestheader-*), with --enable-aggregator-routing=false: with routing on,
# the API server proxies to a Service's Endpoints, and the real server refuses
# Endpoints in 127.0.0.0/8 ("may not be in the loopback range"); with it off
# an APIService (and a webhook's service reference) to a Service of type
# ExternalName with externalName 127.0.0.1 reaches a server on loopback.
#
#   K8S_BIN    where the binaries are (default build/k8s/bin)
#   K8S_WAIT   seconds each component may take to be ready (default 60)
#   KWOK_POD_RUNTIME_MS  how long a Job's Pod runs before it succeeds, unless
#              its annotation pod-complete.stage.kwok.x-k8s.io/delay says
#              (default 0: at once)
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${K8S_BIN:-$ROOT/build/k8s/bin}
WAIT=${K8S_WAIT:-60}
COMPONENTS="etcd kube-apiserver kube-controller-manager kube-scheduler kwok"

usage() {
    echo "usage: $0 up DIR | down DIR | restart DIR COMPONENT" >&2
    exit 2
}

CMD=${1:-}
DIR=${2:-}
case "$CMD" in
restart) [ $# -eq 3 ] || usage ;;
*) [ $# -eq 2 ] || usage ;;
esac

now_ms() { date +%s%3N; }

# free_ports N: N distinct free TCP ports on 127.0.0.1 (config/local/free-ports)
free_ports() {
    "$ROOT/config/local/free-ports" "$1"
}

# stop COMPONENT: SIGTERM by pid, SIGKILL after 15 s
stop_one() {
    pf=$DIR/$1.pid
    [ -s "$pf" ] || return 0
    pid=$(cat "$pf")
    if kill "$pid" 2>/dev/null; then
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 150 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$pf"
}

down() {
    for c in kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
        stop_one "$c"
    done
}

die() {
    echo "cluster.sh: $*" >&2
    if [ -n "${LOGC:-}" ] && [ -f "$DIR/$LOGC.log" ]; then
        echo "--- last lines of $DIR/$LOGC.log:" >&2
        tail -25 "$DIR/$LOGC.log" >&2
    fi
    down
    exit 1
}

# start NAME ARGS...: runs BIN/NAME in the background, log DIR/NAME.log
start() {
    name=$1
    shift
    "$BIN/$name" "$@" >"$DIR/$name.log" 2>&1 &
    echo $! >"$DIR/$name.pid"
    printf '%s\n' "$@" >"$DIR/$name.args" # for restart
}

# alive PID: running.  A zombie nobody reaps counts as gone, once its last
# thread has gone too: a killed Go program's main thread is a zombie while
# the others still exit, holding its sockets.
alive() {
    kill -0 "$1" 2>/dev/null || return 1
    grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null || return 0
    [ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -gt 1 ]
}

# ready NAME: the readiness probe of a component
ready() {
    case "$1" in
    etcd) curl -sf "$ETCD_URL/health" ;;
    kube-apiserver) curl -sf --cacert "$DIR/pki/ca.crt" --cert "$DIR/pki/admin.crt" \
        --key "$DIR/pki/admin.key" "$APISERVER_URL/readyz" ;;
    kube-controller-manager) curl -sfk "https://127.0.0.1:$KCM_PORT/healthz" ;;
    kube-scheduler) curl -sfk "https://127.0.0.1:$SCHEDULER_PORT/healthz" ;;
    *) true ;;
    esac
}

# restart NAME: SIGKILL, then the same command line, log appended
restart_one() {
    name=$1
    [ -s "$DIR/$name.pid" ] && [ -s "$DIR/$name.args" ] || { echo "cluster.sh: $name was not started in $DIR" >&2; exit 1; }
    . "$DIR/env"
    pid=$(cat "$DIR/$name.pid")
    t0=$(now_ms)
    kill -9 "$pid" 2>/dev/null || true
    while alive "$pid"; do sleep 0.02; done
    set --
    while IFS= read -r a; do set -- "$@" "$a"; done <"$DIR/$name.args"
    deadline=$(($(date +%s) + WAIT))
    tries=0
    until ready "$name" >/dev/null 2>&1; do
        if ! alive "$(cat "$DIR/$name.pid")"; then
            # (re)start; a port the dead one held may take a moment to free
            tries=$((tries + 1))
            [ $tries -le 20 ] || { echo "cluster.sh: $name exited after its restart" >&2; tail -25 "$DIR/$name.log" >&2; exit 1; }
            echo "--- cluster.sh: restarted after SIGKILL (try $tries)" >>"$DIR/$name.log"
            "$BIN/$name" "$@" >>"$DIR/$name.log" 2>&1 &
            echo $! >"$DIR/$name.pid"
        fi
        [ "$(date +%s)" -lt "$deadline" ] || { echo "cluster.sh: $name not ready $WAIT s after its restart" >&2; exit 1; }
        sleep 0.1
    done
    echo "cluster.sh: $name killed and ready again in $(($(now_ms) - t0)) ms"
}

# wait_ready NAME CMD...: until CMD succeeds; NAME must stay alive
wait_ready() {
    LOGC=$1
    shift
    pid=$(cat "$DIR/$LOGC.pid")
    deadline=$(($(date +%s) + WAIT))
    until "$@" >/dev/null 2>&1; do
        kill -0 "$pid" 2>/dev/null || die "$LOGC exited during startup"
        [ "$(date +%s)" -lt "$deadline" ] || die "$LOGC not ready after $WAIT s"
        sleep 0.2
    done
    LOGC=""
}

pki() {
    P=$DIR/pki
    mkdir -p "$P"
    o() { openssl "$@" 2>/dev/null; }
    # CAs: cluster, front proxy (aggregation layer)
    for ca in ca front-proxy-ca; do
        o req -x509 -newkey rsa:2048 -nodes -keyout "$P/$ca.key" -out "$P/$ca.crt" -days 3 \
            -subj "/CN=turnstile-test-$ca"
    done
    # cert NAME CA SUBJ [EXT]
    cert() {
        o req -newkey rsa:2048 -nodes -keyout "$P/$1.key" -out "$P/$1.csr" -subj "$3"
        if [ -n "${4:-}" ]; then
            printf '%s\n' "$4" >"$P/$1.ext"
            o x509 -req -in "$P/$1.csr" -CA "$P/$2.crt" -CAkey "$P/$2.key" -CAcreateserial \
                -out "$P/$1.crt" -days 3 -extfile "$P/$1.ext"
        else
            o x509 -req -in "$P/$1.csr" -CA "$P/$2.crt" -CAkey "$P/$2.key" -CAcreateserial \
                -out "$P/$1.crt" -days 3
        fi
    }
    cert apiserver ca /CN=kube-apiserver \
        "subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
extendedKeyUsage=serverAuth"
    cert admin ca "/O=system:masters/CN=kubernetes-admin" "extendedKeyUsage=clientAuth"
    cert front-proxy-client front-proxy-ca /CN=front-proxy-client "extendedKeyUsage=clientAuth"
    o genrsa -out "$P/sa.key" 2048
    o rsa -in "$P/sa.key" -pubout -out "$P/sa.pub"
    for f in sa.pub admin.crt apiserver.crt front-proxy-client.crt; do
        [ -s "$P/$f" ] || die "openssl could not make the certificates ($f)"
    done
    # a bearer token for the admin too: the contract tests of
    # turnstile-apiserver speak to either server with curl and a token
    ADMIN_TOKEN=$(o rand -hex 16)
    echo "$ADMIN_TOKEN,kubernetes-admin,admin-token,system:masters" >"$P/tokens.csv"
}

kubeconfig() {
    b64() { base64 -w0 <"$1"; }
    cat >"$DIR/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: real
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority-data: $(b64 "$P/ca.crt")
users:
- name: admin
  user:
    client-certificate-data: $(b64 "$P/admin.crt")
    client-key-data: $(b64 "$P/admin.key")
contexts:
- name: real
  context: {cluster: real, user: admin}
current-context: real
EOF
}

# The Nodes: labels of the samples' ResourceFlavors (config/samples,
# ../shared/samples): node.kubernetes.io/instance-type gpu-instance (multi-team
# gpu-flavor), kueue.x-k8s.io/machine-type autoscale (borrowing-and-reclaim),
# instance-type on-demand (test/e2e/data/controller/queues.yaml),
# node-type on-demand/spot (kueue-examples shared quota), instance-type spot
# with the taint spot=true:NoSchedule (kueue-examples taints/tolerations),
# plus accelerator, zone and rack labels.
node() { # NAME CPU MEMORY GPUS LABELS(json, no braces) [TAINTS(json list)]
    cat <<EOF
{"apiVersion":"v1","kind":"Node","metadata":{"name":"$1",
 "annotations":{"kwok.x-k8s.io/node":"fake","node.alpha.kubernetes.io/ttl":"0"},
 "labels":{"kubernetes.io/hostname":"$1","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","type":"kwok",$5}},
 "spec":{"taints":${6:-[]}},
 "status":{"allocatable":{"cpu":"$2","memory":"$3","pods":"110","nvidia.com/gpu":"$4"},
  "capacity":{"cpu":"$2","memory":"$3","pods":"110","nvidia.com/gpu":"$4"},
  "nodeInfo":{"architecture":"amd64","kubeletVersion":"fake","operatingSystem":"linux"},
  "phase":"Running"}}
EOF
}
nodes() {
    {
        node gpu-a100-1 32 256Gi 8 '"node.kubernetes.io/instance-type":"gpu-instance","cloud.provider.com/accelerator":"nvidia-a100","topology.kubernetes.io/zone":"zone-a","cloud.provider.com/rack":"rack-1"'
        node gpu-a100-2 32 256Gi 8 '"node.kubernetes.io/instance-type":"gpu-instance","cloud.provider.com/accelerator":"nvidia-a100","topology.kubernetes.io/zone":"zone-b","cloud.provider.com/rack":"rack-2"'
        node cpu-1 64 256Gi 0 '"kueue.x-k8s.io/machine-type":"autoscale","instance-type":"on-demand","node-type":"on-demand","topology.kubernetes.io/zone":"zone-a","cloud.provider.com/rack":"rack-1"'
        node spot-1 16 64Gi 0 '"instance-type":"spot","node-type":"spot","topology.kubernetes.io/zone":"zone-b","cloud.provider.com/rack":"rack-2"' \
            '[{"key":"spot","value":"true","effect":"NoSchedule"}]'
    } >"$DIR/nodes.json"
}

# nodes_ready: all 4 Ready (KWOK) and untainted by the node lifecycle
# controller (node.kubernetes.io/not-ready goes when they are Ready)
nodes_ready() {
    n=$(K get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{" "}{.spec.taints[*].key}{"\n"}{end}' |
        grep -v 'node.kubernetes.io/not-ready' | grep -c '^True')
    [ "$n" -eq 4 ]
}

K() { kubectl --kubeconfig "$DIR/kubeconfig" --cache-dir "$DIR/kubectl-cache" "$@"; }

up() {
    for c in $COMPONENTS; do
        [ -x "$BIN/$c" ] || { echo "cluster.sh: $BIN/$c is not built (make k8s-bins)" >&2; exit 1; }
    done
    command -v kubectl >/dev/null || { echo "cluster.sh: kubectl is missing" >&2; exit 1; }
    for c in $COMPONENTS; do
        if [ -s "$DIR/$c.pid" ] && kill -0 "$(cat "$DIR/$c.pid")" 2>/dev/null; then
            echo "cluster.sh: $c already running in $DIR (pid $(cat "$DIR/$c.pid")); down it first" >&2
            exit 1
        fi
    done
    t0=$(now_ms)
    rm -rf "$DIR/etcd" "$DIR/pki" "$DIR/kubectl-cache"
    mkdir -p "$DIR"
    DIR=$(cd "$DIR" && pwd)
    trap 'down; exit 130' INT TERM
    pki
    # shellcheck disable=SC2046
    set -- $(free_ports 8)
    ETCD_PORT=$1 ETCD_PEER=$2 API_PORT=$3 KCM_PORT=$4 SCHED_PORT=$5 KWOK_PORT=$6 ETCD_METRICS=$7
    cat >"$DIR/env" <<EOF
ETCD_URL=http://127.0.0.1:$ETCD_PORT
APISERVER_URL=https://127.0.0.1:$API_PORT
KCM_PORT=$KCM_PORT
SCHEDULER_PORT=$SCHED_PORT
KWOK_PORT=$KWOK_PORT
KUBECONFIG=$DIR/kubeconfig
ADMIN_TOKEN=$ADMIN_TOKEN
EOF
    kubeconfig

    start etcd --name default --data-dir "$DIR/etcd" \
        --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
        --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
        --initial-cluster "default=http://127.0.0.1:$ETCD_PEER" \
        --listen-metrics-urls "http://127.0.0.1:$ETCD_METRICS" \
        --unsafe-no-fsync --snapshot-count 100000 --log-level warn
    wait_ready etcd curl -sf "http://127.0.0.1:$ETCD_PORT/health"

    start kube-apiserver \
        --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
        --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
        --cert-dir "$DIR/pki/apiserver-certs" \
        --tls-cert-file "$P/apiserver.crt" --tls-private-key-file "$P/apiserver.key" \
        --client-ca-file "$P/ca.crt" --token-auth-file "$P/tokens.csv" \
        --service-account-issuer https://kubernetes.default.svc.cluster.local \
        --service-account-key-file "$P/sa.pub" --service-account-signing-key-file "$P/sa.key" \
        --service-cluster-ip-range 10.0.0.0/24 \
        --authorization-mode RBAC \
        --enable-admission-plugins MutatingAdmissionWebhook,ValidatingAdmissionWebhook \
        --endpoint-reconciler-type none \
        --allow-privileged=true \
        --requestheader-client-ca-file "$P/front-proxy-ca.crt" \
        --requestheader-allowed-names front-proxy-client \
        --requestheader-username-headers X-Remote-User \
        --requestheader-group-headers X-Remote-Group \
        --requestheader-extra-headers-prefix X-Remote-Extra- \
        --proxy-client-cert-file "$P/front-proxy-client.crt" --proxy-client-key-file "$P/front-proxy-client.key" \
        --enable-aggregator-routing=false \
        --profiling=false
    wait_ready kube-apiserver curl -sf --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key" \
        "https://127.0.0.1:$API_PORT/readyz"

    start kube-controller-manager --kubeconfig "$DIR/kubeconfig" \
        --authentication-kubeconfig "$DIR/kubeconfig" --authorization-kubeconfig "$DIR/kubeconfig" \
        --bind-address 127.0.0.1 --secure-port "$KCM_PORT" --cert-dir "$DIR/pki/kcm-certs" \
        --leader-elect=false --use-service-account-credentials=false \
        --controllers 'job-controller,node-lifecycle-controller,garbage-collector-controller,namespace-controller,serviceaccount-token-controller,serviceaccount-controller,replicaset-controller,deployment-controller,statefulset-controller,pod-garbage-collector-controller,root-ca-certificate-publisher-controller,ttl-after-finished-controller,endpointslice-controller' \
        --service-account-private-key-file "$P/sa.key" --root-ca-file "$P/ca.crt" \
        --concurrent-job-syncs 10
    start kube-scheduler --kubeconfig "$DIR/kubeconfig" \
        --authentication-kubeconfig "$DIR/kubeconfig" --authorization-kubeconfig "$DIR/kubeconfig" \
        --bind-address 127.0.0.1 --secure-port "$SCHED_PORT" --cert-dir "$DIR/pki/sched-certs" \
        --leader-elect=false
    sed "s/durationMilliseconds: 0 # KWOK_POD_RUNTIME_MS.*/durationMilliseconds: ${KWOK_POD_RUNTIME_MS:-0}/" \
        "$ROOT/test/k8s/kwok/stages.yaml" >"$DIR/stages.yaml"
    start kwok --kubeconfig "$DIR/kubeconfig" --config "$DIR/stages.yaml" \
        --manage-all-nodes=false --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
        --node-lease-duration-seconds 40 --cidr 10.244.0.1/16 --node-ip 10.244.0.1 \
        --server-address "127.0.0.1:$KWOK_PORT"
    wait_ready kube-controller-manager curl -sfk "https://127.0.0.1:$KCM_PORT/healthz"
    wait_ready kube-scheduler curl -sfk "https://127.0.0.1:$SCHED_PORT/healthz"

    nodes
    LOGC=kube-apiserver
    K apply -f "$DIR/nodes.json" >"$DIR/nodes.out" 2>&1 || { cat "$DIR/nodes.out" >&2; die "could not create the Nodes"; }
    LOGC=""
    # Ready nodes (KWOK's node-initialize stage) and the default ServiceAccount
    # (pods are refused without it)
    wait_ready kwok nodes_ready
    wait_ready kube-controller-manager K get serviceaccount default -n default
    trap - INT TERM
    echo "cluster.sh: up in $(($(now_ms) - t0)) ms; KUBECONFIG=$DIR/kubeconfig"
}

case "$CMD" in
up) up ;;
down)
    [ -d "$DIR" ] || exit 0
    DIR=$(cd "$DIR" && pwd)
    down
    ;;
restart)
    DIR=$(cd "$DIR" && pwd)
    restart_one "$3"
    ;;
*) usage ;;
esac
