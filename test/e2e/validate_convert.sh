#!/bin/sh
# turnstilectl validate and convert end to end: the webhook's answer per
# document (text and -o json, with field errors and the defaulted object),
# the exit codes, and v1beta1 <-> v1beta2 conversion round trips.
set -eu
cd "$(dirname "$0")/../.."
bin=${TS_BUILD:-build}/bin/turnstilectl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/objs.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: cq
spec:
  cohort: team
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: "1.5"
        lendingLimit: "2"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: wl
spec:
  queueName: q
  podSets:
  - count: 1
    template:
      spec:
        containers:
        - name: c
          resources:
            requests:
              cpu: "1"
YAML

rc=0
"$bin" validate -f "$tmp/objs.yaml" >"$tmp/out.txt" || rc=$?
test "$rc" = 1
grep -q '^ClusterQueue/cq: refused: spec.resourceGroups\[0\].flavors\[0\].resources\[0\].lendingLimit: Invalid value: "2": must be less than or equal to the nominalQuota' "$tmp/out.txt"
grep -q '^Workload/wl: accepted$' "$tmp/out.txt"
echo "ok: text"

"$bin" validate -f "$tmp/objs.yaml" -o json >"$tmp/out.json" || true
python3 - "$tmp/out.json" <<'PY'
import json, sys
cq, wl = [json.loads(l) for l in open(sys.argv[1])]
assert cq["allowed"] is False and cq["kind"] == "ClusterQueue", cq
assert [e["field"] for e in cq["errors"]] == ["spec.resourceGroups[0].flavors[0].resources[0].lendingLimit"], cq
assert cq["errors"][0]["type"] == "FieldValueInvalid", cq
assert wl["allowed"] is True and wl["namespace"] == "default" and wl["errors"] == [], wl
o = wl["object"]
assert o["apiVersion"] == "kueue.x-k8s.io/v1beta2", o
assert o["spec"]["podSets"][0]["name"] == "main" and o["spec"]["active"] is True, o
assert "kueue.x-k8s.io/resource-in-use" in o["metadata"]["finalizers"], o
PY
echo "ok: json"

"$bin" convert --to v1beta2 -f "$tmp/objs.yaml" >"$tmp/v2.json"
grep -q '"cohortName":"team"' "$tmp/v2.json"
"$bin" convert --to v1beta2 -o yaml -f "$tmp/objs.yaml" >"$tmp/v2.yaml"
"$bin" convert --to v1beta1 -o yaml -f "$tmp/v2.yaml" >"$tmp/v1.yaml"
"$bin" convert --to v1beta2 -o yaml -f "$tmp/v1.yaml" >"$tmp/v2b.yaml"
cmp "$tmp/v2.yaml" "$tmp/v2b.yaml"
grep -q '^  cohort: team' "$tmp/v1.yaml"
echo "ok: convert round trip"

if "$bin" convert -f "$tmp/objs.yaml" 2>"$tmp/err"; then exit 1; fi
grep -q 'required' "$tmp/err"
echo 'apiVersion: v1
kind: ConfigMap
metadata: {name: x}' >"$tmp/cm.yaml"
if "$bin" validate -f "$tmp/cm.yaml" -o json >"$tmp/cm.json"; then exit 1; fi
grep -q '"error":"unsupported object: apiVersion \\"v1\\", kind \\"ConfigMap\\""' "$tmp/cm.json"
echo "ok: errors"

# --crds: the API server's own checks from the CRDs come first, as in a
# cluster: a CRD-only rule (admissionChecks minItems), ObjectMeta (a label
# value), the namespace of a cluster-scoped object dropped
cat >"$tmp/crd.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: acs, namespace: team-a}
spec:
  admissionChecksStrategy: {admissionChecks: []}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: rf
  labels: {team: "not a label value"}
YAML
"$bin" validate -f "$tmp/crd.yaml" >"$tmp/nocrd.txt" || true
grep -q '^ClusterQueue/acs: accepted$' "$tmp/nocrd.txt"
rc=0
"$bin" validate --crds crds -f "$tmp/crd.yaml" -o json >"$tmp/crd.json" || rc=$?
test "$rc" = 1
python3 - "$tmp/crd.json" <<'PY'
import json, sys
cq, rf = [json.loads(l) for l in open(sys.argv[1])]
assert cq["allowed"] is False and "namespace" not in cq, cq
assert [e["field"] for e in cq["errors"]] == ["spec.admissionChecksStrategy.admissionChecks"], cq
assert "should have at least 1 items" in cq["errors"][0]["message"], cq
assert rf["allowed"] is False and rf["errors"][0]["field"] == "metadata.labels", rf
assert "a valid label must be an empty string" in rf["errors"][0]["message"], rf
PY
if "$bin" validate --crds "$tmp/no-such-dir" -f "$tmp/crd.yaml" 2>"$tmp/err"; then exit 1; fi
grep -q -- "--crds $tmp/no-such-dir: cannot read the directory" "$tmp/err"
echo "ok: --crds"

# --old: an UPDATE of the stored objects of FILE.  A LocalQueue's
# clusterQueue is immutable (CRD transition rule); a change of the object
# keeps the stored status; on --subresource status everything but the
# status is kept, and the status alone is checked against its schema.
cat >"$tmp/old.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq-a}
status: {pendingWorkloads: 1}
YAML
cat >"$tmp/new.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq-b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a, labels: {tier: gold}}
spec: {clusterQueue: cq-a, stopPolicy: Hold}
status: {pendingWorkloads: 9}
YAML
rc=0
"$bin" validate --crds crds --old "$tmp/old.yaml" -f "$tmp/new.yaml" -o json >"$tmp/upd.json" || rc=$?
test "$rc" = 1
python3 - "$tmp/upd.json" <<'PY'
import json, sys
moved, held = [json.loads(l) for l in open(sys.argv[1])]
assert moved["allowed"] is False, moved
assert [e["message"] for e in moved["errors"]] == ['spec.clusterQueue: Invalid value: "cq-b": field is immutable'], moved
assert held["allowed"] is True and held["object"]["status"]["pendingWorkloads"] == 1, held
PY
sed 's/pendingWorkloads: 9/pendingWorkloads: nine/' "$tmp/new.yaml" >"$tmp/st.yaml"
rc=0
"$bin" validate --crds crds --old "$tmp/old.yaml" --subresource status -f "$tmp/st.yaml" -o json >"$tmp/st.json" || rc=$?
test "$rc" = 1
python3 - "$tmp/st.json" <<'PY'
import json, sys
kept, bad = [json.loads(l) for l in open(sys.argv[1])]
assert kept["allowed"] is True and kept["object"]["spec"]["clusterQueue"] == "cq-a", kept
assert bad["allowed"] is False and bad["errors"][0]["field"] == "status.pendingWorkloads", bad
assert bad["errors"][0]["message"].startswith('status.pendingWorkloads: Invalid value: "string": pendingWorkloads in body'), bad
PY
head -4 "$tmp/old.yaml" >"$tmp/one.yaml"
if "$bin" validate --old "$tmp/one.yaml" -f "$tmp/new.yaml" 2>"$tmp/err"; then exit 1; fi
grep -q -- "--old $tmp/one.yaml: 1 documents for 2" "$tmp/err"
echo "ok: --old"
