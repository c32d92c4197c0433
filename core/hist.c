#include "core/hist.h"

#include <math.h>
#include <string.h>

void siot_hist_bin_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
    *lo = b == 0 ? 0 : (uint64_t)1 << b;
    *hi = b >= SIOT_HBINS - 1 ? UINT64_MAX : (uint64_t)1 << (b + 1);
}

void siot_hist_init1(siot_hist *h, uint64_t ns, int32_t rank, uint64_t occ)
{
    memset(h, 0, sizeof *h);
    h->count = 1;
    h->min = h->max = ns;
    h->mean = (double)ns;
    h->max_rank = rank;
    h->max_occ = occ;
}

static int ensure_bins(siot_arena *a, siot_hist *h)
{
    if (h->bins)
        return 1;
    h->bins = siot_arena_alloc(a, SIOT_HBINS * sizeof *h->bins);
    if (!h->bins)
        return 0;
    if (h->count == 1)
        h->bins[siot_hist_bin(h->min)] = 1;
    return 1;
}

uint64_t siot_hist_bin_count(const siot_hist *h, unsigned b)
{
    if (b >= SIOT_HBINS)
        return 0;
    if (h->bins)
        return h->bins[b];
    return (h->count == 1 && siot_hist_bin(h->min) == b) ? 1 : 0;
}

int siot_hist_add(siot_arena *a, siot_hist *h, uint64_t ns, int32_t rank, uint64_t occ)
{
    if (h->count == 0) {
        siot_hist_init1(h, ns, rank, occ);
        return 1;
    }
    if (!ensure_bins(a, h))
        return 0;
    siot_hist_add_binned(h, ns, &rank, occ);
    return 1;
}

/* The pairwise update of Chan et al.: the moments of h's samples and of k
 * others (their mean, their M2) as those of all. */
void siot_hist_add_moments(siot_hist *h, uint64_t k, double mean, double m2)
{
    double n1 = (double)h->count, n2 = (double)k, n = n1 + n2;
    double d = mean - h->mean;
    h->m2 += m2 + d * d * n1 * n2 / n;
    h->mean += d * n2 / n;
    h->count += k;
}

int siot_hist_merge(siot_arena *a, siot_hist *h, const siot_hist *g)
{
    if (g->count == 0)
        return 1;
    if (h->count == 0) {
        uint32_t *bins = NULL;
        if (g->bins) {
            bins = siot_arena_alloc(a, SIOT_HBINS * sizeof *bins);
            if (!bins)
                return 0;
            memcpy(bins, g->bins, SIOT_HBINS * sizeof *bins);
        }
        *h = *g;
        h->bins = bins;
        return 1;
    }
    if (!ensure_bins(a, h))
        return 0;
    siot_hist_add_moments(h, g->count, g->mean, g->m2);
    if (g->min < h->min)
        h->min = g->min;
    if (g->max > h->max) {
        h->max = g->max;
        h->max_rank = g->max_rank;
        h->max_occ = g->max_occ;
    }
    if (!g->bins) { /* binned as siot_hist_bin_count says: one sample, its one bin */
        uint32_t *bin = &h->bins[siot_hist_bin(g->min)];
        *bin += g->count == 1 && *bin < UINT32_MAX;
        return 1;
    }
    for (unsigned b = 0; b < SIOT_HBINS; b++) { /* a loop the compiler vectorises */
        uint64_t s = (uint64_t)h->bins[b] + g->bins[b];
        h->bins[b] = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
    }
    return 1;
}

double siot_hist_stddev(const siot_hist *h)
{
    if (h->count < 2 || !(h->m2 > 0))
        return 0.0;
    return sqrt(h->m2 / (double)h->count);
}

uint64_t siot_hist_draw(const siot_hist *h, double u1, double u2)
{
    if (h->count == 0)
        return 0;
    if (h->count == 1 || h->min == h->max)
        return h->min;
    uint64_t total = 0;
    for (unsigned b = 0; b < SIOT_HBINS; b++)
        total += siot_hist_bin_count(h, b);
    if (total == 0)
        return (uint64_t)h->mean;
    uint64_t pick = (uint64_t)(u1 * (double)total);
    unsigned b = 0;
    for (; b < SIOT_HBINS; b++) {
        uint64_t c = siot_hist_bin_count(h, b);
        if (pick < c)
            break;
        pick -= c;
    }
    if (b >= SIOT_HBINS)
        b = SIOT_HBINS - 1;
    uint64_t lo, hi;
    siot_hist_bin_range(b, &lo, &hi);
    if (lo < h->min)
        lo = h->min;
    if (hi > h->max)
        hi = h->max + 1;
    if (hi <= lo)
        return lo < h->min ? h->min : lo > h->max ? h->max : lo;
    uint64_t v = lo + (uint64_t)(u2 * (double)(hi - lo));
    /* Bins from an untrusted file need not agree with min and max. */
    return v < h->min ? h->min : v > h->max ? h->max : v;
}
