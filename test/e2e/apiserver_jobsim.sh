#!/bin/sh
# --simulate-job-runtime: unsuspended Jobs and PyTorchJobs get startTime
# and active/ready, complete after the runtime (or the
# turnstile.dev/simulated-runtime annotation) with the status a real
# controller writes; suspending clears active and startTime.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
as_start --simulate-job-runtime 1s

job() { # name suspend [annotation-runtime]
    ann=""
    [ -n "${3:-}" ] && ann=",\"annotations\":{\"turnstile.dev/simulated-runtime\":\"$3\"}"
    api POST /apis/batch/v1/namespaces/default/jobs -H 'Content-Type: application/json' -d "{\"metadata\":{\"name\":\"$1\"$ann},\"spec\":{\"parallelism\":2,\"completions\":4,\"suspend\":$2,\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"x\"}]}}}}" >/dev/null
}
waitc() { K wait --for=condition="$1" "$2" --timeout=5s >/dev/null 2>&1; }
st() { api GET "/apis/batch/v1/namespaces/default/jobs/$1" | jq_py "$2"; }

job run false
job held true
job long false 30s
sleep 0.3
check "running job: startTime, active, ready" eq "$(st run "(bool(d['status'].get('startTime')), d['status'].get('active'), d['status'].get('ready'))")" "(True, 2, 2)"
check "suspended job: no startTime" eq "$(st held "d.get('status', {}).get('startTime')")" None
check "kubectl wait --for=condition=Complete" waitc Complete job/run
check "completed status" eq "$(st run "(d['status'].get('succeeded'), d['status'].get('active'), d['status'].get('ready'), bool(d['status'].get('completionTime')), [c['type'] for c in d['status']['conditions']])")" "(4, None, 0, True, ['SuccessCriteriaMet', 'Complete'])"
check "annotation runtime: still running" eq "$(st long "d['status'].get('active')")" 2
api PATCH /apis/batch/v1/namespaces/default/jobs/long -H 'Content-Type: application/merge-patch+json' -d '{"spec":{"suspend":true}}' >/dev/null
sleep 0.3
check "suspended again: active and startTime cleared" eq "$(st long "(d['status'].get('active'), d['status'].get('startTime'), [(c['type'], c['status']) for c in d['status']['conditions']])")" "(None, None, [('Suspended', 'True')])"
api PATCH /apis/batch/v1/namespaces/default/jobs/held -H 'Content-Type: application/merge-patch+json' -d '{"spec":{"suspend":false},"metadata":{"annotations":{"turnstile.dev/simulated-runtime":"200ms"}}}' >/dev/null
check "unsuspended with a 200ms annotation completes" waitc Complete job/held

# PyTorchJob (kubeflow.org CRD, minimal schema)
cat >"$T/ptj-crd.yaml" <<'Y'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: pytorchjobs.kubeflow.org}
spec:
  group: kubeflow.org
  scope: Namespaced
  names: {plural: pytorchjobs, singular: pytorchjob, kind: PyTorchJob}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
Y
K apply -f "$T/ptj-crd.yaml" >/dev/null
K wait --for=condition=Established crd/pytorchjobs.kubeflow.org >/dev/null
api POST /apis/kubeflow.org/v1/namespaces/default/pytorchjobs -H 'Content-Type: application/json' -d '{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"pt","annotations":{"turnstile.dev/simulated-runtime":"500ms"}},"spec":{"runPolicy":{"suspend":false},"pytorchReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":3}}}}' >/dev/null
sleep 0.2
check "PyTorchJob running" eq "$(api GET /apis/kubeflow.org/v1/namespaces/default/pytorchjobs/pt | jq_py "(d['status']['replicaStatuses'], [c['type'] for c in d['status']['conditions'] if c['status'] == 'True'])")" "({'Master': {'active': 1}, 'Worker': {'active': 3}}, ['Created', 'Running'])"
check "PyTorchJob succeeds" waitc Succeeded pytorchjob/pt
check "PyTorchJob final status" eq "$(api GET /apis/kubeflow.org/v1/namespaces/default/pytorchjobs/pt | jq_py "(d['status']['replicaStatuses'], bool(d['status'].get('completionTime')))")" "({'Master': {'succeeded': 1}, 'Worker': {'succeeded': 3}}, True)"
finish
