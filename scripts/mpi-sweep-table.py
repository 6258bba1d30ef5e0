#!/usr/bin/env python3
"""mpi-sweep-table.py DIR - the table of an MPI algorithm sweep
(scripts/mpi-sweep.sh) whose results are in DIR: sweep.txt (library,
ranks, seconds), rows.txt (one line per row: name, api, collectives) and
NAME.jsonl per row (collspec run --json).

One Markdown row per algorithm: cases, pass (PASS, INFO or WARN), fail,
refused, skip, xfail; then the failures grouped by signature (check,
collective, dtype, op) with the rows each appears in. Refused: a FAIL
whose reason is the library refusing a forced algorithm (mpi-sweep.sh's
top comment and docs/running.md section 3.5 say which texts)."""
import collections
import json
import os
import sys

REFUSE = ("not usable for the provided",
          "MPI_ERR_UNSUPPORTED_OPERATION", "exited with status 52")


def refused(r):
    text = r.get("reason", "") + " " + r.get("detail", "")
    return r["verdict"] == "FAIL" and any(t in text for t in REFUSE)


def count_row(name, rows, sigs):
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
        else:
            n[v.lower()] += 1
    return n


def main(out):
    meta = dict(l.rstrip("\n").split("=", 1)
                for l in open(os.path.join(out, "sweep.txt")))
    print(f"# MPI algorithm sweep: {meta['library']}; ranks "
          f"{meta['ranks']}; {meta.get('seconds', '?')} s")
    print()
    print("| algorithm | api | collectives | cases | pass | fail | refused "
          "| skip | xfail |")
    print("|---|---|---|---|---|---|---|---|---|")
    sigs = collections.defaultdict(lambda: [0, []])
    for line in open(os.path.join(out, "rows.txt")):
        name, api, cl = line.split()
        path = os.path.join(out, name + ".jsonl")
        rows = [json.loads(l) for l in open(path)] \
            if os.path.exists(path) else []
        n = count_row(name, rows, sigs)
        rows = [r for r in rows if not r.get("aborted")]
        note = "" if rows else f" (no case ran: see {name}.log)"
        if api == "multinode":
            note = " (not run: takes only communicators that span nodes)"
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
    print()
    print(f"results: {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isfile(
            os.path.join(sys.argv[1], "sweep.txt")):
        sys.exit("usage: mpi-sweep-table.py DIR (a mpi-sweep.sh --out DIR)")
    main(sys.argv[1])
