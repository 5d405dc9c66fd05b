#!/bin/sh
# As kube-apiserver: a Job's pod template may change only while the stored
# Job is suspended with no active pods and has not started (no startTime)
# or says Suspended=True; otherwise the update is refused with 422
# "spec.template: ... field is immutable".
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
finish
