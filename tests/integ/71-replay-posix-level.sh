#!/bin/bash
# ioreplay --level posix reissues the POSIX calls themselves, also those that
# MPI-IO made (visible with the MPICH flavour's static link): the POSIX events
# of the replay equal those of the original. (Programs whose ranks do not race
# on the same files, so that every POSIX result is reproducible.)
. "$(dirname "$0")/../lib.sh"
RP=$B/tests/ioreplay-traced
build_traced classic
posix_roundtrip() { # NAME P PROGRAM ARGS...
    local name=$1 np=$2
    shift 2
    mkdir -p "orig-$name"
    (cd "orig-$name" && SIOT_TRACE=$WORK/$name.orig.siot mpirun_np "$np" "$@" > /dev/null) || fail "$name: original"
    SIOT_TRACE=$WORK/$name.replay.siot mpirun_np "$np" "$RP" --level posix --root "$WORK/root-$name" --quiet \
        "$WORK/$name.orig.siot" || fail "$name: replay"
    # Absolute paths (ROMIO reads /etc/romio-hints) are replayed inside the root.
    "$SIOT" diff --layers posix,stdio --sandbox-paths "$name.orig.siot" "$name.replay.siot" > "$name.diff" ||
        { cat "$name.diff" >&2; fail "$name: POSIX events differ"; }
    "$SIOT" dump --jsonl "$name.replay.siot" | grep -q '"layer":"mpiio"' && fail "$name: --level posix replayed MPI-IO"
    n=$("$SIOT" dump --jsonl "$name.orig.siot" | grep -c '"layer":"posix"')
    echo "   $name at P=$np: $n POSIX events replayed as recorded"
}
posix_roundtrip classic 2 "$WORK/classic" 4 25
posix_roundtrip ior-fpp 4 "$B/examples/ior" -a mpiio -F -s 4
pass "--level posix: the replay's POSIX events equal the original's"
