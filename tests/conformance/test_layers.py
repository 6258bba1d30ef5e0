#!/usr/bin/env python3
"""test_layers.py - conformance/'s folders in layers, checked.

Reads the layer table conformance/layers.txt (its header says the rules)
and checks every `#include "..."` and `#include <mpi.h>` of every source
file under conformance/ against it; with --objects (the harness's object
files) and --nm, also every call or reference from one object file to a
symbol another defines, and that no two object files use each other,
directly or round a longer circle. Each violation is one line naming the
file, what it uses and the rule it breaks; the exit status is 1 when
there is any, 0 when there is none, 2 on bad input (a malformed table, a
file that cannot be read).

    test_layers.py --root conformance [--objects O...] [--nm NM]
    test_layers.py --root conformance --self-test

--self-test copies the tree into a temporary folder, plants one
violation of each kind in the copy (an include up a layer, of a sibling,
between two backends, MPI outside its files, a cross-backend call and a
circle of calls in a made-up graph), and requires the check to name each,
and to pass the unplanted copy.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOURCES = ('.c', '.h', '.cc', '.cpp', '.cu', '.cuh')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)


class TableError(Exception):
    pass


def read_table(path):
    """The layer table: layer of each folder, extern prefixes, only-rules,
    MPI files."""
    t = {'layer': {}, 'extern': [], 'only': {}, 'mpi': []}
    depth = 0
    with open(path, encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            kind, args = words[0], words[1:]
            if not args:
                raise TableError(f'{path}:{no}: "{kind}" needs arguments')
            if kind == 'layer':
                for folder in args:
                    t['layer'][folder] = depth
                depth += 1
            elif kind == 'extern':
                t['extern'] += args
            elif kind == 'only':
                t['only'][args[0]] = args[1:]
            elif kind == 'mpi':
                t['mpi'] += args
            else:
                raise TableError(f'{path}:{no}: unknown line "{kind}"')
    if not t['layer']:
        raise TableError(f'{path}: no layer')
    return t


def folder_of(rel):
    """A file's folder for the rules: 'backends/<x>' inside a backend,
    else the first component ('' for a file at the top)."""
    parts = rel.split('/')
    if len(parts) < 2:
        return ''
    if parts[0] == 'backends' and len(parts) > 2:
        return 'backends/' + parts[1]
    return parts[0]


def top_of(folder):
    return folder.split('/')[0]


def is_extern(t, name):
    return any(name.startswith(p) if p.endswith('/') else name == p
               for p in t['extern'])


def use_rule(t, src, dst, call=False):
    """None when file src (path under conformance/) may use file dst
    (include it, or with call set, use a symbol defined in it), else the
    rule it breaks."""
    fs, fd = folder_of(src), folder_of(dst)
    if fs == fd:
        return None
    ts, td = top_of(fs), top_of(fd)
    if ts not in t['layer']:
        return f'folder "{fs}/" has no layer in layers.txt'
    if td not in t['layer']:
        return f'folder "{fd}/" has no layer in layers.txt'
    if fs in t['only'] and td not in t['only'][fs]:
        return (f'{fs}/ uses only {", ".join(t["only"][fs])} '
                f'(layers.txt "only")')
    if ts == td == 'backends':
        if fs != 'backends' and fd == 'backends':
            return (f'{fs}/ never uses backends/ itself (the registry '
                    f'and loader sit above every backend)')
        if fs != 'backends':
            return f'{fs}/ never uses {fd}/: backends are independent'
        x = fd.split('/')[1]
        if not call and os.path.basename(dst) != f'backend_{x}.h':
            return (f'backends/ reaches {fd}/ only through its entry '
                    f'header {fd}/backend_{x}.h')
        return None
    ls, ld = t['layer'][ts], t['layer'][td]
    if ls < ld:
        return None
    if ls == ld:
        return f'{ts}/ and {td}/ are siblings on one layer'
    return f'{td}/ is a higher layer than {ts}/ (an arrow up)'


def mpi_allowed(t, rel):
    return any(rel.startswith(p) if p.endswith('/') else rel == p
               for p in t['mpi'])


def source_files(root):
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCES):
                full = os.path.join(d, name)
                yield os.path.relpath(full, root).replace(os.sep, '/')


def check_includes(root, t):
    """(violations, number of includes checked)."""
    bad, n = [], 0
    for rel in source_files(root):
        if rel.startswith('include/'):
            continue  # the plugin ABI: extern to every layer
        with open(os.path.join(root, rel), encoding='utf-8',
                  errors='replace') as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            kind, name = m.groups()
            n += 1
            if name in ('mpi.h', 'csref/mpiref.h'):
                if not mpi_allowed(t, rel):
                    shown = f'<{name}>' if kind == '<' else f'"{name}"'
                    bad.append(f'{rel}: #include {shown}: MPI appears '
                               f'only in {" ".join(t["mpi"])} '
                               f'(layers.txt "mpi")')
                continue
            if kind == '<':
                continue
            if is_extern(t, name):
                if (folder_of(rel) in t['only'] and not any(
                        name.startswith(p) for p in
                        t['only'][folder_of(rel)] if p.endswith('/'))):
                    bad.append(f'{rel}: #include "{name}": '
                               f'{folder_of(rel)}/ uses only '
                               f'{", ".join(t["only"][folder_of(rel)])}')
                continue
            if not os.path.isfile(os.path.join(root, name)):
                bad.append(f'{rel}: #include "{name}": no such file under '
                           f'conformance/ (includes name the folder: '
                           f'"report/report.h") and not extern in '
                           f'layers.txt')
                continue
            why = use_rule(t, rel, name)
            if why:
                bad.append(f'{rel}: #include "{name}": {why}')
    return bad, n


def backend_file_sets(root):
    bad = []
    base = os.path.join(root, 'backends')
    if not os.path.isdir(base):
        return bad
    for x in sorted(os.listdir(base)):
        if not os.path.isdir(os.path.join(base, x)):
            continue
        have = set(os.listdir(os.path.join(base, x)))
        for want in (f'backend_{x}.h', f'backend_{x}_impl.h'):
            if want not in have:
                bad.append(f'backends/{x}/: no {want} (the fixed file set '
                           f'of a backend, layers.txt)')
        for stem in (f'backend_{x}', f'backend_{x}_coll'):
            if stem + '.c' not in have and stem + '.cc' not in have:
                bad.append(f'backends/{x}/: no {stem}.c (the fixed file '
                           f'set of a backend, layers.txt)')
    return bad


def object_graph(objects, nm):
    """{source path: set of source paths it uses}, from nm on the object
    files (named <target>.dir/<path>.o by CMake)."""
    defs, uses = {}, {}
    for obj in objects:
        m = re.search(r'\.dir/(.+)\.o(bj)?$', obj)
        if not m:
            raise TableError(f'{obj}: not a CMake object file path')
        src = m.group(1)
        out = subprocess.run([nm, '-P', obj], capture_output=True,
                             text=True, check=True).stdout
        uses[src] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) < 2:
                continue
            if f[1] == 'U':
                uses[src].add(f[0])
            elif f[1] in 'TDBRCV' or f[1] in 'W':
                defs[f[0]] = src
    return {s: {defs[x] for x in u if x in defs and defs[x] != s}
            for s, u in uses.items()}


def circles(graph):
    """The strongly connected components of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_calls(graph, t):
    bad, arrows = [], 0
    for src in sorted(graph):
        for dst in sorted(graph[src]):
            arrows += 1
            why = use_rule(t, src, dst, call=True)
            if why:
                bad.append(f'{src}: uses a symbol of {dst}: {why}')
    for c in circles(graph):
        bad.append(f'a circle of calls: {" <-> ".join(c)} (each uses '
                   f'another; split what makes it)')
    return bad, arrows


