#!/bin/bash
# Values that follow the rank's residue: tests/progs/rankmod.c makes rank r
# write NBASE + NSTEP*(r % 3) blocks with MPI_File_write_at, as many with
# MPI_File_iwrite_at completed by one MPI_Waitall, then one collective
# write. The job's trace keeps those counts as three entries by residue
# (not one per pair of ranks: {rank%3:10,15,20}), so that its size, its per-rank times aside,
# stays within 5% from 6 to 12 ranks; each rank's MPI-IO call count in
# siot stats is the source's 2*(NBASE + NSTEP*(r % 3)) + 3; the trace holds
# the same events as an uncompressed one.
. "$(dirname "$0")/../lib.sh"
build_traced rankmod
SRC=$ROOT/tests/progs/rankmod.c
sizes=""
for P in 6 12; do
    rm -f rankmod.dat
    SIOT_TRACE=$WORK/r$P.siot mpirun_np $P ./rankmod > /dev/null || fail "rankmod at $P ranks"
    sizes="$sizes $(( $(trace_size r$P.siot) - $(py section_sizes.py r$P.siot 6) ))"
done
echo "   rankmod at P=6,12:$sizes bytes besides the per-rank times"
set -- $sizes
[ $(($2 * 100)) -le $(($1 * 105)) ] && [ $(($1 * 100)) -le $(($2 * 105)) ] || fail "sizes$sizes differ by more than 5%"
"$SIOT" dump r12.siot > r12.txt
grep -q '^\[r0-11\] loop x{rank%3:10,15,20} {' r12.txt ||
    { grep -m1 'loop x' r12.txt >&2; fail "the write count is not three entries by residue"; }
"$SIOT" stats --json r12.siot > r12.json
python3 - "$SRC" r12.json 12 <<'PY' || fail "per-rank MPI-IO calls"
import json, re, sys
C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", open(sys.argv[1]).read())}
ranks = json.load(open(sys.argv[2]))["ranks"]
for r in range(int(sys.argv[3])):
    want = 2 * (C["NBASE"] + C["NSTEP"] * (r % 3)) + 3
    if ranks[r]["calls"]["mpiio"] != want:
        sys.exit("rank %d: %d MPI-IO calls, the source makes %d" % (r, ranks[r]["calls"]["mpiio"], want))
PY
rm -f rankmod.dat
SIOT_COMPRESS=0 SIOT_TRACE=$WORK/flat.siot mpirun_np 6 ./rankmod > /dev/null || fail "rankmod, flat"
"$SIOT" diff r6.siot flat.siot > diff.txt || { cat diff.txt >&2; fail "the trace differs from the flat one"; }
pass "counts by residue: three entries at any rank count (${sizes# } bytes at 6 and 12 ranks), lossless"
