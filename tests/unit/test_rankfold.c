/* test_rankfold: the residue pass (compress/rankfold.c) keeps every rank's
 * value and finds the period.
 *
 * Random per-rank tables as the pairwise merge leaves them (entries of 1 to
 * 4 consecutive ranks, each a progression through its ranks' values) over
 * P = 3..300 ranks, some ranks absent, with values that are (a) a per-class
 * progression base[r % m] + step[r % m]*r for m = 1..8, or (b) random. For
 * each: every present rank's value is the same after the pass (siot_eval),
 * and in (a), with every class holding two ranks or more and the table at
 * more than m entries, it becomes one value by residue of at most m entries
 * (one progression when m = 1), or one value by quotient when that is
 * shorter (5*(r%2) = 5*r - 10*(r/2)).
 *
 * Groups of g ranks (a node's ranks, a grid's rows): tables of
 * base + c*r + d*(r/g) for g = 2..8, with the loop term 1000*i0 on every
 * entry or none, some ranks absent: every present rank's value at every
 * iteration is the same after the pass, and with no rank absent, at least
 * three groups and d no multiple of g (no residue class is then one
 * progression), the value is one value by quotient of at most g per group
 * whose size in the file is at most 16 bytes at any rank count.
 *
 * Request batches: per-rank tables of arrays of request ids
 * first + step*j, j < n(r), with n(r) = 10 + 5*(r % 3) (or random) over
 * pairs of ranks as the merge leaves them: every rank's array is the same
 * after the pass, and the value is one range whose form (as siot dump
 * prints it) is the same at any rank count when n(r) is periodic. */
#include <stdlib.h>
#include <string.h>

#include "compress/merge.h"
#include "compress/rankfold.h"
#include "core/expr.h"
#include "core/format.h"
#include "core/ranklist.h"
#include "tests/unit/unit.h"

#define MAXP 300 /* and 4 rows of 64 columns */

static siot_expr *rank_fn(siot_arena *a, int64_t base, int64_t step)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    x->tag = step ? SIOT_X_AFFINE : SIOT_X_CONST;
    x->base = base;
    x->rcoef = step;
    return x;
}

/* The table of values v over the present ranks, in merge-like pieces. */
static siot_expr *pieces(siot_arena *a, const int64_t *v, const uint8_t *have, int P, uint32_t *rng)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    x->tag = SIOT_X_RANKED;
    x->u.ranked = siot_arena_alloc(a, MAXP * sizeof *x->u.ranked);
    int32_t ranks[4];
    for (int r = 0; r < P;) {
        int len = 1 + (int)(unit_rng(rng) % 4), n = 0;
        for (int k = r; k < P && k < r + len; k++)
            if (have[k])
                ranks[n++] = k;
        r += len;
        if (!n)
            continue;
        int64_t step = n > 1 ? (v[ranks[1]] - v[ranks[0]]) / (ranks[1] - ranks[0]) : 0;
        int affine = 1;
        for (int i = 0; i < n; i++)
            affine &= v[ranks[0]] + step * (ranks[i] - ranks[0]) == v[ranks[i]];
        for (int i = 0; i < n; i += affine ? n : 1) {
            siot_rankedent *e = &x->u.ranked[x->n++];
            siot_rl_from_sorted(a, &e->rl, &ranks[i], affine ? (uint32_t)n : 1);
            e->x = affine ? rank_fn(a, v[ranks[0]] - step * ranks[0], step) : rank_fn(a, v[ranks[i]], 0);
        }
    }
    return x;
}

/* t as a job's trace of P ranks with one event whose argument is *arg,
 * through the residue pass (arg rewritten in place). */
static void pass_on_one_event(siot_trace *t, siot_expr **arg, int P)
{
    static siot_node n, *top;
    memset(&n, 0, sizeof n);
    top = &n;
    n.kind = SIOT_N_EVENT;
    n.u.ev.nargs = 1;
    n.u.ev.args = arg;
    t->top = &top;
    t->ntop = 1;
    t->nranks = P;
    siot_rank_periodic(t);
}

