#!/bin/sh
# turnstile-apiserver semantics over plain HTTP requests: resourceVersion
# and 409/422 concurrency, generation, status subresource, no-op writes,
# generateName, label/field selectors, paging, finalizers, watch with
# bookmarks/timeout, 410 Expired, Tables, strategic merge on Jobs, auth,
# discovery negotiation and OpenAPI.
. "$(dirname "$0")/lib/apiserver.sh"
D=$(dirname "$0")/data
as_start --event-history 50
J='-H Content-Type:application/json'
MP='-H Content-Type:application/merge-patch+json'
JP='-H Content-Type:application/json-patch+json'
CQ=/apis/kueue.x-k8s.io/v1beta1/clusterqueues
WL=/apis/kueue.x-k8s.io/v1beta1/namespaces/default/workloads

# auth
curl -sk -o /dev/null -w '%{http_code}' "$URL/api/v1/namespaces" >"$T/c"
# (kube-apiserver maps no credentials to system:anonymous, whom RBAC
# refuses with 403; turnstile-apiserver has no anonymous user)
if ours_only "401 for no credentials"; then
    check "401 without token" eq "$(cat "$T/c")" "401"
else
    check "403 without token" eq "$(cat "$T/c")" "403"
fi
api GET /version >/dev/null
check "version is public" eq "$(code)" "200"

# CRDs from YAML through the API (YAML body accepted on POST)
$PY - "$D/crd-mini-kueue.yaml" >"$T/crds.jsonl" <<'PYEOF'
import json, sys
docs, cur = [], []
for line in open(sys.argv[1]):
    if line.strip() == '---':
        docs.append(''.join(cur)); cur = []
    else:
        cur.append(line)
docs.append(''.join(cur))
for d in docs:
    print(d.replace('\n', '\\n'))
PYEOF
while IFS= read -r doc; do
    printf '%b' "$doc" >"$T/crd.yaml"
    api POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions \
        -H 'Content-Type: application/yaml' --data-binary "@$T/crd.yaml" >/dev/null
    check "create CRD" eq "$(code)" "201"
done <"$T/crds.jsonl"
out=$(api GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterqueues.kueue.x-k8s.io)
check "CRD Established" eq "$(printf "%s\n" "$out" | jq_py '[c["status"] for c in d["status"]["conditions"] if c["type"]=="Established"][0]')" "True"

