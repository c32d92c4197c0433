/* test_expr_hist: expression evaluation and timing histograms against hand values
 * and naive reference computations. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/hist.h"
#include "tests/unit/unit.h"
#include "tests/unit/xbuild.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double urand(void) { return (double)(rng() >> 11) / 9007199254740992.0; } /* [0,1) */

static siot_ctx ctx_at(int64_t rank, uint32_t depth, const uint64_t *iter, uint64_t occ)
{
    siot_ctx c = {.rank = rank, .depth = depth, .iter = iter, .occurrence = occ};
    return c;
}

static int str_is(const siot_value *v, const char *s)
{
    return v->kind == SIOT_V_STR && v->slen == strlen(s) && memcmp(v->s, s, v->slen) == 0 && v->s[v->slen] == 0;
}

/* The log2 bin of ns, by repeated halving. */
static unsigned ref_bin(uint64_t ns)
{
    unsigned b = 0;
    while (ns >= 2) {
        ns /= 2;
        b++;
    }
    return b > SIOT_HBINS - 1 ? SIOT_HBINS - 1 : b;
}

/* Naive two-pass statistics of samples[0..n). */
typedef struct refstats {
    uint64_t count, min, max;
    double mean, sd;
    uint64_t bins[SIOT_HBINS];
} refstats;
static refstats ref_stats(const uint64_t *s, size_t n)
{
    refstats r;
    memset(&r, 0, sizeof r);
    long double sum = 0;
    r.count = n;
    r.min = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        sum += (long double)s[i];
        if (s[i] < r.min)
            r.min = s[i];
        if (s[i] > r.max)
            r.max = s[i];
        r.bins[ref_bin(s[i])]++;
    }
    long double mean = sum / (long double)n, ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += ((long double)s[i] - mean) * ((long double)s[i] - mean);
    r.mean = (double)mean;
    r.sd = (double)sqrtl(ss / (long double)n);
    return r;
}

static int close_rel(double got, double want, double tol)
{
    if (want == 0)
        return fabs(got) <= tol;
    return fabs(got - want) <= tol * fabs(want);
}

static void check_hist(const siot_hist *h, const refstats *r)
{
    CHECK(h->count == r->count);
    CHECK(h->min == r->min);
    CHECK(h->max == r->max);
    CHECK(close_rel(h->mean, r->mean, 1e-9));
    CHECK(close_rel(siot_hist_stddev(h), r->sd, 1e-9));
    int bins_ok = 1;
    for (unsigned b = 0; b < SIOT_HBINS; b++)
        bins_ok &= siot_hist_bin_count(h, b) == r->bins[b];
    CHECK(bins_ok);
}

/* The arena: zeroed 8-aligned blocks; every chunk a mapping of its own,
 * those of 2 MiB and more aligned on 2 MiB (core/arena.c), whose blocks are
 * zeroed and keep their contents when the chunks move to another arena. */
static void test_arena_chunks(void)
{
    siot_arena a, b;
    siot_arena_init(&a);
    siot_arena_init(&b);
    const size_t block = 232, n = (12u << 20) / block; /* 12 MiB: chunks 64 KiB .. 4 MiB */
    int zeroed = 1, aligned8 = 1, huge = 0, huge_aligned = 1, chunks = 0, mapped = 0, whole = 1;
    unsigned char *first = NULL, *last = NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = siot_arena_alloc(&a, block);
        if (!p) {
            CHECK(p != NULL);
            break;
        }
        for (size_t j = 0; j < block; j++)
            zeroed &= p[j] == 0;
        aligned8 &= ((uintptr_t)p & 7) == 0;
        memset(p, (int)(i & 0xff) | 1, block);
        first = first ? first : p;
        last = p;
    }
    for (siot_arena_chunk *c = a.head; c; c = c->next) {
        chunks++;
        if (!c->mapped)
            continue;
        mapped++;
        whole &= ((uintptr_t)c & 4095) == 0 && c->size == c->mapped - sizeof *c;
        if (c->mapped >= (2u << 20)) {
            huge++;
            huge_aligned &= ((uintptr_t)c & ((2u << 20) - 1)) == 0 && c->mapped % (2u << 20) == 0;
        }
    }
    CHECK(zeroed);
    CHECK(aligned8);
    CHECK(mapped == chunks && whole); /* pages resident only once touched, given back when freed */
    CHECK(huge >= 2); /* 64K+128K+...+2M = 4 MiB - 64K, then 4 MiB chunks */
    CHECK(huge_aligned);
    CHECK_EQ_I64(a.used_bytes, n * block);
    siot_arena_take(&b, &a);
    CHECK(a.head == NULL && a.used_bytes == 0);
    CHECK_EQ_I64(b.used_bytes, n * block);
    CHECK(first && first[0] == 1 && last && last[block - 1] == (((n - 1) & 0xff) | 1));
    siot_arena_free(&b);
    CHECK(b.head == NULL && b.used_bytes == 0);
}

