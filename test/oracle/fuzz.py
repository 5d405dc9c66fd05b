#!/usr/bin/python3
"""Fidelity on random scenarios: simulate against Kueue (kueue-oracle).

For every family of gen.py and seeds FIRST .. FIRST+N-1, generates the
scenario, runs `turnstilectl simulate -o json` and kueue-oracle on it, and
compares the decisions as compare.py does (admitted or pending, ClusterQueue,
flavors, counts, evicted and preempted reasons).  Prints agreement per family
and, for every disagreement, writes a reduced scenario to
OUT/<family>-<seed>.yaml (Kueue's and Turnstile's decisions side by side in
its header comment; the QuotaReserved reasons and messages in the companion
.txt).

The reduction is greedy: objects (workloads, ClusterQueues with their
LocalQueues and workloads, cohorts, flavors, priority classes, namespaces)
and then optional fields are dropped one at a time, each drop kept while both
programs still accept every document and their decisions still differ.

A scenario that either program refuses (a document rejected, or no output)
is a generator bug and counted as "invalid", never as agreement.

Two outcomes are Kueue's own and are counted apart:
- "crash": kueue-oracle died on the scenario (a Go panic in Kueue's
  scheduler): Kueue gave no answer to agree with, so the agreement is taken
  over the scenarios Kueue decided;
- "int64": a disagreement whose reduced scenario totals more than int64 of
  one resource (every quota, limit, request times count and admitted usage
  of it added up), where Kueue's int64 arithmetic may wrap: the deliberate
  difference of docs/architecture.md ("Quantities that do not fit in
  int64").  Below that total no sum Kueue takes can wrap, so those
  disagreements stay "disagree";
- "wakeup": a disagreement where Turnstile admits what Kueue leaves pending
  and nothing else differs, after a workload was evicted from a stopped
  LocalQueue: the deliberate difference of stop-04 (docs/architecture.md:
  Kueue loses the wakeup of the quota that eviction frees).

kueue-oracle runs in its serve mode (one process per worker answering many
runs), since its start (compiling Kueue's CRD schemas and CEL rules) costs
more than a run.

usage: fuzz.py [--seeds N] [--first S] [--family F ...] [-j J] [--out DIR]
               [--strict --known FILE] [--no-reduce] [--quiet] [--with-resource NAME]

--strict: exit 1 on a disagreement or invalid scenario not listed in
--known (lines `FAMILY-SEED: why`; a listed one that agrees now also fails,
so that the list stays true).  Seeds name scenarios only for as long as
gen.py does not change: a change to gen.py may call for a new list.
"""
import argparse
import concurrent.futures
import copy
import fractions
import json
import math
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import gen  # noqa: E402

NOW = compare.NOW
RESTART_AFTER = 2000  # oracle runs per server process (bounds its memory)
TIMEOUT = 60  # seconds per run: runs take milliseconds, so this is a hang
TIMED_OUT = "timed out (a hang)"
SETTLE = 300  # cycles after which Kueue is taken to livelock (runs settle in tens)
LIVELOCK = "still changing after"
CRASHED = "kueue-oracle --serve exited"
INT64_MAX = (1 << 63) - 1


