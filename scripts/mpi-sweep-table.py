#!/usr/bin/env python3
"""mpi-sweep-table.py [--gate] DIR - the table of an MPI algorithm sweep
(scripts/mpi-sweep.sh) whose results are in DIR: sweep.txt (library,
ranks, seconds), rows.txt (one line per row: name, api, collectives) and
NAME.jsonl per row (collspec run --json).

One Markdown row per algorithm: cases, pass (PASS, INFO or WARN), fail,
refused, skip, xfail; then the failures grouped by signature (check,
collective, dtype, op) with the rows each appears in, and the XPASS
entries of --expect (a known defect that no row showed). Refused: a FAIL
whose reason is the library refusing a forced algorithm (mpi-sweep.sh's
top comment and docs/running.md section 3.5 say which texts).

--gate: a last line `gate: passed` or `gate: failed: ...` naming what
failed it, and exit status 1 when a row has a FAIL that is not a refusal,
an XPASS entry, or a worker that stopped before its cases (the row ran
none, or not all; rows of components that need several nodes, and rows
that mpi-sweep.sh ran again as NAME+silent, aside); 0 otherwise."""
import collections
import json
import os
import sys

REFUSE = ("not usable for the provided",
          "MPI_ERR_UNSUPPORTED_OPERATION", "exited with status 52")


def refused(r):
    text = r.get("reason", "") + " " + r.get("detail", "")
    return r["verdict"] == "FAIL" and any(t in text for t in REFUSE)


def count_row(name, rows, sigs, xpass):
    n = collections.Counter()
    for r in rows:
        v = r["verdict"]
        if r.get("aborted"):  # (the run's own record: no case)
            n["aborted"] += 1
        elif refused(r):
            n["refused"] += 1
        elif v == "FAIL":
            n["fail"] += 1
            sig = sigs[(r["check"], r["coll"], r["dtype"], r["op"])]
            sig[0] += 1
            if name not in sig[1]:
                sig[1].append(name)
        elif v in ("PASS", "INFO", "WARN"):
            n["pass"] += 1
        elif v == "XPASS":
            n["xpass"] += 1
            xpass[r.get("expect_entry", "?")].append(name)
        else:
            n[v.lower()] += 1
    return n


def main(out, gate):
    meta = dict(l.rstrip("\n").split("=", 1)
                for l in open(os.path.join(out, "sweep.txt")))
    print(f"# MPI algorithm sweep: {meta['library']}; ranks "
          f"{meta['ranks']}; {meta.get('seconds', '?')} s")
    print()
    print("| algorithm | api | collectives | cases | pass | fail | refused "
          "| skip | xfail |")
    print("|---|---|---|---|---|---|---|---|---|")
    sigs = collections.defaultdict(lambda: [0, []])
    xpass = collections.defaultdict(list)
    bad = []  # what fails the gate
    table = [line.split() for line in open(os.path.join(out, "rows.txt"))]
    row_names = {t[0] for t in table}
    for name, api, cl in table:
        path = os.path.join(out, name + ".jsonl")
        rows = [json.loads(l) for l in open(path)] \
            if os.path.exists(path) else []
        n = count_row(name, rows, sigs, xpass)
        rows = [r for r in rows
                if not r.get("aborted") and r["verdict"] != "XPASS"]
        note = "" if rows else f" (no case ran: see {name}.log)"
        if api == "multinode":
            note = " (not run: takes only communicators that span nodes)"
        elif not rows and name + "+silent" not in row_names:
            bad.append(f"{name}: no case ran")
        elif n["aborted"] and name + "+silent" not in row_names:
            bad.append(f"{name}: its worker stopped before some cases")
        if n["fail"]:
            bad.append(f"{name}: {n['fail']} FAIL")
        cols = "all nine" if cl.count(",") == 8 else cl
        print(f"| {name}{note} | {api} | {cols} | {len(rows)} | "
              f"{n['pass']} | {n['fail']} | {n['refused']} | {n['skip']} | "
              f"{n['xfail']} |")
    print()
    print("failures by signature (check collective dtype op: cases; rows):")
    for k, (c, names) in sorted(sigs.items(),
                                key=lambda x: (-x[1][0], x[0])):
        print(f"  {' '.join(k)}: {c}; {' '.join(names)}")
    if not sigs:
        print("  none")
    for entry, names in sorted(xpass.items()):
        print(f"XPASS: expectations entry {entry}: selected cases of "
              f"rows {' '.join(names)}, none failed by its checks")
        bad.append(f"entry {entry}: XPASS")
    print()
    print(f"results: {out}")
    if gate:
        print("gate: " + ("failed: " + "; ".join(bad) if bad else "passed"))
    return 1 if gate and bad else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    gate = args[:1] == ["--gate"]
    args = args[1:] if gate else args
    if len(args) != 1 or not os.path.isfile(
            os.path.join(args[0], "sweep.txt")):
        sys.exit("usage: mpi-sweep-table.py [--gate] DIR (a mpi-sweep.sh "
                 "--out DIR)")
    sys.exit(main(args[0], gate))
