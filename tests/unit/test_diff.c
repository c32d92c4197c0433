/* test_diff: siot_diff compares the expanded events of two traces, timing aside. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/expr.h"
#include "core/hist.h"
#include "replay/compare.h"
#include "core/format.h"
#include "core/roles.h"
#include "tests/unit/unit.h"

static const char *const pw_an[] = {"fd", "count", "offset"};
static const uint8_t pw_ar[] = {SIOT_ROLE_fd, SIOT_ROLE_count, SIOT_ROLE_offset};
static const char *const cl_an[] = {"fd"};
static const uint8_t cl_ar[] = {SIOT_ROLE_fd};
static const siot_funcdesc FUNCS[2] = {
    {"pwrite", SIOT_LAYER_posix, SIOT_CLASS_write, SIOT_ROLE_r_bytes, 3, pw_an, pw_ar},
    {"close", SIOT_LAYER_posix, SIOT_CLASS_close, SIOT_ROLE_r_int, 1, cl_an, cl_ar},
};

static siot_ranklist ranks_range(siot_arena *a, int32_t first, uint32_t n)
{
    siot_ranklist rl = {1, siot_arena_alloc(a, sizeof(siot_rentry))};
    rl.e[0].start = first;
    if (n > 1) {
        rl.e[0].ndims = 1;
        rl.e[0].dims[0].count = n;
        rl.e[0].dims[0].stride = 1;
    }
    return rl;
}

static void trace_init(siot_trace *t, uint32_t nranks)
{
    siot_trace_init(t);
    t->nranks = nranks;
    t->nfuncs = 2;
    t->funcs = siot_arena_alloc(&t->arena, sizeof FUNCS);
    memcpy(t->funcs, FUNCS, sizeof FUNCS);
    t->top = siot_arena_alloc(&t->arena, 16 * sizeof *t->top);
}

/* pwrite(3, 100, offset) = 100 on the given ranks, with timing histograms of `samples` samples from `seed`. */
static siot_node *pwrite_node(siot_trace *t, siot_ranklist ranks, siot_expr *offset, int samples, uint64_t seed)
{
    siot_arena *a = &t->arena;
    siot_node *n = siot_arena_alloc(a, sizeof *n);
    n->kind = SIOT_N_EVENT;
    n->ranks = ranks;
    siot_event *e = &n->u.ev;
    e->func = 0;
    e->thread = siot_x_const(a, 0);
    e->parent = siot_x_const(a, 0);
    e->ret = siot_x_const(a, 100);
    e->err = siot_x_const(a, 0);
    e->bytes = siot_x_const(a, 100);
    e->nargs = 3;
    e->args = siot_arena_alloc(a, 3 * sizeof *e->args);
    e->args[0] = siot_x_const(a, 3);
    e->args[1] = siot_x_const(a, 100);
    e->args[2] = offset;
    for (int i = 0; i < samples; i++) {
        siot_hist_add(a, &e->comp, seed * 1000 + (uint64_t)i * 17, i % 2, (uint64_t)i);
        siot_hist_add(a, &e->dur, seed * 7 + (uint64_t)i * 3, i % 2, (uint64_t)i);
    }
    return n;
}

static void push(siot_trace *t, siot_node *n) { t->top[t->ntop++] = n; }

/* Three pwrite nodes at offsets 0, 100, 200 on every rank. */
static void build_flat(siot_trace *t, uint32_t nranks, int samples, uint64_t seed)
{
    trace_init(t, nranks);
    for (int k = 0; k < 3; k++)
        push(t, pwrite_node(t, ranks_range(&t->arena, 0, nranks), siot_x_const(&t->arena, 100 * k), samples, seed));
    siot_trace_index(t);
}

/* The same three writes as one loop of 3 whose offset is base + coef * iteration. */
static void build_loop(siot_trace *t, uint32_t nranks, int64_t coef)
{
    trace_init(t, nranks);
    siot_arena *a = &t->arena;
    siot_expr *off = siot_arena_alloc(a, sizeof *off);
    off->tag = SIOT_X_AFFINE;
    off->n = 1;
    off->u.coef = siot_arena_alloc(a, sizeof(int64_t));
    off->u.coef[0] = coef;
    siot_node *body = pwrite_node(t, ranks_range(a, 0, nranks), off, 5, 9);
    siot_node *l = siot_arena_alloc(a, sizeof *l);
    l->kind = SIOT_N_LOOP;
    l->ranks = ranks_range(a, 0, nranks);
    l->u.loop.count = siot_x_const(a, 3);
    l->u.loop.nbody = 1;
    l->u.loop.body = siot_arena_alloc(a, sizeof *l->u.loop.body);
    l->u.loop.body[0] = body;
    push(t, l);
    siot_trace_index(t);
}

