#!/bin/bash
# Results the ranks' order decides, inside a collective MPI-IO call, at the
# POSIX level: every rank makes and removes the same file there, as Open
# MPI's MPI_File_open does with FILE.locktest.N (a PnetCDF benchmark's
# replay at the POSIX level exited 1 when one rank's unlink had found it
# gone in the run and another's did in the replay). tests/progs/rmorder.c
# makes those calls from a file error handler, which MPI_File_open calls on
# every rank when it fails; its waits make rank 0 remove the file and the
# others find it gone in the run. A replay at the POSIX level without the
# computation (no waits: the ranks' order is another) counts an unlink that
# succeeded where the run's found nothing, or the reverse, as a result by
# order, not a different result: exit 0, faithful. At the default level the
# failing MPI_File_open is reissued and fails the same way.
. "$(dirname "$0")/../lib.sh"
build_traced rmorder
P=3
SIOT_TRACE=$WORK/rm.siot mpirun_np $P ./rmorder > /dev/null || fail "rmorder"
jsonl rm.siot > rm.jsonl
python3 - rm.jsonl $P <<'PY' || fail "the run's unlinks inside MPI_File_open"
import errno, json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
P = int(sys.argv[2])
by = {(e["rank"], e["seq"]): e for e in ev}
for r in range(P):
    u = [e for e in ev if e["rank"] == r and e["func"] == "unlink" and e["args"]["pathname"] == "rmorder.lock"]
    if len(u) != 1 or by[(r, u[0]["parent"])]["func"] != "MPI_File_open":
        sys.exit("rank %d: unlink events %s, want one under MPI_File_open" % (r, u))
    want = (0, None) if r == 0 else (-1, errno.ENOENT)
    if (u[0]["ret"], u[0].get("errno")) != want:
        sys.exit("rank %d: unlink returned %s errno %s, the program's waits make it %s" % (r, u[0]["ret"], u[0].get("errno"), want))
print("   the run: rank 0's unlink removed rmorder.lock, the others' found it gone (ENOENT), inside MPI_File_open")
PY
for level in posix default; do
    rm -rf "root-$level"
    mpirun_np $P "$B/bin/ioreplay" --verify --explain --no-compute --level $level --root "$WORK/root-$level" rm.siot \
        > $level.report 2>&1 < /dev/null || { st=$?; cat $level.report >&2; fail "$level level: the replay exited $st"; }
    grep -q "^round trip: faithful" $level.report || { cat $level.report >&2; fail "$level level: not faithful"; }
    grep -Eq "^  results by order +[0-9]+ " $level.report || fail "$level level: no 'results by order' row"
    echo "   $level level: $(sed -n 's/^round trip: //p' $level.report | sed 's/;.*/)/')"
done
pass "a removal inside a collective MPI-IO call that the ranks' order decides: a result by order at the POSIX level"
