/* hist: timing histograms that replace per-call timestamps. Count, min, max,
 * mean and M2 (Welford, so that merging two histograms is exact), the rank and
 * occurrence of the maximum, and log2 bins of nanoseconds. A histogram of one
 * sample has no bin array: the sample is min == max.
 *
 * Locks: none of its own (the recorder's histograms are updated under the
 * recorder lock).
 *
 * Errors: siot_hist_add and siot_hist_merge return 1, or 0 when the bin
 * array cannot be allocated (h is then unchanged); bin counts saturate at
 * UINT32_MAX. The other functions cannot fail. */
#ifndef SIOT_HIST_H
#define SIOT_HIST_H

#include "core/model.h"

/* The log2 bin of a sample (inline: the recorder's hot path uses it). */
static inline unsigned siot_hist_bin(uint64_t ns)
{
    unsigned b = 63u - (unsigned)__builtin_clzll(ns | 1); /* 0 and 1: bin 0, without a branch */
    return b >= SIOT_HBINS ? SIOT_HBINS - 1 : b;
}
/* Bounds of bin b: [lo, hi). */
/* One more sample into a histogram that has its bins and a first sample:
 * the count, the running mean and variance (Welford: what the format
 * stores), the extremes with the maximum's rank and occurrence, the bin
 * (saturating). Inline: the recorder's hot path (compress/queue.c) and
 * siot_hist_add share it; the rank by address, read only for a new maximum
 * (as the hot path did before it shared this). */
static inline __attribute__((always_inline)) void siot_hist_add_binned(siot_hist *h, uint64_t ns,
                                                                       const int32_t *rank, uint64_t occ)
{
    h->count++;
    double d = (double)ns - h->mean;
    h->mean += d / (double)h->count;
    h->m2 += d * ((double)ns - h->mean);
    if (ns < h->min)
        h->min = ns;
    if (ns > h->max) {
        h->max = ns;
        h->max_rank = *rank;
        h->max_occ = occ;
    }
    uint32_t *bin = &h->bins[siot_hist_bin(ns)];
    *bin += *bin < UINT32_MAX;
}

void siot_hist_bin_range(unsigned b, uint64_t *lo, uint64_t *hi);
void siot_hist_init1(siot_hist *h, uint64_t ns, int32_t rank, uint64_t occ);
/* Adds one sample; may allocate the bin array from the arena. Returns 0 on OOM. */
int siot_hist_add(siot_arena *a, siot_hist *h, uint64_t ns, int32_t rank, uint64_t occ);
/* Count, mean and M2 of h's samples and k others with that mean and M2
 * (min, max and bins are the caller's). */
void siot_hist_add_moments(siot_hist *h, uint64_t k, double mean, double m2);
/* h += g. */
int siot_hist_merge(siot_arena *a, siot_hist *h, const siot_hist *g);
double siot_hist_stddev(const siot_hist *h);
/* Count in bin b, whether or not the bin array exists. */
uint64_t siot_hist_bin_count(const siot_hist *h, unsigned b);
/* A value drawn from the distribution: a bin chosen by its weight, then a
 * point inside it clamped to [min,max]. u1, u2 uniform in [0,1). */
uint64_t siot_hist_draw(const siot_hist *h, double u1, double u2);

#endif
