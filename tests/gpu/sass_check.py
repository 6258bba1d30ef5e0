#!/usr/bin/env python3
"""sass_check.py - what the sm_90 machine code of libcsgpu's kernels does,
read from the fat binary with cuobjdump (no GPU needed).

Checks, on `cuobjdump -sass` of the library:
  loads  the vector body of an op keeps several 16-byte vectors in flight:
         in the code of the 4-byte copy kernel (one source) and of the
         float32 SUM kernel (bodies for 1, 2 and 3 sources), some run of
         at least --min-loads 128-bit loads (LDG.E...128, or LD.E...128
         for generic addresses) is issued before any instruction uses a
         register one of them loads (or a branch, barrier or call ends the
         run);
  fadd   the float32 SUM kernel adds with FADD, and no FADD is .FTZ (the
         build flushes no subnormal: csgpu/fadd.h's argument needs it).
With --resources it also prints, from `cuobjdump --dump-resource-usage`,
registers per thread and stack bytes (spills and call frames) per kernel
family, the table of docs/gpu.md.

Exit status: 0 every check passed; 1 a check failed (the line says which
and what was found); 2 bad input (no such library, cuobjdump failed);
77 skipped: no CUDA build (--skip REASON), no sm_90 code in the library,
or no cuobjdump or no nvdisasm (which cuobjdump -sass runs) found
(searched: --cuobjdump/--nvdisasm, $CUOBJDUMP/$NVDISASM, PATH, beside
nvcc, the PyPI packages nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm in
python's paths).

    sass_check.py --lib build-cuda/gpu/libcsgpu.a [--resources]
    sass_check.py --self-test     (the run finder on made-up code)
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

SKIP = 77

# The kernels whose vector body is checked: (label, pattern on the
# demangled name of the kernel or of a device function of its body, the
# sources of the op bodies it holds).
TARGETS = [
    ("copy, 4-byte elements",
     re.compile(r"csg_lane_copy<4>|csg_copy_elems<4>\s*,\s*1>"),
     "1 source"),
    ("float32 sum",
     re.compile(r"csg_lane_reduce<\(cs_dtype(_t)?\)8, \(cs_op(_t)?\)0>|"
                r"csg_arith<\(cs_dtype(_t)?\)8, \(cs_op(_t)?\)0>\s*,"
                r"\s*2>"), "1 to 3 sources"),
]
FSUM = 1  # index of the float32 SUM target

LOAD128 = re.compile(r"^(LDG|LD)\.E(\.[A-Z0-9_]+)*\.128(\.|$)")
ENDS_RUN = re.compile(r"^(BRA|BRX|JMP|JMX|CALL|RET|EXIT|BAR|BSYNC|BSSY|"
                      r"WARPSYNC|YIELD|NANOSLEEP)\b")
STORES = re.compile(r"^(ST|STG|STS|STL|RED|MEMBAR|FENCE)\b")
REG = re.compile(r"\bR(\d+)(\.64)?")


def find_tool(name, given, env):
    """The executable `name` to use, or None: `given`, $env, PATH, beside
    nvcc, the PyPI package (nvidia-cuda-NAME) in python's paths."""
    cands = [given, os.environ.get(env), shutil.which(name)]
    nvcc = shutil.which("nvcc")
    if nvcc:
        cands.append(os.path.join(os.path.dirname(nvcc), name))
    for p in sys.path:
        cands += sorted(glob.glob(os.path.join(p, "nvidia", "cu*", "bin",
                                               name)))
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def run(cmd, path_dirs=()):
    """cmd's output; exit 2 when it fails. path_dirs go first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(list(path_dirs) + [env.get("PATH", "")])
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env)
    if r.returncode != 0:
        sys.stderr.write("sass_check: %s failed (exit %d): %s\n"
                         % (" ".join(cmd), r.returncode, r.stderr.strip()))
        sys.exit(2)
    return r.stdout


def demangle(names):
    """Demangled form of each name (the name itself without c++filt)."""
    filt = shutil.which("c++filt")
    if not filt or not names:
        return dict((n, n) for n in names)
    r = subprocess.run([filt], input="\n".join(names) + "\n",
                       stdout=subprocess.PIPE, universal_newlines=True)
    out = r.stdout.split("\n")
    return dict((n, out[i] if i < len(out) else n)
                for i, n in enumerate(names))


def functions(sass):
    """{mangled name: [instruction text, ...]} of a `cuobjdump -sass`."""
    funcs, cur = {}, None
    for line in sass.split("\n"):
        m = re.match(r"\s*Function\s*:\s*(\S+)", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if m and cur is not None:
            cur.append(m.group(1).strip())
    return funcs


def regs(text):
    """Register numbers named in an operand text (R2.64: R2 and R3)."""
    out = set()
    for m in REG.finditer(text):
        n = int(m.group(1))
        out.add(n)
        if m.group(2):
            out.add(n + 1)
    return out


def split(ins):
    """(opcode, destination operand text, source operand text)."""
    ins = re.sub(r"^@!?U?P[T0-9]+\s+", "", ins)
    parts = ins.split(None, 1)
    op = parts[0]
    ops = [o.strip() for o in parts[1].split(",")] if len(parts) > 1 else []
    if STORES.match(op) or not ops:
        return op, "", ",".join(ops)
    return op, ops[0], ",".join(ops[1:])


def longest_run(code):
    """The most 128-bit loads issued in one run before a use of any
    register they load (or a branch, barrier, call)."""
    best, count, pending = 0, 0, set()
    for ins in code:
        op, dst, src = split(ins)
        used = regs(src) | (regs(dst) if STORES.match(op) else set())
        if ENDS_RUN.match(op) or used & pending or regs(dst) & pending:
            best, count, pending = max(best, count), 0, set()
        if LOAD128.match(op):
            first = min(regs(dst)) if regs(dst) else None
            if first is not None:
                count += 1
                pending |= set(range(first, first + 4))
    return max(best, count)


def check_loads(funcs, names, min_loads):
    """One line per target; the number of failed targets."""
    bad = 0
    for label, pat, nsrc in TARGETS:
        hits = [f for f in funcs if pat.search(names[f])]
        runs = [(longest_run(funcs[f]), names[f]) for f in hits]
        if not runs:
            print("FAIL loads: %s: no function of it in the SASS" % label)
            bad += 1
            continue
        n, where = max(runs)
        ok = n >= min_loads
        bad += not ok
        print("%s loads: %s (%s): %d 128-bit loads in flight before "
              "their first use (at least %d wanted), in %s"
              % ("ok  " if ok else "FAIL", label, nsrc, n, min_loads,
                 where))
    return bad


def check_fadd(funcs, names):
    """FADD in the float32 SUM kernel, none with .FTZ: 0 or 1 failure."""
    label, pat, _ = TARGETS[FSUM]
    code = [i for f in funcs if pat.search(names[f]) for i in funcs[f]]
    ops = [split(i)[0] for i in code]
    fadd = [o for o in ops if re.match(r"FADD\b", o)]
    ftz = [o for o in fadd if ".FTZ" in o]
    ok = len(fadd) > 0 and not ftz
    print("%s fadd: %s: %d FADD, %d of them .FTZ"
          % ("ok  " if ok else "FAIL", label, len(fadd), len(ftz)))
    return 0 if ok else 1


def kernel_names(tool, lib, dirs):
    """Mangled names of every function with resources in lib."""
    out = run([tool, "--dump-resource-usage", lib], dirs)
    names = []
    for line in out.split("\n"):
        m = re.match(r"\s*Function\s+(\S+?):?\s*$", line)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return names


def family(name):
    """A kernel's family: its template name without arguments."""
    m = re.match(r"(?:void\s+)?([A-Za-z_][A-Za-z0-9_]*)", name)
    return m.group(1) if m else name


