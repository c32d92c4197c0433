/* timefold: timing histograms kept within SIOT_TOLERANCE
 * (compress/timefold.h). */
#include "compress/timefold.h"

#include <math.h>

#include "compress/merge.h"

/* The significant bits that keep a value within pct percent whichever way
 * it is rounded: truncating v to m bits loses less than v * 2^(1-m). */
static unsigned kept_bits(double pct)
{
    unsigned m = 1;
    while (m < 52 && ldexp(1.0, 1 - (int)m) > pct / 100)
        m++;
    return m;
}

/* Under this many samples the file form writes a mean and M2 as the
 * integers that give them back exactly when they fit in as few bytes as
 * its floats (core/format_hist.c): rounded, they would not, and take more. */
#define ROUND_MOMENTS_FROM 255

static unsigned bit_length(uint64_t v) { return v ? 64u - (unsigned)__builtin_clzll(v) : 0; }

static uint64_t round_down(uint64_t v, unsigned m)
{
    unsigned n = bit_length(v);
    return n <= m ? v : v >> (n - m) << (n - m);
}

static uint64_t round_up(uint64_t v, unsigned m)
{
    unsigned n = bit_length(v);
    uint64_t d = round_down(v, m);
    if (d == v)
        return v;
    uint64_t up = d + (1ULL << (n - m));
    return up < d ? v : up; /* past UINT64_MAX: left as it was */
}

static double round_nearest(double v, unsigned m)
{
    if (!(v > 0) || !isfinite(v))
        return v;
    int e;
    double f = frexp(v, &e); /* v = f * 2^e, f in [0.5, 1) */
    return ldexp(nearbyint(ldexp(f, (int)m)), e - (int)m);
}

/* The least filled bins go to their nearest kept neighbour (the lower one
 * when two are as near), as long as what moved stays within pct percent of
 * the count: a sample keeps its bin or moves with at most pct% of the
 * others, whatever the shape (a flat spread over many bins keeps them). */
static int fold_bins(siot_hist *h, double pct)
{
    if (!h->bins)
        return 0;
    unsigned order[SIOT_HBINS], n = 0;
    for (unsigned i = 0; i < SIOT_HBINS; i++)
        if (h->bins[i])
            order[n++] = i;
    for (unsigned i = 1; i < n; i++) /* by count, fewest first (insertion: at most 40) */
        for (unsigned j = i; j > 0 && h->bins[order[j]] < h->bins[order[j - 1]]; j--) {
            unsigned x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    double budget = pct / 100 * (double)h->count;
    int kept[SIOT_HBINS] = {0}, changed = 0;
    unsigned folded = 0;
    while (folded + 1 < n && (double)h->bins[order[folded]] <= budget)
        budget -= (double)h->bins[order[folded++]];
    for (unsigned k = folded; k < n; k++)
        kept[order[k]] = 1;
    for (unsigned k = 0; k < folded; k++) {
        unsigned i = order[k], to = order[n - 1];
        for (unsigned d = 1; d < SIOT_HBINS; d++) {
            if (i >= d && kept[i - d]) {
                to = i - d;
                break;
            }
            if (i + d < SIOT_HBINS && kept[i + d]) {
                to = i + d;
                break;
            }
        }
        uint64_t sum = (uint64_t)h->bins[to] + h->bins[i];
        h->bins[to] = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
        h->bins[i] = 0;
        changed = 1;
    }
    return changed;
}

int siot_timefold_hist(siot_hist *h, double pct)
{
    if (h->count == 0 || !(pct > 0 && pct <= 100))
        return 0;
    siot_hist before = *h;
    unsigned m = kept_bits(pct);
    int changed = fold_bins(h, pct);
    if (h->count == 1) {
        h->min = h->max = round_down(h->min, m);
        h->mean = (double)h->min;
    } else {
        h->min = round_down(h->min, m);
        h->max = round_up(h->max, m);
    }
    if (h->count > ROUND_MOMENTS_FROM) {
        double mean = round_nearest(h->mean, m), sd = round_nearest(sqrt(h->m2 / (double)h->count), m);
        h->mean = mean < (double)h->min ? (double)h->min : mean > (double)h->max ? (double)h->max : mean;
        h->m2 = sd * sd * (double)h->count;
    }
    h->max_rank = -1;
    h->max_occ = 0;
    return changed || h->min != before.min || h->max != before.max || h->mean != before.mean ||
           h->m2 != before.m2 || h->max_rank != before.max_rank || h->max_occ != before.max_occ;
}

static uint64_t fold_node(siot_node *n, double pct)
{
    if (n->kind == SIOT_N_LOOP) {
        uint64_t done = 0;
        for (uint32_t i = 0; i < n->u.loop.nbody; i++)
            done += fold_node(n->u.loop.body[i], pct);
        return done;
    }
    return (uint64_t)siot_timefold_hist(&n->u.ev.comp, pct) + (uint64_t)siot_timefold_hist(&n->u.ev.dur, pct);
}

uint64_t siot_timefold(siot_trace *t)
{
    uint64_t done = 0;
    double pct = siot_trace_tolerance(t);
    if (!(pct > 0 && pct <= 100))
        return 0;
    for (uint32_t i = 0; i < t->ntop; i++)
        done += fold_node(t->top[i], pct);
    return done;
}
