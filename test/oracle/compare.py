#!/usr/bin/python3
"""Fidelity: Turnstile's simulator against Kueue itself (kueue-oracle).

Runs `turnstilectl simulate -o json` and `kueue-oracle` on every scenario
file, normalises both outputs to decisions per workload and compares:

  decisions  admitted or pending, ClusterQueue, flavor per pod set and
             resource, pod set counts, evicted (reason) and preempted (reason)
  reasons    the QuotaReserved reason of workloads left pending
  messages   the QuotaReserved message of workloads left pending, and the
             Evicted and Preempted messages
  rejects    which input documents were refused (validation)

and, with --expect, whether Kueue itself meets each scenario's own
expectations (kueue-oracle --check: the steps applied, as the engine's
scenario test does).

Prints agreement per scenario family (the file name's prefix) and a diff for
each disagreement.  Exit status 0 (agreement is reported, not enforced)
unless --strict.

usage: compare.py [--sim BIN] [--oracle BIN] [--now RFC3339] [--expect]
                  [--family F] [--strict] [--quiet] [FILE|DIR ...]
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

NOW = "2026-11-21T10:00:00Z"  # test/unit/test_scenarios.c: NOW = 1795255200 s


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def cond(w, t):
    for c in w.get("status", {}).get("conditions", []) or []:
        if c.get("type") == t:
            return c
    return None


def decisions(doc):
    """workload key -> normalised decision, and key -> message tuple."""
    dec, msg = {}, {}
    for w in doc.get("items", []):
        if w.get("kind") != "Workload":
            continue
        md = w.get("metadata", {})
        key = "%s/%s" % (md.get("namespace", "default"), md.get("name"))
        st = w.get("status", {}) or {}
        qr = cond(w, "QuotaReserved")
        adm = st.get("admission")
        admitted = bool(adm) and qr is not None and qr.get("status") == "True"
        d = {"state": "admitted" if admitted else "pending"}
        if cond(w, "Finished") and cond(w, "Finished").get("status") == "True":
            d["state"] = "finished"
        if admitted:
            d["clusterQueue"] = adm.get("clusterQueue")
            d["flavors"] = {
                psa.get("name"): dict(sorted((psa.get("flavors") or {}).items()))
                for psa in adm.get("podSetAssignments") or []
            }
            counts = {psa.get("name"): psa.get("count") for psa in adm.get("podSetAssignments") or []}
            if any(c is not None for c in counts.values()):
                d["count"] = counts
            # holding quota: Admitted only once its admission checks are
            # all Ready (Kueue adds them to waiting workloads too, which
            # the simulator does not model: compared while admitted only)
            ac = cond(w, "Admitted")
            d["admittedCondition"] = ac.get("status") if ac else None
            checks = {c.get("name"): c.get("state") for c in st.get("admissionChecks") or []}
            if checks:
                d["checks"] = checks
        ev = cond(w, "Evicted")
        if ev and ev.get("status") == "True":
            d["evicted"] = ev.get("reason")
        pr = cond(w, "Preempted")
        if pr and pr.get("status") == "True":
            d["preempted"] = pr.get("reason")
        dec[key] = d
        m = {}
        if not admitted:
            m["reason"] = qr.get("reason") if qr else None
            m["message"] = qr.get("message") if qr else None
        if ev and ev.get("status") == "True":
            m["evictedMessage"] = ev.get("message")
        if pr and pr.get("status") == "True":
            m["preemptedMessage"] = pr.get("message")
        if m:
            msg[key] = m
    return dec, msg


DOC_RE = re.compile(r"document (\d+):")
# expectation failures about wording only: the QuotaReserved reason or
# message, LocalQueue status (not modelled), step markers
WORDING_RE = re.compile(r': reason \S+, want |: message |^\s+want "|LocalQueue status expectations|\(in step \d+\)')


def rejected(stderr):
    out = set()
    for line in stderr.splitlines():
        if "unsupported object" in line and '"Scenario"' in line:
            continue  # simulate does not read the Scenario document
        m = DOC_RE.search(line)
        if m:
            out.add(int(m.group(1)))
    return out


def family(path):
    base = os.path.basename(path)
    return base.split("-", 1)[0]


def diff_maps(a, b, la, lb):
    lines = []
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            lines.append("    %s\n      %-8s %s\n      %-8s %s" % (
                k, la + ":", json.dumps(a.get(k), sort_keys=True),
                lb + ":", json.dumps(b.get(k), sort_keys=True)))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", default="build/bin/turnstilectl")
    ap.add_argument("--oracle", default="build/oracle/bin/kueue-oracle")
    ap.add_argument("--now", default=NOW)
    ap.add_argument("--expect", action="store_true", help="also check Kueue against the scenarios' expectations")
    ap.add_argument("--family", action="append", default=[])
    ap.add_argument("--strict", action="store_true", help="exit 1 on any decision disagreement")
    ap.add_argument("--known", help="file of 'SCENARIO.yaml: why' lines: decision disagreements "
                    "--strict forgives (and a listed one that agrees now fails it: the list stays true)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="scenarios compared at once")
    ap.add_argument("--quiet", action="store_true", help="no diffs, only the summary")
    ap.add_argument("paths", nargs="*", default=["test/scenarios"])
    a = ap.parse_args()

    files = []
    for p in a.paths:
        files += sorted(glob.glob(os.path.join(p, "*.yaml"))) if os.path.isdir(p) else [p]
    if a.family:
        files = [f for f in files if family(f) in a.family]

    fams = {}
    failures = 0
    tmpdir = tempfile.mkdtemp(prefix="fidelity-")
    # a snapshot of the simulator: the build may rewrite it meanwhile
    sim = os.path.join(tmpdir, "turnstilectl")
    for attempt in range(60):
        try:
            shutil.copy2(a.sim, sim)
            break
        except OSError:
            time.sleep(2)
    else:
        print("cannot read %s" % a.sim, file=sys.stderr)
        return 2
    def compare_one(f):
        fam = {"n": 1, "dec": 0, "reason": 0, "msg": 0, "rej": 0, "exp": 0, "expdec": 0, "exp_n": 0}
        name = os.path.basename(f)
        # the Scenario's configuration, for simulate's --config
        extra = []
        rc, out, err = run([a.oracle, "--print-config", "-f", f])
        if rc == 0 and out.strip():
            cfg = os.path.join(tmpdir, name + ".config.json")
            with open(cfg, "w") as fh:
                fh.write(out)
            extra = ["--config", cfg]
        src, sout, serr = run([sim, "simulate", "-o", "json", "--now", a.now, "-f", f] + extra)
        orc, oout, oerr = run([a.oracle, "-o", "json", "--now", a.now, "-f", f])
        report = []
        try:
            sdec, smsg = decisions(json.loads(sout))
        except ValueError:
            sdec, smsg = None, None
            report.append("  turnstilectl simulate failed (rc %d): %s" % (src, serr.strip()[:500]))
        try:
            odec, omsg = decisions(json.loads(oout))
        except ValueError:
            odec, omsg = None, None
            report.append("  kueue-oracle failed (rc %d): %s" % (orc, oerr.strip()[:500]))
        if sdec is not None and odec is not None:
            d = diff_maps(sdec, odec, "turnstile", "kueue")
            if d:
                report.append("  decisions differ:")
                report += d
            else:
                fam["dec"] += 1
            sreason = {k: v["reason"] for k, v in smsg.items() if "reason" in v}
            oreason = {k: v["reason"] for k, v in omsg.items() if "reason" in v}
            r = diff_maps(sreason, oreason, "turnstile", "kueue")
            if r:
                report.append("  reasons differ:")
                report += r
            else:
                fam["reason"] += 1
            stext = {k: {x: y for x, y in v.items() if x != "reason"} for k, v in smsg.items()}
            otext = {k: {x: y for x, y in v.items() if x != "reason"} for k, v in omsg.items()}
            m = diff_maps(stext, otext, "turnstile", "kueue")
            if m:
                report.append("  messages differ:")
                report += m
            else:
                fam["msg"] += 1
        for line in oerr.splitlines():
            if line.startswith("warning:"):
                report.append("  oracle " + line)
        srej, orej = rejected(serr), rejected(oerr)
        if srej != orej:
            report.append("  rejected documents differ: turnstile %s, kueue %s" % (sorted(srej), sorted(orej)))
            for line in (serr + oerr).splitlines():
                if DOC_RE.search(line) and '"Scenario"' not in line:
                    report.append("    " + line[:300])
        else:
            fam["rej"] += 1
        if a.expect:
            fam["exp_n"] += 1
            erc, _, eerr = run([a.oracle, "--check", "-o", "json", "--now", a.now, "-f", f])
            problems = [l for l in eerr.splitlines() if l.startswith("  ")]
            if erc == 0 and not problems:
                fam["exp"] += 1
            if not [l for l in problems if not WORDING_RE.search(l)] and \
                    (erc == 0 or problems):
                fam["expdec"] += 1
            else:
                report.append("  Kueue does not meet the scenario's expectations:")
                report += ["  " + l for l in problems] or ["    " + eerr.strip()[:500]]
        return f, fam, report

    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            results = list(pool.map(compare_one, files))
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    for f, counts, report in results:
        fam = fams.setdefault(family(f), {"n": 0, "dec": 0, "reason": 0, "msg": 0, "rej": 0, "exp": 0, "expdec": 0, "exp_n": 0})
        for k in fam:
            fam[k] += counts[k]
        if report:
            failures += 1
            if not a.quiet:
                print("%s:" % os.path.basename(f))
                print("\n".join(report))
    print()
    hdr = "%-8s %9s %9s %9s %9s %9s" % ("family", "scenarios", "decisions", "reasons", "messages", "rejects")
    if a.expect:
        hdr += " %12s %14s" % ("kueue-meets", "(decisions)")
    print(hdr)
    tot = {"n": 0, "dec": 0, "reason": 0, "msg": 0, "rej": 0, "exp": 0, "expdec": 0, "exp_n": 0}
    for name in sorted(fams):
        f = fams[name]
        for k in tot:
            tot[k] += f[k]
        line = "%-8s %9d %9s %9s %9s %9s" % (name, f["n"], "%d/%d" % (f["dec"], f["n"]),
                                             "%d/%d" % (f["reason"], f["n"]),
                                             "%d/%d" % (f["msg"], f["n"]), "%d/%d" % (f["rej"], f["n"]))
        if a.expect:
            line += " %12s %14s" % ("%d/%d" % (f["exp"], f["exp_n"]), "%d/%d" % (f["expdec"], f["exp_n"]))
        print(line)
    line = "%-8s %9d %9s %9s %9s %9s" % ("total", tot["n"], "%d/%d" % (tot["dec"], tot["n"]),
                                         "%d/%d" % (tot["reason"], tot["n"]),
                                         "%d/%d" % (tot["msg"], tot["n"]), "%d/%d" % (tot["rej"], tot["n"]))
    if a.expect:
        line += " %12s %14s" % ("%d/%d" % (tot["exp"], tot["exp_n"]), "%d/%d" % (tot["expdec"], tot["exp_n"]))
    print(line)
    pct = 100.0 * tot["dec"] / tot["n"] if tot["n"] else 100.0
    print("decision agreement: %.1f%% (%d of %d scenarios)" % (pct, tot["dec"], tot["n"]))
    if not a.strict:
        return 0
    known = {}
    if a.known:
        for line in open(a.known):
            line = line.strip()
            if line and not line.startswith("#") and ":" in line:
                name, why = line.split(":", 1)
                known[name.strip()] = why.strip()
    bad = 0
    for f, counts, _ in results:
        name = os.path.basename(f)
        if not counts["dec"] and name not in known:
            print("fidelity: %s: Turnstile decides differently from Kueue" % name)
            bad += 1
        elif counts["dec"] and name in known:
            print("fidelity: %s agrees with Kueue now: drop it from %s" % (name, a.known))
            bad += 1
    for name, why in sorted(known.items()):
        print("fidelity: known difference %s: %s" % (name, why))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
