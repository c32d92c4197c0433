#!/bin/bash
# The spec against what the installed libraries export: every MPI function
# of MPICH and Open MPI (C, and Open MPI's Fortran bindings of the traced
# ones), every HDF5 function of both flavours' libhdf5, every PnetCDF C and
# Fortran function (Fortran 77 and 90), and glibc's file I/O functions (tests/glibc-io.txt) are
# traced or on spec/not-traced.txt with a reason; no exclusion is stale.
# A new library version then says what it added.
. "$(dirname "$0")/../lib.sh"
LIBDIR=/usr/lib/x86_64-linux-gnu
GEN=$B/tools/siot-gen
"$GEN" --list "$ROOT"/spec/*.spec > traced.txt || fail "siot-gen --list"
LIBS=("mpi:$LIBDIR/libmpich.so.12:MPI_[A-Z][a-z_0-9]*" "mpi:$LIBDIR/libmpi.so.40:MPI_[A-Z][a-z_0-9]*"
    "/lib/x86_64-linux-gnu/libc.so.6:@$ROOT/tests/glibc-io.txt"
    "hdf5:$LIBDIR/hdf5/openmpi/libhdf5.so:H5.*" "hdf5:$LIBDIR/hdf5/mpich/libhdf5.so:H5.*"
    "pnetcdf:$LIBDIR/libpnetcdf.so:n[cf]mpi_.*" "pnetcdf:$LIBDIR/libpnetcdf.so:__pnetcdf_MOD_nf90mpi_.*")
FORT=(--fortran "$LIBDIR/openmpi/lib/libmpi_mpifh.so" "$ROOT/build/openmpi/gen/fort_mpi.c")
[ -f "${FORT[2]}" ] || fail "the Open MPI flavour is not built (make MPI=openmpi)"
python3 "$ROOT/tests/py/api_coverage.py" traced.txt "$ROOT/spec/not-traced.txt" "${LIBS[@]}" "${FORT[@]}" > coverage.txt ||
    { cat coverage.txt >&2; fail "functions neither traced nor excluded"; }
tail -1 coverage.txt | sed 's/^/   /'
# The check can fail: without their exclusion lines, the excluded names are
# reported, one per layer kind; a spec function removed is reported too.
grep -Ev '^(mpi MPI_Wtime|stdio perror|hdf5 H5Dfill|pnetcdf ncmpi_strerr\*) ' "$ROOT/spec/not-traced.txt" > partial.txt
grep -v '^hdf5 H5Dcreate1$' traced.txt > fewer.txt
! python3 "$ROOT/tests/py/api_coverage.py" fewer.txt partial.txt "${LIBS[@]}" > partial.out || fail "a partial list passed"
for name in MPI_Wtime perror H5Dfill ncmpi_strerror H5Dcreate1; do
    grep -q " $name .*neither traced nor excluded" partial.out || fail "$name left out went unnoticed"
done
pass "every exported MPI, MPI-IO, HDF5, PnetCDF and glibc file I/O function traced or excluded with a reason; no stale exclusion"
