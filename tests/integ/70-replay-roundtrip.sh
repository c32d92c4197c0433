#!/bin/bash
# ioreplay round trip: trace a program, replay its trace with an ioreplay that
# is itself traced, and the two traces hold the same calls at the replayed
# level (the outermost POSIX, stdio, MPI and MPI-IO calls: functions,
# arguments, return values, order per rank); the files the replay writes have
# the sizes of the original's.
. "$(dirname "$0")/../lib.sh"
RP=$B/tests/ioreplay-traced
for p in known loops gather0 transp classic; do build_traced $p; done
roundtrip() { # NAME P PROGRAM ARGS...
    local name=$1 np=$2
    shift 2
    mkdir -p "orig-$name"
    (cd "orig-$name" && SIOT_TRACE=$WORK/$name.orig.siot mpirun_np "$np" "$@" > /dev/null) || fail "$name: original run"
    SIOT_TRACE=$WORK/$name.replay.siot mpirun_np "$np" "$RP" --root "$WORK/root-$name" "$WORK/$name.orig.siot" \
        > "$name.report" || fail "$name: replay"
    "$SIOT" diff --layers posix,stdio,mpi,mpiio --outermost "$name.orig.siot" "$name.replay.siot" > "$name.diff" ||
        { cat "$name.diff" >&2; fail "$name: the replay's calls differ from the original's"; }
    (cd "orig-$name" && find . -type f ! -name '*.siot' -printf '%P %s\n' | sort) > "$name.orig.files"
    (cd "root-$name" && find . -type f -printf '%P %s\n' | sort) > "$name.replay.files"
    diff "$name.orig.files" "$name.replay.files" > /dev/null ||
        { diff "$name.orig.files" "$name.replay.files" >&2; fail "$name: the replay's files differ in name or size"; }
    grep -q "calls replayed" "$name.report" || fail "$name: no report"
    echo "   $name at P=$np: same calls, $(wc -l < "$name.orig.files") files of the same sizes"
}
roundtrip known 4 "$WORK/known"
roundtrip loops 3 "$WORK/loops" all 10
roundtrip gather0 4 "$WORK/gather0"
roundtrip transp 3 "$WORK/transp"
roundtrip classic 2 "$WORK/classic" 5 20
roundtrip ior-posix 4 "$B/examples/ior" -a posix -s 4
roundtrip ior-mpiio 4 "$B/examples/ior" -a mpiio -c -s 4
roundtrip ckpt 4 "$B/examples/ckpt" 6 2 2 4096
pass "round trip: traced replay == original, same files"
