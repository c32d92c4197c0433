#!/bin/bash
# aio reads whose size the file's state at the moment of their transfer
# decides (tests/progs/aioshort.c, 2 ranks, a file each): a short aio_read
# that starts SHORT bytes before the end of the file, and one at LATER, past
# the end, queued behind an aio_write of HEAD bytes on the same descriptor,
# that the program awaits through its notification (no recorded call)
# before it writes there: 0 bytes in the run; a replay, which has no
# recorded wait to reissue, most likely writes first and reads R_BYTES. The size an
# aio_return of a read gives is compared by order (as the MPI-IO library's
# reads at the POSIX level): --verify at the POSIX and the default level is
# faithful and its verdict names the treatment with the number of aio
# reads the source makes. The run's trace holds the sizes the source says;
# the short read's size, which nothing else in flight can change, is the
# same in each replay's own trace.
. "$(dirname "$0")/../lib.sh"
build_traced aioshort
SRC=$ROOT/tests/progs/aioshort.c
d() { c_define "$1" "$SRC"; }
HEAD=$(d HEAD) R_BYTES=$(d R_BYTES) SHORT=$(d SHORT)
LATER=$((HEAD + $(d GAP)))
P=2
NREADS=$((P * 2))
for level in posix default; do
    ROUNDTRIP_LEVEL=$level roundtrip aioshort-$level $P "$WORK/aioshort"
    grep -q "^round trip: faithful (.*; the sizes of $NREADS aio reads (aio_return) compared by order, the moment their transfer ran decided them: [0-9]* differed; the replay's trace" aioshort-$level.report ||
        { cat aioshort-$level.report >&2; fail "$level: the verdict does not name the $NREADS aio reads compared by order"; }
    jsonl aioshort-$level.orig.siot > run-$level.jsonl
    jsonl root-aioshort-$level.siot > replay-$level.jsonl
done
size=$(stat -c %s orig-aioshort-posix/aioshort-0.dat)
[ "$size" = $((LATER + R_BYTES)) ] || fail "the run's file has $size bytes, the source writes up to $((LATER + R_BYTES))"
differed=""
for level in posix default; do
    d=$(PYTHONPATH="$ROOT/tests/py" python3 - "$P" "$HEAD" "$R_BYTES" "$SHORT" "$LATER" "$level" <<'PY'
import sys
from events import by_rank
P, HEAD, R_BYTES, SHORT, LATER = map(int, sys.argv[1:6])
level = sys.argv[6]
run, rep = by_rank("run-%s.jsonl" % level), by_rank("replay-%s.jsonl" % level)
differed = 0
for r in range(P):
    want = [(HEAD - SHORT, SHORT), (0, HEAD), (LATER, 0)]  # the short read, the aio_write, the read
    got = [(e["args"]["aiocbp"][1], e["ret"]) for e in run[r] if e["func"] in ("aio_return", "aio_return64")]
    if got != want:
        sys.exit("the run's trace, rank %d: aio_return (offset, size) %s, the source says %s" % (r, got, want))
    again = [(e["args"]["aiocbp"][1], e["ret"]) for e in rep[r] if e["func"] in ("aio_return", "aio_return64")]
    if len(again) != 3 or again[:2] != want[:2] or again[2] not in ((LATER, 0), (LATER, R_BYTES)):
        sys.exit("the %s replay's trace, rank %d: aio_return (offset, size) %s" % (level, r, again))
    differed += again[2] != want[2]
print(differed)
PY
    ) || fail "$level: the aio reads' sizes"
    differed="$differed $level $d of $P"
done
pass "short and later-written aio reads replayed at both levels: faithful, $NREADS aio reads compared by order (the later-written one differed at:$differed)"
