#!/usr/bin/python3
"""A bounded loopback flood against one TLS port, with legitimate probes.

Opens, from --addrs source addresses 127.0.0.2.. (loopback only), --per-addr
connections each of one --mode:
  idle      TCP connected, nothing sent
  tls-half  a TLS ClientHello's first bytes, then nothing
  drip      a TLS session, then request headers one byte a second
  big       a TLS session, then a request announcing a body past the limit,
            sent slowly
keeps them open for --seconds while a client on 127.0.0.1 sends --probes
requests (POST --path with --body, or GET --path), then reports:
  opened=N refused=N probes=N answered=N p50_ms=.. p99_ms=.. max_ms=..
and exits 0.  Everything stops by itself after --seconds (+ a few).
"""
import argparse
import http.client
import json
import os
import socket
import ssl
import sys
import threading
import time


def opener(mode, port, src, ctx, stop, stats, lock):
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((src, 0))
        s.settimeout(5)
        s.connect(("127.0.0.1", port))
    except OSError:
        with lock:
            stats["refused"] += 1
        return None
    with lock:
        stats["opened"] += 1
    if mode == "idle":
        return s
    if mode == "tls-half":
        try:  # a TLS record header and the start of a ClientHello, then silence
            s.send(bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]))
        except OSError:
            pass
        return s
    try:
        t = ctx.wrap_socket(s, server_hostname="127.0.0.1")
    except OSError:
        return s
    try:
        if mode == "drip":
            t.send(b"P")
        elif mode == "big":
            t.send(b"POST /validate-batch-v1-job HTTP/1.1\r\nHost: x\r\n"
                   b"Content-Type: application/json\r\nContent-Length: 104857600\r\n\r\n{")
    except OSError:
        pass
    return t


def feeder(conns, mode, stop):
    """Keeps drip/big connections trickling, one byte a second each."""
    while not stop.is_set():
        for c in list(conns):
            try:
                c.send(b"x" if mode == "big" else b"O")
            except OSError:
                conns.remove(c)
        stop.wait(1)


def probe(port, ctx, path, body, timeout):
    t0 = time.monotonic()
    try:
        c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=timeout,
                                        source_address=("127.0.0.1", 0))
        if body is None:
            c.request("GET", path)
        else:
            c.request("POST", path, body, {"Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        c.close()
        return (time.monotonic() - t0) * 1000, r.status
    except (OSError, http.client.HTTPException):
        return None, 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--cacert")
    p.add_argument("--mode", default="idle", choices=["idle", "tls-half", "drip", "big"])
    p.add_argument("--addrs", type=int, default=6)
    p.add_argument("--per-addr", type=int, default=64)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--probes", type=int, default=20)
    p.add_argument("--path", default="/validate-batch-v1-job")
    p.add_argument("--body", default=None, help="file with the probe's body (else GET)")
    p.add_argument("--probe-timeout", type=float, default=5)
    a = p.parse_args()
    if a.addrs > 250:
        sys.exit("at most 250 source addresses")
    ctx = ssl.create_default_context(cafile=a.cacert) if a.cacert else ssl._create_unverified_context()
    ctx.check_hostname = False
    body = open(a.body, "rb").read() if a.body else None
    stats = {"opened": 0, "refused": 0}
    lock = threading.Lock()
    stop = threading.Event()
    conns = []
    deadline = time.monotonic() + a.seconds

    def open_addr(i):
        src = f"127.0.0.{2 + i}"
        for _ in range(a.per_addr):
            if time.monotonic() > deadline:
                return
            c = opener(a.mode, a.port, src, ctx, stop, stats, lock)
            if c is not None:
                with lock:
                    conns.append(c)

    threads = [threading.Thread(target=open_addr, args=(i,), daemon=True) for i in range(a.addrs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.1, deadline - time.monotonic()))
    if a.mode in ("drip", "big"):
        threading.Thread(target=feeder, args=(conns, a.mode, stop), daemon=True).start()
    lat, answered = [], 0
    gap = max(0.0, (deadline - time.monotonic()) / max(1, a.probes))
    for _ in range(a.probes):
        ms, status = probe(a.port, ctx, a.path, body, a.probe_timeout)
        if ms is not None and status == 200:
            answered += 1
            lat.append(ms)
        time.sleep(gap)
    stop.set()
    for c in conns:
        try:
            c.close()
        except OSError:
            pass
    lat.sort()
    q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] if lat else -1
    print(f"opened={stats['opened']} refused={stats['refused']} probes={a.probes} "
          f"answered={answered} p50_ms={q(0.5):.1f} p99_ms={q(0.99):.1f} max_ms={q(1.0):.1f}")


if __name__ == "__main__":
    main()
