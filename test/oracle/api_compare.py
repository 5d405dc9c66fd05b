#!/usr/bin/python3
"""api_compare.py - Turnstile's API rules against Kueue's, on generated objects.

Every object apigen.py generates for seeds 1..N goes through
`turnstilectl validate --crds crds -o json` (the API server's checks from
our CRDs, then our webhook) and `kueue-api-oracle validate` (Kueue's
CRDs and webhooks); every object Kueue accepts is converted
v1beta2 -> v1beta1 -> v1beta2 by `turnstilectl convert` and compared with
Kueue's conversion, and Kueue's v1beta1 form is validated by both and
converted v1beta1 -> v1beta2 -> v1beta1.  Printed per kind, as agreement
(percent of objects, disagreements in parentheses):

  accept/refuse  both accept, or both refuse
  paths          the same set of refused field paths
  messages       the same list of messages (order ignored)
  defaults       (objects both accept) the same defaulted object, ignoring
                 what is known to differ on purpose (DEFAULTS_IGNORED)
  round trip     turnstilectl's v1beta2->v1beta1->v1beta2 and
                 v1beta1->v1beta2->v1beta1 give back the input exactly
  conversion     turnstilectl's converted object equals Kueue's (quantities
                 compared by value, empty and null fields dropped,
                 Turnstile's conversion-data annotation ignored)

UPDATE cases (apigen.generate_updates(): a stored object and the one
an update sends, to the object or to its /status) go through
`turnstilectl validate --old` and `kueue-api-oracle validate --old`
[--subresource status] and are compared as above but for conversion; they
are printed in rows of their own ("Kind update").

Each disagreement is written to OUT/<kind>/<case>--<seed>.json (input and
both answers) and summarised, grouped by kind, case and aspect, in
OUT/summary.txt.  --known FILE lists groups ("Kind case aspect: reason")
that differ on purpose or are not fixed yet: they still count in the
figures, and are printed apart.  Exit status 0, or 1 with --strict when a
group disagrees that FILE does not list, or one FILE lists agrees now.

    api_compare.py --ctl build/bin/turnstilectl --oracle build/oracle/bin/kueue-api-oracle \\
                   --seeds N [--kind KIND] [--out DIR] [--strict]
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from decimal import Decimal, InvalidOperation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import apigen  # noqa: E402

CONVERSION_ANNOTATION = "turnstile.dev/conversion-data"
QUANTITY_KEYS = {"nominalQuota", "borrowingLimit", "lendingLimit", "weight"}
QUANTITY_MAPS = {"requests", "limits", "resources"}
QUANTITY_RE = re.compile(r"^([+-]?[0-9.]+)([eE][+-]?[0-9]+|[a-zA-Z]{0,2})$")
SUFFIX = {"": 1, "m": Decimal("0.001"), "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15,
          "E": 10**18, "n": Decimal("1e-9"), "u": Decimal("1e-6"), "Ki": 2**10, "Mi": 2**20, "Gi": 2**30,
          "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
# Parts of the defaulted object Turnstile gives differently on purpose:
# its mutating webhook puts the resource-in-use finalizer on Workloads too.
DEFAULTS_IGNORED = {"Workload": [("metadata", "finalizers")]}
ASPECTS = ["accept/refuse", "paths", "messages", "defaults", "round trip", "conversion"]


CHUNK = 4000  # documents per call: turnstilectl reads files of at most 64 MiB


def run_lines(cmd, docs, olds=None):
    """Runs cmd on docs, CHUNK at a time written as one multi-document
    file (and olds, the stored objects of an update, as the file of
    --old); returns one parsed JSON line per document."""
    out = []
    for i in range(0, len(docs), CHUNK):
        out += run_chunk(cmd, docs[i:i + CHUNK], olds[i:i + CHUNK] if olds is not None else None)
    return out


def write_docs(docs):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        for d in docs:
            f.write("---\n" + json.dumps(d) + "\n")
        return f.name


def run_chunk(cmd, docs, olds=None):
    path = write_docs(docs)
    old_path = write_docs(olds) if olds is not None else None
    try:
        p = subprocess.run(cmd + ["-f", path] + (["--old", old_path] if old_path else []),
                           capture_output=True, text=True)
    finally:
        os.unlink(path)
        if old_path:
            os.unlink(old_path)
    lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
    if len(lines) != len(docs):
        sys.exit("%s: %d results for %d documents (exit %d): %s" % (" ".join(cmd), len(lines), len(docs),
                                                                     p.returncode, p.stderr[-2000:]))
    return [json.loads(ln) for ln in lines]


def quantity(v):
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        return v
    m = QUANTITY_RE.match(str(v).strip())
    if not m:
        return v
    try:
        num = Decimal(m.group(1))
        suf = m.group(2)
        if suf[:1] in ("e", "E"):
            return str((num * (Decimal(10) ** int(suf[1:]))).normalize())
        if suf not in SUFFIX:
            return v
        return str((num * Decimal(SUFFIX[suf])).normalize())
    except (InvalidOperation, ValueError):
        return v


def normalise(v, key=None, parent=None):
    """Drops null, empty maps and lists, compares quantities by value."""
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            x = normalise(x, k, key)
            if x is None or x == {} or x == []:
                continue
            out[k] = x
        return out
    if isinstance(v, list):
        return [normalise(x, None, key) for x in v]
    if key in QUANTITY_KEYS or parent in QUANTITY_MAPS:
        return quantity(v)
    return v


def zero_status(v):
    """A status made of zeros and empties only (what Go writes for an
    object that has none)."""
    if isinstance(v, dict):
        return all(zero_status(x) for x in v.values())
    return v in (0, "", None, [], {}, False)


def comparable(o):
    o = json.loads(json.dumps(o))
    if isinstance(o, dict):
        ann = o.get("metadata", {}).get("annotations")
        if isinstance(ann, dict):
            ann.pop(CONVERSION_ANNOTATION, None)
        if "status" in o and zero_status(o["status"]):
            del o["status"]
    return normalise(o)


def strip_ignored(kind, o):
    o = json.loads(json.dumps(o))
    for path in DEFAULTS_IGNORED.get(kind, []):
        cur = o
        for p in path[:-1]:
            cur = cur.get(p, {}) if isinstance(cur, dict) else {}
        if isinstance(cur, dict):
            cur.pop(path[-1], None)
    return o


def diff(a, b, path=""):
    """The first few paths where a and b differ."""
    if type(a) is not type(b):
        return [path or "."]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append("%s.%s" % (path, k))
            else:
                out += diff(a[k], b[k], "%s.%s" % (path, k))
        return out[:5]
    if isinstance(a, list):
        if len(a) != len(b):
            return ["%s[len %d!=%d]" % (path, len(a), len(b))]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, "%s[%d]" % (path, i))
        return out[:5]
    return [] if a == b else [path or "."]


def row(case):
    """The report's row of a case: its kind, "Kind update" for an update."""
    return case["kind"] + (" update" if "old" in case else "")


