#!/bin/sh
# turnstilectl bench end to end: the ideal run of test/perf/smoke.yaml
# passes its range file, a too-tight range fails naming each bound, the
# JSON report is consistent, and bad input names the field.
set -eu
cd "$(dirname "$0")/../.."
bin=${TS_BUILD:-build}/bin/turnstilectl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin" bench test/perf/smoke.yaml --ideal --check test/perf/smoke-range.yaml >"$tmp/out"
grep -q "^range check test/perf/smoke-range.yaml: ok$" "$tmp/out" || { cat "$tmp/out"; exit 1; }
grep -q "^admitted: 24  finished: 24  never admitted: 0  evictions: 6$" "$tmp/out" || { cat "$tmp/out"; exit 1; }
echo "ok: smoke ideal within its range"

# --series: one line per workload whose class means are the report's
"$bin" bench test/perf/smoke.yaml --ideal -o json --series "$tmp/series.tsv" >"$tmp/report.json"
python3 - "$tmp/series.tsv" "$tmp/report.json" <<'PY'
import json, sys
rows = [l.split("\t") for l in open(sys.argv[1]) if not l.startswith("#")]
rep = json.load(open(sys.argv[2]))
assert len(rows) == 24, len(rows)
by = {}
for cls, created, admitted, tta in rows:
    assert abs(float(admitted) - float(created) - float(tta)) < 0.002, (created, admitted, tta)
    by.setdefault(cls, []).append(float(tta))
for cls, v in by.items():
    want = rep["classes"][cls]["meanSeconds"]["mean"]
    assert len(v) == rep["classes"][cls]["count"], cls
    assert abs(sum(v) / len(v) - want) < 0.002, (cls, sum(v) / len(v), want)
PY
echo "ok: --series matches the report"

cat >"$tmp/tight.yaml" <<'YAML'
cmd: {maxWallMs: 100}
wlClassesMaxAvgTimeToAdmissionMs: {small: 1, huge: 5}
YAML
if "$bin" bench test/perf/smoke.yaml --ideal --check "$tmp/tight.yaml" >"$tmp/out"; then
    echo "FAIL: a violated range must exit non-zero"; exit 1
fi
for want in "3 bound(s) violated" "> cmd.maxWallMs 100" "> wlClassesMaxAvgTimeToAdmissionMs.small 1" \
    "wlClassesMaxAvgTimeToAdmissionMs.huge: no such workload class"; do
    grep -qF "$want" "$tmp/out" || { echo "FAIL: missing '$want'"; cat "$tmp/out"; exit 1; }
done
echo "ok: violated bounds are named"

"$bin" bench test/perf/smoke.yaml --ideal --write-budget 5/2 --runs 2 -o json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["workloads"] == 24 and r["admitted"] == 24 and r["runs"] == 2, r
assert r["writeBudget"] == {"qps": 5, "burst": 2}, r
c = r["classes"]
assert c["small"]["count"] == 20 and c["large"]["count"] == 4, c
for k in c.values():
    assert k["p50Seconds"]["mean"] <= k["p90Seconds"]["mean"] <= k["p99Seconds"]["mean"], k
    assert k["meanSeconds"]["stdev"] == 0, k  # the ideal is deterministic
# 5 writes/s after a burst of 2: at least (writes - 2) / 5 seconds
writes = r["admissionWrites"] + r["evictionWrites"]
assert r["wallSeconds"]["mean"] >= (writes - 2) / 5.0, r
print("ok: json report under a write budget")'

printf -- '- className: c\n  count: 1\n  queuesSets:\n  - {className: q, count: 1}\n' >"$tmp/bad.yaml"
if "$bin" bench "$tmp/bad.yaml" --ideal 2>"$tmp/err"; then
    echo "FAIL: bad generator accepted"; exit 1
fi
grep -qF "bad.yaml: [0].queuesSets[0].nominalQuota: Required value" "$tmp/err" ||
    { cat "$tmp/err"; exit 1; }
echo "ok: bad generator names the field"
