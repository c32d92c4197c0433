#!/bin/bash
# ioreplay names an event by one number everywhere: the rank's seq as `siot
# dump --jsonl` prints it (every event of the rank, from 0). tests/progs/
# evnum.c makes, on each of 2 ranks, a socket with mknod (which a replay
# does not reissue) and then a pwrite cut short by a file-size limit (which
# a replay, without the limit, writes whole); its source numbers them
# SEQ_MKNOD and SEQ_PWRITE. `ioreplay --verify --explain` exits 1, and:
# the original's dump holds mknod at SEQ_MKNOD and the short pwrite at
# SEQ_PWRITE; --explain names rank r's event SEQ_MKNOD mknod (not reissued)
# and event SEQ_PWRITE pwrite (both results); --verify names the same
# SEQ_PWRITE as the event that differs, with both results, and as the
# second trace's number SEQ_PWRITE - 1 (the replay made no mknod), where the
# replay's own trace holds its whole pwrite. --verify once counted only the
# events it compared, leaving out the mknod: event SEQ_PWRITE - 1.
. "$(dirname "$0")/../lib.sh"
build_traced evnum
SRC=$ROOT/tests/progs/evnum.c
SEQ_MKNOD=$(c_define SEQ_MKNOD "$SRC")
SEQ_PWRITE=$(c_define SEQ_PWRITE "$SRC")
SHORT=$(($(c_define LIMIT "$SRC") - $(c_define OFFSET "$SRC")))
COUNT=$(c_define COUNT "$SRC")
P=2
mkdir -p orig && (cd orig && SIOT_TRACE=$WORK/ev.siot mpirun_np $P "$WORK/evnum") || fail "the traced run"
# the original's dump: the source's numbers
check_dump() { # TRACE SEQ FUNC RET: every rank's event SEQ is FUNC returning RET
    jsonl "$1" | python3 -c '
import json, sys
seq, func, ret, P = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ev = {(e["rank"], e["seq"]): e for e in map(json.loads, sys.stdin)}
for r in range(P):
    e = ev.get((r, seq))
    if not e or e["func"] != func or e["ret"] != ret:
        sys.exit("rank %d event %d: %s, want %s returning %d" % (r, seq, e and (e["func"], e["ret"]), func, ret))
' "$2" "$3" "$4" $P || fail "siot dump --jsonl $1: event $2 is not $3 returning $4 on every rank"
}
check_dump ev.siot "$SEQ_MKNOD" mknod 0
check_dump ev.siot "$SEQ_PWRITE" pwrite "$SHORT"
st=0
mpirun_np $P "$B/bin/ioreplay" --verify --explain --root "$WORK/root" ev.siot > ev.report || st=$?
[ $st = 1 ] || { cat ev.report >&2; fail "ioreplay --verify --explain exited $st, want 1"; }
for r in $(seq 0 $((P - 1))); do
    grep -Eq "^  rank $r event $SEQ_MKNOD mknod: not reissued: a device node or socket" ev.report ||
        { cat ev.report >&2; fail "--explain does not name rank $r's mknod as event $SEQ_MKNOD"; }
    grep -Eq "^  rank $r event $SEQ_PWRITE pwrite: returned $COUNT, recorded $SHORT\$" ev.report ||
        { cat ev.report >&2; fail "--explain does not name rank $r's pwrite as event $SEQ_PWRITE"; }
    # the difference: the original's line (<) then the replay's (>)
    grep -A2 -E "^rank $r event $SEQ_PWRITE differs \(event $((SEQ_PWRITE - 1)) of the second trace\):\$" ev.report |
        python3 -c '
import sys
lines, short, count = sys.stdin.read().splitlines(), sys.argv[1], sys.argv[2]
if len(lines) != 3 or not lines[1].startswith("< \"pwrite\" parent=-1 ") or " ret=%s " % short not in lines[1] \
        or not lines[2].startswith("> \"pwrite\" parent=-1 ") or " ret=%s " % count not in lines[2]:
    sys.exit("the difference: %s" % lines)
' "$SHORT" "$COUNT" || { cat ev.report >&2; fail "--verify does not name rank $r's pwrite as event $SEQ_PWRITE"; }
done
[ "$(grep -c "^rank [0-9]* event [0-9]* differs" ev.report)" = $P ] &&
    grep -q "^round trip: $P differences in [0-9]* calls" ev.report ||
    { cat ev.report >&2; fail "--verify: other differences than the $P pwrites"; }
# the replay's own trace: its pwrite, whole, where --verify says
check_dump root.siot $((SEQ_PWRITE - 1)) pwrite "$COUNT"
pass "rank's event $SEQ_MKNOD (mknod, not reissued) and $SEQ_PWRITE (pwrite, $SHORT bytes recorded, $COUNT replayed)" \
    "named alike by siot dump --jsonl, --explain and --verify (the replay's own event $((SEQ_PWRITE - 1)))"
