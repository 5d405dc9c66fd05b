#!/usr/bin/python3
"""Seeded generator of random valid scenarios for differential testing.

    gen.py --family F --seed N      one scenario (multi-document YAML) on stdout
    gen.py --list                   the families

The same (family, seed) always gives the same scenario (random.Random
seeded with the string "F-N"; no other source of randomness), so a seed
names a scenario for as long as this file does not change.

A scenario is what `turnstilectl simulate` and `kueue-oracle` both read: a
Scenario document (its `configuration:` is the Kueue Configuration, fair
sharing in the fs-* families; simulate gets it through --config), then
ResourceFlavors, WorkloadPriorityClasses, Namespaces, Cohorts,
ClusterQueues, LocalQueues and Workloads, some of them already holding quota
(status.admission with QuotaReserved and Admitted conditions).

Every object must pass Kueue's validation (CRD schema, CEL rules, webhooks):
a scenario that either program refuses is a bug of this file.  The rules
kept here, each where the object is built: borrowing and lending limits
only under a parent (cohortName, parentName), lendingLimit <= nominalQuota
in a ClusterQueue, a flavor and a resource in at most one resource group,
every flavor of a group lists the group's resources in order,
borrowWithinCohort only when reclaimWithinCohort is not Never,
flavorFungibility.preference only when both policies are TryNextFlavor, at
most one pod set with minCount (< count), priorityClassRef only with
priority, an admission's usage a multiple of its count.
"""
import argparse
import datetime
import random
import sys

import yaml

API = "kueue.x-k8s.io/v1beta2"
NOW_EPOCH = 1795255200  # 2026-11-21T10:00:00Z, the --now of every run

FAMILIES = ["preemption", "hierarchical", "fs-admission", "fs-preemption", "flavors", "partial", "stop"]

# amounts are kept as integers in a base unit per resource: cpu in
# millicores, memory in MiB, the others in units
CPU, MEM, GPU, BIG = "cpu", "memory", "nvidia.com/gpu", "example.com/units"
INT64_MAX = (1 << 63) - 1


