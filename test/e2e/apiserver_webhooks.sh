#!/bin/sh
# Admission webhooks (mutating, validating, reinvocation, selectors,
# failurePolicy, timeout, subresources, dry run, DELETE, services through
# --webhook-service) and CRD conversion webhooks, against a small Python
# webhook on loopback TLS (test/e2e/lib/test_webhook.py).
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
command -v openssl >/dev/null || { echo "skip: openssl not installed"; exit 77; }

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/hook.key" -out "$T/hook.crt" -days 2 \
    -subj /CN=hook -addext "subjectAltName=IP:127.0.0.1,DNS:hook.webhooks.svc" 2>/dev/null
CA=$(base64 -w0 <"$T/hook.crt")
$PY "$(dirname "$0")/lib/test_webhook.py" "$T/hook.crt" "$T/hook.key" "$T/hook.port" \
    "$T/hook.log" 2>"$T/hook.err" &
PIDS="$PIDS $!"
i=0
while [ ! -s "$T/hook.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
HP=$(cat "$T/hook.port")
H="https://127.0.0.1:$HP"
as_start --webhook-service "webhooks/hook:8443=127.0.0.1:$HP"

# $1 name, $2 path or svc:<path>, $3 extra webhook fields (JSON, no braces)
hook() {
    case "$2" in
    svc:*) cc="{\"service\":{\"namespace\":\"webhooks\",\"name\":\"hook\",\"port\":8443,\"path\":\"${2#svc:}\"},\"caBundle\":\"$CA\"}" ;;
    http*) cc="{\"url\":\"$2\",\"caBundle\":\"$CA\"}" ;;
    *) cc="{\"url\":\"$H$2\",\"caBundle\":\"$CA\"}" ;;
    esac
    echo "{\"name\":\"$1\",\"clientConfig\":$cc,\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"]$3}"
}
CM_RULE='"rules":[{"operations":["CREATE","UPDATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]'
sel() { echo ",\"objectSelector\":{\"matchLabels\":{\"$1\":\"yes\"}}"; }

