"""Hostile TLS clients for webhook_tls.sh (loopback only, bounded in time).

usage: slowclient.py MODE PORT CAFILE
  headers  send half a request line, then nothing: the server must close
           the connection after its idle timeout
  trickle  complete headers announcing a body, then one byte a second:
           the server must drop the request at its deadline
Prints the seconds until the server closed the connection, or "open" when
it was still open after 15 s.
"""
import socket
import ssl
import sys
import time

mode, port, cafile = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ctx = ssl.create_default_context(cafile=cafile)
raw = socket.create_connection(("127.0.0.1", port), timeout=15)
s = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
start = time.monotonic()
if mode == "headers":
    s.sendall(b"POST /validate-batch-v1-job HTTP/1.1\r\nHost: x\r\nContent-Len")
else:
    s.sendall(b"POST /validate-batch-v1-job HTTP/1.1\r\nHost: x\r\n"
              b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
s.settimeout(1)
while time.monotonic() - start < 15:
    try:
        if mode == "trickle":
            s.sendall(b"x")
        data = s.recv(4096)
        if not data:
            break
    except socket.timeout:
        continue
    except (ssl.SSLError, OSError):
        break
else:
    print("open")
    sys.exit(0)
print("%.1f" % (time.monotonic() - start))
