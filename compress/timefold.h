/* timefold: the timing histograms of a trace recorded with SIOT_TOLERANCE=p,
 * kept to p percent (issue 41, item 3: values that are not replayed, such
 * as timings, merge within the tolerance). Lossless histograms grow with
 * the ranks: their counts spread over more bins as more ranks' timings
 * meet, and the rank of each maximum takes log2 P bits. Within p percent:
 * the least filled bins are folded into their nearest kept neighbour while
 * the samples moved stay within p% of the count; the minimum is rounded
 * down and the maximum up, and past 255 samples the mean and the standard
 * deviation to nearest, each to the fewest significant bits that keep it
 * within p% (6 bits for 5%: truncation loses under 2^-5; fewer samples
 * keep their exact moments, which the file form writes as integers as
 * short as its floats); and the rank and occurrence of the
 * maximum are not kept (-1: the ranks' own times keep the extreme
 * ranks exactly). Counts stay exact: how many calls, and so every total
 * of calls and bytes, is not timing. Run on the job's merged trace before
 * it is written; without a tolerance the trace is left as it is.
 *
 * Locks: none; the trace is the caller's alone. Signals: not for handlers.
 * Errors: none (it allocates nothing). */
#ifndef SIOT_TIMEFOLD_H
#define SIOT_TIMEFOLD_H

#include <stdint.h>

#include "core/model.h"

/* Folds every event's computation and duration histograms of t within the
 * SIOT_TOLERANCE t was recorded with (its note, compress/merge.h's
 * siot_trace_tolerance); a trace recorded without one is left as it is.
 * Returns how many histograms changed. */
uint64_t siot_timefold(siot_trace *t);

/* The same on one histogram (tests). Returns 1 when h changed. */
int siot_timefold_hist(siot_hist *h, double pct);

#endif
