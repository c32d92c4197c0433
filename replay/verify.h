/* verify: `ioreplay --verify`, a replay that checks itself. Before MPI
 * starts, each rank re-executes ioreplay with the preload library of its
 * flavour (libsiotrace.so) and SIOT_TRACE set, so the replay is traced like
 * any program, with no build or link step for the user; after MPI_Finalize
 * rank 0 compares that trace with the original at the replayed level
 * (replay/compare.h, paths through the root's mapping). Process-wide
 * environment only; call from the main thread.
 *
 * Errors: rp_verify_reexec returns only on failure, with one line in why
 * (the environment may already be changed). rp_verify_compare prints its
 * verdict, or why nothing was checked, on out and returns 0 or 1; without
 * memory for the left-out lists it compares without them. */
#ifndef SIOT_VERIFY_H
#define SIOT_VERIFY_H

#include <stddef.h>
#include <stdio.h>

#include "core/model.h"

/* The replay's own trace when this process is the traced one, else NULL. */
const char *rp_verify_trace(void);

/* Re-executes this program traced, its trace written to trace_path (taken
 * relative to the working directory). Returns only when it cannot, with
 * why filled in. */
void rp_verify_reexec(char **argv, const char *trace_path, char *why, size_t n);

/* Rank 0, after MPI_Finalize: the original against the replay's trace at
 * the replayed level; prints up to max_shown differences and the verdict
 * line. 0 faithful, 1 not (or the replay's trace cannot be read). */
int rp_verify_compare(const siot_trace *orig, const char *replay_trace, int posix_level, const int64_t *left_out,
                      const uint64_t *n_left_out, FILE *out);

#endif
