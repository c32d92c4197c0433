"""mpierr.py: prints the tables of core/mpierr.c, the MPI error classes
each flavour's mpi.h defines with that flavour's number (run once when a
flavour's header changes; the C table is committed, so the readers need no
MPI installation).

usage: python3 tools/mpierr.py > /tmp/t.c, then paste the tables."""
import re
import subprocess


def classes(path):
    d = {}
    for line in open(path):
        m = re.match(r"#\s*define\s+(MPI_(?:T_)?ERR_[A-Z_]+|MPI_SUCCESS)\s+(\d+)\b", line)
        if m and m.group(1) != "MPI_ERR_LASTCODE":
            d[m.group(1)] = int(m.group(2))
    return d


mpich = classes("/usr/include/x86_64-linux-gnu/mpich/mpi.h")
inc = subprocess.check_output(["mpicc.openmpi", "-showme:incdirs"], text=True).split()[0]
ompi = classes(inc + "/mpi.h")
for flavour, d in (("mpich", mpich), ("openmpi", ompi)):
    print("static const mpi_class %s_CLASSES[] = {" % flavour.upper())
    line = "   "
    for n in sorted(d, key=lambda n: d[n]):
        t = ' {%d, "%s"},' % (d[n], n)
        if len(line) + len(t) > 110:
            print(line)
            line = "   "
        line += t
    print(line)
    print("};")
