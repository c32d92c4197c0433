/* test_ranklist: rank lists built from sorted rank sets, checked by brute force. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ranklist.h"
#include "tests/unit/unit.h"

#define UNIVERSE 8192 /* every rank of every test set lies in [0, UNIVERSE) */

typedef struct rset {
    const char *name;
    int32_t *r;
    uint32_t n;
} rset;

static uint32_t rng_state = 12345u;
static uint32_t rng(void) { return unit_rng(&rng_state); }

/* Builds a set from a membership array. */
static rset from_mask(const char *name, const uint8_t *in)
{
    rset s = {name, malloc(UNIVERSE * sizeof(int32_t)), 0};
    for (int32_t i = 0; i < UNIVERSE; i++)
        if (in[i])
            s.r[s.n++] = i;
    return s;
}

/* Checks every property of the list built for s; returns the list. */
static siot_ranklist check_set(siot_arena *a, const rset *s)
{
    siot_ranklist rl;
    memset(&rl, 0, sizeof rl);
    int ok = siot_rl_from_sorted(a, &rl, s->r, s->n);
    CHECK(ok);
    if (!ok)
        return rl;
    uint8_t *in = calloc(UNIVERSE, 1);
    for (uint32_t i = 0; i < s->n; i++)
        in[s->r[i]] = 1;

    /* membership equals the input, over the whole universe and just outside it */
    int member_ok = 1;
    for (int64_t r = 0; r < UNIVERSE; r++)
        if (!!siot_rl_contains(&rl, r) != in[r]) {
            member_ok = 0;
            fprintf(stderr, "  set %s: rank %lld membership wrong\n", s->name, (long long)r);
            break;
        }
    CHECK(member_ok);
    CHECK(!siot_rl_contains(&rl, -1));
    CHECK(!siot_rl_contains(&rl, -4096));
    CHECK(!siot_rl_contains(&rl, UNIVERSE + 3));

    CHECK(siot_rl_size(&rl) == s->n);

    /* nth enumerates each input rank exactly once, and index inverts nth */
    uint8_t *seen = calloc(UNIVERSE, 1);
    int nth_ok = 1, index_ok = 1;
    for (uint64_t k = 0; k < s->n; k++) {
        int32_t r = siot_rl_nth(&rl, k);
        if (r < 0 || r >= UNIVERSE || !in[r] || seen[r]) {
            nth_ok = 0;
            break;
        }
        seen[r] = 1;
        if (siot_rl_index(&rl, r) != (int64_t)k)
            index_ok = 0;
    }
    CHECK(nth_ok);
    CHECK(index_ok);
    int noidx_ok = 1;
    for (int64_t r = 0; r < UNIVERSE; r++)
        if (!in[r] && siot_rl_index(&rl, r) != -1)
            noidx_ok = 0;
    CHECK(noidx_ok);

    /* min and max of a non-empty set */
    if (s->n) {
        CHECK_EQ_I64(siot_rl_min(&rl), s->r[0]);
        CHECK_EQ_I64(siot_rl_max(&rl), s->r[s->n - 1]);
    } else {
        CHECK_EQ_I64(siot_rl_min(&rl), -1);
    }

    /* every produced entry is canonical and fits a job of UNIVERSE ranks */
    int canon_ok = 1;
    uint64_t entries_size = 0;
    for (uint32_t i = 0; i < rl.n; i++) {
        if (!siot_rl_entry_ok(&rl.e[i], UNIVERSE) || !siot_rl_entry_ok(&rl.e[i], 1u << 24))
            canon_ok = 0;
        entries_size += siot_rl_entry_size(&rl.e[i]);
    }
    CHECK(canon_ok);
    CHECK(entries_size == s->n);
    /* the tightest job size holding the set is also accepted, one rank fewer is not */
    if (s->n) {
        uint32_t need = (uint32_t)s->r[s->n - 1] + 1;
        int tight_ok = 1, short_rejected = 0;
        for (uint32_t i = 0; i < rl.n; i++) {
            tight_ok &= siot_rl_entry_ok(&rl.e[i], need);
            short_rejected |= !siot_rl_entry_ok(&rl.e[i], need - 1);
        }
        CHECK(tight_ok);
        CHECK(short_rejected);
    }
    free(in);
    free(seen);
    return rl;
}

