#!/usr/bin/env python3
"""test_sweep_gate.py SWEEP_SH - scripts/mpi-sweep.sh --report DIR --gate
(scripts/mpi-sweep-table.py --gate), what CI's stage `sweep` gates on,
on hand-written sweep directories: a sweep of passes, XFAILs, refusals
and a multinode row passes; one plain FAIL, one XPASS entry, a row that
ran no case, or a worker that stopped before some cases fails it, and
the last line names the row or entry. Without --gate every one of them
exits 0 (failures are results). No MPI, no collspec."""
import json
import os
import subprocess
import sys
import tempfile

PASS = {"verdict": "PASS", "coll": "allreduce", "dtype": "int32",
        "op": "sum", "check": ""}
XFAIL = {"verdict": "XFAIL", "coll": "allreduce", "dtype": "int8",
         "op": "sum", "check": "value"}
REFUSED = {"verdict": "FAIL", "coll": "alltoall", "dtype": "int8",
           "op": "none", "check": "error",
           "reason": "MPI_ERR_UNSUPPORTED_OPERATION: not supported"}
FAIL = {"verdict": "FAIL", "coll": "reduce", "dtype": "float32",
        "op": "max", "check": "nanrule", "reason": "no NaN rule"}
XPASS = {"verdict": "XPASS", "check": "expect",
         "expect_entry": "avx-8bit-sum", "reason": "none failed"}
ABORTED = {"verdict": "FAIL", "aborted": True, "check": "harness",
           "reason": "the worker stopped"}


def make(root, rows):
    """A sweep directory of rows: (name, api, colls, records or None)."""
    d = tempfile.mkdtemp(dir=root)
    with open(os.path.join(d, "sweep.txt"), "w") as f:
        f.write("library=Test MPI 1.0\nranks=2,3\nseconds=5\n")
    with open(os.path.join(d, "rows.txt"), "w") as f:
        for name, api, colls, recs in rows:
            f.write(f"{name} {api} {colls}\n")
            if recs is None:
                continue
            with open(os.path.join(d, name + ".jsonl"), "w") as j:
                for r in recs:
                    j.write(json.dumps(r) + "\n")
    return d


def run(sweep, d, gate):
    args = ["bash", sweep, "--report", d] + (["--gate"] if gate else [])
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    sweep = sys.argv[1]
    root = tempfile.mkdtemp(prefix="sweep-gate-")
    good = [("default-blocking", "blocking", "allreduce,alltoall",
             [PASS, XFAIL, REFUSED]),
            ("component-han", "multinode", "allreduce", None)]
    cases = [
        # (what, rows, rc with --gate, text the output must hold)
        ("passes, XFAIL, refusals, a multinode row", good, 0,
         "gate: passed"),
        ("one plain FAIL", good + [("reduce-linear", "blocking", "reduce",
                                    [PASS, FAIL])], 1,
         "gate: failed: reduce-linear: 1 FAIL"),
        ("an XPASS entry", good + [("allreduce-ring", "blocking",
                                    "allreduce", [PASS, XPASS])], 1,
         "entry avx-8bit-sum: XPASS"),
        ("a row that ran no case", good + [("allreduce-smp", "blocking",
                                            "allreduce", [ABORTED])], 1,
         "allreduce-smp: no case ran"),
        ("a row without results", good + [("bcast-chain", "blocking",
                                           "broadcast", None)], 1,
         "bcast-chain: no case ran"),
        ("a row run again with fallback=silent",
         good + [("allreduce-smp", "blocking", "allreduce", [ABORTED]),
                 ("allreduce-smp+silent", "blocking", "allreduce",
                  [PASS])], 0, "gate: passed"),
        ("a worker that stopped after some cases",
         good + [("gather-linear", "blocking", "gather",
                  [PASS, ABORTED])], 1,
         "gather-linear: its worker stopped before some cases"),
    ]
    bad = 0
    for what, rows, want_rc, want_text in cases:
        d = make(root, rows)
        rc, out = run(sweep, d, True)
        if rc != want_rc or want_text not in out:
            print(f"FAIL {what}: --gate exit {rc} (want {want_rc}), "
                  f"output lacks '{want_text}':\n{out}")
            bad += 1
        rc, out = run(sweep, d, False)
        if rc != 0 or "gate:" in out:
            print(f"FAIL {what}: without --gate exit {rc} (want 0) or a "
                  f"gate line:\n{out}")
            bad += 1
        if not bad:
            print(f"ok {what}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