# create, generation, resourceVersion
out=$(api POST $CQ $J -d '{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"a","labels":{"env":"prod","team":"x"}},"spec":{"cohort":"c1"},"status":{"pendingWorkloads":5}}')
check "create 201" eq "$(code)" "201"
check "generation 1" eq "$(printf "%s\n" "$out" | jq_py 'd["metadata"]["generation"]')" "1"
check "status dropped on create" eq "$(printf "%s\n" "$out" | jq_py '"status" in d')" "False"
RV1=$(printf "%s\n" "$out" | jq_py 'd["metadata"]["resourceVersion"]')
api PUT $CQ/a $J -d '{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"a","resourceVersion":"1"},"spec":{}}' >/dev/null
check "409 stale resourceVersion" eq "$(code)" "409"
out=$(api PUT $CQ/a $J -d '{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"a"},"spec":{}}')
check "422 PUT without resourceVersion" eq "$(code)" "422"
check "422 message" contains "$out" "metadata.resourceVersion: Invalid value: 0: must be specified for an update"
# a body that is not JSON: 400 naming the place, on create and on update
out=$(api POST $CQ $J -d '{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue",')
check "400 on a broken JSON create" eq "$(code)" "400"
check "broken JSON create message" contains "$out" "the object provided is unrecognized (must be of type ClusterQueue): couldn't get version/kind; json parse error: "
out=$(api PUT $CQ/a $J -d '{"metadata": nope}')
check "400 on a broken JSON update" eq "$(code)" "400"
check "broken JSON update message" contains "$out" "the object provided is unrecognized (must be of type ClusterQueue): couldn't get version/kind; json parse error: "
# a body of another version than the URL's is refused (kube-apiserver's 400)
out=$(api PUT $CQ/a $J -d "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"$RV1\"},\"spec\":{}}")
check "400 other apiVersion on PUT" eq "$(code)" "400"
check "400 apiVersion message" contains "$out" "the API version in the data (kueue.x-k8s.io/v1beta2) does not match the expected API version (kueue.x-k8s.io/v1beta1)"
api POST $CQ $J -d '{"apiVersion":"v1","kind":"ClusterQueue","metadata":{"name":"other-version"}}' >/dev/null
check "400 other apiVersion on POST" eq "$(code)" "400"
# a custom resource's body must name its apiVersion and kind; a built-in's
# may leave them to the URL
out=$(api POST $CQ $J -d '{"kind":"ClusterQueue","metadata":{"name":"no-version"}}')
check "a custom resource without apiVersion: 400" eq "$(code)" "400"
check "a custom resource without apiVersion: message" contains "$out" "the API version in the data () does not match the expected API version (kueue.x-k8s.io/v1beta1)"
out=$(api POST $CQ $J -d '{"apiVersion":"kueue.x-k8s.io/v1beta1","metadata":{"name":"no-kind"}}')
check "a custom resource without kind: 400" eq "$(code)" "400"
check "a custom resource without kind: message" contains "$out" "the object provided is unrecognized (must be of type ClusterQueue): Object 'Kind' is missing in '"
api POST /api/v1/namespaces/default/configmaps $J -d '{"metadata":{"name":"no-version"}}' >/dev/null
check "a built-in without apiVersion and kind takes the URL's" eq "$(code)" "201"
api DELETE $CQ/no-version >/dev/null
out=$(api PATCH $CQ/a $MP -d '{"spec":{"cohort":"c2"}}')
check "spec patch bumps generation" eq "$(printf "%s\n" "$out" | jq_py 'd["metadata"]["generation"]')" "2"
out=$(api PATCH $CQ/a $MP -d '{"metadata":{"labels":{"x":"y"}}}')
check "label patch keeps generation" eq "$(printf "%s\n" "$out" | jq_py 'd["metadata"]["generation"]')" "2"
RV2=$(printf "%s\n" "$out" | jq_py 'd["metadata"]["resourceVersion"]')
out=$(api PATCH $CQ/a $MP -d '{"metadata":{"labels":{"x":"y"}}}')
check "no-op patch keeps resourceVersion" eq "$(printf "%s\n" "$out" | jq_py 'd["metadata"]["resourceVersion"]')" "$RV2"
sleep 1.1 # a new second: the field tracker's timestamp must not make it a change
out=$(api PATCH $CQ/a $MP -d '{"metadata":{"labels":{"x":"y"}}}')
check "no-op patch a second later keeps resourceVersion" eq "$(printf "%s\n" "$out" | jq_py 'd["metadata"]["resourceVersion"]')" "$RV2"
out=$(api PATCH $CQ/a/status $MP -d '{"spec":{"cohort":"ignored"},"status":{"pendingWorkloads":3}}')
check "status patch sets status" eq "$(printf "%s\n" "$out" | jq_py 'd["status"]["pendingWorkloads"]')" "3"
check "status patch ignores spec" eq "$(printf "%s\n" "$out" | jq_py 'd["spec"]["cohort"]')" "c2"
check "status patch keeps generation" eq "$(printf "%s\n" "$out" | jq_py 'd["metadata"]["generation"]')" "2"
out=$(api PATCH $CQ/a $MP -d '{"status":{"pendingWorkloads":9}}')
check "main patch ignores status" eq "$(printf "%s\n" "$out" | jq_py 'd["status"]["pendingWorkloads"]')" "3"
out=$(api PATCH $CQ/a $MP -d '{"metadata":{"resourceVersion":"2"},"spec":{"cohort":"z"}}')
check "409 stale RV in patch" eq "$(code)" "409"
check "409 message" contains "$out" 'Operation cannot be fulfilled on clusterqueues.kueue.x-k8s.io \"a\": the object has been modified'
out=$(api PATCH $CQ/a $MP -d '{"spec":{"queueingStrategy":"Bogus","cohort":"Bad_Name"}}')
check "422 two causes" eq "$(printf "%s\n" "$out" | jq_py 'len(d["details"]["causes"])')" "2"
check "422 details kind" eq "$(printf "%s\n" "$out" | jq_py 'd["details"]["kind"]')" "ClusterQueue"
out=$(api PATCH $CQ/a $MP -d '{"spec":{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"f","resources":[{"name":"cpu","nominalQuota":"9"}]},{"name":"f","resources":[{"name":"cpu","nominalQuota":1}]}]}]}}')
check "422 duplicate list-map key" contains "$out" 'spec.resourceGroups[0].flavors[1]: Duplicate value'
out=$(api PATCH "$CQ/a?fieldValidation=Strict" $MP -d '{"spec":{"foo":1}}')
check "400 strict unknown field" contains "$out" 'strict decoding error: unknown field \"spec.foo\"'
curl -sk -D "$T/h" -o /dev/null -X PATCH -H "Authorization: Bearer $TOKEN" $MP -d '{"spec":{"foo":1}}' "$URL$CQ/a"
check "Warn: Warning header" contains "$(sed "s/^warning:/Warning:/I" "$T/h")" 'Warning: 299 - "unknown field \"spec.foo\""'

# generateName, label and field selectors, paging
for i in 1 2 3 4; do
    api POST $CQ $J -d "{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"ClusterQueue\",\"metadata\":{\"generateName\":\"gen-\",\"labels\":{\"n\":\"$i\"}}}" >/dev/null
