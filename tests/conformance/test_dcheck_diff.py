#!/usr/bin/env python3
"""test_dcheck_diff.py - the check where the data is changes no verdict.

Runs one collspec command twice, with --backend-opt dcheck=1 and dcheck=0
added (joined to any --backend-opt the command has), each with its own
--json file, and requires the two JSON Lines reports to hold the same
records, field for field, apart from timings and the re-run line (which
names the option); the identity check's fingerprints, keyed from the
operating system's random source afresh in every run, are compared as
"fingerprint <hex>" without their digits. With --min-fail N it also requires at least N FAIL
records whose check is "value" (a fault plugin's run: the device check
must hand every wrong buffer to the host check, whose FAIL stands).

usage: test_dcheck_diff.py [--min-fail N] [--min-cases N] -- COLLSPEC ARGS...
"""
import json
import os
import re
import subprocess
import sys
import tempfile

IGNORED = ("seconds", "check_seconds", "repro")


def with_opt(args, value):
    """args with dcheck=value added to its --backend-opt (or a new one)."""
    out, done, i = [], False, 0
    while i < len(args):
        if args[i] == "--backend-opt" and i + 1 < len(args):
            out += [args[i], args[i + 1] + ",dcheck=" + value]
            done, i = True, i + 2
            continue
        out.append(args[i])
        i += 1
    return out if done else out + ["--backend-opt", "dcheck=" + value]


def run(cmd, json_path):
    p = subprocess.run(cmd + ["--json", json_path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode not in (0, 1):
        sys.exit("FAIL: %s exited %d:\n%s" % (" ".join(cmd), p.returncode,
                                              p.stdout[-3000:]))
    with open(json_path) as f:
        return p.returncode, [json.loads(line) for line in f if line.strip()]


FINGERPRINT = re.compile(r"(fingerprint of the received values) [0-9a-f]+")


def strip(rec):
    out = {k: v for k, v in rec.items() if k not in IGNORED}
    if isinstance(out.get("detail"), str):
        out["detail"] = FINGERPRINT.sub(r"\1 <hex>", out["detail"])
    return out


def main(argv):
    min_fail, min_cases = 0, 1
    while argv and argv[0] != "--":
        if argv[0] == "--min-fail":
            min_fail, argv = int(argv[1]), argv[2:]
        elif argv[0] == "--min-cases":
            min_cases, argv = int(argv[1]), argv[2:]
        else:
            sys.exit("usage: " + __doc__.split("usage: ")[1])
    cmd = argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        rc1, on = run(with_opt(cmd, "1"), os.path.join(tmp, "on.json"))
        rc0, off = run(with_opt(cmd, "0"), os.path.join(tmp, "off.json"))
    if rc1 != rc0:
        sys.exit("FAIL: exit code %d with dcheck=1, %d with dcheck=0"
                 % (rc1, rc0))
    if len(on) != len(off) or len(on) < min_cases:
        sys.exit("FAIL: %d records with dcheck=1, %d with dcheck=0 (at "
                 "least %d wanted)" % (len(on), len(off), min_cases))
    for a, b in zip(on, off):
        sa, sb = strip(a), strip(b)
        if sa != sb:
            diff = {k: (sa.get(k), sb.get(k)) for k in set(sa) | set(sb)
                    if sa.get(k) != sb.get(k)}
            sys.exit("FAIL: case %s differs (dcheck=1, dcheck=0): %s"
                     % (a.get("index"), diff))
    fails = sum(1 for r in on if r["verdict"] == "FAIL"
                and r["check"] == "value")
    if fails < min_fail:
        sys.exit("FAIL: %d value FAILs, at least %d wanted" % (fails,
                                                               min_fail))
    print("ok: %d records identical with dcheck=1 and dcheck=0, %d value "
          "FAILs" % (len(on), fails))


if __name__ == "__main__":
    main(sys.argv[1:])