cat >"$T/mwc.json" <<JSON
{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration",
 "metadata":{"name":"a-mutators"},"webhooks":[
 $(hook mutate.test.io svc:/mutate ",$CM_RULE$(sel target),\"namespaceSelector\":{\"matchExpressions\":[{\"key\":\"hooks\",\"operator\":\"NotIn\",\"values\":[\"off\"]}]}"),
 $(hook reinvoke-a.test.io /reinvoke-a ",$CM_RULE$(sel reinv),\"reinvocationPolicy\":\"IfNeeded\""),
 $(hook mutate-b.test.io /mutate-b ",$CM_RULE$(sel reinv)"),
 $(hook fail.test.io https://127.0.0.1:1/x ",$CM_RULE$(sel fail)"),
 $(hook ignore.test.io https://127.0.0.1:1/x ",$CM_RULE$(sel ignore),\"failurePolicy\":\"Ignore\""),
 $(hook slow.test.io /slow ",$CM_RULE$(sel slow),\"timeoutSeconds\":1"),
 $(hook uid.test.io /wrong-uid ",$CM_RULE$(sel uid)"),
 $(hook badpatch.test.io /bad-patch ",$CM_RULE$(sel badpatch)"),
 $(hook sidefx.test.io /mutate ",$CM_RULE$(sel sidefx)" | sed 's/"sideEffects":"None"/"sideEffects":"Unknown"/')
]}
JSON
cat >"$T/vwc.json" <<JSON
{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",
 "metadata":{"name":"validators"},"webhooks":[
 $(hook validate.test.io /validate ",$CM_RULE$(sel target)"),
 $(hook deny.test.io /deny ",\"rules\":[{\"operations\":[\"*\"],\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"resources\":[\"configmaps\"]}]$(sel deny)"),
 $(hook bare.test.io /deny-bare ",$CM_RULE$(sel bare)"),
 $(hook status.test.io /deny ",\"rules\":[{\"operations\":[\"UPDATE\"],\"apiGroups\":[\"batch\"],\"apiVersions\":[\"v1\"],\"resources\":[\"jobs/status\"]}]$(sel denystatus)")
]}
JSON
check "webhook configurations created" K apply -f "$T/mwc.json" -f "$T/vwc.json" >/dev/null

cm() { # name labels-json [query]
    api POST "/api/v1/namespaces/${NS:-default}/configmaps${3:-}" -H 'Content-Type: application/json' \
        -d "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$1\",\"labels\":$2},\"data\":{\"k\":\"v\"}}"
}
lbl() { jq_py "d.get('metadata',{}).get('labels',{}).get('$1','')"; }

# mutating through a service reference, warnings, validating sees the mutation
out=$(cm m1 '{"target":"yes"}')
check "mutated create 201" eq "$(code)" 201
check "label added by the mutating webhook" eq "$(echo "$out" | lbl mutated)" true
w=$(curl -sk -D - -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -X POST "$URL/api/v1/namespaces/default/configmaps" \
    -d '{"metadata":{"generateName":"gen-","labels":{"target":"yes"}}}' | tr -d '\r' | grep -i '^Warning:')
check "webhook warning as a Warning header" contains "$w" '299 - "mutated by test"'
req=$(grep '"/mutate?timeout=10s"' "$T/hook.log" | tail -1)
check "AdmissionReview request shape" contains "$(echo "$req" | jq_py "(d['body']['apiVersion'], d['body']['request']['operation'], d['body']['request']['name'], d['body']['request']['namespace'], d['body']['request']['kind'], d['body']['request']['resource'], d['body']['request']['object']['metadata'].get('generateName'), d['body']['request']['dryRun'], d['body']['request']['options']['kind'])")" \
    "('admission.k8s.io/v1', 'CREATE', '', 'default', {'group': '', 'version': 'v1', 'kind': 'ConfigMap'}, {'group': '', 'version': 'v1', 'resource': 'configmaps'}, 'gen-', False, 'CreateOptions')"
check "validating webhook saw the mutated object" contains "$(grep '/validate?' "$T/hook.log" | tail -1)" '"mutated": "true"'

# objectSelector / namespaceSelector
out=$(cm plain '{"other":"x"}')
check "objectSelector: not mutated" eq "$(echo "$out" | lbl mutated)" ""
api POST /api/v1/namespaces -H 'Content-Type: application/json' \
    -d '{"metadata":{"name":"quiet","labels":{"hooks":"off"}}}' >/dev/null
out=$(NS=quiet cm m2 '{"target":"yes"}')
check "namespaceSelector excludes namespace: not mutated" eq "$(echo "$out" | lbl mutated)" ""
check "... and the validator (no namespaceSelector) rejects it" eq "$(code)" 422

# reinvocation: a ran before b added its label, and ran again after
out=$(cm r1 '{"reinv":"yes"}')
check "reinvocationPolicy IfNeeded re-ran the first webhook" eq \
    "$(echo "$out" | jq_py "d['metadata']['annotations']['a-saw-b']")" true

# denials
out=$(cm d1 '{"deny":"yes"}')
check "denied with the webhook's code" eq "$(code)" 403
check "denial message" contains "$out" 'admission webhook \"deny.test.io\" denied the request: no thanks'
out=$(cm d2 '{"bare":"yes"}')
check "bare denial is 400" eq "$(code)" 400
check "bare denial message" contains "$out" 'denied the request without explanation'
out=$(K create configmap x --dry-run=client -o json | $PY -c "import json,sys;d=json.load(sys.stdin);d['metadata']['labels']={'deny':'yes'};d['metadata']['name']='d3';print(json.dumps(d))" | K create -f - 2>&1)
check "kubectl prints the denial" contains "$out" 'admission webhook "deny.test.io" denied the request: no thanks'

# failurePolicy, timeouts, bad responses
out=$(cm f1 '{"fail":"yes"}')
check "failurePolicy Fail: 500" eq "$(code)" 500
check "failure message" contains "$out" 'failed calling webhook \"fail.test.io\": failed to call webhook: Post \"https://127.0.0.1:1/x?timeout=10s\"'
cm i1 '{"ignore":"yes"}' >/dev/null
check "failurePolicy Ignore: created" eq "$(code)" 201
t0=$(date +%s%N)
out=$(cm s1 '{"slow":"yes"}')
t1=$(date +%s%N)
check "timeoutSeconds 1: failed" eq "$(code)" 500
check "timeoutSeconds 1: within 2.5 s" test $(((t1 - t0) / 1000000)) -lt 2500
out=$(cm u1 '{"uid":"yes"}')
check "wrong response uid: 500" eq "$(code)" 500
check "wrong uid message" contains "$out" 'expected response.uid'
cm b1 '{"badpatch":"yes"}' >/dev/null
check "unappliable patch: 500" eq "$(code)" 500
out=$(cm dry1 '{"sidefx":"yes"}' '?dryRun=All')
check "dry run with sideEffects Unknown: 400" eq "$(code)" 400
check "dry run message" contains "$out" 'does not support dry run'
cm dry2 '{"target":"yes"}' '?dryRun=All' >/dev/null
check "dry run with sideEffects None: 201" eq "$(code)" 201
check "dryRun true in the review" contains "$(grep '/mutate?' "$T/hook.log" | tail -1)" '"dryRun": true'

# UPDATE and DELETE; the old object travels too
api PATCH /api/v1/namespaces/default/configmaps/m1 -H 'Content-Type: application/merge-patch+json' \
    -d '{"data":{"k":"v2"}}' >/dev/null
check "update 200" eq "$(code)" 200
check "UPDATE review has oldObject" contains "$(grep '/validate?' "$T/hook.log" | tail -1 | jq_py "(d['body']['request']['operation'], d['body']['request']['oldObject']['data'])")" "('UPDATE', {'k': 'v'})"
api PATCH /api/v1/namespaces/default/configmaps/plain -H 'Content-Type: application/merge-patch+json' \
    -d '{"metadata":{"labels":{"deny":"yes"}}}' >/dev/null
check "update into the selector is denied" eq "$(code)" 403
api POST /api/v1/namespaces/default/configmaps -H 'Content-Type: application/json' \
    -d '{"metadata":{"name":"keep","labels":{"deny":"yes"}}}' >/dev/null
check "create denied too" eq "$(code)" 403

# subresources: jobs/status only
api POST /apis/batch/v1/namespaces/default/jobs -H 'Content-Type: application/json' -d '{"metadata":{"name":"j1","labels":{"denystatus":"yes"}},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}}' >/dev/null
api PATCH /apis/batch/v1/namespaces/default/jobs/j1 -H 'Content-Type: application/merge-patch+json' -d '{"metadata":{"annotations":{"a":"b"}}}' >/dev/null
check "jobs main resource not matched by jobs/status" eq "$(code)" 200
api PATCH /apis/batch/v1/namespaces/default/jobs/j1/status -H 'Content-Type: application/merge-patch+json' -d '{"status":{"active":1}}' >/dev/null
check "jobs/status matched" eq "$(code)" 403
check "status review has subResource" contains "$(grep '/deny?' "$T/hook.log" | tail -1)" '"subResource": "status"'

# conversion webhook for a CRD with strategy Webhook and a url
cat >"$T/crd.json" <<JSON
{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.stable.example.com"},
 "spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget"},
 "conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"$H/convert","caBundle":"$CA"}}},
 "versions":[
  {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}},
  {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}
JSON
K apply -f "$T/crd.json" >/dev/null
K wait --for=condition=Established crd/widgets.stable.example.com >/dev/null
api POST /apis/stable.example.com/v2/namespaces/default/widgets -H 'Content-Type: application/json' \
    -d '{"apiVersion":"stable.example.com/v2","kind":"Widget","metadata":{"name":"w1"},"spec":{"replicas":3}}' >/dev/null
check "create through v2: 201" eq "$(code)" 201
check "read in v1: converted by the webhook" eq "$(api GET /apis/stable.example.com/v1/namespaces/default/widgets/w1 | jq_py "d['spec']")" "{'size': 3}"
check "read in v2" eq "$(api GET /apis/stable.example.com/v2/namespaces/default/widgets/w1 | jq_py "(d['apiVersion'], d['spec'])")" "('stable.example.com/v2', {'replicas': 3})"
check "ConversionReview sent" contains "$(grep '/convert' "$T/hook.log" | tail -1 | jq_py "(d['body']['kind'], d['body']['request']['desiredAPIVersion'])")" "('ConversionReview', 'stable.example.com/v"
finish
