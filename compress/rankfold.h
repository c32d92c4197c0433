/* rankfold: values that follow the rank's residue, kept as such. The merge
 * of ranks joins their values pairwise up a reduction tree, so a value
 * like 10 + 5*(rank % 3) ends as a per-rank table of one entry per pair of
 * ranks ({r0-1: 10+5*rank, r2-3: 40-10*rank, ...}), growing with the ranks.
 * This pass, run on the job's merged trace before it is written, rewrites a
 * per-rank table of functions of the rank alone as one entry per residue
 * class mod m ({r<0;3x>: 10, r<1;3x>: 15, r<2;3x>: 20}), for the smallest m
 * (up to 16) whose classes are each one progression in the rank, when that
 * takes fewer entries. Lossless: every rank's value is the same.
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
