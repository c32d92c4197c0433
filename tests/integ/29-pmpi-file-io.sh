#!/bin/bash
# MPI-IO through the profiling interface (tests/progs/pfileio.c: PMPI_File_*
# calls write and read back a block per rank of pfile.dat, MPI_File_* calls
# write mfile.dat) is the way round the wrappers, and is not recorded as
# MPI-IO. It is never silent:
# - Open MPI: its MPI-IO plugins' POSIX calls with no traced MPI-IO call
#   above them are counted, not recorded: the trace notes mpiio_unseen with
#   the ranks' count, siot stats shows it (--json: lacks_calls), and
#   ioreplay --check and the replay exit 1 saying the run made calls the
#   trace does not hold;
# - MPICH: ROMIO's POSIX calls reach the --wrap entries and are recorded
#   (pfile.dat's writes and reads of BLOCK bytes, without an MPI-IO parent);
#   their replay lacks the order ROMIO's messages gave them inside the
#   collective open, so its verdict is not asserted.
# On both, mfile.dat's MPI_File_write_at is recorded with BLOCK bytes per
# rank and the POSIX write beneath it.
. "$(dirname "$0")/../lib.sh"
build_traced pfileio
P=2
BLOCK=$(c_define BLOCK "$ROOT/tests/progs/pfileio.c")
SIOT_TRACE=$WORK/p.siot mpirun_np $P ./pfileio > run.out 2> run.err || { st=$?; cat run.err >&2; fail "pfileio exited $st"; }
[ "$(stat -c %s pfile.dat)" = $((P * BLOCK)) ] && [ "$(stat -c %s mfile.dat)" = $((P * BLOCK)) ] ||
    fail "the traced program's files are not $P blocks of $BLOCK bytes"
jsonl p.siot > p.jsonl
"$SIOT" dump p.siot > p.txt || fail "siot dump"
"$SIOT" stats p.siot > stats.txt || fail "siot stats"
check_rc=0
"$B/bin/ioreplay" --check p.siot > check.txt || check_rc=$?
mkdir -p root
replay_rc=0
if [ "$MPI" = openmpi ]; then
    mpirun_np $P "$B/bin/ioreplay" --root "$WORK/root" p.siot > replay.txt 2>&1 < /dev/null || replay_rc=$?
fi
python3 - p.jsonl "$MPI" $P "$BLOCK" <<'PY' || fail "the MPI_File_* calls and, on MPICH, ROMIO's POSIX calls beneath the PMPI ones"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
flavour, P, B = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
by = {(e["rank"], e["seq"]): e for e in ev}
for r in range(P):
    mine = [e for e in ev if e["rank"] == r]
    if any(e["layer"] == "mpiio" and "pfile" in json.dumps(e) for e in mine):
        sys.exit("rank %d: an MPI-IO event on pfile.dat, which only PMPI_File_* calls touch" % r)
    w = [e for e in mine if e["func"] == "MPI_File_write_at"]
    if len(w) != 1 or w[0]["bytes"] != B or w[0]["args"]["offset"] != r * B:
        sys.exit("rank %d: MPI_File_write_at events %s" % (r, w))
    under = [e for e in mine if e["parent"] == w[0]["seq"] and e["layer"] == "posix" and "write" in e["func"]]
    if sum(e["bytes"] for e in under) != B:
        sys.exit("rank %d: the POSIX writes beneath MPI_File_write_at move %s bytes" % (r, [e["bytes"] for e in under]))
    pio = [e for e in mine if e["layer"] == "posix" and e.get("names", {}).get("fd_file", "").endswith("pfile.dat")
           and e["func"].startswith(("pwrite", "pread", "write", "read"))]
    moved = sum(e["bytes"] for e in pio)
    if flavour == "mpich" and (moved < 2 * B or any(e["parent"] >= 0 and by[(r, e["parent"])]["layer"] == "mpiio" for e in pio)):
        sys.exit("rank %d: ROMIO's POSIX calls on pfile.dat move %d bytes (want at least %d, no MPI-IO parent)" % (r, moved, 2 * B))
    if flavour == "openmpi" and pio:
        sys.exit("rank %d: POSIX calls on pfile.dat recorded on Open MPI: %s" % (r, [e["func"] for e in pio]))
print("   per rank: MPI_File_write_at of %d bytes with its POSIX write; pfile.dat's PMPI I/O %s"
      % (B, "recorded as POSIX calls without an MPI-IO parent" if flavour == "mpich" else "not recorded"))
PY
if [ "$MPI" = openmpi ]; then
    n=$(sed -n 's/^  note mpiio_unseen: \([0-9]*\) file calls of MPI-IO had no traced MPI-IO call above them.*/\1/p' p.txt)
    [ -n "$n" ] && [ "$n" -ge $((2 * P)) ] || fail "note mpiio_unseen gives '$n', want at least a write and a read per rank"
    grep -q "note: the run made calls the trace does not hold (mpiio_unseen: $n " stats.txt || fail "siot stats does not show the note"
    "$SIOT" stats --json p.siot | python3 -c "import json, sys; sys.exit(not json.load(sys.stdin).get('lacks_calls', '').startswith('mpiio_unseen: $n '))" ||
        fail "siot stats --json has no lacks_calls"
    [ "$check_rc" = 1 ] && grep -q "^not fully replayable: the run made calls the trace does not hold (mpiio_unseen" check.txt ||
        { cat check.txt >&2; fail "ioreplay --check exited $check_rc without saying the trace lacks calls"; }
    [ "$replay_rc" != 0 ] && grep -q "^ioreplay: the run made calls the trace does not hold, which no replay can reissue (mpiio_unseen" replay.txt ||
        { cat replay.txt >&2; fail "the replay exited $replay_rc without saying the trace lacks calls"; }
    echo "   Open MPI: $n calls counted in note mpiio_unseen; stats shows it; --check and the replay exit 1 with it"
else
    dump_has p.siot "note mpiio_unseen" && fail "a note mpiio_unseen on MPICH, whose ROMIO calls are recorded"
    [ "$check_rc" = 0 ] || { cat check.txt >&2; fail "ioreplay --check exited $check_rc"; }
    # (the replay reissues ROMIO's POSIX calls without the order ROMIO's
    # messages gave them inside the collective open: its verdict varies)
fi
pass "MPI-IO through PMPI_File_*: counted and said on Open MPI, its POSIX calls recorded on MPICH"
