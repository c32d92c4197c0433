"""check_halo.py SRC P TRACE

tests/progs/halo.c at P ranks: every rank's STEPS MPI_Waitall calls, read
back rank by rank through the Python reader, hold the statuses the source
gives: the receive from direction d (0 west, 1 east, 2 north, 3 south, on a
grid of COLS columns) has the neighbour's rank as its source, the tag the
neighbour sent with (10 + the opposite direction) and 8 bytes, or no bytes
where the neighbour is MPI_PROC_NULL; the sends' statuses carry no bytes."""
import re
import sys

import siotrace

src, P, path = open(sys.argv[1]).read(), int(sys.argv[2]), sys.argv[3]
C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", src)}
COLS, STEPS = C["COLS"], C["STEPS"]


def neighbour(r, d):
    row, col, rows = r // COLS, r % COLS, P // COLS
    if d == 0:
        return r - 1 if col > 0 else None
    if d == 1:
        return r + 1 if col < COLS - 1 else None
    if d == 2:
        return r - COLS if row > 0 else None
    return r + COLS if row < rows - 1 else None


errors = []
t = siotrace.open(path)
for r in range(P):
    calls = list(t.iter_events(ranks=[r], functions=["MPI_Waitall"]))
    if len(calls) != STEPS:
        errors.append("rank %d: %d MPI_Waitall, the source makes %d" % (r, len(calls), STEPS))
    for c in calls:
        st = c["args"]["array_of_statuses"]
        for d in range(4):
            nb = neighbour(r, d)
            want = (nb, 10 + (d ^ 1), 8) if nb is not None else None
            got = (st[d]["source"], st[d]["tag"], st[d]["bytes"])
            if (want and got != want) or (not want and got[2] != 0):
                errors.append("rank %d direction %d: status %s, the source gives %s" % (r, d, got, want))
        if any(s["bytes"] for s in st[4:]):
            errors.append("rank %d: a send's status with bytes: %s" % (r, st[4:]))
if errors:
    sys.exit("\n".join(errors[:10]))
print("   %d ranks x %d MPI_Waitall: every status the source's neighbour, tag and bytes" % (P, STEPS))
