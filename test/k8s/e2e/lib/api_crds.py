#!/usr/bin/python3
"""api_crds.py - test/oracle/apigen.py's objects (v1beta2, valid ones and
ones broken one field at a time) created with dryRun=All on two API servers
that have Turnstile's CRDs and no webhook: each must be accepted by both or
refused by both with the same status code and message.  This checks the
CRD layer alone (ObjectMeta, schema, CEL) of turnstile-apiserver against
kube-apiserver, the reference.

    api_crds.py --real KUBECONFIG --ours KUBECONFIG --seeds N

A namespace that is a valid name becomes "default" (both servers have it,
so the object reaches the CRD checks); an invalid one is kept.  Prints one
line per difference and a summary; exit status 1 on a difference.
"""
import argparse
import json
import os
import re
import sys

from kubernetes import client, config

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../oracle"))
import apigen  # noqa: E402

PLURAL = {"ResourceFlavor": "resourceflavors", "ClusterQueue": "clusterqueues", "Cohort": "cohorts",
          "LocalQueue": "localqueues", "WorkloadPriorityClass": "workloadpriorityclasses",
          "Workload": "workloads"}
NAMESPACED = {"LocalQueue", "Workload"}
LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def answer(api, obj):
    """(HTTP status, message) of a dry-run create of obj."""
    kind = obj.get("kind")
    md = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    path = "/apis/%s/%s" % (obj.get("apiVersion"), PLURAL[kind])
    if kind in NAMESPACED:
        path = "/apis/%s/namespaces/%s/%s" % (obj.get("apiVersion"), md.get("namespace") or "default",
                                             PLURAL[kind])
    try:
        api.call_api(path, "POST", body=obj, query_params=[("dryRun", "All")],
                     header_params={"Content-Type": "application/json", "Accept": "application/json"},
                     auth_settings=["BearerToken"], _preload_content=False)
        return 201, ""
    except client.ApiException as e:
        try:
            st = json.loads(e.body)
        except ValueError:
            return e.status, str(e.body)[:300]
        causes = (st.get("details") or {}).get("causes")
        if causes:
            # kube-apiserver walks an object's fields in Go map order: the
            # order of several errors is not stable, their set is
            return e.status, "causes: " + json.dumps(sorted(json.dumps(c, sort_keys=True) for c in causes))
        return e.status, st.get("message", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--seeds", type=int, default=2)
    a = ap.parse_args()
    real = config.new_client_from_config(config_file=a.real)
    ours = config.new_client_from_config(config_file=a.ours)
    n = bad = refused = 0
    for seed in range(1, a.seeds + 1):
        for case in apigen.generate(seed):
            obj = case["object"]
            md = obj.get("metadata")
            if case["kind"] in NAMESPACED and isinstance(md, dict):
                ns = md.get("namespace")
                if isinstance(ns, str) and LABEL.match(ns):
                    md["namespace"] = "default"
            r, o = answer(real, obj), answer(ours, obj)
            n += 1
            refused += r[0] != 201
            if r != o:
                bad += 1
                print("DIFFERENT %s:\n  kube-apiserver:      %d %s\n  turnstile-apiserver: %d %s"
                      % (case["id"], r[0], r[1][:600], o[0], o[1][:600]))
    print("api_crds: %d objects, %d refused by kube-apiserver, %d answered otherwise by "
          "turnstile-apiserver" % (n, refused, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
