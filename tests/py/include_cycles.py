"""include_cycles.py ROOT DIR...: include circles between the modules of
the given folders (paths relative to ROOT).

A module is a .c file and its .h counted as one (src/lock.c and
src/lock.h are one module, printed as its path without the suffix); a
header with no .c of its own is a module by itself. Module A depends on module B when a file of A includes
a file of B ("#include "src/lock.h""); an include of another folder's file
counts when that folder is given too. A circle is a strongly connected
component of two modules or more (Tarjan's algorithm): no module of it can
be read or changed without the others.

Prints one line per folder (its modules and dependencies) and one per
circle, its modules in order; exit status 1 when there is a circle."""
import os
import re
import sys

root = sys.argv[1]
dirs = [d.strip("/") for d in sys.argv[2:]]
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(path):
    return os.path.splitext(path)[0]


def graph():
    """modules of dirs -> the modules of dirs they include"""
    edges = {}
    for d in dirs:
        for f in sorted(os.listdir(os.path.join(root, d))):
            if not f.endswith((".c", ".h")):
                continue
            path = f"{d}/{f}"
            a = module_of(path)
            deps = edges.setdefault(a, set())
            for p in inc.findall(open(os.path.join(root, path), errors="replace").read()):
                if os.path.dirname(p) in dirs and module_of(p) != a:
                    deps.add(module_of(p))
    return edges


def components(edges):
    """Tarjan's strongly connected components, without recursion"""
    index, low, on, stack, out = {}, {}, set(), [], []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


edges = graph()
for d in dirs:
    mods = [m for m in edges if m.startswith(d + "/")]
    n = sum(len(edges[m]) for m in mods)
    print(f"include_cycles: {d}/: {len(mods)} modules, {n} dependencies")
circles = [c for c in components(edges) if len(c) > 1]
for c in circles:
    print(f"include_cycles: a circle of {len(c)} modules: {' '.join(c)}")
print(f"include_cycles: {len(circles)} circles")
sys.exit(1 if circles else 0)
