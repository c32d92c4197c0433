#!/bin/bash
# `make demo`, as the README's first command: it finds its packages present,
# traces FLASH-IO on 8 ranks, prints siot stats, replays, and says
# "round trip: faithful"; its trace, replay trace and report are checked here.
. "$(dirname "$0")/../lib.sh"
make -s -C "$ROOT" demo MPI="$MPI" > demo.out 2>&1 || { tail -30 demo.out >&2; fail "make demo"; }
grep -q "^round trip: faithful (flash-io, 8 ranks, $MPI" demo.out || { tail -20 demo.out >&2; fail "no faithful verdict"; }
grep -q "H5Dwrite" demo.out || fail "the demo's stats lack H5Dwrite"
grep -Eq "^  8 ranks: [0-9]+ findings?$" demo.out || fail "the demo shows no findings"
D=$B/demo
n=$("$SIOT" dump --jsonl "$D/flash-io.siot" | grep -o '"rank":[0-9]*' | sort -u | wc -l)
[ "$n" = 8 ] || fail "the demo's trace holds $n ranks, not 8"
"$SIOT" diff --layers posix,stdio,mpi,mpiio --outermost "$D/flash-io.siot" "$D/replay.siot" > /dev/null ||
    fail "the demo's verdict disagrees with siot diff"
[ -s "$D/report.html" ] || fail "no report"
pass "make demo: flash-io on 8 ranks traced, summarised, replayed: $(grep '^round trip: .*(flash-io' demo.out)"
