#!/usr/bin/env python3
"""test_explain_steps.py - `collspec explain COLL --algo NAME --steps` and
`--inplace` held to an independent recomputation.

For every (collective, algorithm) pair at several P (and roots, counts,
alltoallv patterns), the test reads the printed ops and executes them
itself on its own tokens: a reduction token is (element index, ranks,
ranks whose pre was applied, post applied), a moved one (rank, index).
It requires:
  - every fold to combine tokens of one element index with disjoint rank
    sets, pre only on raw inputs, post once on a complete value, no read
    of an unwritten slot, no write into an alltoallv gap (the gaps
    computed here from the printed matrix by spec/collectives.md 2.5);
  - the state printed after each step to equal its own, cell by cell;
  - the final receive buffers to equal the collective's definition
    (spec/collectives.md section 2, written here from the spec's
    formulas, not from the schedules);
  - the elements each rank sent (read by others) and the busiest rank's
    count over n to be what the printed ops imply;
  - with xmllint present, the SVG to be well-formed and to hold one
    labelled cell per state cell of each step;
  - bad input (unknown algorithm, one that does not run the collective,
    rd at a P that is not a power of two, --algo without --steps, P out of
    range) to exit 2 with a message naming the problem;
  - --inplace: the NCCL and MPI layouts' result cells (allgather, gather,
    reducescatter, scatter, sendrecv, alltoallv with its gaps) to
    equal the definition at the place each form puts the result.

usage: test_explain_steps.py COLLSPEC
"""
import re
import shutil
import subprocess
import sys
import tempfile

COLLSPEC = sys.argv[1]
FAILS = []

PAIRS = {
    "allreduce": ["ring", "tree", "rd", "rhd", "rabenseifner"],
    "allgather": ["ring", "rd"],
    "reducescatter": ["ring", "rhd"],
    "alltoall": ["direct", "pairwise"],
    "alltoallv": ["direct", "pairwise"],
    "broadcast": ["ring", "tree", "binomial"],
    "reduce": ["ring", "tree", "binomial"],
    "gather": ["direct"],
    "scatter": ["direct"],
    "sendrecv": ["direct"],
}
REDUCES = {"allreduce", "reducescatter", "reduce"}
POW2 = {"rd", "rhd", "rabenseifner"}


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def run(args):
    p = subprocess.run([COLLSPEC, "explain"] + args, capture_output=True,
                       text=True)
    return p.returncode, p.stdout, p.stderr


# ---- parsing ---------------------------------------------------------------

OP_RE = re.compile(r"^  r(\d+): (send|recv|tmp)\[(\d+):(\d+)\] <- (.*?)( post)?$")
SRC_RE = re.compile(r"^r(\d+)\.(send|recv|tmp)\[(\d+):(\d+)\]( pre)?$")
STATE_RE = re.compile(r"^    r(\d+) +(recv|tmp)(.*)$")


def parse(out):
    """Steps as [(ops, state)], the matrix, and the sent lines."""
    steps, matrix, sent, busiest = [], [], None, None
    rcvd = busiest_r = None
    displ = {}
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("count matrix"):
            i += 1
            while i < len(lines) and re.match(r"^ +\d", lines[i]):
                matrix.append([int(v) for v in lines[i].split()])
                i += 1
            continue
        m = re.match(r"^step (\d+): (reduce|copy)$", ln)
        if m:
            assert int(m.group(1)) == len(steps), ln
            steps.append(([], {}))
        elif steps and OP_RE.match(ln):
            m = OP_RE.match(ln)
            srcs = []
            for s in m.group(5).split(" + "):
                sm = SRC_RE.match(s.strip())
                if not sm:
                    raise ValueError("bad source: " + ln)
                srcs.append((int(sm.group(1)), sm.group(2), int(sm.group(3)),
                             int(sm.group(4)), bool(sm.group(5))))
            steps[-1][0].append((int(m.group(1)), m.group(2), int(m.group(3)),
                                 int(m.group(4)), srcs, bool(m.group(6))))
        elif steps and STATE_RE.match(ln):
            m = STATE_RE.match(ln)
            cells = m.group(3).split()
            if cells[:4] == ["(none", "on", "this", "rank)"]:
                cells = []
            steps[-1][1][(int(m.group(1)), m.group(2))] = cells
        elif ln.startswith("elements each rank sent") or \
                ln.startswith("elements each rank received"):
            i += 1
            v = lines[i].split()
            d = {int(v[k][1:]): int(v[k + 1]) for k in range(0, len(v), 2)}
            if "sent" in ln:
                sent = d
            else:
                rcvd = d
        elif re.match(r"^  r\d+ send blocks at ", ln):
            m = re.match(r"^  r(\d+) send blocks at (.*); receive blocks at "
                         r"(.*)$", ln)
            displ[int(m.group(1))] = ([int(v) for v in m.group(2).split()],
                                      [int(v) for v in m.group(3).split()])
        elif ln.startswith("busiest rank:"):
            busiest = ln
        elif ln.startswith("busiest receiver:"):
            busiest_r = ln
        i += 1
    return steps, matrix, sent, busiest, rcvd, busiest_r, displ


