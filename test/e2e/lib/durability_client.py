#!/usr/bin/env python3
"""Write burst + kill -9 + verify client for turnstile-apiserver --data-dir.

  durability_client.py burst URL TOKEN PID STATE COUNT SEED
      Creates COUNT ConfigMaps (and updates earlier ones) from 4 keep-alive
      connections; after a random number of acknowledged writes it sends
      SIGKILL to PID while requests are in flight, waits for the threads to
      fail, and records in STATE (JSON) what was acknowledged and what was
      in flight.
  durability_client.py verify URL TOKEN STATE
      Lists the ConfigMaps and checks: every acknowledged write is there
      with its content; an object whose write was in flight holds either
      the acknowledged or the attempted content, whole; nothing else exists.
"""
import http.client
import json
import os
import random
import signal
import sys
import threading
import urllib.parse

THREADS = 4
NS = "default"


def conn(url):
    u = urllib.parse.urlparse(url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=30)


def body(name, v):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": {"burst": "yes"}},
            "data": {"v": str(v), "check": ("%s-%s-" % (name, v)) * 8}}


def load(path):
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {"acked": {}, "inflight": {}, "next": 0, "maxrv": 0}


def burst(url, token, pid, path, count, seed):
    st = load(path)
    rnd = random.Random(seed)
    kill_at = rnd.randint(1, count)
    lock = threading.Lock()
    acks = [0]
    killed = [False]
    base = st["next"]
    hdr = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}

    def write(c, name, v, create):
        b = json.dumps(body(name, v))
        if create:
            c.request("POST", "/api/v1/namespaces/%s/configmaps" % NS, b, hdr)
        else:
            c.request("PUT", "/api/v1/namespaces/%s/configmaps/%s" % (NS, name), b, hdr)
        r = c.getresponse()
        data = r.read()
        if r.status not in (200, 201):
            raise RuntimeError("HTTP %d: %s" % (r.status, data[:200]))
        return int(json.loads(data)["metadata"]["resourceVersion"])

    def worker(t):
        c = conn(url)
        trnd = random.Random(seed * 31 + t)
        mine = []
        for i in range(base + t, base + count, THREADS):
            ops = [("c-%d" % i, 0, True)]
            if mine and trnd.random() < 0.1:
                ops.append((trnd.choice(mine), None, False))
            for name, v, create in ops:
                with lock:
                    if killed[0]:
                        return
                    if v is None:
                        v = int(st["acked"][name]) + 1
                    st["inflight"][name] = v
                try:
                    rv = write(c, name, v, create)
                except Exception:
                    return
                with lock:
                    st["acked"][name] = v
                    del st["inflight"][name]
                    st["maxrv"] = max(st["maxrv"], rv)
                    acks[0] += 1
                    if create:
                        mine.append(name)
                    if acks[0] == kill_at and not killed[0]:
                        killed[0] = True
                        os.kill(pid, signal.SIGKILL)

    ts = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if not killed[0]:
        os.kill(pid, signal.SIGKILL)
    st["next"] = base + count
    with open(path, "w") as f:
        json.dump(st, f)
    print("acked=%d kill_after=%d inflight=%d" % (acks[0], kill_at, len(st["inflight"])))


def verify(url, token, path):
    st = load(path)
    c = conn(url)
    c.request("GET", "/api/v1/namespaces/%s/configmaps?labelSelector=burst%%3Dyes" % NS,
              headers={"Authorization": "Bearer " + token})
    r = c.getresponse()
    lst = json.loads(r.read())
    have = {o["metadata"]["name"]: o for o in lst["items"]}
    bad = []
    for name, v in st["acked"].items():
        o = have.get(name)
        ok = [v] + ([st["inflight"][name]] if name in st["inflight"] else [])
        if o is None:
            bad.append("acknowledged %s missing" % name)
        elif o["data"] not in [body(name, x)["data"] for x in ok]:
            bad.append("%s has %r, want one of %r" % (name, o["data"].get("v"), ok))
    for name, o in have.items():
        if name in st["acked"]:
            continue
        if name not in st["inflight"]:
            bad.append("%s exists but was never written" % name)
        elif o["data"] != body(name, st["inflight"][name])["data"]:
            bad.append("unacknowledged %s is half-applied" % name)
        else:  # the in-flight create made it: it counts from now on
            st["acked"][name] = st["inflight"][name]
    if int(lst["metadata"]["resourceVersion"]) < st["maxrv"]:
        bad.append("resourceVersion went back: %s < %d" % (lst["metadata"]["resourceVersion"],
                                                           st["maxrv"]))
    for name in list(st["inflight"]):  # settle: whatever is stored now is the truth
        if name in have:
            st["acked"][name] = int(have[name]["data"]["v"])
    st["inflight"] = {}
    with open(path, "w") as f:
        json.dump(st, f)
    print("verified %d objects, %d problems" % (len(have), len(bad)))
    for b in bad[:20]:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "burst":
        burst(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6]),
              int(sys.argv[7]))
    else:
        sys.exit(verify(sys.argv[2], sys.argv[3], sys.argv[4]))
