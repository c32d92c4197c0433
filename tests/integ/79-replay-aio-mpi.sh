#!/bin/bash
# Non-blocking MPI-IO completed by MPI request calls (tests/progs/iompi.c,
# 3 ranks). Open MPI's OMPIO starts POSIX aio requests inside
# MPI_File_iwrite_at/iread_at and completes them inside MPI_Wait, MPI_Test
# and MPI_Waitall: those completions are recorded (their parent is the MPI
# call that ran them), so the POSIX bytes of iompi.dat in `siot stats
# --json` are the program's (they come from aio_return), linked with
# wrap.flags and preloaded. ROMIO (MPICH, linked statically) completes its
# aio requests there too, seen through the --wrap entries, with the same
# bytes; the library's polls there that find a request running
# (EINPROGRESS) are left out on both. Round trips are faithful at the default level (MPI_Wait reissued,
# its POSIX children not) and at the POSIX level (the MPI_Wait of an MPI-IO
# request replaced by its aio completions, the exchange's MPI_Waitall still
# reissued as MPI).
. "$(dirname "$0")/../lib.sh"
build_traced iompi
SRC=$ROOT/tests/progs/iompi.c
P=3
W=$(( P * ($(c_define N_WAIT "$SRC") * $(c_define W_BYTES "$SRC") + $(c_define N_ALL "$SRC") * $(c_define A_BYTES "$SRC")) ))
R=$(( P * $(c_define N_TEST "$SRC") * $(c_define R_BYTES "$SRC") ))
REQS=$(( $(c_define N_WAIT "$SRC") + $(c_define N_TEST "$SRC") + $(c_define N_ALL "$SRC") ))
# linked with wrap.flags, and the untraced build with LD_PRELOAD (the MPI
# library's calls reach the exported entries on both flavours then)
mpirun_np $P ./iompi > /dev/null || fail "iompi at P=$P"
if [ "$MPI" = openmpi ]; then
    ENV=(-x SIOT_TRACE="$WORK/pre.siot" -x LD_PRELOAD="$B/lib/libsiotrace.so")
else
    ENV=(-env SIOT_TRACE "$WORK/pre.siot" -env LD_PRELOAD "$B/lib/libsiotrace.so")
fi
mkdir -p pre && (cd pre && mpirun_np $P "${ENV[@]}" ../iompi.plain > /dev/null) || fail "iompi.plain (preloaded)"
for t in iompi pre; do
    "$SIOT" stats --json $t.siot > $t.json || fail "siot stats --json $t.siot"
    jsonl $t.siot > $t.jsonl
    python3 - $t.json $t.jsonl "$W" "$R" "$REQS" "$MPI $t" <<'PY' || fail "$t: the POSIX bytes or the aio completions"
import errno, json, sys
stats, events = json.load(open(sys.argv[1])), [json.loads(l) for l in open(sys.argv[2])]
W, R, REQS, run = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
flavour = run.split()[0]
rows = [f for f in stats["files"] if f["layer"] == "posix" and f["name"] == "iompi.dat"]
if len(rows) != 1 or rows[0]["bytes_written"] != W or rows[0]["bytes_read"] != R:
    sys.exit("POSIX row of iompi.dat %s, want %d bytes written and %d read" % (rows, W, R))
aio = [e for e in events if e["func"].startswith("aio_return")]
print("   %s: POSIX %d bytes written, %d read; %d aio_return" % (run, W, R, len(aio)))
# OMPIO: every request is aio (ROMIO's, as Debian builds it, too)
if flavour == "openmpi" and len(aio) < 3 * REQS:
    sys.exit("%d aio_return events, want at least one per request (%d)" % (len(aio), 3 * REQS))
# each completed by the MPI call that waited for it
by_seq = {(e["rank"], e["seq"]): e for e in events}
for e in aio:
    p = by_seq.get((e["rank"], e.get("parent", -1)))
    if not p or p["func"] not in ("MPI_Wait", "MPI_Test", "MPI_Waitall"):
        sys.exit("aio_return %s: parent %s, want MPI_Wait, MPI_Test or MPI_Waitall" % (e, p and p["func"]))
