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
