#!/bin/sh
# No silent acceptance (docs/compatibility.md): a Kueue field Turnstile does
# not honour yet is accepted with a warning.  Real kubectl against
# turnstile-apiserver with Turnstile's webhooks registered prints
# "Warning: <field>: accepted but not yet honoured by Turnstile ..." for a
# ClusterQueue with admission fair sharing (v1beta2 and v1beta1) and nothing
# for one without (admission checks are honoured: no warning); the controller logs each field and records a Warning Event
# UnhonouredField on the object (a Workload once, however often it is
# written); `turnstile --config` logs the Configuration's unhonoured fields
# at start.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
PORT=$(free_port)
as_start --webhook-service "turnstile-system/turnstile-webhook-service=127.0.0.1:$PORT"
K apply -f crds/ >/dev/null
K create namespace turnstile-system >/dev/null
K apply -f config/webhook/manifests.yaml >/dev/null
cat >"$T/config.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
tls:
  minVersion: VersionTLS13
YAML
$WRAP "$CTL" --webhook-only --webhook-port "$PORT" --health-port -1 --kubeconfig "$KC" \
    --namespace turnstile-system --service-name turnstile-webhook-service \
    --config "$T/config.yaml" >>"$T/webhook.log" 2>&1 &
WH_PID=$!
PIDS="$PIDS $WH_PID"
OURS="$OURS $WH_PID"
ca_set() {
    [ -n "$(K get validatingwebhookconfiguration turnstile-validating-webhook-configuration -o jsonpath='{.webhooks[0].clientConfig.caBundle}')" ]
}
wait_for "CA injected into the webhook configurations" ca_set
ctl_start --config "$T/config.yaml"

SUFFIX=": accepted but not yet honoured by Turnstile (docs/compatibility.md)"
NAME="spec.admissionScope.admissionMode"
CHECKS="spec.admissionChecksStrategy.admissionChecks[]"

cq() { # NAME APIVERSION SPEC-EXTRA
    cat <<YAML
apiVersion: kueue.x-k8s.io/$2
kind: ClusterQueue
metadata: {name: $1}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 1}]
$3
YAML
}

out=$(cq checked v1beta2 "  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
  admissionChecksStrategy:
    admissionChecks: [{name: prov, onFlavors: [default]}]" | K apply -f - 2>&1)
check "kubectl apply: created" contains "$out" "clusterqueue.kueue.x-k8s.io/checked created"
check "kubectl apply: Warning for admissionScope.admissionMode" contains "$out" "Warning: $NAME$SUFFIX"
check "kubectl apply: no Warning for the honoured admission checks" eq \
    "$(echo "$out" | grep -cF "$CHECKS")" 0

out=$(cq old v1beta1 "  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
  admissionChecks: [prov]" | K apply -f - 2>&1)
check "v1beta1 admissionScope: Warning by the v1beta2 path" contains "$out" "Warning: $NAME$SUFFIX"

out=$(cq plain v1beta2 "" | K apply -f - 2>&1)
check "no unhonoured field: created" contains "$out" "clusterqueue.kueue.x-k8s.io/plain created"
check "no unhonoured field: no Warning" eq "$(echo "$out" | grep -c Warning)" 0

events() { # OBJECT: "reason: message" of the events about it
    api GET /api/v1/events | jq_py "'\n'.join(e['reason'] + ': ' + e['message'] for e in d['items'] if e['involvedObject']['name'] == '$1')"
}
event_of() { events "$1" | grep -qF "UnhonouredField: $2$SUFFIX"; }
wait_for "Warning Event UnhonouredField naming admissionScope.admissionMode" event_of checked "$NAME"
check "no UnhonouredField event for the admission checks" eq "$(events checked | grep -cF "$CHECKS")" 0
check "no UnhonouredField event for the plain queue" eq "$(events plain | grep -c UnhonouredField)" 0
check "controller log names the field" contains "$(cat "$T/ctl.log")" "object=/checked kind=ClusterQueue field=$NAME"
check "controller logs the Configuration's field" contains "$(cat "$T/ctl.log")" "field=tls.minVersion$SUFFIX"
check "webhook server logs the Configuration's field" contains "$(cat "$T/webhook.log")" "field=tls.minVersion$SUFFIX"

# a Workload is written many times (quota reserved, admitted): told once
TOPO="spec.podSets[].topologyRequest.required"
K apply -f "$CD/queues.yaml" >/dev/null 2>&1
out=$(wl_yaml topo 0 | sed 's|^  - name: main|  - name: main\n    topologyRequest: {required: rack}|' | K create -f - 2>&1)
check "Workload with a topology request: Warning" contains "$out" "Warning: $TOPO$SUFFIX"
wait_for "Workload with a topology request admitted anyway" wl_reserved topo
wait_for "Warning Event UnhonouredField on the Workload" event_of topo "$TOPO"
K annotate workload -n team-a topo example.com/touched=yes >/dev/null
sleep 0.5
check "one log line for the Workload, status writes and updates or not" \
    eq "$(grep -cF "object=team-a/topo kind=Workload field=$TOPO" "$T/ctl.log")" 1

kill -0 "$WH_PID" 2>/dev/null || fail "webhook server died"
if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/webhook.log"; then
    grep -A30 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/webhook.log" | head -40
    fail "sanitizer report in the webhook log"
fi
ctl_check_log
finish
