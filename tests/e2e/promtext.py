#!/usr/bin/env python3
"""promtext.py - scrape and check Prometheus text (format 0.0.4) for tests.

  promtext.py fetch URL FILE       GET URL, body to FILE; print
                                   'STATUS CONTENT-TYPE'
  promtext.py raw HOST PORT BYTES  send raw bytes (Python escapes), print the
                                   status line of the reply ('EOF' if none)
  promtext.py check FILE           every line's syntax: HELP/TYPE once per
                                   family and before its samples, names
                                   postsmtpsts_*, label syntax and escapes,
                                   no duplicate series, histograms
                                   cumulative with +Inf == _count; print
                                   'ok N samples' or the faults (exit 1)
  promtext.py get FILE SERIES...   print each series' value ('absent')
  promtext.py diff A B             print 'SERIES DELTA' for every series
                                   whose value changed from A to B
  promtext.py busy HOST PORT N     open N idle connections, then one more:
                                   print 'closed' if the server closed the
                                   extra one at once, else 'open'
Written for these tests only; no third-party module.
"""
import codecs
import re
import socket
import sys
import urllib.error
import urllib.request

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r"^(%s)(\{%s(?:,%s)*\})? (\S+)(?: (-?\d+))?$" %
                    (NAME, LABEL, LABEL))
HELP = re.compile(r"^# HELP (%s) (.*)$" % NAME)
TYPE = re.compile(r"^# TYPE (%s) (counter|gauge|histogram|summary|untyped)$"
                  % NAME)
VALUE = re.compile(r"^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
                   r"|[+-]?Inf|NaN)$")


def parse(path):
    """Return ({series: float}, [faults], nsamples)."""
    faults = []
    values = {}
    helped, typed, types = set(), set(), {}
    current = None
    hist = {}  # family -> [(le, value)], _count
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        faults.append("no newline at the end")
    for n, line in enumerate(text.split("\n")[:-1], 1):
        m = HELP.match(line)
        if m:
            if m.group(1) in helped:
                faults.append("%d: second HELP for %s" % (n, m.group(1)))
            helped.add(m.group(1))
            current = m.group(1)
            continue
        m = TYPE.match(line)
        if m:
            if m.group(1) in typed:
                faults.append("%d: second TYPE for %s" % (n, m.group(1)))
            if m.group(1) != current:
                faults.append("%d: TYPE %s not after its HELP" %
                              (n, m.group(1)))
            typed.add(m.group(1))
            types[m.group(1)] = m.group(2)
            continue
        if line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            faults.append("%d: bad line: %r" % (n, line))
            continue
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        if not name.startswith("postsmtpsts_"):
            faults.append("%d: name %s lacks the postsmtpsts_ prefix" %
                          (n, name))
        if not VALUE.match(value):
            faults.append("%d: bad value %r" % (n, value))
            continue
        family = current
        if family is None or family not in typed:
            faults.append("%d: %s before any HELP/TYPE" % (n, name))
            continue
        kind = types[family]
        ok_names = [family] if kind != "histogram" else \
            [family + s for s in ("_bucket", "_sum", "_count")]
        if name not in ok_names:
            faults.append("%d: %s is not of family %s" % (n, name, family))
        if kind == "counter" and not name.endswith("_total"):
            faults.append("%d: counter %s does not end in _total" %
                          (n, name))
        series = name + labels
        if series in values:
            faults.append("%d: duplicate series %s" % (n, series))
        values[series] = float(value)
        if kind == "counter" and float(value) < 0:
            faults.append("%d: negative counter %s" % (n, series))
        if kind == "histogram":
            h = hist.setdefault(family, {"buckets": [], "count": None})
            if name.endswith("_bucket"):
                le = re.search(r'le="([^"]*)"', labels)
                if not le:
                    faults.append("%d: bucket without le" % n)
                    continue
                h["buckets"].append((float(le.group(1)), float(value)))
            elif name.endswith("_count"):
                h["count"] = float(value)
    for family, h in hist.items():
        les = [b[0] for b in h["buckets"]]
        vals = [b[1] for b in h["buckets"]]
        if les != sorted(les) or len(set(les)) != len(les):
            faults.append("%s: le not increasing" % family)
        if vals != sorted(vals):
            faults.append("%s: buckets not cumulative" % family)
        if not les or les[-1] != float("inf"):
            faults.append("%s: no +Inf bucket" % family)
        elif h["count"] != vals[-1]:
            faults.append("%s: +Inf bucket %s != _count %s" %
                          (family, vals[-1], h["count"]))
    for family in helped ^ typed:
        faults.append("%s: HELP without TYPE or the reverse" % family)
    return values, faults, len(values)


def fmt(v):
    return str(int(v)) if v == int(v) else repr(v)


def main():
    cmd = sys.argv[1]
    if cmd == "fetch":
        try:
            with urllib.request.urlopen(sys.argv[2], timeout=10) as r:
                body, status = r.read(), r.status
                ctype = r.headers.get("Content-Type", "-")
        except urllib.error.HTTPError as e:
            body, status = e.read(), e.code
            ctype = e.headers.get("Content-Type", "-")
        with open(sys.argv[3], "wb") as f:
            f.write(body)
        print(status, ctype)
    elif cmd == "raw":
        s = socket.create_connection((sys.argv[2], int(sys.argv[3])),
                                     timeout=10)
        s.sendall(codecs.escape_decode(sys.argv[4].encode())[0])
        buf = b""
        while b"\n" not in buf:
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
        print(buf.split(b"\r\n")[0].decode() if buf else "EOF")
    elif cmd == "check":
        _, faults, n = parse(sys.argv[2])
        for f in faults:
            print(f)
        if faults:
            return 1
        print("ok %d samples" % n)
    elif cmd == "get":
        values, _, _ = parse(sys.argv[2])
        for s in sys.argv[3:]:
            print(fmt(values[s]) if s in values else "absent")
    elif cmd == "diff":
        a, _, _ = parse(sys.argv[2])
        b, _, _ = parse(sys.argv[3])
        for s in sorted(set(a) | set(b)):
            d = b.get(s, 0.0) - a.get(s, 0.0)
            if d != 0:
                print(s, fmt(d))
    elif cmd == "busy":
        host, port, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        idle = [socket.create_connection((host, port), timeout=5)
                for _ in range(n)]
        extra = socket.create_connection((host, port), timeout=5)
        extra.settimeout(3)
        try:
            print("closed" if extra.recv(1) == b"" else "open")
        except socket.timeout:
            print("open")
        except ConnectionResetError:
            print("closed")
        for s in idle + [extra]:
            s.close()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
