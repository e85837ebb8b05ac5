#!/usr/bin/env python3
"""smclient.py - a raw socketmap client for hostile-input tests.

Postfix's own client (postmap -q) only sends well-formed requests; this one
sends whatever a test asks for and reports what the server did.

  smclient.py ADDR send BYTES          send raw bytes (Python escapes), print
                                       every netstring reply, then 'EOF'
  smclient.py ADDR query KEY...        one well-formed request per key on one
                                       connection (pipelined), print replies
  smclient.py ADDR stall BYTES SECS    send BYTES, hold the connection SECS
  smclient.py ADDR many N KEY          N concurrent connections, each one query;
                                       print 'ok N' when all got a reply; a
                                       connection that breaks before its
                                       reply is made again once, as
                                       Postfix's dict_sockmap does ("to make
                                       server restarts transparent")
  smclient.py ADDR pipeline N KEY      N pipelined requests without reading,
                                       then read all; print 'ok N'
  smclient.py ADDR hangup KEY N        send N requests and close without reading

ADDR is unix:/path or inet:host:port.  Exit 0 unless the connection failed.
"""
import codecs
import selectors
import socket
import sys
import time


def connect(addr):
    kind, rest = addr.split(":", 1)
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(rest)
    else:
        host, port = rest.rsplit(":", 1)
        s = socket.create_connection((host, int(port)))
    return s


def netstring(b):
    return str(len(b)).encode() + b":" + b + b","


def read_replies(s, want=None, timeout=10.0):
    """Read netstring replies until EOF or `want` replies; return list."""
    s.settimeout(timeout)
    buf = b""
    out = []
    while want is None or len(out) < want:
        # decode what we have
        while True:
            colon = buf.find(b":")
            if colon <= 0:
                break
            n = int(buf[:colon])
            if len(buf) < colon + 1 + n + 1:
                break
            out.append(buf[colon + 1:colon + 1 + n])
            buf = buf[colon + 1 + n + 1:]
            if want is not None and len(out) >= want:
                return out
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            out.append(b"<timeout>")
            return out
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            out.append(b"<EOF>")
            return out
        buf += chunk
    return out


def main():
    addr, mode = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    if mode == "send":
        s = connect(addr)
        s.sendall(codecs.escape_decode(args[0].encode())[0])
        s.shutdown(socket.SHUT_WR)
        for r in read_replies(s):
            print(r.decode(errors="replace"))
    elif mode == "query":
        s = connect(addr)
        s.sendall(b"".join(netstring(("postfix " + k).encode())
                           for k in args))
        for r in read_replies(s, want=len(args)):
            print(r.decode(errors="replace"))
    elif mode == "stall":
        s = connect(addr)
        s.sendall(codecs.escape_decode(args[0].encode())[0])
        time.sleep(float(args[1]))
        s.close()
        print("stalled")
    elif mode == "many":
        n, key = int(args[0]), args[1]
        socks = [connect(addr) for _ in range(n)]
        req = netstring(("postfix " + key).encode())
        for s in socks:
            s.sendall(req)
        sel = selectors.DefaultSelector()
        got = {}
        for s in socks:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
            got[s] = b""
        done = 0
        retried = set()
        deadline = time.time() + 30
        while done < n and time.time() < deadline:
            for key_, _ in sel.select(timeout=1):
                s = key_.fileobj
                try:
                    data = s.recv(65536)
                except ConnectionError:
                    data = b""
                got[s] += data
                if not data or got[s].endswith(b","):
                    sel.unregister(s)
                    if got[s].endswith(b","):
                        done += 1
                    elif s not in retried:
                        # broken before its reply: Postfix retries once
                        r = connect(addr)
                        r.sendall(req)
                        r.setblocking(False)
                        retried.add(r)
                        socks.append(r)
                        got[r] = b""
                        sel.register(r, selectors.EVENT_READ)
        print("ok %d" % done)
        for s in socks:
            s.close()

    elif mode == "pipeline":
        n, key = int(args[0]), args[1]
        s = connect(addr)
        req = netstring(("postfix " + key).encode())
        s.sendall(req * n)
        replies = read_replies(s, want=n, timeout=30)
        good = sum(1 for r in replies if not r.startswith(b"<"))
        print("ok %d" % good)
    elif mode == "hangup":
        key, n = args[0], int(args[1])
        s = connect(addr)
        s.sendall(netstring(("postfix " + key).encode()) * n)
        s.close()
        print("closed")
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
