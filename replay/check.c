#include "replay/check.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/predef.h"
#include "core/roles.h"
#include "replay/plan.h"

/* The kinds of objects whose creation a call may need, with the ids that
 * are predefined (below base) and the replay's words for a missing one. */
enum { K_COMM, K_GROUP, K_DTYPE, K_FILE, K_FD, K_STREAM, K_DIR, NKINDS };
static const struct {
    int64_t base;
    const char *missing;
} KIND[NKINDS] = {
    {SIOT_COMM_BASE, "an MPI communicator whose creation is not in the trace"},
    {SIOT_GROUP_BASE, "an MPI group whose creation is not in the trace"},
    {SIOT_DTYPE_BASE, "an MPI datatype whose creation is not in the trace"},
    {0, "an MPI file handle whose creation is not in the trace"},
    {0, "a descriptor whose opening is not in the trace"},
    {0, "a stream whose opening is not in the trace"},
    {0, "a directory stream whose opening is not in the trace"},
};

#define MAX_ID (1 << 22) /* ids above are taken as known rather than tracked */

/* Per parameter role: the kind it uses or creates. */
static int uses(unsigned role)
{
    switch (role) {
    case SIOT_ROLE_comm: case SIOT_ROLE_freecomm: return K_COMM;
    case SIOT_ROLE_group: case SIOT_ROLE_freegroup: return K_GROUP;
    case SIOT_ROLE_dtype: case SIOT_ROLE_dtypearr: case SIOT_ROLE_commitdtype: case SIOT_ROLE_freedtype: return K_DTYPE;
    case SIOT_ROLE_file: case SIOT_ROLE_closefile: return K_FILE;
    case SIOT_ROLE_fd: return K_FD;
    case SIOT_ROLE_stream: return K_STREAM;
    case SIOT_ROLE_dir: return K_DIR;
    }
    return -1;
}

static int creates(unsigned role)
{
    switch (role) {
    case SIOT_ROLE_newcomm: return K_COMM;
    case SIOT_ROLE_newgroup: case SIOT_ROLE_outgroup: return K_GROUP;
    case SIOT_ROLE_newdtype: case SIOT_ROLE_outdtype: return K_DTYPE;
    case SIOT_ROLE_newfile: return K_FILE;
    case SIOT_ROLE_fdnew: case SIOT_ROLE_r_newfd: return K_FD;
    case SIOT_ROLE_r_newstream: return K_STREAM;
    case SIOT_ROLE_r_newdir: return K_DIR;
    }
    return -1;
}

typedef struct known {
    uint8_t *ids[NKINDS];
    size_t cap[NKINDS];
} known;

static void know(known *k, int kind, int64_t id)
{
    if (id < KIND[kind].base || id >= MAX_ID)
        return;
    if ((size_t)id >= k->cap[kind]) {
        size_t n = (size_t)id * 2 + 64;
        uint8_t *a = realloc(k->ids[kind], n);
        if (!a)
            return;
        memset(a + k->cap[kind], 0, n - k->cap[kind]);
        k->ids[kind] = a;
        k->cap[kind] = n;
    }
    k->ids[kind][id] = 1;
}

static int is_known(const known *k, int kind, int64_t id)
{
    return id < KIND[kind].base || id >= MAX_ID || ((size_t)id < k->cap[kind] && k->ids[kind][id]);
}

/* Reasons counted by function and reason, with the first place of each. */
typedef struct reason {
    const char *func, *why;
    uint64_t n;
    uint32_t rank;
    int64_t seq;
} reason;

typedef struct tally {
    reason r[256];
    int nr;
    uint64_t calls, missing;
} tally;

static void note(tally *t, const char *func, const char *why, uint32_t rank, int64_t seq)
{
    t->missing++;
    for (int i = 0; i < t->nr; i++)
        if (t->r[i].func == func && t->r[i].why == why) {
            t->r[i].n++;
            return;
        }
    if (t->nr < 256)
        t->r[t->nr++] = (reason){func, why, 1, rank, seq};
}

