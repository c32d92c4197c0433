/* ranksum: the per-rank times of a job of many ranks, in a size that does
 * not grow with the ranks. Rows (core/ranktimes.h) cost about 20 bytes a
 * rank; past 2K ranks a (sub)tree of the job's merge keeps instead, for each
 * quantity (every key, and the computation): the number of ranks, their
 * minimum, maximum, mean and M2 and a log2 histogram of the per-rank values
 * (a siot_hist, merged exactly by Chan's pairwise formulas), plus the
 * (rank, value) of its K fastest and K slowest ranks, exact, and no rows:
 * whole rows of every quantity's extremes would be nearly every rank up to
 * 16 quantities x 2K ranks, as noise makes each quantity's extremes other
 * ranks. Two summaries merge exactly: the K extremes of a union lie among
 * the extremes of its parts, ranks ordered by (value, rank).
 *
 * Locks: none (a trace is used by one thread at a time).
 *
 * Errors: siot_rts_union and siot_rts_from_rows return -1 without memory
 * (the trace then keeps what it had); siot_rts_check returns why a
 * summary read from a file is not consistent, or NULL. */
#ifndef SIOT_RANKSUM_H
#define SIOT_RANKSUM_H

#include "core/model.h"

#define SIOT_RT_KEEP_DEFAULT 8u /* K: a job of up to 16 ranks keeps every rank exactly */
#define SIOT_RT_KEEP_MAX 65536u

/* "span", ..., "layer_pnetcdf", "compute"; and back (-1: unknown). */
const char *siot_rts_name(unsigned key);
int siot_rts_from_name(const char *s, uint64_t n);

/* sum[SIOT_RT_NQ]: one sample per row, its rank the histogram's max_rank
 * when slowest. */
int siot_rts_from_rows(siot_arena *a, const siot_rtrow *rows, uint32_t n, siot_hist *sum);

/* The summaries of t's times: its own, or made in buf from its rows (in
 * arena a); NULL when it has neither (or without memory). */
const siot_hist *siot_rts_get(const siot_trace *t, siot_arena *a, siot_hist *buf);

/* The ranks the times cover: the summary's count, else the rows. */
uint64_t siot_rts_nranks(const siot_trace *t);

/* dst's rank times and src's, as those of both (their ranks disjoint):
 * rows united while there are at most 2·keep of them (or keep is 0, for
 * every rank), else summaries merged and rows cut to the extremes. keep is
 * dst's rt_keep, else src's. */
int siot_rts_union(siot_trace *dst, const siot_trace *src);

/* Up to max (rank, value) of the fastest (slowest = 0) or slowest ranks of
 * key, the most extreme first: exact in either form as long as max <= rt_keep. */
uint32_t siot_rts_extremes(const siot_trace *t, unsigned key, int slowest, siot_rtx *out, uint32_t max);

/* A summary being built (the reader's blocks, a merge): sum[SIOT_RT_NQ]
 * and the lists as in siot_trace. */
typedef struct siot_rts {
    siot_hist *sum;
    uint32_t n[SIOT_RTS_NLISTS];
    siot_rtx *x[SIOT_RTS_NLISTS];
} siot_rts;
/* y merged into acc, lists cut to keep; rows added to acc; -1 without memory. */
int siot_rts_merge(siot_arena *a, siot_rts *acc, const siot_rts *y, uint32_t keep);
int siot_rts_add_rows(siot_arena *a, siot_rts *acc, const siot_rtrow *rows, uint32_t n, uint32_t keep);
/* t's times become acc (its rows dropped). */
void siot_rts_set(siot_trace *t, const siot_rts *acc, uint32_t keep);

/* A summary read from a file against its rows and the rank count. */
const char *siot_rts_check(const siot_trace *t);

#endif
