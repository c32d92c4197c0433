#!/bin/bash
# A replay never waits for good. When the root's files differ from the
# run's (here the input the program read collectively is a directory in the
# root), the aggregator's read fails inside MPI_File_read_all, MPI-IO
# returns the error on that rank, and the others wait in the collective's
# exchange for ever: without the watchdog (--call-timeout 0) the replay is
# still running after 15 s (the hang is real, on both flavours). With
# --call-timeout 2 it ends in a few seconds, exit 1, with a line naming a
# call of the program (tests/progs/collread.c makes MPI_File_read_all and
# MPI_File_close collectively). The same trace replayed against a staged
# input is faithful, so the watchdog cuts nothing that returns.
. "$(dirname "$0")/../lib.sh"
build_traced collread
SRC=$ROOT/tests/progs/collread.c
P=4
NB=$(c_define NB "$SRC") BL=$(c_define BL "$SRC")
mkdir -p orig
head -c $((NB * BL * P)) /dev/urandom > orig/in.dat
(cd orig && SIOT_TRACE=$WORK/cr.siot mpirun_np $P ../collread in.dat < /dev/null) || fail "collread (traced)"

mpirun_np $P "$B/bin/ioreplay" --verify --call-timeout 2 --root "$WORK/good" cr.siot < /dev/null > good.txt 2>&1 ||
    { st=$?; cat good.txt >&2; fail "the replay with its input staged exited $st"; }
grep -q "^round trip: faithful" good.txt || { cat good.txt >&2; fail "the replay with its input staged is not faithful"; }
echo "   input staged: $(grep '^round trip' good.txt)"

# hang ARGS...: the replay with in.dat a directory in its root; sets st and secs
hang() {
    rm -rf bad && mkdir -p bad/in.dat
    local t0
    t0=$(date +%s%N)
    set +e
    timeout -k 5 "$LIMIT" "${MPIRUN[@]}" -np $P "$B/bin/ioreplay" --root "$WORK/bad" "$@" cr.siot < /dev/null \
        > hang.out 2> hang.err
    st=$?
    set -e
    secs=$(( ($(date +%s%N) - t0) / 1000000000 ))
    # ranks a killed launcher left behind (MPICH's spin) end here
    for _ in 1 2 3 4 5; do pgrep -f -- "--root $WORK/bad" > /dev/null || return 0; sleep 1; done
    pkill -KILL -f -- "--root $WORK/bad" || true
}
LIMIT=15
hang --call-timeout 0 --no-compute
[ $st = 124 ] || { cat hang.out hang.err >&2; fail "without the watchdog the replay ended (exit $st): the scenario no longer hangs, the test shows nothing"; }
echo "   --call-timeout 0: still waiting after $LIMIT s (killed by timeout)"

LIMIT=120
hang --call-timeout 2 --no-compute
[ $st = 1 ] || { cat hang.out hang.err >&2; fail "with --call-timeout 2: exit status $st, want 1"; }
[ $secs -lt 60 ] || fail "with --call-timeout 2: ended after $secs s"
line=$(grep -m1 'has not returned after' hang.err) ||
    { cat hang.out hang.err >&2; fail "no line names the call that waits (exit $st after $secs s, $(wc -c < hang.err) bytes on standard error)"; }
python3 - "$SRC" "$line" <<'PY' || fail "the line names no collective call of the program"
import re, sys
src, line = open(sys.argv[1]).read(), sys.argv[2]
m = re.match(r"ioreplay: rank (\d+): (MPI_\w+) \(event \d+ of the rank\) has not returned after \d+ s", line)
if not m:
    sys.exit("unexpected line: " + line)
calls = set(re.findall(r"(MPI_File_\w+)\(", src))
if m.group(2) not in calls or m.group(2) not in ("MPI_File_read_all", "MPI_File_close"):
    sys.exit("%s is not one of the program's collective calls %s" % (m.group(2), sorted(calls)))
PY
echo "   --call-timeout 2: exit 1 after $secs s: $(cut -c1-90 <<< "$line")..."
pass "a replay that waits for good ends, naming the call"
