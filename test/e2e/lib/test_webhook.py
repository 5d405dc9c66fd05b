#!/usr/bin/env python3
"""A tiny admission + conversion webhook for the turnstile-apiserver e2e
tests, served over TLS on 127.0.0.1 (never Turnstile's own webhook).

usage: test_webhook.py CERT KEY PORTFILE LOGFILE

Each request is appended to LOGFILE as one JSON line {"path":..., "body":...}.
Paths:
  /mutate          allow; JSONPatch adds label mutated=true; warning
  /mutate-b        allow; adds label b=true
  /reinvoke-a      allow; sets annotation a-saw-b to whether label b exists
  /validate        allow only objects labelled mutated=true
  /deny            deny with code 403, reason Forbidden, message "no thanks"
  /deny-bare       deny with no status at all
  /slow            sleep 3 s, then allow
  /wrong-uid       answer with another uid
  /bad-patch       allow with a patch that cannot be applied
  /convert         ConversionReview for stable.example.com: v1 spec.size <-> v2 spec.replicas
"""
import base64
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CERT, KEY, PORTFILE, LOG = sys.argv[1:5]
lock = threading.Lock()


def patch_of(ops):
    return base64.b64encode(json.dumps(ops).encode()).decode()


def labels_of(obj):
    return ((obj or {}).get("metadata") or {}).get("labels") or {}


def add_label(obj, key, value):
    ops = []
    if "labels" not in (obj.get("metadata") or {}):
        ops.append({"op": "add", "path": "/metadata/labels", "value": {}})
    ops.append({"op": "add", "path": "/metadata/labels/" + key, "value": value})
    return ops


def admit(path, req):
    obj = req.get("object") or {}
    resp = {"uid": req["uid"], "allowed": True}
    if path == "/mutate":
        resp.update(patchType="JSONPatch", patch=patch_of(add_label(obj, "mutated", "true")),
                    warnings=["mutated by test"])
    elif path == "/mutate-b":
        resp.update(patchType="JSONPatch", patch=patch_of(add_label(obj, "b", "true")))
    elif path == "/reinvoke-a":
        saw = "true" if "b" in labels_of(obj) else "false"
        ops = []
        if "annotations" not in obj.get("metadata", {}):
            ops.append({"op": "add", "path": "/metadata/annotations", "value": {}})
        ops.append({"op": "add", "path": "/metadata/annotations/a-saw-b", "value": saw})
        resp.update(patchType="JSONPatch", patch=patch_of(ops))
    elif path == "/validate":
        if labels_of(obj).get("mutated") != "true":
            resp.update(allowed=False, status={"code": 422, "reason": "Invalid",
                                               "message": "not mutated first"})
    elif path == "/deny":
        resp.update(allowed=False, status={"code": 403, "reason": "Forbidden",
                                           "message": "no thanks"})
    elif path == "/deny-bare":
        resp.update(allowed=False)
    elif path == "/slow":
        time.sleep(3)
    elif path == "/wrong-uid":
        resp["uid"] = "not-" + req["uid"]
    elif path == "/bad-patch":
        resp.update(patchType="JSONPatch",
                    patch=patch_of([{"op": "replace", "path": "/no/such/path", "value": 1}]))
    return resp


def convert(req):
    want = req["desiredAPIVersion"]
    out = []
    for o in req["objects"]:
        o = json.loads(json.dumps(o))
        spec = o.setdefault("spec", {})
        if want.endswith("/v2") and "size" in spec:
            spec["replicas"] = spec.pop("size")
        if want.endswith("/v1") and "replicas" in spec:
            spec["size"] = spec.pop("replicas")
        o["apiVersion"] = want
        out.append(o)
    return {"uid": req["uid"], "convertedObjects": out, "result": {"status": "Success"}}


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(n))
        path = self.path.split("?")[0]
        with lock, open(LOG, "a") as f:
            f.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if path == "/convert":
            out = {"apiVersion": body["apiVersion"], "kind": "ConversionReview",
                   "response": convert(body["request"])}
        else:
            out = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                   "response": admit(path, body["request"])}
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(CERT, KEY)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
