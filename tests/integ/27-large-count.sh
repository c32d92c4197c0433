#!/bin/bash
# The MPI-4 large-count forms (MPI_File_write_at_c and the rest; MPICH 4 has
# them, Open MPI 4.1 does not): each call recorded with largecount.c's
# counts, offsets and bytes; the POSIX calls beneath the MPI-IO ones have
# them as parent and carry their bytes; the replay reissues them (same
# calls, same file).
. "$(dirname "$0")/../lib.sh"
printf '#include <mpi.h>\nint version = MPI_VERSION;\n' > version.c
$MPICC -E -P version.c | grep -Eq "version = [4-9]" ||
    skip "this MPI ($MPI) is older than MPI-4: no large-count functions"
build_traced largecount
P=3
SIOT_TRACE=lc.siot mpirun_np $P ./largecount || fail "largecount"
jsonl lc.siot > lc.jsonl
python3 - lc.jsonl $P <<'PY' || fail "large-count calls"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
P, N = int(sys.argv[2]), 1000  # N as largecount.c defines it
for r in range(P):
    mine = [e for e in ev if e["rank"] == r]
    by = {}
    for e in mine:
        by.setdefault(e["func"], []).append(e)
    want = {"MPI_File_write_at_c": r * N * 8, "MPI_File_write_at_all_c": (P + r) * N * 8, "MPI_File_read_at_all_c": r * N * 8}
    for f, off in want.items():
        got = by.get(f, [])
        if len(got) != 1 or got[0]["args"]["offset"] != off or got[0]["args"]["count"] != N or got[0]["bytes"] != N * 8:
            sys.exit("rank %d: %s %s, want one at offset %d of %d doubles" % (r, f, got, off, N))
    w = by["MPI_File_write_at_c"][0]
    kids = [e for e in mine if e["parent"] == w["seq"] and e["layer"] == "posix" and "write" in e["func"]]
    if sum(e["bytes"] for e in kids) != N * 8:
        sys.exit("rank %d: POSIX writes beneath MPI_File_write_at_c carry %d bytes" % (r, sum(e["bytes"] for e in kids)))
    ag = by.get("MPI_Allgatherv_c", [])
    if len(ag) != 1 or ag[0]["args"]["recvcounts"] != [1] * P or ag[0]["args"]["displs"] != list(range(P)):
        sys.exit("rank %d: MPI_Allgatherv_c %s" % (r, ag))
    tc = by.get("MPI_Type_contiguous_c", [])
    if len(tc) != 1 or tc[0]["args"]["count"] != 2 or ag[0]["args"]["sendtype"] != tc[0]["args"]["newtype"]:
        sys.exit("rank %d: MPI_Type_contiguous_c %s" % (r, tc))
print("   %d ranks: the _c calls with largecount.c's offsets and counts, POSIX children with their bytes" % P)
PY
roundtrip lc $P "$WORK/largecount"
pass "MPI-4 large-count calls recorded, parented and replayed"