# ---- the token machine -------------------------------------------------------

def mask_text(ranks, P):
    """The printed form of a rank set (runs of 4+ as rA-rB)."""
    out, r = [], 0
    while r < P:
        if r not in ranks:
            r += 1
            continue
        e = r
        while e < P and e in ranks:
            e += 1
        if e - r >= 4:
            out.append("r%d-r%d" % (r, e - 1))
        else:
            out += ["r%d" % k for k in range(r, e)]
        r = e
    return "+".join(out)


def layout(M, g, P):
    """alltoallv displacements by spec/collectives.md 2.5."""
    sd = [[sum(M[s][d2] + g for d2 in range(d)) for d in range(P)]
          for s in range(P)]
    rd = [[sum(M[s2][r] + g for s2 in range(s)) for s in range(P)]
          for r in range(P)]
    return sd, rd


def execute(coll, P, n, root, steps, matrix, gap, what):
    red = coll in REDUCES
    mem = {}
    send_n = {"allreduce": n, "allgather": n, "reducescatter": P * n,
              "alltoall": P * n, "broadcast": n, "reduce": n, "gather": n,
              "scatter": P * n, "sendrecv": n}
    sd = rd = None
    gaps = set()
    if coll == "alltoallv":
        sd, rd = layout(matrix, gap, P)
        for r in range(P):
            for s in range(P):
                for k in range(gap):
                    gaps.add((r, rd[r][s] + matrix[s][r] + k))
    for r in range(P):
        if coll == "alltoallv":
            ns = sum(matrix[r][d] + gap for d in range(P))
        elif coll in ("broadcast", "scatter") and r != root:
            ns = 0
        else:
            ns = send_n[coll]
        for i in range(ns):
            mem[(r, "send", i)] = ((i, frozenset([r]), frozenset(), False)
                                   if red else (r, i))
    sent = [0] * P
    rcvd = [0] * P
    for t, (ops, state) in enumerate(steps):
        writes = []
        for (r, db, lo, hi, srcs, post) in ops:
            for (q, sb, slo, shi, pre) in srcs:
                if shi - slo != hi - lo:
                    fail("%s step %d r%d: source and destination lengths "
                         "differ" % (what, t, r))
                    return None
                if q != r:
                    sent[q] += hi - lo
                    rcvd[r] += hi - lo
            for j in range(hi - lo):
                acc = None
                for (q, sb, slo, shi, pre) in srcs:
                    key = (q, sb, slo + j)
                    if key not in mem:
                        fail("%s step %d r%d reads %s of r%d element %d, "
                             "never written" % (what, t, r, sb, q, slo + j))
                        return None
                    x = mem[key]
                    if pre:
                        if not red or len(x[1]) != 1 or x[2]:
                            fail("%s step %d: pre on a value that is not "
                                 "a raw input" % (what, t))
                            return None
                        x = (x[0], x[1], x[1], x[3])
                    if acc is None:
                        acc = x
                    elif not red:
                        fail("%s step %d: a fold in %s" % (what, t, coll))
                        return None
                    else:
                        if acc[0] != x[0] or acc[1] & x[1] or acc[3] or x[3]:
                            fail("%s step %d r%d: bad fold of element %d "
                                 "%s with element %d %s" % (
                                     what, t, r, acc[0], sorted(acc[1]),
                                     x[0], sorted(x[1])))
                            return None
                        acc = (acc[0], acc[1] | x[1], acc[2] | x[2], False)
                if post:
                    if not red or len(acc[1]) != P or acc[3]:
                        fail("%s step %d: post on an incomplete value" %
                             (what, t))
                        return None
                    acc = (acc[0], acc[1], acc[2], True)
                if db == "recv" and (r, lo + j) in gaps:
                    fail("%s step %d: r%d writes the gap at %d" %
                         (what, t, r, lo + j))
                    return None
                writes.append(((r, db, lo + j), acc))
        for k, v in writes:
            mem[k] = v
        # the printed state against ours
        for (r, b), cells in state.items():
            for i, c in enumerate(cells):
                if b == "recv" and (r, i) in gaps:
                    want = "_"
                elif (r, b, i) not in mem:
                    want = "."
                elif red:
                    want = mask_text(mem[(r, b, i)][1], P)
                else:
                    want = "r%d[%d]" % mem[(r, b, i)]
                if c != want:
                    fail("%s step %d: r%d %s[%d] printed %s, the ops give "
                         "%s" % (what, t, r, b, i, c, want))
                    return None
    return mem, sent, rcvd, sd, rd


