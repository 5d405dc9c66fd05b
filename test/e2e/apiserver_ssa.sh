#!/bin/sh
# Server-side apply: kubectl apply --server-side -f crds/, create, merge
# between managers, removal of fields a manager stops applying,
# managedFields, 409 conflicts naming the field and the other manager,
# --force-conflicts, and conflicts with ordinary (Update) writers.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
as_start

out=$(K apply --server-side -f crds/ 2>&1)
check "apply --server-side -f crds/" contains "$out" "workloads.kueue.x-k8s.io serverside-applied"
out=$(K apply --server-side -f crds/ 2>&1)
check "apply --server-side -f crds/ again" contains "$out" "clusterqueues.kueue.x-k8s.io serverside-applied"
mf=$(K get crd workloads.kueue.x-k8s.io -o json --show-managed-fields | jq_py "[(m['manager'], m['operation']) for m in d['metadata']['managedFields']]")
check "CRD managedFields: kubectl Apply, the status kube-apiserver's" eq "$mf" "[('kubectl', 'Apply'), ('kube-apiserver', 'Update')]"
mf=$(K get crd workloads.kueue.x-k8s.io -o json --show-managed-fields | jq_py "[(m.get('subresource'), sorted(m['fieldsV1'].get('f:status', {}))) for m in d['metadata']['managedFields'] if m['manager'] == 'kube-apiserver']")
check "CRD status owned by kube-apiserver" eq "$mf" "[('status', ['f:acceptedNames', 'f:conditions'])]"
K wait --for=condition=Established crd/clusterqueues.kueue.x-k8s.io >/dev/null

cq() { # manager force spec [metadata-extra]
    api PATCH "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq1?fieldManager=$1&force=$2" \
        -H 'Content-Type: application/apply-patch+yaml' \
        -d "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\",\"metadata\":{\"name\":\"cq1\"${4:-}},\"spec\":$3}"
}
cq alice false '{"cohortName":"team-a","namespaceSelector":{}}' >/dev/null
check "apply creates: 201" eq "$(code)" 201
cq alice false '{"cohortName":"team-a","namespaceSelector":{}}' >/dev/null
check "apply again: 200" eq "$(code)" 200
out=$(cq bob false '{}' ',"labels":{"owner":"bob"}')
check "second manager merges: 200" eq "$(code)" 200
check "both managers' fields present" eq "$(echo "$out" | jq_py "(d['spec'].get('cohortName'), d['metadata']['labels'])")" "('team-a', {'owner': 'bob'})"
check "managedFields per manager" eq "$(echo "$out" | jq_py "sorted((m['manager'], m['operation'], 'f:cohortName' in json.dumps(m['fieldsV1'])) for m in d['metadata']['managedFields'])")" "[('alice', 'Apply', True), ('bob', 'Apply', False)]"

out=$(cq bob false '{"cohortName":"team-b"}' ',"labels":{"owner":"bob"}')
check "conflict: 409" eq "$(code)" 409
# (an Apply manager is named alone; JSON parsed: kube-apiserver indents
# it for curl)
check "conflict message" eq "$(echo "$out" | jq_py "d['message']")" 'Apply failed with 1 conflict: conflict with "alice": .spec.cohortName'
check "conflict cause" eq "$(echo "$out" | jq_py "d['details']")" "{'causes': [{'reason': 'FieldManagerConflict', 'message': 'conflict with \"alice\"', 'field': '.spec.cohortName'}]}"
out=$(cq bob true '{"cohortName":"team-b"}' ',"labels":{"owner":"bob"}')
check "force: 200" eq "$(code)" 200
check "force took the field over" eq "$(echo "$out" | jq_py "(d['spec']['cohortName'], [m['manager'] for m in d['metadata']['managedFields'] if 'f:cohortName' in json.dumps(m['fieldsV1'])])")" "('team-b', ['bob'])"

# alice stops applying cohort (bob owns it now, so it stays) and namespaceSelector (removed)
out=$(cq alice false '{"queueingStrategy":"StrictFIFO"}')
check "field owned by another manager stays" eq "$(echo "$out" | jq_py "d['spec'].get('cohortName')")" team-b
check "field no longer applied is removed" eq "$(echo "$out" | jq_py "'namespaceSelector' in d['spec']")" False
out=$(cq bob false '{}' ',"labels":{"owner":"bob"}')
check "bob drops cohort: removed" eq "$(echo "$out" | jq_py "'cohortName' in d['spec']")" False

# a manager that applies a value another already set becomes its co-owner:
# managedFields change though nothing else does, so the write is stored
cq4() { # manager spec
    api PATCH "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq4?fieldManager=$1" \
        -H 'Content-Type: application/apply-patch+yaml' \
        -d "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\",\"metadata\":{\"name\":\"cq4\"},\"spec\":$2}"
}
cq4 alice '{"cohortName":"shared"}' >/dev/null
out=$(cq4 bob '{"namespaceSelector":{}}')
rv=$(echo "$out" | jq_py "d['metadata']['resourceVersion']")
out=$(cq4 bob '{"namespaceSelector":{},"cohortName":"shared"}')
check "co-owner of an unchanged value: 200" eq "$(code)" 200
check "co-owner of an unchanged value recorded" eq "$(echo "$out" | jq_py "sorted(m['manager'] for m in d['metadata']['managedFields'] if 'f:cohortName' in json.dumps(m['fieldsV1']))")" "['alice', 'bob']"
check "co-owner of an unchanged value: new resourceVersion" ne "$(echo "$out" | jq_py "d['metadata']['resourceVersion']")" "$rv"

# an ordinary writer (Update operation) owns what it changed
api PATCH "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq1?fieldManager=kubectl-patch" \
    -H 'Content-Type: application/merge-patch+json' -d '{"spec":{"cohortName":"patched"}}' >/dev/null
out=$(cq alice false '{"queueingStrategy":"StrictFIFO","cohortName":"mine"}')
check "conflict with an Update manager" eq "$(echo "$out" | jq_py "d['message']")" \
    'Apply failed with 1 conflict: conflict with "kubectl-patch" using kueue.x-k8s.io/v1beta2: .spec.cohortName'

# kubectl end to end: create, conflict text, --force-conflicts
cat >"$T/cq.yaml" <<'Y'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq2}
spec: {cohortName: one, namespaceSelector: {}}
Y
check "kubectl apply --server-side create" contains "$(K apply --server-side -f "$T/cq.yaml" 2>&1)" "serverside-applied"
K patch clusterqueue cq2 --type=merge -p '{"spec":{"cohortName":"two"}}' >/dev/null
out=$(K apply --server-side -f "$T/cq.yaml" 2>&1)
check "kubectl shows the conflict" contains "$out" 'conflict with "kubectl-patch"'
check "kubectl --force-conflicts" contains "$(K apply --server-side --force-conflicts -f "$T/cq.yaml" 2>&1)" "serverside-applied"
check "value forced back" eq "$(K get clusterqueue cq2 -o jsonpath='{.spec.cohortName}')" one
# client-side apply first, then server-side (kubectl migrates last-applied)
sed 's/cq2/cq3/' "$T/cq.yaml" >"$T/cq3.yaml"
K apply -f "$T/cq3.yaml" >/dev/null
check "client-side then server-side apply" contains "$(K apply --server-side -f "$T/cq3.yaml" 2>&1)" "serverside-applied"
finish
