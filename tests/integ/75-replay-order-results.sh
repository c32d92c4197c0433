#!/bin/bash
# Results the ranks' order decides where the replay does not reissue what
# ordered them (tests/progs/byorder.c): the size a seek to the file's end
# inside MPI_File_get_size found, at the POSIX level, where the MPI-IO
# library's messages that ordered it after the other ranks' writes are not
# reissued (ROMIO's misc test on Open MPI: 5000 recorded, 9040 replayed);
# and which rank's MPI_File_delete deleted a file that every rank deletes
# (ROMIO's creat_excl test: MPI_ERR_NO_SUCH_FILE recorded, 0 replayed, on
# another rank the reverse). Both are counted as results by order, not as
# different results: each replay, at both levels, is faithful and exits 0.
# The values of the runs come from byorder.c's #defines. A second replay
# into a root the first one used says that the root held files.
. "$(dirname "$0")/../lib.sh"
build_traced byorder
P=3
SRC=$ROOT/tests/progs/byorder.c
SIZE0=$(sed -n 's/^#define SIZE0 \([0-9]*\)$/\1/p' "$SRC")
[ -n "$SIZE0" ] || fail "no SIZE0 in byorder.c"
for mode in seek delete; do
    rm -f byorder.dat
    SIOT_TRACE=$WORK/$mode.siot mpirun_np $P ./byorder $mode > /dev/null || fail "byorder $mode exited $?"
    jsonl $mode.siot > $mode.jsonl
done
python3 - seek.jsonl delete.jsonl "$SIZE0" $P <<'PY' || fail "the runs"
import json, sys
seek = [json.loads(l) for l in open(sys.argv[1])]
dele = [json.loads(l) for l in open(sys.argv[2])]
size0, P = int(sys.argv[3]), int(sys.argv[4])
gs = [e for e in seek if e["func"] == "MPI_File_get_size"]
if len(gs) != 1 or gs[0]["rank"] != 0 or gs[0]["args"]["size"] != size0:
    sys.exit("MPI_File_get_size: %s, want rank 0's, size %d" % (gs, size0))
ends = [e for e in seek if e["rank"] == 0 and e["func"].startswith("lseek") and e["parent"] == gs[0]["seq"]
        and e["args"].get("whence") == 2]
if not ends or ends[-1]["ret"] != size0:
    sys.exit("no lseek to the end returning %d under MPI_File_get_size: %s" % (size0, ends))
d = [e for e in dele if e["func"] == "MPI_File_delete"]
ok = [e["rank"] for e in d if e["ret"] == 0]
gone = [e["rank"] for e in d if e.get("names", {}).get("ret") == "MPI_ERR_NO_SUCH_FILE"]
if len(d) != P or len(ok) != 1 or len(gone) != P - 1:
    sys.exit("MPI_File_delete: rank %s deleted, ranks %s found it gone, want one and %d" % (ok, gone, P - 1))
print("   the runs: MPI_File_get_size %d (lseek to the end under it); rank %d deleted the file, %d found it gone" %
      (size0, ok[0], len(gone)))
PY
# without the run's computation (--no-compute) rank 1's far write comes
# before rank 0's seek (most often), and the ranks come to MPI_File_delete
# in any order; a seek's size is excused so only inside an MPI-IO call at
# the POSIX level: at the default level MPI_File_get_size's size is
# compared, and the seek's replay keeps the run's computation, which
# orders the ranks as in the run
for mode in seek delete; do
    for level in posix default; do
        opt=--no-compute
        [ $mode-$level = seek-default ] && opt=
        rm -rf "root-$mode-$level"
        # shellcheck disable=SC2086
        mpirun_np $P "$B/bin/ioreplay" --verify $opt --level $level --root "$WORK/root-$mode-$level" $mode.siot \
            > $mode-$level.report 2>&1 < /dev/null || { st=$?; cat $mode-$level.report >&2; fail "$mode, $level level: the replay exited $st"; }
        grep -q "^round trip: faithful" $mode-$level.report || { cat $mode-$level.report >&2; fail "$mode, $level level: not faithful"; }
        echo "   $mode, $level level: $(sed -n 's/^round trip: //p' $mode-$level.report | sed 's/;.*/)/')"
    done
done
# a second replay into the first one's root finds its files: the report
# says so (the first, into a new root, does not)
grep -q "held files before this replay" seek-default.report && fail "a new root: the report says it held files"
mpirun_np $P "$B/bin/ioreplay" --level default --root "$WORK/root-seek-default" seek.siot > again.report 2>&1 < /dev/null || true
grep -q "^ioreplay: the root .*root-seek-default held files before this replay began" again.report ||
    { cat again.report >&2; fail "a replay into a used root: no line saying it held files"; }
echo "   again into the same root: $(grep -o 'held files before this replay began' again.report)"
pass "a seek's size and a delete's outcome that the ranks' order decided: results by order at both levels; a used root named"
