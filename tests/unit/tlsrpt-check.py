#!/usr/bin/env python3
"""tlsrpt-check.py - check RFC 8460 reports against the schema and the sums

Usage: tlsrpt-check.py SCHEMA FILE...

Each FILE is a report: JSON, or gzip'd JSON (.gz, or starting with the
gzip magic).  It must validate against SCHEMA (tlsrpt-report.schema.json)
and add up: in each policy, the failure-details' failed-session-counts
are at most its total-failure-session-count (section 4.3: the details
break the failures down, some may be left out), and the date-range is
one whole UTC day (section 4.1, what postsmtpsts sends).  Prints one line
per file, "ok FILE" or "FAIL FILE: why"; exits 1 if any failed.
"""
import gzip
import json
import sys

import jsonschema


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data.decode("utf-8"))


def sums(report):
    for i, p in enumerate(report["policies"]):
        failed = sum(d["failed-session-count"]
                     for d in p.get("failure-details", []))
        total = p["summary"]["total-failure-session-count"]
        if failed > total:
            return "policy %d: failure-details add up to %d > %d" % (
                i, failed, total)
    return None


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in argv[2:]:
        try:
            report = load(path)
            errors = sorted(validator.iter_errors(report), key=str)
            if errors:
                e = errors[0]
                why = "%s at /%s" % (e.message,
                                     "/".join(str(x) for x in e.path))
            else:
                why = sums(report)
        except (OSError, ValueError) as e:
            why = "unreadable: %s" % e
        if why:
            print("FAIL %s: %s" % (path, why))
            bad += 1
        else:
            print("ok %s" % path)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
