"""module_circles.py ROOT FOLDER...: include circles between the modules of
each folder given.

A module is a .c file and the .h of the same name (a header without a .c is
a module of its own); module A includes B when one of A's files includes
one of B's. A circle means that no module of it can be read or changed
without the others (issue 44). Prints each folder's circles, as the sets of
modules that reach each other (strongly connected), and exits 1 when there
is one."""
import os
import re
import sys

root = sys.argv[1]
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def graph(folder):
    edges = {}
    for name in sorted(os.listdir(os.path.join(root, folder))):
        if not name.endswith((".c", ".h")):
            continue
        mod = folder + "/" + name[:-2]
        edges.setdefault(mod, set())
        for p in inc.findall(open(os.path.join(root, folder, name), errors="replace").read()):
            if p.startswith(folder + "/") and p[:-2] != mod:
                edges[mod].add(p[:-2])
    return edges


def circles(edges):
    """Tarjan's strongly connected components, iteratively; those of two
    modules or more."""
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
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


found = 0
for folder in sys.argv[2:]:
    edges = graph(folder)
    cs = circles(edges)
    found += len(cs)
    for c in cs:
        print(f"module circle in {folder}/: " + " <-> ".join(c))
    print(f"{folder}/: {len(edges)} modules, {sum(len(v) for v in edges.values())} includes between them, "
          f"{len(cs)} circles")
sys.exit(1 if found else 0)
