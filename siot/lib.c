/* lib: the reader as a shared library (lib.h). */
#include "siot/lib.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/format.h"
#include "core/ranklist.h"
#include "core/roles.h"
#include "core/vbuf.h"
#include "replay/json.h"
#include "replay/synth.h"
#include "siot/cols.h"
#include "siot/measures.h"
#include "replay/files.h"
#include "siot/stats.h"

struct siot_lib {
    siot_trace t;
    char *path;
};

struct siot_lib_cursor {
    siot_lib *h;
    uint8_t *want;  /* per rank: walk it */
    uint32_t layers; /* bit per layer */
    uint32_t rank;  /* the rank being walked, or the next one */
    int active;     /* synth holds that rank's walk */
    siot_synth s;
    siot_vbuf out, scratch, names;
    siot_files files; /* which file each handle refers to, event by event */
    uint8_t *funcs;   /* per function of the trace: give it; NULL for all */
    uint64_t sample, limit, seen, kept; /* siot_lib_select */
    siot_cols cols;   /* the columnar form's tables, once cols_ready */
    int cols_ready;
};

siot_lib *siot_lib_open(const char *path, char *err, size_t errlen)
{
    siot_lib *h = calloc(1, sizeof *h);
    if (!h || !(h->path = strdup(path))) {
        free(h);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (siot_trace_load(path, &h->t, err, errlen) != 0) {
        free(h->path);
        free(h);
        return NULL;
    }
    return h;
}

void siot_lib_close(siot_lib *h)
{
    if (!h)
        return;
    siot_trace_free(&h->t);
    free(h->path);
    free(h);
}

uint32_t siot_lib_nranks(const siot_lib *h) { return h->t.nranks; }

void siot_lib_free(void *p) { free(p); }

/* What a writer produced into a memory stream, NUL-terminated, or NULL
 * (*buf is set by fclose: read it after). */
static char *stream_text(FILE *fp, char **buf, int ok, char *err, size_t errlen)
{
    if (fclose(fp) != 0 || !ok) {
        free(*buf);
        if (!err[0])
            snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return *buf;
}

char *siot_lib_summary(siot_lib *h, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    err[0] = 0;
    if (!fp) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int ok = siot_stats(&h->t, h->path, 1, fp, err, errlen) == 0;
    return stream_text(fp, &buf, ok, err, errlen);
}

/* ------------------------------------------------------------ structure */

static void put(siot_vbuf *o, const char *s) { siot_vbuf_put(o, s, strlen(s)); }

/* An expression's text (as siot dump writes it) as a JSON string. */
static void put_expr(siot_vbuf *o, const siot_expr *x, siot_vbuf *tmp)
{
    tmp->len = 0;
    siot_x_format(x, tmp);
    siot_json_str(o, (const char *)tmp->data, tmp->len);
}

static void put_ranks(siot_vbuf *o, const siot_ranklist *rl, siot_vbuf *tmp)
{
    tmp->len = 0;
    siot_rl_format(rl, tmp);
    put(o, "\"ranks\":");
    siot_json_str(o, (const char *)tmp->data, tmp->len);
}

static void put_event_node(siot_vbuf *o, const siot_trace *t, const siot_event *e, siot_vbuf *tmp)
{
    const siot_funcdesc *f = &t->funcs[e->func];
    put(o, ",\"func\":");
    siot_json_str(o, f->name, strlen(f->name));
    put(o, ",\"layer\":\"");
    put(o, siot_layer_name(f->layer));
    char n[96];
    snprintf(n, sizeof n, "\",\"site\":%u,\"calls\":%" PRIu64 ",\"args\":{", e->site, e->dur.count);
    put(o, n);
    for (uint32_t k = 0; k < e->nargs; k++) {
        if (k)
            siot_vbuf_u8(o, ',');
        siot_json_str(o, f->argnames[k], strlen(f->argnames[k]));
        siot_vbuf_u8(o, ':');
        put_expr(o, e->args[k], tmp);
    }
    const struct {
        const char *key;
        const siot_expr *x;
    } more[] = {{"ret", e->ret}, {"errno", e->err}, {"bytes", e->bytes}, {"parent", e->parent}, {"thread", e->thread}};
    put(o, "}");
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
        snprintf(n, sizeof n, ",\"%s\":", more[i].key);
        put(o, n);
        put_expr(o, more[i].x, tmp);
    }
    snprintf(n, sizeof n, ",\"dur_mean_ns\":%.1f,\"comp_mean_ns\":%.1f}", e->dur.mean, e->comp.mean);
    put(o, n);
}

static void put_nodes(siot_vbuf *o, const siot_trace *t, siot_node *const *nodes, uint32_t n, siot_vbuf *tmp)
{
    siot_vbuf_u8(o, '[');
    for (uint32_t i = 0; i < n; i++) {
        const siot_node *nd = nodes[i];
        put(o, i ? ",{" : "{");
        put(o, nd->kind == SIOT_N_LOOP ? "\"kind\":\"loop\"," : "\"kind\":\"event\",");
        put_ranks(o, &nd->ranks, tmp);
        if (nd->kind == SIOT_N_LOOP) {
            put(o, ",\"count\":");
            put_expr(o, nd->u.loop.count, tmp);
            put(o, ",\"body\":");
            put_nodes(o, t, nd->u.loop.body, nd->u.loop.nbody, tmp);
            siot_vbuf_u8(o, '}');
        } else {
            put_event_node(o, t, &nd->u.ev, tmp);
        }
    }
    siot_vbuf_u8(o, ']');
}

char *siot_lib_structure(siot_lib *h, char *err, size_t errlen)
{
    siot_vbuf o, tmp;
    siot_vbuf_init(&o);
    siot_vbuf_init(&tmp);
    put_nodes(&o, &h->t, h->t.top, h->t.ntop, &tmp);
    siot_vbuf_u8(&o, 0);
    siot_vbuf_free(&tmp);
    if (o.oom) {
        siot_vbuf_free(&o);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return (char *)o.data;
}

/* ------------------------------------------------------------ events */

/* "0,2,5-7" into want[nranks]; NULL or "" for all. -1 on a bad list. */
static int parse_ranks(const char *s, uint8_t *want, uint32_t nranks, char *err, size_t errlen)
{
    if (!s || !*s) {
        memset(want, 1, nranks);
        return 0;
    }
    while (*s) {
        char *end;
        unsigned long lo = strtoul(s, &end, 10), hi = lo;
        if (end == s)
            break;
        if (*end == '-') {
            s = end + 1;
            hi = strtoul(s, &end, 10);
            if (end == s)
                break;
        }
        for (unsigned long r = lo; r <= hi && r < nranks; r++)
            want[r] = 1;
        s = end + (*end == ',');
        if (*end && *end != ',')
            break;
    }
    if (*s) {
        snprintf(err, errlen, "bad rank list at '%.40s' (want numbers and ranges: 0,2,5-7)", s);
        return -1;
    }
    return 0;
}

/* "posix,mpiio" into a bit per layer; NULL or "" for all. */
static int parse_layers(const char *s, uint32_t *mask, char *err, size_t errlen)
{
    *mask = 0;
    if (!s || !*s) {
        *mask = ~0u;
        return 0;
    }
    while (*s) {
        size_t n = strcspn(s, ",");
        unsigned l = 0;
        while (l < SIOT_NLAYERS && !(strlen(siot_layer_name(l)) == n && strncmp(siot_layer_name(l), s, n) == 0))
            l++;
        if (l == SIOT_NLAYERS) {
            snprintf(err, errlen, "unknown layer '%.*s' (posix, stdio, mpi, mpiio, hdf5, pnetcdf)", (int)(n < 40 ? n : 40), s);
            return -1;
        }
        *mask |= 1u << l;
        s += n + (s[n] == ',');
    }
    return 0;
}

siot_lib_cursor *siot_lib_events(siot_lib *h, const char *ranks, const char *layers, char *err, size_t errlen)
{
    siot_lib_cursor *c = calloc(1, sizeof *c);
    uint32_t n = h->t.nranks;
    if (!c || !(c->want = calloc(n ? n : 1, 1))) {
        free(c);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->h = h;
    c->sample = 1;
    siot_vbuf_init(&c->out);
    siot_vbuf_init(&c->scratch);
    siot_vbuf_init(&c->names);
    siot_files_init(&c->files);
    if (parse_ranks(ranks, c->want, n, err, errlen) != 0 || parse_layers(layers, &c->layers, err, errlen) != 0) {
        siot_lib_cursor_free(c);
        return NULL;
    }
    return c;
}

static void put_i64(siot_vbuf *o, const char *key, int64_t v)
{
    char b[64];
    int n = snprintf(b, sizeof b, ",\"%s\":%" PRId64, key, v);
    siot_vbuf_put(o, b, (size_t)n);
}

/* One event as a JSON line; -1 when an argument cannot be evaluated. */
static int event_line(siot_lib_cursor *c, const siot_synth_ev *ev, char *err, size_t errlen)
{
    const siot_trace *t = &c->h->t;
    const siot_event *e = &ev->node->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    siot_vbuf *o = &c->out;
    char b[200];
    int n = snprintf(b, sizeof b, "{\"rank\":%" PRId64 ",\"seq\":%" PRId64 ",\"thread\":%" PRId64 ",\"layer\":\"%s\",\"func\":",
                     ev->ctx.rank, ev->seq, siot_eval_int(e->thread, &ev->ctx, 0), siot_layer_name(f->layer));
    siot_vbuf_put(o, b, (size_t)n);
    siot_json_str(o, f->name, strlen(f->name));
    put_i64(o, "parent", ev->parent);
    put_i64(o, "ret", siot_eval_int(e->ret, &ev->ctx, 0));
    int64_t ern = siot_eval_int(e->err, &ev->ctx, 0);
    put_i64(o, "errno", ern);
    if (siot_is_data_class(f->cls))
        put_i64(o, "bytes", siot_eval_int(e->bytes, &ev->ctx, 0));
    n = snprintf(b, sizeof b, ",\"start\":%.1f,\"dur\":%.1f,\"args\":{", ev->start_ns, ev->dur_ns);
    siot_vbuf_put(o, b, (size_t)n);
    c->names.len = 0;
    uint32_t bad;
    if (siot_json_args(o, &c->names, f, e, &ev->ctx, &c->scratch, &bad) != 0) {
        snprintf(err, errlen, "rank %" PRId64 " event %" PRId64 " (%s): argument %s cannot be evaluated", ev->ctx.rank,
                 ev->seq, f->name, f->argnames[bad]);
        return -1;
    }
    siot_vbuf_u8(o, '}');
    siot_files_name_handles(&c->files, &c->names, t, ev->node, &ev->ctx);
    siot_json_errno_name(&c->names, ern);
    siot_json_ret_name(&c->names, t->flavour, f->retrole, siot_eval_int(e->ret, &ev->ctx, 0));
    siot_json_put_names(o, &c->names);
    siot_vbuf_u8(o, '}');
    return 0;
}

/* The next event of the ranks asked for: 1, 0 at the end, -1 on error. */
static int next_event(siot_lib_cursor *c, siot_synth_ev *ev, char *err, size_t errlen)
{
    const siot_trace *t = &c->h->t;
    for (;;) {
        while (!c->active && c->rank < t->nranks && !c->want[c->rank])
            c->rank++;
        if (!c->active && c->rank >= t->nranks)
            return 0;
        if (!c->active) {
            if (siot_synth_init(&c->s, t, c->rank) != 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            c->active = 1;
        }
        int k = siot_synth_next(&c->s, ev);
        if (k == 1)
            return 1;
        if (k < 0)
            snprintf(err, errlen, "rank %u: %s", c->rank, c->s.it.err ? c->s.it.err : "inconsistent trace");
        siot_synth_free(&c->s);
        c->active = 0;
        c->rank++;
        if (k < 0)
            return -1;
    }
}

/* Whether the event is one the cursor gives (siot_lib_select), counting it. */
static int selected(siot_lib_cursor *c, const siot_synth_ev *ev)
{
    uint32_t func = ev->node->u.ev.func;
    if (!(c->layers >> c->h->t.funcs[func].layer & 1) || (c->funcs && !c->funcs[func]))
        return 0;
    return c->seen++ % c->sample == 0;
}

/* The next event given: 1, 0 at the end, -1 on error. With files, the
 * handles of the events passed over still change. */
static int next_selected(siot_lib_cursor *c, siot_synth_ev *ev, siot_files *files, char *err, size_t errlen)
{
    int k;
    if (c->limit && c->kept >= c->limit)
        return 0;
    while ((k = next_event(c, ev, err, errlen)) == 1) {
        if (selected(c, ev)) {
            c->kept++;
            return 1;
        }
        if (files)
            siot_files_step(files, &c->h->t, ev->node, &ev->ctx);
    }
    return k;
}

char *siot_lib_next(siot_lib_cursor *c, uint32_t max, char *err, size_t errlen)
{
    err[0] = 0;
    c->out.len = 0;
    siot_vbuf_u8(&c->out, '[');
    siot_synth_ev ev;
    uint32_t got = 0;
    int k = 0;
    while (got < max && (k = next_selected(c, &ev, &c->files, err, errlen)) == 1) {
        if (got)
            siot_vbuf_u8(&c->out, ',');
        if (event_line(c, &ev, err, errlen) != 0)
            return NULL;
        got++;
    }
    siot_vbuf_u8(&c->out, ']');
    if (k < 0)
        return NULL;
    if (got == 0)
        return NULL; /* the end: err is "" */
    char *text = malloc(c->out.len + 1);
    if (!text || c->out.oom || c->scratch.oom || c->names.oom || c->files.oom) {
        free(text);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    memcpy(text, c->out.data, c->out.len);
    text[c->out.len] = 0;
    return text;
}

void siot_lib_cursor_free(siot_lib_cursor *c)
{
    if (!c)
        return;
    if (c->active)
        siot_synth_free(&c->s);
    siot_vbuf_free(&c->out);
    siot_vbuf_free(&c->scratch);
    siot_vbuf_free(&c->names);
    siot_files_free(&c->files);
    if (c->cols_ready)
        siot_cols_free(&c->cols);
    free(c->funcs);
    free(c->want);
    free(c);
}

/* ------------------------------------------------------------ columns */

/* "pwrite,lseek" into a flag per function of the trace; a name the trace
 * has no call of matches nothing. */
static int parse_funcs(siot_lib_cursor *c, const char *s, char *err, size_t errlen)
{
    const siot_trace *t = &c->h->t;
    free(c->funcs);
    c->funcs = NULL;
    if (!s || !*s)
        return 0;
    if (!(c->funcs = calloc(t->nfuncs + 1, 1))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    while (*s) {
        size_t n = strcspn(s, ",");
        for (uint32_t f = 0; f < t->nfuncs; f++)
            if (strlen(t->funcs[f].name) == n && strncmp(t->funcs[f].name, s, n) == 0)
                c->funcs[f] = 1;
        s += n + (s[n] == ',');
    }
    return 0;
}

int siot_lib_select(siot_lib_cursor *c, const char *functions, uint64_t sample, uint64_t limit, char *err,
                    size_t errlen)
{
    err[0] = 0;
    c->sample = sample ? sample : 1;
    c->limit = limit;
    return parse_funcs(c, functions, err, errlen);
}

static int cols_ready(siot_lib_cursor *c, char *err, size_t errlen)
{
    if (c->cols_ready)
        return 0;
    if (c->h->t.nfuncs > INT16_MAX) {
        snprintf(err, errlen, "%u functions in the trace: more than the columnar form's codes hold", c->h->t.nfuncs);
        return -1;
    }
    if (siot_cols_init(&c->cols, &c->h->t, err, errlen) != 0)
        return -1;
    c->cols_ready = 1;
    return 0;
}

/* The text in c->out as a malloc'd string, or NULL when out of memory. */
static char *out_text(siot_lib_cursor *c, char *err, size_t errlen)
{
    char *text = c->out.oom ? NULL : malloc(c->out.len);
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    memcpy(text, c->out.data, c->out.len);
    return text;
}

enum { COLS_TABLES, COLS_TEXTS, COLS_CODES };

/* One of the columnar form's JSON texts, malloc'd. */
static char *cols_text(siot_lib_cursor *c, int what, uint32_t from, char *err, size_t errlen)
{
    err[0] = 0;
    if (cols_ready(c, err, errlen) != 0)
        return NULL;
    c->out.len = 0;
    if (what == COLS_TABLES)
        siot_cols_tables(&c->cols, &c->h->t, &c->out);
    else if (what == COLS_TEXTS)
        siot_cols_texts(&c->cols, from, &c->out);
    else
        siot_cols_codes(&c->cols, &c->out);
    return out_text(c, err, errlen);
}

char *siot_lib_tables(siot_lib_cursor *c, char *err, size_t errlen) { return cols_text(c, COLS_TABLES, 0, err, errlen); }

char *siot_lib_texts(siot_lib_cursor *c, uint32_t from, char *err, size_t errlen)
{
    return cols_text(c, COLS_TEXTS, from, err, errlen);
}

char *siot_lib_codes(siot_lib_cursor *c, char *err, size_t errlen) { return cols_text(c, COLS_CODES, 0, err, errlen); }

int64_t siot_lib_count(siot_lib_cursor *c, uint64_t *most, char *err, size_t errlen)
{
    err[0] = 0;
    uint64_t sum = 0;
    *most = 0;
    for (uint32_t r = 0; r < c->h->t.nranks; r++) {
        uint64_t n;
        if (!c->want[r])
            continue;
        if (siot_count_events(&c->h->t, r, &n, err, errlen) != 0)
            return -1;
        sum = n > UINT64_MAX - sum ? UINT64_MAX : sum + n;
        *most = n > *most ? n : *most;
    }
    if (c->limit && c->limit < sum)
        sum = c->limit;
    return sum > INT64_MAX ? INT64_MAX : (int64_t)sum;
}

int64_t siot_lib_fill(siot_lib_cursor *c, const siot_lib_columns *cols, uint64_t at, uint64_t max, char *err,
                      size_t errlen)
{
    err[0] = 0;
    if (cols_ready(c, err, errlen) != 0)
        return -1;
    siot_synth_ev ev;
    uint64_t got = 0;
    int k = 0;
    while (got < max && (k = next_selected(c, &ev, NULL, err, errlen)) == 1) {
        if (siot_cols_put(&c->cols, &c->h->t, &ev, cols, at + got, err, errlen) != 0)
            return -1;
        got++;
    }
    return k < 0 ? -1 : (int64_t)got;
}
