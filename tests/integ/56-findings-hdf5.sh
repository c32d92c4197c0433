#!/bin/bash
# siot findings' hdf5-metadata-flush on an HDF5 particle kernel
# (tests/progs/h5flush.c, 2 ranks, NSTEP steps with a dataset each): with
# an H5Fflush per step the writes HDF5 makes in its flushes and closes
# number at least NSTEP and at least its H5Dwrite writes; without the flush
# in the loop (the metadata cache writes at H5Fclose) the finding is gone
# or costs half as much; with collective metadata writes
# (H5Pset_coll_metadata_write) HDF5 makes one collective write per rank for
# each flush and at H5Fclose, at most P * (NSTEP + 1), fewer than rank 0's
# writes one by one (their time is shown: on one node it is higher, as the
# ranks synchronise in each flush). MPICH's ROMIO then fills the holes
# between the metadata entries by read-modify-write (the finding, collective
# and under HDF5, with H5Pset_meta_block_size in its remedy): with the
# metadata in one block of META_BLOCK bytes (collmb) less than half the
# bytes, with objects aligned to ALIGN bytes (collal) no fewer (the remedy
# says not H5Pset_alignment). Open MPI's OMPIO writes the entries as they
# are: no read-modify-write. H5Pset_meta_block_size and H5Pset_alignment
# with independent metadata writes (metablk, align) leave the flushes'
# writes as many as without (the flush remedy says so).
. "$(dirname "$0")/../lib.sh"
P=2
$MPICC -std=c11 -O1 -g -I/usr/include/hdf5/$MPI -c "$ROOT/tests/progs/h5flush.c" -o h5flush.o || fail "compile h5flush.c"
$MPICC h5flush.o -Wl,@"$B/wrap-hdf5.flags" -o h5flush || fail "link h5flush against the tracer"
findings_modes $P "$ROOT/tests/progs/h5flush.c" h5flush.h5 ./h5flush flush once collmd metablk align collmb collal
pass "hdf5-metadata-flush with its remedy"
