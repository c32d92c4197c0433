#!/bin/bash
# ioreplay --level posix reissues the POSIX calls themselves, also those that
# MPI-IO made (visible with the MPICH flavour's static link): the POSIX events
# of the replay equal those of the original. (Programs whose ranks do not race
# on the same files, so that every POSIX result is reproducible.)
. "$(dirname "$0")/../lib.sh"
build_traced classic
posix_roundtrip() { # NAME P PROGRAM ARGS...: roundtrip at the POSIX level, MPI-IO not reissued
    local name=$1
    ROUNDTRIP_LEVEL=posix roundtrip "$@"
    "$SIOT" dump --jsonl "root-$name.siot" | grep '"layer":"mpiio"' > /dev/null && fail "$name: --level posix replayed MPI-IO"
    n=$("$SIOT" dump --jsonl "$name.orig.siot" | grep -c '"layer":"posix"')
    echo "   $name: $n POSIX events in the original"
}
# Absolute paths (ROMIO reads /etc/romio-hints) are replayed inside the root.
posix_roundtrip classic 2 "$WORK/classic" 4 25
posix_roundtrip ior-fpp 4 "$B/examples/ior" -a mpiio -F -s 4
pass "--level posix: the replay's POSIX events equal the original's"
