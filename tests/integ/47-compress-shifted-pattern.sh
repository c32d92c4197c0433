#!/bin/bash
# A record variable written in pieces as PnetCDF writes one for IOR's NCMPI
# backend (tests/progs/records.c): the folded loop's offsets are a pattern by
# piece that moves on by a record per outer iteration. With 16 and 256
# records the trace files differ in size by at most 5%; every transfer's
# offset is the program's HEADER + s*record + rank*block + p*XFER, in order;
# the replay of the 256-record trace is faithful and writes the same file.
. "$(dirname "$0")/../lib.sh"
build_traced records
NP=2
# from tests/progs/records.c
HEADER=16896 PIECES=4 XFER=16384
sizes=""
for n in 16 256; do
    rm -f records.dat
    SIOT_TRACE=$PWD/r$n.siot mpirun_np $NP ./records $n > /dev/null || fail "records $n"
    sizes="$sizes $(trace_size r$n.siot)"
done
read -r s16 s256 <<< "$sizes"
echo "   trace sizes for 16 and 256 records:$sizes bytes"
[ $((s256 * 100)) -le $((s16 * 105)) ] || fail "sizes$sizes: the trace grows with the number of records"

jsonl r256.siot > r256.jsonl
python3 - r256.jsonl $NP 256 $HEADER $PIECES $XFER <<'EOF' || fail "the transfers' offsets are not the program's"
import json, sys
path, np, nseg, header, pieces, xfer = sys.argv[1], *map(int, sys.argv[2:])
block = pieces * xfer
record = block * np
got = {(f, r): [] for f in ("MPI_File_write_at_all", "MPI_File_read_at_all") for r in range(np)}
counts = 0
for line in open(path):
    e = json.loads(line)
    if e["func"] == "MPI_File_write_at" and e["rank"] == 0 and e["args"]["offset"] == 4:
        counts += 1
    k = (e["func"], e["rank"])
    if k in got:
        got[k].append((e["args"]["offset"], e["bytes"]))
for (f, r), offs in got.items():
    want = [(header + s * record + r * block + p * xfer, xfer) for s in range(nseg) for p in range(pieces)]
    if offs != want:
        bad = next(i for i in range(min(len(offs), len(want))) if offs[i] != want[i]) if len(offs) == len(want) else None
        sys.exit(f"{f} rank {r}: {len(offs)} calls (want {len(want)}), first difference at {bad}")
if counts != nseg:
    sys.exit(f"{counts} record-count updates, want {nseg}")
EOF
echo "   $((NP * 256 * PIECES)) collective writes and as many reads at the program's offsets, 256 record-count updates"

roundtrip records $NP "$WORK/records" 256
pass "a piecewise pattern moving on with the outer loop folds: ${s16}..${s256} bytes for 16..256 records"
