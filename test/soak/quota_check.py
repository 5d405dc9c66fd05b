"""The soak's quota invariant, as a pure function (no I/O), so that its model
can be tested on its own (test/soak/test_quota_check.py).

Model (Kueue's arithmetic for this soak's cohort: ClusterQueues without a
lendingLimit lend all their nominal quota to the cohort, so every admission
of a flavor-resource pair `fr` is checked against the cohort's quota of fr;
pkg/cache/resource_node.go available() in Kueue):

  When a Workload is admitted with fr, the cohort's usage of fr, including
  it, is within the cohort's quota of fr as the controller sees it then.

Every Workload holding fr now was already holding it when the newest of
them was admitted (a hold is an interval that starts at QuotaReserved's
lastTransitionTime and has not ended), so all of them fit the cohort's
quota of fr in effect at that admission, give or take `lag` seconds of the
controller seeing a quota edit late.  The same holds per ClusterQueue for
its nominal quota plus borrowingLimit, over the holders of that queue.

The bound is per fr: an admission that used flavor A says nothing about the
quota of flavor B.  Lowering a ClusterQueue's quota does not evict, so a
cohort's usage may stay above a lowered quota until Workloads finish; what
must not happen is an admission of fr while that is so.
"""
from fractions import Fraction

RESOURCES = (("cpu", Fraction(1)), ("memory", Fraction(4 * 2**30)))
"""Each ClusterQueue's quota of a flavor: cpu = q, memory = 4Gi * q."""


def limits(hist, at, lag):
    """Largest quota per flavor in effect at some moment of [at - lag, at + 1]
    (condition timestamps have whole seconds).  hist: [(time, {flavor: q})],
    in time order, the first entry in effect from the start."""
    best = {}
    for i, (t, q) in enumerate(hist):
        end = hist[i + 1][0] if i + 1 < len(hist) else float("inf")
        if end >= at - lag and t <= at + 1:
            for f, v in q.items():
                best[f] = max(best.get(f, 0), v)
    return best or dict(hist[-1][1])


def violations(quota, borrowing_limit, holders, lag):
    """Messages for every bound the holders break.

    quota: {cq: [(time, {flavor: q})]}; borrowing_limit: {cq: cpu or None};
    holders: [(name, cq, admitted_at, {(flavor, resource): Fraction})], the
    Workloads holding quota now."""
    out = []
    unit = dict(RESOURCES)
    by_fr = {}  # fr -> [(name, cq, at, v)]
    for name, cq, at, use in holders:
        if cq not in quota:
            out.append(f"Workload {name} admitted to unknown ClusterQueue {cq}")
            continue
        for fr, v in use.items():
            if v:
                by_fr.setdefault(fr, []).append((name, cq, at, v))
    for (f, res), hs in sorted(by_fr.items()):
        newest = max(h[2] for h in hs)
        cap = sum(limits(quota[cq], newest, lag).get(f, 0) * unit[res] for cq in quota)
        used = sum(h[3] for h in hs)
        if used > cap:
            out.append(f"cohort pool uses {float(used)} {res} of flavor {f}, above its quota "
                       f"{float(cap)} when the newest of its holders was admitted ("
                       + ", ".join(f"{n}@{cq}:{float(v)}:{at}" for n, cq, at, v in sorted(hs))
                       + ")")
        if res != "cpu":
            continue
        for cq in quota:
            bl = borrowing_limit.get(cq)
            mine = [h for h in hs if h[1] == cq]
            if bl is None or not mine:
                continue
            at = max(h[2] for h in mine)
            cap = limits(quota[cq], at, lag).get(f, 0) + bl
            v = sum(h[3] for h in mine)
            if v > cap:
                out.append(f"ClusterQueue {cq} uses {float(v)} {res} of flavor {f}, above "
                           f"nominal+borrowingLimit {float(cap)}; Workloads "
                           f"{sorted(h[0] for h in mine)}")
    return out
