#!/bin/sh
# turnstile --webhook-only --config FILE takes the Configuration's namespace
# and internalCertManagement.webhookServiceName for its certificate's DNS
# names (as Kueue does), and a flag still wins over the file.
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
    stop_pid "$pid"
}
start a
san=$(openssl x509 -in "$T/a/tls.crt" -noout -ext subjectAltName 2>&1)
check "DNS name from the Configuration's namespace and service" contains "$san" "kueue-webhook-service.kueue-system.svc"
check "no warning for honoured fields" sh -c "! grep -q 'not yet honoured' '$T/a.log'"
start b --namespace flag-ns
san=$(openssl x509 -in "$T/b/tls.crt" -noout -ext subjectAltName 2>&1)
check "--namespace wins over the file" contains "$san" "kueue-webhook-service.flag-ns.svc"
finish
