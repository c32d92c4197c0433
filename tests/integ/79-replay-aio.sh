#!/bin/bash
# POSIX aio replayed for real (tests/progs/aiomix.c, 2 ranks): the replay
# starts each recorded request on an aiocb of its own, so requests overlap
# as they did, and reissues aio_error, aio_suspend, aio_return and
# aio_cancel on it. Round trips at the default and POSIX levels are faithful
# (the replay's trace has the program's aio calls, not pread/pwrite), with
# files of the same sizes; the counts of each call, in both traces, and the
# replay's bytes (the request the program never completed included: the
# replay completes it at the end) are those of the program's source. The
# aio_error calls that found a request running are polls: not reissued.
# The completions of a request never started are listed, exit 1.
. "$(dirname "$0")/../lib.sh"
build_traced aiomix
SRC=$ROOT/tests/progs/aiomix.c
d() { c_define "$1" "$SRC"; }
for level in default posix; do
    ROUNDTRIP_LEVEL=$level roundtrip aio-$level 2 "$WORK/aiomix"
    jsonl aio-$level.orig.siot > orig-$level.jsonl
    jsonl root-aio-$level.siot > replay-$level.jsonl
    python3 - orig-$level.jsonl replay-$level.jsonl $(d N_OVER) $(d N_READ) $(d N_LIO_W) $(d N_LIO_NW) \
        $(d N_FSYNC) $(d N_CANCEL) <<'PY' || fail "$level: the aio calls"
import errno, json, sys
orig, replay = sys.argv[1], sys.argv[2]
N_OVER, N_READ, N_LIO_W, N_LIO_NW, N_FSYNC, N_CANCEL = map(int, sys.argv[3:])
want = {"aio_write": N_OVER + 1, "aio_read": N_READ, "lio_listio": 2, "aio_fsync": N_FSYNC,
        "aio_cancel": N_CANCEL, "aio_suspend": N_READ + N_LIO_NW + N_FSYNC,
        "aio_return": N_OVER + N_READ + N_LIO_W + 1 + N_LIO_NW + N_FSYNC,
        "pwrite": 0, "pread": 0, "pwrite64": 0, "pread64": 0}
for name in (orig, replay):
    ev = {}
    for l in open(name):
        e = json.loads(l)
        ev.setdefault(e["rank"], []).append(e)
    if sorted(ev) != [0, 1]:
        sys.exit("%s: ranks %s" % (name, sorted(ev)))
    for r, es in ev.items():
        f = [e["func"] for e in es]
        for fn, n in want.items():
            if f.count(fn) != n:
                sys.exit("%s rank %d: %d %s, want %d" % (name, r, f.count(fn), fn, n))
        done = [e for e in es if e["func"] == "aio_error" and e["ret"] != errno.EINPROGRESS]
        if len(done) != N_OVER or any(e["ret"] != 0 for e in done):
            sys.exit("%s rank %d: aio_error that found its request done: %s" % (name, r, done))
        polls = [e for e in es if e["func"] == "aio_error" and e["ret"] == errno.EINPROGRESS]
        if name == replay and polls:
            sys.exit("%s rank %d: the replay reissued %d polls" % (name, r, len(polls)))
        if any(e["ret"] != 0 for e in es if e["func"] in ("aio_write", "aio_read", "lio_listio", "aio_suspend", "aio_fsync")):
            sys.exit("%s rank %d: a start or a wait failed" % (name, r))
PY
    W=$(( $(d N_OVER) * $(d W_BYTES) + ($(d N_LIO_W) + $(d N_LIO_NW)) * $(d L_BYTES) + $(d LOST_BYTES) ))
    R=$(( ($(d N_READ) + 1) * $(d R_BYTES) ))
    grep -Eq "^  bytes written +$W +$W " aio-$level.report ||
        { cat aio-$level.report >&2; fail "$level: the replay's bytes written are not $W"; }
    grep -Eq "^  bytes read +$R +$R " aio-$level.report ||
        { cat aio-$level.report >&2; fail "$level: the replay's bytes read are not $R"; }
    grep -Eq "^  calls not replayed +0 +0 " aio-$level.report || { cat aio-$level.report >&2; fail "$level: calls not replayed"; }
done
# completions of a request the program never started: not reissued, each
# listed with the reason, exit 1
mkdir -p orig-unstarted
(cd orig-unstarted && SIOT_TRACE=$WORK/unstarted.siot mpirun_np 1 ../aiomix unstarted > /dev/null) || fail "unstarted: original run"
rc=0
mpirun_np 1 "$B/bin/ioreplay" --explain --root "$WORK/root-unstarted" unstarted.siot > unstarted.report || rc=$?
[ $rc = 1 ] || { cat unstarted.report >&2; fail "unstarted: exit $rc, want 1"; }
for fn in aio_error aio_return; do
    grep -q "$fn.*an aio request that the replay did not start" unstarted.report ||
        { cat unstarted.report >&2; fail "unstarted: $fn not listed with its reason"; }
done
pass "aio replayed as aio: overlapping requests, polls, suspends, lists, a request never completed"
