#!/bin/bash
# siot findings on every example (the cases of tests/lib.sh's example_cases)
# at 4 ranks, on an HDF5 particle kernel flushing its metadata every step
# (tests/progs/h5flush.c, 2 ranks) and, on Open MPI (Debian's PnetCDF), a
# PnetCDF program writing files one after another (tests/progs/ncsites.c
# reuse, 2 ranks). With SIOT_BEFORE=path/to/an/older/siot each trace's
# findings are shown by both, the older first.
#   MPI=mpich bash bench/findings.sh     (after make MPI=mpich check-tests)
BENCH_NAME=findings
. bench/common.sh
ROOT=$(pwd)
E=$B/examples
eval "$(sed -n '/^example_cases()/,/^}/p' tests/lib.sh)"
example_cases
show() { # NAME TRACE
    echo "== $1"
    if [ -n "${SIOT_BEFORE:-}" ]; then
        echo "-- before"
        "$SIOT_BEFORE" findings "$2" | tail -n +2
        echo "-- after"
    fi
    "$SIOT" findings "$2" | tail -n +2
}
cd "$W"
for c in "${cases[@]}"; do
    name=${c%%|*} args=${c#*|}
    prog=${name%%-*}
    [ "$name" = flash-io ] && prog=flash-io
    # shellcheck disable=SC2086
    SIOT_TRACE=$W/$name.siot run 4 "$E/$prog" $args > /dev/null
    show "$name (4 ranks: $args)" "$W/$name.siot"
done
mpicc.$MPI -std=c11 -O1 -g -I/usr/include/hdf5/$MPI -c "$ROOT/tests/progs/h5flush.c" -o h5flush.o
mpicc.$MPI h5flush.o -Wl,@"$B/wrap-hdf5.flags" -o h5flush
for mode in flush once; do
    SIOT_TRACE=$W/h5flush-$mode.siot run 2 ./h5flush $mode > /dev/null
    show "h5flush $mode (2 ranks)" "$W/h5flush-$mode.siot"
done
if [ -f "$B/wrap-pnetcdf.flags" ]; then
    mpicc.$MPI -std=c11 -O1 -g -c "$ROOT/tests/progs/ncsites.c" -o ncsites.o
    mpicc.$MPI ncsites.o -Wl,@"$B/wrap-pnetcdf.flags" -o ncsites
    SIOT_TRACE=$W/ncsites.siot run 2 ./ncsites reuse > /dev/null
    show "ncsites reuse (PnetCDF, files one after another, 2 ranks)" "$W/ncsites.siot"
fi
