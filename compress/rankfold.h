/* rankfold: values that follow the rank's residue, kept as such. The merge
 * of ranks joins their values pairwise up a reduction tree, so a value
 * like 10 + 5*(rank % 3) ends as a per-rank table of one entry per pair of
 * ranks ({r0-1: 10+5*rank, r2-3: 40-10*rank, ...}), growing with the ranks.
 * This pass, run on the job's merged trace before it is written, rewrites a
 * per-rank table of functions of the rank alone as one value by the rank's
 * residue mod m ({rank%3:10,15,20}, SIOT_X_RMOD), for the smallest m (up to
 * 64, a process grid's width) whose classes are each one progression in the
 * rank, when that takes fewer bytes (equal classes cost one entry: format
 * minor 3). A table with no such period is cut again where its values leave
 * a line ({r0-2:-2 r3-8:-3+1*rank}, not the merge's cuts), when that takes
 * fewer bytes, and as one value by the rank's quotient (c*rank +
 * d*(rank div m) + base, SIOT_X_RDIV: ranks in groups of m, a communicator
 * coloured rank/m) or by its decimal digits (c*rank + d*(digits - 1) +
 * base, SIOT_X_RDIG: the bytes of a line that prints the rank) when that
 * is shorter still. Entries that share the same
 * loop terms are refolded on the rest, and so are the numeric fields of
 * string patterns ("groups-<rank/4>.dat"), and the elements of arrays and
 * the entries of per-rank tables that did not fold as a whole (a Waitall's
 * statuses, a root's Gatherv counts). It also writes arrays whose elements are
 * first + step*j (the request ids a Waitall completes) as ranges of a length
 * (SIOT_X_RANGE), a per-rank table of such arrays as one range whose length
 * is a value of the rank, refolded like the others. Lossless: every rank's
 * value is the same.
 *
 * Locks: none; the trace is the caller's alone. Signals: not for handlers.
 *
 * Errors: without memory a table stays as it was. */
#ifndef SIOT_RANKFOLD_H
#define SIOT_RANKFOLD_H

#include <stdint.h>

#include "core/model.h"

/* Returns how many tables were rewritten. */
uint32_t siot_rank_periodic(siot_trace *t);

#endif
