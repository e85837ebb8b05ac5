#!/usr/bin/env python3
"""hostile_sm.py - hostile socketmap and resolver-socket clients (hostile.sh)

  hostile_sm.py flood SOCK N KEY
      Open one connection and check it answers KEY; then open N more at
      once, send KEY on every one, and classify each: answered (a reply),
      refused (EOF before any reply), error.  Then ask KEY again on the
      first connection.  Prints
        answered=A refused=R errors=E existing=REPLY sample=REPLY
  hostile_sm.py pipeline SOCK N KEY HOLD PID...
      Send N pipelined requests for KEY without reading for HOLD seconds
      (a thread keeps sending while the server reads), print the largest
      VmRSS (kB) of PID... seen meanwhile and the bytes sent so far; then
      read every reply.  Prints
        sent_before_read=B rss_max_kb=K replies=N wellformed=W distinct=D
        first=REPLY
  hostile_sm.py timing SOCK KEY...
      Send one request per KEY, pipelined, and print the arrival time of
      every reply in seconds since the send, one "T REPLY" line each.
  hostile_sm.py ipcflood RSOCK N DOMAIN HOLD
      Act as a worker that never reads: send N resolver requests for DOMAIN
      on the resolver's SOCK_SEQPACKET socket, wait HOLD seconds, close.
      Prints sent=N
  hostile_sm.py ipcqueue RSOCK N PREFIX WAIT
      Send N resolver requests for distinct names PREFIX-i and collect the
      replies for WAIT seconds.  Prints ok=O temp=T other=X

SOCK is a unix socket path.  Raises RLIMIT_NOFILE to its hard limit.
"""
import resource
import selectors
import socket
import sys
import threading
import time


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def netstring(b):
    return str(len(b)).encode() + b":" + b + b","


def request(key):
    return netstring(b"postfix " + key.encode())


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # blocking connect: a full backlog makes a non-blocking one fail with
    # EAGAIN, here it waits for the daemon to accept (or refuse)
    s.connect(path)
    s.settimeout(10)
    return s


def parse(buf):
    """Complete netstrings at the front of buf: (list, rest, malformed)."""
    out = []
    while buf:
        colon = buf.find(b":")
        if colon < 0:
            if len(buf) > 10 or not buf.isdigit():
                return out, buf, True
            break
        if colon == 0 or not buf[:colon].isdigit():
            return out, buf, True
        n = int(buf[:colon])
        if len(buf) < colon + n + 2:
            break
        if buf[colon + 1 + n:colon + 2 + n] != b",":
            return out, buf, True
        out.append(buf[colon + 1:colon + 1 + n])
        buf = buf[colon + n + 2:]
    return out, buf, False


def read_one(s, timeout=10):
    s.settimeout(timeout)
    buf = b""
    while True:
        got, buf, bad = parse(buf)
        if got:
            return got[0].decode(errors="replace")
        if bad:
            return "<malformed>"
        try:
            chunk = s.recv(4096)
        except socket.timeout:
            return "<timeout>"
        except OSError:
            return "<EOF>"
        if not chunk:
            return "<EOF>"
        buf += chunk


