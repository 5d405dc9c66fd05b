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
check "401 without token" eq "$(cat "$T/c")" "401"
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
check "422 message" contains "$out" "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"
# a body that is not JSON: 400 naming the place, on create and on update
out=$(api POST $CQ $J -d '{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue",')
check "400 on a broken JSON create" eq "$(code)" "400"
check "broken JSON create message" contains "$out" "couldn't decode the request body: invalid JSON at line 1"
out=$(api PUT $CQ/a $J -d '{"metadata": nope}')
check "400 on a broken JSON update" eq "$(code)" "400"
check "broken JSON update message" contains "$out" "couldn't decode the request body: invalid JSON"
# a body of another version than the URL's is refused (kube-apiserver's 400)
out=$(api PUT $CQ/a $J -d "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"$RV1\"},\"spec\":{}}")
check "400 other apiVersion on PUT" eq "$(code)" "400"
check "400 apiVersion message" contains "$out" "the API version in the data (kueue.x-k8s.io/v1beta2) does not match the expected API version (kueue.x-k8s.io/v1beta1)"
api POST $CQ $J -d '{"apiVersion":"v1","kind":"ClusterQueue","metadata":{"name":"other-version"}}' >/dev/null
check "400 other apiVersion on POST" eq "$(code)" "400"
api POST $CQ $J -d '{"kind":"ClusterQueue","metadata":{"name":"no-version"}}' >/dev/null
check "a body without apiVersion takes the URL's" eq "$(code)" "201"
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
check "Warn: Warning header" contains "$(cat "$T/h")" 'Warning: 299 - "unknown field \"spec.foo\""'

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
check "last page has no continue" eq "$(printf "%s\n" "$out2" | jq_py '"continue" in d["metadata"]')" "False"

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

# watch: replay from RV, bookmarks, timeout
START=$(api GET "$CQ" | jq_py 'd["metadata"]["resourceVersion"]')
api PATCH $CQ/a $MP -d '{"spec":{"cohort":"w1"}}' >/dev/null
api DELETE $CQ/a >/dev/null
out=$(curl -sk -m 10 -H "Authorization: Bearer $TOKEN" "$URL$CQ?watch=True&resourceVersion=$START&timeoutSeconds=1&allowWatchBookmarks=true")
check "watch events" eq "$(printf "%s\n" "$out" | $PY -c 'import sys,json; print([json.loads(l)["type"] for l in sys.stdin if l.strip()])')" "['MODIFIED', 'DELETED', 'BOOKMARK']"
out=$(curl -sk -m 10 -H "Authorization: Bearer $TOKEN" "$URL$CQ?watch=1&timeoutSeconds=1&labelSelector=n%3D1")
check "watch initial ADDED with selector" eq "$(printf "%s\n" "$out" | $PY -c 'import sys,json; print([json.loads(l)["type"] for l in sys.stdin if l.strip()])')" "['ADDED']"
for i in $(seq 1 60); do api PATCH $CQ/$(api GET "$CQ?labelSelector=n%3D1" | jq_py 'd["items"][0]["metadata"]["name"]') $MP -d "{\"metadata\":{\"annotations\":{\"i\":\"$i\"}}}" >/dev/null; done
out=$(curl -sk -m 10 -H "Authorization: Bearer $TOKEN" "$URL$CQ?watch=true&resourceVersion=$START")
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
out=$(api PATCH /apis/batch/v1/namespaces/default/jobs/sample-job -H 'Content-Type: application/strategic-merge-patch+json' -d '{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"sidecar"},{"name":"dummy-job"}],"containers":[{"image":"x:2","name":"dummy-job"}]}}}}')
check "SMP merges by name" eq "$(printf "%s\n" "$out" | jq_py '[(c["name"], c["image"], "args" in c) for c in d["spec"]["template"]["spec"]["containers"]]')" "[('sidecar', 'busybox:1.36', False), ('dummy-job', 'x:2', True)]"
curl -sk -D "$T/h" -o /dev/null -X DELETE -H "Authorization: Bearer $TOKEN" "$URL/apis/batch/v1/namespaces/default/jobs/sample-job"
check "job delete orphan warning" contains "$(cat "$T/h")" "child pods are preserved by default"

# discovery negotiation and OpenAPI
curl -sk -D "$T/h" -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json' "$URL/apis"
check "v2beta1 only" contains "$(cat "$T/h")" "Content-Type: application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
out=$(api GET /apis -H 'Accept: application/json')
check "legacy APIGroupList" eq "$(printf "%s\n" "$out" | jq_py 'd["kind"]')" "APIGroupList"
out=$(api GET /openapi/v3)
check "OpenAPI root lists CRD GV" contains "$out" '"apis/kueue.x-k8s.io/v1beta1"'
out=$(api GET /apis/no/such/thing)
check "404 unknown path" eq "$(code)" "404"
out=$(api POST $CQ $J -d '{"broken')
check "400 malformed body" eq "$(code)" "400"
finish
