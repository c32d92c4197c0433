#!/bin/bash
# Removals inside a collective close, replayed at the POSIX level
# (tests/progs/sharedfp.c: MPI_File_write_ordered and write_shared, then a
# file opened with MPI_MODE_DELETE_ON_CLOSE). Inside MPI_File_close every
# rank removes the same file (ROMIO its shared file pointer's, OMPIO the
# file to delete, by its absolute name though the program opened it by a
# relative one): one rank's unlink succeeds, the others' find nothing.
# The replay once let any rank win (ROMIO's tests: 4 of 4 replays
# differed), and removed the absolute name under its root, not the file it
# had made (the file was left behind). Now the trace notes the run's
# working directory, the winner removes first, and every replay at the
# POSIX level (three in a row) is faithful with the run's files; the
# default level too.
. "$(dirname "$0")/../lib.sh"
build_traced sharedfp
P=4
mkdir -p run
(cd run && SIOT_TRACE=$WORK/run.siot mpirun_np $P ../sharedfp > out.txt) || fail "sharedfp"
SRC=$ROOT/tests/progs/sharedfp.c
want=$((P * ($(c_define NREC "$SRC") + 1) * $(c_define REC "$SRC")))
grep -q "^sharedfp: $P ranks, $want bytes\$" run/out.txt || fail "sharedfp said: $(cat run/out.txt)"
"$SIOT" dump run.siot > run.txt
grep -q "^  note cwd: $WORK/run\$" run.txt || fail "the trace does not note the run's working directory"
# a file removed inside a close by every rank: one rank found it
jsonl run.siot | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
by = {(e["rank"], e["seq"]): e for e in ev}
def in_close(e):
    while e["parent"] != -1:
        e = by[(e["rank"], e["parent"])]
        if e["func"] == "MPI_File_close":
            return True
    return False
paths = {}
for e in ev:
    if e["func"] == "unlink" and in_close(e):
        paths.setdefault(e["args"]["pathname"], []).append(e)
shared = {p: u for p, u in paths.items() if len({e["rank"] for e in u}) > 1}
if not shared:
    sys.exit("no file removed by every rank inside MPI_File_close")
for p, u in shared.items():
    won = [e["rank"] for e in u if e["ret"] == 0]
    if len(won) != 1 or any(e["ret"] != -1 or e.get("errno") != 2 for e in u if e["rank"] not in won):
        sys.exit("%s: unlinks %s" % (p, [(e["rank"], e["ret"], e.get("errno")) for e in u]))
print("   removed inside MPI_File_close by every rank, one found it: %s" % ", ".join(sorted(shared)))
' || fail "the removals inside the closes"
for i in 1 2 3; do
    ROUNDTRIP_LEVEL=posix roundtrip posix$i $P "$WORK/sharedfp"
done
ROUNDTRIP_LEVEL=default roundtrip default $P "$WORK/sharedfp"
pass "removals inside collective closes: the winner first, absolute names inside the run's directory; faithful 3 of 3 at the POSIX level"