def definition(coll, P, n, root, matrix, sd, rd, r):
    """Rank r's expected recv cells by spec/collectives.md section 2:
    (index, rank) pairs for movement, element indices for reductions."""
    if coll == "allreduce":
        return [i for i in range(n)]
    if coll == "reducescatter":
        return [r * n + i for i in range(n)]
    if coll == "reduce":
        return [i for i in range(n)] if r == root else []
    if coll == "allgather" or (coll == "gather" and r == root):
        return [(q, i) for q in range(P) for i in range(n)]
    if coll == "gather":
        return []
    if coll == "alltoall":
        return [(q, r * n + i) for q in range(P) for i in range(n)]
    if coll == "broadcast":
        return [(root, i) for i in range(n)]
    if coll == "scatter":
        return [(root, r * n + i) for i in range(n)]
    if coll == "sendrecv":
        return [((r - 1) % P, i) for i in range(n)]
    if coll == "alltoallv":
        out = {}
        for s in range(P):
            for i in range(matrix[s][r]):
                out[rd[r][s] + i] = (s, sd[s][r] + i)
        return out
    raise ValueError(coll)


def check_pair(coll, algo, P, root, count, pattern, svgdir):
    what = "%s --algo %s P=%d root=%d count=%s %s" % (coll, algo, P, root,
                                                       count, pattern or "")
    args = [coll, "--algo", algo, "--steps", "--ranks", str(P)]
    if root:
        args += ["--root", str(root)]
    if count is not None:
        args += ["--count", str(count)]
    if pattern:
        args += ["--a2av-pattern", pattern]
    svg = None
    if svgdir:
        svg = "%s/%s_%s_%d.svg" % (svgdir, coll, algo, P)
        args += ["--svg", svg]
    rc, out, err = run(args)
    if rc != 0:
        fail("%s: exit %d: %s" % (what, rc, err.strip()))
        return
    m = re.search(r"at P=(\d+), count (\d+): (\d+) steps", out)
    if not m or int(m.group(1)) != P:
        fail("%s: no header line" % what)
        return
    n = int(m.group(2))
    steps, matrix, sent, busiest, rcvd, busiest_r, displ = parse(out)
    if len(steps) != int(m.group(3)):
        fail("%s: %d steps printed, header says %s" % (what, len(steps),
                                                       m.group(3)))
        return
    if coll == "alltoallv":
        sd, rd = layout(matrix, 1, P)
        for r in range(P):
            if displ.get(r) != (sd[r], rd[r]):
                fail("%s: r%d displacements %s, spec 2.5 gives %s" % (
                    what, r, displ.get(r), (sd[r], rd[r])))
    res = execute(coll, P, n, root, steps, matrix, 1, what)
    if res is None:
        return
    mem, mysent, myrcvd, sd, rd = res
    red = coll in REDUCES
    for r in range(P):
        want = definition(coll, P, n, root, matrix, sd, rd, r)
        items = want.items() if isinstance(want, dict) else enumerate(want)
        for i, w in items:
            got = mem.get((r, "recv", i))
            if red:
                ok = (got is not None and got[0] == w and
                      len(got[1]) == P and got[2] == got[1] and got[3])
            else:
                ok = got == w
            if not ok:
                fail("%s: r%d recv[%d] = %s, the definition says %s" %
                     (what, r, i, got, w))
                return
        # nothing else of recv was written (the gaps, the untouched ranks)
        wkeys = set(want.keys()) if isinstance(want, dict) else set(
            range(len(want)))
        extra = [k for k in mem if k[0] == r and k[1] == "recv"
                 and k[2] not in wkeys]
        if extra:
            fail("%s: r%d writes recv outside its result: %s" %
                 (what, r, extra[:3]))
            return
    if sent != {r: mysent[r] for r in range(P)}:
        fail("%s: sent %s, the ops give %s" % (what, sent, mysent))
    if rcvd != {r: myrcvd[r] for r in range(P)}:
        fail("%s: received %s, the ops give %s" % (what, rcvd, myrcvd))
    nmodel = n * P if coll in ("allgather", "reducescatter",
                               "alltoall") else n
    for line, head, mine in ((busiest, "busiest rank", mysent),
                             (busiest_r, "busiest receiver", myrcvd)):
        if line is None or not line.startswith(
                "%s: %d elements" % (head, max(mine))):
            fail("%s: %s line %r, the ops give %d" % (what, head, line,
                                                       max(mine)))
        elif nmodel and coll != "alltoallv":
            fig = re.search(r"= ([0-9.e+-]+) n", line)
            if not fig or abs(float(fig.group(1)) - max(mine) / nmodel) > 1e-3:
                fail("%s: %r is not %d/%d" % (what, line, max(mine), nmodel))
    if svg:
        check_svg(svg, steps, what)


