/* check: `ioreplay --check FILE`, whether a trace is fully replayable,
 * decided from the trace alone before any I/O (no MPI, no mpirun). Each
 * rank's calls at the replayed level (replay/plan.h) are walked: a call this
 * ioreplay has no replayer for or does not reissue (its reason), and a call
 * that uses a communicator, group, datatype, MPI file, descriptor, stream or
 * directory whose creation is not in the trace, are counted by function and
 * reason, with the first rank and event of each. The reasons are the words
 * the replay itself uses. Single-threaded; allocates per rank.
 *
 * A trace whose notes say the run made calls it does not hold is not fully
 * replayable either (siot_trace_lacks, replay/analyze.h).
 *
 * Errors: rp_check returns 0 or 1 with the verdict printed, or -1 with a
 * one-line reason in err (out of memory, a trace that cannot be walked) and
 * no verdict. An id not remembered for lack of memory counts as missing (a
 * call reported, not an error); reasons past the 256th are counted, not
 * listed. */
#ifndef SIOT_CHECK_H
#define SIOT_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "core/model.h"

/* A replayer's name and why it does not reissue the call (NULL: it does). */
typedef struct rp_check_entry {
    const char *name, *why;
    uint32_t nargs;
} rp_check_entry;

/* Prints the verdict on out: 0 fully replayable, 1 not, -1 the trace
 * cannot be walked (err). */
int rp_check(const siot_trace *t, int posix_level, const rp_check_entry *table, uint32_t n, FILE *out, char *err,
             size_t errlen);

#endif
