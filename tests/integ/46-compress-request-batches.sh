#!/bin/bash
# Batches of non-blocking requests whose length follows the rank's residue:
# tests/progs/reqbatch.c makes rank r write NBASE + NSTEP*(r % 3) blocks
# with MPI_File_write_at, as many with MPI_File_iwrite_at completed by one
# MPI_Waitall, and read them back with as many MPI_File_iread_at completed
# by one MPI_Waitall, in each of `rounds` rounds. The Waitall's array of
# request ids is one range of a length by residue, not an array per rank,
# so that the trace's values and structure (its per-rank times and timing
# histograms aside, which are bounded but follow the measured times) stay
# within 5% at 3, 6 and 12 ranks and at 2 and 8 rounds. Every Waitall of
# rank r completes the source's number of requests, and the trace holds
# the same events as an uncompressed one (siot diff). Only the MPI layers
# are recorded: below them Open MPI's OMPIO polls its POSIX aio requests
# with aio_error as many times as they take, a count that follows the
# machine's load (one busy run's structure grew 6%), not the ranks.
. "$(dirname "$0")/../lib.sh"
export SIOT_LAYERS=mpi,mpiio
build_traced reqbatch
SRC=$ROOT/tests/progs/reqbatch.c
# bytes of the file besides the rank times and the histograms (siot dump --sizes)
structure() {
    "$SIOT" dump --sizes "$1" > sizes.txt || fail "siot dump --sizes $1"
    local rt hist
    rt=$(sed -n 's/.*rank times \([0-9]*\) .*/\1/p' sizes.txt)
    hist=$(sed -n 's/.*(of which histograms \([0-9]*\) B.*/\1/p' sizes.txt)
    echo $(($(trace_size "$1") - rt - hist))
}
sizes=""
for run in 3x2 6x2 12x2 6x8; do
    P=${run%x*} R=${run#*x}
    rm -f reqbatch.dat
    SIOT_TRACE=$WORK/q$run.siot mpirun_np "$P" ./reqbatch "$R" > /dev/null || fail "reqbatch at $P ranks, $R rounds"
    sizes="$sizes $(structure "q$run.siot")"
done
echo "   reqbatch at P x rounds = 3x2 6x2 12x2 6x8:$sizes bytes besides rank times and histograms"
set -- $sizes
lo=$1 hi=$1
for s in "$@"; do
    lo=$((s < lo ? s : lo)) hi=$((s > hi ? s : hi))
done
[ $((hi * 100)) -le $((lo * 105)) ] || fail "sizes$sizes differ by more than 5%"
dump_has q12x2.siot 'MPI_Waitall\(count=\{rank%3:[0-9,]*\}, array_of_requests=range\(' ||
    { grep -m1 'MPI_Waitall' "$WORK/.dump.txt" >&2; fail "the request ids are not one range"; }
jsonl q12x2.siot > q12.jsonl
python3 - "$SRC" q12.jsonl 12 2 <<'PY' || fail "Waitall counts"
import json, re, sys
C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", open(sys.argv[1]).read())}
P, rounds = int(sys.argv[3]), int(sys.argv[4])
seen = {r: [] for r in range(P)}
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e["func"] == "MPI_Waitall":
        seen[e["rank"]].append((e["args"]["count"], len(e["args"]["array_of_requests"])))
for r in range(P):
    n = C["NBASE"] + C["NSTEP"] * (r % 3)
    if seen[r] != [(n, n)] * (2 * rounds):
        sys.exit("rank %d: Waitalls (count, ids) %s; the source makes %d of %d" % (r, seen[r], 2 * rounds, n))
PY
for P in 3 12; do
    rm -f reqbatch.dat
    SIOT_COMPRESS=0 SIOT_TRACE=$WORK/flat$P.siot mpirun_np $P ./reqbatch 2 > /dev/null || fail "reqbatch, flat"
    "$SIOT" diff q${P}x2.siot flat$P.siot > diff.txt || { cat diff.txt >&2; fail "the trace at $P ranks differs from the flat one"; }
done
pass "request batches: one range of request ids by residue, ${sizes# } bytes (3x2 6x2 12x2 6x8), lossless"
