#!/bin/bash
# Buffered sends pending when their buffer is detached, then a buffer
# attached again (tests/progs/bsendpend.c, as MPICH's bsendpending): the
# replay attaches a buffer of the recorded size in each round and detaches
# it where the run did, so its Bsend, Ibsend and Bsend_init messages go out
# and the receiver's receives end (a replay once kept the first buffer
# attached, its second round's sends failed with MPI_ERR_BUFFER and the
# receiver waited for ever). Replayed with --verify at both levels, 2 and
# 3 ranks (a rank that takes no part): faithful, the same files. The
# trace's calls are checked against the program's source.
. "$(dirname "$0")/../lib.sh"
build_traced bsendpend
def() { c_define "$1" "$ROOT/tests/progs/bsendpend.c"; }
MSG=$((128 * 1024)) NMSG=$(def NMSG) NCOMM=$(def NCOMM)
for level in default posix; do
    for np in 2 3; do
        ROUNDTRIP_LEVEL=$level roundtrip bsend-$level-$np $np "$WORK/bsendpend"
    done
done
size=$(stat -c %s "orig-bsend-default-3/bsend-2.dat")
[ "$size" = $((NMSG * MSG)) ] || fail "the receiver kept $size bytes, the source sends $((NMSG * MSG))"
jsonl bsend-default-3.orig.siot > b.jsonl
PYTHONPATH="$ROOT/tests/py" python3 - "$NMSG" "$NCOMM" "$MSG" <<'PY' || fail "recorded buffered sends"
import sys
from events import by_rank
NMSG, NCOMM, MSG = map(int, sys.argv[1:])
ev = by_rank("b.jsonl")
f0 = [e["func"] for e in ev[0]]
for fn in ("MPI_Buffer_attach", "MPI_Buffer_detach", "MPI_Bsend", "MPI_Ibsend", "MPI_Bsend_init"):
    if f0.count(fn) != NCOMM:
        sys.exit("rank 0: %d %s, the source makes %d" % (f0.count(fn), fn, NCOMM))
att = [e["args"]["size"] for e in ev[0] if e["func"] == "MPI_Buffer_attach"]
det = [e["args"]["size"] for e in ev[0] if e["func"] == "MPI_Buffer_detach"]
if att != det or any(a < NMSG * MSG for a in att):
    sys.exit("attached %s, detached %s: each at least %d bytes" % (att, det, NMSG * MSG))
sends = [e["args"]["count"] for e in ev[0] if e["func"] in ("MPI_Bsend", "MPI_Ibsend", "MPI_Bsend_init")]
if sends != [MSG] * (3 * NCOMM):
    sys.exit("rank 0's buffered sends: %s" % sends)
recvs = [e for e in ev[2] if e["func"] == "MPI_Recv"]
if len(recvs) != NMSG * NCOMM or any(e["args"]["count"] != MSG for e in recvs):
    sys.exit("rank 2: %d receives, the source makes %d" % (len(recvs), NMSG * NCOMM))
if any(e["func"].startswith("MPI_B") or e["func"] == "MPI_Recv" for e in ev[1]):
    sys.exit("rank 1 takes no part, but its trace has %s" % sorted(set(e["func"] for e in ev[1])))
PY
pass "buffered sends pending at the detach, a buffer attached again: replayed faithfully at both levels (2 and 3 ranks)"
