#!/usr/bin/env python3
"""dnsrelay.py - a DNS relay (UDP and TCP) in front of a real resolver,
whose behaviour a test sets by writing one word to a mode file:

  pass       relay the query, relay the answer
  servfail   answer SERVFAIL at once (the query's id and question kept)
  drop       answer nothing (a dead server; SIGSTOP freezes it for real)
  tc         over UDP an empty answer with TC=1 (the client must retry
             over TCP); over TCP relay as in pass
  delay MS   relay, the answer held back MS milliseconds

usage: dnsrelay.py LISTEN_ADDR PORT UPSTREAM_ADDR UPSTREAM_PORT MODEFILE COUNTS
COUNTS is rewritten after each query: "udp=N tcp=N servfail=N drop=N tc=N".
Python 3, no third-party modules.
"""
import os
import socket
import struct
import sys
import threading
import time

LADDR, LPORT, UADDR, UPORT, MODEFILE, COUNTS = sys.argv[1:7]
LPORT, UPORT = int(LPORT), int(UPORT)
counts = {"udp": 0, "tcp": 0, "servfail": 0, "drop": 0, "tc": 0}
lock = threading.Lock()


def mode():
    try:
        with open(MODEFILE) as f:
            return f.read().split() or ["pass"]
    except OSError:
        return ["pass"]


def count(what):
    with lock:
        counts[what] += 1
        tmp = COUNTS + ".tmp"
        with open(tmp, "w") as f:
            f.write(" ".join("%s=%d" % kv for kv in counts.items()) + "\n")
        os.replace(tmp, COUNTS)


def question_end(q):
    i = 12
    while i < len(q) and q[i]:
        i += 1 + q[i]
    return i + 5  # the root label, QTYPE, QCLASS


def reply(q, rcode, tc=False):
    """A header-only reply to q (its question echoed)."""
    flags = struct.unpack("!H", q[2:4])[0]
    flags = 0x8000 | (flags & 0x7910) | 0x0080 | rcode  # QR, opcode, RD, CD; RA
    if tc:
        flags |= 0x0200
    return q[:2] + struct.pack("!HHHHH", flags, 1, 0, 0, 0) + \
        q[12:question_end(q)]


def upstream_udp(q):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    try:
        s.sendto(q, (UADDR, UPORT))
        return s.recv(65535)
    except OSError:
        return None
    finally:
        s.close()


def upstream_tcp(q):
    try:
        with socket.create_connection((UADDR, UPORT), timeout=5) as s:
            s.sendall(struct.pack("!H", len(q)) + q)
            n = struct.unpack("!H", recvn(s, 2))[0]
            return recvn(s, n)
    except (OSError, struct.error):
        return None


def recvn(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise OSError("eof")
        b += c
    return b


def answer(q, proto):
    """The answer to q under the current mode (None: no answer)."""
    m = mode()
    count(proto)
    if m[0] == "servfail":
        count("servfail")
        return reply(q, 2)
    if m[0] == "drop":
        count("drop")
        return None
    if m[0] == "tc" and proto == "udp":
        count("tc")
        return reply(q, 0, tc=True)
    a = upstream_udp(q) if proto == "udp" else upstream_tcp(q)
    if m[0] == "delay" and len(m) > 1:
        time.sleep(int(m[1]) / 1000)
    return a


def udp_one(sock, q, peer):
    a = answer(q, "udp")
    if a is not None:
        sock.sendto(a, peer)


def udp_loop(sock):
    while True:
        q, peer = sock.recvfrom(65535)
        if len(q) >= 12:
            threading.Thread(target=udp_one, args=(sock, q, peer),
                             daemon=True).start()


def tcp_conn(c):
    with c:
        c.settimeout(10)
        try:
            while True:
                n = struct.unpack("!H", recvn(c, 2))[0]
                q = recvn(c, n)
                a = answer(q, "tcp")
                if a is None:
                    continue
                c.sendall(struct.pack("!H", len(a)) + a)
        except (OSError, struct.error):
            pass


def tcp_loop(sock):
    while True:
        c, _ = sock.accept()
        threading.Thread(target=tcp_conn, args=(c,), daemon=True).start()


u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind((LADDR, LPORT))
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind((LADDR, LPORT))
t.listen(64)
threading.Thread(target=tcp_loop, args=(t,), daemon=True).start()
print("ready", flush=True)
udp_loop(u)