class Oracle:
    """A kueue-oracle --serve process: one request line, one answer line."""

    def __init__(self, binary):
        self.binary, self.p, self.served = binary, None, 0

    def start(self):
        env = dict(os.environ, GOGC="400")
        self.p = subprocess.Popen(["nice", "-n", "10", self.binary, "--serve"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=env)
        self.served = 0

    def close(self):
        if self.p:
            self.p.stdin.close()
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
            self.p = None

    def run(self, args):
        if self.p is None or self.served >= RESTART_AFTER:
            self.close()
            self.start()
        self.served += 1
        try:
            self.p.stdin.write(json.dumps(args) + "\n")
            self.p.stdin.flush()
            ready, _, _ = select.select([self.p.stdout], [], [], TIMEOUT)
            if not ready:
                self.p.kill()
                self.p.wait()
                self.p = None
                return 124, "", TIMED_OUT
            line = self.p.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            rc = self.p.wait()
            self.p = None
            return rc or 1, "", "%s (rc %s)" % (CRASHED, rc)
        a = json.loads(line)
        return a["rc"], a["stdout"], a["stderr"]


class Runner:
    """Runs both programs on documents; one per worker thread."""

    def __init__(self, sim, oracle, tmpdir):
        self.sim = sim
        self.oracle = Oracle(oracle)
        self.dir = tempfile.mkdtemp(dir=tmpdir)
        self.t_sim = self.t_oracle = 0.0
        self.n_sim = self.n_oracle = 0
        self.slowest = (0.0, None)  # oracle seconds, scenario

    def run(self, docs):
        """-> dict: sim/oracle each (decisions, messages, rejected, error)."""
        path = os.path.join(self.dir, "s.yaml")
        with open(path, "w") as fh:
            fh.write(gen.dump(docs))
        extra = []
        cfg = next((d.get("configuration") for d in docs if d.get("kind") == "Scenario"), None)
        if cfg:
            cpath = os.path.join(self.dir, "config.json")
            with open(cpath, "w") as fh:
                json.dump(cfg, fh)
            extra = ["--config", cpath]
        t0 = time.monotonic()
        try:
            p = subprocess.run(["nice", "-n", "10", self.sim, "simulate", "-o", "json", "--now", NOW, "-f", path] + extra,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=TIMEOUT)
            src, sout, serr = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            src, sout, serr = 124, "", TIMED_OUT
        t1 = time.monotonic()
        orc, oout, oerr = self.oracle.run(["-o", "json", "--now", NOW, "--settle-cycles", str(SETTLE), "-f", path])
        t2 = time.monotonic()
        self.t_sim += t1 - t0
        self.t_oracle += t2 - t1
        self.n_sim += 1
        self.n_oracle += 1
        if t2 - t1 > self.slowest[0]:
            self.slowest = (t2 - t1, gen.dump(docs))
        return {"turnstile": outcome(src, sout, serr), "kueue": outcome(orc, oout, oerr)}


def outcome(rc, out, err):
    try:
        dec, msg = compare.decisions(json.loads(out))
    except ValueError:
        return {"error": "rc %d: %s" % (rc, err.strip()[:500])}
    bad = [line for line in err.splitlines() if compare.DOC_RE.search(line) and '"Scenario"' not in line]
    return {"dec": dec, "msg": msg, "rejected": bad, "livelock": LIVELOCK in err}


def verdict(res):
    """agree | disagree | hang (a program did not answer in TIMEOUT) |
    crash (kueue-oracle died) | invalid (a program refused the scenario) |
    livelock (decisions differ but Kueue still changes something after
    SETTLE cycles)."""
    s, k = res["turnstile"], res["kueue"]
    if TIMED_OUT in s.get("error", "") + k.get("error", ""):
        return "hang"
    if CRASHED in k.get("error", ""):
        return "crash"
    if "error" in s or "error" in k or s["rejected"] or k["rejected"]:
        return "invalid"
    if s["dec"] == k["dec"]:
        return "agree"
    # Kueue never settled (its queues or messages, maybe its decisions,
    # still changing): the decisions of its last cycle are not its answer
    return "livelock" if k["livelock"] else "disagree"


# --- Kueue's int64 arithmetic ---------------------------------------------

QTY_RE = re.compile(r"^([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(?:[eE]([+-]?[0-9]+)|(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei))?$")
SUFFIX = {None: 1, "m": fractions.Fraction(1, 1000), "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "T": 10 ** 12,
          "P": 10 ** 15, "E": 10 ** 18, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40,
          "Pi": 1 << 50, "Ei": 1 << 60}


def amount(res, q):
    """Kueue's amount of quantity q: cpu in milli-units, the rest in base
    units, rounded up (pkg/resources/requests.go ResourceValue), exactly."""
    m = QTY_RE.match(str(q).strip())
    if not m:
        return 0
    v = fractions.Fraction(m.group(1))
    v *= fractions.Fraction(10) ** int(m.group(2)) if m.group(2) else SUFFIX[m.group(3)]
    return math.ceil(v * 1000 if res == "cpu" else v)


def totals(docs):
    """Per resource: every quota, limit, request times count and admitted
    usage of it in the scenario, added up."""
    t = {}

    def add(res, q, times=1):
        t[res] = t.get(res, 0) + amount(res, q) * times

    for d in docs:
        spec, kind = d.get("spec") or {}, kind_of(d)
        if kind in ("ClusterQueue", "Cohort"):
            for rg in spec.get("resourceGroups", []):
                for f in rg.get("flavors", []):
                    for r in f.get("resources", []):
                        for key in ("nominalQuota", "borrowingLimit", "lendingLimit"):
                            if key in r:
                                add(r["name"], r[key])
        elif kind == "Workload":
            for ps in spec.get("podSets", []):
                for c in ps.get("template", {}).get("spec", {}).get("containers", []):
                    for res, q in (c.get("resources") or {}).get("requests", {}).items():
                        add(res, q, ps.get("count", 1))
            for psa in ((d.get("status") or {}).get("admission") or {}).get("podSetAssignments", []):
                for res, q in (psa.get("resourceUsage") or {}).items():
                    add(res, q)
    return t


STOPPED_LQ = "The LocalQueue is stopped"


def lost_wakeup(res):
    """Whether a disagreement has the signature of stop-04's lost wakeup."""
    s, k = res["turnstile"], res["kueue"]
    diff = [key for key in set(s["dec"]) | set(k["dec"]) if s["dec"].get(key) != k["dec"].get(key)]
    only_admits = all((k["dec"].get(key) or {}).get("state") == "pending" and
                      (s["dec"].get(key) or {}).get("state") == "admitted" for key in diff)
    drained = any((m or {}).get("evictedMessage") == STOPPED_LQ for m in k["msg"].values())
    return bool(diff) and only_admits and drained


def int64_wrap(docs):
    """The resources whose total passes int64 (where Kueue's sums may wrap)."""
    return sorted(r for r, v in totals(docs).items() if v > INT64_MAX)


# --- reduction -------------------------------------------------------------

def kind_of(d):
    return d.get("kind")


def name_of(d):
    return d.get("metadata", {}).get("name")


def drop_cohort_ref(spec, key):
    """Detach from the parent; limits need one, so they go too."""
    spec.pop(key, None)
    for rg in spec.get("resourceGroups", []):
        for f in rg["flavors"]:
            for q in f["resources"]:
                q.pop("borrowingLimit", None)
                q.pop("lendingLimit", None)


def candidates(docs):
    """Smaller variants of docs, most objects first, then fields."""
    idx = [i for i, d in enumerate(docs) if kind_of(d) == "Workload"]
    for i in reversed(idx):
        yield docs[:i] + docs[i + 1:]
    for cq in [d for d in docs if kind_of(d) == "ClusterQueue"]:
        cqn = name_of(cq)
        lqs = {(d["metadata"].get("namespace", "default"), name_of(d)) for d in docs
               if kind_of(d) == "LocalQueue" and d["spec"].get("clusterQueue") == cqn}
        yield [d for d in docs if d is not cq and not (
            kind_of(d) == "LocalQueue" and d["spec"].get("clusterQueue") == cqn) and not (
            kind_of(d) == "Workload" and (d["metadata"].get("namespace", "default"), d["spec"].get("queueName")) in lqs)]
    for co in [d for d in docs if kind_of(d) == "Cohort"]:
        yield [d for d in docs if d is not co]
    for co in [d for d in docs if kind_of(d) == "Cohort"]:
        name = name_of(co)
        parent = co.get("spec", {}).get("parentName")
        out = []
        for d in docs:
            if d is co:
                continue
            d = copy.deepcopy(d)
            spec = d.get("spec", {})
            key = "cohortName" if kind_of(d) == "ClusterQueue" else "parentName"
            if kind_of(d) in ("ClusterQueue", "Cohort") and spec.get(key) == name:
                if parent:
                    spec[key] = parent
                else:
                    drop_cohort_ref(spec, key)
            out.append(d)
        yield out
    for rf in [d for d in docs if kind_of(d) == "ResourceFlavor"]:
        fname = name_of(rf)
        out = []
        for d in docs:
            if d is rf:
                continue
            if kind_of(d) in ("ClusterQueue", "Cohort") and d.get("spec", {}).get("resourceGroups"):
                d = copy.deepcopy(d)
                rgs = []
                for rg in d["spec"]["resourceGroups"]:
                    rg["flavors"] = [f for f in rg["flavors"] if f["name"] != fname]
                    if rg["flavors"]:
                        rgs.append(rg)
                d["spec"]["resourceGroups"] = rgs
                if not rgs and kind_of(d) == "Cohort":
                    del d["spec"]["resourceGroups"]
            out.append(d)
        yield out
    for k in ("WorkloadPriorityClass", "Namespace", "LocalQueue"):
        for i in [i for i, d in enumerate(docs) if kind_of(d) == k]:
            yield docs[:i] + docs[i + 1:]
    # CQ and cohort fields: a cohort-less ClusterQueue, no preemption...
    for i, d in enumerate(docs):
        if kind_of(d) not in ("ClusterQueue", "Cohort"):
            continue
        spec = d.get("spec", {})
        for key in ("cohortName", "parentName", "preemption", "flavorFungibility", "queueingStrategy",
                    "fairSharing", "stopPolicy", "resourceGroups"):
            if key in spec:
                nd = copy.deepcopy(d)
                if key in ("cohortName", "parentName"):
                    drop_cohort_ref(nd["spec"], key)
                else:
                    del nd["spec"][key]
                if key == "resourceGroups" and kind_of(d) == "ClusterQueue":
                    continue
                yield docs[:i] + [nd] + docs[i + 1:]
        for gi, rg in enumerate(spec.get("resourceGroups", [])):
            for fi, f in enumerate(rg["flavors"]):
                for qi, q in enumerate(f["resources"]):
                    for lim in ("borrowingLimit", "lendingLimit"):
                        if lim in q:
                            nd = copy.deepcopy(d)
                            del nd["spec"]["resourceGroups"][gi]["flavors"][fi]["resources"][qi][lim]
                            yield docs[:i] + [nd] + docs[i + 1:]
    # workload fields: priority, placement, a second pod set, extra resources
    for i, d in enumerate(docs):
        if kind_of(d) != "Workload":
            continue
        spec = d["spec"]
        if "priority" in spec or "priorityClassRef" in spec:
            nd = copy.deepcopy(d)
            nd["spec"].pop("priority", None)
            nd["spec"].pop("priorityClassRef", None)
            yield docs[:i] + [nd] + docs[i + 1:]
        if "creationTimestamp" in d["metadata"] and "status" not in d:
            nd = copy.deepcopy(d)
            del nd["metadata"]["creationTimestamp"]
            yield docs[:i] + [nd] + docs[i + 1:]
        for pi, ps in enumerate(spec["podSets"]):
            tspec = ps["template"]["spec"]
            for key in ("nodeSelector", "affinity", "tolerations"):
                if key in tspec:
                    nd = copy.deepcopy(d)
                    del nd["spec"]["podSets"][pi]["template"]["spec"][key]
                    yield docs[:i] + [nd] + docs[i + 1:]
            if "minCount" in ps:
                nd = copy.deepcopy(d)
                del nd["spec"]["podSets"][pi]["minCount"]
                yield docs[:i] + [nd] + docs[i + 1:]
            if "status" in d:
                continue  # an admission names the pod sets and resources
            if len(spec["podSets"]) > 1:
                nd = copy.deepcopy(d)
                del nd["spec"]["podSets"][pi]
                yield docs[:i] + [nd] + docs[i + 1:]
            reqs = tspec["containers"][0]["resources"]["requests"]
            if len(reqs) > 1:
                for rname in list(reqs):
                    nd = copy.deepcopy(d)
                    del nd["spec"]["podSets"][pi]["template"]["spec"]["containers"][0]["resources"]["requests"][rname]
                    yield docs[:i] + [nd] + docs[i + 1:]
    for i, d in enumerate(docs):
        if kind_of(d) == "ClusterQueue" and d["spec"].get("namespaceSelector"):
            nd = copy.deepcopy(d)
            nd["spec"]["namespaceSelector"] = {}
            yield docs[:i] + [nd] + docs[i + 1:]
        if kind_of(d) == "LocalQueue" and "stopPolicy" in d["spec"]:
            nd = copy.deepcopy(d)
            del nd["spec"]["stopPolicy"]
            yield docs[:i] + [nd] + docs[i + 1:]
    # the Scenario's configuration stays: it is the family's point


def reduce(runner, docs, budget=250):
    """Greedy: keep each smaller variant that still disagrees."""
    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        for cand in candidates(docs):
            tries += 1
            if tries >= budget:
                break
            res = runner.run(cand)
            if verdict(res) == "disagree":
                docs = cand
                changed = True
                break
    return docs, runner.run(docs)


def side_by_side(res):
    s, k = res["turnstile"], res["kueue"]
    lines = []
    for key in sorted(set(s["dec"]) | set(k["dec"])):
        if s["dec"].get(key) != k["dec"].get(key):
            lines.append("%s" % key)
            lines.append("  kueue:     %s" % json.dumps(k["dec"].get(key), sort_keys=True))
            lines.append("  turnstile: %s" % json.dumps(s["dec"].get(key), sort_keys=True))
    return lines


def messages(res):
    s, k = res["turnstile"], res["kueue"]
    lines = []
    for key in sorted(set(s["msg"]) | set(k["msg"])):
        lines.append("%s" % key)
        lines.append("  kueue:     %s" % json.dumps(k["msg"].get(key), sort_keys=True))
        lines.append("  turnstile: %s" % json.dumps(s["msg"].get(key), sort_keys=True))
    return lines


def write_disagreement(out, fam, seed, docs, res, original):
    os.makedirs(out, exist_ok=True)
    base = os.path.join(out, "%s-%d" % (fam, seed))
    head = ["Kueue v0.17.0 (kueue-oracle) and Turnstile (simulate) decide differently.",
            "From: gen.py --family %s --seed %d (%d documents), reduced to %d." % (fam, seed, len(original), len(docs)),
            "Decisions that differ:"] + ["  " + line for line in side_by_side(res)]
    with open(base + ".yaml", "w") as fh:
        fh.write(gen.dump(docs, "\n".join(head)))
    with open(base + ".txt", "w") as fh:
        fh.write("\n".join(head + ["", "QuotaReserved reasons and messages, Evicted and Preempted messages:"]
                           + ["  " + line for line in messages(res)]) + "\n")
    return base + ".yaml"


# --- main ------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", default="build/bin/turnstilectl")
    ap.add_argument("--oracle", default="build/oracle/bin/kueue-oracle")
    ap.add_argument("--seeds", type=int, default=100, help="seeds per family")
    ap.add_argument("--first", type=int, default=0, help="first seed")
    ap.add_argument("--family", action="append", default=[], choices=gen.FAMILIES)
    ap.add_argument("-j", "--jobs", type=int, default=2, help="scenarios run at once (each: one oracle process)")
    ap.add_argument("--out", default="build/oracle/disagreements")
    ap.add_argument("--no-reduce", action="store_true", help="write disagreements unreduced")
    ap.add_argument("--strict", action="store_true", help="exit 1 on an unlisted disagreement or invalid scenario")
    ap.add_argument("--known", help="file of 'FAMILY-SEED: why' lines --strict forgives")
    ap.add_argument("--quiet", action="store_true", help="only the summary")
    ap.add_argument("--with-resource", metavar="NAME",
                    help="only the seeds whose scenario has resource NAME (e.g. example.com/units, the "
                         "amounts near the int64 limit); the others are not run or counted")
    a = ap.parse_args()
    fams = a.family or gen.FAMILIES

    known = {}
    if a.known:
        for line in open(a.known):
            line = line.strip()
            if line and not line.startswith("#") and ":" in line:
                name, why = line.split(":", 1)
                known[name.strip()] = why.strip()

    tmpdir = tempfile.mkdtemp(prefix="fuzz-")
    sim = os.path.join(tmpdir, "turnstilectl")  # a snapshot: the build may rewrite it
    for _ in range(60):
        try:
            shutil.copy2(a.sim, sim)
            break
        except OSError:
            time.sleep(2)
    else:
        print("cannot read %s" % a.sim, file=sys.stderr)
        return 2

    local = threading.local()
    runners, lock = [], threading.Lock()

    def runner():
        if not hasattr(local, "r"):
            local.r = Runner(sim, a.oracle, tmpdir)
            with lock:
                runners.append(local.r)
        return local.r

    def one(job):
        fam, seed = job
        r = runner()
        docs = gen.generate(fam, seed)
        res = r.run(docs)
        v = verdict(res)
        note = None
        name = "%s-%d" % (fam, seed)
        if v == "disagree":
            # Kueue's answer must be its only one: a scenario on which two of
            # its runs differ says nothing about Turnstile
            for _ in range(2):
                if r.run(docs)["kueue"].get("dec") != res["kueue"]["dec"]:
                    v = "unstable"
                    note = "Kueue decides differently from run to run"
                    break
        if v == "disagree" and not (a.strict and name in known):
            small, sres = (docs, res) if a.no_reduce else reduce(r, docs)
            if verdict(sres) != "disagree":  # (cannot happen unless a program is not deterministic)
                small, sres = docs, res
            note = write_disagreement(a.out, fam, seed, small, sres, docs)
            wrap = int64_wrap(small)
            if wrap:
                v = "int64"
                note += " (%s totals past int64: Kueue's sums may wrap, a deliberate difference)" % ", ".join(wrap)
            elif lost_wakeup(sres):
                v = "wakeup"
                note += " (quota drained from a stopped LocalQueue: Kueue's lost wakeup, stop-04, deliberate)"
        elif v in ("hang", "livelock"):
            os.makedirs(a.out, exist_ok=True)
            path = os.path.join(a.out, "%s-%s.yaml" % (v, name))
            what = "Kueue's decisions still change after %d cycles" % SETTLE if v == "livelock" else "; ".join(
                "%s %s" % (p, TIMED_OUT) for p in ("turnstile", "kueue") if TIMED_OUT in res[p].get("error", ""))
            with open(path, "w") as fh:
                fh.write(gen.dump(docs, "%s: %s" % (name, what)))
            note = path
        elif v == "crash":
            os.makedirs(a.out, exist_ok=True)
            path = os.path.join(a.out, "crash-%s.yaml" % name)
            with open(path, "w") as fh:
                fh.write(gen.dump(docs, "%s: %s" % (name, res["kueue"]["error"])))
            note = path
        elif v == "invalid":
            note = "; ".join(
                "%s: %s" % (p, res[p].get("error") or " | ".join(res[p]["rejected"])[:400])
                for p in ("turnstile", "kueue") if res[p].get("error") or res[p]["rejected"])
        return fam, seed, v, note

    jobs = [(f, s) for f in fams for s in range(a.first, a.first + a.seeds)]
    if a.with_resource:
        jobs = [(f, s) for f, s in jobs if a.with_resource in totals(gen.generate(f, s))]
    stats = {f: {"agree": 0, "disagree": 0, "int64": 0, "wakeup": 0, "invalid": 0, "unstable": 0, "hang": 0, "livelock": 0,
                 "crash": 0} for f in fams}
    results = []
    t0 = time.monotonic()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            for fam, seed, v, note in pool.map(one, jobs):
                stats[fam][v] += 1
                results.append((fam, seed, v))
                if note and not a.quiet:
                    print("%s-%d: %s: %s" % (fam, seed, v, note), flush=True)
    finally:
        for r in runners:
            r.oracle.close()
        shutil.rmtree(tmpdir, ignore_errors=True)
    wall = time.monotonic() - t0

    print()
    print("agreement over the scenarios Kueue decided (all but its crashes); a livelock, an unstable")
    print("answer, an invalid scenario and a deliberate difference (int64, wakeup) count against it;")
    print("the second figure counts the deliberate differences as agreement")
    for f in fams:
        st = stats[f]
        n = sum(st.values()) - st["crash"]
        pct = (lambda k: 100.0 * k / n if n else 100.0)
        print("%-14s %d/%d agree (%.2f %%; %.2f %% with the deliberate), %d disagree, %d int64, %d wakeup, "
              "%d invalid, %d hang; Kueue: %d crash, %d unstable, %d livelock" % (
                  f + ":", st["agree"], n, pct(st["agree"]), pct(st["agree"] + st["int64"] + st["wakeup"]),
                  st["disagree"], st["int64"], st["wakeup"], st["invalid"], st["hang"], st["crash"],
                  st["unstable"], st["livelock"]))
    n_sim = sum(r.n_sim for r in runners)
    if n_sim:
        print("per run: simulate %.1f ms, kueue-oracle %.1f ms (serve mode); %d runs (with reductions) in %.0f s, %d at once" % (
            1000 * sum(r.t_sim for r in runners) / n_sim, 1000 * sum(r.t_oracle for r in runners) / n_sim,
            n_sim, wall, a.jobs))
    slow = max((r.slowest for r in runners), key=lambda x: x[0], default=(0.0, None))
    if slow[1] and slow[0] > 2:
        path = os.path.join(a.out, "slowest-oracle-run.yaml")
        os.makedirs(a.out, exist_ok=True)
        with open(path, "w") as fh:
            fh.write(slow[1])
        print("slowest kueue-oracle run: %.1f s (%s)" % (slow[0], path))
    if not a.strict:
        return 0
    bad = 0
    for fam, seed, v in results:
        name = "%s-%d" % (fam, seed)
        if v not in ("agree", "int64", "wakeup", "crash") and name not in known:
            why = {"disagree": "Turnstile decides differently from Kueue", "unstable": "Kueue unstable",
                   "livelock": "Kueue livelocks",
                   "invalid": "invalid scenario (a generator bug)", "hang": "a program hangs"}[v]
            print("fuzz: %s: %s (not in %s)" % (name, why, a.known))
            bad += 1
        elif v == "agree" and name in known:
            print("fuzz: %s agrees with Kueue now: drop it from %s" % (name, a.known))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
