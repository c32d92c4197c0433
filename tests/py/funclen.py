"""funclen.py LIMIT DIR...: the C functions of DIRs longer than LIMIT lines
(from the line of their name to their closing brace), longest first; exit
status 1 when there is one."""
import os
import re
import sys

limit = int(sys.argv[1])
start = re.compile(r"^(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w\s\*]*?\b(\w+)\s*\([^;]*$")
long = []
for d in sys.argv[2:]:
    for f in sorted(os.listdir(d)):
        if not f.endswith(".c"):
            continue
        path = os.path.join(d, f)
        lines = open(path, errors="replace").read().split("\n")
        i = 0
        while i < len(lines):
            m = start.match(lines[i])
            if m and not lines[i].startswith((" ", "\t", "#", "}")):
                # the body opens on this line or a following one, at column 0
                j = i
                while j < len(lines) and not lines[j].startswith("{") and not lines[j].rstrip().endswith(";"):
                    j += 1
                if j < len(lines) and lines[j].startswith("{"):
                    k = j + 1
                    while k < len(lines) and not lines[k].startswith("}"):
                        k += 1
                    n = k - i + 1
                    if n > limit:
                        long.append((n, path, i + 1, m.group(1)))
                    i = k
            i += 1
for n, path, line, name in sorted(long, reverse=True):
    print(f"{path}:{line}: {name} is {n} lines (more than {limit})")
print(f"funclen: {len(long)} functions over {limit} lines in {' '.join(sys.argv[2:])}")
sys.exit(1 if long else 0)