def rss_kb(pid):
    try:
        with open("/proc/%s/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def flood(path, n, key):
    first = connect(path)
    first.sendall(request(key))
    sample = read_one(first)
    socks = []
    errors = 0
    refused = 0
    for _ in range(n):
        try:
            s = connect(path)
        except OSError:
            errors += 1
            continue
        try:
            s.sendall(request(key))
            socks.append(s)
        except (BrokenPipeError, ConnectionResetError):
            refused += 1        # closed by the server at once: refused
            s.close()
        except OSError:
            errors += 1
            s.close()
    sel = selectors.DefaultSelector()
    bufs = {}
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        bufs[s] = b""
    answered = 0
    pending = len(socks)
    deadline = time.time() + 30
    while pending and time.time() < deadline:
        for k, _ in sel.select(timeout=1):
            s = k.fileobj
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            bufs[s] += data
            got, _, bad = parse(bufs[s])
            if got and got[0].decode(errors="replace") == sample:
                answered += 1
            elif got or bad:
                errors += 1
            elif data:
                continue
            elif not bufs[s]:
                refused += 1
            else:
                errors += 1
            sel.unregister(s)
            pending -= 1
    errors += pending
    first.sendall(request(key))
    existing = read_one(first)
    print("answered=%d refused=%d errors=%d existing=%s sample=%s" %
          (answered, refused, errors, existing.replace(" ", "_"),
           sample.replace(" ", "_")))
    for s in socks:
        s.close()
    first.close()


def pipeline(path, n, key, hold, pids):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # small socket buffers: what the daemon has not read stays with us
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
    s.connect(path)
    data = request(key) * n
    sent = [0]

    def sender():
        view = memoryview(data)
        while sent[0] < len(data):
            try:
                k = s.send(view[sent[0]:sent[0] + 65536])
            except OSError:
                return
            sent[0] += k

    t = threading.Thread(target=sender, daemon=True)
    t.start()
    rss_max = 0
    end = time.time() + hold
    while time.time() < end:
        rss_max = max(rss_max, max(rss_kb(p) for p in pids))
        time.sleep(0.1)
    before = sent[0]
    s.settimeout(20)
    buf = b""
    replies = []
    bad = False
    while len(replies) < n and not bad:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        buf += chunk
        got, buf, bad = parse(buf)
        replies += got
        rss_max = max(rss_max, max(rss_kb(p) for p in pids))
    t.join(5)
    print("sent_before_read=%d rss_max_kb=%d replies=%d wellformed=%d "
          "distinct=%d first=%s" % (before, rss_max, len(replies),
                                    0 if bad else len(replies),
                                    len(set(replies)),
                                    (replies[0].decode(errors="replace")
                                     if replies else "-").replace(" ", "_")))
    s.close()


def timing(path, keys):
    s = connect(path)
    t0 = time.time()
    s.sendall(b"".join(request(k) for k in keys))
    buf = b""
    got_all = []
    s.settimeout(30)
    while len(got_all) < len(keys):
        try:
            chunk = s.recv(4096)
        except socket.timeout:
            break
        if not chunk:
            break
        buf += chunk
        got, buf, bad = parse(buf)
        for g in got:
            print("%.2f %s" % (time.time() - t0, g.decode(errors="replace")))
        got_all += got
        if bad:
            print("malformed")
            break
    s.close()


def ipc_request(domain):
    d = domain.encode()
    return b"Q\x02\x00" + bytes([len(d)]) + d  # IPC_VERSION 2


def ipcflood(path, n, domain, hold):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    msg = ipc_request(domain)
    sent = 0
    s.settimeout(10)
    for _ in range(n):
        try:
            s.send(msg)
        except OSError:
            break
        sent += 1
    time.sleep(hold)
    s.close()
    print("sent=%d" % sent)


def ipcqueue(path, n, prefix, wait):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    s.settimeout(10)
    for i in range(n):
        s.send(ipc_request("%s-%d.pstest" % (prefix, i)))
    ok = temp = other = 0
    end = time.time() + wait
    while time.time() < end and ok + temp + other < n:
        s.settimeout(max(0.1, end - time.time()))
        try:
            m = s.recv(70000)
        except socket.timeout:
            break
        if not m:
            break
        if len(m) >= 3 and m[0:1] == b"R" and m[2] == 0:
            ok += 1
        elif len(m) >= 3 and m[0:1] == b"R" and m[2] == 1:
            temp += 1
        else:
            other += 1
    s.close()
    print("ok=%d temp=%d other=%d" % (ok, temp, other))


def main():
    raise_nofile()
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "flood":
        flood(args[0], int(args[1]), args[2])
    elif mode == "pipeline":
        pipeline(args[0], int(args[1]), args[2], float(args[3]), args[4:])
    elif mode == "timing":
        timing(args[0], args[1:])
    elif mode == "ipcflood":
        ipcflood(args[0], int(args[1]), args[2], float(args[3]))
    elif mode == "ipcqueue":
        ipcqueue(args[0], int(args[1]), args[2], float(args[3]))
    else:
        sys.stdout.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
