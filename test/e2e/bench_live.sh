#!/bin/sh
# turnstilectl bench --live end to end: test/perf/smoke.yaml against the
# real turnstile-apiserver and turnstile started by the command itself.
# Every workload is admitted and finished (evicted ones released by the
# runner as a job integration would, and admitted again), the report's numbers agree
# with each other (live never beats the ideal, CPU and RSS measured, one
# controller status write per admission at least, the runner's own writes
# counted exactly), --jobs runs batch Jobs end to end, a range check
# applies to live runs, and one ClusterQueue admits as fast as it cycles.
set -eu
cd "$(dirname "$0")/../.."
bin=${TS_BUILD:-build}/bin/turnstilectl
[ -x "${TS_BUILD:-build}/bin/turnstile" ] || { echo "skip: turnstile not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin" bench test/perf/smoke.yaml --live --timeout 60 -o json >"$tmp/out.json" 2>"$tmp/err" ||
    { cat "$tmp/err"; exit 1; }
python3 - "$tmp/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["mode"] == "live" and "clientBudget" not in r, r
assert r["workloads"] == 24 and r["admitted"] == 24 and r["neverAdmitted"] == 0, r
c = r["classes"]
assert c["small"]["count"] == 20 and c["large"]["count"] == 4, c
for k in c.values():
    assert 0 <= k["p50Seconds"]["mean"] <= k["p90Seconds"]["mean"] <= k["p99Seconds"]["mean"], k
l = r["live"]
wall = r["wallSeconds"]["mean"]
# the ideal is a lower bound (a little slack: creations are timers)
assert wall >= l["idealWallSeconds"] - 0.05, (wall, l)
assert abs(l["wallRatio"]["mean"] - wall / l["idealWallSeconds"]) < 1e-6, l
assert l["controllerCPUSeconds"]["mean"] > 0 and 0 < l["controllerPeakRSSMiB"]["mean"] < 1024, l
mcpu = l["controllerCPUSeconds"]["mean"] / wall * 1000
assert abs(l["controllerMilliCPU"]["mean"] - mcpu) < 1e-6, l
assert l["admissions"] >= 24, l
assert l["workloadWritesPerAdmission"]["mean"] >= 1, l
w = dict((" ".join(x.split()[:2]), int(x.split()[2])) for x in l["apiWrites"].splitlines())
assert w["POST workloads"] == 24 and w["PATCH workloads/status"] == 24, w
# the runner's writes (creates, Finished, releases of evicted ones) are
# told apart exactly: the rest are the controller's
runner_puts = l["runnerWorkloadWrites"] - 48
assert runner_puts >= 0 and (runner_puts > 0) == (r["evictions"] > 0), (l, r)
assert w["PUT workloads/status"] == l["controllerWorkloadWrites"] + runner_puts, (w, l)
print("ok: live smoke report consistent (wall %.2f s, ideal %.2f s, %.0f mCPU, %.1f MiB)" %
      (wall, l["idealWallSeconds"], mcpu, l["controllerPeakRSSMiB"]["mean"]))
PY

cat >"$tmp/rss.yaml" <<'YAML'
cmd: {maxrss: 1}
YAML
# --jobs: batch Jobs through the whole path (the controller makes the
# Workloads and starts the Jobs, the API server's simulator runs them for
# their runtime, the controller marks them Finished); also the range check
if "$bin" bench test/perf/smoke.yaml --live --jobs --timeout 60 --check "$tmp/rss.yaml" >"$tmp/out" 2>&1; then
    echo "FAIL: a controller above maxrss must fail the check"; exit 1
fi
grep -qF "> cmd.maxrss 1" "$tmp/out" || { cat "$tmp/out"; exit 1; }
for want in "admitted: 24  finished: 24  never admitted: 0" "POST jobs 24" "POST workloads 24" \
    "POST workloadpriorityclasses 2"; do
    grep -q "^$want" "$tmp/out" || { echo "FAIL: missing '$want'"; cat "$tmp/out"; exit 1; }
done
if grep -q "PATCH workloads/status" "$tmp/out"; then
    echo "FAIL: with --jobs the runner must not mark Workloads Finished"; cat "$tmp/out"; exit 1
fi
echo "ok: live --jobs runs every Job to the end; range check on the controller's peak RSS"

# Kueue admits at most one head per ClusterQueue a cycle, so cycles must
# follow each other at once while they admit: 600 workloads that all fit
# one ClusterQueue need at least 12 s at one cycle per 20 ms, and far less
# back to back, even under ASan on a loaded machine: the limit below sits
# between the two.
cat >"$tmp/one-queue.yaml" <<'YAML'
- className: cohort
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 1000
    borrowingLimit: 0
    reclaimWithinCohort: Never
    withinClusterQueue: Never
    workloadsSets:
    - count: 600
      creationIntervalMs: 1
      workloads:
      - className: small
        runtimeMs: 3000
        priority: 50
        request: 1
YAML
"$bin" bench "$tmp/one-queue.yaml" --live --timeout 120 -o json >"$tmp/one.json" 2>"$tmp/err" ||
    { cat "$tmp/err"; exit 1; }
python3 - "$tmp/one.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p99 = r["classes"]["small"]["p99Seconds"]["mean"]
assert r["admitted"] == 600, r
assert p99 < 8, "p99 time to admission %.2f s: cycles are paced, not back to back" % p99
print("ok: one ClusterQueue admits 600 fitting workloads back to back (p99 %.2f s)" % p99)
PY

if "$bin" bench test/perf/smoke.yaml --live --qps 5 2>"$tmp/err"; then
    echo "FAIL: --qps without --burst accepted"; exit 1
fi
grep -qF "give --qps and --burst together" "$tmp/err" || { cat "$tmp/err"; exit 1; }
echo "ok: usage errors"
