/* explain: what a replay could not do as recorded. Each rank notes the calls
 * at the replayed level that it could not reissue (with the reason) and the
 * calls whose result differed from the recorded one; at the end rank 0
 * prints the reasons with their counts over all ranks and, with --explain,
 * every such call (rank, event number, function, reason or both results).
 * The event number is the rank's seq as `siot dump --jsonl` prints it
 * (replay/plan.h), as --verify's differences and the watchdog name it.
 * One rp_log per rank, used by one thread; the report is collective over
 * MPI_COMM_WORLD (PMPI, so a traced replay does not record it).
 *
 * Errors: none reported. A reason past RP_LOG_REASONS, or whose text cannot
 * be copied, counts as "other"; --explain lines past RP_LOG_LINES are
 * counted as not listed; a list of left-out seqs that cannot grow is
 * silently short. The results of the MPI calls are not checked. */
#ifndef SIOT_EXPLAIN_H
#define SIOT_EXPLAIN_H

#include <stdint.h>
#include <stdio.h>

#include "core/vbuf.h"

#define RP_LOG_REASONS 64       /* distinct reasons kept per rank; more are counted as "other" */
#define RP_LOG_LINES (1u << 20) /* bytes of --explain lines kept per rank; more are counted */

typedef struct rp_log {
    int rank, explain;
    const char *why[RP_LOG_REASONS];
    uint64_t count[RP_LOG_REASONS];
    int nwhy;
    uint64_t skipped, differed, lines_dropped, other;
    siot_vbuf lines;
    siot_vbuf left_out; /* the seqs (int64_t) of the calls not reissued, in order */
} rp_log;

void rp_log_init(rp_log *l, int rank, int explain);
/* Event seq of the rank (function func) was not reissued, for reason why. */
void rp_log_skip(rp_log *l, int64_t seq, const char *func, const char *why);
/* Event seq was reissued and returned got where the trace says recorded. */
void rp_log_differs(rp_log *l, int64_t seq, const char *func, int64_t recorded, int64_t got);
/* Collective: rank 0 prints the reasons table (and the lines) on out.
 * Returns, on every rank, the number of calls not reissued or different
 * over all ranks. */
uint64_t rp_log_report(rp_log *l, int size, FILE *out);
/* Collective: every rank's left-out seqs at rank 0, one rank after the
 * other (malloc'd; NULL elsewhere or without memory), with each rank's
 * count in *counts (malloc'd, size entries). For --verify, which leaves
 * those calls out of the original's side of the comparison. */
int64_t *rp_log_gather_left_out(const rp_log *l, int size, uint64_t **counts);
void rp_log_free(rp_log *l);

#endif
