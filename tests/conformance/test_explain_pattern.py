#!/usr/bin/env python3
"""test_explain_pattern.py - `collspec explain --grid` and `--pattern`
(issue 21) against facts derived here, not read back from the code:

- grid: every rank's coordinates give back its rank as sum(coord *
  stride) with the strides computed here from the grid text (the last
  axis listed varies fastest), and every printed group is the set of
  ranks that agree with the rank on every other axis;
- pp: the printed 1F1B timeline holds each F j and B j once per stage,
  F j after F j of the stage before, B j after B j of the stage after,
  and its idle cells, counted here, make the bubble (p-1)/(m+p-1);
- tp_mlp, sp, tp_col: Megatron's f and g (Shoeybi et al. 2019; Korthikanti
  et al. 2022 for sp) as the papers give them;
- ring: rank r holds the chunks of the zig-zag split (the 2P chunks dealt
  to ranks 0..P-1 and back), the K, V of rank (r - i) mod P at step i, and
  the same causal work 2P;
- moe: capacity ceil(c_f k tau / E), at most C kept per (rank, expert),
  the kept ones the first C in (slot, token) order (the position rule),
  the dispatch counts the kept cells per destination;
- every --svg picture passes xmllint; bad input exits 2 with a message.
usage: test_explain_pattern.py COLLSPEC
"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

CS = sys.argv[1]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def run(*args, rc=0):
    p = subprocess.run([CS, "explain", *args], capture_output=True,
                       text=True)
    if p.returncode != rc:
        fails.append(f"explain {' '.join(args)}: exit {p.returncode}, "
                     f"expected {rc}: {p.stderr.strip()}")
    return p.stdout, p.stderr


def table(out):
    """(title, column headings, {row label: cells})."""
    lines = out.split("\n")
    title, head = lines[0], lines[2].split()
    rows = {}
    for ln in lines[3:]:
        if not ln.strip():
            break
        m = re.match(r"^(\S+(?: \d+)?)\s+(.*)$", ln)
        rows[m.group(1)] = m.group(2).split()
    return title, head, rows


def grid_case(spec, extra=()):
    out, _ = run("--grid", spec, *extra)
    title, head, rows = table(out)
    text = re.match(r"grid (\S+): (\d+) ranks", title)
    axes = [(m.group(1), int(m.group(2)))
            for m in re.finditer(r"([a-z]+)(\d+)", text.group(1))]
    n = len(axes)
    strides = [math.prod(s for _, s in axes[i + 1:]) for i in range(n)]
    world = math.prod(s for _, s in axes)
    check(int(text.group(2)) == world, f"{spec}: world")
    check(len(rows) == world, f"{spec}: {len(rows)} rows")
    coords = {}
    for r in range(world):
        cells = rows.get(f"rank {r}")
        c = [int(x) for x in cells[:n]]
        coords[r] = c
        check(sum(ci * si for ci, si in zip(c, strides)) == r,
              f"{spec}: rank {r} at {c}")
    for r in range(world):
        for i, (name, _) in enumerate(axes):
            want = [q for q in range(world) if all(
                coords[q][j] == coords[r][j] for j in range(n) if j != i)]
            got = [int(x) for x in rows[f"rank {r}"][n + i].split(",")]
            check(got == want, f"{spec}: rank {r} {name} group {got}, "
                  f"expected {want}")


def pp_case(P, M):
    out, _ = run("--pattern", "pp", "--ranks", str(P), "--micro-batches",
                 str(M))
    _, head, rows = table(out)
    T = len(head)
    at = {}
    idle = 0
    for s in range(P):
        cells = rows[f"stage {s}"]
        check(len(cells) == T, f"pp {P} {M}: stage {s} width")
        for t, c in enumerate(cells):
            if c == ".":
                idle += 1
            else:
                check(c not in at.get(s, {}), f"pp: stage {s} {c} twice")
                at.setdefault(s, {})[c] = t
    for s in range(P):
        check(len(at.get(s, {})) == 2 * M, f"pp {P} {M}: stage {s} ops")
        for j in range(M):
            if s > 0:
                check(at[s][f"F{j}"] > at[s - 1][f"F{j}"],
                      f"pp: F{j} on stage {s} before stage {s - 1}")
            if s < P - 1:
                check(at[s][f"B{j}"] > at[s + 1][f"B{j}"],
                      f"pp: B{j} on stage {s} before stage {s + 1}")
    want = (P - 1) / (M + P - 1)
    check(abs(idle / (P * T) - want) < 1e-12,
          f"pp {P} {M}: {idle} idle of {P}x{T}, bubble should be {want}")
    m = re.search(r"bubble: (\d+) idle of (\d+) x (\d+) slots = ([0-9.]+)",
                  out)
    check(m and int(m.group(1)) == idle and int(m.group(3)) == T and
          abs(float(m.group(4)) - want) < 1e-4, f"pp {P} {M}: bubble line")


def fg(out, name):
    m = re.search(rf"^{name}: forward (\S+), backward (\S+)$", out, re.M)
    return (m.group(1), m.group(2)) if m else None


def tp_cases():
    out, _ = run("--pattern", "tp_mlp")
    check(fg(out, "f") == ("identity", "allreduce-sum"), "tp_mlp f")
    check(fg(out, "g") == ("allreduce-sum", "identity"), "tp_mlp g")
    out, _ = run("--pattern", "sp", "--ranks", "4")
    check(fg(out, "f") == ("allgather", "reducescatter-sum"), "sp f")
    check(fg(out, "g") == ("reducescatter-sum", "allgather"), "sp g")
    out, _ = run("--pattern", "tp_col")
    check(fg(out, "in") == ("identity", "allreduce-sum"), "tp_col in")
    check(fg(out, "out") == ("allgather", "identity"), "tp_col out")


def ring_case(P):
    out, _ = run("--pattern", "ring", "--ranks", str(P))
    _, head, rows = table(out)
    deal = list(range(P)) + list(reversed(range(P)))  # chunk -> rank
    held = {r: sorted(c for c in range(2 * P) if deal[c] == r)
            for r in range(P)}
    for r in range(P):
        cells = rows[f"rank {r}"]
        check(sorted(int(x) for x in re.findall(r"\d+", cells[0])) ==
              held[r], f"ring {P}: rank {r} holds {cells[0]}")
        for i in range(P):
            got = sorted(int(x) for x in re.findall(r"\d+", cells[1 + i]))
            check(got == held[(r - i) % P],
                  f"ring {P}: rank {r} step {i} holds {cells[1 + i]}")
        check(float(cells[P + 1]) == 2 * P, f"ring {P}: rank {r} work")


def moe_case(P, variant):
    out, _ = run("--pattern", "moe", "--ranks", str(P), "--variant",
                 variant)
    title, head, rows = table(out)
    m = re.search(r"(\d+) tokens per rank, top-(\d+) of (\d+) experts "
                  r"\((\d+) per rank\), capacity (\d+)", title)
    tau, k, E, e, C = (int(x) for x in m.groups())
    cf = float(re.search(r"cf([0-9.]+)", variant).group(1))
    check(C == math.ceil(cf * k * tau / E), f"moe: capacity {C}")
    for s in range(P):
        cells = rows[f"rank {s}"]
        slots = cells[:tau * k]
        counts = [int(x) for x in cells[tau * k:]]
        per = {}
        for j, c in enumerate(slots):  # column j: token j // k, slot j % k
            x = re.match(r"e(\d+)(x?)$", c)
            per.setdefault(int(x.group(1)), []).append(
                ((j % k, j // k), x.group(2) != "x"))
        for ex, lst in per.items():
            lst.sort()
            kept = [kp for _, kp in lst]
            n = sum(kept)
            check(n == min(C, len(lst)), f"moe: rank {s} expert {ex} "
                  f"keeps {n} of {len(lst)} at capacity {C}")
            check(kept == [True] * n + [False] * (len(lst) - n),
                  f"moe: rank {s} expert {ex}: not the first {n}")
        for d in range(P):
            want = sum(sum(kp for _, kp in per.get(ex, []))
                       for ex in range(d * e, (d + 1) * e))
            check(counts[d] == want, f"moe: rank {s} to r{d} {counts[d]}")


def svgs():
    if not shutil.which("xmllint"):
        return
    d = tempfile.mkdtemp()
    for args in (["--grid", "pp2,dp2,tp2"], ["--pattern", "pp"],
                 ["--pattern", "tp_mlp"], ["--pattern", "sp"],
                 ["--pattern", "ring"], ["--pattern", "moe"]):
        f = os.path.join(d, "x.svg")
        run(*args, "--svg", f)
        p = subprocess.run(["xmllint", "--noout", f], capture_output=True,
                           text=True)
        check(p.returncode == 0, f"xmllint {args}: {p.stderr}")
    shutil.rmtree(d)


def bad_input():
    for args, msg in ((["--grid", "dp2,tp3", "--ranks", "8"], "6 ranks"),
                      (["--grid", "xx2"], "xx"),
                      (["--pattern", "zero1"], "pictures exist"),
                      (["--pattern", "pp", "--ranks", "0"], "--ranks"),
                      (["--pattern", "moe", "--variant", "no"], "variant"),
                      (["--grid", "dp2", "--pattern", "pp"], "one of"),
                      (["--pattern"], "needs a value")):
        _, err = run(*args, rc=2)
        check(msg in err, f"{args}: message '{err.strip()}' lacks '{msg}'")


for spec in ("pp2,dp2,tp2", "dp2,tp2,pp2", "ep4,dp2", "tp8", "dp3,cp2"):
    grid_case(spec)
grid_case("ulysses", ("--ranks", "8"))
grid_case("dp", ("--ranks", "6"))
for P, M in ((1, 1), (2, 3), (4, 8), (4, 2), (3, 7), (8, 8)):
    pp_case(P, M)
tp_cases()
for P in (1, 2, 4, 5):
    ring_case(P)
moe_case(4, "a2av-pos-cf1-z1")
moe_case(2, "a2av-pos-cf1.25-z4")
svgs()
bad_input()
for f in fails:
    print("FAIL:", f)
print(f"{len(fails)} failures")
sys.exit(1 if fails else 0)