def run_check(root, objects, nm, quiet=False):
    t = read_table(os.path.join(root, 'layers.txt'))
    bad, n = check_includes(root, t)
    bad += backend_file_sets(root)
    arrows = 0
    if objects:
        more, arrows = check_calls(object_graph(objects, nm), t)
        bad += more
    if not quiet:
        for b in bad:
            print(b)
        print(f'{n} includes' + (f' and {arrows} arrows between object '
                                 f'files' if objects else '') +
              f' checked: {len(bad)} violation(s)')
    return bad


def self_test(root):
    """Plant each kind of violation in a copy; each must be named."""
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        def fresh():
            copy = os.path.join(tmp, 'conformance')
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(root, copy, ignore=shutil.ignore_patterns(
                'CMakeLists.txt', 'cmake'))
            return copy

        def plant(copy, rel, line):
            with open(os.path.join(copy, rel), 'a', encoding='utf-8') as f:
                f.write('\n' + line + '\n')

        if run_check(fresh(), None, None, quiet=True):
            print('self-test: the unplanted copy fails')
            fails += 1
        cases = [
            ('base/names.c', '#include "worker/worker.h"',
             'base/names.c: #include "worker/worker.h": worker/ is a '
             'higher layer'),
            ('report/report.c', '#include "check/check.h"',
             'report/report.c: #include "check/check.h": report/ and '
             'check/ are siblings'),
            ('backends/ref/backend_ref.c',
             '#include "backends/mpi/backend_mpi_impl.h"',
             'backends/ref/ never uses backends/mpi/'),
            ('backends/registry.c',
             '#include "backends/mpi/backend_mpi_impl.h"',
             'only through its entry header'),
            ('check/check.c', '#include <mpi.h>',
             'check/check.c: #include <mpi.h>: MPI appears only in'),
            ('model/model.c', '#include "suite/suite.h"',
             'model/ uses only'),
            ('suite/suite.c', '#include "suite/nowhere.h"',
             'no such file under conformance/'),
        ]
        for rel, line, want in cases:
            copy = fresh()
            plant(copy, rel, line)
            got = run_check(copy, None, None, quiet=True)
            if not any(want in g for g in got):
                print(f'self-test: planted {line} in {rel}: expected a '
                      f'violation containing "{want}", got {got}')
                fails += 1
        copy = fresh()
        os.remove(os.path.join(copy, 'backends/ref/backend_ref_impl.h'))
        if not any('no backend_ref_impl.h' in g
                   for g in backend_file_sets(copy)):
            print('self-test: a backend without its _impl.h passes')
            fails += 1
    t = read_table(os.path.join(root, 'layers.txt'))
    graph = {'base/a.c': {'suite/b.c'}, 'suite/b.c': {'base/a.c'},
             'backends/ref/x.c': {'backends/mpi/y.c'},
             'backends/mpi/y.c': set()}
    got, _ = check_calls(graph, t)
    for want in ('base/a.c: uses a symbol of suite/b.c: suite/ is a higher',
                 'a circle of calls: base/a.c <-> suite/b.c',
                 'backends/ref/ never uses backends/mpi/'):
        if not any(want in g for g in got):
            print(f'self-test: expected "{want}" from a made-up graph, '
                  f'got {got}')
            fails += 1
    print(f'self-test: {"failed" if fails else "passed"}')
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', required=True, help='the conformance/ folder')
    ap.add_argument('--objects', nargs='*', default=[],
                    help='the harness object files (CMake)')
    ap.add_argument('--nm', default='nm')
    ap.add_argument('--self-test', action='store_true')
    a = ap.parse_args()
    try:
        if a.self_test:
            return self_test(a.root)
        return 1 if run_check(a.root, a.objects, a.nm) else 0
    except (TableError, OSError, subprocess.CalledProcessError) as e:
        print(f'test_layers.py: {e}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
