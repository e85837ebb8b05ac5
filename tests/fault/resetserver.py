#!/usr/bin/env python3
"""resetserver.py - a policy host that resets the TCP connection mid-body

Usage: resetserver.py ADDR PORT CERT KEY BODYFILE MODEFILE COUNTS

HTTPS on ADDR:PORT with CERT/KEY.  Per request, MODEFILE says:
  good   200 text/plain, Content-Length, the whole of BODYFILE
  reset  200 text/plain with the full Content-Length, the head and half of
         BODYFILE, 0.5 s later (the client has read
         them) an RST (SO_LINGER 0, close): no close_notify, no FIN
COUNTS is rewritten after each request: "good=N reset=N".
Prints "ready" once listening.  Python standard library only.
"""
import socket
import ssl
import struct
import sys
import threading
import time

addr, port, cert, key, bodyfile, modefile, countsfile = sys.argv[1:8]
counts = {"good": 0, "reset": 0}
lock = threading.Lock()
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)


def serve(raw):
    raw.settimeout(10)
    try:
        s = ctx.wrap_socket(raw, server_side=True)
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 8192:
            d = s.recv(4096)
            if not d:
                return
            head += d
        with open(modefile) as f:
            mode = f.read().strip()
        with open(bodyfile, "rb") as f:
            body = f.read()
        resp = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
        with lock:
            counts[mode if mode in counts else "good"] += 1
            with open(countsfile, "w") as f:
                f.write(" ".join("%s=%d" % kv for kv in counts.items()) + "\n")
        if mode == "reset":
            s.sendall(resp + body[:len(body) // 2])
            # let the client read the head and the half body: an RST that
            # comes with unread data makes its kernel drop that data
            time.sleep(0.5)
            # wrap_socket took raw's descriptor: set it on s; its close
            # sends no close_notify, and with linger 0 the kernel an RST
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
            s.close()
            return
        s.sendall(resp + body)
        s.close()
    except (OSError, ssl.SSLError):
        pass
    finally:
        try:
            raw.close()
        except OSError:
            pass


ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind((addr, int(port)))
ls.listen(64)
print("ready", flush=True)
while True:
    c, _ = ls.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
