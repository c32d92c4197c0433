"""Holds the spec against what the installed libraries export.

usage: api_coverage.py LIST NOT_TRACED LAYER:LIBRARY:REGEX... [--fortran LIB FORT_C]

LIST: `siot-gen --list` of the spec (LAYER NAME [CONDITION]). NOT_TRACED:
spec/not-traced.txt (LAYER PATTERN REASON). Each LAYER:LIBRARY:REGEX names
the exported functions (nm -D, T/W) of LIBRARY matching REGEX that belong to
LAYER; MPI_File_* names of the mpi layer count as mpiio. Every such name
must be traced or excluded; every exclusion line must match something and
give a reason. --fortran LIB FORT_C: every traced MPI function whose Fortran
binding LIB exports (name_ in lower case) has a wrapper in the generated
FORT_C, or a stated reason there why not. Prints each uncovered name and
exits 1 if there is any."""
import fnmatch
import re
import subprocess
import sys


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TW":
            names.add(f[2].split("@")[0])
    return names


def read_exclusions(path):
    rules, bad = [], []
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        f = line.split(None, 2)
        if len(f) < 3 or len(f[2]) < 10:
            bad.append("%s:%d: LAYER PATTERN REASON, with a reason" % (path, n))
            continue
        rules.append((f[0], f[1], n))
    return rules, bad


def main(argv):
    fort = None
    if "--fortran" in argv:
        i = argv.index("--fortran")
        fort = argv[i + 1:i + 3]
        argv = argv[:i]
    listing, excl_path, libs = argv[0], argv[1], argv[2:]
    traced = {}
    for line in open(listing):
        f = line.split()
        traced[f[1]] = f[0]
    rules, problems = read_exclusions(excl_path)
    used = set()
    checked = 0
    for spec in libs:
        layer, lib, regex = spec.split(":", 2)
        for name in sorted(exported(lib)):
            if not re.fullmatch(regex, name):
                continue
            lay = "mpiio" if layer == "mpi" and name.startswith("MPI_File_") else layer
            checked += 1
            if name in traced:
                continue
            hit = [r for r in rules if r[0] == lay and fnmatch.fnmatchcase(name, r[1])]
            if hit:
                used.update(r[2] for r in hit)
            else:
                problems.append("%s %s (%s): neither traced nor excluded" % (lay, name, lib))
    for lay, pat, n in rules:
        if n not in used and any(lay == s.split(":")[0] or (lay == "mpiio" and s.startswith("mpi:")) for s in libs):
            problems.append("%s:%d: %s %s matches nothing exported" % (excl_path, n, lay, pat))
    if fort:
        fnames = exported(fort[0])
        code = open(fort[1]).read()
        for name, lay in traced.items():
            if lay not in ("mpi", "mpiio") or name.lower() + "_" not in fnames:
                continue
            if ("void %s_(" % name.lower()) not in code and ("/* %s: no Fortran wrapper (" % name) not in code:
                problems.append("%s: Fortran binding %s_ exported, no wrapper and no reason" % (name, name.lower()))
    for p in problems:
        print(p)
    print("%d exported functions checked, %d traced in the spec, %d problems" % (checked, len(traced), len(problems)))
    return 1 if problems else 0


sys.exit(main(sys.argv[1:]))
