/* format_hist: histograms, an event's computation and duration and the
 * ranks' time summaries (docs/format.md: hist, and "Minor 1", "Minor 2",
 * "Minor 6" and "Minor 8").
 *
 * Writes and reads a histogram: its count (minor 8: as the difference from
 * what its ranks and loops predict), min and max (2-byte times in the file
 * form), the maximum's rank and occurrence, and for two samples or more the
 * mean and M2 (integers where they give the same doubles back, else 3- and
 * 2-byte floats in the file form) and the nonzero bins from min's up
 * (fractions of the count in the file form, bins under 1/255 folded into a
 * neighbour). The head is written by put_hist_head (core/format_int.h,
 * inline for the NODES section); the rest, and reading it all, is here.
 * The reader checks the moments against min and max and the bins against
 * the count, so that merging what it read stays finite.
 *
 * Part of the trace format (core/format_int.h); locks, signals and errors
 * as core/format.h says. */
#include "core/format_int.h"

#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/hist.h"

/* Bins as fractions of the count, in 255ths: a bin under 1/255 of the count
 * is folded into its nearest kept neighbour, so the number of bins does not
 * grow with the count as outliers spread out. */
/* The histogram's nonzero bins as a bit mask, four at a time (a loop's
 * histogram has a few bins of 40 set, and the passes below visit those
 * only). */
_Static_assert(SIOT_HBINS % 4 == 0 && SIOT_HBINS <= 64, "bins in whole vectors of 4, one mask word");

static uint64_t nonzero_bins(const siot_hist *h)
{
    uint64_t m = 0;
    if (!h->bins)
        return 0;
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();
    for (unsigned i = 0; i < SIOT_HBINS; i += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(h->bins + i));
        unsigned z = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, zero)));
        m |= (uint64_t)(~z & 15u) << i;
    }
#else
    for (unsigned i = 0; i < SIOT_HBINS; i++)
        m |= (uint64_t)(h->bins[i] != 0) << i;
#endif
    return m;
}

/* nz: nonzero_bins(h). Returns the mask of the nonzero q[i]. */
static uint64_t quantize_bins(const siot_hist *h, uint64_t nz, uint8_t q[SIOT_HBINS])
{
    if (h->count <= 255) { /* every sample is 1/255 of the count or more: no bin folds */
        memset(q, 0, SIOT_HBINS);
        for (uint64_t m = nz; m; m &= m - 1) {
            unsigned i = (unsigned)__builtin_ctzll(m);
            uint64_t v = ((uint64_t)h->bins[i] * 255 + h->count / 2) / h->count;
            q[i] = (uint8_t)(v == 0 ? 1 : v > 255 ? 255 : v);
        }
        return nz;
    }
    uint64_t c[SIOT_HBINS] = {0};
    for (uint64_t m = nz; m; m &= m - 1)
        c[__builtin_ctzll(m)] = h->bins[__builtin_ctzll(m)];
    for (uint64_t m = nz; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        if (!c[i] || c[i] * 255 >= h->count)
            continue;
        int to = -1;
        for (unsigned d = 1; d < SIOT_HBINS && to < 0; d++) {
            if (i >= d && c[i - d] * 255 >= h->count)
                to = (int)(i - d);
            else if (i + d < SIOT_HBINS && c[i + d] * 255 >= h->count)
                to = (int)(i + d);
        }
        if (to >= 0) {
            c[to] += c[i];
            c[i] = 0;
            nz &= ~(1ULL << i); /* to was kept: its bit is set */
        }
    }
    memset(q, 0, SIOT_HBINS);
    for (uint64_t m = nz; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        uint64_t v = (c[i] * 255 + h->count / 2) / h->count;
        q[i] = (uint8_t)(v == 0 ? 1 : v > 255 ? 255 : v);
    }
    return nz;
}

/* The first bin of the mask. In the file form min is rounded, and rounding
 * to nearest can move it up into the next bin (2047 -> 2048) but never down:
 * anchoring one bin below the bin of the stored min covers both cases, and the
 * reader computes the same anchor from what it reads. */
static unsigned mask_anchor(uint64_t min, int exact)
{
    if (exact)
        return siot_hist_bin(min);
    uint64_t r = time16_value(time16(min));
    unsigned b = siot_hist_bin(r);
    return r >= 1024 && b > 0 ? b - 1 : b;
}

/* The value the reader gets for a histogram's min: the base of the compact
 * mean (below). */
static uint64_t stored_min(uint64_t min, int exact) { return exact ? min : time16_value(time16(min)); }

