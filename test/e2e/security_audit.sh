#!/bin/sh
# Least privilege, checked against what the code does: the controller
# (with leader election) and the webhook server (CA injection) run a job
# and a PyTorchJob through their whole life against turnstile-apiserver
# at --log-level debug, where pkg/kube logs every request it sends
# ("request method=M path=P").  Each request becomes (group, resource,
# verb) as the API server's RBAC authorizer sees it, and that set must
# equal the rules of config/rbac (ClusterRole + leader election Role):
# a request no rule grants would be forbidden on a cluster, a rule no
# request needs is a privilege too many.  The same debug logs, and those of
# a controller refused with a wrong token, must never hold the bearer
# token or key material.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
PORT=$(free_port)
as_start --webhook-service "turnstile-system/turnstile-webhook-service=127.0.0.1:$PORT"
K apply -f crds/ >/dev/null
K apply -f config/external/kubeflow.org_pytorchjobs.yaml >/dev/null
# the ProvisioningRequest check controller watches only when this is served
K apply -f config/external/autoscaling.x-k8s.io_provisioningrequests.yaml >/dev/null
K create namespace turnstile-system >/dev/null
K apply -f config/webhook/manifests.yaml >/dev/null
"$CTL" --webhook-only --webhook-port "$PORT" --health-port -1 --kubeconfig "$KC" --log-level debug \
    --namespace turnstile-system --service-name turnstile-webhook-service >>"$T/webhook.log" 2>&1 &
PIDS="$PIDS $!"
ca_set() {
    [ -n "$(K get crd workloads.kueue.x-k8s.io -o jsonpath='{.spec.conversion.webhook.clientConfig.caBundle}')" ] &&
        [ -n "$(K get validatingwebhookconfiguration turnstile-validating-webhook-configuration -o jsonpath='{.webhooks[0].clientConfig.caBundle}')" ]
}
wait_for "CA injected" ca_set
K apply -f "$CD/queues.yaml" >/dev/null
ctl_start --leader-elect --lease-namespace turnstile-system --log-level debug

job j1
wait_for "j1 admitted" admitted j1
K apply -f "$CD/pytorchjob.yaml" >/dev/null
job j2
wait_for "j2 waits for quota" sh -c "[ \"\$($KUBECTL --kubeconfig $KC get workloads -n team-a -o name | grep -c .)\" = 3 ]"
K patch job j1 -n team-a --subresource=status --type=merge \
    -p '{"status":{"succeeded":1,"conditions":[{"type":"Complete","status":"True","reason":"Completed","lastTransitionTime":"2026-11-22T00:00:00Z"}]}}' >/dev/null
wait_for "j2 admitted after j1 finished" admitted j2
K delete job j2 -n team-a >/dev/null
wait_for "j2's Workload deleted" gone j2
K delete clusterqueue cq --wait=false >/dev/null
sleep 1 # the finalizer removal, if the CQ is unused, happens within a few reconciles

# requests -> "group resource[/sub] verb"
cat "$T/ctl.log" "$T/webhook.log" | sed -n 's/.* kube: request method=\([A-Z]*\) path=\([^ ]*\).*/\1 \2/p' |
    $PY -c '
import sys
from urllib.parse import urlsplit, parse_qs
seen = set()
for line in sys.stdin:
    method, url = line.split()
    u = urlsplit(url)
    parts = u.path.strip("/").split("/")
    if parts[0] == "api":
        group, rest = "", parts[2:]
    else:
        group, rest = parts[1], parts[3:]
    if rest and rest[0] == "namespaces" and len(rest) > 2:
        rest = rest[2:]
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else None
    if len(rest) > 2:
        resource += "/" + rest[2]
    if method == "GET":
        verb = "watch" if parse_qs(u.query).get("watch") == ["true"] else ("get" if name else "list")
    else:
        verb = {"POST": "create", "PUT": "update", "PATCH": "patch",
                "DELETE": "delete" if name else "deletecollection"}[method]
    seen.add(" ".join([group or "core", resource, verb]))
print("\n".join(sorted(seen)))' >"$T/used"