def check_svg(svg, steps, what):
    if subprocess.run(["xmllint", "--noout", svg]).returncode != 0:
        fail("%s: %s is not well-formed" % (what, svg))
        return
    text = open(svg).read()
    bands = len(re.findall(r">step \d+: (?:reduce|copy)<", text))
    if bands != len(steps):
        fail("%s: the SVG draws %d steps, the text %d" % (what, bands,
                                                          len(steps)))
    # every state cell is a rect with its label (before step 0 too)
    ncell = sum(len(c) for c in steps[-1][1].values()) * (len(steps) + 1)
    rects = len(re.findall(r"<rect x=", text))
    if rects != ncell:
        fail("%s: the SVG has %d cells, expected %d" % (what, rects, ncell))


def bad_input():
    cases = [
        (["allreduce", "--algo", "nosuch", "--steps"], "unknown algorithm"),
        (["reducescatter", "--algo", "tree", "--steps"], "does not run"),
        (["alltoall", "--algo", "ring", "--steps"], "does not run"),
        (["allgather", "--algo", "rhd", "--steps"], "does not run"),
        (["allreduce", "--algo", "rd", "--steps", "--ranks", "6"],
         "power of two"),
        (["allreduce", "--algo", "ring"], "needs --steps"),
        (["allreduce", "--steps"], "needs --algo"),
        (["allreduce", "--algo", "ring", "--steps", "--ranks", "17"],
         "--ranks"),
        (["allreduce", "--algo", "ring", "--steps", "--ranks", "0"],
         "--ranks"),
        (["broadcast", "--algo", "tree", "--steps", "--root", "4"],
         "--root"),
        (["allreduce", "--steps", "--inplace", "--algo", "ring"], "give one"),
        (["allreduce", "--algo"], "--algo"),
    ]
    for args, needle in cases:
        rc, out, err = run(args)
        if rc != 2 or needle not in err:
            fail("explain %s: exit %d, stderr %r (expected 2 and %r)" %
                 (" ".join(args), rc, err.strip(), needle))


