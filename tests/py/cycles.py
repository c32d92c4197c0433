"""cycles.py ROOT DIR...: the include circles between the modules of DIRs.

A module is a .c file and the .h of the same name (siot/dump.c and
siot/dump.h are one module): a .c including its own header is no edge, but
dump.c including stats.h while stats.c includes dump.h is a circle, which
means neither can be read or changed without the other.
Edges come from `#include "..."` lines written from the top of the tree
(the project's one include style); an include of a module outside DIRs is
followed no further, since only the named folders are checked. The strongly
connected components (Tarjan) of more than one module are printed one a
line; exit status 1 when there is one."""
import os
import re
import sys

root = sys.argv[1]
dirs = [d.rstrip("/") for d in sys.argv[2:]]
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module(path):
    return path[:-2] if path.endswith((".c", ".h")) else path


def graph():
    """module -> set of modules it includes, over the .c/.h files of dirs"""
    edges = {}
    for d in dirs:
        for f in sorted(os.listdir(os.path.join(root, d))):
            if not f.endswith((".c", ".h")):
                continue
            rel = d + "/" + f
            me = module(rel)
            out = edges.setdefault(me, set())
            text = open(os.path.join(root, rel), errors="replace").read()
            for p in inc.findall(text):
                dep = module(p)
                if dep != me and os.path.dirname(p) in dirs:
                    out.add(dep)
    return edges


def tarjan(edges):
    """the strongly connected components of edges, iteratively (no
    recursion limit on a long chain of includes)"""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
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
                comps.append(sorted(comp))
    return comps


edges = graph()
circles = [c for c in tarjan(edges) if len(c) > 1]
for c in sorted(circles):
    print(f"cycles: {len(c)} modules include each other: {' <-> '.join(c)}")
print(f"cycles: {len(edges)} modules, {sum(len(v) for v in edges.values())} "
      f"include edges, {len(circles)} circles in {' '.join(dirs)}")
sys.exit(1 if circles else 0)