class Tally:
    def __init__(self, out_dir):
        self.n = defaultdict(lambda: defaultdict(int))     # kind -> aspect -> compared
        self.bad = defaultdict(lambda: defaultdict(int))   # kind -> aspect -> disagreements
        self.objects = defaultdict(int)
        self.groups = defaultdict(list)                    # (kind, case, aspect) -> ids
        self.out_dir = out_dir

    def check(self, case, aspect, ok, record):
        kind = row(case)
        self.n[kind][aspect] += 1
        if ok:
            return
        self.bad[kind][aspect] += 1
        self.groups[(case["kind"], case["case"], aspect)].append(case["id"])
        d = os.path.join(self.out_dir, case["kind"])
        os.makedirs(d, exist_ok=True)
        seed = case["id"].split("-")[1]
        path = os.path.join(d, "%s--%s.json" % (case["case"].replace("/", "_"), seed))
        prev = {}
        if os.path.exists(path):
            with open(path) as f:
                prev = json.load(f)
        prev.setdefault("id", case["id"])
        prev.setdefault("input", case["object"])
        if "old" in case:
            prev.setdefault("old", case["old"])
            prev.setdefault("subresource", case.get("subresource", ""))
        prev.setdefault("aspects", {})[aspect] = record
        with open(path, "w") as f:
            json.dump(prev, f, indent=1, sort_keys=True)

    def report(self, out):
        head = "%-29s %7s" % ("kind", "objects") + "".join(" %15s" % a for a in ASPECTS)
        print(head, file=out)
        for kind in [k + suffix for suffix in ("", " update") for k in apigen.KINDS]:
            if kind not in self.n:
                continue
            row = "%-29s %7d" % (kind, self.objects[kind])
            for a in ASPECTS:
                n, b = self.n[kind][a], self.bad[kind][a]
                row += " %15s" % ("-" if not n else "%.1f%% (%d)" % (100.0 * (n - b) / n, b))
            print(row, file=out)

    def summary(self):
        lines = []
        for (kind, case, aspect), ids in sorted(self.groups.items()):
            lines.append("%-22s %-45s %-14s %5d  e.g. %s" % (kind, case, aspect, len(ids), ids[0]))
        return lines