$PY -c '
import yaml
granted = set()
for f in ["config/rbac/role.yaml", "config/rbac/leader_election_role.yaml"]:
    for d in yaml.safe_load_all(open(f)):
        for r in (d or {}).get("rules", []):
            for g in r["apiGroups"]:
                for res in r["resources"]:
                    for v in r["verbs"]:
                        granted.add(" ".join([g or "core", res, v]))
print("\n".join(sorted(granted)))' >"$T/granted"

check "requests were seen" [ "$(grep -c . "$T/used")" -gt 10 ]
check "rules were read" [ "$(grep -c . "$T/granted")" -gt 10 ]
# Used on paths this run does not reach; each stays granted only while the
# code shown still does it.
while IFS='|' read -r rule file pattern; do
    if grep -q -- "$pattern" "$file"; then echo "$rule"; else echo "stale allowance: $rule ($file)" >&2; fi
done >>"$T/used" <<'ALLOW'
core events patch|pkg/kube/events.c|.verb = TS_KUBE_PATCH, .res = &ts_kube_res_events
kueue.x-k8s.io workloads update|pkg/controller/jobs.c|write_workload(c, key, &p->workload, TS_KUBE_UPDATE)
kueue.x-k8s.io workloads get|pkg/controller/sched.c|verify_admission(c, w);
batch jobs/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
kubeflow.org pytorchjobs/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
kubeflow.org tfjobs watch|pkg/controller/jobkind.c|KF("v1", "tfjobs", "TFJob"
kubeflow.org tfjobs update|pkg/controller/jobkind.c|KF("v1", "tfjobs", "TFJob"
kubeflow.org tfjobs/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
kubeflow.org mpijobs watch|pkg/controller/jobkind.c|KF("v2beta1", "mpijobs", "MPIJob"
kubeflow.org mpijobs update|pkg/controller/jobkind.c|KF("v2beta1", "mpijobs", "MPIJob"
kubeflow.org mpijobs/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
kubeflow.org xgboostjobs watch|pkg/controller/jobkind.c|KF("v1", "xgboostjobs", "XGBoostJob"
kubeflow.org xgboostjobs update|pkg/controller/jobkind.c|KF("v1", "xgboostjobs", "XGBoostJob"
kubeflow.org xgboostjobs/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
kubeflow.org paddlejobs watch|pkg/controller/jobkind.c|KF("v1", "paddlejobs", "PaddleJob"
kubeflow.org paddlejobs update|pkg/controller/jobkind.c|KF("v1", "paddlejobs", "PaddleJob"
kubeflow.org paddlejobs/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
kubeflow.org jaxjobs watch|pkg/controller/jobkind.c|KF("v1", "jaxjobs", "JAXJob"
kubeflow.org jaxjobs update|pkg/controller/jobkind.c|KF("v1", "jaxjobs", "JAXJob"
kubeflow.org jaxjobs/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
jobset.x-k8s.io jobsets watch|pkg/controller/jobkind.c|{TS_JOBSET_GROUP, "v1alpha2", "jobsets", TS_JOBSET_KIND, 1}
jobset.x-k8s.io jobsets update|pkg/controller/jobkind.c|{TS_JOBSET_GROUP, "v1alpha2", "jobsets", TS_JOBSET_KIND, 1}
jobset.x-k8s.io jobsets/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
ray.io rayjobs watch|pkg/controller/jobkind.c|{"ray.io", "v1", "rayjobs", "RayJob", 1}
ray.io rayjobs update|pkg/controller/jobkind.c|{"ray.io", "v1", "rayjobs", "RayJob", 1}
ray.io rayjobs/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
ray.io rayclusters watch|pkg/controller/jobkind.c|{"ray.io", "v1", "rayclusters", "RayCluster", 1}
ray.io rayclusters update|pkg/controller/jobkind.c|{"ray.io", "v1", "rayclusters", "RayCluster", 1}
ray.io rayclusters/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
trainer.kubeflow.org trainjobs list|pkg/controller/jobkind.c|{TS_TRAINER_GROUP, "v1alpha1", "trainjobs", TS_TRAINJOB_KIND, 1}
trainer.kubeflow.org trainjobs watch|pkg/controller/jobkind.c|{TS_TRAINER_GROUP, "v1alpha1", "trainjobs", TS_TRAINJOB_KIND, 1}
trainer.kubeflow.org trainjobs update|pkg/controller/jobkind.c|{TS_TRAINER_GROUP, "v1alpha1", "trainjobs", TS_TRAINJOB_KIND, 1}
trainer.kubeflow.org trainjobs/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
trainer.kubeflow.org trainingruntimes list|pkg/controller/manager.c|= &ts_kube_res_trainingruntimes,
trainer.kubeflow.org trainingruntimes watch|pkg/controller/manager.c|= &ts_kube_res_trainingruntimes,
trainer.kubeflow.org clustertrainingruntimes list|pkg/controller/manager.c|= &ts_kube_res_clustertrainingruntimes,
trainer.kubeflow.org clustertrainingruntimes watch|pkg/controller/manager.c|= &ts_kube_res_clustertrainingruntimes,
coordination.k8s.io leases update|pkg/kube/leader.c|create ? TS_KUBE_CREATE : TS_KUBE_UPDATE
core secrets update|pkg/webhook/certsync.c|r.verb = TS_KUBE_UPDATE;
batch jobs/status update|pkg/controller/jobs.c|r.subresource = p->ops & TS_JOBPLAN_UPDATE_JOB_STATUS ? "status" : NULL;
kueue.x-k8s.io clusterqueues patch|pkg/controller/finalize.c|res = cq ? &ts_kube_res_clusterqueues : &ts_kube_res_resourceflavors;
kueue.x-k8s.io resourceflavors patch|pkg/controller/finalize.c|res = cq ? &ts_kube_res_clusterqueues : &ts_kube_res_resourceflavors;
autoscaling.x-k8s.io provisioningrequests create|pkg/controller/provreq.c|r.res = &ts_kube_res_provisioningrequests;
autoscaling.x-k8s.io provisioningrequests delete|pkg/controller/provreq.c|write_obj(b, TS_KUBE_DELETE, &ts_kube_res_provisioningrequests
core podtemplates create|pkg/controller/provreq.c|write_obj(b, TS_KUBE_CREATE, &ts_kube_res_podtemplates
core podtemplates update|pkg/controller/provreq.c|write_obj(b, TS_KUBE_UPDATE, &ts_kube_res_podtemplates
kueue.x-k8s.io admissionchecks/status update|pkg/controller/provreq.c|write_obj(b, TS_KUBE_UPDATE, &ts_kube_res_admissionchecks, upd, "status")
core pods update|pkg/controller/jobkind.c|{"", "v1", "pods", "Pod", 1}
core pods delete|pkg/controller/jobs.c|TS_JOBPLAN_DELETE_JOB ? TS_KUBE_DELETE
core pods/finalizers update|pkg/api/jobworkload.c|block_owner_deletion.v = 1
ALLOW
sort -u -o "$T/used" "$T/used"
missing=$(comm -23 "$T/used" "$T/granted")
extra=$(comm -13 "$T/used" "$T/granted")
check "every request the code makes is granted by config/rbac" eq "$missing" ""
check "config/rbac grants nothing the code does not use" eq "$extra" ""
# no credential in the logs, even at debug level
for f in ctl.log webhook.log; do
    check "$f written at debug level" grep -q " D kube: request" "$T/$f"
    check "no bearer token in $f" sh -c "! grep -qF -- '$TOKEN' '$T/$f'"
    check "no key material in $f" sh -c "! grep -q 'PRIVATE KEY' '$T/$f'"
done
sed "s/$TOKEN/wrong-secret-token-$$/" "$KC" >"$T/wrong.kc"
check "the wrong token is in its kubeconfig" grep -q "wrong-secret-token-$$" "$T/wrong.kc"
"$CTL" --kubeconfig "$T/wrong.kc" --metrics-bind-address 0 --log-level debug >"$T/wrong.log" 2>&1 &
WPID=$!
PIDS="$PIDS $WPID"
wait_for "the refused controller logs the 401" grep -q -i "401\|unauthorized" "$T/wrong.log"
kill "$WPID" 2>/dev/null
check "no wrong token in the refused controller's log" sh -c "! grep -qF -- 'wrong-secret-token-$$' '$T/wrong.log'"

echo "used (group resource verb):"
sed 's/^/  /' "$T/used"
ctl_check_log
finish
