/* totals: an approximate trace and its replay compared by what they add up
 * to (replay/totals.h). */
#include "replay/totals.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/roles.h"
#include "replay/analyze.h"
#include "replay/files.h"

/* ------------------------------------------------------------ per function */

typedef struct fn_totals {
    const siot_trace *t;
    uint64_t *calls, *bytes; /* by function index */
} fn_totals;

static void count_kept(void *user, const siot_funcdesc *f, int64_t bytes)
{
    fn_totals *s = user;
    size_t i = (size_t)(f - s->t->funcs);
    s->calls[i]++;
    if (bytes > 0) /* the bytes a data call moved (none for the others) */
        s->bytes[i] += (uint64_t)bytes;
}

static int count_functions(const siot_trace *t, const siot_diff_filter *flt, fn_totals *s, char *err, size_t errlen)
{
    s->t = t;
    s->calls = calloc(t->nfuncs + 1, sizeof *s->calls);
    s->bytes = calloc(t->nfuncs + 1, sizeof *s->bytes);
    if (!s->calls || !s->bytes) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < t->nranks; r++)
        if (siot_compare_each(t, r, flt, count_kept, s, err, errlen) != 0)
            return -1;
    return 0;
}

typedef struct gap_state {
    double tol;
    uint64_t shown, max_shown;
    FILE *out;
    siot_totals_result *res;
} gap_state;

/* One total of the trace (a) against the replay's (b). */
static void weigh(gap_state *g, const char *what, const char *unit, uint64_t a, uint64_t b)
{
    double hi = (double)(a > b ? a : b), gap = hi > 0 ? 100.0 * (double)(a > b ? a - b : b - a) / hi : 0;
    if (gap > g->res->widest || !g->res->widest_what[0]) {
        g->res->widest = gap;
        snprintf(g->res->widest_what, sizeof g->res->widest_what, "%s %s", what, unit);
    }
    if (gap <= g->tol)
        return;
    g->res->differences++;
    if (g->shown++ < g->max_shown)
        fprintf(g->out, "%s: %" PRIu64 " %s in the trace, %" PRIu64 " in the replay (%.1f%% apart)\n", what, a, unit, b,
                gap);
}

static void compare_functions(gap_state *g, const fn_totals *a, const fn_totals *b)
{
    for (uint32_t i = 0; i < a->t->nfuncs; i++) {
        if (!a->calls[i])
            continue;
        uint64_t calls = 0, bytes = 0;
        for (uint32_t j = 0; j < b->t->nfuncs; j++)
            if (strcmp(a->t->funcs[i].name, b->t->funcs[j].name) == 0) {
                calls = b->calls[j];
                bytes = b->bytes[j];
            }
        g->res->functions++;
        weigh(g, a->t->funcs[i].name, "calls", a->calls[i], calls);
        if (a->bytes[i] || bytes)
            weigh(g, a->t->funcs[i].name, "bytes", a->bytes[i], bytes);
    }
}

/* ------------------------------------------------------------ per file */

static void on_file_event(void *user, const siot_agg_event *e) { siot_files_event(user, e); }

static int count_files(const siot_trace *t, siot_files *fs, char *err, size_t errlen)
{
    siot_files_init(fs);
    siot_handlers h = {.user = fs, .event = on_file_event};
    if (siot_analyze(t, &h, err, errlen) != 0)
        return -1;
    if (fs->oom) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* The replay's row of a file of the trace: its name mapped under the root
 * ends the replay's (which the replay opened by its absolute path). */
static const siot_filerow *replay_row(const siot_files *b, const char *mapped, size_t n, uint8_t layer)
{
    for (uint32_t j = 0; j < b->nrows; j++) {
        const siot_filerow *r = &b->rows[j];
        size_t m = strlen(r->name);
        if (r->layer == layer && m >= n && memcmp(r->name + m - n, mapped, n) == 0 &&
            (m == n || r->name[m - n - 1] == '/'))
            return r;
    }
    return NULL;
}

static int compare_files(gap_state *g, const siot_trace *orig, const siot_files *a, const siot_files *b,
                         uint32_t layers)
{
    siot_vbuf name;
    siot_vbuf_init(&name);
    for (uint32_t i = 0; i < a->nrows; i++) {
        const siot_filerow *r = &a->rows[i];
        if ((layers && !(layers >> r->layer & 1)) || (!r->rbytes && !r->wbytes))
            continue;
        name.len = 0;
        siot_sandbox_path(siot_trace_get_kv(orig, "cwd"), r->name, strlen(r->name), &name);
        siot_vbuf_u8(&name, 0);
        if (name.oom)
            break;
        const siot_filerow *q = replay_row(b, (const char *)name.data, name.len - 1, r->layer);
        char what[80];
        snprintf(what, sizeof what, "%.60s (%s)", r->name, siot_layer_name(r->layer));
        g->res->files++;
        weigh(g, what, "bytes written", r->wbytes, q ? q->wbytes : 0);
        weigh(g, what, "bytes read", r->rbytes, q ? q->rbytes : 0);
    }
    int oom = name.oom;
    siot_vbuf_free(&name);
    return oom ? -1 : 0;
}

int siot_compare_totals(const siot_trace *orig, const siot_trace *rt, const siot_diff_filter *flt, double tol,
                        uint64_t max_shown, FILE *out, siot_totals_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    fn_totals fa = {0}, fb = {0};
    siot_files sa, sb;
    gap_state g = {.tol = tol, .max_shown = max_shown, .out = out, .res = res};
    int rc = count_functions(orig, flt, &fa, err, errlen) || count_functions(rt, flt, &fb, err, errlen) ? -1 : 0;
    if (rc == 0)
        compare_functions(&g, &fa, &fb);
    int fa_ok = rc == 0 && count_files(orig, &sa, err, errlen) == 0;
    int fb_ok = fa_ok && count_files(rt, &sb, err, errlen) == 0;
    if (!fb_ok)
        rc = -1;
    else if (compare_files(&g, orig, &sa, &sb, flt->layers) != 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (fa_ok)
        siot_files_free(&sa);
    if (fb_ok)
        siot_files_free(&sb);
    free(fa.calls);
    free(fa.bytes);
    free(fb.calls);
    free(fb.bytes);
    return rc < 0 ? -1 : res->differences ? 1 : 0;
}
