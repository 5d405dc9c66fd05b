#!/usr/bin/python3
"""The table of `make bench-vs-kueue` (test/perf/bench-vs-kueue.sh): reads
the run directory it filled and prints, per generator and client budget,
Turnstile beside Kueue beside the zero-latency ideal, then the goals of
docs/benchmarks.md with the measured values.

Each figure is read the same way for both where the data allow:
- wall: the controller process's life, start to exit, as Kueue's runner
  times minimalkueue (its checker's maxWallMs); for ours also the runner's
  first creation to last finish, which is what the ideal measures;
- time to admission: Kueue's recorder (summary.yaml mean, wlStates.csv for
  p90) and turnstilectl's runner (first admission minus creation);
- ClusterQueue usage: from ClusterQueue status as Kueue's recorder reads
  it, for both (its checker's clusterQueueClassesMinUsage); and the quota
  the admitted workloads held, from the workloads (Kueue's: each one's
  admission to finish in wlStates.csv, its runs cut short by an eviction
  left out; over the span of its ClusterQueue events);
- CPU and peak RSS: wait4 of the controller process (Kueue's from its
  runner's stats file);
- API writes: the kube-apiserver audit log of each run, by user agent.
"""
import csv
import datetime
import glob
import json
import os
import sys

import yaml

CONTROLLERS = ("minimalkueue", "kueue-bench-manager", "turnstile")


def audit(path):
    """Controller writes: Workload writes, and the others by resource."""
    wl, other = 0, {}
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            if e.get("userAgent", "").split("/")[0] not in CONTROLLERS:
                continue
            ref = e.get("objectRef", {})
            res = ref.get("resource", "")
            if res == "workloads":
                wl += 1
            else:
                key = res + ("/" + ref["subresource"] if ref.get("subresource") else "")
                other[key] = other.get(key, 0) + 1
    return {"workload": wl, "other": other}