# the MPI library's polls there (aio_error answering EINPROGRESS) are timing,
# not I/O: left out on both flavours (ROMIO's reach the --wrap entries)
polls = [e for e in events if e["func"].startswith("aio_error") and e["ret"] == errno.EINPROGRESS
         and by_seq.get((e["rank"], e.get("parent", -1)), {}).get("layer") == "mpi"]
if polls:
    sys.exit("%d aio_error polls answering EINPROGRESS recorded under MPI calls, e.g. %s" % (len(polls), polls[0]))
PY
done
for level in default posix; do
    ROUNDTRIP_LEVEL=$level roundtrip iompi-$level $P "$WORK/iompi"
    grep -Eq "^  calls not replayed +0 +0 " iompi-$level.report ||
        { cat iompi-$level.report >&2; fail "$level: calls not replayed"; }
done
# At the POSIX level the waits and tests of MPI-IO requests are replaced by
# their aio completions, reissued as the program's (not completed at the
# end by the replay, untraced); the exchange's MPI_Waitall is reissued as MPI.
jsonl iompi-posix.orig.siot > posix-orig.jsonl
jsonl root-iompi-posix.siot > posix-replay.jsonl
python3 - posix-orig.jsonl posix-replay.jsonl $P <<'PY' || fail "posix level: the completions"
import json, sys
def count(name, fn):
    return sum(1 for l in open(name) if json.loads(l)["func"] == fn)
orig, replay, P = sys.argv[1], sys.argv[2], int(sys.argv[3])
for fn in ("aio_return", "aio_write", "aio_read"):
    if count(replay, fn) != count(orig, fn):
        sys.exit("%d %s in the replay, %d in the original" % (count(replay, fn), fn, count(orig, fn)))
want = {"MPI_Wait": 0, "MPI_Test": 0, "MPI_Waitall": P}
got = {fn: count(replay, fn) for fn in want}
if got != want:
    sys.exit("the replay's MPI completions %s, want %s" % (got, want))
PY
# A strided request (tests/progs/iostrided.c, MPICH's i_noncontig's shape):
# OMPIO starts its later aio pieces inside MPI_Wait; those starts are
# recorded too, so the POSIX level reissues every piece (before: exit 1,
# thousands of aio_error/aio_return "an aio request that the replay did not
# start"). The POSIX bytes: on Open MPI the view's NV ints each way per
# rank; on MPICH ROMIO's data sieving reads and writes the whole extent, from
# the first int to the last, (2*NV - 1) ints.
build_traced iostrided
NV=$(c_define NV "$ROOT/tests/progs/iostrided.c")
for level in default posix; do
    ROUNDTRIP_LEVEL=$level roundtrip strided-$level 2 "$WORK/iostrided"
    grep -Eq "^  calls not replayed +0 +0 " strided-$level.report ||
        { cat strided-$level.report >&2; fail "strided, $level: calls not replayed"; }
done
"$SIOT" stats --json strided-posix.orig.siot > strided.json || fail "siot stats --json strided"
want=$((NV * 4))
[ "$MPI" = mpich ] && want=$(((2 * NV - 1) * 4))
python3 - strided.json $want <<'PY' || fail "strided: the POSIX bytes"
import json, sys
rows, want = json.load(open(sys.argv[1]))["files"], int(sys.argv[2])
posix = [f for f in rows if f["layer"] == "posix" and f["name"] in ("strided.0", "strided.1")]
if len(posix) != 2 or any(f["bytes_written"] != want or f["bytes_read"] != want for f in posix):
    sys.exit("POSIX rows %s, want 2 files of %d bytes each way" % ([(f["name"], f["bytes_written"], f["bytes_read"]) for f in posix], want))
PY
pass "non-blocking MPI-IO: POSIX bytes from its aio completions, faithful replays at both levels"
