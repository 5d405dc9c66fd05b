"""Tests of the soak's quota invariant (quota_check.py).

The first case is the sequence of the `make soak` run of 2026-11-27 that
reported "cohort pool uses 12.0 cpu of flavor on-demand, above its quota
10.0": times and quotas as that run's steps.log has them, the holders as
its API server's data shows them (one 1-cpu holder stands for the Workloads
deleted before the data was kept).
"""
import os
import sys
import unittest
from fractions import Fraction as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quota_check  # noqa: E402

T0 = 1795799500  # 17:11:40 UTC
GI = 2**30

# on-demand cpu quota edits of that run (spot stays 2 everywhere)
QUOTA = {
    "cq-a": [(0, {"on-demand": 2, "spot": 2}), (T0 + 50.298, {"on-demand": 4, "spot": 2})],
    "cq-b": [(0, {"on-demand": 5, "spot": 2}), (T0 + 43.253, {"on-demand": 2, "spot": 2}),
             (T0 + 56.057, {"on-demand": 3, "spot": 2})],
    "cq-c": [(0, {"on-demand": 3, "spot": 2}), (T0 + 42.057, {"on-demand": 6, "spot": 2}),
             (T0 + 43.405, {"on-demand": 4, "spot": 2})],
}
BL = {"cq-a": 2, "cq-b": None, "cq-c": None}
LAG = 10


def od(cpu, mem_gi=1):
    return {("on-demand", "cpu"): F(cpu), ("on-demand", "memory"): F(mem_gi) * GI}


def spot(cpu, mem_gi=1):
    return {("spot", "cpu"): F(cpu), ("spot", "memory"): F(mem_gi) * GI}


# 12 on-demand cpu, the last of it admitted at 17:12:22 while the cohort's
# on-demand quota was 13 (cq-c raised to 6 at :22.06, cq-b lowered at :23.25)
HELD_SINCE_22 = [
    ("j459", "cq-b", T0 + 33, od(4)),
    ("j587", "cq-c", T0 + 12, od(2)),
    ("j627", "cq-a", T0 + 25, od(0.5)),
    ("j276", "cq-a", T0 + 37, od(0.5)),
    ("j642", "cq-c", T0 + 40, od(1)),
    ("j560", "cq-b", T0 + 42, od(1)),
    ("j615", "cq-c", T0 + 42, od(2)),
    ("j644", "cq-c", T0 + 42, od(1)),
]


class QuotaCheckTest(unittest.TestCase):
    def check(self, holders, quota=None):
        return quota_check.violations(quota or QUOTA, BL, holders, LAG)

    def test_spot_admission_says_nothing_of_on_demand(self):
        # 17:12:35: j665 admitted to spot.  The on-demand quota is 10 by
        # then, but no on-demand Workload was admitted since it was 13.
        holders = HELD_SINCE_22 + [("j665", "cq-c", T0 + 55, spot(0.5, 2))]
        self.assertEqual(self.check(holders), [])

    def test_on_demand_admission_over_lowered_quota_is_caught(self):
        # the same state, but the newcomer took on-demand: the cohort was
        # over its lowered quota (10), so no queue of it may admit
        holders = HELD_SINCE_22 + [("j667", "cq-b", T0 + 55, od(0.5))]
        got = self.check(holders)
        self.assertEqual(len(got), 1, got)
        self.assertIn("cohort pool uses 12.5 cpu of flavor on-demand, above its quota 10.0", got[0])
        self.assertIn("j667@cq-b", got[0])

    def test_one_too_many_at_full_quota_is_caught(self):
        # the controller built to admit one Workload too many: at 17:12:22
        # the cohort's on-demand quota was 13 at most; 13.5 is over it
        holders = HELD_SINCE_22 + [("extra", "cq-a", T0 + 42, od(1.5))]
        got = self.check(holders)
        self.assertEqual(len(got), 1, got)
        self.assertIn("13.5 cpu of flavor on-demand, above its quota 13.0", got[0])

    def test_quota_lag_allows_an_edit_seen_late(self):
        # an admission 5 s after a lowering may still have seen the old quota
        holders = HELD_SINCE_22[:-1] + [("j644", "cq-c", T0 + 48, od(1))]
        self.assertEqual(self.check(holders), [])
        # 20 s after it may not (cq-b: 5 -> 2 at :23.25, cq-c: 6 -> 4 at :23.4)
        holders = HELD_SINCE_22[:-1] + [("j644", "cq-c", T0 + 62, od(1))]
        self.assertEqual(len(self.check(holders)), 1)

    def test_memory_is_bounded_too(self):
        # 4Gi of memory per unit of quota: spot's cohort quota is 3 x 2 x 4Gi
        holders = [("big", "cq-a", T0, spot(1, 24)), ("more", "cq-b", T0, spot(0.5, 1))]
        got = self.check(holders)
        self.assertEqual(len(got), 1, got)
        self.assertIn("memory of flavor spot", got[0])

    def test_borrowing_limit_per_flavor(self):
        # cq-a may use nominal + 2 cpu of each flavor
        at = T0 + 100
        holders = [("a1", "cq-a", at, od(4)), ("a2", "cq-a", at, od(2)), ("s", "cq-a", at, spot(4))]
        self.assertEqual(self.check(holders), [])
        got = self.check(holders + [("a3", "cq-a", at, od(0.5))])
        self.assertEqual(len(got), 1, got)
        self.assertIn("ClusterQueue cq-a uses 6.5 cpu of flavor on-demand, above "
                      "nominal+borrowingLimit 6.0", got[0])

    def test_unknown_cluster_queue(self):
        got = self.check([("x", "cq-z", T0, od(1))])
        self.assertEqual(got, ["Workload x admitted to unknown ClusterQueue cq-z"])


if __name__ == "__main__":
    unittest.main()