def resources(tool, lib, dirs):
    """Registers and stack per kernel family, one line each."""
    out = run([tool, "--dump-resource-usage", lib], dirs)
    rows, name = {}, None
    for line in out.split("\n"):
        m = re.match(r"\s*Function\s+(\S+?):?\s*$", line)
        if m:
            name = m.group(1)
            continue
        m = re.search(r"REG:(\d+)\s+STACK:(\d+)", line)
        if m and name:
            rows.setdefault(name, (int(m.group(1)), int(m.group(2))))
            name = None
    names = demangle(list(rows))
    fam = {}
    for n, (r, s) in rows.items():
        if not names[n].startswith("csg_") and \
                " csg_" not in names[n][:40]:
            continue
        f = family(names[n])
        fam.setdefault(f, []).append((r, s))
    print("%-24s %8s %14s %16s" % ("kernel family", "kernels",
                                   "registers", "stack bytes"))
    for f in sorted(fam):
        rs = [r for r, _ in fam[f]]
        ss = [s for _, s in fam[f]]
        print("%-24s %8d %14s %16s" % (
            f, len(rs), "%d..%d" % (min(rs), max(rs)),
            "%d..%d" % (min(ss), max(ss))))


def self_test():
    """The run finder on made-up code: 0 when it counts right."""
    code = ["LDG.E.128 R4, desc[UR4][R2.64]",
            "LDG.E.128.STRONG.GPU R8, desc[UR4][R2.64+0x2000]",
            "IADD3 R20, R21, 0x1, RZ",
            "LD.E.128 R12, [R22.64]",
            "LDG.E.EL.128 R16, desc[UR4][R2.64+0x4000]",
            "FADD R4, R4, R9",
            "LDG.E.128 R4, desc[UR4][R2.64]",
            "STG.E.128 desc[UR4][R6.64], R4"]
    want = [(code, 4), (code[:2] + ["BAR.SYNC.DEFER_BLOCKING 0x0"] +
                        code[3:5], 2),
            (["@!P0 LDG.E.128 R4, desc[UR4][R2.64]", "MOV R2, R7"], 1),
            (["LDG.E.64 R4, desc[UR4][R2.64]"], 0)]
    bad = 0
    for c, n in want:
        got = longest_run(c)
        if got != n:
            print("self-test: %d loads expected, %d counted in %s"
                  % (n, got, c))
            bad += 1
    print("self-test: %s" % ("ok" if not bad else "%d wrong" % bad))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", help="libcsgpu.a (or any object with the "
                    "kernels' fat binary)")
    ap.add_argument("--cuobjdump", help="the cuobjdump to run")
    ap.add_argument("--nvdisasm", help="the nvdisasm cuobjdump runs")
    ap.add_argument("--min-loads", type=int, default=4)
    ap.add_argument("--resources", action="store_true")
    ap.add_argument("--skip", metavar="REASON",
                    help="report SKIP with REASON and exit 77")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if a.skip:
        print("SKIP: %s" % a.skip)
        return SKIP
    if not a.lib:
        sys.stderr.write("sass_check: --lib is required\n")
        return 2
    if not os.path.isfile(a.lib):
        sys.stderr.write("sass_check: %s: no such file\n" % a.lib)
        return 2
    tool = find_tool("cuobjdump", a.cuobjdump, "CUOBJDUMP")
    disasm = find_tool("nvdisasm", a.nvdisasm, "NVDISASM")
    if not tool or not disasm:
        which = "cuobjdump" if not tool else "nvdisasm"
        print("SKIP: no %s (not on PATH, not beside nvcc, no "
              "nvidia-cuda-%s package in python's paths; pip install "
              "nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm, or set "
              "CUOBJDUMP and NVDISASM)" % (which, which))
        return SKIP
    dirs = [os.path.dirname(disasm)]
    # disassemble only the kernels checked (all 148: a minute and more)
    every = kernel_names(tool, a.lib, dirs)
    allnames = demangle(every)
    wanted = [n for n in every
              if any(t[1].search(allnames[n]) for t in TARGETS)]
    if not wanted:
        print("FAIL: none of the kernels checked is in %s (%d functions; "
              "renamed? TARGETS names them)" % (a.lib, len(every)))
        return 1
    sass = run([tool, "-sass", "-arch", "sm_90"] +
               [x for n in wanted for x in ("-fun", n)] + [a.lib], dirs)
    funcs = functions(sass)
    if not funcs:
        print("SKIP: no sm_90 code in %s (CMAKE_CUDA_ARCHITECTURES "
              "does not include 90)" % a.lib)
        return SKIP
    names = demangle(list(funcs))
    print("%s: %d kernels, %d disassembled (%s)"
          % (a.lib, len(every), len(funcs), tool))
    bad = check_loads(funcs, names, a.min_loads) + check_fadd(funcs, names)
    if a.resources:
        resources(tool, a.lib, dirs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
