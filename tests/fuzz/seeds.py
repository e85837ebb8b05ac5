#!/usr/bin/env python3
"""seeds.py - regenerate the fuzz seed inputs that come from other files

Usage (from the top source directory): python3 tests/fuzz/seeds.py

Writes, into tests/fuzz/corpus/<target>/, files named "world-*" or
"unit-*" / "contrib-*" (and removes stale ones of those names first):

  domain      world-<case>, world-<case>-mx<N>: every case's domain and
              every MX host name of tests/world/cases.tsv
  sts_record  world-<case>: the case's TXT records joined, one per line,
              as sts_record_select() reads them; world-<case>.rdata: the
              first record's TXT RDATA in wire form (<len><bytes>...)
  sts_policy  world-<name>: every tests/world/policies/*.txt, and
              world-<name>-crlf with CRLF line ends (the "eol=crlf" cases)
  config      contrib-postsmtpsts.conf; unit-*: every configuration text of
              tests/unit/test_config.c (string literal tables and
              load_ok()/load_text() calls; answer_cases bodies inside a
              domain section)
  fleet_record unit-*: every cache_record seed wrapped as a fleet value
              for a domain key and a "dane:" key, unsigned and signed with
              the key fuzz_fleet_record.c configures (and a first byte
              selecting key name and MAC mode); version 2 values, and
              version 1 ones (unit-*-v1-*, still read)
  fleetagg    unit-*: the tlsrpt_state corpus's agg values as a host's
              part (plain, sealed, sealed and signed with the key
              fuzz_fleetagg.c configures), its rstate values as the fleet's
              delivery state
  ipc         unit-req-*: requests of each flag for domains of 1, 11 and
              127 bytes; unit-rep-*: replies TEMP, OK with no record, and
              OK around cache_record seeds (an STS record, a DANE record,
              both)

Hand-written seeds (any other name) are left alone.  The output is
committed; rerun this after changing the world catalogue or the config
unit tests so every world case stays a fuzz seed (issue: "including every
world case").
"""

import hashlib
import os
import re
import sys

TOP = os.getcwd()
CORPUS = os.path.join(TOP, "tests", "fuzz", "corpus")
GENERATED = re.compile(r"^(world|unit|contrib)-")


def clean(target):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if GENERATED.match(f):
            os.unlink(os.path.join(d, f))
    return d


def write(d, name, data):
    if isinstance(data, str):
        data = data.encode()
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")
    with open(os.path.join(d, name), "wb") as fp:
        fp.write(data)


def txt_strings(field):
    """one record of the catalogue's txt field: its quoted strings"""
    out = []
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', field):
        out.append(re.sub(r"\\(.)", r"\1", m.group(1)))
    return out


