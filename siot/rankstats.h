/* rankstats: the ranks' own times as siot stats shows them, from either
 * form a trace keeps (core/ranksum.h): every rank's row, or a summary of
 * all ranks with the (rank, value) of the fastest and slowest of each quantity.
 * The text says which form it read; the JSON's "rank_times" and the CSV's
 * "rank_times" rows give the same summary in both forms (min, max, mean,
 * standard deviation, the extremes with their ranks, the log2 histogram).
 *
 * Locks: none. Errors: none (without memory a summary is left out). */
#ifndef SIOT_RANKSTATS_H
#define SIOT_RANKSTATS_H

#include <stdio.h>

#include "core/model.h"

/* A rank's own time in ns for a quantity of core/ranktimes.h, or, for key
 * SIOT_RT_N, its computation (span less its outermost calls); -1 when the
 * trace has no row for the rank (older traces). */
double siot_rank_time(const siot_trace *t, uint32_t rank, unsigned key);
const char *siot_rank_time_name(unsigned key);  /* "span", ..., "compute" */
const char *siot_rank_time_title(unsigned key); /* for tables and charts */
/* The quantities in display order: the span and how it divides, then the
 * layers. */
extern const unsigned SIOT_RT_ORDER[];
/* How many extremes readers list: the trace's K, else the default. */
unsigned siot_rank_extremes_kept(const siot_trace *t);
/* "summary of N ranks; extremes exact" or "every rank's row"; buf >= 64 bytes. */
const char *siot_rank_times_form(const siot_trace *t, char *buf, size_t len);
/* The text's lines after the per-rank table when the trace holds a summary. */
void siot_rank_times_text(const siot_trace *t, FILE *o);
/* ,"rank_times":{...} (nothing when the trace has no rank times). */
void siot_rank_times_json(const siot_trace *t, FILE *o);
/* rank_times,<quantity>,<metric>,<value>,<rank> rows. */
void siot_rank_times_csv(const siot_trace *t, FILE *o);

#endif
