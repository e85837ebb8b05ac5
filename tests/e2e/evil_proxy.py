#!/usr/bin/env python3
"""evil_proxy.py - an HTTP proxy that lies: it accepts every CONNECT and
then, instead of tunnelling, answers in clear text with an HTTP response
carrying a policy of its own (tests/e2e/proxy.sh).

usage: evil_proxy.py PORT LOGFILE

Listens on 127.0.0.1:PORT.  Each CONNECT line it receives is appended to
LOGFILE.  A client that does TLS inside the tunnel must fail its handshake
and never take the body for a policy.
"""
import socket
import sys
import threading

EVIL = (b"HTTP/1.1 200 Connection established\r\n"
        b"Content-Type: text/plain\r\n\r\n"
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
        b"Content-Length: 61\r\n\r\n"
        b"version: STSv1\nmode: enforce\nmx: evil.example\nmax_age: 86400\n")


def serve(conn, log):
    with conn:
        conn.settimeout(10)
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 16384:
            chunk = conn.recv(4096)
            if not chunk:
                return
            data += chunk
        with open(log, "ab") as f:
            f.write(data.split(b"\r\n", 1)[0] + b"\n")
        conn.sendall(EVIL)
        try:
            while conn.recv(4096):
                pass
        except OSError:
            pass


def main():
    port, log = int(sys.argv[1]), sys.argv[2]
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(16)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn, log), daemon=True).start()


if __name__ == "__main__":
    main()