def qty(res, v):
    if res == CPU:
        return str(v // 1000) if v % 1000 == 0 else "%dm" % v
    if res == MEM:
        return "%dGi" % (v // 1024) if v % 1024 == 0 else "%dMi" % v
    return str(v)


def stamp(offset_s):
    """RFC3339 time offset_s seconds from NOW (negative: before)."""
    t = datetime.datetime.fromtimestamp(NOW_EPOCH + offset_s, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


# per family: probabilities and ranges the generator draws from
PROFILES = {
    "preemption": dict(cqs=(2, 5), wls=(4, 12), flavors=(1, 2), depth=(0, 1), admitted=0.5,
                       preempt=0.9, fair=False, fungibility=0.1, partial=0.05, stop=0.0, selectors=0.0),
    "hierarchical": dict(cqs=(2, 6), wls=(4, 12), flavors=(1, 2), depth=(1, 3), admitted=0.4,
                         preempt=0.6, fair=False, fungibility=0.1, partial=0.05, stop=0.0, selectors=0.0),
    "fs-admission": dict(cqs=(2, 6), wls=(5, 15), flavors=(1, 2), depth=(1, 3), admitted=0.2,
                         preempt=0.2, fair=True, fungibility=0.1, partial=0.05, stop=0.0, selectors=0.0),
    "fs-preemption": dict(cqs=(2, 5), wls=(4, 12), flavors=(1, 2), depth=(1, 3), admitted=0.5,
                          preempt=0.95, fair=True, fungibility=0.1, partial=0.05, stop=0.0, selectors=0.0),
    "flavors": dict(cqs=(2, 4), wls=(3, 10), flavors=(1, 4), depth=(0, 2), admitted=0.3,
                    preempt=0.4, fair=False, fungibility=0.7, partial=0.05, stop=0.0, selectors=0.0),
    "partial": dict(cqs=(2, 4), wls=(3, 10), flavors=(1, 2), depth=(0, 2), admitted=0.3,
                    preempt=0.4, fair=False, fungibility=0.2, partial=0.8, stop=0.0, selectors=0.0),
    "stop": dict(cqs=(2, 4), wls=(3, 10), flavors=(1, 2), depth=(0, 1), admitted=0.5,
                 preempt=0.3, fair=False, fungibility=0.1, partial=0.05, stop=0.5, selectors=0.6),
}


class Gen:
    def __init__(self, family, seed):
        if family not in PROFILES:
            raise ValueError("unknown family %r (one of %s)" % (family, ", ".join(FAMILIES)))
        self.family, self.seed = family, seed
        self.r = random.Random("%s-%d" % (family, seed))
        self.p = PROFILES[family]
        self.docs = []

    def chance(self, p):
        return self.r.random() < p

    def between(self, lo_hi):
        return self.r.randint(lo_hi[0], lo_hi[1])

    # --- resources and flavors -------------------------------------------

    def layout(self):
        """Resource groups shared by the scenario: [(resources, flavors)]."""
        r = self.r
        groups = [[CPU]]
        if self.chance(0.35):
            if self.chance(0.5):
                groups[0].append(MEM)
            else:
                groups.append([MEM])
        if self.chance(0.25):
            groups.append([GPU])
        self.big = self.chance(0.05)
        self.big_wrap = self.big and self.chance(0.1)
        if self.big:
            groups.append([BIG])
        nflav = max(self.between(self.p["flavors"]), len(groups))
        names = ["f%d" % i for i in range(nflav)]
        # each group gets at least one flavor of its own; the rest at random
        per = [[names[i]] for i in range(len(groups))]
        for n in names[len(groups):]:
            per[r.randrange(len(groups))].append(n)
        self.groups = list(zip(groups, per))
        self.flavors = {}
        for n in names:
            self.flavors[n] = self.flavor(n)

    def flavor(self, name):
        spec = {}
        if self.family == "flavors":
            kind = self.r.random()
            if kind < 0.45:
                spec["nodeLabels"] = {"pool": name}
            elif kind < 0.7:
                # label keys that differ between flavors
                spec["nodeLabels"] = {self.r.choice(["zone", "arch", "tier"]): self.r.choice(["a", "b"])}
            if self.chance(0.3):
                spec["nodeTaints"] = [{"key": "dedicated", "value": name,
                                       "effect": self.r.choice(["NoSchedule", "NoExecute", "PreferNoSchedule"])}]
                if self.chance(0.3):
                    spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": name,
                                            "effect": spec["nodeTaints"][0]["effect"]}]
        elif self.chance(0.2):
            spec["nodeLabels"] = {"pool": name}
        d = {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": name}}
        if spec:
            d["spec"] = spec
        return d

    def amount(self, res, scale=1):
        """A quota: mostly small, so that workloads compete."""
        r = self.r
        if res == CPU:
            v = r.choice([0, 1, 2, 2, 3, 4, 4, 5, 6, 8, 10]) * 1000
            if self.chance(0.1):
                v += 500
            return v * scale
        if res == MEM:
            return r.choice([0, 2, 4, 8, 16]) * 1024 * scale
        if res == GPU:
            return r.choice([0, 1, 2, 4, 8]) * scale
        if self.big_wrap:
            return r.choice([1 << 62, INT64_MAX, 4 * 10 ** 18, 9 * 10 ** 18])
        # near the limit, yet the sum over every queue and cohort stays
        # within int64 (Kueue's sums wrap past it, a known difference)
        return r.choice([INT64_MAX // 24, INT64_MAX // 32, 1 << 53])

    def request(self, res):
        r = self.r
        if res == CPU:
            v = r.choice([1, 1, 2, 2, 3, 4]) * 1000
            if self.chance(0.1):
                v = r.choice([250, 500, 1500])
            return v
        if res == MEM:
            return r.choice([1, 2, 4, 6]) * 1024
        if res == GPU:
            return r.choice([1, 1, 2, 4])
        # near the int64 limit rarely (where Kueue's int64 sums may wrap:
        # a deliberate difference, pkg/engine/quota.h), large mostly
        if self.big_wrap:
            return r.choice([1 << 61, 1 << 62, 3 * 10 ** 18, INT64_MAX // 2])
        return r.choice([1 << 50, 1 << 52, (1 << 53) - 1, 1 << 53, 3 * 10 ** 15])

    # --- cohorts ---------------------------------------------------------

    def cohorts(self):
        """A forest of cohorts; self.cohort_names lists those a queue may join."""
        depth = self.between(self.p["depth"])
        self.cohort_docs, self.parent = [], {}
        self.cohort_names = []
        if depth == 0:
            return
        r = self.r
        roots = ["root"] if self.chance(0.8) else ["root", "root2"]
        level = roots
        for root in roots:
            self.parent[root] = None
        self.cohort_names += roots
        for d in range(1, depth):
            nxt = []
            for parent in level:
                for i in range(r.randint(1, 2)):
                    name = "%s-%s" % (parent, "lr"[i]) if d == 1 else "%s%d" % (parent, i)
                    self.parent[name] = parent
                    nxt.append(name)
            self.cohort_names += nxt
            level = nxt
        for name in self.cohort_names:
            # an implicit cohort (named by its children, no object) at times
            if self.chance(0.1):
                continue
            spec = {}
            if self.parent[name]:
                spec["parentName"] = self.parent[name]
            if self.chance(0.35 if self.family in ("hierarchical", "fs-admission", "fs-preemption") else 0.1):
                spec["resourceGroups"] = self.resource_groups(bool(self.parent[name]), cohort=True)
            if self.p["fair"] and self.chance(0.5):
                spec["fairSharing"] = {"weight": self.weight()}
            d = {"apiVersion": API, "kind": "Cohort", "metadata": {"name": name}}
            if spec:
                d["spec"] = spec
            self.cohort_docs.append(d)

    def weight(self):
        return self.r.choice(["0", "1", "1", "2", "3", "0.5", "10", "100m"])

    # --- cluster queues --------------------------------------------------

    def resource_groups(self, has_parent, cohort=False):
        rgs = []
        for i, (res, flavors) in enumerate(self.groups):
            if i > 0 and not cohort and self.chance(0.1):
                continue  # a group this queue does not cover
            fl = list(flavors)
            if self.family == "flavors" and len(fl) > 1:
                self.r.shuffle(fl)
                if self.chance(0.3):
                    fl = fl[:self.r.randint(1, len(fl))]
            elif cohort and len(fl) > 1 and self.chance(0.5):
                fl = fl[:1]
            out = []
            for f in fl:
                rq = []
                for rname in res:
                    nominal = self.amount(rname)
                    q = {"name": rname, "nominalQuota": qty(rname, nominal)}
                    if has_parent and rname != BIG:
                        if self.chance(0.3):
                            q["borrowingLimit"] = qty(rname, self.amount(rname))
                        if self.chance(0.3):
                            if cohort:
                                lend = self.amount(rname)
                            else:  # a ClusterQueue may not lend more than it has
                                lend = self.r.randint(0, nominal // self.unit(rname)) * self.unit(rname)
                            q["lendingLimit"] = qty(rname, lend)
                    rq.append(q)
                out.append({"name": f, "resources": rq})
            rgs.append({"coveredResources": list(res), "flavors": out})
        return rgs

    @staticmethod
    def unit(res):
        return {CPU: 500, MEM: 1024}.get(res, 1)

    def preemption(self):
        r = self.r
        p = {}
        if self.chance(0.8):
            p["withinClusterQueue"] = r.choice(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])
        if self.chance(0.8):
            p["reclaimWithinCohort"] = r.choice(["Never", "LowerPriority", "Any", "Any"])
        if p.get("reclaimWithinCohort", "Never") != "Never" and self.chance(0.5 if not self.p["fair"] else 0.1):
            b = {"policy": r.choice(["LowerPriority", "LowerPriority", "Never"])}
            if self.chance(0.6):
                b["maxPriorityThreshold"] = r.choice(self.prio_values + [1, 50])
            p["borrowWithinCohort"] = b
        return p

    def fungibility(self):
        r = self.r
        f = {}
        if self.chance(0.7):
            f["whenCanBorrow"] = r.choice(["MayStopSearch", "TryNextFlavor"])
        if self.chance(0.7):
            f["whenCanPreempt"] = r.choice(["MayStopSearch", "TryNextFlavor"])
        if f.get("whenCanBorrow") == "TryNextFlavor" and f.get("whenCanPreempt") == "TryNextFlavor" and self.chance(0.4):
            f["preference"] = r.choice(["BorrowingOverPreemption", "PreemptionOverBorrowing"])
        return f

    def selector(self):
        r = self.r
        k = r.random()
        if k < 0.4:
            return {"matchLabels": {"team": r.choice(["a", "b"])}}
        if k < 0.8:
            op = r.choice(["In", "NotIn", "Exists", "DoesNotExist"])
            e = {"key": r.choice(["team", "env"]), "operator": op}
            if op in ("In", "NotIn"):
                e["values"] = r.sample(["a", "b", "prod"], r.randint(1, 2))
            return {"matchExpressions": [e]}
        return {}

    def cluster_queues(self):
        n = self.between(self.p["cqs"])
        self.cqs = []
        for i in range(n):
            name = "cq-%s" % "abcdefgh"[i]
            spec = {"namespaceSelector": {}}
            cohort = None
            if self.cohort_names and self.chance(0.9):
                cohort = self.r.choice(self.cohort_names)
                spec["cohortName"] = cohort
            if self.chance(self.p["selectors"]):
                spec["namespaceSelector"] = self.selector()
            if self.chance(0.3):
                spec["queueingStrategy"] = "StrictFIFO"
            elif self.chance(0.3):
                spec["queueingStrategy"] = "BestEffortFIFO"
            if self.chance(self.p["preempt"]):
                spec["preemption"] = self.preemption()
            if self.chance(self.p["fungibility"]):
                spec["flavorFungibility"] = self.fungibility()
            if self.p["fair"] and self.chance(0.6):
                spec["fairSharing"] = {"weight": self.weight()}
            if self.chance(self.p["stop"]):
                spec["stopPolicy"] = self.r.choice(["Hold", "HoldAndDrain", "None"])
            spec["resourceGroups"] = self.resource_groups(cohort is not None)
            self.cqs.append({"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec})

    def local_queues(self):
        self.namespaces = []
        nss = ["default"]
        if self.p["selectors"] or self.chance(0.1):
            nss = ["team-a", "team-b", "default"]
            labels = {"team-a": {"team": "a"}, "team-b": {"team": "b", "env": "prod"}}
            for ns in nss[:2]:
                self.namespaces.append({"apiVersion": "v1", "kind": "Namespace",
                                        "metadata": {"name": ns, "labels": labels[ns]}})
        self.lqs = []
        for cq in self.cqs:
            cqn = cq["metadata"]["name"]
            for j in range(1 if self.chance(0.8) else 2):
                ns = nss[j % len(nss)] if len(nss) == 1 else self.r.choice(nss)
                name = "lq-%s" % cqn[3:] + ("" if j == 0 else "2")
                if any(l["metadata"]["namespace"] == ns and l["metadata"]["name"] == name for l in self.lqs):
                    continue
                spec = {"clusterQueue": cqn}
                if self.chance(self.p["stop"] * 0.6):
                    spec["stopPolicy"] = self.r.choice(["Hold", "HoldAndDrain", "None"])
                self.lqs.append({"apiVersion": API, "kind": "LocalQueue",
                                 "metadata": {"namespace": ns, "name": name}, "spec": spec})

    # --- priorities and workloads ----------------------------------------

    def priority_classes(self):
        vals = sorted(self.r.sample([-5, 0, 10, 100, 1000], self.r.randint(1, 3)))
        names = ["low", "mid", "high"][:len(vals)] if len(vals) > 1 else ["normal"]
        self.wpcs = [{"apiVersion": API, "kind": "WorkloadPriorityClass", "metadata": {"name": n}, "value": v}
                     for n, v in zip(names, vals)]
        self.prio_values = vals

    def pod_set(self, name, partial):
        r = self.r
        count = r.randint(1, 4)
        if partial:
            count = r.randint(2, 10)
        res = [CPU]
        for g, _ in self.groups:
            for x in g:
                # (the huge resource in the first pod set only: its sum over
                # pod sets stays within int64)
                if x == BIG and name != "main":
                    continue
                if x != CPU and self.chance(0.4 if x != BIG else 0.9):
                    res.append(x)
        if self.chance(0.05) and len(res) > 1:
            res.remove(CPU)
        req = {x: self.request(x) for x in res}
        if BIG in req:
            count = 1
        ps = {"name": name, "count": count}
        if partial and count > 1:
            ps["minCount"] = r.randint(1, count - 1)
        spec = {"containers": [{"name": "c", "image": "busybox",
                                "resources": {"requests": {x: qty(x, v) for x, v in req.items()}}}]}
        if self.family == "flavors":
            self.placement(spec)
        ps["template"] = {"spec": spec}
        return ps, req

    def placement(self, spec):
        """Node selectors, affinity and tolerations against the flavors."""
        r = self.r
        labelled = [f for f in self.flavors.values() if f.get("spec", {}).get("nodeLabels")]
        if labelled and self.chance(0.35):
            f = r.choice(labelled)
            k, v = next(iter(f["spec"]["nodeLabels"].items()))
            if self.chance(0.25):
                v = "other"
            if self.chance(0.7):
                spec["nodeSelector"] = {k: v}
            else:
                spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": k, "operator": "In", "values": [v]}]}]}}}
        tainted = [f for f in self.flavors.values() if f.get("spec", {}).get("nodeTaints")]
        if tainted and self.chance(0.4):
            t = r.choice(tainted)["spec"]["nodeTaints"][0]
            tol = {"key": t["key"], "operator": "Equal", "value": t["value"], "effect": t["effect"]}
            if self.chance(0.3):
                tol = {"key": t["key"], "operator": "Exists"}
            spec["tolerations"] = [tol]

    def workloads(self):
        n = self.between(self.p["wls"])
        self.wls = []
        usage = {}  # (cq, flavor, resource) -> amount held by admitted workloads
        nominal = {}
        for cq in self.cqs:
            for rg in cq["spec"]["resourceGroups"]:
                for f in rg["flavors"]:
                    for q in f["resources"]:
                        nominal[(cq["metadata"]["name"], f["name"], q["name"])] = q
        admitted_at = -3600
        for i in range(n):
            name = "w%02d" % i
            lq = self.r.choice(self.lqs)
            md = {"namespace": lq["metadata"]["namespace"], "name": name}
            spec = {"queueName": lq["metadata"]["name"]}
            if self.chance(0.03):
                spec["queueName"] = "lq-missing"
            if self.chance(0.6):
                wpc = self.r.choice(self.wpcs)
                spec["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                            "name": wpc["metadata"]["name"]}
                spec["priority"] = wpc["value"]
            elif self.chance(0.2):
                spec["priority"] = self.r.choice(self.prio_values)
            partial = self.chance(self.p["partial"])
            nps = 2 if self.chance(0.2) else 1
            pss, reqs = [], []
            for j in range(nps):
                ps, req = self.pod_set(["main", "worker"][j], partial and j == nps - 1)
                pss.append(ps)
                reqs.append(req)
            spec["podSets"] = pss
            w = {"apiVersion": API, "kind": "Workload", "metadata": md, "spec": spec}
            if self.chance(self.p["admitted"]) and spec["queueName"] != "lq-missing":
                adm = self.admission(lq["spec"]["clusterQueue"], pss, reqs, usage, nominal)
                if adm:
                    created = admitted_at - self.r.randint(1, 600)
                    reserved = admitted_at
                    admitted_at += self.r.randint(1, 120)
                    md["creationTimestamp"] = stamp(created)
                    t = stamp(reserved)
                    cq = adm["clusterQueue"]
                    w["status"] = {"admission": adm, "conditions": [
                        {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                         "message": "Quota reserved in ClusterQueue %s" % cq, "lastTransitionTime": t},
                        {"type": "Admitted", "status": "True", "reason": "Admitted",
                         "message": "The workload is admitted", "lastTransitionTime": t}]}
            if "status" not in w and self.chance(0.3):
                # created before the run, in an order unlike the input's
                md["creationTimestamp"] = stamp(-self.r.randint(1, 1800))
            self.wls.append(w)

    def admission(self, cqn, pss, reqs, usage, nominal):
        """An admission of the pod sets in cqn (a flavor per resource group
        among those the queue lists), or None when the queue does not cover
        a requested resource or it would exceed its quota by much."""
        cq = next((c for c in self.cqs if c["metadata"]["name"] == cqn), None)
        if cq is None:
            return None
        psas = []
        add = {}
        for ps, req in zip(pss, reqs):
            flavors, use = {}, {}
            for rname, v in req.items():
                rg = next((g for g in cq["spec"]["resourceGroups"] if rname in g["coveredResources"]), None)
                if rg is None:
                    return None
                chosen = next((flavors[x] for x in rg["coveredResources"] if x in flavors), None)
                if chosen is None:
                    chosen = self.r.choice(rg["flavors"])["name"]
                flavors[rname] = chosen
                total = v * ps["count"]
                use[rname] = qty(rname, total)
                key = (cqn, chosen, rname)
                add[key] = add.get(key, 0) + total
            psas.append({"name": ps["name"], "count": ps["count"], "flavors": flavors, "resourceUsage": use})
        # within the queue's nominal quota plus its borrowing limit, and
        # within what its cohort tree lends; past either only rarely (an
        # over-admitted queue or tree, as after a quota was lowered)
        overadmit = self.chance(0.03)
        after = dict(usage)
        for key, v in add.items():
            after[key] = after.get(key, 0) + v
        for key in add:
            q = nominal.get(key)
            cap = parse_qty(key[2], q["nominalQuota"]) if q else 0
            if q and "borrowingLimit" in q:
                cap += parse_qty(key[2], q["borrowingLimit"])
            elif cq["spec"].get("cohortName"):
                cap = INT64_MAX
            if after[key] > cap and not overadmit:
                return None
            if not overadmit and self.tree_borrowing(cqn, key[1], key[2], after, nominal) > 0:
                return None
        usage.clear()
        usage.update(after)
        return {"clusterQueue": cqn, "podSetAssignments": psas}

    def root_of(self, cqn):
        cq = next(c for c in self.cqs if c["metadata"]["name"] == cqn)
        co = cq["spec"].get("cohortName")
        if co is None:
            return "cq:" + cqn
        while self.parent.get(co):
            co = self.parent[co]
        return co

    def tree_borrowing(self, cqn, flavor, res, usage, nominal):
        """How much more the queues of cqn's cohort tree borrow than they
        and its cohorts lend (lending limits of cohorts ignored)."""
        root = self.root_of(cqn)
        borrowed = lent = 0
        for c in self.cqs:
            name = c["metadata"]["name"]
            if self.root_of(name) != root:
                continue
            q = nominal.get((name, flavor, res))
            nom = parse_qty(res, q["nominalQuota"]) if q else 0
            lend = parse_qty(res, q["lendingLimit"]) if q and "lendingLimit" in q else nom
            guaranteed = nom - lend
            borrowed += max(0, usage.get((name, flavor, res), 0) - guaranteed)
            lent += lend
        for co in self.cohort_docs:
            top = name_ = co["metadata"]["name"]
            while self.parent.get(top):
                top = self.parent[top]
            if top != root and name_ != root:
                continue
            for rg in co.get("spec", {}).get("resourceGroups", []):
                for f in rg["flavors"]:
                    for q in f["resources"]:
                        if f["name"] == flavor and q["name"] == res:
                            lent += parse_qty(res, q["nominalQuota"])
        return borrowed - lent

    # --- the scenario ----------------------------------------------------

    def config(self):
        if not self.p["fair"]:
            return None
        strategies = self.r.choice([["LessThanOrEqualToFinalShare", "LessThanInitialShare"],
                                    ["LessThanOrEqualToFinalShare", "LessThanInitialShare"],
                                    ["LessThanOrEqualToFinalShare"], ["LessThanInitialShare"]])
        return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                "fairSharing": {"preemptionStrategies": strategies}}

    def generate(self):
        self.priority_classes()
        self.layout()
        self.cohorts()
        self.cluster_queues()
        self.local_queues()
        self.workloads()
        sc = {"apiVersion": "turnstile.dev/v1alpha1", "kind": "Scenario",
              "metadata": {"name": "%s-%d" % (self.family, self.seed)}}
        cfg = self.config()
        if cfg:
            sc["configuration"] = cfg
        sc["steps"] = [{"run": {}}]
        return ([sc] + list(self.flavors.values()) + self.wpcs + self.namespaces + self.cohort_docs
                + self.cqs + self.lqs + self.wls)


def parse_qty(res, s):
    """The inverse of qty for what this file writes."""
    s = str(s)
    if res == CPU:
        return int(s[:-1]) if s.endswith("m") else int(s) * 1000
    if res == MEM:
        return int(s[:-2]) * 1024 if s.endswith("Gi") else int(s[:-2])
    return int(s)


def generate(family, seed):
    """The scenario's documents (dicts), in the order they are written."""
    return Gen(family, seed).generate()


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper, s):
    # quantities and label values stay strings ("4", "true")
    return dumper.represent_scalar("tag:yaml.org,2002:str", s)


_Dumper.add_representer(str, _str)


def dump(docs, header=None):
    out = []
    if header:
        out += ["# " + line if line else "#" for line in header.splitlines()]
    for i, d in enumerate(docs):
        if i:
            out.append("---")
        out.append(yaml.dump(d, Dumper=_Dumper, sort_keys=False, default_flow_style=None, width=200).rstrip())
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description="random valid scenario for simulate and kueue-oracle")
    ap.add_argument("--family", choices=FAMILIES)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--list", action="store_true", help="print the families")
    a = ap.parse_args()
    if a.list:
        print("\n".join(FAMILIES))
        return 0
    if not a.family:
        ap.error("--family is required")
    sys.stdout.write(dump(generate(a.family, a.seed), "generated: gen.py --family %s --seed %d" % (a.family, a.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