done
out=$(api GET "$CQ?labelSelector=n")
check "generateName + exists selector" eq "$(printf "%s\n" "$out" | jq_py 'sorted(len(i["metadata"]["name"]) for i in d["items"])')" "[9, 9, 9, 9]"
sel() { api GET "$CQ?labelSelector=$1" | jq_py '",".join(sorted(i["metadata"]["name"] if not i["metadata"]["name"].startswith("gen-") else "g"+i["metadata"]["labels"]["n"] for i in d["items"]))'; }
check "selector =" eq "$(sel 'n%3D2')" "g2"
check "selector ==" eq "$(sel 'n%3D%3D3')" "g3"
check "selector in" eq "$(sel 'n+in+%281%2C4%29')" "g1,g4"
check "selector notin matches missing key" eq "$(sel 'n+notin+%281%2C2%2C3%29')" "a,g4"
check "selector != matches missing key" eq "$(sel 'n%21%3D1,n%21%3D2,n%21%3D3,n%21%3D4')" "a"
check "selector !key" eq "$(sel '%21n')" "a"
check "selector gt" eq "$(sel 'n%3E3')" "g4"
api GET "$CQ?labelSelector=a+b" >/dev/null
check "400 bad selector" eq "$(code)" "400"
out=$(api GET "$CQ?fieldSelector=metadata.name%3Da")
check "field selector metadata.name" eq "$(printf "%s\n" "$out" | jq_py 'len(d["items"])')" "1"
out=$(api GET "$CQ?fieldSelector=spec.cohort%3Da")
check "400 unsupported field" contains "$out" "field label not supported: spec.cohort"
out=$(api GET "$CQ?limit=2")
check "limit 2" eq "$(printf "%s\n" "$out" | jq_py 'len(d["items"])')" "2"
C=$(printf "%s\n" "$out" | jq_py 'd["metadata"]["continue"]')
check "remainingItemCount" eq "$(printf "%s\n" "$out" | jq_py 'd["metadata"]["remainingItemCount"]')" "3"
out=$(api GET "$CQ?limit=2&continue=$C")
out2=$(api GET "$CQ?limit=2&continue=$(printf "%s\n" "$out" | jq_py 'd["metadata"]["continue"]')")
check "paging covers all" eq "$(printf "%s\n" "$out2" | jq_py 'len(d["items"])')" "1"
check "last page has an empty continue (unstructured)" eq "$(printf "%s\n" "$out2" | jq_py 'repr(d["metadata"].get("continue"))')" "''"

# finalizers and deletionTimestamp
api POST $WL $J -d '{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Workload","metadata":{"name":"w","finalizers":["kueue.x-k8s.io/resource-in-use"]},"spec":{"podSets":[{"count":1}]}}' >/dev/null
check "create workload" eq "$(code)" "201"
out=$(api DELETE $WL/w)
check "delete with finalizer 200" eq "$(code)" "200"
check "deletionTimestamp set" eq "$(printf "%s\n" "$out" | jq_py '"deletionTimestamp" in d["metadata"]')" "True"
api GET $WL/w >/dev/null
check "still visible" eq "$(code)" "200"
out=$(api PATCH $WL/w $MP -d '{"metadata":{"finalizers":["kueue.x-k8s.io/resource-in-use","x.io/new"]}}')
check "no new finalizers while deleting" contains "$out" "no new finalizers can be added if the object is being deleted"
api PATCH $WL/w $JP -d '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null
check "remove finalizers" eq "$(code)" "200"
api GET $WL/w >/dev/null
check "gone after finalizers" eq "$(code)" "404"

# watch: replay from RV, a bookmark 2 s before the timeout
START=$(api GET "$CQ" | jq_py 'd["metadata"]["resourceVersion"]')
api PATCH $CQ/a $MP -d '{"spec":{"cohort":"w1"}}' >/dev/null
api DELETE $CQ/a >/dev/null
out=$(curl -sk -m 10 -H "Authorization: Bearer $TOKEN" "$URL$CQ?watch=True&resourceVersion=$START&timeoutSeconds=3&allowWatchBookmarks=true")
types=$(printf "%s\n" "$out" | $PY -c 'import sys,json; print([json.loads(l)["type"] for l in sys.stdin if l.strip()])')
# (kube-apiserver's bookmark is best-effort: its watch cache's timer)
ours_only "a bookmark for sure" || types=$(echo "$types" | sed "s/, 'BOOKMARK'//; s/]\$/, 'BOOKMARK']/")
check "watch events" eq "$types" "['MODIFIED', 'DELETED', 'BOOKMARK']"
out=$(curl -sk -m 10 -H "Authorization: Bearer $TOKEN" "$URL$CQ?watch=1&timeoutSeconds=1&labelSelector=n%3D1")
check "watch initial ADDED with selector" eq "$(printf "%s\n" "$out" | $PY -c 'import sys,json; print([json.loads(l)["type"] for l in sys.stdin if l.strip()])')" "['ADDED']"
for i in $(seq 1 60); do api PATCH $CQ/$(api GET "$CQ?labelSelector=n%3D1" | jq_py 'd["items"][0]["metadata"]["name"]') $MP -d "{\"metadata\":{\"annotations\":{\"i\":\"$i\"}}}" >/dev/null; done
out=$(curl -sk -m 10 -H "Authorization: Bearer $TOKEN" "$URL$CQ?watch=true&resourceVersion=$START")
# (kube-apiserver's watch cache keeps 75 s of history, ours --event-history)
ours_only "410 after --event-history writes" &&
    check "410 Expired ERROR event" eq "$(printf "%s\n" "$out" | $PY -c 'import sys,json; e=[json.loads(l) for l in sys.stdin if l.strip()][0]; print(e["type"], e["object"]["code"], e["object"]["reason"])')" "ERROR 410 Expired"

