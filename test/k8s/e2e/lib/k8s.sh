# Helpers for the real-control-plane e2e tests (sourced after
# test/e2e/lib/apiserver.sh, whose check/fail/K/finish they reuse).
#
#   k8s_up               start etcd, kube-apiserver, kube-controller-manager,
#                        kube-scheduler and KWOK (test/k8s/cluster.sh) in
#                        $T/k8s; sets KC (admin kubeconfig), K8S_DIR; the
#                        cluster is stopped on exit before $T is removed.
#                        Exits 77 when the binaries are not built.
#   wh_start [FLAGS]     start `turnstile --webhook-only` on a free loopback
#                        port and register it as run.sh does (its
#                        configurations applied with kubectl), plus the CRDs'
#                        conversion webhook pointed at it (url + caBundle);
#                        sets WH_PID, WH_PORT, WH_CA (base64)
#   k8s_with_turnstile QUEUES  k8s_up, crds_apply, wh_start, QUEUES applied
#   pods_of JOB, no_pods JOB   the Pods of a Job of team-a ("name node phase")
#   crds_on_both         turnstile-apiserver and the real control plane, crds/
#                        on both and no webhook; sets KC_OURS, KC_REAL (KC is
#                        the real one's).  Exits 77 when the binaries are not
#                        built or TS_SERVER=ours (it compares the two)
#   crds_apply           kubectl apply --server-side the CRDs (crds/ and the
#                        Kubeflow ones), wait until Established
#   k8s_logs             tail of every component's log (on failure)
#   kjob NAME [DELAY]    like job (lib/controller.sh: team-a, queue lq, 1 cpu)
#                        but its Pod runs DELAY (default 1h) under KWOK
#   burst_yaml PREFIX N  YAML of Jobs PREFIX1..PREFIXN as kjob's (1 cpu, 1Gi)
#
# TS_SERVER=ours runs a script against turnstile-apiserver instead (checks
# that need real Pods then fail): a difference found by one server and not
# the other is either a Turnstile bug or a server difference.
# (K8S_BIN, K8S_DIR and as_start_real are test/e2e/lib/apiserver.sh's)
k8s_down() {
    [ -d "$K8S_DIR" ] && test/k8s/cluster.sh down "$K8S_DIR" >/dev/null 2>&1
    return 0
}

k8s_up() {
    if [ "${TS_SERVER:-real}" = ours ]; then
        # the same script on turnstile-apiserver (no Pods: no scheduler, no
        # kubelet), to tell a Turnstile bug from a difference of the servers
        as_start
        return
    fi
    as_start_real
}

# k8s_with_turnstile QUEUES: the control plane with Turnstile's CRDs and
# webhook server, and the queues of file QUEUES applied
k8s_with_turnstile() {
    k8s_up
    crds_apply
    wh_start
    K apply -f "$1" >/dev/null 2>&1
}

# pods_of JOB: "name node phase" per Pod of Job JOB in team-a; no_pods JOB
pods_of() { K get pods -n team-a -l "batch.kubernetes.io/job-name=$1" -o jsonpath="{range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase}{'\n'}{end}"; }
no_pods() { [ -z "$(pods_of "$1")" ]; }

k8s_logs() {
    for c in etcd kube-apiserver kube-controller-manager kube-scheduler kwok; do
        echo "--- $c"
        tail -"${1:-15}" "$K8S_DIR/$c.log" 2>/dev/null
    done
}

crds_on_both() {
    [ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
    [ "${TS_SERVER:-real}" != ours ] || { echo "skip: compares turnstile-apiserver with kube-apiserver"; exit 77; }
    as_start
    K apply -f crds/ >/dev/null
    KC_OURS=$KC
    k8s_up
    KC_REAL=$KC
    crds_apply
}

crds_apply() {
    out=$(K apply --server-side -f crds/ 2>&1)
    check "kubectl apply --server-side -f crds/" eq "$?" 0
    echo "$out" | grep -v 'serverside-applied$' | sed 's/^/  crds: /'
    out=$(K apply --server-side -f config/external/ 2>&1)
    check "kubectl apply --server-side -f config/external/ (Kubeflow CRDs)" eq "$?" 0
    echo "$out" | grep -v 'serverside-applied$' | sed 's/^/  external: /'
    out=$(K wait --for=condition=Established --timeout=30s crd --all 2>&1)
    check "all CRDs Established" eq "$?" 0
}

wh_start() {
    : >"$T/webhook.log"
    rm -f "$T/webhooks.json"
    $WRAP "$BUILD/bin/turnstile" --webhook-only --webhook-port 0 --health-port -1 \
        --webhook-configs-out "$T/webhooks.json" "$@" >>"$T/webhook.log" 2>&1 &
    WH_PID=$!
    PIDS="$PIDS $WH_PID"
    OURS="$OURS $WH_PID"
    i=0
    until grep -q caBundle "$T/webhooks.json" 2>/dev/null && grep -q 'webhook serving' "$T/webhook.log"; do
        i=$((i + 1))
        [ $i -lt $((200 * SLOW)) ] || { echo "webhook server did not start"; cat "$T/webhook.log"; exit 1; }
        sleep 0.05
    done
    WH_PORT=$(sed -n 's/.*webhook serving port=\([0-9]*\).*/\1/p' "$T/webhook.log" | head -1)
    WH_CA=$($PY -c "import json,sys
d=json.load(open(sys.argv[1]))
print(d['items'][0]['webhooks'][0]['clientConfig']['caBundle'])" "$T/webhooks.json")
    out=$(K apply -f "$T/webhooks.json" 2>&1)
    check "webhook configurations applied" eq "$?" 0
    # the CRDs' conversion webhook names the in-cluster Service; locally it
    # is the same server by URL (a Service can't point at loopback on a real
    # API server: Endpoints refuse 127.0.0.0/8)
    for crd in $(K get crd -o name | grep 'kueue.x-k8s.io$'); do
        strategy=$(K get "$crd" -o jsonpath='{.spec.conversion.strategy}')
        [ "$strategy" = Webhook ] || continue
        K patch "$crd" --type=merge -p "{\"spec\":{\"conversion\":{\"webhook\":{\"clientConfig\":{\"service\":null,\"url\":\"https://127.0.0.1:$WH_PORT/convert\",\"caBundle\":\"$WH_CA\"}}}}}" >/dev/null ||
            fail "conversion webhook of $crd not patched"
    done
}

kjob() {
    sed "s/NAME/$1/" test/e2e/data/controller/job.tmpl |
        sed "s|^  template:\$|  template:\n    metadata: {annotations: {pod-complete.stage.kwok.x-k8s.io/delay: ${2:-1h}}}|" |
        K create -f - >/dev/null
}

burst_yaml() {
    i=1
    while [ $i -le "$2" ]; do
        cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1$i, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  template:
    metadata: {annotations: {pod-complete.stage.kwok.x-k8s.io/delay: 1h}}
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, resources: {requests: {cpu: "1", memory: 1Gi}}}
---
YAML
        i=$((i + 1))
    done
}