/* Compact histograms (flag 32): the form's bits say which of mean, M2 and
 * the bins are written as integers. Each is used only when the reader's
 * arithmetic gives back the very same double (or bin counts), so nothing of
 * what the f64 form kept is lost. */
enum { HF_MEAN_SUM = 1, HF_M2_INT = 2, HF_BINS_EXACT = 4 };
enum { F24_BYTES = 3, F24_MBITS = 18, F24_BIAS = 16 };
/* Minor 6: the standard deviation in 2 bytes, m·2^(e−20), e<<10|m */
enum { F16_BYTES = 2, F16_MBITS = 10, F16_BIAS = 20 };
enum { FLOAT_EMAX = 63 }; /* both floats' exponents: 6 bits */

/* The sum of the samples S with (double)S / count == mean, written as
 * S - count*base (base: the min the reader sees). The reader's computation,
 * shared by both sides. */
static int sum_to_mean(uint64_t count, uint64_t base, int64_t delta, double *mean)
{
    uint64_t cb, s;
    if (__builtin_mul_overflow(count, base, &cb))
        return -1;
    s = cb + (uint64_t)delta;
    if (delta >= 0 ? s < cb : s > cb)
        return -1;
    *mean = (double)s / (double)count;
    return 0;
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int mean_as_delta(const siot_hist *h, uint64_t base, unsigned maxlen, int64_t *delta)
{
    double target = h->mean * (double)h->count;
    if (!(target >= 0 && target < 1e18))
        return 0;
    uint64_t s0 = (uint64_t)(target + 0.5), cb;
    if (__builtin_mul_overflow(h->count, base, &cb) || cb > (uint64_t)INT64_MAX)
        return 0;
    for (uint64_t s = s0 ? s0 - 1 : 0; s <= s0 + 1; s++) {
        double m;
        int64_t d = (int64_t)s - (int64_t)cb;
        if (sum_to_mean(h->count, base, d, &m) == 0 && same_double(m, h->mean) && uvar_len(siot_zigzag(d)) <= maxlen) {
            *delta = d;
            return 1;
        }
    }
    return 0;
}

/* count*M2 is an integer for integer samples (n·Σx² − (Σx)²); written as
 * one when it gives M2 back exactly and takes at most maxlen bytes. */
static int m2_as_int(const siot_hist *h, unsigned maxlen, uint64_t *k)
{
    double target = h->m2 * (double)h->count;
    if (!(target >= 0 && target < 1e15))
        return 0;
    uint64_t k0 = (uint64_t)(target + 0.5);
    for (uint64_t v = k0 ? k0 - 1 : 0; v <= k0 + 1; v++)
        if (same_double((double)v / (double)h->count, h->m2) && uvar_len(v) <= maxlen) {
            *k = v;
            return 1;
        }
    return 0;
}

/* Bins as exact counts, the last one implied by the count: when they add up
 * to it, and in the file form only below 255 samples, where the fractions
 * give the counts back exactly anyway. */
static int bins_exact(const siot_hist *h, uint64_t nz, unsigned lo, int exact)
{
    if (!h->bins || h->count > UINT32_MAX || (!exact && h->count >= 255))
        return 0;
    uint64_t sum = 0;
    for (uint64_t m = nz >> lo << lo; m; m &= m - 1)
        sum += h->bins[__builtin_ctzll(m)];
    return sum == h->count;
}

/* mask: bit i - lo for bin i (from lo up) of what is written */
static void enc_bins(siot_vbuf *b, const siot_hist *h, const uint8_t *q, unsigned lo, uint64_t mask, int form,
                     int exact)
{
    for (uint64_t m = mask; m; m &= m - 1) {
        unsigned i = lo + (unsigned)__builtin_ctzll(m);
        if ((form & HF_BINS_EXACT) && (m & (m - 1)) == 0)
            break; /* the last: the count minus the others */
        if (exact || (form & HF_BINS_EXACT))
            siot_vbuf_uvar(b, h->bins[i]);
        else
            siot_vbuf_u8(b, q[i]);
    }
}

static int dec_hist_bins(dec *d, siot_hist *h, unsigned lo, uint64_t mask, int form)
{
    uint64_t sum = 0;
    for (unsigned b = lo; b < SIOT_HBINS && !d->rd.err; b++) {
        if (!(mask >> (b - lo) & 1))
            continue;
        if ((form & HF_BINS_EXACT) && (mask >> (b - lo)) == 1) {
            if (sum >= h->count || h->count - sum > UINT32_MAX)
                return dfail(d, "histogram bins do not add up to its count");
            h->bins[b] = (uint32_t)(h->count - sum);
        } else if ((d->t->flags & SIOT_TF_QBINS) && !(form & HF_BINS_EXACT)) {
            uint8_t q = siot_rd_u8(&d->rd);
            uint64_t v = (q * h->count + 127) / 255;
            h->bins[b] = (uint32_t)(v == 0 ? 1 : v > UINT32_MAX ? UINT32_MAX : v);
        } else {
            h->bins[b] = (uint32_t)siot_rd_uvar_max(&d->rd, UINT32_MAX, "histogram bin count out of range");
            sum += h->bins[b];
        }
    }
    return d->rd.err ? -1 : 0;
}

/* The integer forms replace a double (exact) while shorter than its 8
 * bytes, and in the file form a float while not longer than it (the mean's
 * 3 bytes, the standard deviation's 2). */
static int moments_form(const siot_hist *h, int exact, int64_t *delta, uint64_t *k)
{
    return (mean_as_delta(h, stored_min(h->min, exact), exact ? 7 : F24_BYTES, delta) ? HF_MEAN_SUM : 0) |
           (m2_as_int(h, exact ? 7 : F16_BYTES, k) ? HF_M2_INT : 0);
}

/* Minor 2 (flag 64), the file form: a mean that no exact integer gives back
 * in 3 bytes is m·2^(e−16) in 3 bytes, e<<18|m (m of 18 bits, at least 2^17
 * when e > 0): a relative error under 4e-6, far below the clock's 1e-4
 * (src/clock.c), and a size that does not grow with the samples as the
 * exact sum does. Minor 6 (flag 128): the standard deviation, a measure of
 * spread known to a few percent from the samples themselves, in 2 bytes,
 * m·2^(e−20), e<<10|m (m of 10 bits, at least 2^9 when e > 0): to 2^-10,
 * about the 0.1% to which the minimum and maximum are kept, from 0.001 ns
 * to 104 days. */
static uint32_t fcode(double v, unsigned mbits, int bias)
{
    uint32_t max = (uint32_t)FLOAT_EMAX << mbits | ((1u << mbits) - 1);
    if (!(v > 0))
        return 0;
    if (!isfinite(v))
        return max; /* (a histogram's moments are finite: not reached) */
    int x;
    frexp(v, &x); /* v = f·2^x, f in [0.5, 1): m = f·2^mbits needs e = x + bias − mbits */
    int e = x + bias - (int)mbits < 0 ? 0 : x + bias - (int)mbits;
    if (e > FLOAT_EMAX)
        return max;
    uint64_t m = (uint64_t)llround(ldexp(v, bias - e));
    if (m >> mbits) { /* rounded up to 2^mbits */
        m >>= 1;
        e++;
    }
    return e > FLOAT_EMAX ? max : (uint32_t)e << mbits | (uint32_t)m;
}

static double fcode_value(uint32_t code, unsigned mbits, int bias)
{
    return ldexp((double)(code & ((1u << mbits) - 1)), (int)(code >> mbits) - bias);
}

/* The float's code, little-endian in `bytes` bytes (dec_float reads it). */
static void put_float(siot_vbuf *b, double v, unsigned bytes, unsigned mbits, int bias)
{
    uint32_t c = fcode(v, mbits, bias);
    uint8_t t[4];
    for (unsigned i = 0; i < bytes; i++)
        t[i] = (uint8_t)(c >> (8 * i));
    siot_vbuf_put(b, t, bytes);
}

/* A 3-byte float of minor 2 (flag 64), a 2-byte one of minor 6 (flag
 * 128); the canonical code only. */
static double dec_float(dec *d, unsigned bytes, unsigned mbits, int bias)
{
    uint32_t c = 0;
    for (unsigned i = 0; i < bytes; i++)
        c |= (uint32_t)siot_rd_u8(&d->rd) << (8 * i);
    if (!d->rd.err && (c >> mbits) > 0 && (c & ((1u << mbits) - 1)) >> (mbits - 1) == 0)
        dfail(d, "histogram moment not normalised");
    return fcode_value(c, mbits, bias);
}

static double dec_f24(dec *d) { return dec_float(d, F24_BYTES, F24_MBITS, F24_BIAS); }

/* The standard deviation the file form keeps of M2 (M2 = count·sd²): it
 * lies in the range of the samples, as a mean does, so one float form fits. */
static double hist_sd(const siot_hist *h) { return h->m2 > 0 ? sqrt(h->m2 / (double)h->count) : 0; }

size_t siot_hist_moments_size(const siot_hist *h)
{
    if (h->count < 2)
        return 0;
    int64_t delta = 0;
    uint64_t k = 0;
    int form = moments_form(h, 0, &delta, &k);
    return (form & HF_MEAN_SUM ? uvar_len(siot_zigzag(delta)) : F24_BYTES) +
           (form & HF_M2_INT ? uvar_len(k) : F16_BYTES);
}

/* Mean and M2: doubles, or in the compact form the integers of
 * siot_fmt_enc_hist_stats, or with flag 64 3-byte floats of the mean and the
 * standard deviation instead of the doubles. */
static int dec_hist_moments(dec *d, siot_hist *h, int form)
{
    int f24s = (d->t->flags & SIOT_TF_MOMENTS24) != 0;
    if (form & HF_MEAN_SUM) {
        int64_t delta = siot_rd_svar(&d->rd);
        if (!d->rd.err && sum_to_mean(h->count, h->min, delta, &h->mean) != 0)
            return dfail(d, "histogram sum out of range");
    } else {
        h->mean = f24s ? dec_f24(d) : siot_rd_f64(&d->rd);
    }
    if (form & HF_M2_INT) {
        h->m2 = (double)siot_rd_uvar(&d->rd) / (double)h->count;
    } else if (f24s) {
        double sd = d->t->flags & SIOT_TF_SD16 ? dec_float(d, F16_BYTES, F16_MBITS, F16_BIAS) : dec_f24(d);
        h->m2 = (double)h->count * sd * sd;
    } else {
        h->m2 = siot_rd_f64(&d->rd);
    }
    if (d->rd.err)
        return -1;
    if (!isfinite(h->mean) || !isfinite(h->m2) || h->m2 < 0)
        return dfail(d, "histogram statistics are not finite numbers");
    /* A mean lies between the minimum and the maximum, and M2 is at most
     * count x range^2 (with room for the file form's 0.1% rounding of them):
     * so merging two histograms stays finite. */
    double low = (double)h->min * 0.995 - 1, high = (double)h->max * 1.005 + 1;
    if (h->mean < low || h->mean > high || h->m2 > (double)h->count * (high - low) * (high - low))
        return dfail(d, "histogram statistics outside its minimum and maximum");
    return 0;
}

/* count >= 2 in the compact form: uvar mask<<3|form, mean, M2, bins. Out of
 * line: put_hist, inline for the single sample of most events, calls it. */
__attribute__((noinline)) void siot_fmt_enc_hist_stats(siot_vbuf *b, const siot_hist *h, int exact)
{
    uint8_t q[SIOT_HBINS];
    uint64_t nz = nonzero_bins(h), written = exact ? nz : quantize_bins(h, nz, q);
    /* Every sample lies in [min, max]: a bit mask of the bins from min's up,
     * then one value per set bit. */
    unsigned lo = mask_anchor(h->min, exact);
    uint64_t mask = written >> lo, k = 0;
    int64_t delta = 0;
    int form = moments_form(h, exact, &delta, &k) | (bins_exact(h, nz, lo, exact) ? HF_BINS_EXACT : 0);
    siot_vbuf_uvar(b, mask << 3 | (uint64_t)form);
    if (form & HF_MEAN_SUM)
        siot_vbuf_svar(b, delta);
    else if (exact)
        siot_vbuf_f64(b, h->mean);
    else
        put_float(b, h->mean, F24_BYTES, F24_MBITS, F24_BIAS);
    if (form & HF_M2_INT)
        siot_vbuf_uvar(b, k);
    else if (exact)
        siot_vbuf_f64(b, h->m2);
    else
        put_float(b, hist_sd(h), F16_BYTES, F16_MBITS, F16_BIAS);
    enc_bins(b, h, q, lo, mask, form, exact);
}

/* The file form rounds min to nearest, which can lift it into the next bin
 * (2047 -> 2048) above a sample the bins still hold: min comes back down to
 * the top of the lowest bin that has samples (within that rounding), so
 * that the trace written again in the exact form, which anchors its bins at
 * min's, keeps them all. */
static void min_to_lowest_bin(siot_hist *h)
{
    unsigned b = 0;
    while (b < SIOT_HBINS && !h->bins[b])
        b++;
    if (b < siot_hist_bin(h->min)) {
        uint64_t lo, hi;
        siot_hist_bin_range(b, &lo, &hi);
        h->min = hi - 1;
    }
}

/* count >= 2: minor 0 writes mean, M2, mask, bins; the compact form (flag
 * 32) mask<<3|form first. Minor 9's rank-time summary reads it after a
 * head of its own (core/format_ranktimes.c). */
int siot_fmt_dec_hist_stats(dec *d, siot_hist *h)
{
    int compact = (d->t->flags & SIOT_TF_COMPACT) != 0, form = 0;
    uint64_t mask = 0;
    if (compact) {
        uint64_t v = siot_rd_uvar(&d->rd);
        form = (int)(v & 7);
        mask = v >> 3;
    }
    if (dec_hist_moments(d, h, form))
        return -1;
    h->bins = dalloc(d, SIOT_HBINS * sizeof *h->bins);
    if (!h->bins)
        return -1;
    unsigned lo = siot_hist_bin(h->min);
    if ((d->t->flags & SIOT_TF_QBINS) && h->min >= 1024 && lo > 0)
        lo--; /* the writer's anchor: see mask_anchor */
    if (!compact)
        mask = siot_rd_uvar(&d->rd);
    if (!d->rd.err && (mask >> (SIOT_HBINS - lo)) != 0)
        return dfail(d, "histogram bin out of range");
    if ((form & HF_BINS_EXACT) && mask == 0)
        return dfail(d, "histogram bins do not add up to its count");
    if (dec_hist_bins(d, h, lo, mask, form))
        return -1;
    if (d->t->flags & SIOT_TF_QBINS)
        min_to_lowest_bin(h);
    return 0;
}

static int dec_hist_times(dec *d, siot_hist *h)
{
    if (d->t->flags & SIOT_TF_QBINS) {
        uint64_t tv[2];
        for (int i = 0; i < 2; i++) {
            unsigned code = siot_rd_u8(&d->rd);
            code |= (unsigned)siot_rd_u8(&d->rd) << 8;
            unsigned e = code >> 10, m = code & 1023;
            if (e > 53)
                return dfail(d, "histogram time out of range");
            tv[i] = (uint64_t)m << e;
        }
        h->min = tv[0];
        h->max = tv[1];
        if (h->min > h->max)
            return dfail(d, "histogram minimum above its maximum");
    } else {
        h->min = siot_rd_uvar(&d->rd);
        uint64_t span = siot_rd_uvar(&d->rd);
        if (span > UINT64_MAX - h->min)
            return dfail(d, "histogram maximum out of range");
        h->max = h->min + span;
    }
    return d->rd.err ? -1 : 0;
}

int siot_fmt_dec_hist(dec *d, siot_hist *h, uint64_t expect)
{
    memset(h, 0, sizeof *h);
    h->max_rank = -1;
    h->count = siot_rd_uvar(&d->rd);
    if (expect != SIOT_HIST_NO_EXPECT && (d->t->flags & SIOT_TF_PCOUNT))
        h->count = count_of_code(h->count, expect);
    if (h->count == 0)
        return d->rd.err ? -1 : 0;
    if (dec_hist_times(d, h))
        return -1;
    if (d->t->flags & SIOT_TF_COMPACT) {
        uint64_t v = siot_rd_uvar(&d->rd);
        if (!d->rd.err && (v >> 1) > d->t->nranks)
            return dfail(d, "histogram rank out of range");
        h->max_rank = (int32_t)(v >> 1) - 1;
        h->max_occ = v & 1 ? 0 : siot_rd_uvar(&d->rd);
    } else {
        uint64_t r = siot_rd_uvar_max(&d->rd, d->t->nranks, "histogram rank out of range");
        h->max_rank = (int32_t)r - 1;
        h->max_occ = siot_rd_uvar(&d->rd);
    }
    if (h->count == 1) {
        h->mean = (double)h->min;
        return d->rd.err ? -1 : 0;
    }
    if (d->rd.err)
        return -1;
    return siot_fmt_dec_hist_stats(d, h);
}

size_t siot_hist_size(const siot_hist *h, uint64_t expect, siot_vbuf *scratch)
{
    scratch->len = 0;
    uint8_t *d = siot_vbuf_reserve(scratch, HIST_HEAD_MAX) ? put_hist(scratch, scratch->data, h, 0, 0, expect) : NULL;
    if (d)
        scratch->len = (size_t)(d - scratch->data);
    return scratch->len;
}

void siot_hist_parts(const siot_hist *h, uint64_t expect, siot_vbuf *scratch, uint64_t part[SIOT_HIST_PARTS])
{
    uint64_t total = siot_hist_size(h, expect, scratch);
    uint8_t head[HIST_HEAD_MAX];
    memset(part, 0, SIOT_HIST_PARTS * sizeof *part);
    part[0] = uvar_len(count_code(h->count, expect));
    if (h->count == 0)
        return;
    part[1] = 4; /* two 16-bit times in the file form */
    part[2] = (uint64_t)(put_hist_head(head, h, 0, expect) - head) - part[0] - part[1];
    part[3] = siot_hist_moments_size(h);
    part[4] = total - part[0] - part[1] - part[2] - part[3];
}