static void one(uint32_t *rng, int periodic)
{
    siot_trace t;
    siot_trace_init(&t);
    int P = 3 + (int)(unit_rng(rng) % (MAXP - 2)), m = 1 + (int)(unit_rng(rng) % 8);
    int64_t v[MAXP], base[8], step[8];
    uint8_t have[MAXP];
    for (int c = 0; c < m; c++) {
        base[c] = (int64_t)(unit_rng(rng) % 1000) - 500;
        step[c] = (int64_t)(unit_rng(rng) % 5) - 2;
    }
    int holes = unit_rng(rng) % 3 == 0, count[8] = {0};
    for (int r = 0; r < P; r++) {
        have[r] = !holes || unit_rng(rng) % 4 != 0;
        v[r] = periodic ? base[r % m] + step[r % m] * r : (int64_t)(unit_rng(rng) % 7);
        count[r % m] += have[r];
    }
    siot_expr *arg = pieces(&t.arena, v, have, P, rng);
    uint32_t before = arg->n;
    pass_on_one_event(&t, &arg, P);
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    for (int r = 0; r < P; r++) {
        if (!have[r])
            continue;
        siot_ctx c = {.rank = r};
        siot_value got;
        CHECK(siot_eval(arg, &c, &scratch, &got) == 0 && got.kind == SIOT_V_INT && got.i == v[r]);
    }
    int every = 1;
    for (int c = 0; c < m; c++)
        every &= count[c] >= 2;
    if (periodic && every && before > (uint32_t)m && 2 * m <= P)
        CHECK(m == 1 ? arg->tag != SIOT_X_RANKED
                     : (arg->tag == SIOT_X_RMOD && arg->n <= (uint32_t)m) || arg->tag == SIOT_X_RDIV);
    siot_vbuf_free(&scratch);
    siot_trace_free(&t);
}

/* The table of v over the present ranks, every entry with the loop term
 * tail*i0 (tail 0: none). */
static void with_tail(siot_arena *a, siot_expr *x, int64_t tail)
{
    for (uint32_t i = 0; tail && i < x->n; i++) {
        siot_expr *e = x->u.ranked[i].x;
        e->tag = SIOT_X_AFFINE;
        e->n = 1;
        e->u.coef = siot_arena_alloc(a, sizeof *e->u.coef);
        e->u.coef[0] = tail;
    }
}

/* Every present rank's value at iteration 3 of the loop: v[r] + 3*tail. */
static void check_every_rank(const siot_expr *arg, const int64_t *v, const uint8_t *have, int P, int64_t tail)
{
    for (int r = 0; r < P; r++) {
        uint64_t iter[1] = {3};
        siot_ctx ctx = {.rank = r, .depth = 1, .iter = iter};
        if (have[r])
            CHECK_EQ_I64(siot_eval_int(arg, &ctx, INT64_MIN), v[r] + 3 * tail);
    }
}

/* One table of base + c*r + d*group(r) with a loop term or not, some ranks
 * missing or not: by quotient, group(r) = r/g; by digits (g = 0), the
 * decimal digits of r less one, the bytes of a line that prints the rank.
 * Every present rank's value kept; with every rank present, a value by
 * quotient when the groups are no residue classes' progressions (3 groups
 * or more, d not a multiple of g), a value by digits over 101 ranks or
 * more (three groups of digits: nothing else fits), of at most 16 bytes. */
