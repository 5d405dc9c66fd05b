#!/bin/sh
# turnstilectl explain end to end on Kueue's examples: position, reason,
# per-flavor numbers and the counterfactual, as text and JSON; job/NAME
# resolves to the job's Workload; unknown names fail cleanly.
set -eu
cd "$(dirname "$0")/../.."
bin=${TS_BUILD:-build}/bin/turnstilectl
ex=../shared/samples/kueue-examples
now=2026-11-21T10:00:00Z
files="-f $ex/admin-single-clusterqueue-setup.yaml -f $ex/jobs-sample-job-partial-admission.yaml -f $ex/jobs-sample-job.yaml -f $ex/jobs-sample-pytorchjob.yaml"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2086
"$bin" explain $files --now $now pytorchjob/pytorch-simple >"$tmp/ptj.txt"
grep -q '^Position:       1 in ClusterQueue, 1 in LocalQueue user-queue' "$tmp/ptj.txt"
grep -q '^Ahead:          job-sample-job-' "$tmp/ptj.txt"
grep -q '^worker     cpu              default-flavor   1          0          9' "$tmp/ptj.txt"
grep -q 'What would admit it: fits in flavor default-flavor if 2 cpu are freed in ClusterQueue cluster-queue' "$tmp/ptj.txt"
echo "ok: text"

# shellcheck disable=SC2086
"$bin" explain $files --now $now -o json pytorchjob/pytorch-simple | python3 -c '
import json, sys
x = json.load(sys.stdin)
assert x["reason"] == "WaitingForQuota" and not x["admitted"], x
assert x["positionInClusterQueue"] == 1, x
assert {f["podSet"] for f in x["flavors"]} == {"master", "worker"}, x
assert x["wouldAdmitIt"].startswith("fits in flavor default-flavor"), x
print("ok: json")'

# the partial-admission job is admitted: nothing to explain
# shellcheck disable=SC2086
"$bin" explain $files --now $now job/sample-job-partial-admission | grep -q '^Status:         admitted'
echo "ok: admitted"

# a finished Workload: the engine forgets it, explain still names its queue
cat >"$tmp/done.yaml" <<'EOF2'
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {namespace: default, name: done}
spec:
  queueName: user-queue
  podSets:
  - name: main
    count: 1
    template: {spec: {containers: [{name: c, image: busybox, resources: {requests: {cpu: '1'}}}]}}
status:
  admission:
    clusterQueue: cluster-queue
    podSetAssignments: [{name: main, count: 1, flavors: {cpu: default-flavor}, resourceUsage: {cpu: '1'}}]
  conditions:
  - {type: QuotaReserved, status: 'True', reason: QuotaReserved, message: reserved, lastTransitionTime: '2026-11-21T09:00:00Z'}
  - {type: Finished, status: 'True', reason: Succeeded, message: done, lastTransitionTime: '2026-11-21T09:30:00Z'}
EOF2
# shellcheck disable=SC2086
"$bin" explain $files -f "$tmp/done.yaml" --now $now done >"$tmp/done.txt"
grep -q '^ClusterQueue:   cluster-queue' "$tmp/done.txt"
grep -q '^Status:         finished' "$tmp/done.txt"
# shellcheck disable=SC2086
"$bin" explain $files -f "$tmp/done.yaml" --now $now -o json done | python3 -c '
import json, sys
x = json.load(sys.stdin)
assert x["finished"] and x["clusterQueue"] == "cluster-queue" and "reason" not in x, x'
echo "ok: finished"

set +e
# shellcheck disable=SC2086
"$bin" explain $files --now $now job/nope >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q 'workload job/nope not found in namespace default' "$tmp/err"
echo "ok: not found"

# what-if: more quota admits the partially admissible job; nothing else changes
state="-f $ex/admin-single-clusterqueue-setup.yaml -f $ex/jobs-sample-job.yaml -f $ex/jobs-sample-pytorchjob.yaml -f $ex/jobs-sample-job-partial-admission.yaml"
# shellcheck disable=SC2086
"$bin" what-if --now $now $state --change test/e2e/data/more-quota.yaml >"$tmp/whatif"
grep -q 'job-sample-job-partial-admission-.* would be admitted  *cluster-queue' "$tmp/whatif"
[ "$(wc -l <"$tmp/whatif")" -eq 2 ]
# shellcheck disable=SC2086
"$bin" what-if --now $now $state --change "$ex/admin-single-clusterqueue-setup.yaml" | grep -q "no workload's outcome changes"
echo "ok: what-if"

# --config: the Configuration's transformations count the requests as the
# controller does (cpu replaced by credits, which cluster-queue lacks), for
# explain and what-if alike; a bad Configuration names the field
cat >"$tmp/xform.yaml" <<'EOF2'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  transformations:
  - {input: cpu, strategy: Replace, outputs: {example.com/credits: "1"}}
EOF2
# shellcheck disable=SC2086
"$bin" explain $files --now $now --config "$tmp/xform.yaml" pytorchjob/pytorch-simple >"$tmp/x.txt"
grep -q '^Reason:         NoMatchingFlavor' "$tmp/x.txt"
grep -q 'resource example.com/credits unavailable in ClusterQueue' "$tmp/x.txt"
# shellcheck disable=SC2086
"$bin" what-if --now $now $state --config "$tmp/xform.yaml" --change "$ex/admin-single-clusterqueue-setup.yaml" | grep -q "no workload's outcome changes"
# shellcheck disable=SC2086
"$bin" what-if --now $now $state --config "$tmp/xform.yaml" --change test/e2e/data/more-quota.yaml | grep -q "no workload's outcome changes"
printf 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources: {transformations: [{input: cpu, strategy: Keep}]}\n' >"$tmp/bad.yaml"
set +e
# shellcheck disable=SC2086
"$bin" explain $files --now $now --config "$tmp/bad.yaml" pytorchjob/pytorch-simple >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q 'resources.transformations\[0\].strategy: Unsupported value: "Keep": supported values: "Retain", "Replace"' "$tmp/err"
echo "ok: --config"
