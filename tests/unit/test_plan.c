/* test_plan: the POSIX-level object rule of replay/plan.h when its map of
 * MPI objects cannot grow. MPI_File_iwrite_at's request is the MPI-IO
 * library's, so the MPI_Wait on it is covered by the POSIX calls (not
 * reissued); when noting the request fails for lack of memory, the plan
 * must not hand out that MPI_Wait as a call to reissue: the walk stops with
 * it.err saying so. The allocation fails because ASan is told to refuse
 * blocks over 16 MiB and the request's id makes the map ask for 64 MiB. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/expr.h"
#include "core/format.h"
#include "core/roles.h"
#include "replay/plan.h"
#include "tests/unit/unit.h"

const char *__asan_default_options(void) { return "allocator_may_return_null=1:max_allocation_size_mb=16"; }

static const char *const iw_an[] = {"fh", "offset", "buf", "count", "datatype", "request"};
static const uint8_t iw_ar[] = {SIOT_ROLE_file, SIOT_ROLE_offset, SIOT_ROLE_buf,
                                SIOT_ROLE_count, SIOT_ROLE_dtype, SIOT_ROLE_newreq};
static const char *const wait_an[] = {"request", "status"};
static const uint8_t wait_ar[] = {SIOT_ROLE_waitreq, SIOT_ROLE_status};
static const siot_funcdesc FUNCS[2] = {
    {"MPI_File_iwrite_at", SIOT_LAYER_mpiio, SIOT_CLASS_write | SIOT_CLS_NB, SIOT_ROLE_r_mpi, 6, iw_an, iw_ar},
    {"MPI_Wait", SIOT_LAYER_mpi, SIOT_CLASS_wait, SIOT_ROLE_r_mpi, 2, wait_an, wait_ar},
};

static siot_node *event(siot_trace *t, uint32_t func, int64_t request)
{
    siot_arena *a = &t->arena;
    siot_node *n = siot_arena_alloc(a, sizeof *n);
    n->kind = SIOT_N_EVENT;
    n->ranks = (siot_ranklist){1, siot_arena_alloc(a, sizeof(siot_rentry))};
    n->ranks.e[0].start = 0;
    siot_event *e = &n->u.ev;
    e->func = func;
    e->thread = siot_x_const(a, 0);
    e->parent = siot_x_const(a, 0);
    e->ret = siot_x_const(a, 0);
    e->err = siot_x_const(a, 0);
    e->bytes = siot_x_const(a, 0);
    e->nargs = FUNCS[func].nargs;
    e->args = siot_arena_alloc(a, e->nargs * sizeof *e->args);
    for (uint32_t i = 0; i < e->nargs; i++) {
        uint8_t role = FUNCS[func].argroles[i];
        e->args[i] = siot_x_const(a, role == SIOT_ROLE_newreq || role == SIOT_ROLE_waitreq ? request : 0);
    }
    return n;
}

/* One rank: MPI_File_iwrite_at making request id, then MPI_Wait on it. */
static void build(siot_trace *t, int64_t request)
{
    siot_trace_init(t);
    t->nranks = 1;
    t->nfuncs = 2;
    t->funcs = siot_arena_alloc(&t->arena, sizeof FUNCS);
    memcpy(t->funcs, FUNCS, sizeof FUNCS);
    t->top = siot_arena_alloc(&t->arena, 2 * sizeof *t->top);
    t->top[t->ntop++] = event(t, 0, request);
    t->top[t->ntop++] = event(t, 1, request);
    siot_trace_index(t);
}

/* Walks rank 0 at the POSIX level: the steps' replay flags in order into
 * replay[] (at most 2), their number returned; *err from it.err. */
static int walk(int64_t request, int replay[2], const char **err)
{
    siot_trace t;
    build(&t, request);
    rp_plan p;
    int n = 0;
    CHECK(rp_plan_init(&p, &t, 0, 1) == 0);
    rp_step s;
    while (rp_plan_next(&p, &s)) {
        if (n < 2)
            replay[n] = s.replay;
        n++;
        CHECK(rp_plan_done(&p, &s, s.replay) == 0);
    }
    *err = p.it.err;
    rp_plan_free(&p);
    siot_trace_free(&t);
    return n;
}

int main(void)
{
    int replay[2] = {-1, -1};
    const char *err = NULL;
    /* memory enough: neither call is reissued at the POSIX level */
    CHECK_EQ_I64(walk(5, replay, &err), 2);
    CHECK_EQ_I64(replay[0], 0);
    CHECK_EQ_I64(replay[1], 0);
    CHECK(err == NULL);
    /* the request's note cannot be stored: no MPI_Wait to reissue */
    replay[0] = replay[1] = -1;
    err = NULL;
    int n = walk(4000000, replay, &err);
    CHECK(n < 2 || replay[1] == 0);
    CHECK(err && strcmp(err, "out of memory") == 0);
    printf("   with the map out of memory: %d step(s) handed out, then \"%s\"\n", n, err ? err : "(nothing)");
    return unit_done("test_plan");
}
