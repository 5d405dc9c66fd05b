#!/usr/bin/python3
"""apigen.py - a seeded generator of Kueue objects for the API oracle.

For every kind (ResourceFlavor, ClusterQueue, Cohort, LocalQueue,
WorkloadPriorityClass, Workload) and seed: one valid kueue.x-k8s.io/v1beta2
object, then copies of it broken one field at a time (wrong JSON types,
out-of-range numbers, bad quantities, duplicate names, too many items,
lengths at and one past each limit, broken references).  A case at a limit
("...-at-limit") is meant to be valid; both sides decide.

    apigen.py --seeds N [--kind KIND] [-o FILE]   # JSON lines: {"id","kind","case","object"}

UPDATE cases (generate_updates(), --updates): per kind and seed, a stored
object ("old": valid, with a status where the case needs one, e.g. a
Workload whose quota is reserved) and the object an UPDATE sends ("object":
old with one field changed, a change Kueue allows or one it forbids:
immutable fields, CEL transition rules, the webhook's ValidateUpdate),
sent to the object or, with "subresource": "status", to its /status.
Their cases are named "update:<old state>/<change>".

api_compare.py imports generate(); the same seed always gives the same
objects (random.Random(seed), nothing else random).
"""
import argparse
import copy
import json
import random
import sys

KINDS = ["ResourceFlavor", "ClusterQueue", "Cohort", "LocalQueue", "WorkloadPriorityClass", "Workload"]
V1BETA2 = "kueue.x-k8s.io/v1beta2"
ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
RESOURCES = ["cpu", "memory", "nvidia.com/gpu", "example.com/foo", "pods", "ephemeral-storage"]
QUANTITIES = ["0", "1", "2", "4", "10", "100", "500m", "1.5", "250m", "1Gi", "36Gi", "512Mi", "1k", "3M"]
BAD_QUANTITIES = ["abc", "1.5.5", "--1", "1Zi", "", "1e", " 1", "0x10", "1 Gi"]
EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]


def label(rng, lo=3, hi=10):
    """A DNS-1123 label."""
    n = rng.randint(lo, hi)
    s = rng.choice("abcdefghijklmnopqrstuvwxyz") + "".join(rng.choice(ALNUM + "-") for _ in range(n - 2))
    return s + rng.choice(ALNUM) if n > 1 else s


def long_name(n, rng):
    """A DNS-1123 subdomain of exactly n characters (n >= 1)."""
    parts, left = [], n
    while left > 0:
        k = min(left, 63)
        if left - k == 1:  # never leave a lone "." at the end
            k -= 1
        parts.append("a" * k)
        left -= k + 1
    return ".".join(parts)[:n]


def long_label(n):
    return "a" * n


def meta(rng, kind):
    m = {"name": label(rng)}
    if kind in ("LocalQueue", "Workload"):
        m["namespace"] = rng.choice(["default", "team-a", label(rng)])
    if rng.random() < 0.3:
        m["labels"] = {"app": label(rng)}
    return m


def obj(kind, rng, spec):
    o = {"apiVersion": V1BETA2, "kind": kind, "metadata": meta(rng, kind)}
    if spec is not None:
        o["spec"] = spec
    return o


# --- valid objects -------------------------------------------------------------


def gen_taint(rng):
    t = {"key": rng.choice(["dedicated", "example.com/gpu", "spot"]), "effect": rng.choice(EFFECTS)}
    if rng.random() < 0.7:
        t["value"] = label(rng)
    return t


def gen_toleration(rng):
    if rng.random() < 0.3:
        return {"key": "spot", "operator": "Exists", "effect": rng.choice(EFFECTS)}
    t = {"key": rng.choice(["dedicated", "example.com/gpu"]), "operator": "Equal", "value": label(rng),
         "effect": rng.choice(EFFECTS)}
    if t["effect"] == "NoExecute" and rng.random() < 0.5:
        t["tolerationSeconds"] = rng.randint(0, 3600)
    return t