def world():
    ddom, drec, dpol = clean("domain"), clean("sts_record"), \
        clean("sts_policy")
    cols = None
    n = 0
    with open(os.path.join(TOP, "tests", "world", "cases.tsv")) as fp:
        for line in fp:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            f = line.split("\t")
            if cols is None:
                cols = f
                continue
            c = dict(zip(cols, f))
            name = c["name"]
            n += 1
            write(ddom, "world-" + name, c["domain"])
            if c.get("mx", "-") != "-":
                for i, mx in enumerate(c["mx"].split(",")):
                    write(ddom, "world-%s-mx%d" % (name, i + 1),
                          mx.split("@")[0])
            txt = c.get("txt", "-")
            if txt == "-" or txt.startswith("CNAME"):
                continue
            records = [txt_strings(r) for r in txt.split("|")]
            write(drec, "world-" + name,
                  "\n".join("".join(r) for r in records))
            rdata = b"".join(bytes([len(s.encode())]) + s.encode()
                             for s in records[0])
            write(drec, "world-%s.rdata" % name, rdata)
    pdir = os.path.join(TOP, "tests", "world", "policies")
    for f in sorted(os.listdir(pdir)):
        if not f.endswith(".txt"):
            continue
        with open(os.path.join(pdir, f), "rb") as fp:
            data = fp.read()
        base = f[:-4]
        write(dpol, "world-" + base, data)
        write(dpol, "world-%s-crlf" % base,
              data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    return n


def c_strings(text):
    """the values of adjacent C string literal runs in text, in order"""
    out = []
    lit = r'"((?:[^"\\\n]|\\.)*)"'
    for m in re.finditer(r'(?:%s\s*)+' % lit, text):
        s = "".join(re.findall(lit, m.group(0)))
        out.append(bytes(s, "utf-8").decode("unicode_escape"))
    return out


def table(src, name):
    """the entries of "name[] = { {...}, ... };" as lists of strings"""
    m = re.search(r"\b%s\[\]\s*=\s*\{(.*?)\n\};" % name, src, re.S)
    if m is None:
        sys.exit("seeds.py: no table %s in test_config.c" % name)
    body = m.group(1)
    # entries start at a line's first "{"
    return [c_strings(e) for e in re.split(r"\n\t\{", body)[1:]]


def config():
    d = clean("config")
    with open(os.path.join(TOP, "contrib", "postsmtpsts.conf"), "rb") as fp:
        write(d, "contrib-postsmtpsts.conf", fp.read())
    with open(os.path.join(TOP, "tests", "unit", "test_config.c")) as fp:
        src = fp.read()
    seen = set()

    def add(text):
        h = hashlib.sha1(text.encode()).hexdigest()[:12]
        if h not in seen:
            seen.add(h)
            write(d, "unit-" + h, text)

    for e in table(src, "answer_cases"):
        if len(e) >= 2:
            add('domain "seed.example" {\n\t%s\n}\n' % e[1])
    for e in table(src, "error_cases"):
        if len(e) >= 2:
            add(e[1])
    m = re.search(r"full_text\[\]\s*=\s*(.*?);\n", src, re.S)
    if m:
        add(c_strings(m.group(1))[0])
    for m in re.finditer(r"\bload_(?:ok|text)\(\s*((?:\"(?:[^\"\\\n]|"
                         r"\\.)*\"\s*)+)", src):
        add(c_strings(m.group(1))[0])
    return len(seen) + 1


FLEET_KEY = b"postsmtpsts-fuzz-fleet-key-32byt"
FLEET_LABEL = b"postsmtpsts-fleet-v2"
FLEET_LABEL_V1 = b"postsmtpsts-fleet-v1"


def fleet_record():
    """fleet values around the cache_record corpus (fleet_record.h)"""
    import hmac
    src = os.path.join(CORPUS, "cache_record")
    d = clean("fleet_record")
    n = 0
    for f in sorted(os.listdir(src)):
        with open(os.path.join(src, f), "rb") as fp:
            rec = fp.read()
        if len(rec) < 3 or rec[0] != 0xca:
            continue
        kind = rec[2] if len(rec) > 2 else 0
        dane = 1 if kind == 3 else 0
        key = b"dane:example.com" if dane else b"example.com"
        # version 2: the key's length in two bytes, network order
        plain = bytes([2, 0]) + rec
        head = bytes([2, 1]) + rec
        mac = hmac.new(FLEET_KEY, FLEET_LABEL + len(key).to_bytes(2, "big") +
                       key + head, hashlib.sha256).digest()
        write(d, "unit-%s-plain" % f[:12], bytes([dane]) + plain)
        write(d, "unit-%s-signed" % f[:12], bytes([dane | 2]) + head + mac)
        # version 1 (still read): one byte, its own label
        plain = bytes([1, 0]) + rec
        head = bytes([1, 1]) + rec
        mac = hmac.new(FLEET_KEY, FLEET_LABEL_V1 + bytes([len(key) & 0xff]) +
                       key + head, hashlib.sha256).digest()
        write(d, "unit-%s-v1-plain" % f[:12], bytes([dane]) + plain)
        write(d, "unit-%s-v1-signed" % f[:12], bytes([dane | 2]) + head +
              mac)
        n += 1
    return n


def fleetagg():
    """the reporter's fleet values (tlsrpt/fleetagg.h) around the agg
    values of the tlsrpt_state corpus: parts (selector 0), sealed parts
    (1: unsigned, and signed with fuzz_fleetagg.c's key), states (2)"""
    import hmac
    src = os.path.join(CORPUS, "tlsrpt_state")
    d = clean("fleetagg")
    key = b"fuzz-fleetagg-key-0123456789abc\0"
    mk = b"p/k/h1"
    n = 0
    for f in sorted(os.listdir(src)):
        with open(os.path.join(src, f), "rb") as fp:
            v = fp.read()
        if len(v) < 2 or v[0] % 3 != 0 or v[1] != 1 or n >= 12:
            continue            # an agg value, codec version 1; a dozen
        agg = v[1:]
        for final, host, sip in ((0, b"h1", b""), (1, b"mta-2.example",
                                                   b"192.0.2.25")):
            part = bytes([1, final]) + (42 + n).to_bytes(8, "big") + \
                len(host).to_bytes(2, "big") + host + \
                len(sip).to_bytes(2, "big") + sip + agg
            write(d, "unit-%s-part%d" % (f[:12], final), b"\0" + part)
            head = bytes([16, 0])
            write(d, "unit-%s-sealed%d" % (f[:12], final),
                  b"\1" + head + part)
            head = bytes([16, 1])
            mac = hmac.new(key, b"postsmtpsts-fleet-sealed" + bytes([16]) +
                           len(mk).to_bytes(2, "big") + mk + head + part,
                           hashlib.sha256).digest()
            write(d, "unit-%s-signed%d" % (f[:12], final),
                  b"\1" + head + part + mac)
        n += 1
    for f in sorted(os.listdir(src))[:40]:
        with open(os.path.join(src, f), "rb") as fp:
            v = fp.read()
        if len(v) < 2 or v[0] % 3 != 1:
            continue            # an rstate value
        write(d, "unit-%s-state" % f[:12], b"\2" + bytes([1]) +
              (2).to_bytes(2, "big") + b"h2" + v[1:])
        n += 1
    return n


def ipc():
    """IPC frames (lib/ipc.h) around the cache_record corpus: requests of
    each flag, and replies OK/TEMP with an STS record, a DANE record, both
    or none, for domains of several lengths"""
    import struct
    src = os.path.join(CORPUS, "cache_record")
    d = clean("ipc")
    recs = []
    for f in sorted(os.listdir(src)):
        with open(os.path.join(src, f), "rb") as fp:
            rec = fp.read()
        if len(rec) >= 3 and rec[0] == 0xca:
            recs.append((f[:12], rec))
    n = 0
    for dom in (b"example.com", b"a", b"x" * 63 + b"." + b"y" * 63):
        for flags in (0, 1, 2, 3):
            write(d, "unit-req-%d-%d" % (len(dom), flags),
                  bytes([ord("Q"), 2, flags, len(dom)]) + dom)
            n += 1
    dom = b"example.com"

    def reply(status, rec, dane):
        return (bytes([ord("R"), 2, status, len(dom)]) + dom +
                struct.pack("<I", len(rec)) + rec +
                struct.pack("<I", len(dane)) + dane)
    write(d, "unit-rep-temp", reply(1, b"", b""))
    write(d, "unit-rep-ok-empty", reply(0, b"", b""))
    n += 2
    for name, rec in recs[:24]:
        kind = rec[2]
        if kind == 3:
            write(d, "unit-rep-dane-%s" % name, reply(0, b"", rec))
        else:
            write(d, "unit-rep-sts-%s" % name, reply(0, rec, b""))
            dane = [r for _, r in recs if r[2] == 3]
            if dane:
                write(d, "unit-rep-both-%s" % name, reply(0, rec, dane[0]))
                n += 1
        n += 1
    return n


def main():
    n = world()
    m = config()
    k = fleet_record()
    i = ipc()
    a = fleetagg()
    print("seeds.py: %d world cases, %d config texts, %d fleet values, "
          "%d ipc frames, %d reporter fleet values" % (n, m, k, i, a))


if __name__ == "__main__":
    main()
