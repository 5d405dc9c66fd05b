#!/bin/sh
# What users look at, on a real control plane and on turnstile-apiserver with
# the same scenario (two Jobs admitted and running, one waiting): `kubectl
# get workloads,clusterqueues,localqueues` printer columns (compared between
# the two servers after normalising names' hash suffixes and ages), and
# Debian's python3-kubernetes client listing Workloads (v1beta2) and
# ClusterQueues (v1beta1, through our conversion webhook on the real server).
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
CD=test/e2e/data/controller
# shellcheck disable=SC2034 # read by wait_for (test/e2e/lib/controller.sh)
WAIT_TENTHS=300

# scenario OUT: queues, controller, three 1-cpu jobs in a 2-cpu queue
scenario() {
    K apply -f "$CD/queues.yaml" >/dev/null 2>&1
    K patch clusterqueue cq --type=json \
        -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota","value":"2"}]' >/dev/null
    ctl_start
    for j in a1 a2 a3; do
        kjob "$j"
        wait_for "$j has a Workload" has_wl "$j"
        sleep 1.1 # creation times have second precision: keep the order
    done
    wait_for "a1 admitted" admitted a1
    wait_for "a2 admitted" admitted a2
    a3_waits() { [ "$(wl_cond a3 QuotaReserved reason)" = WaitingForQuota ]; }
    wait_for "a3 waits" a3_waits
    counts() { [ "$(K get cq cq -o jsonpath='{.status.pendingWorkloads}/{.status.admittedWorkloads}')" = 1/2 ]; }
    wait_for "cq status counts" counts
    lq_counts() { [ "$(K get lq -n team-a lq -o jsonpath='{.status.pendingWorkloads}/{.status.admittedWorkloads}')" = 1/2 ]; }
    wait_for "lq status counts" lq_counts
    # names end in a hash of the owner's uid; ages differ
    K get workloads,clusterqueues,localqueues -A 2>&1 | norm >"$1"
    K get workloads -n team-a -o wide 2>&1 | norm >>"$1"
    K get clusterqueues -o wide 2>&1 | norm >>"$1"
}
has_wl() { [ -n "$(wl_of "$1")" ]; }
# the hash suffix of a name keeps its width (columns stay aligned); the age
# is the last column
norm() { sed -E 's/-[0-9a-f]{5}( |$)/-XXXXX\1/; s/ +[0-9]+(s|m[0-9]*s?|h[0-9]*m?)$/  AGE/'; }

k8s_up
crds_apply
wh_start
scenario "$T/real.txt"
echo "--- kubectl get workloads,clusterqueues,localqueues -A (kube-apiserver)"
cat "$T/real.txt"
out=$(cat "$T/real.txt")
check "workloads columns" contains "$out" "QUEUE   RESERVED IN   ADMITTED   FINISHED   AGE"
check "admitted row" contains "$out" "workload.kueue.x-k8s.io/job-a1-XXXXX   lq      cq            True"
check "cq columns" contains "$out" "COHORT   PENDING WORKLOADS"
check "lq columns" contains "$out" "CLUSTERQUEUE   PENDING WORKLOADS   ADMITTED WORKLOADS"

# python3-kubernetes against the real server
if $PY -c 'import kubernetes' 2>/dev/null; then
    KC=$KC $PY - <<'PYEOF' || fail "python3-kubernetes checks"
import os
from kubernetes import client, config
config.load_kube_config(os.environ["KC"])
co = client.CustomObjectsApi()
fails = 0
def check(desc, cond):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", desc)
wl = co.list_namespaced_custom_object("kueue.x-k8s.io", "v1beta2", "team-a", "workloads")
names = sorted(w["metadata"]["name"].rsplit("-", 1)[0] for w in wl["items"])
check("3 workloads listed: %s" % names, names == ["job-a1", "job-a2", "job-a3"])
adm = sorted(w["metadata"]["name"].rsplit("-", 1)[0] for w in wl["items"]
             if any(c["type"] == "Admitted" and c["status"] == "True" for c in w.get("status", {}).get("conditions", [])))
check("admitted: %s" % adm, adm == ["job-a1", "job-a2"])
cq = co.list_cluster_custom_object("kueue.x-k8s.io", "v1beta1", "clusterqueues")
check("v1beta1 list", [c["apiVersion"] for c in cq["items"]] == ["kueue.x-k8s.io/v1beta1"])
b = client.BatchV1Api().list_namespaced_job("team-a")
check("jobs", sorted((j.metadata.name, bool(j.spec.suspend)) for j in b.items) ==
      [("a1", False), ("a2", False), ("a3", True)])
print("python3-kubernetes: %d workloads, %d admitted" % (len(names), len(adm)))
raise SystemExit(1 if fails else 0)
PYEOF
else
    echo "note: python3-kubernetes not installed, its checks not run"
fi

# Kueue's visibility API through the real aggregator: config/visibility's
# APIServices, their Service an ExternalName for 127.0.0.1 (see cluster.sh)
# and the port the controller serves it on
vport=$(sed -n 's/.*visibility API serving on 127.0.0.1:\([0-9]*\).*/\1/p' "$T/ctl.log" | head -1)
K create namespace turnstile-system >/dev/null
K create service externalname turnstile-visibility-server -n turnstile-system \
    --external-name 127.0.0.1 >/dev/null
sed "s/port: 443/port: $vport/" config/visibility/apiservice.yaml | K apply -f - >/dev/null
available() {
    [ "$(K get apiservice v1beta2.visibility.kueue.x-k8s.io -o jsonpath='{.status.conditions[?(@.type=="Available")].status}')" = True ]
}
wait_for "visibility APIService Available" available
out=$(K get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/team-a/localqueues/lq/pendingworkloads 2>&1 |
    jq_py "d['kind'], [(i['metadata']['name'][:6], i['positionInLocalQueue'], i['positionInClusterQueue']) for i in d['items']]")
check "pending workloads through the aggregator" eq "$out" "PendingWorkloadsSummary [('job-a3', 0, 0)]"
out=$(K get --raw /apis/visibility.kueue.x-k8s.io/v1beta1/clusterqueues/cq/pendingworkloads 2>&1 |
    jq_py "d['kind'], len(d['items'])")
check "v1beta1 ClusterQueue pending workloads through the aggregator" eq "$out" "PendingWorkloadsSummary 1"
[ "$FAILS" -eq 0 ] || K get apiservice v1beta2.visibility.kueue.x-k8s.io -o yaml

# the same scenario on turnstile-apiserver, columns compared
kill "$CTL_PID" 2>/dev/null
k8s_down
if [ -x "$BIN" ]; then
    as_start
    K apply -f crds/ >/dev/null
    scenario "$T/ours.txt"
    if ! diff -u "$T/real.txt" "$T/ours.txt" >"$T/diff.txt"; then
        fail "kubectl get output differs between kube-apiserver (-) and turnstile-apiserver (+)"
        cat "$T/diff.txt"
    else
        echo "--- the same on turnstile-apiserver: identical"
    fi
fi
ctl_check_log
finish
