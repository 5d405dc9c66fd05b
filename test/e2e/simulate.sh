#!/bin/sh
# turnstilectl simulate end to end: the seeds in config/samples and Kueue's
# documentation examples go through the real binary; the table and YAML it
# prints are compared with golden files, and bad input must name the file,
# line, object and field.
set -eu
cd "$(dirname "$0")/../.."
bin=${TS_BUILD:-build}/bin/turnstilectl
data=test/e2e/data
ex=../shared/samples/kueue-examples

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now=2026-11-21T10:00:00Z

check() { # name expected actual
    if ! diff -u "$2" "$3"; then
        echo "FAIL: $1 differs from $2"
        exit 1
    fi
    echo "ok: $1"
}

# 1. the seeds (v1beta1, annotation-style queue names) admitted as documented
# shellcheck disable=SC2046
"$bin" simulate -o table --now $now $(ls config/samples/*.yaml | sed 's/^/-f /') >"$tmp/samples.table"
check "samples table" "$data/simulate-samples.table" "$tmp/samples.table"

# 2. Kueue's own examples: single ClusterQueue setup + its sample jobs (Job, PyTorchJob, TFJob)
"$bin" simulate -o table --now $now -f "$ex/admin-single-clusterqueue-setup.yaml" \
    -f "$ex/jobs-sample-job-partial-admission.yaml" -f "$ex/jobs-sample-job.yaml" \
    -f "$ex/jobs-sample-pytorchjob.yaml" -f "$ex/jobs-sample-tfjob.yaml" >"$tmp/examples.table"
check "kueue examples table" "$data/simulate-kueue-examples.table" "$tmp/examples.table"

# 3. -o yaml is what `kubectl get workloads -o yaml` shows for Kueue's sample job
"$bin" simulate -o yaml --now $now -f "$ex/admin-single-clusterqueue-setup.yaml" \
    -f "$ex/jobs-sample-job.yaml" >"$tmp/job.yaml"
check "sample job yaml" "$data/simulate-sample-job.yaml" "$tmp/job.yaml"
"$bin" simulate -o json --now $now -f "$ex/admin-single-clusterqueue-setup.yaml" \
    -f "$ex/jobs-sample-job.yaml" | python3 -c '
import json, sys
wl = json.load(sys.stdin)["items"][0]
a = wl["status"]["admission"]["podSetAssignments"][0]
assert a["resourceUsage"] == {"cpu": "3", "memory": "600Mi"}, a
assert a["count"] == 3 and a["flavors"] == {"cpu": "default-flavor", "memory": "default-flavor"}, a
print("ok: json output")'

# partial admission (job-min-parallelism 5 of 20): the 9 cpu of the queue admit 9 pods
"$bin" simulate -o json --now $now -f "$ex/admin-single-clusterqueue-setup.yaml" \
    -f "$ex/jobs-sample-job-partial-admission.yaml" | python3 -c '
import json, sys
wl = json.load(sys.stdin)["items"][0]
assert wl["spec"]["podSets"][0]["minCount"] == 5, wl["spec"]["podSets"][0]
a = wl["status"]["admission"]["podSetAssignments"][0]
assert a["count"] == 9 and a["resourceUsage"]["cpu"] == "9", a
print("ok: partial admission")'

# fair sharing: --fair-sharing and --config (Kueue's Configuration) change the order
fs=$data/fair-sharing.yaml
"$bin" simulate -o table --now $now -f "$fs" | grep -q 'a2 .*cq-a *True' || { echo "FAIL: classical order"; exit 1; }
"$bin" simulate -o table --now $now --fair-sharing -f "$fs" | grep -q 'b1 .*cq-b *True' ||
    { echo "FAIL: --fair-sharing order"; exit 1; }
"$bin" simulate -o table --now $now --config "$data/fair-sharing-config.yaml" -f "$fs" |
    grep -q 'b1 .*cq-b *True' || { echo "FAIL: --config fair sharing order"; exit 1; }
"$bin" simulate -o json --now $now --fair-sharing --show-queues -f "$fs" | python3 -c '
import json, sys
items = {(i["kind"], i["metadata"]["name"]): i for i in json.load(sys.stdin)["items"]}
a = items[("ClusterQueue", "cq-a")]["status"]
assert a["fairSharing"]["weightedShare"] == 200, a      # borrows 2 of the 10 it could lend
assert a["pendingWorkloads"] == 1 and a["reservingWorkloads"] == 1, a
u = a["flavorsReservation"][0]["resources"][0]
assert u == {"name": "cpu", "total": "4", "borrowed": "2"}, u
assert items[("ClusterQueue", "cq-b")]["status"]["fairSharing"]["weightedShare"] == 300
assert a["conditions"][0]["type"] == "Active" and a["conditions"][0]["status"] == "True"
print("ok: queue status with weighted shares")'
echo "ok: fair sharing flags"

# 4. bad input: exit 1, file:line, object and field named, valid objects still simulated
cat >"$tmp/bad.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: bad-cq
spec:
  namespaceSelector: {}
  queueingStrategy: Sideways
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default-flavor
      resources:
      - name: cpu
        nominalQuota: 4
YAML
set +e
"$bin" simulate -o table --now $now -f "$ex/admin-single-clusterqueue-setup.yaml" -f "$tmp/bad.yaml" \
    -f "$ex/jobs-sample-job.yaml" >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "FAIL: bad input exit code $rc, want 1"; exit 1; }
grep -q "bad.yaml:7: document 1: ClusterQueue \"bad-cq\" is invalid: spec.queueingStrategy: Unsupported value: \"Sideways\"" "$tmp/bad.err" ||
    { echo "FAIL: error message:"; cat "$tmp/bad.err"; exit 1; }
grep -q "cluster-queue   True" "$tmp/bad.out" || { echo "FAIL: valid objects not simulated"; exit 1; }
echo "ok: bad input reported"

# 6. decisions that never settle (two workloads preempting each other in
# turn) stop after TS_SIM_SETTLE_CAP cycles with a warning, not a hang
set +e
timeout 60 "$bin" simulate --now 2026-11-21T10:00:00Z --config "$data/simulate-livelock-config.yaml" \
    -f "$data/simulate-livelock.yaml" >"$tmp/loop.out" 2>"$tmp/loop.err"
rc=$?
set -e
[ "$rc" -eq 0 ] || { echo "FAIL: a preemption loop: exit $rc (124: it hung)"; cat "$tmp/loop.err"; exit 1; }
grep -q "warning: decisions still change after 1000 cycles" "$tmp/loop.err" ||
    { echo "FAIL: no warning for a preemption loop:"; cat "$tmp/loop.err"; exit 1; }
grep -q "name: w00" "$tmp/loop.out" || { echo "FAIL: no state shown after the loop"; exit 1; }
echo "ok: a preemption loop stops with a warning"

# 7. a preemptor stays its queue's head until admitted (Kueue's sticky
# workload): the input that looped before settles as Kueue does, w06
# admitted and w08, its victim, pending
"$bin" simulate -o json --now 2026-11-21T10:00:00Z --config "$data/simulate-settles-config.yaml" \
    -f "$data/simulate-settles.yaml" >"$tmp/settle.json" 2>"$tmp/settle.err"
! grep -q "still change" "$tmp/settle.err" || { echo "FAIL: it did not settle:"; cat "$tmp/settle.err"; exit 1; }
/usr/bin/python3 -c '
import json, sys
st = {i["metadata"]["name"]: {c["type"]: c["status"] for c in i.get("status", {}).get("conditions", [])}
      for i in json.load(sys.stdin)["items"] if i["kind"] == "Workload"}
assert st["w06"].get("Admitted") == "True", st["w06"]
assert st["w08"].get("QuotaReserved") == "False", st["w08"]
' <"$tmp/settle.json" || { echo "FAIL: settled otherwise"; exit 1; }
echo "ok: a former preemption loop settles as Kueue"

# 5. usage errors
set +e
"$bin" simulate >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "FAIL: no -f should exit 2, got $rc"; exit 1; }
echo "ok: usage"
