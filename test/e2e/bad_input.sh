#!/bin/sh
# Malformed and hostile objects through turnstile-apiserver, first with no
# webhook, then with Turnstile's webhooks registered (failurePolicy Fail):
# wrong types, huge numbers, negative quantities, 10,000 pod sets, deep
# nesting, invalid UTF-8, missing fields, references to missing queues and
# flavors, cyclic cohorts.  For each one: the problem is reported naming
# the field (the API's or the webhook's refusal, or an event / status
# condition on the object), the controller keeps running, and a good job
# submitted right after is still admitted.  The rows are in
# data/bad_input/table.sh.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
BD=$(dirname "$0")/data/bad_input
PORT=$(free_port)
as_start --webhook-service "turnstile-system/turnstile-webhook-service=127.0.0.1:$PORT"
K apply -f crds/ >/dev/null
K apply -f "$CD/queues.yaml" >/dev/null
K create namespace turnstile-system >/dev/null
ctl_start

# submit HOW NAME BODY: HOW is "k" (kubectl create -f -) or an API path
# (curl POST); keeps a refusal in $ANSWER ("" when the object was stored).
submit() {
    if [ "$1" = k ]; then
        ANSWER=$(printf '%s\n' "$3" | K create -f - 2>&1) && ANSWER=""
    else
        ANSWER=$(printf '%s' "$3" | api POST "$1" -H 'Content-Type: application/json' --data-binary @-)
        case $(code) in 2*) ANSWER="" ;; esac
    fi
}

# reported NAME TEXT: TEXT is in the answer to the submission, or in an
# event about NAME, or in NAME's status conditions (or its Workload's).
reported() {
    case "$ANSWER" in *"$2"*) VIA="refused" && return 0 ;; esac
    VIA="event"
    api GET /api/v1/events | jq_py "'\n'.join(e['reason'] + ': ' + e['message'] for e in d['items'] if e['involvedObject']['name'] == '$1')" |
        grep -F -- "$2" >"$T/via" && return 0
    VIA="status"
    for p in "/clusterqueues/$1" "/namespaces/team-a/localqueues/$1"; do
        api GET "/apis/kueue.x-k8s.io/v1beta2$p" | jq_py "str(d.get('status', {}).get('conditions'))" |
            grep -F -- "$2" >"$T/via" && return 0
    done
    VIA="Workload status"
    api GET /apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads | jq_py "'\n'.join(str(w.get('status')) for w in d['items'] if w['metadata'].get('ownerReferences', [{}])[0].get('name') == '$1')" |
        grep -F -- "$2" >"$T/via"
}

GOOD=0
job_json() {
    sed "s/NAME/$1/" "$BD/good-job.json"
}
running() {
    [ "$(api GET "/apis/batch/v1/namespaces/team-a/jobs/$1" | jq_py "d['spec']['suspend']")" = False ]
}
# A good job after each bad object: admitted (unsuspended), then deleted
# so the next one has the quota.
good_job() {
    GOOD=$((GOOD + 1))
    api POST /apis/batch/v1/namespaces/team-a/jobs -H 'Content-Type: application/json' \
        --data-binary "$(job_json "good-$GOOD")" >/dev/null
    wait_for "[$MODE] good job admitted after: $1" running "good-$GOOD"
    api DELETE "/apis/batch/v1/namespaces/team-a/jobs/good-$GOOD?propagationPolicy=Background" >/dev/null
}

# row DESC NAME TEXT HOW BODY
row() {
    submit "$4" "$2" "$5"
    wait_for "[$MODE] $1: reported, naming '$3' (answer: $(echo "$ANSWER" | head -c 300))" reported "$2" "$3"
    echo "[$MODE] $1: $VIA: $(if [ "$VIA" = refused ]; then echo "$ANSWER"; else cat "$T/via"; fi | head -c 300)"
    kill -0 "$CTL_PID" 2>/dev/null || fail "[$MODE] controller died after: $1"
    good_job "$1"
}

MODE=no-webhook S=a
. "$BD/table.sh"

# the webhooks: configurations applied (failurePolicy Fail), the webhook
# server injects its CA into them
K apply -f config/webhook/manifests.yaml >/dev/null
$WRAP "$CTL" --webhook-only --webhook-port "$PORT" --health-port -1 --kubeconfig "$KC" \
    --namespace turnstile-system --service-name turnstile-webhook-service >>"$T/webhook.log" 2>&1 &
WH_PID=$!
PIDS="$PIDS $WH_PID"
ca_set() {
    [ -n "$(K get validatingwebhookconfiguration turnstile-validating-webhook-configuration -o jsonpath='{.webhooks[0].clientConfig.caBundle}')" ] &&
        [ -n "$(K get mutatingwebhookconfiguration turnstile-mutating-webhook-configuration -o jsonpath='{.webhooks[0].clientConfig.caBundle}')" ]
}
wait_for "CA injected into the webhook configurations" ca_set
MODE=webhook S=b
. "$BD/table.sh"
kill -0 "$WH_PID" 2>/dev/null || fail "webhook server died"

if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/webhook.log"; then
    grep -A30 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/webhook.log" | head -40
    fail "sanitizer report in the webhook log"
fi
echo "$GOOD good jobs admitted between the bad ones"
ctl_check_log
finish
