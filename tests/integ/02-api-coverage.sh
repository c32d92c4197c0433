#!/bin/bash
# The spec against what the installed libraries export: every MPI function
# of MPICH and Open MPI (C, and Open MPI's Fortran bindings of the traced
# ones), every HDF5 and PnetCDF function, and glibc's file I/O functions are
# traced or on spec/not-traced.txt with a reason; no exclusion is stale.
# A new library version then says what it added.
. "$(dirname "$0")/../lib.sh"
LIBDIR=/usr/lib/x86_64-linux-gnu
GEN=$B/tools/siot-gen
"$GEN" --list "$ROOT"/spec/*.spec > traced.txt || fail "siot-gen --list"
LIBS=("mpi:$LIBDIR/libmpich.so.12:MPI_[A-Z][a-z_0-9]*" "mpi:$LIBDIR/libmpi.so.40:MPI_[A-Z][a-z_0-9]*")
FORT=(--fortran "$LIBDIR/openmpi/lib/libmpi_mpifh.so" "$ROOT/build/openmpi/gen/fort_mpi.c")
[ -f "${FORT[2]}" ] || fail "the Open MPI flavour is not built (make MPI=openmpi)"
python3 "$ROOT/tests/py/api_coverage.py" traced.txt "$ROOT/spec/not-traced.txt" "${LIBS[@]}" "${FORT[@]}" > coverage.txt ||
    { cat coverage.txt >&2; fail "functions neither traced nor excluded"; }
tail -1 coverage.txt | sed 's/^/   /'
# The check can fail: without the exclusion list, the excluded names are reported.
grep -v '^mpi MPI_Wtime ' "$ROOT/spec/not-traced.txt" > partial.txt
! python3 "$ROOT/tests/py/api_coverage.py" traced.txt partial.txt "${LIBS[@]}" > partial.out &&
    grep -q "MPI_Wtime .*neither traced nor excluded" partial.out || fail "an exported function left out went unnoticed"
pass "every exported MPI function traced or excluded with a reason; no stale exclusion"
