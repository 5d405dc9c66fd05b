#!/bin/sh
# turnstile --webhook-only --config FILE takes the Configuration's namespace
# and internalCertManagement.webhookServiceName for its certificate's DNS
# names (as Kueue does), and a flag still wins over the file; its feature
# gate PriorityBoost makes the Workload webhook refuse a boost annotation
# that is not an int32 (Kueue's), which it lets pass without the gate.
. "$(dirname "$0")/lib/apiserver.sh"
BINT=$BUILD/bin/turnstile
[ -x "$BINT" ] || { echo "skip: $BINT not built"; exit 77; }
cat >"$T/config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
internalCertManagement: {enable: true, webhookServiceName: kueue-webhook-service, webhookSecretName: ""}
YAML
# start DIR ARGS...: the webhook server until it serves, then stop it
# (KEEP=1: leave it running, its port in $port)
start() {
    dir=$1
    shift
    mkdir -p "$T/$dir"
    $WRAP "$BINT" --webhook-only --webhook-host 127.0.0.1 --webhook-port 0 --cert-dir "$T/$dir" \
        --config "$T/config.yaml" "$@" >"$T/$dir.log" 2>&1 &
    pid=$!
    PIDS="$PIDS $pid"
    OURS="$OURS $pid"
    i=0
    until grep -q 'webhook serving port=' "$T/$dir.log"; do
        i=$((i + 1))
        [ $i -lt $((100 * SLOW)) ] || { cat "$T/$dir.log"; fail "$dir: webhook did not start"; return; }
        sleep 0.1
    done
    port=$(sed -n 's/.*webhook serving port=\([0-9]*\).*/\1/p' "$T/$dir.log" | head -1)
    [ -n "${KEEP:-}" ] || stop_pid "$pid"
}
start a
san=$(openssl x509 -in "$T/a/tls.crt" -noout -ext subjectAltName 2>&1)
check "DNS name from the Configuration's namespace and service" contains "$san" "kueue-webhook-service.kueue-system.svc"
check "no warning for honoured fields" sh -c "! grep -q 'not yet honoured' '$T/a.log'"
start b --namespace flag-ns
san=$(openssl x509 -in "$T/b/tls.crt" -noout -ext subjectAltName 2>&1)
check "--namespace wins over the file" contains "$san" "kueue-webhook-service.flag-ns.svc"

# boost_review BOOST: a Workload CREATE review with that priority-boost annotation
boost_review() {
    echo '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"b-1","operation":"CREATE","namespace":"team-a","object":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w","namespace":"team-a","annotations":{"kueue.x-k8s.io/priority-boost":"'"$1"'"}},"spec":{"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}]}}}}'
}
post_boost() { # DIR BOOST
    boost_review "$2" | curl -sS --max-time 10 --cacert "$T/$1/ca.crt" -H 'Content-Type: application/json' \
        --data-binary @- "https://127.0.0.1:$port/validate-kueue-x-k8s-io-v1beta2-workload"
}
KEEP=1 start c
out=$(post_boost c 12x)
check "gate off: a boost that is no integer passes" contains "$out" '"allowed":true'
stop_pid "$pid"
cat >>"$T/config.yaml" <<'YAML'
featureGates: {PriorityBoost: true}
YAML
KEEP=1 start d
out=$(post_boost d 12x)
check "PriorityBoost: a boost that is no integer is refused" contains "$out" '"allowed":false'
check "with Kueue's message" contains "$out" 'metadata.annotations[kueue.x-k8s.io/priority-boost]: Invalid value: \"12x\": must be a valid signed integer'
out=$(post_boost d -7)
check "PriorityBoost: an integer boost passes" contains "$out" '"allowed":true'
stop_pid "$pid"
finish
