#!/bin/sh
# As kube-apiserver: a Job's pod template may change only while the stored
# Job is suspended with no active pods and has not started (no startTime)
# or says Suspended=True; otherwise the update is refused with 422
# "spec.template: ... field is immutable".  And a Job's counts, containers
# and restart policy are validated with kube-apiserver's messages.
. "$(dirname "$0")/lib/apiserver.sh"
as_start
J=/apis/batch/v1/namespaces/default/jobs
mk() { # NAME SUSPEND
    api POST $J -H 'Content-Type: application/json' -d "{\"metadata\":{\"name\":\"$1\"},\"spec\":{\"suspend\":$2,\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"x\"}]}}}}" >/dev/null
}
# put_ns NAME: sets a nodeSelector on the template with a PUT; prints the code
put_ns() {
    api GET "$J/$1" | $PY -c 'import json,sys; d=json.load(sys.stdin); d["spec"]["template"]["spec"]["nodeSelector"]={"pool":"x"}; print(json.dumps(d))' >"$T/job.json"
    api PUT "$J/$1" -H 'Content-Type: application/json' --data-binary @"$T/job.json" >"$T/out.json"
    code
}
status() { # NAME JSON-STATUS
    api GET "$J/$1" | $PY -c "import json,sys; d=json.load(sys.stdin); d['status']=json.loads(sys.argv[1]); print(json.dumps(d))" "$2" >"$T/st.json"
    api PUT "$J/$1/status" -H 'Content-Type: application/json' --data-binary @"$T/st.json" >/dev/null
}
mk running false
check "a running Job's template is immutable" eq "$(put_ns running)" 422
check "with Kubernetes' message" grep -q 'spec.template: Invalid value.*field is immutable\|field is immutable' "$T/out.json"
mk fresh true
check "a suspended Job that never started may change" eq "$(put_ns fresh)" 200
mk started true
status started '{"startTime":"2026-11-27T00:00:00Z"}'
check "a suspended Job that started may not" eq "$(put_ns started)" 422
status started '{"startTime":"2026-11-27T00:00:00Z","conditions":[{"type":"Suspended","status":"True","reason":"JobSuspended","lastTransitionTime":"2026-11-27T00:00:01Z"}]}'
check "unless it says Suspended=True" eq "$(put_ns started)" 200
mk busy true
status busy '{"active":2}'
check "not while pods are active" eq "$(put_ns busy)" 422

# and a Job is validated as kube-apiserver does (kubectl's messages)
bad() { # SPEC-JSON: prints what kubectl create says
    echo "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"bad\",\"namespace\":\"default\"},\"spec\":$1}" |
        K create -f - 2>&1
}
out=$(bad '{"template":{"spec":{"containers":[]}}}')
check "no containers, no restartPolicy" contains "$out" "spec.template.spec.containers: Required value"
check "no containers, no restartPolicy" contains "$out" 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'
out=$(bad '{"template":{"spec":{"restartPolicy":"Always","containers":[{"name":"a","image":"x"}]}}}')
check "restartPolicy Always" contains "$out" 'The Job "bad" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'
out=$(bad '{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"a"},{"image":"x"}]}}}')
check "a container without image" contains "$out" "spec.template.spec.containers[0].image: Required value"
check "a container without name" contains "$out" "spec.template.spec.containers[1].name: Required value"
out=$(bad '{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"a","image":"x"},{"name":"a","image":"y"}]}}}')
check "duplicate container names" contains "$out" 'spec.template.spec.containers[1].name: Duplicate value: "a"'
out=$(bad '{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"A_b","image":"x"}]}}}')
check "a container name that is no DNS label" contains "$out" 'spec.template.spec.containers[0].name: Invalid value: "A_b": a lowercase RFC 1123 label must consist of'
out=$(bad '{"parallelism":-1,"completions":-2,"backoffLimit":-1,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"a","image":"x"}]}}}')
check "negative counts" contains "$out" "spec.parallelism: Invalid value: -1: must be greater than or equal to 0"
check "negative counts" contains "$out" "spec.completions: Invalid value: -2: must be greater than or equal to 0"
check "negative counts" contains "$out" "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"
check "nothing created" contains "$(K get jobs -n default 2>&1)" "running"
check "nothing created" ne "$(K get job bad -n default -o name 2>/dev/null)" "job.batch/bad"
finish