def gen_resource_flavor(rng):
    spec = {}
    if rng.random() < 0.7:
        spec["nodeLabels"] = {rng.choice(["instance-type", "cloud.example.com/pool", "zone"]): label(rng)
                              for _ in range(rng.randint(1, 3))}
    if rng.random() < 0.5:
        spec["nodeTaints"] = [gen_taint(rng) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.5:
        spec["tolerations"] = [gen_toleration(rng) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.2 and spec.get("nodeLabels"):
        spec["topologyName"] = label(rng)
    return obj("ResourceFlavor", rng, spec)


def gen_resource_groups(rng, borrowing):
    """1-3 resource groups with distinct resources and flavors; limits only
    when the queue may borrow (has a cohort or parent)."""
    res = rng.sample(RESOURCES, rng.randint(1, min(len(RESOURCES), 4)))
    ngroups = rng.randint(1, min(3, len(res)))
    cuts = sorted(rng.sample(range(1, len(res)), ngroups - 1)) if ngroups > 1 else []
    groups, start, fl = [], 0, 0
    for end in cuts + [len(res)]:
        covered = res[start:end]
        start = end
        flavors = []
        for _ in range(rng.randint(1, 3)):
            fl += 1
            rs = []
            for r in covered:
                q = {"name": r, "nominalQuota": rng.choice(QUANTITIES[1:])}
                if borrowing and rng.random() < 0.3:
                    q["borrowingLimit"] = rng.choice(QUANTITIES)
                if borrowing and rng.random() < 0.3:
                    q["lendingLimit"] = "0"
                rs.append(q)
            flavors.append({"name": "flavor-%d" % fl, "resources": rs})
        groups.append({"coveredResources": covered, "flavors": flavors})
    return groups


def gen_cluster_queue(rng):
    spec = {"namespaceSelector": {}}
    cohort = rng.random() < 0.6
    if cohort:
        spec["cohortName"] = label(rng)
    spec["resourceGroups"] = gen_resource_groups(rng, cohort)
    if rng.random() < 0.4:
        spec["queueingStrategy"] = rng.choice(["StrictFIFO", "BestEffortFIFO"])
    if rng.random() < 0.4:
        p = {"withinClusterQueue": rng.choice(["Never", "LowerPriority", "LowerOrNewerEqualPriority"]),
             "reclaimWithinCohort": rng.choice(["Never", "LowerPriority", "Any"])}
        if p["reclaimWithinCohort"] != "Never":
            p["borrowWithinCohort"] = {"policy": rng.choice(["Never", "LowerPriority"])}
            if p["borrowWithinCohort"]["policy"] == "LowerPriority" and rng.random() < 0.5:
                p["borrowWithinCohort"]["maxPriorityThreshold"] = rng.randint(-100, 100)
        spec["preemption"] = p
    if rng.random() < 0.3:
        spec["flavorFungibility"] = {"whenCanBorrow": rng.choice(["MayStopSearch", "TryNextFlavor"]),
                                     "whenCanPreempt": rng.choice(["MayStopSearch", "TryNextFlavor"])}
    if rng.random() < 0.2:
        spec["fairSharing"] = {"weight": rng.choice(["1", "2", "0", "500m"])}
    if rng.random() < 0.2:
        spec["stopPolicy"] = rng.choice(["None", "Hold", "HoldAndDrain"])
    if rng.random() < 0.2:
        spec["namespaceSelector"] = {"matchLabels": {"team": label(rng)}}
    return obj("ClusterQueue", rng, spec)


def gen_cohort(rng):
    spec = {}
    parent = rng.random() < 0.5
    if parent:
        spec["parentName"] = label(rng)
    if rng.random() < 0.8:
        spec["resourceGroups"] = gen_resource_groups(rng, parent)
    if rng.random() < 0.3:
        spec["fairSharing"] = {"weight": rng.choice(["1", "2", "0", "1500m"])}
    return obj("Cohort", rng, spec)


def gen_local_queue(rng):
    spec = {"clusterQueue": label(rng)}
    if rng.random() < 0.3:
        spec["stopPolicy"] = rng.choice(["None", "Hold", "HoldAndDrain"])
    if rng.random() < 0.2:
        spec["fairSharing"] = {"weight": rng.choice(["1", "3", "0"])}
    return obj("LocalQueue", rng, spec)


def gen_wpc(rng):
    o = obj("WorkloadPriorityClass", rng, None)
    o["value"] = rng.randint(-1000, 100000)
    if rng.random() < 0.5:
        o["description"] = "priority " + label(rng)
    return o


def gen_container(rng, i):
    c = {"name": "c%d" % i, "image": "busybox"}
    if rng.random() < 0.9:
        c["resources"] = {"requests": {r: rng.choice(QUANTITIES[1:]) for r in rng.sample(["cpu", "memory"], rng.randint(1, 2))}}
    return c


def gen_podset(rng, name):
    ps = {"name": name, "count": rng.randint(1, 10),
          "template": {"spec": {"containers": [gen_container(rng, i) for i in range(rng.randint(1, 2))]}}}
    if rng.random() < 0.2:
        ps["template"]["spec"]["restartPolicy"] = "Never"
    return ps


def gen_workload(rng):
    names = ["main"] if rng.random() < 0.5 else rng.sample(["driver", "worker", "launcher", "ps", "chief"], rng.randint(1, 3))
    spec = {"queueName": label(rng), "podSets": [gen_podset(rng, n) for n in names]}
    if rng.random() < 0.3:
        ps = rng.choice(spec["podSets"])
        ps["minCount"] = rng.randint(1, ps["count"])
    if rng.random() < 0.3:
        spec["priority"] = rng.randint(-100, 1000)
        if rng.random() < 0.5:
            spec["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": label(rng)}
    if rng.random() < 0.2:
        spec["active"] = rng.random() < 0.5
    if rng.random() < 0.2:
        spec["maximumExecutionTimeSeconds"] = rng.randint(1, 86400)
    return obj("Workload", rng, spec)


GENERATORS = {
    "ResourceFlavor": gen_resource_flavor,
    "ClusterQueue": gen_cluster_queue,
    "Cohort": gen_cohort,
    "LocalQueue": gen_local_queue,
    "WorkloadPriorityClass": gen_wpc,
    "Workload": gen_workload,
}

# --- mutations: each takes (object, rng), changes one field, returns the
# object, or None when it does not apply to this object ----------------------


def at(o, path, value):
    """Sets o[path] (dotted, with [i] indexes), creating maps on the way."""
    keys = []
    for part in path.split("."):
        while "[" in part:
            k, rest = part.split("[", 1)
            if k:
                keys.append(k)
            idx, part = rest.split("]", 1)
            keys.append(int(idx))
        if part:
            keys.append(part)
    cur = o
    for k in keys[:-1]:
        if isinstance(k, str) and k not in cur:
            cur[k] = {}
        cur = cur[k]
    cur[keys[-1]] = value
    return o


def get(o, path):
    cur = o
    for part in path.replace("[", ".").replace("]", "").split("."):
        if part == "":
            continue
        if isinstance(cur, list):
            i = int(part)
            if i >= len(cur):
                return None
            cur = cur[i]
        elif isinstance(cur, dict):
            if part not in cur:
                return None
            cur = cur[part]
        else:
            return None
    return cur


def setter(path, value):
    return lambda o, rng: at(o, path, value(rng) if callable(value) else value)


def when(path, fn):
    """fn only on objects that have path."""
    return lambda o, rng: fn(o, rng) if get(o, path) is not None else None


def drop(path):
    def f(o, rng):
        parent, _, key = path.rpartition(".")
        p = get(o, parent) if parent else o
        if not isinstance(p, dict) or key not in p:
            return None
        del p[key]
        return o
    return f


def meta_mutations(kind):
    m = {
        "name-invalid": setter("metadata.name", "Bad_Name"),
        "name-empty": setter("metadata.name", ""),
        "name-at-limit": setter("metadata.name", lambda r: long_name(253, r)),
        "name-too-long": setter("metadata.name", lambda r: long_name(254, r)),
        "name-wrong-type": setter("metadata.name", 42),
        "label-value-too-long": setter("metadata.labels", {"app": long_label(64)}),
        "label-key-invalid": setter("metadata.labels", {"bad key": "x"}),
        "spec-wrong-type": setter("spec", "not-an-object") if kind != "WorkloadPriorityClass" else None,
    }
    if kind in ("LocalQueue", "Workload"):
        m["namespace-invalid"] = setter("metadata.namespace", "Bad_NS")
    else:
        m["namespace-on-cluster-object"] = setter("metadata.namespace", "default")
    return {k: v for k, v in m.items() if v}


def rf_mutations():
    return {
        "nodeLabels-wrong-type": setter("spec.nodeLabels", ["a", "b"]),
        "nodeLabels-key-invalid": setter("spec.nodeLabels", {"bad key!": "x"}),
        "nodeLabels-value-at-limit": setter("spec.nodeLabels", {"zone": long_label(63)}),
        "nodeLabels-value-too-long": setter("spec.nodeLabels", {"zone": long_label(64)}),
        "nodeLabels-value-invalid": setter("spec.nodeLabels", {"zone": "-bad-"}),
        "nodeLabels-key-prefix-too-long": setter("spec.nodeLabels", {long_name(254, None) + "/k": "v"}),
        "nodeTaints-at-limit": lambda o, r: at(o, "spec.nodeTaints", [{"key": "k%d" % i, "effect": "NoSchedule"} for i in range(8)]),
        "nodeTaints-too-many": lambda o, r: at(o, "spec.nodeTaints", [{"key": "k%d" % i, "effect": "NoSchedule"} for i in range(9)]),
        "nodeTaints-bad-effect": setter("spec.nodeTaints", [{"key": "k", "effect": "Sometimes"}]),
        "nodeTaints-missing-key": setter("spec.nodeTaints", [{"effect": "NoSchedule"}]),
        "nodeTaints-missing-effect": setter("spec.nodeTaints", [{"key": "k"}]),
        "nodeTaints-key-invalid": setter("spec.nodeTaints", [{"key": "bad key", "effect": "NoSchedule"}]),
        "nodeTaints-value-invalid": setter("spec.nodeTaints", [{"key": "k", "value": "bad value!", "effect": "NoSchedule"}]),
        "nodeTaints-duplicate": setter("spec.nodeTaints", [{"key": "k", "effect": "NoSchedule"}, {"key": "k", "effect": "NoSchedule"}]),
        "nodeTaints-wrong-type": setter("spec.nodeTaints", "k=v:NoSchedule"),
        "tolerations-too-many": lambda o, r: at(o, "spec.tolerations", [{"key": "k%d" % i, "operator": "Exists"} for i in range(9)]),
        "tolerations-at-limit": lambda o, r: at(o, "spec.tolerations", [{"key": "k%d" % i, "operator": "Exists"} for i in range(8)]),
        "tolerations-bad-operator": setter("spec.tolerations", [{"key": "k", "operator": "Maybe"}]),
        "tolerations-exists-with-value": setter("spec.tolerations", [{"key": "k", "operator": "Exists", "value": "v"}]),
        "tolerations-seconds-not-noexecute": setter("spec.tolerations", [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule", "tolerationSeconds": 5}]),
        "tolerations-empty-key-equal": setter("spec.tolerations", [{"operator": "Equal", "value": "v"}]),
        "tolerations-bad-effect": setter("spec.tolerations", [{"key": "k", "operator": "Exists", "effect": "Never"}]),
        "tolerations-key-invalid": setter("spec.tolerations", [{"key": "bad key", "operator": "Exists"}]),
        "tolerations-seconds-wrong-type": setter("spec.tolerations", [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": "5"}]),
        "topologyName-without-nodeLabels": lambda o, r: (o["spec"].pop("nodeLabels", None), at(o, "spec.topologyName", "topo"))[1],
        "topologyName-invalid": lambda o, r: at(at(o, "spec.nodeLabels", {"zone": "a"}), "spec.topologyName", "Bad_Topo"),
    }


def rg_mutations(prefix="spec.resourceGroups"):
    rg = prefix
    r0 = rg + "[0].flavors[0].resources[0]"

    def dup_covered_across(o, rng):
        g = get(o, rg)
        if not g or len(g) < 2:
            return None
        g[1]["coveredResources"][0] = g[0]["coveredResources"][0]
        for f in g[1]["flavors"]:
            f["resources"][0]["name"] = g[0]["coveredResources"][0]
        return o

    def dup_covered_within(o, rng):
        g = get(o, rg)
        if not g or len(g[0]["coveredResources"]) < 2:
            return None
        g[0]["coveredResources"][1] = g[0]["coveredResources"][0]
        for f in g[0]["flavors"]:
            f["resources"][1]["name"] = g[0]["coveredResources"][0]
        return o

    def dup_flavor_across(o, rng):
        g = get(o, rg)
        if not g or len(g) < 2:
            return None
        g[1]["flavors"][0]["name"] = g[0]["flavors"][0]["name"]
        return o

    def dup_flavor_within(o, rng):
        g = get(o, rg)
        if not g or len(g[0]["flavors"]) < 2:
            return None
        g[0]["flavors"][1]["name"] = g[0]["flavors"][0]["name"]
        return o

    def groups(n, covered_per, flavors_per):
        out = []
        for i in range(n):
            cov = ["example.com/r%d-%d" % (i, j) for j in range(covered_per)]
            out.append({"coveredResources": cov,
                        "flavors": [{"name": "f%d-%d" % (i, k), "resources": [{"name": c, "nominalQuota": "1"} for c in cov]}
                                    for k in range(flavors_per)]})
        return out

    def resources_mismatch(o, rng):
        g = get(o, rg)
        if not g:
            return None
        g[0]["flavors"][0]["resources"].append({"name": "example.com/extra", "nominalQuota": "1"})
        return o

    def resource_name_order(o, rng):
        g = get(o, rg)
        if not g:
            return None
        g[0]["flavors"][0]["resources"][0]["name"] = "example.com/other"
        return o

    has = lambda fn: when(rg, fn)
    return {
        "nominalQuota-negative": has(setter(r0 + ".nominalQuota", "-1")),
        "nominalQuota-bad-quantity": has(lambda o, r: at(o, r0 + ".nominalQuota", r.choice(BAD_QUANTITIES))),
        "nominalQuota-wrong-type": has(setter(r0 + ".nominalQuota", True)),
        "nominalQuota-number": has(setter(r0 + ".nominalQuota", 5)),
        "nominalQuota-missing": has(drop(r0 + ".nominalQuota")),
        "borrowingLimit-negative": has(setter(r0 + ".borrowingLimit", "-2")),
        "borrowingLimit-bad-quantity": has(lambda o, r: at(o, r0 + ".borrowingLimit", r.choice(BAD_QUANTITIES))),
        "lendingLimit-over-nominal": has(lambda o, r: at(at(o, r0 + ".nominalQuota", "1"), r0 + ".lendingLimit", "2")),
        "lendingLimit-negative": has(setter(r0 + ".lendingLimit", "-1")),
        "resource-name-invalid": has(lambda o, r: at(at(o, rg + "[0].coveredResources[0]", "bad name"), r0 + ".name", "bad name")),
        "resource-name-mismatch": has(resource_name_order),
        "resources-count-mismatch": has(resources_mismatch),
        "coveredResources-duplicate-across-groups": has(dup_covered_across),
        "coveredResources-duplicate-within-group": has(dup_covered_within),
        "flavor-duplicate-across-groups": has(dup_flavor_across),
        "flavor-duplicate-within-group": has(dup_flavor_within),
        "flavor-name-invalid": has(setter(rg + "[0].flavors[0].name", "Bad.Flavor")),
        "flavor-name-too-long": has(lambda o, r: at(o, rg + "[0].flavors[0].name", long_name(254, r))),
        "coveredResources-empty": has(lambda o, r: at(o, rg, [{"coveredResources": [], "flavors": [{"name": "f", "resources": []}]}])),
        "coveredResources-wrong-type": has(setter(rg + "[0].coveredResources", "cpu")),
        "resourceGroups-wrong-type": setter(rg, {"cpu": "1"}),
        "resourceGroups-at-limit": lambda o, r: at(o, rg, groups(16, 1, 1)),
        "resourceGroups-too-many": lambda o, r: at(o, rg, groups(17, 1, 1)),
        "coveredResources-at-limit": lambda o, r: at(o, rg, groups(1, 16, 1)),
        "coveredResources-too-many": lambda o, r: at(o, rg, groups(1, 65, 1)),
        "flavors-at-limit": lambda o, r: at(o, rg, groups(1, 1, 64)),
        "flavors-too-many": lambda o, r: at(o, rg, groups(1, 1, 65)),
        "total-flavors-too-many": lambda o, r: at(o, rg, groups(5, 1, 52)),
        "total-resources-too-many": lambda o, r: at(o, rg, groups(5, 52, 1)),
        "fairSharing-weight-negative": setter("spec.fairSharing", {"weight": "-1"}),
        "fairSharing-weight-bad-quantity": setter("spec.fairSharing", {"weight": "heavy"}),
        "fairSharing-weight-huge": setter("spec.fairSharing", {"weight": "1e10"}),
    }


def cq_mutations():
    m = rg_mutations()
    cohortless = lambda o: (o["spec"].pop("cohortName", None), o)[1]
    m.update({
        "borrowingLimit-without-cohort": when("spec.resourceGroups", lambda o, r: at(cohortless(o), "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit", "1")),
        "lendingLimit-without-cohort": when("spec.resourceGroups", lambda o, r: at(cohortless(o), "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit", "0")),
        "cohortName-invalid": setter("spec.cohortName", "Bad_Cohort"),
        "cohortName-at-limit": setter("spec.cohortName", lambda r: long_name(253, r)),
        "cohortName-too-long": setter("spec.cohortName", lambda r: long_name(254, r)),
        "cohortName-wrong-type": setter("spec.cohortName", 7),
        "queueingStrategy-unsupported": setter("spec.queueingStrategy", "LIFO"),
        "stopPolicy-unsupported": setter("spec.stopPolicy", "Pause"),
        "preemption-reclaim-never-borrow-lower": setter("spec.preemption", {"reclaimWithinCohort": "Never", "borrowWithinCohort": {"policy": "LowerPriority"}}),
        "preemption-within-unsupported": setter("spec.preemption", {"withinClusterQueue": "Always"}),
        "preemption-threshold-wrong-type": setter("spec.preemption", {"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": "high"}}),
        "preemption-threshold-out-of-range": setter("spec.preemption", {"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 2147483648}}),
        "fungibility-preference-mismatch": setter("spec.flavorFungibility", {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor", "preference": "BorrowingOverPreemption"}),
        "fungibility-unsupported": setter("spec.flavorFungibility", {"whenCanBorrow": "Borrow"}),
        "namespaceSelector-bad-operator": setter("spec.namespaceSelector", {"matchExpressions": [{"key": "team", "operator": "Like", "values": ["a"]}]}),
        "namespaceSelector-exists-with-values": setter("spec.namespaceSelector", {"matchExpressions": [{"key": "team", "operator": "Exists", "values": ["a"]}]}),
        "namespaceSelector-in-without-values": setter("spec.namespaceSelector", {"matchExpressions": [{"key": "team", "operator": "In"}]}),
        "namespaceSelector-bad-label-key": setter("spec.namespaceSelector", {"matchLabels": {"bad key": "x"}}),
        "namespaceSelector-bad-label-value": setter("spec.namespaceSelector", {"matchLabels": {"team": "bad value!"}}),
        "admissionChecks-empty": setter("spec.admissionChecksStrategy", {"admissionChecks": []}),
        "admissionChecks-name-too-long": setter("spec.admissionChecksStrategy", {"admissionChecks": [{"name": "a" * 317}]}),
        "admissionChecks-duplicate": setter("spec.admissionChecksStrategy", {"admissionChecks": [{"name": "ac"}, {"name": "ac"}]}),
        "admissionChecks-onFlavors-invalid": setter("spec.admissionChecksStrategy", {"admissionChecks": [{"name": "ac", "onFlavors": ["Bad_Flavor"]}]}),
        "admissionChecks-onFlavors-unknown-flavor": setter("spec.admissionChecksStrategy", {"admissionChecks": [{"name": "ac", "onFlavors": ["not-in-queue"]}]}),
        "admissionScope-unsupported": setter("spec.admissionScope", {"admissionMode": "Sometimes"}),
    })
    return m


def cohort_mutations():
    m = rg_mutations()
    orphan = lambda o: (o["spec"].pop("parentName", None), o)[1]
    m.update({
        "borrowingLimit-without-parent": when("spec.resourceGroups", lambda o, r: at(orphan(o), "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit", "1")),
        "lendingLimit-without-parent": when("spec.resourceGroups", lambda o, r: at(orphan(o), "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit", "0")),
        "parentName-invalid": setter("spec.parentName", "Bad_Parent"),
        "parentName-at-limit": setter("spec.parentName", lambda r: long_name(253, r)),
        "parentName-too-long": setter("spec.parentName", lambda r: long_name(254, r)),
        "parentName-self": lambda o, r: at(o, "spec.parentName", o["metadata"]["name"]),
        "parentName-wrong-type": setter("spec.parentName", ["a"]),
    })
    return m


def lq_mutations():
    return {
        "clusterQueue-invalid": setter("spec.clusterQueue", "Bad_CQ"),
        "clusterQueue-at-limit": setter("spec.clusterQueue", lambda r: long_name(253, r)),
        "clusterQueue-too-long": setter("spec.clusterQueue", lambda r: long_name(254, r)),
        "clusterQueue-missing": drop("spec.clusterQueue"),
        "clusterQueue-wrong-type": setter("spec.clusterQueue", {"name": "cq"}),
        "stopPolicy-unsupported": setter("spec.stopPolicy", "Stop"),
        "fairSharing-weight-negative": setter("spec.fairSharing", {"weight": "-3"}),
        "fairSharing-weight-bad-quantity": setter("spec.fairSharing", {"weight": "x1"}),
        "fairSharing-weight-wrong-type": setter("spec.fairSharing", {"weight": [1]}),
    }


def wpc_mutations():
    return {
        "value-missing": drop("value"),
        "value-wrong-type": setter("value", "100"),
        "value-float": setter("value", 1.5),
        "value-int32-max": setter("value", 2147483647),
        "value-over-int32": setter("value", 2147483648),
        "value-under-int32": setter("value", -2147483649),
        "description-at-limit": setter("description", "d" * 2048),
        "description-too-long": setter("description", "d" * 2049),
        "description-wrong-type": setter("description", 5),
    }


def wl_mutations():
    ps0 = "spec.podSets[0]"

    def podsets(n):
        return lambda o, r: at(o, "spec.podSets", [gen_podset(r, "ps%d" % i) for i in range(n)])

    def dup_podset(o, rng):
        ps = o["spec"]["podSets"]
        ps.append(copy.deepcopy(ps[0]))
        return o

    def two_mincounts(o, rng):
        ps = o["spec"]["podSets"]
        if len(ps) < 2:
            ps.append(gen_podset(rng, "extra"))
        for p in ps[:2]:
            p["minCount"] = 1
        return o

    return {
        "podSets-empty": setter("spec.podSets", []),
        "podSets-missing": drop("spec.podSets"),
        "podSets-at-limit": podsets(8),
        "podSets-too-many": podsets(9),
        "podSets-duplicate-name": dup_podset,
        "podSets-wrong-type": setter("spec.podSets", {"main": 1}),
        "podSet-name-invalid": setter(ps0 + ".name", "Main_Set"),
        "podSet-name-at-limit": setter(ps0 + ".name", long_label(63)),
        "podSet-name-too-long": setter(ps0 + ".name", long_label(64)),
        "podSet-count-negative": setter(ps0 + ".count", -1),
        "podSet-count-zero": setter(ps0 + ".count", 0),
        "podSet-count-wrong-type": setter(ps0 + ".count", "3"),
        "podSet-count-over-int32": setter(ps0 + ".count", 2147483648),
        "podSet-minCount-over-count": lambda o, r: at(at(o, ps0 + ".count", 2), ps0 + ".minCount", 3),
        "podSet-minCount-zero": setter(ps0 + ".minCount", 0),
        "podSet-minCount-two-podsets": two_mincounts,
        "podSet-template-missing": drop(ps0 + ".template"),
        "podSet-request-bad-quantity": lambda o, r: at(o, ps0 + ".template.spec.containers[0].resources", {"requests": {"cpu": r.choice(BAD_QUANTITIES)}}),
        "podSet-request-negative": setter(ps0 + ".template.spec.containers[0].resources", {"requests": {"cpu": "-1"}}),
        "podSet-request-over-limit": setter(ps0 + ".template.spec.containers[0].resources", {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
        "podSet-container-name-missing": drop(ps0 + ".template.spec.containers[0].name"),
        "podSet-containers-wrong-type": setter(ps0 + ".template.spec.containers", "busybox"),
        "queueName-invalid": setter("spec.queueName", "Bad_Queue"),
        "queueName-at-limit": setter("spec.queueName", lambda r: long_name(253, r)),
        "queueName-too-long": setter("spec.queueName", lambda r: long_name(254, r)),
        "priority-wrong-type": setter("spec.priority", "high"),
        "priority-over-int32": setter("spec.priority", 2147483648),
        "priorityClassRef-without-priority": lambda o, r: (o["spec"].pop("priority", None), at(o, "spec.priorityClassRef", {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "p"}))[1],
        "priorityClassRef-kind-mismatch": lambda o, r: at(at(o, "spec.priority", 1), "spec.priorityClassRef", {"group": "kueue.x-k8s.io", "kind": "PriorityClass", "name": "p"}),
        "priorityClassRef-group-unsupported": lambda o, r: at(at(o, "spec.priority", 1), "spec.priorityClassRef", {"group": "example.com", "kind": "PriorityClass", "name": "p"}),
        "priorityClassRef-name-invalid": lambda o, r: at(at(o, "spec.priority", 1), "spec.priorityClassRef", {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "Bad_Name"}),
        "priorityClassRef-name-missing": lambda o, r: at(at(o, "spec.priority", 1), "spec.priorityClassRef", {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass"}),
        "maximumExecutionTimeSeconds-zero": setter("spec.maximumExecutionTimeSeconds", 0),
        "maximumExecutionTimeSeconds-wrong-type": setter("spec.maximumExecutionTimeSeconds", "60"),
        "active-wrong-type": setter("spec.active", "yes"),
        "priority-boost-empty": setter("metadata.annotations", {"kueue.x-k8s.io/priority-boost": ""}),
        "priority-boost-invalid": setter("metadata.annotations", {"kueue.x-k8s.io/priority-boost": "high"}),
    }


MUTATIONS = {
    "ResourceFlavor": rf_mutations,
    "ClusterQueue": cq_mutations,
    "Cohort": cohort_mutations,
    "LocalQueue": lq_mutations,
    "WorkloadPriorityClass": wpc_mutations,
    "Workload": wl_mutations,
}


def generate(seed, kinds=KINDS):
    """[{"id","kind","case","object"}] for one seed: per kind the valid
    object, then each mutation that applies to it."""
    out = []
    for kind in kinds:
        rng = random.Random("%s/%d" % (kind, seed))
        base = GENERATORS[kind](rng)
        out.append({"id": "%s-%d-valid" % (kind, seed), "kind": kind, "case": "valid", "object": base})
        muts = dict(meta_mutations(kind))
        muts.update(MUTATIONS[kind]())
        for name in sorted(muts):
            o = muts[name](copy.deepcopy(base), random.Random("%s/%d/%s" % (kind, seed, name)))
            if o is None:
                continue
            out.append({"id": "%s-%d-%s" % (kind, seed, name), "kind": kind, "case": name, "object": o})
    return out


# --- updates: each takes (old, new, rng), both copies of the valid object;
# it may give old a state (a status, a field the change needs) and changes
# new; it returns True, or None when it does not apply -----------------------

CONDITION_TIME = "2024-05-01T10:00:00Z"


def condition(ctype, status="True", reason=None):
    return {"type": ctype, "status": status, "reason": reason or ctype, "message": "set by the test",
            "lastTransitionTime": CONDITION_TIME}


def reserve(w, admitted=False):
    """Gives Workload w the status of one whose quota is reserved in
    ClusterQueue cq (and admitted)."""
    st = w.setdefault("status", {})
    st["conditions"] = [condition("QuotaReserved")] + ([condition("Admitted")] if admitted else [])
    st["admission"] = {"clusterQueue": "cq", "podSetAssignments": [
        {"name": ps["name"], "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": str(ps["count"])},
         "count": ps["count"]} for ps in w["spec"]["podSets"]]}
    return True


def pending(w):
    return True


def change(path, value):
    """new[path] = value (value(rng) when callable)."""
    def f(old, new, rng):
        at(new, path, value(rng) if callable(value) else value)
        return True
    return f


def remove(path):
    def f(old, new, rng):
        return drop(path)(new, rng) is not None or None
    return f


def both(path, value):
    """old and new get path = value (a field the change needs stored)."""
    def f(old, new, rng):
        at(old, path, value)
        at(new, path, copy.deepcopy(value))
        return True
    return f


def seq(*fns):
    def f(old, new, rng):
        for fn in fns:
            if fn(old, new, rng) is None:
                return None
        return True
    return f


def only_if(path, fn):
    return lambda old, new, rng: fn(old, new, rng) if get(old, path) is not None else None


def meta_updates():
    return {
        "noop": lambda o, n, r: True,
        "label-added": change("metadata.labels", {"app": "changed", "team": "x"}),
        "label-invalid": change("metadata.labels", {"bad key": "x"}),
        "annotation-added": change("metadata.annotations", {"example.com/note": "changed"}),
    }


def rf_updates():
    topo = both("spec.topologyName", "topo-a")
    labelled = lambda o, n, r: (o["spec"].setdefault("nodeLabels", {"zone": "a"}),
                                n["spec"].setdefault("nodeLabels", dict(o["spec"]["nodeLabels"])))[0] and True
    changes = {
        "nodeLabels-changed": change("spec.nodeLabels", {"zone": "changed"}),
        "nodeLabels-removed": remove("spec.nodeLabels"),
        "nodeLabels-invalid": change("spec.nodeLabels", {"zone": "-bad-"}),
        "tolerations-changed": change("spec.tolerations", [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}]),
        "tolerations-removed": remove("spec.tolerations"),
        "nodeTaints-changed": change("spec.nodeTaints", [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]),
        "nodeTaints-removed": remove("spec.nodeTaints"),
        "topologyName-added": seq(labelled, change("spec.topologyName", "topo-b")),
        "topologyName-changed": change("spec.topologyName", "topo-b"),
        "topologyName-removed": remove("spec.topologyName"),
    }
    out = {}
    for name, fn in changes.items():
        out["plain/" + name] = fn
        out["topology/" + name] = seq(labelled, topo, fn)
    return out


def rg_updates():
    q0 = "spec.resourceGroups[0].flavors[0].resources[0]"

    def flavor_added(old, new, rng):
        g = get(new, "spec.resourceGroups")
        if not g:
            return None
        f = copy.deepcopy(g[0]["flavors"][0])
        f["name"] = "flavor-added"
        g[0]["flavors"].append(f)
        return True

    has = lambda fn: only_if("spec.resourceGroups", fn)
    return {
        "nominalQuota-changed": has(change(q0 + ".nominalQuota", "77")),
        "nominalQuota-negative": has(change(q0 + ".nominalQuota", "-1")),
        "lendingLimit-over-nominal": has(seq(change(q0 + ".nominalQuota", "1"), change(q0 + ".lendingLimit", "2"))),
        "flavor-added": flavor_added,
        "resourceGroups-removed": remove("spec.resourceGroups"),
        "fairSharing-changed": change("spec.fairSharing", {"weight": "3"}),
        "fairSharing-negative": change("spec.fairSharing", {"weight": "-1"}),
    }


def cq_updates():
    out = {"spec/" + k: v for k, v in rg_updates().items()}
    out.update({
        "spec/cohortName-changed": change("spec.cohortName", "other-cohort"),
        "spec/cohortName-removed": remove("spec.cohortName"),
        "spec/cohortName-invalid": change("spec.cohortName", "Bad_Cohort"),
        "spec/queueingStrategy-changed": lambda o, n, r: at(n, "spec.queueingStrategy", "StrictFIFO" if o["spec"].get("queueingStrategy") != "StrictFIFO" else "BestEffortFIFO") and True,
        "spec/stopPolicy-changed": change("spec.stopPolicy", "HoldAndDrain"),
        "spec/namespaceSelector-changed": change("spec.namespaceSelector", {"matchLabels": {"team": "changed"}}),
        "spec/preemption-changed": change("spec.preemption", {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}),
        "spec/preemption-invalid": change("spec.preemption", {"reclaimWithinCohort": "Never", "borrowWithinCohort": {"policy": "LowerPriority"}}),
        "spec/status-sent": change("status", {"pendingWorkloads": 7}),
    })
    return out


def cohort_updates():
    out = {"spec/" + k: v for k, v in rg_updates().items()}
    out.update({
        "spec/parentName-changed": change("spec.parentName", "other-parent"),
        "spec/parentName-removed": remove("spec.parentName"),
        "spec/parentName-self": lambda o, n, r: at(n, "spec.parentName", o["metadata"]["name"]) and True,
    })
    return out


def lq_updates():
    return {
        "spec/clusterQueue-changed": change("spec.clusterQueue", "other-cq"),
        "spec/clusterQueue-invalid": change("spec.clusterQueue", "Bad_CQ"),
        "spec/clusterQueue-removed": remove("spec.clusterQueue"),
        "spec/stopPolicy-changed": change("spec.stopPolicy", "Hold"),
        "spec/fairSharing-changed": change("spec.fairSharing", {"weight": "2"}),
        "spec/status-sent": change("status", {"pendingWorkloads": 3}),
    }


def wpc_updates():
    return {
        "spec/value-changed": lambda o, n, r: at(n, "value", o["value"] + 1) and True,
        "spec/value-over-int32": change("value", 2147483648),
        "spec/description-changed": change("description", "changed"),
        "spec/description-removed": remove("description"),
        "spec/description-too-long": change("description", "d" * 2049),
    }


WPC_REF = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "wpc-a"}
PC_REF = {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": "pc-a"}


def wl_updates():
    ps0 = "spec.podSets[0]"

    def podset_added(old, new, rng):
        new["spec"]["podSets"].append(gen_podset(rng, "added"))
        return True

    def with_ref(ref):
        return seq(both("spec.priority", 10), both("spec.priorityClassRef", ref))

    spec = {
        "queueName-changed": change("spec.queueName", "other-queue"),
        "queueName-invalid": change("spec.queueName", "Bad_Queue"),
        "podSet-count-changed": lambda o, n, r: at(n, ps0 + ".count", o["spec"]["podSets"][0]["count"] + 1) and True,
        "podSet-image-changed": change(ps0 + ".template.spec.containers[0].image", "changed:latest"),
        "podSet-added": podset_added,
        "podSet-minCount-changed": change(ps0 + ".minCount", 1),
        "priority-changed": change("spec.priority", 999),
        "priorityClassRef-added": seq(change("spec.priority", 10), change("spec.priorityClassRef", WPC_REF)),
        "priorityClassRef-removed": seq(with_ref(WPC_REF), remove("spec.priorityClassRef")),
        "priorityClassRef-wpc-name-changed": seq(with_ref(WPC_REF), change("spec.priorityClassRef.name", "wpc-b")),
        "priorityClassRef-pc-name-changed": seq(with_ref(PC_REF), change("spec.priorityClassRef.name", "pc-b")),
        "priorityClassRef-kind-changed": seq(with_ref(WPC_REF), change("spec.priorityClassRef", PC_REF)),
        "maximumExecutionTimeSeconds-changed": change("spec.maximumExecutionTimeSeconds", 4242),
        "maximumExecutionTimeSeconds-removed": seq(both("spec.maximumExecutionTimeSeconds", 600), remove("spec.maximumExecutionTimeSeconds")),
        "active-false": change("spec.active", False),
        "status-sent": lambda o, n, r: reserve(n),
    }
    states = {"pending": lambda o: True, "reserved": reserve, "admitted": lambda o: reserve(o, True)}
    out = {}
    for sname, state in states.items():
        for name, fn in spec.items():
            out["%s/%s" % (sname, name)] = (lambda st, fn: lambda o, n, r: (st(o), st(n)) and fn(o, n, r))(state, fn)

    def status_change(state, fn):
        return lambda o, n, r: (state(o), state(n)) and fn(o, n, r)

    def set_admission_flavor(o, n, r):
        n["status"]["admission"]["podSetAssignments"][0]["flavors"] = {"cpu": "other-flavor"}
        return True

    def clear_admission(o, n, r):
        n["status"].pop("admission", None)
        n["status"]["conditions"] = [condition("QuotaReserved", "False", "Pending")]
        return True

    def reclaim(count_old, count_new):
        def f(o, n, r):
            name = o["spec"]["podSets"][0]["name"]
            o["status"]["reclaimablePods"] = [{"name": name, "count": count_old}]
            if count_new is None:
                n["status"].pop("reclaimablePods", None)
            else:
                n["status"]["reclaimablePods"] = [{"name": name, "count": count_new}]
            return True
        return f

    def nominated(o, n, r):
        o.setdefault("status", {})["nominatedClusterNames"] = ["worker-1", "worker-2"]
        return True

    def cluster_name(old_name, new_name, nominate=False):
        def f(o, n, r):
            if nominate:
                nominated(o, n, r)
            if old_name:
                o.setdefault("status", {})["clusterName"] = old_name
                n.setdefault("status", {})["clusterName"] = old_name
            if new_name:
                n.setdefault("status", {})["clusterName"] = new_name
                n["status"].pop("nominatedClusterNames", None)
            else:
                n.get("status", {}).pop("clusterName", None)
            return True
        return f

    def unknown_podset(o, n, r):
        reserve(n)
        n["status"]["admission"]["podSetAssignments"][0]["name"] = "unknown"
        return True

    def usage_not_multiple(o, n, r):
        reserve(n)
        a = n["status"]["admission"]["podSetAssignments"][0]
        a["count"] = 3
        a["resourceUsage"] = {"cpu": "4"}
        return True

    def spec_via_status(o, n, r):
        n["spec"]["queueName"] = "other-queue"
        return True

    status = {
        "pending/reserve": lambda o, n, r: reserve(n),
        "pending/admit": lambda o, n, r: reserve(n, True),
        "pending/admission-unknown-podset": unknown_podset,
        "pending/admission-usage-not-multiple": usage_not_multiple,
        "pending/condition-bad-status": lambda o, n, r: at(n, "status.conditions", [condition("Finished", "Maybe")]) and True,
        "pending/spec-sent": spec_via_status,
        "pending/clusterName-set-nominated": cluster_name(None, "worker-1", True),
        "pending/clusterName-set-not-nominated": cluster_name(None, "elsewhere", True),
        "pending/clusterName-changed": cluster_name("worker-1", "worker-2"),
        "pending/clusterName-cleared": cluster_name("worker-1", None),
        "reserved/admission-changed": status_change(reserve, set_admission_flavor),
        "reserved/admission-cleared": status_change(reserve, clear_admission),
        "reserved/admit": lambda o, n, r: (reserve(o), reserve(n, True)) and True,
        "reserved/reclaimable-increased": status_change(reserve, reclaim(1, 2)),
        "reserved/reclaimable-decreased": status_change(reserve, reclaim(1, 0)),
        "reserved/reclaimable-removed": status_change(reserve, reclaim(1, None)),
        "reserved/spec-sent": status_change(reserve, spec_via_status),
        "admitted/evict": status_change(lambda w: reserve(w, True), clear_admission),
    }
    out.update({"status:" + k: v for k, v in status.items()})
    return out


def queue_status_updates():
    return {
        "status:counts": change("status", {"pendingWorkloads": 2, "reservingWorkloads": 1, "admittedWorkloads": 1}),
        "status:counts-wrong-type": change("status", {"pendingWorkloads": "two"}),
        "status:condition": change("status", {"conditions": [condition("Active", "True", "Ready")]}),
        "status:condition-bad-status": change("status", {"conditions": [condition("Active", "Maybe", "Ready")]}),
        "status:condition-missing-reason": change("status", {"conditions": [{"type": "Active", "status": "True", "message": "m", "lastTransitionTime": CONDITION_TIME}]}),
    }


UPDATES = {
    "ResourceFlavor": rf_updates,
    "ClusterQueue": lambda: dict(cq_updates(), **queue_status_updates()),
    "Cohort": cohort_updates,
    "LocalQueue": lambda: dict(lq_updates(), **queue_status_updates()),
    "WorkloadPriorityClass": wpc_updates,
    "Workload": wl_updates,
}


def generate_updates(seed, kinds=KINDS):
    """[{"id","kind","case","old","object","subresource"}] for one seed: per
    kind, each update that applies to its valid object (the metadata ones
    and the kind's)."""
    out = []
    for kind in kinds:
        base = GENERATORS[kind](random.Random("%s/%d" % (kind, seed)))
        ups = {"meta/" + k: v for k, v in meta_updates().items()}
        ups.update(UPDATES[kind]())
        for name in sorted(ups):
            old, new = copy.deepcopy(base), copy.deepcopy(base)
            if ups[name](old, new, random.Random("%s/%d/update/%s" % (kind, seed, name))) is None:
                continue
            sub = "status" if name.startswith("status:") else ""
            case = "update:" + (name[len("status:"):] if sub else name)
            if sub:
                case = "update-status:" + name[len("status:"):]
            out.append({"id": "%s-%d-%s" % (kind, seed, case), "kind": kind, "case": case, "old": old,
                        "object": new, "subresource": sub})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--kind", action="append", choices=KINDS)
    ap.add_argument("--updates", action="store_true", help="the UPDATE cases instead")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    f = sys.stdout if a.output == "-" else open(a.output, "w")
    gen = generate_updates if a.updates else generate
    for s in range(a.first_seed, a.first_seed + a.seeds):
        for c in gen(s, a.kind or KINDS):
            f.write(json.dumps(c, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