def when(v):
    """A Kueue timestamp ("2026-11-27T23:58:51.691805902Z") in seconds."""
    if not isinstance(v, str):
        return v.timestamp()
    head, _, frac = v.rstrip("Z").partition(".")
    t = datetime.datetime.strptime(head, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    return t.timestamp() + (float("0." + frac) if frac else 0)


def p90(values):
    v = sorted(values)
    if not v:
        return 0.0
    k = max(0, -(-90 * len(v) // 100) - 1)  # nearest rank
    return v[k]


def quantity(v):
    """A cpu quantity as a number of cpus ("500m", 1, "2")."""
    v = str(v)
    return float(v[:-1]) / 1000 if v.endswith("m") else float(v)


def requests(gen):
    """Workload class -> cpu request, from the generator file."""
    g = yaml.safe_load(open(gen))
    out = {}
    for cs in g["cohorts"] if isinstance(g, dict) else g:
        for qs in cs["queuesSets"]:
            for ws in qs.get("workloadsSets", []):
                for w in ws["workloads"]:
                    out[w["className"]] = quantity(w["request"])
    return out


def kueue(d, req):
    s = yaml.safe_load(open(os.path.join(d, "summary.yaml")))
    stats = yaml.safe_load(open(glob.glob(os.path.join(d, "*.stats.yaml"))[0]))
    per, held = {}, 0.0
    with open(os.path.join(d, "wlStates.csv")) as f:
        for row in csv.DictReader(f):
            per.setdefault(row["class name"], []).append(int(row["ms to admitted"]) / 1000)
            held += req.get(row["class name"], 0) * (int(row["ms to finish"]) - int(row["ms to admitted"]))
    classes, evictions, finished = {}, 0, 0
    for name, c in s["workloadClasses"].items():
        classes[name] = {"mean": c["averageTimeToAdmissionMs"] / 1000, "p90": p90(per.get(name, []))}
        evictions += c["totalEvictions"]
        finished += c["count"]
    usage, nominal, span = {}, 0, 0
    for name, g in s["clusterQueueClasses"].items():
        span = (when(g["lastEventTime"]) - when(g["firstEventTime"])) * 1000
        usage[name] = g["cpuUsed"] * 100 / (g["nominalQuota"] * span) if span > 0 else -1
        nominal += g["nominalQuota"] / 1000
    return {
        "wall": stats["wallMs"] / 1000,
        "classes": classes,
        "usage": usage,
        "held": held * 100 / (nominal * span) if nominal and span else -1,
        "cpu": (stats["userMs"] + stats["sysMs"]) / 1000,
        "rss": stats["maxrss"] / 1024,
        "admissions": finished + evictions,
        "evictions": evictions,
        "finished": finished,
        "writes": audit(os.path.join(d, "audit.log")),
    }


def turnstile(d):
    r = json.load(open(os.path.join(d, "bench.json")))
    l = r["live"]
    return {
        "wall": l["controllerWallSeconds"]["mean"],
        "runner_wall": r["wallSeconds"]["mean"],
        "classes": {
            k: {"mean": c["meanSeconds"]["mean"], "p90": c["p90Seconds"]["mean"]}
            for k, c in r["classes"].items()
        },
        "usage": l["kueueRecorderUsagePercent"],
        "held": r["meanUsagePercent"]["mean"],
        "cpu": l["controllerCPUSeconds"]["mean"],
        "rss": l["controllerPeakRSSMiB"]["mean"],
        "admissions": l["admissions"],
        "evictions": r["evictions"],
        "finished": r["admitted"],
        "writes": audit(os.path.join(d, "audit.log")),
    }


def ideal(path):
    r = json.load(open(path))
    return {
        "wall": r["wallSeconds"]["mean"],
        "classes": {
            k: {"mean": c["meanSeconds"]["mean"], "p90": c["p90Seconds"]["mean"]}
            for k, c in r["classes"].items()
        },
    }


def ratio(a, b):
    return "%.2f" % (a / b) if b else "-"


def fmt(v, digits=1):
    return "-" if v is None else ("%.*f" % (digits, v))


def writes_cell(m):
    w = m["writes"]
    if not w:
        return "-", None
    a, e = m["admissions"], m["evictions"]
    rest = w["workload"] - a - e
    return ("%.3f (%d = %d + %d + %d)" % (w["workload"] / a, w["workload"], a, e, rest), rest / a)


def table(name, budget, k, t, i, out):
    label = "50/100" if budget != "0" else "no budget"
    out.append("\n### %s, %s\n" % (name, label))
    out.append("| | Turnstile | Kueue | Turnstile/Kueue | ideal |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    out.append("| wall (controller process), s | %.1f | %.1f | %s | |"
               % (t["wall"], k["wall"], ratio(t["wall"], k["wall"])))
    out.append("| wall (first creation to last finish), s | %.1f | | | %.1f |" % (t["runner_wall"], i["wall"]))
    for c in sorted(i["classes"], key=lambda c: -i["classes"][c]["mean"]):
        for stat in ("mean", "p90"):
            tv, kv, iv = (x["classes"].get(c, {}).get(stat) for x in (t, k, i))
            out.append("| time to admission %s, %s, s | %s | %s | %s | %s |"
                       % (c, stat, fmt(tv, 2), fmt(kv, 2), ratio(tv or 0, kv or 0), fmt(iv, 2)))
    for c in sorted(k["usage"]):
        tu, ku = t["usage"].get(c, -1), k["usage"][c]
        out.append("| ClusterQueue usage %s as Kueue's checker reads status, %% | %.1f | %.1f | %s | |"
                   % (c, tu, ku, ratio(tu, ku)))
    out.append("| quota held by admitted workloads, %% of nominal | %.1f | %.1f | %s | |"
               % (t["held"], k["held"], ratio(t["held"], k["held"])))
    out.append("| controller CPU, s | %.1f | %.1f | %s | |" % (t["cpu"], k["cpu"], ratio(t["cpu"], k["cpu"])))
    out.append("| controller CPU per admission, ms | %.2f | %.2f | %s | |"
               % (t["cpu"] * 1000 / t["admissions"], k["cpu"] * 1000 / k["admissions"],
                  ratio(t["cpu"] / t["admissions"], k["cpu"] / k["admissions"])))
    out.append("| controller peak RSS, MiB | %.1f | %.1f | %s | |" % (t["rss"], k["rss"], ratio(t["rss"], k["rss"])))
    tw, trest = writes_cell(t)
    kw, krest = writes_cell(k)
    out.append("| Workload writes per admission (all = admissions + evictions + rest) | %s | %s | | |" % (tw, kw))
    for m in (t, k):
        m["rest"] = trest if m is t else krest
    ow = [sum(m["writes"]["other"].values()) if m["writes"] else 0 for m in (t, k)]
    out.append("| other controller writes (Events, queue status, ...) | %d | %d | %s | |" % (ow[0], ow[1], ratio(ow[0], ow[1])))


def goals(runs, out):
    out.append("\n### Goals\n")

    def line(ok, text):
        out.append("- %s %s" % ("met:" if ok else "**not met**:", text))

    for name, by in runs.items():
        if "50" in by:
            k, t, i = by["50"]
            line(t["runner_wall"] <= i["wall"] * 1.01, "%s 50/100: wall %.1f s within 1 %% of the ideal's %.1f s (%.3fx)"
                 % (name, t["runner_wall"], i["wall"], t["runner_wall"] / i["wall"]))
            for c, ic in i["classes"].items():
                tc = t["classes"][c]["mean"]
                ok = abs(tc - ic["mean"]) <= 0.02 * max(ic["mean"], 1e-9)
                line(ok, "%s 50/100: mean time to admission %s %.2f s within 2 %% of the ideal's %.2f s"
                     % (name, c, tc, ic["mean"]))
            line(k["wall"] / t["wall"] >= 1.1, "%s 50/100: Kueue's wall / ours %.2f >= 1.1" % (name, k["wall"] / t["wall"]))
        for b, (k, t, i) in by.items():
            label = "50/100" if b != "0" else "no budget"
            line(t["cpu"] <= 0.10 * k["cpu"], "%s %s: controller CPU %.1f s <= 10 %% of Kueue's %.1f s (%.1f %%)"
                 % (name, label, t["cpu"], k["cpu"], 100 * t["cpu"] / k["cpu"]))
            line(t["rss"] <= 0.15 * k["rss"], "%s %s: peak RSS %.1f MiB <= 15 %% of Kueue's %.1f MiB (%.1f %%)"
                 % (name, label, t["rss"], k["rss"], 100 * t["rss"] / k["rss"]))
            if t.get("rest") is not None:
                line(t["rest"] < 0.005, "%s %s: Workload writes beyond admissions and evictions %.2f %% of admissions (< 0.5 %%)"
                     % (name, label, 100 * t["rest"]))
        if "0" in by:
            k, t, i = by["0"]
            line(t["runner_wall"] <= 1.1 * i["wall"], "%s no budget: wall %.1f s <= 1.1x the ideal's %.1f s (%.2fx)"
                 % (name, t["runner_wall"], i["wall"], t["runner_wall"] / i["wall"]))
            line(k["wall"] / t["wall"] >= 3, "%s no budget: %.2fx faster than Kueue (>= 3)" % (name, k["wall"] / t["wall"]))
    if "baseline" in runs and "large-scale" in runs:
        for b in runs["baseline"]:
            if b in runs["large-scale"]:
                tb, tl = runs["baseline"][b][1], runs["large-scale"][b][1]
                pb, pl = tb["cpu"] / tb["admissions"], tl["cpu"] / tl["admissions"]
                line(pl <= 1.1 * pb, "budget %s: CPU per admission large-scale / baseline %.2fx (<= 1.1)" % (b, pl / pb))


def main():
    out, runs = [], {}
    # several run directories (a baseline run and a large-scale one) make
    # one table; a config in two of them is taken from the last
    dirs = [(top, name) for top in sys.argv[1:] for name in sorted(os.listdir(top))]
    for top, name in dirs:
        d = os.path.join(top, name)
        if name == "assets" or not os.path.isdir(d):
            continue
        for b in ("50", "0"):
            kd, td, ip = (os.path.join(d, "kueue-" + b), os.path.join(d, "turnstile-" + b),
                          os.path.join(d, "ideal-%s.json" % b))
            if not (os.path.isdir(kd) and os.path.isdir(td) and os.path.exists(ip)):
                continue
            req = requests(os.path.join(d, "generator.yaml"))
            k, t, i = kueue(kd, req), turnstile(td), ideal(ip)
            runs.setdefault(name, {})[b] = (k, t, i)
            table(name, b, k, t, i, out)
    if not runs:
        sys.exit("vs_kueue: no complete run under %s" % " ".join(sys.argv[1:]))
    goals(runs, out)
    print("\n".join(out).lstrip("\n"))


if __name__ == "__main__":
    main()