/* siot_rl_union(x, y) must hold exactly the ranks of mx or my. */
static void check_union(siot_arena *a, const rset *x, const rset *y, const uint8_t *mx, const uint8_t *my)
{
    siot_ranklist lx, ly, u;
    int disjoint = 1;
    for (int32_t r = 0; r < UNIVERSE; r++)
        disjoint &= !(mx[r] && my[r]);
    CHECK(disjoint); /* a precondition of the test case itself */
    CHECK(siot_rl_from_sorted(a, &lx, x->r, x->n));
    CHECK(siot_rl_from_sorted(a, &ly, y->r, y->n));
    CHECK(siot_rl_union(a, &u, &lx, &ly));
    int ok = 1;
    for (int32_t r = 0; r < UNIVERSE; r++)
        if (!!siot_rl_contains(&u, r) != (mx[r] || my[r]))
            ok = 0;
    CHECK(ok);
    CHECK(siot_rl_size(&u) == (uint64_t)x->n + y->n);
    int canon = 1;
    for (uint32_t i = 0; i < u.n; i++)
        canon &= siot_rl_entry_ok(&u.e[i], UNIVERSE);
    CHECK(canon);
}

static siot_rentry ent(int32_t start, uint32_t ndims, const uint32_t *counts, const int32_t *strides)
{
    siot_rentry e;
    memset(&e, 0, sizeof e);
    e.start = start;
    e.ndims = ndims;
    for (uint32_t k = 0; k < ndims && k < SIOT_RL_MAXDIMS; k++) {
        e.dims[k].count = counts[k];
        e.dims[k].stride = strides[k];
    }
    return e;
}

