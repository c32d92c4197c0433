"""Holds the spec against what the installed libraries export.

usage: api_coverage.py LIST NOT_TRACED SELECTION... [--fortran LIB FORT_C]

LIST: `siot-gen --list` of the spec (LAYER NAME [CONDITION]). NOT_TRACED:
spec/not-traced.txt (LAYER PATTERN REASON). A SELECTION names exported
functions (nm -D, T/W; of versioned symbols only the default versions, which
a program links against) that belong to a layer: LAYER:LIBRARY:REGEX, those
of LIBRARY matching REGEX; or LIBRARY:@FILE, those matching the fnmatch
patterns of FILE's lines `LAYER PATTERN...` (tests/glibc-io.txt). MPI_File_*
names of the mpi layer count as mpiio. Every such name
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
    """The functions a program can link against: unversioned or default
    versions (NAME@@V), not compatibility ones (NAME@V, for binaries linked
    long ago) nor GLIBC_PRIVATE ones (for glibc's own libraries)."""
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) != 3 or f[1] not in "TW":
            continue
        name, _, version = f[2].partition("@")
        if version and (not version.startswith("@") or version == "@GLIBC_PRIVATE"):
            continue
        names.add(name)
    return names


def selection(spec):
    """[(layer, name, lib)] of one SELECTION argument."""
    if ":@" in spec:
        lib, path = spec.split(":@", 1)
        pats = {}
        for line in open(path):
            f = line.split()
            if f and not f[0].startswith("#"):
                pats.setdefault(f[0], []).extend(f[1:])
        names = exported(lib)
        return [(lay, n, lib) for lay, ps in pats.items() for n in sorted(names)
                if any(fnmatch.fnmatchcase(n, p) for p in ps)]
    layer, lib, regex = spec.split(":", 2)
    return [("mpiio" if layer == "mpi" and n.startswith("MPI_File_") else layer, n, lib)
            for n in sorted(exported(lib)) if re.fullmatch(regex, n)]


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
    layers = set()
    for spec in libs:
        for lay, name, lib in selection(spec):
            layers.add(lay)
            checked += 1
            if name in traced:
                continue
            hit = [r for r in rules if r[0] == lay and fnmatch.fnmatchcase(name, r[1])]
            if hit:
                used.update(r[2] for r in hit)
            else:
                problems.append("%s %s (%s): neither traced nor excluded" % (lay, name, lib))
    for lay, pat, n in rules:
        if n not in used and lay in layers:
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
