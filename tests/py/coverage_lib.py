"""Holds one layer of the spec against one installed library.

usage: coverage_lib.py [--gen SIOT_GEN] LAYER LIBRARY REGEX NOT_TRACED SPEC...

Every function LIBRARY exports (nm -D --defined-only, T/W) whose name fully
matches REGEX must be traced in the SPEC files (as `siot-gen --list` expands
them, families included) or excluded by a LAYER line of NOT_TRACED
(LAYER PATTERN REASON, PATTERN an fnmatch glob). A LAYER exclusion that
matches nothing LIBRARY exports is stale. Prints each problem and exits 1 if
there is any. SIOT_GEN defaults to build/mpich/tools/siot-gen of the
repository."""
import fnmatch
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def exported(lib, regex):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TW":
            name = f[2].split("@")[0]
            if re.fullmatch(regex, name):
                names.add(name)
    return names


def traced_names(gen, layer, specs):
    out = subprocess.run([gen, "--list"] + specs, capture_output=True, text=True, check=True).stdout
    return {f[1] for f in (l.split() for l in out.splitlines()) if f and f[0] == layer}


def exclusions(path, layer):
    rules, bad = [], []
    for n, line in enumerate(open(path), 1):
        f = line.strip().split(None, 2)
        if not f or f[0].startswith("#") or f[0] != layer:
            continue
        if len(f) < 3 or len(f[2]) < 10:
            bad.append("%s:%d: LAYER PATTERN REASON, with a reason" % (path, n))
        else:
            rules.append((f[1], n))
    return rules, bad


def main(argv):
    gen = os.path.join(ROOT, "build/mpich/tools/siot-gen")
    if argv[:1] == ["--gen"]:
        gen, argv = argv[1], argv[2:]
    if len(argv) < 5:
        sys.exit(__doc__)
    layer, lib, regex, excl, specs = argv[0], argv[1], argv[2], argv[3], argv[4:]
    names = exported(lib, regex)
    traced = traced_names(gen, layer, specs)
    rules, problems = exclusions(excl, layer)
    used = set()
    for name in sorted(names - traced):
        hit = [n for pat, n in rules if fnmatch.fnmatchcase(name, pat)]
        used.update(hit)
        if not hit:
            problems.append("%s %s (%s): neither traced nor excluded" % (layer, name, lib))
    for name in sorted(traced & names):
        used.update(n for pat, n in rules if fnmatch.fnmatchcase(name, pat))
    problems += ["%s:%d: %s %s matches nothing %s exports" % (excl, n, layer, pat, lib)
                 for pat, n in rules if n not in used]
    for p in problems:
        print(p)
    print("%s: %d exported functions of %s, %d traced, %d excluded, %d problems" % (
        layer, len(names), os.path.basename(lib), len(traced & names), len(names - traced), len(problems)))
    return 1 if problems else 0


sys.exit(main(sys.argv[1:]))
