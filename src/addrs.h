/* addrs: displacements that are absolute addresses, recorded relative to a
 * base every rank shares, so that they fold across ranks (docs/merge.md,
 * "Values across ranks").
 *
 * A datatype built from MPI_Get_address results (MPI_Type_create_struct,
 * MPI_Type_create_hindexed..., used with the buffer MPI_BOTTOM) holds
 * addresses of the process's memory, which address-space randomisation
 * makes different on every rank and every run: recorded as they are, each
 * becomes a per-rank table. What the type describes, the layout of its
 * blocks, is the same everywhere. siot_addr_rebase records such an array
 * relative to its lowest entry, which keeps that layout and is what a
 * replay rebuilds on a buffer of its own.
 *
 * An array is taken for addresses when every entry is at least 4 GiB and
 * lies in memory the process has mapped at the call (mincore answers for
 * the entry's page). Why that test: a byte displacement or file offset is
 * not an address of the process, so an array holding a 0 or a small
 * displacement stays exact; programs make their addresses with
 * MPI_Get_address, with casts (HDF5) or in Fortran, so the tracer cannot
 * rely on seeing them made; and below 4 GiB a non-PIE program's text, data
 * and heap could hold a file type's displacements of some MiB mapped, so
 * its addresses there stay exact (they do not fold) rather than risk
 * rebasing an offset. Position-independent programs, Debian's default,
 * have everything far above.
 *
 * Locks: none; the counter is atomic. Signals: not used from a handler.
 * Errors: none: an array it cannot judge stays as it is. */
#ifndef SIOT_ADDRS_H
#define SIOT_ADDRS_H

#include <stdint.h>

/* a[0..n) made relative to its lowest entry when every entry is an address
 * of the process (see above): 1 then, 0 when left as it is. */
int siot_addr_rebase(int64_t *a, int64_t n);
/* Arrays rebased so far by this process (the trace's note address_displacements). */
uint64_t siot_addr_rebased(void);

#endif