/* Runs siot_diff into a temporary file; returns its code and the text. */
static int run_diff(const siot_trace *x, const siot_trace *y, char *out, size_t outlen)
{
    FILE *fp = tmpfile();
    char err[256] = "";
    int rc = siot_diff(x, y, NULL, fp, err, sizeof err);
    rewind(fp);
    size_t n = fread(out, 1, outlen - 1, fp);
    out[n] = 0;
    fclose(fp);
    if (rc < 0)
        fprintf(stderr, "  siot_diff error: %s\n", err);
    return rc;
}

int main(void)
{
    char out[4096];
    siot_trace flat, flat_t, loop, loop_bad, changed, changed0, more_ranks, longer, other_ret, other_func;

    /* Same events, different timing histograms: equal, in both directions, silently. */
    build_flat(&flat, 2, 1, 1);
    build_flat(&flat_t, 2, 50, 123);
    CHECK(flat.top[0]->u.ev.dur.count != flat_t.top[0]->u.ev.dur.count); /* the timings do differ */
    CHECK(run_diff(&flat, &flat_t, out, sizeof out) == 0);
    CHECK(out[0] == 0);
    CHECK(run_diff(&flat_t, &flat, out, sizeof out) == 0);
    CHECK(run_diff(&flat, &flat, out, sizeof out) == 0);

    /* One argument changed in event 2 of rank 1 only: different, and the report names rank 1, event 2. */
    trace_init(&changed, 2);
    for (int k = 0; k < 2; k++)
        push(&changed, pwrite_node(&changed, ranks_range(&changed.arena, 0, 2), siot_x_const(&changed.arena, 100 * k),
                                   1, 1));
    push(&changed, pwrite_node(&changed, ranks_range(&changed.arena, 0, 1), siot_x_const(&changed.arena, 200), 1, 1));
    push(&changed, pwrite_node(&changed, ranks_range(&changed.arena, 1, 1), siot_x_const(&changed.arena, 999), 1, 1));
    siot_trace_index(&changed);
    CHECK(run_diff(&flat, &changed, out, sizeof out) == 1);
    CHECK(strstr(out, "rank 1 event 2") != NULL);
    CHECK(strstr(out, "rank 0") == NULL);
    CHECK(strstr(out, "999") != NULL && strstr(out, "200") != NULL);
    CHECK(run_diff(&changed, &flat, out, sizeof out) == 1);
    CHECK(strstr(out, "rank 1 event 2") != NULL);

    /* A change in the first event of rank 1 is reported as event 0. */
    trace_init(&changed0, 2);
    push(&changed0, pwrite_node(&changed0, ranks_range(&changed0.arena, 0, 1), siot_x_const(&changed0.arena, 0), 1, 1));
    push(&changed0, pwrite_node(&changed0, ranks_range(&changed0.arena, 1, 1), siot_x_const(&changed0.arena, 1), 1, 1));
    for (int k = 1; k < 3; k++)
        push(&changed0,
             pwrite_node(&changed0, ranks_range(&changed0.arena, 0, 2), siot_x_const(&changed0.arena, 100 * k), 1, 1));
    siot_trace_index(&changed0);
    CHECK(run_diff(&flat, &changed0, out, sizeof out) == 1);
    CHECK(strstr(out, "rank 1 event 0") != NULL);

    /* Different numbers of ranks. */
    build_flat(&more_ranks, 3, 1, 1);
    CHECK(run_diff(&flat, &more_ranks, out, sizeof out) == 1);
    CHECK(out[0] != 0);

    /* Flat events vs a loop of 3 with an AFFINE offset 100*i: the same events. */
    build_loop(&loop, 2, 100);
    CHECK(run_diff(&flat, &loop, out, sizeof out) == 0);
    CHECK(run_diff(&loop, &flat, out, sizeof out) == 0);
    /* ...and with 101*i they differ from event 1 on (rank 0 first). */
    build_loop(&loop_bad, 2, 101);
    CHECK(run_diff(&flat, &loop_bad, out, sizeof out) == 1);
    CHECK(strstr(out, "rank 0 event 1") != NULL);

    /* One trace going on after the other ends. */
    build_flat(&longer, 2, 1, 1);
    push(&longer, pwrite_node(&longer, ranks_range(&longer.arena, 0, 2), siot_x_const(&longer.arena, 300), 1, 1));
    siot_trace_index(&longer);
    CHECK(run_diff(&flat, &longer, out, sizeof out) == 1);
    CHECK(strstr(out, "rank 0") != NULL && strstr(out, "event 3") != NULL);
    CHECK(run_diff(&longer, &flat, out, sizeof out) == 1);

    /* A different return value, and a different function with the same arguments. */
    build_flat(&other_ret, 2, 1, 1);
    other_ret.top[1]->u.ev.ret = siot_x_const(&other_ret.arena, -1);
    CHECK(run_diff(&flat, &other_ret, out, sizeof out) == 1);
    CHECK(strstr(out, "rank 0 event 1") != NULL);
    build_flat(&other_func, 2, 1, 1);
    other_func.funcs[1].nargs = 3; /* a second 3-argument function named "close" */
    other_func.funcs[1].argnames = pw_an;
    other_func.funcs[1].argroles = pw_ar;
    other_func.top[2]->u.ev.func = 1;
    CHECK(run_diff(&flat, &other_func, out, sizeof out) == 1);
    CHECK(strstr(out, "rank 0 event 2") != NULL);

    /* The function table order does not matter: events are compared by name. */
    siot_trace swapped;
    build_flat(&swapped, 2, 1, 1);
    swapped.funcs[0] = FUNCS[1];
    swapped.funcs[1] = FUNCS[0];
    for (uint32_t i = 0; i < swapped.ntop; i++)
        swapped.top[i]->u.ev.func = 1;
    CHECK(run_diff(&flat, &swapped, out, sizeof out) == 0);

    /* Events are named by their seq in their own trace (siot dump --jsonl's),
     * parents too, not by their place among the compared events: the first
     * trace's event 0 left out (a call a replay did not reissue), its
     * event 2 (parent 1) against the second's event 1 (parent 0), which
     * differs by its offset. */
    siot_trace nest_a, nest_b;
    trace_init(&nest_a, 1);
    trace_init(&nest_b, 1);
    for (int k = 0; k < 3; k++)
        push(&nest_a, pwrite_node(&nest_a, ranks_range(&nest_a.arena, 0, 1), siot_x_const(&nest_a.arena, k ? 100 * k : 7), 1, 1));
    for (int k = 1; k < 3; k++)
        push(&nest_b, pwrite_node(&nest_b, ranks_range(&nest_b.arena, 0, 1), siot_x_const(&nest_b.arena, 100 * k + (k == 2)), 1, 1));
    nest_a.top[2]->u.ev.parent = siot_x_const(&nest_a.arena, 1);
    nest_b.top[1]->u.ev.parent = siot_x_const(&nest_b.arena, 1);
    siot_trace_index(&nest_a);
    siot_trace_index(&nest_b);
    const int64_t left[] = {0}, *left_per_rank[] = {left};
    const uint64_t n_left[] = {1};
    siot_diff_filter flt = {.left_out = left_per_rank, .n_left_out = n_left};
    siot_compare_result res;
    char err[256] = "";
    FILE *fp = tmpfile();
    CHECK(siot_compare(&nest_a, &nest_b, &flt, 10, fp, &res, err, sizeof err) == 1);
    rewind(fp);
    out[fread(out, 1, sizeof out - 1, fp)] = 0;
    fclose(fp);
    CHECK(res.compared == 2 && res.differences == 1);
    const char *want = "rank 0 event 2 differs (event 1 of the second trace):\n"
                       "< \"pwrite\" parent=1 args={fd:3,count:100,offset:200} ret=100 errno=0 bytes=100\n"
                       "> \"pwrite\" parent=0 args={fd:3,count:100,offset:201} ret=100 errno=0 bytes=100\n";
    CHECK(strncmp(out, want, strlen(want)) == 0);
    if (strncmp(out, want, strlen(want)) != 0)
        fprintf(stderr, "  got:\n%s", out);

    siot_trace *all[] = {&nest_a, &nest_b, &swapped, &flat, &flat_t, &loop, &loop_bad, &changed, &changed0, &more_ranks, &longer, &other_ret,
                         &other_func};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        siot_trace_free(all[i]);
    return unit_done("diff");
}
