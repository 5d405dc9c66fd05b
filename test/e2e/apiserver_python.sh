#!/bin/sh
# turnstile-apiserver driven by Debian's python3-kubernetes client:
# CustomObjectsApi and BatchV1Api create/list/watch/patch/replace/delete,
# a 410 on an expired watch, and the DynamicClient (legacy discovery).
. "$(dirname "$0")/lib/apiserver.sh"
D=$(dirname "$0")/data
$PY -c 'import kubernetes' 2>/dev/null || { echo "skip: python3-kubernetes not installed"; exit 77; }
as_start --event-history 20
api POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions -H 'Content-Type: application/yaml' \
    --data-binary "@$($PY -c "
import sys; t=open('$D/crd-mini-kueue.yaml').read().split('\n---\n')[0]; open('$T/cq.yaml','w').write(t); print('$T/cq.yaml')")" >/dev/null
[ "$(code)" = 201 ] || { echo "cannot create CRD"; exit 1; }
KC=$KC TS_SERVER=${TS_SERVER:-ours} $PY - <<'PYEOF' || FAILS=$((FAILS + 1))
import os, sys
from kubernetes import client, config, watch, dynamic
from kubernetes.client.rest import ApiException

config.load_kube_config(os.environ["KC"])
api = client.ApiClient()
co = client.CustomObjectsApi(api)
G, V, P = "kueue.x-k8s.io", "v1beta1", "clusterqueues"
fails = []
# kube-apiserver's bookmarks are best-effort (its watch cache's timer);
# on the real server a running Job's status is written by its controller too
REAL = os.environ["TS_SERVER"] == "real"

def check(desc, cond):
    if not cond:
        fails.append(desc)
        print("FAIL:", desc)

cq = co.create_cluster_custom_object(G, V, P, {"apiVersion": G + "/" + V, "kind": "ClusterQueue",
                                               "metadata": {"name": "py-cq", "labels": {"team": "a"}},
                                               "spec": {}})
check("create defaults", cq["spec"]["queueingStrategy"] == "BestEffortFIFO")
lst = co.list_cluster_custom_object(G, V, P, label_selector="team in (a,b)")
check("list with selector", [i["metadata"]["name"] for i in lst["items"]] == ["py-cq"])
rv = lst["metadata"]["resourceVersion"]
p = co.patch_cluster_custom_object(G, V, P, "py-cq", {"spec": {"cohort": "c"}})
check("merge patch", p["spec"]["cohort"] == "c" and p["metadata"]["generation"] == 2)
s = co.patch_cluster_custom_object_status(G, V, P, "py-cq", {"status": {"pendingWorkloads": 2}})
check("status patch keeps generation", s["metadata"]["generation"] == 2 and s["status"]["pendingWorkloads"] == 2)
cur = co.get_cluster_custom_object(G, V, P, "py-cq")
cur["spec"]["cohort"] = "d"
co.replace_cluster_custom_object(G, V, P, "py-cq", cur)
try:
    co.replace_cluster_custom_object(G, V, P, "py-cq", cur)
    check("stale replace is 409", False)
except ApiException as e:
    check("stale replace is 409", e.status == 409)
co.delete_cluster_custom_object(G, V, P, "py-cq")
events = [(e["type"], e["object"]["metadata"].get("name")) for e in watch.Watch().stream(
    co.list_cluster_custom_object, G, V, P, resource_version=rv, timeout_seconds=3,
    allow_watch_bookmarks=True)]
types = [t for t, _ in events]
if REAL:
    types = [t for t in types if t != "BOOKMARK"] + ["BOOKMARK"]
check("watch events %s" % types, types == ["MODIFIED", "MODIFIED", "MODIFIED", "DELETED", "BOOKMARK"])

for i in range(30):
    co.create_cluster_custom_object(G, V, P, {"apiVersion": G + "/" + V, "kind": "ClusterQueue",
                                              "metadata": {"generateName": "g-"}})
try:
    list(watch.Watch().stream(co.list_cluster_custom_object, G, V, P, resource_version="1",
                              timeout_seconds=2))
    check("410 raised", False)
except ApiException as e:
    check("410 Expired", e.status == 410 and "too old resource version" in str(e.reason))

batch = client.BatchV1Api(api)
job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pyjob"},
       "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never", "containers": [
           {"name": "a", "image": "busybox", "args": ["x"], "resources": {"requests": {"cpu": "100m"}}},
           {"name": "b", "image": "busybox"}]}}}}
j = batch.create_namespaced_job("default", job)
check("job defaults", j.spec.backoff_limit == 6 and j.spec.completions == 1 and j.spec.suspend)
rv = batch.list_namespaced_job("default").metadata.resource_version
# (a suspended Job that never ran may change its pods' resources and
# scheduling directives; the rest of the template is immutable)
j = batch.patch_namespaced_job("pyjob", "default", {"spec": {"template": {"spec": {
    "nodeSelector": {"zone": "a"}, "containers": [
        {"name": "a", "resources": {"limits": {"cpu": "1"}}}]}}}})
c = j.spec.template.spec.containers
check("strategic merge keeps fields", [x.name for x in c] == ["a", "b"] and c[0].args == ["x"]
      and c[0].image == "busybox" and c[0].resources.requests["cpu"] == "100m"
      and c[0].resources.limits["cpu"] == "1" and j.spec.template.spec.node_selector == {"zone": "a"})
try:
    batch.patch_namespaced_job("pyjob", "default", {"spec": {"template": {"spec": {"containers": [
        {"name": "a", "image": "busybox:2"}]}}}})
    check("a Job's image is immutable", False)
except ApiException as e:
    check("a Job's image is immutable", e.status == 422 and "field is immutable" in e.body)
j = batch.patch_namespaced_job("pyjob", "default", [{"op": "replace", "path": "/spec/suspend", "value": False}])
check("json patch", j.spec.suspend is False)
batch.patch_namespaced_job_status("pyjob", "default", {"status": {"active": 1}})
evs = [e["type"] for e in watch.Watch().stream(batch.list_namespaced_job, "default",
                                                 resource_version=rv, timeout_seconds=1)]
check("job watch %s" % evs, evs == ["MODIFIED", "MODIFIED", "MODIFIED"] or
      REAL and len(evs) > 3 and set(evs) == {"MODIFIED"})
batch.delete_namespaced_job("pyjob", "default")

dc = dynamic.DynamicClient(client.ApiClient())
res = dc.resources.get(api_version="kueue.x-k8s.io/v1beta1", kind="ClusterQueue")
check("dynamic list", len(res.get().items) == 30)
ns = dc.resources.get(api_version="v1", kind="Namespace")
check("dynamic core", "default" in [n.metadata.name for n in ns.get().items])
sys.exit(1 if fails else 0)
PYEOF
finish