int main(void)
{
    test_arena_chunks();
    siot_arena a;
    siot_arena_init(&a);
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    siot_value v;
    const uint64_t noiter[1] = {0};

    /* NONE and CONST. */
    {
        siot_ctx c = ctx_at(3, 0, noiter, 0);
        CHECK(siot_eval(siot_x_none(&a), &c, &scratch, &v) == 0 && v.kind == SIOT_V_NONE);
        CHECK(siot_eval(siot_x_const(&a, -77), &c, &scratch, &v) == 0 && v.kind == SIOT_V_INT && v.i == -77);
        CHECK(siot_eval(siot_x_const(&a, INT64_MIN), &c, &scratch, &v) == 0 && v.i == INT64_MIN);
        CHECK(siot_eval_int(siot_x_const(&a, 12), &c, -1) == 12);
        CHECK(siot_eval_int(siot_x_none(&a), &c, -1) == -1); /* not an integer: the default */
        CHECK(siot_eval(NULL, &c, &scratch, &v) == -1);
    }

    /* AFFINE: base + rcoef*rank + sum coef[k]*iter[k], coef[0] and iter[0] the innermost loop. */
    {
        const int64_t coef3[3] = {2, 100, -10000}; /* inner i, middle j, outer k */
        siot_expr *x3 = unit_affine(&a, 7, 3, 3, coef3);
        int ok = 1;
        for (int64_t r = 0; r < 5; r++)
            for (uint64_t k = 0; k < 3; k++)
                for (uint64_t j = 0; j < 4; j++)
                    for (uint64_t i = 0; i < 5; i++) {
                        const uint64_t it[3] = {i, j, k};
                        siot_ctx c = ctx_at(r, 3, it, 0);
                        int64_t want = 7 + 3 * r + 2 * (int64_t)i + 100 * (int64_t)j - 10000 * (int64_t)k;
                        ok &= siot_eval(x3, &c, &scratch, &v) == 0 && v.kind == SIOT_V_INT && v.i == want;
                        ok &= siot_eval_int(x3, &c, 0) == want;
                    }
        CHECK(ok);
        /* two coefficients inside three loops: only the two innermost loops count */
        const int64_t coef2[2] = {4096, 65536};
        siot_expr *x2 = unit_affine(&a, 1000, 1 << 20, 2, coef2);
        const uint64_t it[3] = {3, 2, 99};
        siot_ctx c = ctx_at(5, 3, it, 0);
        CHECK(siot_eval_int(x2, &c, 0) == 1000 + 5 * (1 << 20) + 3 * 4096 + 2 * 65536);
        /* rank-only progression */
        siot_expr *xr = unit_affine(&a, -4, 8, 0, NULL);
        c = ctx_at(11, 0, noiter, 0);
        CHECK(siot_eval_int(xr, &c, 0) == -4 + 88);
        /* more coefficients than enclosing loops: not covered */
        c = ctx_at(5, 1, it, 0);
        CHECK(siot_eval(x3, &c, &scratch, &v) == -1);
    }

    /* SEQINT and SEQ: picked by occurrence, -1 past the end. */
    {
        siot_expr *s = siot_arena_alloc(&a, sizeof *s);
        int64_t vals[4] = {5, -3, (int64_t)1 << 40, 0};
        s->tag = SIOT_X_SEQINT;
        s->n = 4;
        s->u.vals = vals;
        for (uint64_t o = 0; o < 4; o++) {
            siot_ctx c = ctx_at(0, 0, noiter, o);
            CHECK(siot_eval(s, &c, &scratch, &v) == 0 && v.kind == SIOT_V_INT && v.i == vals[o]);
        }
        siot_ctx c = ctx_at(0, 0, noiter, 4);
        CHECK(siot_eval(s, &c, &scratch, &v) == -1);
        c.occurrence = UINT64_MAX;
        CHECK(siot_eval(s, &c, &scratch, &v) == -1);

        siot_expr *items[3] = {siot_x_const(&a, 1), siot_x_str(&a, "abc", 3), unit_affine(&a, 10, 1, 0, NULL)};
        siot_expr *q = siot_arena_alloc(&a, sizeof *q);
        q->tag = SIOT_X_SEQ;
        q->n = 3;
        q->u.items = items;
        c = ctx_at(6, 0, noiter, 0);
        CHECK(siot_eval(q, &c, &scratch, &v) == 0 && v.kind == SIOT_V_INT && v.i == 1);
        c.occurrence = 1;
        CHECK(siot_eval(q, &c, &scratch, &v) == 0 && str_is(&v, "abc"));
        c.occurrence = 2;
        CHECK(siot_eval(q, &c, &scratch, &v) == 0 && v.kind == SIOT_V_INT && v.i == 16);
        CHECK(siot_eval_int(q, &c, -1) == 16);
        c.occurrence = 3;
        CHECK(siot_eval(q, &c, &scratch, &v) == -1);
        CHECK(siot_eval_int(q, &c, -1) == -1);
    }

    /* RANKED: the entry whose rank list holds the rank; -1 for a rank in no entry. */
    {
        siot_rankedent *ents = siot_arena_alloc(&a, 3 * sizeof *ents);
        siot_rentry *e = siot_arena_alloc(&a, 4 * sizeof *e);
        /* even ranks 0-6 */
        e[0].start = 0, e[0].ndims = 1, e[0].dims[0].count = 4, e[0].dims[0].stride = 2;
        /* ranks 1 and 3, and 11-13 */
        e[1].start = 1, e[1].ndims = 1, e[1].dims[0].count = 2, e[1].dims[0].stride = 2;
        e[2].start = 11, e[2].ndims = 1, e[2].dims[0].count = 3, e[2].dims[0].stride = 1;
        /* rank 9 */
        e[3].start = 9, e[3].ndims = 0;
        ents[0].rl.n = 1, ents[0].rl.e = &e[0], ents[0].x = siot_x_const(&a, 10);
        ents[1].rl.n = 2, ents[1].rl.e = &e[1], ents[1].x = unit_affine(&a, 0, -1, 0, NULL);
        ents[2].rl.n = 1, ents[2].rl.e = &e[3], ents[2].x = siot_x_str(&a, "nine", 4);
        siot_expr *x = siot_arena_alloc(&a, sizeof *x);
        x->tag = SIOT_X_RANKED;
        x->n = 3;
        x->u.ranked = ents;
        const int64_t want[16] = {10, -1, 10, -3, 10, 0, 10, 0, 0, 0, 0, -11, -12, -13, 0, 0};
        const int covered[16] = {1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0};
        int ok = 1;
        for (int r = 0; r < 16; r++) {
            siot_ctx c = ctx_at(r, 0, noiter, 0);
            int rc = siot_eval(x, &c, &scratch, &v);
            if (!covered[r])
                ok &= rc == -1;
            else if (r == 9)
                ok &= rc == 0 && str_is(&v, "nine");
            else
                ok &= rc == 0 && v.kind == SIOT_V_INT && v.i == want[r];
        }
        CHECK(ok);
    }

    /* STR: literal segments and numeric fields, zero-padded or not. */
    {
        siot_strseg segs[3];
        memset(segs, 0, sizeof segs);
        segs[0].lit = "plot_", segs[0].len = 5;
        segs[1].is_field = 1, segs[1].zero_pad = 1, segs[1].width = 4, segs[1].field = unit_affine(&a, 0, 1, 0, NULL);
        segs[2].lit = ".h5", segs[2].len = 3;
        siot_expr *x = siot_arena_alloc(&a, sizeof *x);
        x->tag = SIOT_X_STR;
        x->n = 3;
        x->u.segs = segs;
        siot_ctx c = ctx_at(42, 0, noiter, 0);
        CHECK(siot_eval(x, &c, &scratch, &v) == 0 && str_is(&v, "plot_0042.h5"));
        c.rank = 0;
        CHECK(siot_eval(x, &c, &scratch, &v) == 0 && str_is(&v, "plot_0000.h5"));
        c.rank = 12345; /* wider than the field: all digits kept */
        CHECK(siot_eval(x, &c, &scratch, &v) == 0 && str_is(&v, "plot_12345.h5"));

        /* a field over the loop iteration, not padded, between two literals */
        siot_strseg s2[3];
        memset(s2, 0, sizeof s2);
        const int64_t c1[1] = {5};
        s2[0].lit = "step", s2[0].len = 4;
        s2[1].is_field = 1, s2[1].field = unit_affine(&a, 100, 0, 1, c1);
        s2[2].lit = "/x", s2[2].len = 2;
        siot_expr *y = siot_arena_alloc(&a, sizeof *y);
        y->tag = SIOT_X_STR;
        y->n = 3;
        y->u.segs = s2;
        const uint64_t it[1] = {3};
        c = ctx_at(0, 1, it, 0);
        CHECK(siot_eval(y, &c, &scratch, &v) == 0 && str_is(&v, "step115/x"));
        /* a field that cannot be evaluated makes the string fail */
        c = ctx_at(0, 0, noiter, 0);
        CHECK(siot_eval(y, &c, &scratch, &v) == -1);
        /* a literal with an embedded NUL keeps its length */
        siot_expr *z = siot_x_str(&a, "a\0b", 3);
        CHECK(siot_eval(z, &c, &scratch, &v) == 0 && v.kind == SIOT_V_STR && v.slen == 3 && memcmp(v.s, "a\0b", 3) == 0);
        /* the string value is not an integer */
        CHECK(siot_eval_int(x, &c, -5) == -5);
    }

    /* ARRAY: one integer per element, each evaluated in the context. */
    {
        siot_expr *items[3] = {siot_x_const(&a, 1), unit_affine(&a, 0, 2, 0, NULL), siot_x_const(&a, -5)};
        siot_expr *x = siot_arena_alloc(&a, sizeof *x);
        x->tag = SIOT_X_ARRAY;
        x->n = 3;
        x->u.items = items;
        siot_ctx c = ctx_at(21, 0, noiter, 0);
        CHECK(siot_eval(x, &c, &scratch, &v) == 0 && v.kind == SIOT_V_ARR && v.n == 3);
        CHECK(v.arr[0] == 1 && v.arr[1] == 42 && v.arr[2] == -5);
        const int64_t big[100] = {[0] = 9, [50] = -1, [99] = INT64_MAX};
        siot_expr *y = siot_x_intarray(&a, big, 100);
        CHECK(siot_eval(y, &c, &scratch, &v) == 0 && v.kind == SIOT_V_ARR && v.n == 100);
        CHECK(memcmp(v.arr, big, sizeof big) == 0);
        siot_expr *e = siot_x_intarray(&a, NULL, 0);
        CHECK(siot_eval(e, &c, &scratch, &v) == 0 && v.kind == SIOT_V_ARR && v.n == 0);
    }

    /* Histogram bins: 0,1 -> 0; 2,3 -> 1; 4 -> 2; huge -> last; ranges agree with the bins. */
    {
        CHECK_EQ_I64(siot_hist_bin(0), 0);
        CHECK_EQ_I64(siot_hist_bin(1), 0);
        CHECK_EQ_I64(siot_hist_bin(2), 1);
        CHECK_EQ_I64(siot_hist_bin(3), 1);
        CHECK_EQ_I64(siot_hist_bin(4), 2);
        CHECK_EQ_I64(siot_hist_bin(7), 2);
        CHECK_EQ_I64(siot_hist_bin(8), 3);
        CHECK_EQ_I64(siot_hist_bin(1000), 9);
        CHECK_EQ_I64(siot_hist_bin(1024), 10);
        CHECK_EQ_I64(siot_hist_bin((UINT64_C(1) << 39) - 1), 38);
        CHECK_EQ_I64(siot_hist_bin(UINT64_C(1) << 39), SIOT_HBINS - 1);
        CHECK_EQ_I64(siot_hist_bin(UINT64_C(1) << 45), SIOT_HBINS - 1);
        CHECK_EQ_I64(siot_hist_bin(UINT64_MAX), SIOT_HBINS - 1);
        int ok = 1;
        for (unsigned b = 0; b < SIOT_HBINS; b++) {
            uint64_t lo, hi;
            siot_hist_bin_range(b, &lo, &hi);
            ok &= lo == (b == 0 ? 0 : UINT64_C(1) << b);
            ok &= hi == (b == SIOT_HBINS - 1 ? UINT64_MAX : UINT64_C(1) << (b + 1));
            ok &= siot_hist_bin(lo) == b && siot_hist_bin(hi - 1) == b;
        }
        CHECK(ok);
        for (int i = 0; i < 10000; i++) {
            uint64_t ns = rng() >> (rng() % 64);
            if (siot_hist_bin(ns) != ref_bin(ns)) {
                ok = 0;
                break;
            }
        }
        CHECK(ok);
    }

    /* siot_hist_add vs a naive reference; merge of two halves equals adding everything. */
    {
        enum { N = 2000, PEAK = 1234 };
        uint64_t *s = malloc(N * sizeof *s);
        for (int i = 0; i < N; i++)
            s[i] = (rng() % 1000000) >> (rng() % 20); /* spread over many bins, zeros included */
        s[7] = 0;
        s[8] = 1;
        s[PEAK] = 5000000; /* a unique maximum, in the second half */
        siot_hist all, h1, h2;
        memset(&all, 0, sizeof all);
        memset(&h1, 0, sizeof h1);
        memset(&h2, 0, sizeof h2);
        int added = 1;
        for (int i = 0; i < N; i++) {
            int32_t rank = i % 7;
            uint64_t occ = (uint64_t)i;
            added &= siot_hist_add(&a, &all, s[i], rank, occ);
            added &= siot_hist_add(&a, i < N / 2 ? &h1 : &h2, s[i], rank, occ);
        }
        CHECK(added);
        refstats r = ref_stats(s, N), r1 = ref_stats(s, N / 2), r2 = ref_stats(s + N / 2, N - N / 2);
        check_hist(&all, &r);
        check_hist(&h1, &r1);
        check_hist(&h2, &r2);
        CHECK_EQ_I64(all.max_rank, PEAK % 7);
        CHECK(all.max_occ == PEAK);
        CHECK(siot_hist_merge(&a, &h1, &h2));
        check_hist(&h1, &r);
        CHECK(close_rel(h1.mean, all.mean, 1e-9));
        CHECK(close_rel(siot_hist_stddev(&h1), siot_hist_stddev(&all), 1e-9));
        CHECK_EQ_I64(h1.max_rank, PEAK % 7);
        CHECK(h1.max_occ == PEAK);

        /* maximum in the receiving half: it stays */
        siot_hist g1, g2;
        memset(&g1, 0, sizeof g1);
        memset(&g2, 0, sizeof g2);
        for (int i = 0; i < 10; i++)
            CHECK(siot_hist_add(&a, &g1, 100 + (uint64_t)i, 3, (uint64_t)i));
        CHECK(siot_hist_add(&a, &g1, 999, 4, 77));
        for (int i = 0; i < 10; i++)
            CHECK(siot_hist_add(&a, &g2, 500 + (uint64_t)i, 5, (uint64_t)i));
        CHECK(siot_hist_merge(&a, &g1, &g2));
        CHECK(g1.count == 21 && g1.max == 999 && g1.max_rank == 4 && g1.max_occ == 77 && g1.min == 100);

        /* merging into an empty histogram copies it; merging an empty one changes nothing */
        siot_hist e;
        memset(&e, 0, sizeof e);
        CHECK(siot_hist_merge(&a, &e, &all));
        check_hist(&e, &r);
        CHECK(e.max_rank == all.max_rank && e.max_occ == all.max_occ);
        siot_hist empty;
        memset(&empty, 0, sizeof empty);
        CHECK(siot_hist_merge(&a, &e, &empty));
        check_hist(&e, &r);
        free(s);
    }

    /* Histograms of one sample (no bin array) merge like any other. */
    {
        siot_hist h, one;
        siot_hist_init1(&h, 10, 2, 5);
        CHECK(h.count == 1 && h.min == 10 && h.max == 10 && h.mean == 10.0 && h.bins == NULL);
        CHECK(siot_hist_bin_count(&h, 3) == 1 && siot_hist_bin_count(&h, 2) == 0);
        CHECK(siot_hist_stddev(&h) == 0.0);
        siot_hist_init1(&one, 30, 6, 9);
        CHECK(siot_hist_merge(&a, &h, &one));
        const uint64_t s[2] = {10, 30};
        refstats r = ref_stats(s, 2);
        check_hist(&h, &r);
        CHECK(h.max_rank == 6 && h.max_occ == 9);
        CHECK(close_rel(siot_hist_stddev(&h), 10.0, 1e-12));
    }

    /* siot_hist_draw stays within [min, max]. */
    {
        const uint64_t sets[4][6] = {
            {3, 1000000, 1000000, 17, 4, 5},
            {1023, 1024, 1025, 1026, 1027, 1028},
            {0, 0, 1, 1, 0, 1},
            {UINT64_C(1) << 41, (UINT64_C(1) << 41) + 5, UINT64_C(1) << 50, 7, 9, 11},
        };
        int ok = 1;
        for (int k = 0; k < 4; k++) {
            siot_hist h;
            memset(&h, 0, sizeof h);
            for (int i = 0; i < 6; i++)
                siot_hist_add(&a, &h, sets[k][i], 0, (uint64_t)i);
            for (int i = 0; i < 20000; i++) {
                uint64_t d = siot_hist_draw(&h, urand(), urand());
                ok &= d >= h.min && d <= h.max;
            }
            /* extreme uniforms */
            const double u[4] = {0.0, 0.5, 0.999999999999, 1.0 - 1.0 / 9007199254740992.0};
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    uint64_t d = siot_hist_draw(&h, u[i], u[j]);
                    ok &= d >= h.min && d <= h.max;
                }
        }
        CHECK(ok);
        /* a random histogram of many samples */
        siot_hist h;
        memset(&h, 0, sizeof h);
        for (int i = 0; i < 5000; i++)
            siot_hist_add(&a, &h, 50 + rng() % 100000, 0, 0);
        ok = 1;
        for (int i = 0; i < 50000; i++) {
            uint64_t d = siot_hist_draw(&h, urand(), urand());
            ok &= d >= h.min && d <= h.max;
        }
        CHECK(ok);
        /* one sample: always that sample; none: 0 */
        siot_hist_init1(&h, 777, 0, 0);
        CHECK(siot_hist_draw(&h, 0.3, 0.9) == 777);
        memset(&h, 0, sizeof h);
        CHECK(siot_hist_draw(&h, 0.3, 0.9) == 0);
    }

    siot_vbuf_free(&scratch);
    siot_arena_free(&a);
    return unit_done("expr_hist");
}
