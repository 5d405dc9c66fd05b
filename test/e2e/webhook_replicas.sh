#!/bin/sh
# Two webhook replicas share one internally managed certificate through
# the Secret turnstile-webhook-server-cert (as Kueue's cert-controller
# does): the first creates it, the second adopts it before serving, so the
# caBundle injected into the webhook configurations is valid for both; a
# certificate an admin puts into the Secret is adopted by both and
# injected; a deleted Secret is written again; one replica going away does
# not stop the other.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
command -v openssl >/dev/null 2>&1 || { echo "skip: openssl CLI missing"; exit 77; }
SVC=turnstile-webhook-service.turnstile-system.svc
P1=$(free_port)
P2=$(free_port)
as_start --webhook-service "turnstile-system/turnstile-webhook-service=127.0.0.1:$P1"
K apply -f crds/ >/dev/null
K create namespace turnstile-system >/dev/null
K apply -f config/webhook/manifests.yaml >/dev/null

replica() { # PORT LOG
    "$CTL" --webhook-only --webhook-port "$1" --health-port -1 --kubeconfig "$KC" \
        --namespace turnstile-system --secret-sync-period 1 >>"$2" 2>&1 &
    PIDS="$PIDS $!"
    LAST_PID=$!
}
secret_field() { K get secret -n turnstile-system turnstile-webhook-server-cert -o jsonpath="{.data.$1}" | base64 -d; }
# ok_with CAFILE PORT: the replica on PORT presents a certificate CAFILE trusts for the service name
ok_with() { curl -sf --cacert "$1" --resolve "$SVC:$2:127.0.0.1" "https://$SVC:$2/healthz" >/dev/null; }

replica "$P1" "$T/a.log"
A=$LAST_PID
wait_for "replica a serving" grep -q "webhook serving" "$T/a.log"
wait_for "secret created by a" grep -q "certificate stored in secret turnstile-system/turnstile-webhook-server-cert" "$T/a.log"
secret_field 'ca\.crt' >"$T/ca1.crt"
check "secret holds the CA key" contains "$(secret_field 'ca\.key')" "PRIVATE KEY"

replica "$P2" "$T/b.log"
wait_for "replica b serving" grep -q "webhook serving" "$T/b.log"
check "b adopted a's certificate before serving" contains "$(cat "$T/b.log")" "certificate adopted from secret turnstile-system/turnstile-webhook-server-cert"
check "a's certificate verifies with the secret's CA" ok_with "$T/ca1.crt" "$P1"
check "b's certificate verifies with the same CA" ok_with "$T/ca1.crt" "$P2"
bundle() { K get validatingwebhookconfiguration turnstile-validating-webhook-configuration -o jsonpath='{.webhooks[0].clientConfig.caBundle}' | base64 -d; }
injected() { [ "$(bundle)" = "$(cat "$1")" ]; }
wait_for "the injected caBundle is the secret's CA" injected "$T/ca1.crt"
out=$(K apply -f "$CD/queues.yaml" 2>&1)
check "Kueue objects admitted through the webhook" contains "$out" "clusterqueue.kueue.x-k8s.io/cq created"

# an admin rotates: a new CA and serving certificate in the Secret
cd "$T" || exit 1
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt \
    -days 3650 -subj /CN=admin-ca 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout tls.key -out tls.csr \
    -subj "/CN=$SVC" 2>/dev/null
printf 'subjectAltName=DNS:%s,IP:127.0.0.1\n' "$SVC" >ext.cnf
openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out tls.crt -days 365 \
    -extfile ext.cnf 2>/dev/null
cd - >/dev/null || exit 1
K create secret generic turnstile-webhook-server-cert -n turnstile-system --dry-run=client -o yaml \
    --from-file="$T/ca.crt" --from-file="$T/ca.key" --from-file="$T/tls.crt" --from-file="$T/tls.key" |
    K replace -f - >/dev/null
wait_for "a serves the admin's certificate" ok_with "$T/ca.crt" "$P1"
wait_for "b serves the admin's certificate" ok_with "$T/ca.crt" "$P2"
wait_for "the admin's CA is injected" injected "$T/ca.crt"

# the Secret is deleted: a replica writes the certificate in use again
K delete secret -n turnstile-system turnstile-webhook-server-cert >/dev/null
back() { [ "$(secret_field 'tls\.crt')" = "$(cat "$T/tls.crt")" ]; }
wait_for "secret written again with the certificate in use" back

# one replica goes away; the other keeps answering admission reviews
stop_pid "$A"
check "b still serves" ok_with "$T/ca.crt" "$P2"
check "a is gone" eval "! ok_with '$T/ca.crt' '$P1'"

if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/a.log" "$T/b.log"; then
    fail "sanitizer report in a replica's log"
fi
[ "$FAILS" -eq 0 ] || tail -20 "$T/a.log" "$T/b.log"
finish
