#!/bin/sh
# The end-to-end demonstration behind `make demo`: trace the FLASH-IO-like
# example (HDF5 checkpoint and plot files) on 8 ranks, summarise the trace,
# replay it with ioreplay --verify, and give the round-trip verdict: the
# replay (which traces itself) made the same calls and wrote files of the same
# names and sizes.
# Exit 0 only when the verdict is "faithful".
set -eu
MPI=${MPI:-mpich}
NP=${DEMO_RANKS:-8}
B=$(pwd)/build/$MPI
D=$B/demo
SIOT=$B/bin/siot
rm -rf "$D"
mkdir -p "$D/run" "$D/replay"
cd "$D"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset SIOT_TRACE SIOT_LAYERS SIOT_COMPRESS
if [ "$MPI" = openmpi ]; then RUN="mpirun.openmpi --oversubscribe"; else RUN="mpirun.mpich"; fi
# MPICH's collective MPI-IO is slow when 8 ranks share 2 cores: independent mode there.
ARGS="-n 2"
[ "$MPI" = mpich ] && [ "$(nproc)" -lt "$NP" ] && ARGS="$ARGS -i"

echo "== 1. tracing: $RUN -np $NP flash-io $ARGS"
(cd run && SIOT_TRACE=$D/flash-io.siot $RUN -np "$NP" "$B/examples/flash-io" $ARGS)
size=$(wc -c < flash-io.siot)
echo "   one trace for the job: $D/flash-io.siot, $size bytes"
echo
echo "== 2. siot stats flash-io.siot"
"$SIOT" stats flash-io.siot
echo
echo "== 2b. siot findings flash-io.siot"
"$SIOT" findings flash-io.siot | tail -n +2
echo
echo "== 3. replaying and verifying: $RUN -np $NP ioreplay --verify --root $D/replay flash-io.siot"
# --verify: the replay traces itself (into replay.siot, beside its root) and
# compares its calls with the original's at the replayed level.
verdict=faithful
$RUN -np "$NP" "$B/bin/ioreplay" --verify --root "$D/replay" flash-io.siot > verify.txt || verdict="NOT faithful"
cat verify.txt
calls=$(sed -n 's/^round trip: faithful (\([0-9]*\) calls.*/\1/p' verify.txt)
[ -n "$calls" ] || verdict="NOT faithful"
echo
echo "== 4. the files, compared by name and size"
(cd run && find . -type f -printf '%P %s\n' | sort) > files.orig
(cd replay && find . -type f -printf '%P %s\n' | sort) > files.replay
if cmp -s files.orig files.replay; then
    echo "   same files, same sizes: $(tr '\n' ' ' < files.orig)"
else
    verdict="NOT faithful"
    echo "   the files differ (original < > replay):"
    diff files.orig files.replay | sed 's/^/   /' || true
fi
echo
echo "round trip: $verdict (flash-io, $NP ranks, $MPI${calls:+, $calls calls at the default level})"
"$SIOT" report flash-io.siot -o report.html
echo "the report, with charts: $D/report.html (siot report); every event for Perfetto: siot export --chrome"
[ "$verdict" = faithful ]