# Table
out=$(api GET "$CQ" -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json')
check "Table columns" eq "$(printf "%s\n" "$out" | jq_py '[c["name"] for c in d["columnDefinitions"]]')" "['Name', 'Cohort', 'Strategy', 'Pending Workloads', 'Admitted Workloads']"
check "Table row object" eq "$(printf "%s\n" "$out" | jq_py 'd["rows"][0]["object"]["kind"]')" "PartialObjectMetadata"

# Job: defaults and strategic merge of containers
out=$(api POST /apis/batch/v1/namespaces/default/jobs -H 'Content-Type: application/yaml' --data-binary "@$D/job.yaml")
check "job namespace mismatch 400" eq "$(code)" "400"
sed 's/namespace: team-a/namespace: default/' "$D/job.yaml" >"$T/job.yaml"
out=$(api POST /apis/batch/v1/namespaces/default/jobs -H 'Content-Type: application/yaml' --data-binary "@$T/job.yaml")
check "job defaults" eq "$(printf "%s\n" "$out" | jq_py '(d["spec"]["backoffLimit"], d["spec"]["completionMode"], d["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"], d["spec"]["template"]["spec"]["dnsPolicy"])')" "(6, 'NonIndexed', '1', 'ClusterFirst')"
# (a suspended Job that never ran may change its containers' resources,
# not their order or images)
out=$(api PATCH /apis/batch/v1/namespaces/default/jobs/sample-job -H 'Content-Type: application/strategic-merge-patch+json' -d '{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"dummy-job"},{"name":"sidecar"}],"containers":[{"resources":{"limits":{"cpu":"1"}},"name":"sidecar"}]}}}}')
check "SMP merges by name" eq "$(printf "%s\n" "$out" | jq_py '[(c["name"], c["image"], "args" in c, c.get("resources")) for c in d["spec"]["template"]["spec"]["containers"]]')" "[('dummy-job', 'registry.k8s.io/e2e-test-images/agnhost:2.53', True, {'requests': {'cpu': '1', 'memory': '200Mi'}}), ('sidecar', 'busybox:1.36', False, {'limits': {'cpu': '1'}})]"
out=$(api PATCH /apis/batch/v1/namespaces/default/jobs/sample-job -H 'Content-Type: application/strategic-merge-patch+json' -d '{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"sidecar"},{"name":"dummy-job"}]}}}}')
check "containers' order is immutable" eq "$(code)" 422
check "containers' order is immutable" contains "$out" "spec.template.spec: Invalid value"
curl -sk -D "$T/h" -o /dev/null -X DELETE -H "Authorization: Bearer $TOKEN" "$URL/apis/batch/v1/namespaces/default/jobs/sample-job"
check "job delete orphan warning" contains "$(cat "$T/h")" "child pods are preserved by default"

# discovery negotiation and OpenAPI
curl -sk -D "$T/h" -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json' "$URL/apis"
# (v2beta1 is what the 1.32 ours reports as served; 1.33 removed it)
ours_only "aggregated discovery v2beta1" && check "v2beta1 only" contains "$(cat "$T/h")" "Content-Type: application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
out=$(api GET /apis -H 'Accept: application/json')
check "legacy APIGroupList" eq "$(printf "%s\n" "$out" | jq_py 'd["kind"]')" "APIGroupList"
out=$(api GET /openapi/v3)
check "OpenAPI root lists CRD GV" contains "$out" '"apis/kueue.x-k8s.io/v1beta1"'
out=$(api GET /apis/no/such/thing)
check "404 unknown path" eq "$(code)" "404"
out=$(api POST $CQ $J -d '{"broken')
check "400 malformed body" eq "$(code)" "400"
finish