static void grouped_one(uint32_t *rng, int digits)
{
    siot_trace t;
    siot_trace_init(&t);
    int g = digits ? 0 : 2 + (int)(unit_rng(rng) % 7);
    int P = digits ? 11 + (int)(unit_rng(rng) % (MAXP - 11)) : g + 1 + (int)(unit_rng(rng) % (MAXP - g - 1));
    int64_t base = (int64_t)(unit_rng(rng) % 1000) - 500;
    int64_t c = digits ? (int64_t)(unit_rng(rng) % 5) - 2 : (int64_t)(unit_rng(rng) % 201) - 100;
    int64_t d = digits ? 1 + (int64_t)(unit_rng(rng) % 9) : (int64_t)(unit_rng(rng) % 2001) - 1000;
    int64_t tail = unit_rng(rng) % 2 ? 1000 : 0, v[MAXP];
    uint8_t have[MAXP];
    int holes = unit_rng(rng) % 3 == 0;
    for (int r = 0; r < P; r++) {
        have[r] = !holes || unit_rng(rng) % 4 != 0;
        /* digits by hand, not siot_decimal_digits */
        v[r] = base + c * r + d * (digits ? (r < 10 ? 0 : r < 100 ? 1 : 2) : r / g);
    }
    have[0] = 1;
    siot_expr *arg = pieces(&t.arena, v, have, P, rng);
    with_tail(&t.arena, arg, tail);
    pass_on_one_event(&t, &arg, P);
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    check_every_rank(arg, v, have, P, tail);
    if (!holes && !digits && P >= 3 * g && d % g != 0)
        CHECK(arg->tag == SIOT_X_RDIV && arg->len >= 2 && arg->len <= (uint64_t)g);
    if (!holes && digits && P >= 101)
        CHECK(arg->tag == SIOT_X_RDIG && arg->sum == d);
    if (!holes && (digits ? P >= 101 : P >= 3 * g && d % g != 0))
        CHECK(siot_expr_size(arg, &scratch) <= 16);
    siot_vbuf_free(&scratch);
    siot_trace_free(&t);
}

/* The request ids rank r passes to its Waitall: a table over pairs of ranks. */
static siot_expr *id_arrays(siot_arena *a, int P, int periodic, int64_t first, uint32_t *rng, uint32_t *len)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    x->tag = SIOT_X_RANKED;
    x->u.ranked = siot_arena_alloc(a, MAXP * sizeof *x->u.ranked);
    for (int r = 0; r < P; r++) {
        len[r] = periodic ? 10 + 5 * (uint32_t)(r % 3) : unit_rng(rng) % 30;
        int64_t ids[40];
        for (uint32_t j = 0; j < len[r]; j++)
            ids[j] = first + (int64_t)j;
        siot_rankedent *e = &x->u.ranked[x->n++];
        siot_rl_from_sorted(a, &e->rl, &r, 1);
        e->x = siot_x_intarray(a, ids, len[r]);
    }
    return x;
}

static size_t one_batch(uint32_t *rng, int P, int periodic)
{
    siot_trace t;
    siot_trace_init(&t);
    uint32_t len[MAXP];
    int64_t first = unit_rng(rng) % 4;
    siot_expr *arg = id_arrays(&t.arena, P, periodic, first, rng, len);
    pass_on_one_event(&t, &arg, P);
    CHECK(arg->tag == SIOT_X_RANGE);
    siot_vbuf scratch, enc;
    siot_vbuf_init(&scratch);
    for (int r = 0; r < P; r++) {
        siot_ctx c = {.rank = r};
        siot_value got;
        int ok = siot_eval(arg, &c, &scratch, &got) == 0 && got.kind == SIOT_V_ARR && got.n == len[r];
        for (uint32_t j = 0; ok && j < len[r]; j++)
            ok = got.arr[j] == first + (int64_t)j;
        CHECK(ok);
    }
    siot_vbuf_init(&enc);
    siot_x_format(arg, &enc);
    size_t size = enc.len;
    siot_vbuf_free(&enc);
    siot_vbuf_free(&scratch);
    siot_trace_free(&t);
    return size;
}

static void batches(uint32_t *rng)
{
    size_t at6 = one_batch(rng, 6, 1);
    for (int P = 7; P <= MAXP; P += 13)
        CHECK_EQ_I64(one_batch(rng, P, 1), at6);
    for (int i = 0; i < 200; i++)
        one_batch(rng, 3 + (int)(unit_rng(rng) % (MAXP - 2)), 0);
    printf("rankfold: request-id arrays over 6..300 ranks as one range, the same size at any rank count\n");
}

