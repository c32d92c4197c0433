#!/bin/bash
# slots: 16
# Arrays whose elements are per-rank values fold by the rank like single
# values (compress/rankfold.h): tests/progs/halo.c on a grid of COLS
# columns, at 4, 8 and 16 ranks. Each step's MPI_Waitall keeps 8 statuses
# whose sources are the neighbours' ranks (a value of the rank's column
# and row, element by element), and rank 0's MPI_Gatherv takes counts and
# displacements as long as the job (COUNT each, COUNT*r). The trace's
# bytes besides the rank times and the timing histograms are the same at
# 8 and 16 ranks (within the few bytes of the counts' varints; 4 ranks,
# two rows, have no middle row, and their values other forms), the
# Gatherv's arrays are ranges of the job's length, and every rank's
# statuses are its neighbours' ranks, tags and bytes by the source's
# formulas (read back through the Python reader, rank by rank).
. "$(dirname "$0")/../lib.sh"
build_traced halo
SRC=$ROOT/tests/progs/halo.c
def() { c_define "$1" "$SRC"; }
COUNT=$(def COUNT)
[ -n "$COUNT" ] && [ -n "$(def COLS)" ] || fail "cannot read COLS and COUNT from $SRC"
export SIOT_LAYERS=mpi
# bytes of the file besides the rank times and the histograms (siot dump --sizes)
structure() {
    "$SIOT" dump --sizes "$1" > sizes.txt || fail "siot dump --sizes $1"
    local rt hist
    rt=$(sed -n 's/.*rank times \([0-9]*\) .*/\1/p' sizes.txt)
    hist=$(sed -n 's/.*(of which histograms \([0-9]*\) B.*/\1/p' sizes.txt)
    echo $(($(trace_size "$1") - ${rt:-0} - hist))
}
sizes=""
for P in 4 8 16; do
    SIOT_PACK=0 SIOT_TRACE=$WORK/h$P.siot mpirun_np $P ./halo > /dev/null || fail "halo at $P ranks"
    "$SIOT" dump h$P.siot > h$P.dump || fail "siot dump h$P.siot"
    grep -q "recvcounts={r0:range($P; $COUNT,0) r1-$((P - 1)):-}, displs={r0:range($P; 0,$COUNT) r1-$((P - 1)):-}" h$P.dump ||
        fail "$P ranks: the Gatherv's arrays are not ranges: $(grep -o 'recvcounts=.*recvtype' h$P.dump | cut -c1-300)"
    sizes="$sizes $(structure h$P.siot)"
done
set -- $sizes
echo "   halo at 4, 8 and 16 ranks: $1, $2 and $3 bytes besides rank times and histograms"
[ $(($3 - $2)) -le 4 ] && [ $(($2 - $3)) -le 4 ] || fail "the trace grew from $2 to $3 bytes besides rank times and histograms"
PYTHONPATH=$ROOT/build/python SIOT_LIBSIOT=$B/lib/libsiot.so py check_halo.py "$SRC" 16 h16.siot ||
    fail "the Waitall's statuses are not the neighbours' of the source"
pass "statuses and Gatherv arrays fold by the rank: $2 and $3 B at 8 and 16 ranks"
