#!/bin/bash
# A run that ends in MPI_Abort (tests/progs/abortend.c): the abort is in
# the trace with its error code, and a replay names it as not reissued
# (it finalizes MPI instead, to write its report and trace) rather than
# passing over it: exit 1, the abort listed by --explain, the round trip
# faithful but for it, the same files. A rank the launcher killed after the
# abort (its partial trace ends before MPI_Finalize) is compared up to its
# end. A trace that lacks a rank's events (MPICH's launcher kills the other
# ranks before they write theirs; here rank 0's part alone) is refused
# before any I/O in one line naming the rank: its replay would wait for
# the lost rank for ever.
. "$(dirname "$0")/../lib.sh"
build_traced abortend
def() { c_define "$1" "$ROOT/tests/progs/abortend.c"; }
CODE=$(def ABORT_CODE)
replay() { # NP TRACE: ioreplay --verify --explain, its exit status in $rc
    rm -rf root
    rc=0
    mpirun_np "$1" "$B/bin/ioreplay" --verify --explain --root "$WORK/root" "$2" > replay.txt 2>&1 || rc=$?
}
expect_named() { # NP TRACE: the abort named, faithful but for it, the same files
    replay "$@"
    [ "$rc" = 1 ] || { cat replay.txt >&2; fail "ioreplay of $2 exited $rc, not 1 (a call not reissued)"; }
    grep -q "rank 0 event [0-9]* MPI_Abort: not reissued: the run ended here in MPI_Abort" replay.txt ||
        { cat replay.txt >&2; fail "the abort is not named by --explain"; }
    grep -q "^round trip: faithful but for the 1 calls not reissued" replay.txt ||
        { cat replay.txt >&2; fail "no faithful verdict for $2"; }
    for ((r = 0; r < $1; r++)); do
        [ "$(stat -c %s "root/out-$r.dat")" = "$(stat -c %s "out-$r.dat")" ] || fail "the replay's out-$r.dat differs in size"
    done
}
for np in 1 2; do
    rm -f -- *.siot out-*.dat
    rc=0
    SIOT_TRACE=$WORK/a.siot mpirun_np $np ./abortend > run.txt 2>&1 || rc=$?
    [ "$rc" = "$CODE" ] || { cat run.txt >&2; fail "the run at $np ranks exited $rc, the source aborts with $CODE"; }
    [ -f a.part-000000.siot ] || fail "rank 0 wrote no part at its abort"
    "$SIOT" merge -o a0.siot a.part-000000.siot || fail "siot merge of rank 0's part"
    jsonl a0.siot > a0.jsonl
    python3 - "$CODE" <<'PY' || fail "the recorded abort"
import json, sys
ev = [json.loads(l) for l in open("a0.jsonl")]
last = [e for e in ev if e["rank"] == 0][-1]
if last["func"] != "MPI_Abort" or last["args"]["errorcode"] != int(sys.argv[1]):
    sys.exit("rank 0's last event: %s" % last)
PY
    if [ $np = 1 ]; then
        expect_named 1 a0.siot
        continue
    fi
    # rank 0's part alone: rank 1's events are lost
    replay 2 a0.siot
    [ "$rc" = 2 ] || { cat replay.txt >&2; fail "a trace without rank 1's events: exit $rc, not 2"; }
    grep -q "holds no events of 1 of its 2 ranks (rank 1)" replay.txt || { cat replay.txt >&2; fail "the lost rank is not named"; }
    [ -z "$(ls root 2> /dev/null)" ] || fail "a refused replay made files: $(ls root)"
    "$B/bin/ioreplay" --check a0.siot > check.txt && fail "ioreplay --check says a trace without rank 1 is replayable"
    grep -q "the job is not replayable: .*(rank 1)" check.txt || { cat check.txt >&2; fail "--check does not name the lost rank"; }
    echo "   without rank 1's events: $(grep -o 'holds no events.*' replay.txt | cut -c1-80)..."
    # every part there is (Open MPI ends the other ranks with a signal, and they write theirs)
    if [ -f a.part-000001.siot ]; then
        "$SIOT" merge -o all.siot a.part-*.siot || fail "siot merge of the parts"
        expect_named 2 all.siot
        echo "   both parts: $(grep '^round trip' replay.txt | cut -c1-70)..."
    fi
done
pass "a run ending in MPI_Abort: the abort recorded with its code, named as not reissued by the replay (exit 1, faithful but for it); a trace missing a rank refused in one line"