# kube-apiserver adds this field-less error when it skipped the CEL rules
# after a schema error; Turnstile checks every rule and has no such marker.
CEL_SKIPPED = "some validation rules were not checked because the object was invalid"


def field_errors(r):
    return [e for e in r.get("errors") or [] if CEL_SKIPPED not in e["message"]]


def error_set(r, decode_paths=False):
    """The refused paths; with decode_paths, without list indexes (Go's
    decoding errors name fields so)."""
    paths = {e["field"] for e in field_errors(r)}
    if decode_paths:
        paths = {re.sub(r"\[[^]]*\]", "", p) for p in paths}
    return sorted(paths)


def decoding(r):
    return any(e["type"] == "DecodeError" for e in r.get("errors") or [])


def messages(r):
    return sorted(e["message"] for e in field_errors(r))


def compare_validation(t, cases, kueue, ours):
    for c, k, o in zip(cases, kueue, ours):
        t.objects[row(c)] += 1
        rec = {"kueue": k, "turnstile": o}
        if k.get("error") and not k.get("errors"):  # not an object the oracle reads
            continue
        t.check(c, "accept/refuse", bool(k.get("allowed")) == bool(o.get("allowed")), rec)
        dec = decoding(k)
        t.check(c, "paths", error_set(k) == error_set(o, dec),
                {"kueue": error_set(k), "turnstile": error_set(o, dec)})
        t.check(c, "messages", messages(k) == messages(o), {"kueue": messages(k), "turnstile": messages(o)})
        if k.get("allowed") and o.get("allowed"):
            a = comparable(strip_ignored(c["kind"], k.get("object")))
            b = comparable(strip_ignored(c["kind"], o.get("object")))
            t.check(c, "defaults", a == b, {"differ": diff(a, b), "kueue": a, "turnstile": b})


def compare_conversion(t, args, cases):
    """cases: objects Kueue accepts, in v1beta2."""
    ctl, oracle = [args.ctl, "convert"], [args.oracle, "convert"]
    inputs = [c["object"] for c in cases]
    k1 = run_lines(oracle + ["--to", "v1beta1"], inputs)
    c1 = run_lines(ctl + ["--to", "v1beta1"], inputs)
    c12 = run_lines(ctl + ["--to", "v1beta2"], c1)
    ck2 = run_lines(ctl + ["--to", "v1beta2"], k1)
    k2 = run_lines(oracle + ["--to", "v1beta2"], k1)
    ck21 = run_lines(ctl + ["--to", "v1beta1"], ck2)
    for i, c in enumerate(cases):
        t.check(c, "round trip", c12[i] == inputs[i], {"direction": "v1beta2->v1beta1->v1beta2", "in": inputs[i],
                                                       "out": c12[i], "differ": diff(inputs[i], c12[i])})
        t.check(c, "round trip", ck21[i] == k1[i], {"direction": "v1beta1->v1beta2->v1beta1", "in": k1[i],
                                                    "out": ck21[i], "differ": diff(k1[i], ck21[i])})
        for ours, theirs, what in ((c1[i], k1[i], "to v1beta1"), (ck2[i], k2[i], "to v1beta2")):
            a, b = comparable(theirs), comparable(ours)
            t.check(c, "conversion", a == b, {"direction": what, "kueue": theirs, "turnstile": ours,
                                              "differ": diff(a, b)})
    # Kueue's v1beta1 form through both validations
    v1 = [dict(c, id=c["id"], case="v1beta1:" + c["case"], object=k1[i]) for i, c in enumerate(cases)
          if "error" not in k1[i]]
    if v1:
        docs = [c["object"] for c in v1]
        compare_validation(t, v1, run_lines([args.oracle, "validate"], docs),
                           run_lines(ctl_validate(args), docs))


