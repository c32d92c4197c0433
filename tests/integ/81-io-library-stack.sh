#!/bin/bash
# The whole stack of an I/O library in one trace. HDF5 (flash-io at 4 ranks):
# H5Dwrite events have MPI-IO children, which on MPICH (static link) have
# pwrite children; the bytes HDF5 was asked to write are exactly what the
# program writes, and HDF5 <= MPI-IO <= POSIX (HDF5's metadata is the
# difference). PnetCDF (Open MPI, ior -a ncmpi -c): ncmpi_put_vara_*_all
# events with the program's start and count, each with MPI-IO children.
. "$(dirname "$0")/../lib.sh"
E=$B/examples
posix=0
[ "$MPI" = mpich ] && posix=1

P=4 NB=4 Z=8
mpirun_np $P "$E/flash-io" -n $NB -z $Z > /dev/null || fail "flash-io"
jsonl flash-io.siot > f.jsonl
# What flash-io asks HDF5 to write (examples/flash-io/flash-io.c): per file a
# 244-byte "sim info" record and 4-byte "unknown names" (24 in the
# checkpoint, 4 in each plot file) from rank 0, 164 bytes of tree metadata
# per block; 24 double variables of Z^3 cells in the checkpoint, 4 float ones
# of Z^3 and (Z+1)^3 in the plot files.
want=$((3 * 244 + 4 * (24 + 4 + 4) + 3 * P * NB * 164 + P * NB * (24 * Z * Z * Z * 8 + 4 * Z * Z * Z * 4 + 4 * (Z + 1) * (Z + 1) * (Z + 1) * 4)))
py check_stack.py f.jsonl H5Dwrite $want $posix || fail "HDF5 stack"

if [ "$MPI" = openmpi ]; then
    S=2 BS=16384 T=8192
    mpirun_np $P "$E/ior" -a ncmpi -c -s $S -b $BS -t $T > /dev/null || fail "ior -a ncmpi"
    jsonl ior.siot > n.jsonl
    py check_stack.py n.jsonl 'ncmpi_put_vara_.*_all' $((P * S * BS)) 0 || fail "PnetCDF stack"
    # start and count of every put, from ior's layout: rank r's transfer k of segment s at (s*P + r)*B + k*T
    python3 - n.jsonl $P $S $BS $T <<'PY' || fail "PnetCDF put arguments"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
P, S, B, T = map(int, sys.argv[2:])
for r in range(P):
    puts = [e for e in ev if e["rank"] == r and e["func"].startswith("ncmpi_put_vara")]
    want = [[(s * P + r) * B + k * T] for s in range(S) for k in range(B // T)]
    got = [e["args"]["start"] for e in puts]
    if got != want or any(e["args"]["count"] != [T] for e in puts):
        sys.exit("rank %d: starts %s, want %s" % (r, got, want))
PY
    echo "   ior -a ncmpi: every ncmpi_put_vara_uchar_all at the right start and count"
fi
pass "the I/O library's calls, their MPI-IO children$([ $posix = 1 ] && echo " and their POSIX grandchildren"), bytes in order"