int main(void)
{
    siot_arena a;
    siot_arena_init(&a);
    uint8_t *m = calloc(UNIVERSE, 1);
    rset sets[32];
    int ns = 0;

    /* ---- the test sets, each described by its membership ---- */
#define NEWSET(nm, cond)                           \
    do {                                           \
        for (int32_t i = 0; i < UNIVERSE; i++)     \
            m[i] = (cond) ? 1 : 0;                 \
        sets[ns++] = from_mask(nm, m);             \
    } while (0)
    NEWSET("contiguous 0-99", i < 100);
    NEWSET("contiguous 17-4095", i >= 17 && i < 4096);
    NEWSET("all 4096", i < 4096);
    NEWSET("stride 2 from 3", i >= 3 && i < 4000 && (i - 3) % 2 == 0);
    NEWSET("stride 37", i % 37 == 5 && i < 3000);
    NEWSET("2-D 4 of every 8", i < 4096 && i % 8 < 4);
    NEWSET("2-D 3 of stride 2 every 100", i < 3000 && i % 100 < 6 && i % 2 == 1);
    NEWSET("2-D with a tail rank", (i < 64 && i % 16 < 4) || i == 100);
    NEWSET("3-D 2x3x3", i < 4096 && i % 4 < 2 && (i / 32) % 4 < 3 && (i / 1024) < 3 && (i % 32) < 4);
    NEWSET("pair", i == 10 || i == 500);
    NEWSET("single 42", i == 42);
    NEWSET("single 0", i == 0);
    NEWSET("single 4095", i == 4095);
    NEWSET("empty", 0);
    NEWSET("irregular small", i == 0 || i == 3 || i == 5 || i == 6 || i == 7 || i == 12 || i == 13 || i == 40);
    NEWSET("runs of mixed strides", (i < 10) || (i >= 20 && i < 40 && i % 3 == 2) || (i >= 100 && i < 200 && i % 10 == 0));
    NEWSET("upper universe", i >= 8000);
#undef NEWSET
    /* random sets of several densities */
    const int dens[] = {2, 10, 50, 90, 99};
    static char rnames[5][32];
    for (int d = 0; d < 5; d++) {
        for (int32_t i = 0; i < UNIVERSE; i++)
            m[i] = (int)(rng() % 100) < dens[d];
        snprintf(rnames[d], sizeof rnames[d], "random %d%%", dens[d]);
        sets[ns++] = from_mask(rnames[d], m);
    }

    /* Every set: membership, size, nth/index and canonical entries match the input. */
    for (int i = 0; i < ns; i++)
        check_set(&a, &sets[i]);

    /* Compactness: a regular set costs as many entries for 4 ranks as for 4096. */
    {
        int32_t *r = malloc(4096 * sizeof *r);
        siot_ranklist small, big;
        /* 1-D contiguous */
        for (int i = 0; i < 4; i++)
            r[i] = i;
        CHECK(siot_rl_from_sorted(&a, &small, r, 4));
        for (int i = 0; i < 4096; i++)
            r[i] = i;
        CHECK(siot_rl_from_sorted(&a, &big, r, 4096));
        CHECK_EQ_I64(small.n, 1);
        CHECK_EQ_I64(big.n, small.n);
        /* 1-D strided */
        for (int i = 0; i < 4; i++)
            r[i] = 5 + 3 * i;
        CHECK(siot_rl_from_sorted(&a, &small, r, 4));
        for (int i = 0; i < 4096; i++)
            r[i] = 5 + 3 * i;
        CHECK(siot_rl_from_sorted(&a, &big, r, 4096));
        CHECK_EQ_I64(big.n, small.n);
        CHECK(small.n <= 1);
        /* 2-D: 2x2 block of a 8-wide grid vs 32x128 block of a 64-wide grid */
        const int32_t s4[4] = {0, 1, 8, 9};
        CHECK(siot_rl_from_sorted(&a, &small, s4, 4));
        for (int i = 0; i < 4096; i++)
            r[i] = (i % 32) + 64 * (i / 32);
        CHECK(siot_rl_from_sorted(&a, &big, r, 4096));
        CHECK_EQ_I64(small.n, 1);
        CHECK_EQ_I64(big.n, small.n);
        CHECK_EQ_I64(siot_rl_size(&big), 4096);
        CHECK(siot_rl_contains(&big, 64 * 127 + 31) && !siot_rl_contains(&big, 32));
        /* 3-D: a 2x2x2 corner of an 8x8x8 grid vs a 16x16x16 cube of a 32x32x32 grid */
        const int32_t s8[8] = {0, 1, 8, 9, 64, 65, 72, 73};
        CHECK(siot_rl_from_sorted(&a, &small, s8, 8));
        for (int i = 0; i < 4096; i++)
            r[i] = (i % 16) + 32 * ((i / 16) % 16) + 1024 * (i / 256);
        CHECK(siot_rl_from_sorted(&a, &big, r, 4096));
        CHECK_EQ_I64(small.n, 1);
        CHECK_EQ_I64(big.n, small.n);
        CHECK_EQ_I64(big.e[0].ndims, 3);
        CHECK_EQ_I64(siot_rl_size(&big), 4096);
        CHECK(siot_rl_contains(&big, 15 + 32 * 15 + 1024 * 15) && !siot_rl_contains(&big, 16));
        free(r);
    }

    /* siot_rl_entry_ok: canonical entries inside the job pass, everything else fails. */
    {
        const uint32_t c4_2[2] = {4, 2}, c1[1] = {1}, c0[1] = {0}, c4[1] = {4}, c2_4[2] = {2, 4};
        const uint32_t c5[5] = {2, 2, 2, 2, 2};
        const int32_t s1_2[2] = {1, 2}, s1_3[2] = {1, 3}, s1_4[2] = {1, 4}, s1_8[2] = {1, 8}, s0[1] = {0};
        const int32_t s1[1] = {1}, sm1[1] = {-1}, s2[1] = {2}, s8_1[2] = {8, 1};
        const int32_t s5[5] = {1, 2, 4, 8, 16};
        siot_rentry e;
        /* positive controls */
        e = ent(0, 0, NULL, NULL);
        CHECK(siot_rl_entry_ok(&e, 1));
        e = ent(0, 2, c4_2, s1_8);
        CHECK(siot_rl_entry_ok(&e, 12)); /* {0-3, 8-11} */
        e = ent(0, 2, c4_2, s1_4);
        CHECK(siot_rl_entry_ok(&e, 8)); /* stride 4 > span 3: canonical even if 1-D would do */
        e = ent(0, 4, c5, s5);
        CHECK(siot_rl_entry_ok(&e, 31)); /* 4 dims of 2: max 1+2+4+8 = 15 */
        /* stride 0, negative stride */
        e = ent(0, 1, c4, s0);
        CHECK(!siot_rl_entry_ok(&e, 100));
        e = ent(10, 1, c4, sm1);
        CHECK(!siot_rl_entry_ok(&e, 100));
        /* count 1 and count 0 */
        e = ent(0, 1, c1, s1);
        CHECK(!siot_rl_entry_ok(&e, 100));
        e = ent(0, 1, c0, s1);
        CHECK(!siot_rl_entry_ok(&e, 100));
        /* overlapping dims: outer stride not larger than the inner span */
        e = ent(0, 2, c4_2, s1_2);
        CHECK(!siot_rl_entry_ok(&e, 100));
        e = ent(0, 2, c4_2, s1_3); /* {0-3} and {3-6} share rank 3 */
        CHECK(!siot_rl_entry_ok(&e, 100));
        e = ent(0, 2, c2_4, s8_1); /* decreasing strides */
        CHECK(!siot_rl_entry_ok(&e, 100));
        /* start < 0 */
        e = ent(-1, 0, NULL, NULL);
        CHECK(!siot_rl_entry_ok(&e, 100));
        e = ent(-2, 1, c4, s1);
        CHECK(!siot_rl_entry_ok(&e, 100));
        /* beyond nranks: the largest member must be < nranks */
        e = ent(16, 0, NULL, NULL);
        CHECK(!siot_rl_entry_ok(&e, 16));
        e = ent(15, 0, NULL, NULL);
        CHECK(siot_rl_entry_ok(&e, 16));
        e = ent(10, 1, c4, s2); /* max 16 */
        CHECK(!siot_rl_entry_ok(&e, 16));
        CHECK(siot_rl_entry_ok(&e, 17));
        e = ent(0, 1, c4, (const int32_t[1]){INT32_MAX});
        CHECK(!siot_rl_entry_ok(&e, 1u << 24));
        e = ent(0, 2, (const uint32_t[2]){UINT32_MAX, UINT32_MAX}, (const int32_t[2]){1, INT32_MAX});
        CHECK(!siot_rl_entry_ok(&e, UINT32_MAX));
        /* too many dims */
        e = ent(0, 4, c5, s5);
        e.ndims = 5;
        CHECK(!siot_rl_entry_ok(&e, 1000));
    }

    /* siot_rl_union of two disjoint sets is their union (brute force). */
    {
        /* pairs of disjoint sets, by membership predicate */
#define UNION_CASE(cx, cy)                                                   \
    do {                                                                     \
        uint8_t *mx = calloc(UNIVERSE, 1), *my = calloc(UNIVERSE, 1);        \
        for (int32_t i = 0; i < UNIVERSE; i++) {                             \
            mx[i] = (cx) ? 1 : 0;                                            \
            my[i] = (cy) ? 1 : 0;                                            \
        }                                                                    \
        rset x = from_mask("x", mx), y = from_mask("y", my);                 \
        check_union(&a, &x, &y, mx, my);                                     \
        free(x.r);                                                           \
        free(y.r);                                                           \
        free(mx);                                                            \
        free(my);                                                            \
    } while (0)
        UNION_CASE(i < 100, i >= 8000);
        UNION_CASE(i < 4000 && i % 2 == 1, i == 10 || i == 500);
        UNION_CASE(i < 4096 && i % 8 < 4, i < 4096 && i % 8 >= 4);
        UNION_CASE(i % 37 == 5, i % 37 == 6 || i == 7000);
        UNION_CASE(0, i < 50);
        UNION_CASE(0, 0);
        UNION_CASE(i == 3, i == 4);
#undef UNION_CASE
        /* two interleaved halves of 0-15 re-encode as the single range 0-15 */
        const int32_t xa[8] = {0, 1, 2, 3, 8, 9, 10, 11}, ya[8] = {4, 5, 6, 7, 12, 13, 14, 15};
        siot_ranklist lx, ly, u;
        CHECK(siot_rl_from_sorted(&a, &lx, xa, 8));
        CHECK(siot_rl_from_sorted(&a, &ly, ya, 8));
        CHECK(siot_rl_union(&a, &u, &lx, &ly));
        CHECK_EQ_I64(u.n, 1);
        CHECK_EQ_I64(siot_rl_size(&u), 16);
        CHECK(siot_rl_contains(&u, 0) && siot_rl_contains(&u, 15) && !siot_rl_contains(&u, 16));
    }

    /* Two progressions, one below the other (the merge's tree unites
     * [0, 2^k) with [2^k, 2^(k+1)) at every level): siot_rl_union takes
     * them without listing their ranks, and gives exactly the list that
     * siot_rl_from_sorted makes of all their ranks, whether they go on as
     * one progression or not. */
    {
        int32_t *all = malloc(2 * UNIVERSE * sizeof *all);
        uint32_t same = 0, one = 0;
        for (int k = 0; k < 3000; k++) {
            uint32_t cx = 1 + rng() % 40, cy = 1 + rng() % 40, s = 1 + rng() % 7;
            int32_t x0 = (int32_t)(rng() % 200);
            /* the second goes on from the first, or leaves a gap, or has its own stride */
            uint32_t how = rng() % 3, sy = how == 2 ? 1 + rng() % 7 : s;
            int32_t y0 = x0 + (int32_t)(cx * s) + (how == 1 ? (int32_t)(rng() % 5) : 0);
            uint32_t n = 0;
            for (uint32_t i = 0; i < cx; i++)
                all[n++] = x0 + (int32_t)(i * s);
            for (uint32_t i = 0; i < cy; i++)
                all[n++] = y0 + (int32_t)(i * sy);
            siot_ranklist lx, ly, u, want;
            CHECK(siot_rl_from_sorted(&a, &lx, all, cx));
            CHECK(siot_rl_from_sorted(&a, &ly, all + cx, cy));
            CHECK(siot_rl_from_sorted(&a, &want, all, n));
            CHECK(siot_rl_union(&a, &u, k % 2 ? &lx : &ly, k % 2 ? &ly : &lx));
            same += siot_rl_equal(&u, &want);
            one += u.n == 1;
        }
        CHECK_EQ_I64(same, 3000);
        CHECK(one > 1000); /* the pairs that go on as one */
        free(all);
    }

    /* siot_rl_single and siot_rl_equal. */
    {
        siot_ranklist s1, s2, s3;
        CHECK(siot_rl_single(&a, &s1, 7));
        CHECK(siot_rl_size(&s1) == 1 && siot_rl_contains(&s1, 7) && !siot_rl_contains(&s1, 6) &&
              !siot_rl_contains(&s1, 8));
        const int32_t seven[1] = {7}, eight[1] = {8};
        CHECK(siot_rl_from_sorted(&a, &s2, seven, 1));
        CHECK(siot_rl_equal(&s1, &s2));
        CHECK(siot_rl_from_sorted(&a, &s3, eight, 1));
        CHECK(!siot_rl_equal(&s1, &s3));
    }

    for (int i = 0; i < ns; i++)
        free(sets[i].r);
    free(m);
    siot_arena_free(&a);
    return unit_done("ranklist");
}
