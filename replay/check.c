#include "replay/check.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/format.h"
#include "core/predef.h"
#include "core/roles.h"
#include "replay/analyze.h"
#include "replay/handles.h"
#include "replay/plan.h"

typedef struct known {
    rp_idmap ids;       /* 1: created */
    rp_unmade *unmade; /* created by a call that is not reissued (its texts outlive the rank) */
} known;

static void know(known *k, int kind, int64_t id)
{
    (void)rp_idmap_set(&k->ids, kind, id, 1); /* without memory an id stays unknown: reported, not lost */
}

static int is_known(const known *k, int kind, int64_t id)
{
    if (id == SIOT_ID_UNKNOWN && rp_kind_is_mpi(kind))
        return 0; /* the recorder did not see it made */
    return !rp_idmap_in_range(kind, id) || rp_idmap_get(&k->ids, kind, id);
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
    rp_unmade unmade; /* the reasons' texts are the report's */
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

/* Why the object id is not there when the replay reaches its use: its
 * maker was not reissued, or it was never created. NULL: it is there. */
static const char *missing_id(const known *k, int kind, int64_t id)
{
    if (id == -1)
        return NULL;
    const char *why = rp_unmade_why(k->unmade, kind, id);
    if (why)
        return why;
    return is_known(k, kind, id) ? NULL : rp_id_missing(kind, id);
}

/* The first id of the value (one id, or each of an array) missing_id names. */
static const char *missing_arg(const known *k, int kind, const siot_expr *x, const siot_ctx *c, siot_vbuf *scratch)
{
    siot_value v;
    if (siot_eval(x, c, scratch, &v) != 0)
        return "a recorded value that cannot be evaluated";
    if (v.kind == SIOT_V_INT)
        return missing_id(k, kind, v.i);
    const char *why = NULL;
    for (uint32_t i = 0; !why && v.kind == SIOT_V_ARR && i < v.n; i++)
        why = missing_id(k, kind, v.arr[i]);
    return why;
}

static const char *why_not(const rp_step *st, const rp_check_entry *tab, uint32_t n, const known *k, siot_vbuf *s)
{
    const char *name = st->fn->name;
    if (st->own || st->why_not)
        return st->why_not;
    uint32_t i = 0;
    while (i < n && strcmp(tab[i].name, name) != 0)
        i++;
    if (i == n)
        return "this ioreplay has no replayer for it";
    if (!rp_reads_args(tab[i].nargs, st->fn))
        return RP_OTHER_ARGS;
    if (tab[i].why)
        return tab[i].why;
    for (uint32_t a = 0; a < st->fn->nargs && a < st->ev->nargs; a++) {
        int kind = rp_kind_used(st->fn->argroles[a]);
        const char *why = kind >= 0 ? missing_arg(k, kind, st->ev->args[a], &st->ctx, s) : NULL;
        if (why)
            return why;
    }
    return NULL;
}

static void learn(const rp_step *st, known *k)
{
    int64_t ret = siot_eval_int(st->ev->ret, &st->ctx, -1);
    int kind = rp_kind_created(st->fn->retrole);
    if (kind >= 0 && ret >= 0)
        know(k, kind, ret);
    if (kind == RP_K_DIR && ret >= 0) /* and its descriptor, of the same id (rp_set_dir) */
        know(k, RP_K_FD, ret);
    for (uint32_t a = 0; a < st->fn->nargs && a < st->ev->nargs; a++)
        if ((kind = rp_kind_created(st->fn->argroles[a])) >= 0)
            know(k, kind, siot_eval_int(st->ev->args[a], &st->ctx, -1));
}

static int check_rank(const siot_trace *t, uint32_t r, int posix_level, const rp_check_entry *tab, uint32_t n,
                      tally *ty, char *err, size_t errlen)
{
    rp_plan plan;
    known k;
    memset(&k, 0, sizeof k);
    k.unmade = &ty->unmade;
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
        if (st.replay && rp_unmade_note(k.unmade, st.fn, st.ev, &st.ctx, why, &scratch) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
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
    rp_idmap_free(&k.ids);
    rp_idmap_free(&ty->unmade.ids); /* the next rank's ids are its own */
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
    char lacks[512];
    int lacking = rc == 0 && siot_trace_lacks_text(t, "", lacks, sizeof lacks);
    if (rc == 0 && ty->missing == 0 && !lacking)
        fprintf(out, "replayable: all %" PRIu64 " calls at the %s level, %u ranks\n", ty->calls, level, t->nranks);
    else if (rc == 0 && ty->missing == 0)
        rc = 1;
    else if (rc == 0) {
        fprintf(out, "not fully replayable: %" PRIu64 " of %" PRIu64 " calls at the %s level cannot be reissued:\n",
                ty->missing, ty->calls, level);
        for (int i = 0; i < ty->nr; i++)
            fprintf(out, "  %10" PRIu64 "  %s: %s (first: rank %u event %" PRId64 ")\n", ty->r[i].n, ty->r[i].func,
                    ty->r[i].why, ty->r[i].rank, ty->r[i].seq);
        rc = 1;
    }
    if (lacking)
        fprintf(out, "not fully replayable: %s\n", lacks);
    const char *left_out = siot_trace_get_kv(t, "layers_left_out");
    if (rc >= 0 && left_out)
        fprintf(out, "the run recorded without the layers %s (SIOT_LAYERS): their calls are not in the trace\n",
                left_out);
    rp_unmade_free(&ty->unmade);
    free(ty);
    return rc;
}
