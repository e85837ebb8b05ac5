#!/usr/bin/env python3
"""fdclient.py - one client holding many socketmap connections (fault tests).

  fdclient.py hold PATH N WAIT RELEASE
      Open N connections to the unix socket PATH, one after the other
      (each connect(2) may wait 2 s for room in the listener's backlog;
      after one did in vain the rest count as timeouts untried), send
      nothing, and wait up to WAIT
      seconds for the daemon to close them.  Print one line:
        opened=O eof=E reset=R open=H timeouts=T eof_max_ms=M
      (eof: read EOF, reset: ECONNRESET, both counted from the end of
      their connect; open: still open after WAIT; timeouts: connect(2)
      did not finish in 2 s, the listener's backlog full).  Then hold the
      open ones until the file RELEASE exists (at most 120 s), close them
      all and print 'released'.
  fdclient.py ask PATH MAP KEY
      One request "MAP KEY" on a new connection; wait up to 5 s for the
      reply or the daemon's close.  Print 'reply=STATUS ms=N' (the reply's
      status word: OK, NOTFOUND, TEMP, ...), 'eof ms=N' (closed: refused)
      or 'hang ms=N' (nothing in 5 s).
Written for these tests only; no third-party module.
"""
import os
import selectors
import socket
import struct
import sys
import time


def hold(path, n, wait, release):
    socks = {}
    timeouts = 0
    for _ in range(n):
        if timeouts:
            # the backlog stayed full for 2 s: the rest would wait too
            timeouts += 1
            continue
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # a blocking connect waits while the listener's backlog is full,
        # for SO_SNDTIMEO at most (a non-blocking one fails at once)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                     struct.pack("ll", 2, 0))
        try:
            s.connect(path)
        except (socket.timeout, BlockingIOError):
            timeouts += 1
            s.close()
            continue
        s.setblocking(False)
        socks[s] = time.monotonic()
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    eof = reset = 0
    eof_max = 0.0
    live = set(socks)
    deadline = time.monotonic() + wait
    while live and time.monotonic() < deadline:
        for k, _ in sel.select(timeout=max(0.0, deadline - time.monotonic())):
            s = k.fileobj
            try:
                data = s.recv(4096)
            except ConnectionResetError:
                data = None
            except BlockingIOError:
                continue
            if data:
                continue        # nothing is asked: no reply is expected
            if data is None:
                reset += 1
            else:
                eof += 1
            eof_max = max(eof_max, time.monotonic() - socks[s])
            sel.unregister(s)
            live.discard(s)
    print("opened=%d eof=%d reset=%d open=%d timeouts=%d eof_max_ms=%d" %
          (len(socks), eof, reset, len(live), timeouts, eof_max * 1000),
          flush=True)
    end = time.monotonic() + 120
    while not os.path.exists(release) and time.monotonic() < end:
        time.sleep(0.05)
    for s in socks:
        s.close()
    print("released", flush=True)


def ask(path, mapname, key):
    t0 = time.monotonic()
    q = ("%s %s" % (mapname, key)).encode()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    buf = b""
    what = "hang"
    try:
        s.connect(path)
        s.sendall(b"%d:%s," % (len(q), q))
        while b"," not in buf or b":" not in buf:
            data = s.recv(4096)
            if not data:
                what = "eof"
                break
            buf += data
        else:
            payload = buf.split(b":", 1)[1]
            what = "reply=" + payload.split(b" ", 1)[0].rstrip(b",").decode(
                errors="replace")
    except socket.timeout:
        what = "hang"
    except (BrokenPipeError, ConnectionResetError):
        what = "eof"
    s.close()
    print("%s ms=%d" % (what, (time.monotonic() - t0) * 1000), flush=True)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "ask":
        ask(sys.argv[2], sys.argv[3], sys.argv[4])
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == "hold":
        hold(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