/* The ranks' "clock" notes merged: one clock stays itself, two are named. */
static void clock_notes(void)
{
    static const char *const clocks[][3] = {
        {"tsc", "tsc", "tsc"},
        {"CLOCK_MONOTONIC", "CLOCK_MONOTONIC", "CLOCK_MONOTONIC"},
        {"tsc", "CLOCK_MONOTONIC", "tsc on some ranks, CLOCK_MONOTONIC on others"},
        {"CLOCK_MONOTONIC", "tsc", "tsc on some ranks, CLOCK_MONOTONIC on others"},
    };
    for (unsigned i = 0; i < sizeof clocks / sizeof *clocks; i++) {
        siot_trace a, b, c;
        siot_trace_init(&a);
        siot_trace_init(&b);
        siot_trace_init(&c);
        CHECK(siot_trace_set_kv(&a, "clock", clocks[i][0]) == 0 && siot_trace_set_kv(&b, "clock", clocks[i][1]) == 0);
        CHECK(siot_trace_set_kv(&c, "clock", clocks[i][1]) == 0);
        CHECK(siot_merge_notes(&a, &b) == 0 && siot_merge_notes(&a, &c) == 0);
        const char *got = siot_trace_get_kv(&a, "clock");
        CHECK(got && strcmp(got, clocks[i][2]) == 0);
        siot_trace_free(&a);
        siot_trace_free(&b);
        siot_trace_free(&c);
    }
}

/* A process grid of w columns and 4 rows: a rank's left neighbour, -2
 * (MPI_PROC_NULL) in the first column, and its right one, as the merge
 * leaves them. They become values by residue mod w whose size in the file
 * (runs of equal classes, format minor 3) is the same for every w from 3 to
 * 64, every rank's value kept. The north neighbours (-2 on the first row,
 * rank-w below) follow no period: cut again into two pieces, whatever
 * pieces the merge left (right: 0 west, 1 east, 2 north). */
static size_t grid_value(uint32_t *rng, int w, int right)
{
    siot_trace t;
    siot_trace_init(&t);
    int P = 4 * w;
    int64_t v[MAXP];
    uint8_t have[MAXP];
    for (int r = 0; r < P; r++) {
        have[r] = 1;
        v[r] = right ? (r % w == w - 1 ? -2 : r + 1) : (r % w == 0 ? -2 : r - 1);
        if (right == 2) /* north */
            v[r] = r < w ? -2 : r - w;
    }
    siot_expr *arg = pieces(&t.arena, v, have, P, rng);
    pass_on_one_event(&t, &arg, P);
    if (right == 2) /* no period: one piece for the first row, one for the rest */
        CHECK(arg->tag == SIOT_X_RANKED && arg->n == 2);
    else
        CHECK(arg->tag == SIOT_X_RMOD && arg->n == (uint32_t)w);
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    for (int r = 0; r < P; r++) {
        siot_ctx c = {.rank = r};
        CHECK_EQ_I64(siot_eval_int(arg, &c, 99), v[r]);
    }
    size_t size = siot_expr_size(arg, &scratch);
    siot_vbuf_free(&scratch);
    siot_trace_free(&t);
    return size;
}

static void grids(uint32_t *rng)
{
    for (int right = 0; right < 2; right++) {
        size_t at3 = grid_value(rng, 3, right);
        for (int w = 4; w <= 64; w++)
            CHECK_EQ_I64(grid_value(rng, w, right), at3);
    }
    for (int w = 3; w <= 64; w++)
        grid_value(rng, w, 2);
    printf("rankfold: grid neighbours over 3..64 columns, one value by residue of the same size (west, east),\n"
           "          two pieces (north)\n");
}

int main(void)
{
    clock_notes();
    uint32_t rng = 20261126;
    for (int i = 0; i < 2000; i++)
        one(&rng, i % 3 != 0);
    printf("rankfold: 2000 tables over 3..300 ranks (2 in 3 periodic, mod 1..8), every rank's value kept\n");
    for (int i = 0; i < 2000; i++)
        grouped_one(&rng, 0);
    printf("rankfold: 2000 tables of base + c*r + d*(r/g) over g+1..300 ranks (g = 2..8), every rank's value\n"
           "          kept, one value by quotient of at most 16 bytes\n");
    for (int i = 0; i < 2000; i++)
        grouped_one(&rng, 1);
    printf("rankfold: 2000 tables of base + c*r + d*(digits of r - 1) over 11..300 ranks, every rank's value\n"
           "          kept, one value by digits of at most 16 bytes over 101 ranks or more\n");
    batches(&rng);
    grids(&rng);
    return unit_done("rankfold");
}