def ctl_validate(args):
    """turnstilectl validate as the cluster answers: with our CRDs' checks."""
    return [args.ctl, "validate", "--crds", args.crds, "-o", "json"]


def compare_updates(t, args, cases):
    """Update cases through both, one call per subresource, the calls run
    at once (the oracle's start, reading Kueue's CRDs, is most of a call)."""
    parts, calls = [], []
    for sub in ("", "status"):
        part = [c for c in cases if c["subresource"] == sub]
        if not part:
            continue
        extra = ["--subresource", "status"] if sub else []
        docs, olds = [c["object"] for c in part], [c["old"] for c in part]
        parts.append(part)
        calls += [([args.oracle, "validate"] + extra, docs, olds), (ctl_validate(args) + extra, docs, olds)]
    with concurrent.futures.ThreadPoolExecutor(len(calls) or 1) as pool:
        res = list(pool.map(lambda c: run_lines(*c), calls))
    for i, part in enumerate(parts):
        compare_validation(t, part, res[2 * i], res[2 * i + 1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ctl", default="build/bin/turnstilectl")
    ap.add_argument("--oracle", default="build/oracle/bin/kueue-api-oracle")
    ap.add_argument("--crds", default="crds", help="the CRDs turnstilectl validate checks against")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--kind", action="append", choices=apigen.KINDS)
    ap.add_argument("--out", default="build/oracle/api-disagreements")
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--known", help="file of known disagreement groups: Kind case aspect: reason")
    a = ap.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    cases = []
    for s in range(a.first_seed, a.first_seed + a.seeds):
        cases += apigen.generate(s, a.kind or apigen.KINDS)
    docs = [c["object"] for c in cases]
    kueue = run_lines([a.oracle, "validate"], docs)
    ours = run_lines(ctl_validate(a), docs)
    t = Tally(a.out)
    compare_validation(t, cases, kueue, ours)
    accepted = [c for c, k in zip(cases, kueue) if k.get("allowed")]
    if accepted:
        compare_conversion(t, a, accepted)
    updates = []
    for s in range(a.first_seed, a.first_seed + a.seeds):
        updates += apigen.generate_updates(s, a.kind or apigen.KINDS)
    compare_updates(t, a, updates)
    t.report(sys.stdout)
    lines = t.summary()
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + ("\n" if lines else ""))
        t.report(f)
    print("%d disagreement groups (kind, case, aspect) in %s/summary.txt" % (len(lines), a.out))
    known = read_known(a.known) if a.known else {}
    groups = set(t.groups)
    new = sorted(g for g in groups if g not in known)
    # a listed group is stale only when its kind and case were generated
    ran = {(c["kind"], c["case"]) for c in cases + updates} | {(c["kind"], "v1beta1:" + c["case"]) for c in cases}
    stale = sorted(g for g in known if g not in groups and (g[0], g[1]) in ran)
    for g in sorted(groups & set(known)):
        print("known: %s %s %s: %s" % (g + (known[g],)))
    for g in new:
        print("NEW disagreement: %s %s %s (e.g. %s)" % (g + (t.groups[g][0],)))
    for g in stale:
        print("STALE known difference (agrees now, take it out of %s): %s %s %s" % ((a.known,) + g))
    return 1 if a.strict and (new or stale) else 0


def read_known(path):
    """{(kind, case, aspect): reason} from lines "Kind case aspect: reason"
    (# comments and blank lines skipped)."""
    known = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            head, _, reason = line.partition(": ")
            parts = head.split()
            if len(parts) != 3 or not reason:
                sys.exit("%s: not 'Kind case aspect: reason': %s" % (path, line))
            known[tuple(parts)] = reason
    return known


if __name__ == "__main__":
    sys.exit(main())
