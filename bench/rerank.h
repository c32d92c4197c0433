/* rerank: a rank's trace made from the recorded traces of two other ranks
 * of the same program, for the simulated merge (bench/simmerge.c).
 *
 * Only for programs whose every recorded value is the same on all ranks but
 * one, or a line in the rank (an offset (i*P + rank)*B, MPI_Comm_rank's
 * answer): rank a's and rank b's traces are walked side by side, and every
 * integer that differs between them is taken as the line through (a, va) and
 * (b, vb), evaluated at the new rank, which must land on an integer. Anything
 * else that differs (the structure, a string's text, a function or call-site
 * table, a per-rank table) refuses. Timing histograms and the rank's time
 * totals are rank a's, unchanged: the re-ranked trace is rank a's run with
 * rank r's values and rank number.
 *
 * siot_rerank_check holds a third recorded rank c against that line, which
 * is how bench/simmerge.c shows the rule holds before using it.
 *
 * No locks, no global state. Errors: -1 with a reason in why (a static
 * string or one written into why's buffer). */
#ifndef SIOT_BENCH_RERANK_H
#define SIOT_BENCH_RERANK_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

/* Turns c, a copy of rank a's trace (decoded, owning its values), into rank
 * r's, from a and b (b != a). */
int siot_rerank(siot_trace *c, const siot_trace *a, int32_t ra, const siot_trace *b, int32_t rb, int32_t r, char *why,
                size_t n);

/* 0 when c, rank rc's recorded trace, is what siot_rerank makes for rc. */
int siot_rerank_check(const siot_trace *c, int32_t rc, const siot_trace *a, int32_t ra, const siot_trace *b,
                      int32_t rb, char *why, size_t n);

#endif
