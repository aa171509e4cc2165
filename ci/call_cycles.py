#!/usr/bin/env python3
"""ci/call_cycles.py [OBJDIR] [--data] [--edges]: the MPI shim's call cycles
between files, from its object files.

A file calls another when its object file has an undefined symbol the
other's object defines (nm). Prints the strongly connected components of
that graph with more than one file, largest first; a component is a set of
files each of which reaches every other one through calls, so none can be
understood, tested or replaced alone. --data counts references to global
data too; --edges lists the calls inside the largest component.

OBJDIR defaults to build/mpi_shim/CMakeFiles/weft_mpi_objs.dir. A tool for
reviewing the engine's layout (mpi_shim/engine/engine.h); ci/test does not
run it.
"""
import collections
import os
import subprocess
import sys

args = [a for a in sys.argv[1:] if not a.startswith('--')]
kinds = set('TDBR') if '--data' in sys.argv else {'T'}
objdir = args[0] if args else 'build/mpi_shim/CMakeFiles/weft_mpi_objs.dir'

def name(path):
    rel = os.path.relpath(path, objdir)
    return rel[:-len('.c.o')] if rel.endswith('.c.o') else rel

files, defs, undefs = [], {}, collections.defaultdict(set)
for root, _, names in os.walk(objdir):
    for n in names:
        if n.endswith('.o'):
            files.append(os.path.join(root, n))
if not files:
    sys.exit(f'call_cycles: no object files under {objdir}')
for path in files:
    out = subprocess.run(['nm', path], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == 'U':
            undefs[name(path)].add(f[1])
        elif len(f) == 3 and f[1] in kinds:
            defs[f[2]] = name(path)

nodes = sorted(name(p) for p in files)
calls = {a: sorted({defs[s] for s in undefs[a] if defs.get(s, a) != a})
         for a in nodes}

# Tarjan's strongly connected components, without recursion.
index, low, on_stack, stack, sccs = {}, {}, set(), [], []
for start in nodes:
    if start in index:
        continue
    work = [(start, iter(calls[start]))]
    index[start] = low[start] = len(index)
    stack.append(start)
    on_stack.add(start)
    while work:
        v, it = work[-1]
        for w in it:
            if w not in index:
                index[w] = low[w] = len(index)
                stack.append(w)
                on_stack.add(w)
                work.append((w, iter(calls[w])))
                break
            if w in on_stack:
                low[v] = min(low[v], index[w])
        else:
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                sccs.append(sorted(comp))

cycles = sorted((c for c in sccs if len(c) > 1), key=len, reverse=True)
print(f'files={len(nodes)} cycles={len(cycles)} '
      f'largest={len(cycles[0]) if cycles else 1}')
for c in cycles:
    print(len(c), ' '.join(c))
if '--edges' in sys.argv and cycles:
    big = set(cycles[0])
    for a in cycles[0]:
        for s in sorted(undefs[a]):
            b = defs.get(s)
            if b in big and b != a:
                print(f'  {a} -> {b}: {s}')
