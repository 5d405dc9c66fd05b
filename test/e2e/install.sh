#!/bin/sh
# The whole install on turnstile-apiserver, as on a cluster: kubectl apply
# -f crds/ and -k config/default (RBAC, Deployment, Services, webhook
# configurations with failurePolicy Fail and no CA yet), then the webhook
# (reached through the Service, TLS checked as NAME.NS.svc) injects its CA
# into the webhook configurations and the CRDs' conversion webhooks, after
# which Kueue's v1beta2 examples and the seeds' v1beta1 YAML apply, are
# served in both versions, bad objects are refused with Kueue's messages,
# and the controller admits the quick-start job.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
EX=$(dirname "$0")/../../../shared/samples/kueue-examples
SEEDS=$(dirname "$0")/../../../shared/samples/seeds
[ -d "$EX" ] || { echo "skip: $EX missing"; exit 77; }
PORT=$(free_port)
as_start --webhook-service "turnstile-system/turnstile-webhook-service=127.0.0.1:$PORT"

out=$(K apply -f crds/ 2>&1)
check "apply crds/" contains "$out" "customresourcedefinition.apiextensions.k8s.io/workloads.kueue.x-k8s.io created"
out=$(K apply -k config/default 2>&1)
check "apply -k config/default" contains "$out" "deployment.apps/turnstile-controller-manager created"
check "RBAC applied" contains "$out" "clusterrole.rbac.authorization.k8s.io/turnstile-manager-role created"
check "webhook configurations applied" contains "$out" "validatingwebhookconfiguration.admissionregistration.k8s.io/turnstile-validating-webhook-configuration created"

# no webhook yet: failurePolicy Fail refuses Kueue objects, as on a cluster
out=$(K apply -f "$EX/admin-resource-flavor-empty.yaml" 2>&1)
check "refused while the webhook is down" contains "$out" "failed calling webhook"

"$CTL" --webhook-only --webhook-port "$PORT" --health-port -1 --kubeconfig "$KC" \
    --namespace turnstile-system --service-name turnstile-webhook-service >>"$T/webhook.log" 2>&1 &
PIDS="$PIDS $!"
ca_set() {
    [ -n "$(K get validatingwebhookconfiguration turnstile-validating-webhook-configuration -o jsonpath='{.webhooks[0].clientConfig.caBundle}')" ] &&
        [ -n "$(K get mutatingwebhookconfiguration turnstile-mutating-webhook-configuration -o jsonpath='{.webhooks[0].clientConfig.caBundle}')" ] &&
        [ -n "$(K get crd clusterqueues.kueue.x-k8s.io -o jsonpath='{.spec.conversion.webhook.clientConfig.caBundle}')" ]
}
wait_for "CA injected into webhook configurations and CRDs" ca_set

for f in "$EX"/*setup*.yaml "$EX"/admin-*.yaml; do
    case "$f" in *sample-job*) continue ;; esac
    out=$(K apply -f "$f" 2>&1) || fail "Kueue example $(basename "$f") did not apply: $out"
done
K apply -f config/samples/namespaces.yaml >/dev/null # the namespaces the seeds assume
for f in "$SEEDS"/*.yaml; do
    grep -q "kind: \(ClusterQueue\|LocalQueue\|ResourceFlavor\|Cohort\)" "$f" || continue
    out=$(K apply -f "$f" 2>&1) || fail "seed $(basename "$f") did not apply: $out"
done
out=$(K get clusterqueues.v1beta1.kueue.x-k8s.io cluster-queue -o jsonpath='{.apiVersion}')
check "v1beta2 example served as v1beta1" eq "$out" "kueue.x-k8s.io/v1beta1"
out=$(K get clusterqueues.v1beta2.kueue.x-k8s.io multi-team-cq -o jsonpath='{.apiVersion} {.spec.cohortName}')
check "v1beta1 seed served as v1beta2" eq "$out" "kueue.x-k8s.io/v1beta2 ai-cohort"
out=$(printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: bad}\nspec:\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: x\n      resources:\n      - {name: cpu, nominalQuota: -1}\n' | K apply -f - 2>&1)
check "webhook refuses a bad ClusterQueue" contains "$out" 'admission webhook "vclusterqueue.kb.io" denied the request: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: "-1": must be greater than or equal to 0'

# the webhook suspends the job, the controller admits it
out=$(K create -f "$EX/getting-started-quick-start-job.yaml" -o jsonpath='{.metadata.name} {.spec.suspend}' 2>&1)
check "quick-start job suspended by the webhook" contains "$out" " true"
job=${out% *}
ctl_start
admitted_default() {
    [ "$(K get workloads -n default -o jsonpath='{.items[0].status.conditions[?(@.type=="Admitted")].status}')" = True ]
}
wait_for "quick-start job admitted" admitted_default
out=$(K get job -n default "$job" -o jsonpath='{.spec.suspend}')
check "quick-start job running" eq "$out" "false"

if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/webhook.log"; then
    grep -A30 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/webhook.log" | head -40
    fail "sanitizer report in the webhook log"
fi
[ "$FAILS" -eq 0 ] || tail -20 "$T/webhook.log"
ctl_check_log
finish
