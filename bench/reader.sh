#!/bin/bash
# Reading a trace of 10^6 irregular events (big.c: 2 ranks x 500,000 lseeks
# to pseudo-random offsets, nothing folds) from the command line and from
# Python (python/siotrace over libsiot.so): time and peak memory of the
# statistics (no expansion), of every event as JSON lines, and of one rank's
# POSIX events streamed into pandas frames (the other rank is not walked);
# then 10^6 events of manywrites.c (2 ranks x 500,000 pwrites of varying
# sizes and offsets: a few loops in the trace) into one DataFrame, built
# from arrays the reader fills (events()) and, for comparison, as the
# package did before from one dict per event.
set -euo pipefail
MPI=${MPI:-mpich}
ROOT=$(pwd)
B=$ROOT/build/$MPI
SIOT=$B/bin/siot
W=$(mktemp -d /dev/shm/siot-reader.XXXXXX)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { if [ "$MPI" = openmpi ]; then mpirun.openmpi --oversubscribe "$@"; else mpirun.mpich "$@"; fi; }
N=500000
for p in big manywrites; do
    (cd "$W" && mpicc.$MPI -O2 -c "$ROOT/tests/progs/$p.c" -o $p.o && mpicc.$MPI $p.o -Wl,@"$B/wrap.flags" -o $p)
done
SIOT_TRACE=$W/big.siot run -np 2 "$W/big" irregular $N mpi > /dev/null
echo "== reading $((2 * N)) irregular events ($(stat -c %s "$W/big.siot") bytes of trace, $MPI flavour)"
printf "%-58s %10s %12s\n" "what" "seconds" "peak KiB"
measure() { # LABEL COMMAND...
    local label=$1
    shift
    /usr/bin/time -f "%e %M" -o "$W/t" "$@" > /dev/null
    read -r s k < "$W/t"
    printf "%-58s %10s %12s\n" "$label" "$s" "$k"
}
measure "siot stats --json (compressed form)" "$SIOT" stats --json "$W/big.siot"
measure "siot dump --jsonl (every event)" "$SIOT" dump --jsonl "$W/big.siot"
if /usr/bin/python3 -c "import pandas" 2> /dev/null; then
    export PYTHONPATH=$ROOT/build/python SIOT_LIBSIOT=$B/lib/libsiot.so
    measure "python: summary()" /usr/bin/python3 -c "import siotrace,sys; siotrace.open(sys.argv[1]).summary()" "$W/big.siot"
    measure "python: rank 1 POSIX events, frames of 100,000 rows" /usr/bin/python3 -c "
import siotrace, sys
print(sum(len(f) for f in siotrace.open(sys.argv[1]).events(ranks=[1], layers='posix', chunk=100000, as_frames=True)))" "$W/big.siot"
    measure "python: rank 1 POSIX events as dicts, streamed" /usr/bin/python3 -c "
import siotrace, sys
print(sum(1 for _ in siotrace.open(sys.argv[1]).iter_events(ranks=[1], layers='posix')))" "$W/big.siot"
    (cd "$W" && SIOT_TRACE=$W/mw.siot run -np 2 "$W/manywrites" $N > /dev/null)
    echo
    echo "== 10^6 events into one DataFrame (manywrites.c: $(stat -c %s "$W/mw.siot") bytes of trace, $MPI flavour)"
    printf "%-58s %13s %10s %12s\n" "what" "call s (cpu)" "process s" "peak KiB"
    # each rank: MPI_Init, MPI_Comm_rank, open, N pwrites, close, MPI_Barrier, MPI_Finalize
    frame() { # LABEL PYTHON (builds df from t; pandas imported before the clock starts)
        /usr/bin/time -f "%e %M" -o "$W/t" /usr/bin/python3 -c "
import sys, time, pandas, siotrace
t = siotrace.open(sys.argv[1])
t0, c0 = time.time(), time.process_time()
$2
print('%.2f (%.2f)' % (time.time() - t0, time.process_time() - c0))
assert len(df) == 2 * (int(sys.argv[2]) + 6), len(df)" "$W/mw.siot" $N > "$W/in"
        read -r s k < "$W/t"
        printf "%-58s %13s %10s %12s\n" "$1" "$(cat "$W/in")" "$s" "$k"
    }
    /usr/bin/time -f "%e %M" -o "$W/t" /usr/bin/python3 -c "import pandas, siotrace"
    read -r s k < "$W/t"
    printf "%-58s %13s %10s %12s\n" "python: import pandas, siotrace (the floor)" - "$s" "$k"
    frame "python: events(), columns filled by libsiot.so" "df = t.events()"
    # what events() did before: a dict per event, flattened, into pandas
    frame "python: the same from one dict per event (before)" "
def flat(e):
    row = {k: e.get(k) for k in siotrace.COLUMNS}
    for k, v in e['args'].items():
        row[k if k not in row else 'arg_' + k] = v
    return row
df = pandas.DataFrame([flat(e) for e in t.iter_events()])"
else
    echo "(python: Debian's python3-pandas not installed: make deps)"
fi
