"""layout.py ROOT: the architecture as the folders show it.

- Every #include of the project's own headers is written from the top of
  the tree ("core/format.h"), and names a file that exists.
- The folder-level include graph is printed and must have no cycle.
- Comments and documents that name a file of the tree (src/..., docs/...)
  name one that exists.
- The README's layout table names every top-level folder, and only those.
Exit status 1 with what is wrong."""
import os
import re
import subprocess
import sys

root = sys.argv[1]
os.chdir(root)
files = subprocess.check_output(["git", "ls-files"]).decode().split()
files += subprocess.check_output(["git", "ls-files", "--others", "--exclude-standard"]).decode().split()
files = sorted(set(f for f in files if os.path.exists(f)))
code = [f for f in files if f.endswith((".c", ".h"))]
folders = {"core", "compress", "src", "wrap", "pmpi", "replay", "siot", "tools", "tests", "bench", "examples"}
problems = []
edges = {}
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for f in code:
    top = f.split("/")[0]
    for p in inc.findall(open(f, errors="replace").read()):
        if p.startswith("gen/") or p == "functab.h":
            continue  # generated into build/<flavour>/gen
        if "/" not in p or p.startswith("."):
            problems.append(f"{f}: #include \"{p}\" is not written from the top of the tree")
            continue
        if not os.path.exists(p):
            problems.append(f"{f}: #include \"{p}\": no such file")
            continue
        dep = p.split("/")[0]
        if top in folders and dep != top:
            edges.setdefault(top, set()).add(dep)

print("folder include graph (A -> B: A includes B's headers):")
for a in sorted(edges):
    print(f"  {a:9s} -> {' '.join(sorted(edges[a]))}")


def cycle():
    state = {}
    path = []

    def visit(n):
        state[n] = 1
        path.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return path[path.index(m):] + [m]
            if not state.get(m):
                c = visit(m)
                if c:
                    return c
        path.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if not state.get(n):
            c = visit(n)
            if c:
                return c
    return None


c = cycle()
if c:
    problems.append("the folders include each other in a circle: " + " -> ".join(c))

ref = re.compile(r"(?<![\w/.-])((?:core|compress|src|wrap|pmpi|replay|siot|tools|tests|docs|spec|bench|examples|man)/[\w.-]+(?:/[\w.-]+)*)")
texts = code + [f for f in files if f.endswith((".md", ".sh", ".py", ".mk", ".spec", ".f90")) or f == "Makefile"]
for f in texts:
    for n, line in enumerate(open(f, errors="replace"), 1):
        for p in ref.findall(line):
            p = p.rstrip(".,:;)")
            if "*" in line[line.find(p):line.find(p) + len(p) + 1] or "%" in p or "$" in p:
                continue
            if not os.path.exists(p) and not os.path.exists(p.rstrip("/")):
                problems.append(f"{f}:{n}: names {p}, which does not exist")
# the README's layout table names every top-level folder, and only those
readme = open("README.md").read()
table = readme[readme.index("## Layout"):]
table = table[:table.index("\n## ", 4)]
named = set(re.findall(r"^\| `([\w.-]+)/`", table, re.M))
tree = set(f.split("/")[0] for f in files if "/" in f and not f.startswith("."))
for d in sorted(tree - named):
    problems.append(f"README.md: the layout table does not name {d}/")
for d in sorted(named - tree):
    problems.append(f"README.md: the layout table names {d}/, which is not in the tree")
for p in problems:
    print("layout: " + p)
print(f"layout: {len(code)} source files, {sum(len(v) for v in edges.values())} folder edges, {len(problems)} problems")
sys.exit(1 if problems else 0)