/* The first id of the value (one id, or each of an array) not created yet. */
static const char *missing_arg(const known *k, int kind, const siot_expr *x, const siot_ctx *c, siot_vbuf *scratch)
{
    siot_value v;
    if (siot_eval(x, c, scratch, &v) != 0)
        return "a recorded value that cannot be evaluated";
    if (v.kind == SIOT_V_INT)
        return v.i == -1 || is_known(k, kind, v.i) ? NULL : KIND[kind].missing;
    for (uint32_t i = 0; v.kind == SIOT_V_ARR && i < v.n; i++)
        if (v.arr[i] != -1 && !is_known(k, kind, v.arr[i]))
            return KIND[kind].missing;
    return NULL;
}

static const char *why_not(const rp_step *st, const rp_check_entry *tab, uint32_t n, const known *k, siot_vbuf *s)
{
    const char *name = st->fn->name;
    unsigned base = SIOT_CLASS_BASE(st->fn->cls);
    if (base == SIOT_CLASS_init || base == SIOT_CLASS_finalize || base == SIOT_CLASS_abort || base == SIOT_CLASS_exit)
        return NULL; /* ioreplay's own */
    uint32_t i = 0;
    while (i < n && strcmp(tab[i].name, name) != 0)
        i++;
    if (i == n)
        return "this ioreplay has no replayer for it";
    if (tab[i].why)
        return tab[i].why;
    for (uint32_t a = 0; a < st->fn->nargs && a < st->ev->nargs; a++) {
        int kind = uses(st->fn->argroles[a]);
        const char *why = kind >= 0 ? missing_arg(k, kind, st->ev->args[a], &st->ctx, s) : NULL;
        if (why)
            return why;
    }
    return NULL;
}

static void learn(const rp_step *st, known *k)
{
    int64_t ret = siot_eval_int(st->ev->ret, &st->ctx, -1);
    int kind = creates(st->fn->retrole);
    if (kind >= 0 && ret >= 0)
        know(k, kind, ret);
    for (uint32_t a = 0; a < st->fn->nargs && a < st->ev->nargs; a++)
        if ((kind = creates(st->fn->argroles[a])) >= 0)
            know(k, kind, siot_eval_int(st->ev->args[a], &st->ctx, -1));
}

static int check_rank(const siot_trace *t, uint32_t r, int posix_level, const rp_check_entry *tab, uint32_t n,
                      tally *ty, char *err, size_t errlen)
{
    rp_plan plan;
    known k;
    memset(&k, 0, sizeof k);
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    if (rp_plan_init(&plan, t, r, posix_level) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rp_step st;
    int rc = 0;
    while (rp_plan_next(&plan, &st)) {
        const char *why = st.replay ? why_not(&st, tab, n, &k, &scratch) : NULL;
        ty->calls += st.replay;
        if (why)
            note(ty, st.fn->name, why, r, st.seq);
        learn(&st, &k);
        if (rp_plan_done(&plan, &st, st.replay && !why) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
    }
    if (rc == 0 && plan.it.err) {
        snprintf(err, errlen, "rank %u: %s", r, plan.it.err);
        rc = -1;
    }
    rp_plan_free(&plan);
    siot_vbuf_free(&scratch);
    for (int i = 0; i < NKINDS; i++)
        free(k.ids[i]);
    return rc;
}

int rp_check(const siot_trace *t, int posix_level, const rp_check_entry *table, uint32_t n, FILE *out, char *err,
             size_t errlen)
{
    tally *ty = calloc(1, sizeof *ty);
    if (!ty) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (uint32_t r = 0; r < t->nranks && rc == 0; r++)
        rc = check_rank(t, r, posix_level, table, n, ty, err, errlen);
    const char *level = posix_level ? "posix" : "default";
    if (rc == 0 && ty->missing == 0)
        fprintf(out, "replayable: all %" PRIu64 " calls at the %s level, %u ranks\n", ty->calls, level, t->nranks);
    else if (rc == 0) {
        fprintf(out, "not fully replayable: %" PRIu64 " of %" PRIu64 " calls at the %s level cannot be reissued:\n",
                ty->missing, ty->calls, level);
        for (int i = 0; i < ty->nr; i++)
            fprintf(out, "  %10" PRIu64 "  %s: %s (first: rank %u event %" PRId64 ")\n", ty->r[i].n, ty->r[i].func,
                    ty->r[i].why, ty->r[i].rank, ty->r[i].seq);
        rc = 1;
    }
    free(ty);
    return rc;
}
