#!/bin/bash
# A process grid's neighbours: examples/pop exchanges halos on a 2-D
# non-periodic Cartesian grid (MPI_Dims_create, MPI_Cart_shift), so a rank's
# west neighbour is rank-1, or MPI_PROC_NULL (recorded as -2, core/predef.h)
# in the first column, and its east one rank+1, or -2 in the last. At 9 and
# 16 ranks (grids of 3x3 and 4x4: MPI_Dims_create balances two dimensions)
# the job's trace keeps each as one value by residue mod the grid's width
# whose equal classes are one run (format minor 3: {rank%4:-2,-1+1*rank(x3)}),
# not one entry per column; written that way its size does not depend on
# the width. The north and south neighbours (-2 on the first or last row,
# rank-W or rank+W elsewhere) are two pieces of ranks, however the merge of
# ranks cut them. The traces hold the same events as uncompressed ones.
# A message to or from MPI_PROC_NULL moves no data: its bytes are 0; the
# others carry count x 8 (MPI_DOUBLE).
. "$(dirname "$0")/../lib.sh"
for P in 9 16; do
    W=$([ $P = 9 ] && echo 3 || echo 4)
    rm -f ./pop_*
    SIOT_TRACE=$WORK/g$P.siot mpirun_np $P "$B/examples/pop" -k 2 -g 32 -s 1 > /dev/null || fail "pop at $P ranks"
    "$SIOT" dump g$P.siot > g$P.txt || fail "siot dump g$P.siot"
    west="{rank%$W:-2,-1+1*rank(x$((W - 1)))}" east="{rank%$W:1+1*rank(x$((W - 1))),-2}"
    north="{r0-$((W - 1)):-2 r$W-$((P - 1)):-$W+1*rank}" south="{r0-$((P - W - 1)):$W+1*rank r$((P - W))-$((P - 1)):-2}"
    for v in "$west" "$east" "$north" "$south"; do
        n=$(grep -cF "dest=$v" g$P.txt || true)
        [ "$n" -ge 1 ] || { grep -m2 'MPI_Isend' g$P.txt >&2; fail "at $P ranks no MPI_Isend has dest=$v"; }
    done
    jsonl g$P.siot > g$P.jsonl
    python3 - g$P.jsonl <<'PY' || fail "at $P ranks: bytes of the halo messages"
import json, sys
n = {True: 0, False: 0}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["func"] in ("MPI_Isend", "MPI_Irecv"):
        a = e["args"]
        peer = a.get("dest", a.get("source"))
        want = 0 if peer == -2 else 8 * a["count"]
        if e["bytes"] != want:
            sys.exit(f"rank {e['rank']} {e['func']} peer {peer} count {a['count']}: bytes {e['bytes']}, want {want}")
        n[peer == -2] += 1
if not n[True] or not n[False]:
    sys.exit(f"messages to MPI_PROC_NULL {n[True]}, to ranks {n[False]}: both wanted")
PY
    rm -f ./pop_*
    SIOT_COMPRESS=0 SIOT_TRACE=$WORK/flat$P.siot mpirun_np $P "$B/examples/pop" -k 2 -g 32 -s 1 > /dev/null ||
        fail "pop at $P ranks, flat"
    "$SIOT" diff g$P.siot flat$P.siot > diff.txt || { head -5 diff.txt >&2; fail "the trace at $P ranks differs from the flat one"; }
done
# every neighbour by residue of the 4x4 grid reads as the 3x3 one's, the width aside
forms() { grep -oE '(dest|source)=\{rank%[0-9]*:[^}]*}' "$1" | sed 's/rank%[0-9]*:/rank%W:/; s/(x[0-9]*)/(xK)/g' | sort -u; }
forms g9.txt > f9.txt
forms g16.txt > f16.txt
grep -q -- '-2,-1+1\*rank(xK)' f16.txt || fail "no west neighbours among the values by residue"
comm -13 f9.txt f16.txt > extra.txt
[ ! -s extra.txt ] || { cat extra.txt >&2; fail "values by residue at 16 ranks that the 9-rank trace lacks"; }
pass "grid neighbours: west and east as one value by residue with runs ($(grep -c . f16.txt) forms), north and south as two pieces, at 3x3 and 4x4, lossless; no bytes to or from MPI_PROC_NULL"
