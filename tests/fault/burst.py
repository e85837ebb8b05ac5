#!/usr/bin/env python3
"""burst.py - a burst of socketmap lookups as Postfix makes them (fault tests).

  burst.py PATH MAP KEYFILE CONNS LIMIT_MS [[SIG:]PID]
      CONNS connections to the unix socket PATH, each asking the keys of
      KEYFILE (one a line) handed out in turn, one request at a time, as
      Postfix's dict_sockmap does.  A connection the daemon closes or
      resets (a worker killed) is opened again and the request asked once
      more, as Postfix retries a failed table lookup once; a second failure
      counts as failed.  A reply not read within LIMIT_MS of the request's
      first try counts as late (the wait stops there).  If PID is given,
      it is sent SIGKILL (SIG:PID another signal: HUP:PID) at the first
      reply read once every connection has sent its first request (they
      start together), while the other connections' requests are in
      flight (their number is printed as inflight_at_kill).
      Prints one line a lookup, 'KEY STATUS MS TRIES REPLY' (STATUS: OK,
      NOTFOUND, TEMP, PERM, late, failed; MS from the first try; REPLY the
      whole reply, if any), then
        lookups=N ok=N notfound=N temp=N perm=N late=N failed=N
        retried=N max_ms=N inflight_at_kill=N
  With BURST_FRESH=1 in the environment each lookup has a connection of its
  own (postmap, or a Postfix process that has just started), closed after
  its reply.
Written for these tests only; no third-party module.
"""
import os
import signal
import socket
import sys
import threading
import time


def netstring(b):
    return b"%d:%s," % (len(b), b)


class Conn:
    def __init__(self, path):
        self.path = path
        self.s = None
        self.buf = b""

    def open(self):
        self.close()
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(self.path)
        self.buf = b""

    def close(self):
        if self.s is not None:
            self.s.close()
        self.s = None

    def ask(self, req, deadline):
        """the reply's payload, None on EOF/reset, 'late' past deadline"""
        if self.s is None:
            self.open()
        self.s.sendall(req)
        while True:
            colon = self.buf.find(b":")
            if colon > 0:
                n = int(self.buf[:colon])
                if len(self.buf) >= colon + n + 2:
                    payload = self.buf[colon + 1:colon + 1 + n]
                    self.buf = self.buf[colon + n + 2:]
                    return payload
            left = deadline - time.monotonic()
            if left <= 0:
                return "late"
            self.s.settimeout(left)
            try:
                data = self.s.recv(65536)
            except socket.timeout:
                return "late"
            except OSError:
                return None
            if not data:
                return None
            self.buf += data


def main():
    path, mapname, keyfile = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
    conns, limit = int(sys.argv[4]), int(sys.argv[5]) / 1000.0
    fresh = os.environ.get("BURST_FRESH") == "1"
    victim, sig = 0, signal.SIGKILL
    if len(sys.argv) > 6:
        v = sys.argv[6].split(":")
        victim = int(v[-1])
        if len(v) > 1:
            sig = getattr(signal, "SIG" + v[0])
    with open(keyfile) as f:
        keys = [k.strip() for k in f if k.strip()]
    lock = threading.Lock()
    results = []
    nxt = [0]
    killed = [False]
    inflight = [0]
    at_kill = [-1]
    ready = threading.Barrier(conns)
    first = [0]         # connections that have sent their first request

    def run():
        c = Conn(path)
        mine = [False]
        ready.wait()
        while True:
            with lock:
                if nxt[0] >= len(keys):
                    break
                key = keys[nxt[0]]
                nxt[0] += 1
            req = netstring(mapname + b" " + key.encode())
            t0 = time.monotonic()
            deadline = t0 + limit
            tries, status, reply = 0, "failed", ""
            with lock:
                inflight[0] += 1
                if not mine[0]:
                    mine[0] = True
                    first[0] += 1
            while tries < 2:
                tries += 1
                try:
                    r = c.ask(req, deadline)
                except OSError:
                    r = None
                if r is None:
                    c.close()
                    continue
                if r == "late":
                    status = "late"
                    c.close()
                else:
                    reply = r.decode("ascii", "replace")
                    status = reply.split(" ", 1)[0]
                break
            if fresh:
                c.close()
            ms = int((time.monotonic() - t0) * 1000)
            with lock:
                inflight[0] -= 1
                results.append((key, status, ms, tries, reply))
                if victim and not killed[0] and first[0] == conns:
                    killed[0] = True
                    at_kill[0] = inflight[0]
                    os.kill(victim, sig)
        c.close()

    threads = [threading.Thread(target=run) for _ in range(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    count = {}
    for key, status, ms, tries, reply in results:
        print("%s %s %d %d %s" % (key, status, ms, tries, reply))
        count[status] = count.get(status, 0) + 1
    print("lookups=%d ok=%d notfound=%d temp=%d perm=%d late=%d failed=%d "
          "retried=%d max_ms=%d inflight_at_kill=%d" % (
              len(results), count.get("OK", 0), count.get("NOTFOUND", 0),
              count.get("TEMP", 0), count.get("PERM", 0),
              count.get("late", 0), count.get("failed", 0),
              sum(1 for r in results if r[3] > 1),
              max([r[2] for r in results] or [0]), at_kill[0]), flush=True)


if __name__ == "__main__":
    sys.exit(main())
