#!/bin/bash
# The simulated merge uses the job's own merge: tests/progs/kernel.c run once
# per rank as a single process that plays rank r of 4 (SIOT_SIM_RANK,
# SIOT_SIM_SIZE, its trace kept by SIOT_RANK_TRACES), and the four traces
# merged by bench/simmerge.c over the job's reduction tree, hold the same
# MPI and MPI-IO events as a real 4-rank job's trace (siot diff --layers
# mpi,mpiio). Below MPI-IO they differ by design: MPI's own communicator is
# one process, so ROMIO's or OMPIO's collective open makes on every
# simulated rank the file-system calls of a job's rank 0 (docs/scale.md).
# A merge whose rank 3 is made from ranks 1 and 2 (bench/rerank.h) rather
# than recorded holds the same events, at every layer, as the recorded one.
# Independently of the tracer, every rank of the simulated trace writes
# NWRITES blocks of BLOCK bytes at (i*4 + rank)*BLOCK (the source's
# #defines), and MPI_Comm_rank and MPI_Comm_size answered the simulated
# rank and size.
. "$(dirname "$0")/../lib.sh"
build_traced kernel
SIM=$B/tests/tools/simmerge
[ -x "$SIM" ] || fail "$SIM is not built (make check-tests)"
P=4
mkdir real sim
(cd real && SIOT_TRACE=$WORK/real.siot mpirun_np $P ../kernel > /dev/null) || fail "the real $P-rank job"
for r in $(seq 0 $((P - 1))); do
    (cd sim && rm -f kernel.dat && SIOT_SIM_RANK=$r SIOT_SIM_SIZE=$P SIOT_RANK_TRACES=$WORK/ranks SIOT_TRACE=$WORK/alone$r.siot \
        mpirun_np 1 ../kernel > /dev/null) || fail "simulated rank $r"
done
[ "$(ls ranks | wc -l)" = $P ] || fail "ranks/ holds $(ls ranks | tr '\n' ' '), not $P rank traces"
"$SIM" -P $P -o sim.siot ranks > sim.txt || fail "simmerge exited $?"
"$SIOT" diff --layers mpi,mpiio real.siot sim.siot > diff.txt || { cat diff.txt >&2; fail "the simulated merge differs from the real job"; }
mkdir part && cp ranks/rank-00000[012].siot part/
"$SIM" -P $P -o made.siot part > made.txt || fail "simmerge with rank 3 made exited $?"
grep -q "($((P - 1)) recorded, 1 made from ranks 1 and 2)" made.txt || { cat made.txt >&2; fail "rank 3 was not made"; }
"$SIOT" diff sim.siot made.siot > diff3.txt || { cat diff3.txt >&2; fail "rank 3 made differs from rank 3 recorded"; }
"$SIOT" diff --layers mpi,mpiio real.siot made.siot > diff2.txt || { cat diff2.txt >&2; fail "the merge with rank 3 made differs"; }
jsonl sim.siot > sim.jsonl
python3 - "$ROOT/tests/progs/kernel.c" sim.jsonl $P <<'PY' || fail "the simulated ranks' values"
import json, re, sys
C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", open(sys.argv[1]).read())}
P = int(sys.argv[3])
offs = {r: [] for r in range(P)}
asked = {r: {} for r in range(P)}
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e["func"] == "MPI_File_write_at":
        offs[e["rank"]].append((e["args"]["offset"], e["bytes"]))
    elif e["func"] in ("MPI_Comm_rank", "MPI_Comm_size"):
        asked[e["rank"]][e["func"]] = list(e["args"].values())[-1]
for r in range(P):
    want = [((i * P + r) * C["BLOCK"], C["BLOCK"]) for i in range(C["NWRITES"])]
    if offs[r] != want:
        sys.exit("rank %d wrote %s, the source %s" % (r, offs[r], want))
    if asked[r] != {"MPI_Comm_rank": r, "MPI_Comm_size": P}:
        sys.exit("rank %d was told %s" % (r, asked[r]))
PY
pass "the kernel as $P simulated ranks merged by simmerge = the real $P-rank job at the MPI layers (siot diff), rank 3 made from ranks 1 and 2 = recorded at every layer; offsets (i*$P+rank)*BLOCK as in the source"