def inplace():
    """The result cells of each form where the definition puts them."""
    P, n = 3, 2
    for coll in PAIRS:
        args = [coll, "--inplace", "--ranks", str(P), "--count", str(n)]
        root = 1 if coll in ("broadcast", "reduce", "gather", "scatter") \
            else 0
        if root:
            args += ["--root", str(root)]
        rc, out, err = run(args)
        if rc != 0:
            fail("explain %s: exit %d: %s" % (" ".join(args), rc, err))
            continue
        forms, before = {}, {}
        cur = None
        for ln in out.splitlines():
            m = re.match(r"^(NCCL|MPI): (.*)$", ln)
            if m:
                cur = m.group(1)
                forms[cur] = {} if "no in-place form" not in ln else None
                continue
            m = re.match(r"^  r(\d+) +after +(.*)$", ln)
            if m and cur and forms[cur] is not None:
                forms[cur][int(m.group(1))] = m.group(2).split()
            m = re.match(r"^  r(\d+) +before +(.*)$", ln)
            if m and cur and forms[cur] is not None:
                before[(cur, int(m.group(1)))] = m.group(2).split()[1::2]
        none_nccl = coll in ("alltoall", "alltoallv", "sendrecv")
        if none_nccl != (forms.get("NCCL") is None):
            fail("%s --inplace: NCCL form %s" % (coll, forms.get("NCCL")))
        if coll == "reducescatter":
            nccl, mpi = forms.get("NCCL"), forms.get("MPI")
            for r in range(P):
                full = ["r0-r%d[%d]" % (P - 1, r * n + i) for i in range(n)]
                if not nccl or nccl[r][r * n:(r + 1) * n] != full:
                    fail("reducescatter NCCL in place: r%d %s" % (
                        r, nccl and nccl[r]))
                if not mpi or mpi[r][:n] != full or \
                        any(c != "?" for c in mpi[r][n:]):
                    fail("reducescatter MPI in place: r%d %s" % (
                        r, mpi and mpi[r]))
        if coll == "allgather":
            want = ["r%d[%d]" % (q, i) for q in range(P) for i in range(n)]
            for r in range(P):
                if forms["NCCL"].get(r) != want:
                    fail("allgather in place r%d: %s" % (r, forms["NCCL"]))
        if coll == "scatter":
            for r in range(P):
                got = forms["NCCL"].get(r)
                want = ["r%d[%d]" % (root, r * n + i) for i in range(n)]
                if r == root:
                    # the root's buffer keeps every block: its own in place
                    want = ["r%d[%d]" % (root, i) for i in range(P * n)]
                if got != want:
                    fail("scatter in place r%d: %s, want %s" % (r, got, want))
        if coll == "gather":
            for r in range(P):
                got = forms["NCCL"].get(r)
                want = ["r%d[%d]" % (r, i) for i in range(n)]
                if r == root:
                    want = ["r%d[%d]" % (q, i) for q in range(P)
                            for i in range(n)]
                if got != want:
                    fail("gather in place r%d: %s, want %s" % (r, got, want))
        if coll == "alltoallv":
            M = [[int(v) for v in ln.split()] for ln in
                 out.split("a gap of 1 after every block:\n")[1].splitlines()[:P]]
            sd, rd = layout(M, 1, P)
            for r in range(P):
                got = forms["MPI"].get(r) or []
                want = {}
                for s in range(P):
                    for i in range(M[s][r]):
                        want[rd[r][s] + i] = "r%d[%d]" % (s, sd[s][r] + i)
                    # a gap after each receive block keeps what it held
                    g = rd[r][s] + M[s][r]
                    b = before.get(("MPI", r), [])
                    want.setdefault(g, b[g] if g < len(b) else None)
                bad = [k for k, v in want.items()
                       if k >= len(got) or got[k] != v]
                if bad:
                    fail("alltoallv in place r%d: cell %d is %s, want %s" % (
                        r, bad[0], got[bad[0]] if bad[0] < len(got) else None,
                        want[bad[0]]))
        if coll == "sendrecv":
            for r in range(P):
                got = forms["MPI"].get(r)
                want = ["r%d[%d]" % ((r - 1) % P, i) for i in range(n)]
                if got != want:
                    fail("sendrecv MPI in place r%d: %s" % (r, got))


def main():
    svgdir = tempfile.mkdtemp() if shutil.which("xmllint") else None
    nrun = 0
    for coll, algos in PAIRS.items():
        for algo in algos:
            if algo == "rabenseifner" and coll != "allreduce":
                continue
            for P in (1, 2, 3, 4, 5, 8, 16):
                if algo in POW2 and P & (P - 1):
                    continue
                roots = [0]
                if coll in ("broadcast", "reduce", "gather", "scatter"):
                    roots = sorted({0, P // 2, P - 1})
                for root in roots:
                    for count in (None, 3):
                        pats = [None]
                        if coll == "alltoallv":
                            pats = ["uneven", "zerorows", "sparse"]
                        for pat in pats:
                            check_pair(coll, algo, P, root, count, pat,
                                       svgdir if P in (4, 8) and count is None
                                       and root == roots[-1] else None)
                            nrun += 1
    bad_input()
    inplace()
    if svgdir:
        shutil.rmtree(svgdir)
    print("%d explain --steps runs checked, %d failures" % (nrun, len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
