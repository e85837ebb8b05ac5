#!/usr/bin/env python3
"""tlsrpt_reports.py - check the TLSRPT reports the test world received

Usage: tlsrpt_reports.py SCHEMA MAILDIR COLLECTOR_DIR

MAILDIR is the Maildir the mailto: reports went to (its new/ holds one
file per mail), COLLECTOR_DIR tlsrpt-collector's (N.body and N.meta per
POST).  Every mail must be an RFC 8460 section 5.3 report: multipart/report
with report-type="tlsrpt", TLS-Report-Domain and TLS-Report-Submitter
header fields, the Subject "Report Domain: D Submitter: S Report-ID: <ID>",
one application/tlsrpt+gzip part named "S!D!BEGIN!END.json.gz" (section
5.1), and headers, file name and report agreeing (section 5.6: the report
is authoritative, but ours must not disagree).  Every POST must be
application/tlsrpt+gzip.  Each report must validate against SCHEMA (the
RFC 8460 schema of tests/unit) and add up (failure details at most the
failure count).

Prints one line per policy of each report:

    via domain policy-type success failure policy-string=yes|no result:count,...

(via "mail" or "https"; results "-" if none), and a line "FAIL what" per
problem; exits 1 if there was any.
"""
import email
import email.policy
import gzip
import json
import os
import re
import sys

import jsonschema

SUBJECT = re.compile(r"^Report Domain: (\S+) Submitter: (\S+) "
                     r"Report-ID: <([^<>@\s]+@[^<>@\s]+)>$")
FILENAME = re.compile(r"^([^!]+)!([^!]+)!([0-9]+)!([0-9]+)\.json\.gz$")

problems = []


def fail(what):
    problems.append(what)
    print("FAIL %s" % what)


def check_report(via, name, raw, validator, domain=None, submitter=None,
                 report_id=None):
    try:
        report = json.loads(gzip.decompress(raw).decode("utf-8"))
    except (OSError, ValueError) as e:
        fail("%s %s: not gzip'd JSON: %s" % (via, name, e))
        return
    errors = sorted(validator.iter_errors(report), key=str)
    if errors:
        fail("%s %s: schema: %s at /%s" % (via, name, errors[0].message,
             "/".join(str(x) for x in errors[0].path)))
        return
    for p in report["policies"]:
        d = p["policy"]["policy-domain"]
        if domain is not None and d != domain:
            fail("%s %s: policy-domain %s, TLS-Report-Domain %s" %
                 (via, name, d, domain))
        details = p.get("failure-details", [])
        if sum(x["failed-session-count"] for x in details) > \
                p["summary"]["total-failure-session-count"]:
            fail("%s %s: failure details add up to more than the failures"
                 % (via, name))
        results = ",".join("%s:%d" % (x["result-type"],
                                      x["failed-session-count"])
                           for x in details) or "-"
        print("%s %s %s %d %d policy-string=%s %s" % (
            via, d, p["policy"]["policy-type"],
            p["summary"]["total-successful-session-count"],
            p["summary"]["total-failure-session-count"],
            "yes" if p["policy"].get("policy-string") else "no", results))
    if report_id is not None and report["report-id"] != report_id:
        fail("%s %s: report-id %s, Subject's Report-ID %s" %
             (via, name, report["report-id"], report_id))
    contact = report["contact-info"]
    if submitter is not None and not contact.endswith("@" + submitter):
        fail("%s %s: contact-info %s is not at the submitter %s" %
             (via, name, contact, submitter))


def check_mail(path, validator):
    with open(path, "rb") as f:
        msg = email.message_from_binary_file(f, policy=email.policy.default)
    name = os.path.basename(path)
    if msg.get_content_type() != "multipart/report" or \
            msg.get_param("report-type") != "tlsrpt":
        fail("mail %s: Content-Type %s, report-type %s" % (
            name, msg.get_content_type(), msg.get_param("report-type")))
        return
    domain = str(msg.get("TLS-Report-Domain", ""))
    submitter = str(msg.get("TLS-Report-Submitter", ""))
    if not domain or not submitter:
        fail("mail %s: no TLS-Report-Domain or TLS-Report-Submitter" % name)
        return
    m = SUBJECT.match(" ".join(str(msg.get("Subject", "")).split()))
    if m is None or m.group(1) != domain or m.group(2) != submitter:
        fail("mail %s: Subject %r" % (name, msg.get("Subject")))
        return
    parts = [p for p in msg.iter_parts()
             if p.get_content_type() == "application/tlsrpt+gzip"]
    if len(parts) != 1:
        fail("mail %s: %d application/tlsrpt+gzip parts" % (name,
             len(parts)))
        return
    f = FILENAME.match(parts[0].get_filename() or "")
    if f is None or f.group(1) != submitter or f.group(2) != domain or \
            int(f.group(4)) - int(f.group(3)) != 86399:
        fail("mail %s: attachment named %r" % (name,
             parts[0].get_filename()))
        return
    check_report("mail", name, parts[0].get_content(), validator, domain,
                 submitter, m.group(3))


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    new = os.path.join(argv[2], "new")
    for n in sorted(os.listdir(new)) if os.path.isdir(new) else []:
        check_mail(os.path.join(new, n), validator)
    for n in sorted(os.listdir(argv[3])) if os.path.isdir(argv[3]) else []:
        if not n.endswith(".body"):
            continue
        base = os.path.join(argv[3], n[:-5])
        with open(base + ".meta") as f:
            meta = dict(line.rstrip("\n").split(": ", 1) for line in f
                        if ": " in line)
        if meta.get("content-type") != "application/tlsrpt+gzip":
            fail("https %s: Content-Type %r" % (n, meta.get("content-type")))
            continue
        with open(base + ".body", "rb") as f:
            check_report("https", n, f.read(), validator)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
