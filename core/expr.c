#include "core/expr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/ranklist.h"
#include "core/roles.h"

siot_expr *siot_x_none(siot_arena *a)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    if (x)
        x->tag = SIOT_X_NONE;
    return x;
}

siot_expr *siot_x_const(siot_arena *a, int64_t v)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    if (x) {
        x->tag = SIOT_X_CONST;
        x->base = v;
    }
    return x;
}

siot_expr *siot_x_str(siot_arena *a, const char *s, size_t n)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    siot_strseg *seg = siot_arena_alloc(a, sizeof *seg);
    char *copy = siot_arena_strdup(a, s, n);
    if (!x || !seg || !copy)
        return NULL;
    x->tag = SIOT_X_STR;
    x->n = 1;
    x->u.segs = seg;
    seg->lit = copy;
    seg->len = (uint32_t)n;
    return x;
}

siot_expr *siot_x_intarray(siot_arena *a, const int64_t *v, uint32_t n)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    siot_expr **items = siot_arena_alloc(a, (n ? n : 1) * sizeof *items);
    if (!x || !items)
        return NULL;
    x->tag = SIOT_X_ARRAY;
    x->n = n;
    x->u.items = items;
    for (uint32_t i = 0; i < n; i++)
        if (!(items[i] = siot_x_const(a, v[i])))
            return NULL;
    return x;
}

static int eval_int(const siot_expr *x, const siot_ctx *c, int64_t *v);

/* SEQL: the run covering this iteration of the expression's loop level, and
 * the context in which its piece is evaluated (that level's iteration counted
 * from the run's start). */
static const siot_run *seql_run(const siot_expr *x, const siot_ctx *c, siot_ctx *local, uint64_t *iter_copy)
{
    if (x->level >= c->depth || x->n == 0)
        return NULL;
    uint64_t j = c->iter[x->level];
    /* An approximate loop count (SIOT_TOLERANCE) can run an inner sequence past
     * its recorded length: then the last run goes on. Otherwise it is an error. */
    if (j >= x->len && !c->approx)
        return NULL;
    uint32_t lo = 0, hi = x->n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (x->u.runs[mid].start <= j)
            lo = mid;
        else
            hi = mid - 1;
    }
    const siot_run *r = &x->u.runs[lo];
    if (r->start > j)
        return NULL;
    *local = *c;
    memcpy(iter_copy, c->iter, c->depth * sizeof *iter_copy);
    iter_copy[x->level] = j - r->start;
    local->iter = iter_copy;
    return r;
}

/* Wrapping arithmetic: a hostile trace may hold any coefficients. */
static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* RMOD: the entry of the rank's residue class (ranks are never negative). */
static const siot_expr *rmod_item(const siot_expr *x, const siot_ctx *c)
{
    return x->n && c->rank >= 0 ? x->u.items[(uint64_t)c->rank % x->n] : NULL;
}

/* RDIV: the term of the rank's quotient (ranks are never negative). */
static int rdiv_term(const siot_expr *x, const siot_ctx *c, int64_t *t)
{
    if (x->n != 1 || x->len == 0 || c->rank < 0)
        return -1;
    *t = wrap_mul(x->sum, (int64_t)((uint64_t)c->rank / x->len));
    return 0;
}

unsigned siot_decimal_digits(uint64_t v)
{
    unsigned d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* RDIG: the term of the rank's decimal digits (ranks are never negative). */
static int rdig_term(const siot_expr *x, const siot_ctx *c, int64_t *t)
{
    if (x->n != 1 || c->rank < 0)
        return -1;
    *t = wrap_mul(x->sum, (int64_t)siot_decimal_digits((uint64_t)c->rank) - 1);
    return 0;
}

/* The tags that choose one of their expressions (SEQ by the occurrence,
 * RANKED by the rank, SEQL by the run of the loop's iteration, RMOD by the
 * rank's residue), read the same way for an integer and for any value. */
#define CHOOSING_CASES   \
    case SIOT_X_SEQ:     \
    case SIOT_X_RANKED:  \
    case SIOT_X_SEQL:    \
    case SIOT_X_RMOD

typedef struct choice {
    const siot_expr *x;             /* the chosen expression */
    const siot_ctx *c;              /* the context to evaluate it in */
    siot_ctx local;                 /* a SEQL run's context */
    uint64_t iter[SIOT_MAX_NEST];
} choice;

/* 1 with the chosen expression in ch, 0 for a SEQL run that is a bare
 * progression (its value in *v), -1 when nothing is chosen. */
static int chosen(const siot_expr *x, const siot_ctx *c, choice *ch, int64_t *v)
{
    ch->x = NULL;
    ch->c = c;
    if (x->tag == SIOT_X_SEQ) {
        if (c->occurrence < x->n)
            ch->x = x->u.items[c->occurrence];
    } else if (x->tag == SIOT_X_RANKED) {
        for (uint32_t i = 0; i < x->n; i++)
            if (siot_rl_contains(&x->u.ranked[i].rl, c->rank))
                return (ch->x = x->u.ranked[i].x) ? 1 : -1;
    } else if (x->tag == SIOT_X_SEQL) {
        const siot_run *r = seql_run(x, c, &ch->local, ch->iter);
        if (r && !r->x) {
            *v = wrap_add(r->base, wrap_mul(r->stride, (int64_t)ch->local.iter[x->level]));
            return 0;
        }
        ch->x = r ? r->x : NULL;
        ch->c = &ch->local;
    } else if (x->tag == SIOT_X_RMOD)
        ch->x = rmod_item(x, c);
    return ch->x ? 1 : -1;
}

static int eval_int(const siot_expr *x, const siot_ctx *c, int64_t *v)
{
    switch (x->tag) {
    case SIOT_X_CONST:
        *v = x->base;
        return 0;
    case SIOT_X_AFFINE: {
        int64_t r = wrap_add(x->base, wrap_mul(x->rcoef, c->rank));
        for (uint32_t k = 0; k < x->n; k++) {
            if (k >= c->depth)
                return -1;
            r = wrap_add(r, wrap_mul(x->u.coef[k], (int64_t)c->iter[k]));
        }
        *v = r;
        return 0;
    }
    case SIOT_X_SEQINT:
        if (c->occurrence >= x->n)
            return -1;
        *v = x->u.vals[c->occurrence];
        return 0;
    CHOOSING_CASES: {
        choice ch;
        int k = chosen(x, c, &ch, v);
        return k > 0 ? eval_int(ch.x, ch.c, v) : k;
    }
    case SIOT_X_APPROX:
        *v = siot_x_approx_mean(x);
        return 0;
    case SIOT_X_RDIV:
    case SIOT_X_RDIG: {
        int64_t t, in;
        if ((x->tag == SIOT_X_RDIV ? rdiv_term(x, c, &t) : rdig_term(x, c, &t)) != 0 ||
            eval_int(x->u.items[0], c, &in) != 0)
            return -1;
        *v = wrap_add(in, t);
        return 0;
    }
    }
    return -1;
}

int64_t siot_x_approx_mean(const siot_expr *x)
{
    if (x->len == 0)
        return x->base;
    /* rounded mean, computed without overflow for hostile sums */
    long double m = (long double)x->sum / (long double)x->len;
    if (m < (long double)x->base)
        return x->base;
    if (m > (long double)x->rcoef)
        return x->rcoef;
    return (int64_t)(m + 0.5L);
}

int64_t siot_eval_int(const siot_expr *x, const siot_ctx *ctx, int64_t def)
{
    int64_t v;
    if (!x || eval_int(x, ctx, &v) != 0)
        return def;
    return v;
}

static void put_field(siot_vbuf *b, const siot_strseg *s, int64_t v)
{
    char t[48];
    int w = s->width > 40 ? 40 : s->width;
    int n = s->zero_pad ? snprintf(t, sizeof t, "%0*" PRId64, w, v) : snprintf(t, sizeof t, "%" PRId64, v);
    if (n > 0)
        siot_vbuf_put(b, t, (size_t)n);
}

/* A hostile file may ask for any length: more elements than this is an error. */
#define MAX_RANGE (1u << 24)

static int eval_range(const siot_expr *x, const siot_ctx *c, siot_vbuf *scratch, siot_value *out)
{
    int64_t len, first, step;
    if (x->n != 3 || eval_int(x->u.items[0], c, &len) || eval_int(x->u.items[1], c, &first) ||
        eval_int(x->u.items[2], c, &step) || len < 0 || len > (int64_t)MAX_RANGE)
        return -1;
    scratch->len = 0;
    if (!siot_vbuf_reserve(scratch, (size_t)len * 8 + 8))
        return -1;
    for (int64_t j = 0; j < len; j++) {
        int64_t v = wrap_add(first, wrap_mul(step, j));
        memcpy(scratch->data + 8 * (size_t)j, &v, 8);
    }
    out->kind = SIOT_V_ARR;
    out->arr = (const int64_t *)(void *)scratch->data;
    out->n = (uint32_t)len;
    return 0;
}

static int eval_str(const siot_expr *x, const siot_ctx *ctx, siot_vbuf *scratch, siot_value *out)
{
    scratch->len = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        const siot_strseg *s = &x->u.segs[i];
        if (s->is_field) {
            int64_t v;
            if (eval_int(s->field, ctx, &v) != 0)
                return -1;
            put_field(scratch, s, v);
        } else {
            siot_vbuf_put(scratch, s->lit, s->len);
        }
    }
    siot_vbuf_u8(scratch, 0);
    if (scratch->oom)
        return -1;
    out->kind = SIOT_V_STR;
    out->s = (const char *)scratch->data;
    out->slen = scratch->len - 1;
    return 0;
}

int siot_eval(const siot_expr *x, const siot_ctx *ctx, siot_vbuf *scratch, siot_value *out)
{
    memset(out, 0, sizeof *out);
    if (!x)
        return -1;
    switch (x->tag) {
    case SIOT_X_NONE:
        out->kind = SIOT_V_NONE;
        return 0;
    case SIOT_X_CONST:
    case SIOT_X_AFFINE:
    case SIOT_X_SEQINT:
    case SIOT_X_APPROX:
    case SIOT_X_RDIV:
    case SIOT_X_RDIG:
        out->kind = SIOT_V_INT;
        return eval_int(x, ctx, &out->i);
    CHOOSING_CASES: {
        choice ch;
        int k = chosen(x, ctx, &ch, &out->i);
        if (k == 0)
            out->kind = SIOT_V_INT;
        return k > 0 ? siot_eval(ch.x, ch.c, scratch, out) : k;
    }
    case SIOT_X_STR:
        return eval_str(x, ctx, scratch, out);
    case SIOT_X_ARRAY:
        scratch->len = 0;
        if (!siot_vbuf_reserve(scratch, (size_t)x->n * 8 + 8))
            return -1;
        for (uint32_t i = 0; i < x->n; i++) {
            int64_t v;
            if (eval_int(x->u.items[i], ctx, &v) != 0)
                return -1;
            memcpy(scratch->data + 8 * (size_t)i, &v, 8);
        }
        out->kind = SIOT_V_ARR;
        out->arr = (const int64_t *)(void *)scratch->data;
        out->n = x->n;
        return 0;
    case SIOT_X_RANGE:
        return eval_range(x, ctx, scratch, out);
    }
    return -1;
}

int siot_x_is_const(const siot_expr *x)
{
    if (!x)
        return 1;
    switch (x->tag) {
    case SIOT_X_NONE:
    case SIOT_X_CONST:
        return 1;
    case SIOT_X_STR:
        for (uint32_t i = 0; i < x->n; i++)
            if (x->u.segs[i].is_field && !siot_x_is_const(x->u.segs[i].field))
                return 0;
        return 1;
    case SIOT_X_ARRAY:
    case SIOT_X_RANGE:
        for (uint32_t i = 0; i < x->n; i++)
            if (!siot_x_is_const(x->u.items[i]))
                return 0;
        return 1;
    }
    return 0;
}

static void fmt(siot_vbuf *o, const char *f, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void fmt(siot_vbuf *o, const char *f, ...)
{
    char t[256];
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(t, sizeof t, f, ap);
    va_end(ap);
    if (n > 0)
        siot_vbuf_put(o, t, (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

static void put_escaped(siot_vbuf *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fmt(o, "\\%c", c);
        else if (c < 32 || c >= 127)
            fmt(o, "\\x%02x", c);
        else
            siot_vbuf_u8(o, c);
    }
}

static void format_affine(const siot_expr *x, siot_vbuf *o)
{
    fmt(o, "%" PRId64, x->base);
    if (x->rcoef)
        fmt(o, "%+" PRId64 "*rank", x->rcoef);
    for (uint32_t k = 0; k < x->n; k++)
        if (x->u.coef[k])
            fmt(o, "%+" PRId64 "*i%u", x->u.coef[k], k);
}

/* RDIV as a grid: base + c*(rank%m) + b*(rank/m) + loop terms, when its
 * inner value is a progression (c*rank = c*(rank%m) + c*m*(rank/m)), else
 * the inner value + d*(rank/m). */
static void format_rdiv(const siot_expr *x, siot_vbuf *o)
{
    const siot_expr *in = x->u.items[0];
    uint64_t m = x->len;
    if (!in || (in->tag != SIOT_X_AFFINE && in->tag != SIOT_X_CONST)) {
        siot_x_format(in, o);
        fmt(o, "%+" PRId64 "*(rank/%" PRIu64 ")", x->sum, m);
        return;
    }
    int64_t c = in->tag == SIOT_X_AFFINE ? in->rcoef : 0;
    int64_t b = (int64_t)((uint64_t)x->sum + (uint64_t)c * m);
    fmt(o, "%" PRId64, in->base);
    if (c)
        fmt(o, "%+" PRId64 "*(rank%%%" PRIu64 ")", c, m);
    if (b)
        fmt(o, "%+" PRId64 "*(rank/%" PRIu64 ")", b, m);
    for (uint32_t k = 0; in->tag == SIOT_X_AFFINE && k < in->n; k++)
        if (in->u.coef[k])
            fmt(o, "%+" PRId64 "*i%u", in->u.coef[k], k);
}

/* seq[...](n=N), the first few values shown */
static void format_seq(const siot_expr *x, siot_vbuf *o)
{
    fmt(o, "seq[");
    uint32_t show = x->n > (x->tag == SIOT_X_SEQINT ? 8u : 4u) ? (x->tag == SIOT_X_SEQINT ? 8u : 4u) : x->n;
    for (uint32_t i = 0; i < show; i++) {
        if (i)
            fmt(o, ",");
        if (x->tag == SIOT_X_SEQINT)
            fmt(o, "%" PRId64, x->u.vals[i]);
        else
            siot_x_format(x->u.items[i], o);
    }
    if (show < x->n)
        fmt(o, ",...");
    fmt(o, "](n=%u)", x->n);
}

static void format_ranked(const siot_expr *x, siot_vbuf *o)
{
    fmt(o, "{");
    for (uint32_t i = 0; i < x->n; i++) {
        if (i)
            fmt(o, " ");
        fmt(o, "r");
        siot_rl_format(&x->u.ranked[i].rl, o);
        fmt(o, ":");
        siot_x_format(x->u.ranked[i].x, o);
    }
    fmt(o, "}");
}

static void format_str(const siot_expr *x, siot_vbuf *o)
{
    fmt(o, "\"");
    for (uint32_t i = 0; i < x->n; i++) {
        const siot_strseg *s = &x->u.segs[i];
        if (s->is_field && s->field && s->field->tag == SIOT_X_CONST) {
            put_field(o, s, s->field->base); /* one value: the name as every other tool shows it */
        } else if (s->is_field) {
            fmt(o, "{");
            if (s->zero_pad)
                fmt(o, "%%0%ud:", s->width);
            siot_x_format(s->field, o);
            fmt(o, "}");
        } else {
            put_escaped(o, s->lit, s->len);
        }
    }
    fmt(o, "\"");
}

static void format_seql(const siot_expr *x, siot_vbuf *o)
{
    fmt(o, "by-i%u[", x->level);
    uint32_t show = x->n > 6 ? 6 : x->n;
    for (uint32_t i = 0; i < show; i++) {
        const siot_run *r = &x->u.runs[i];
        uint64_t end = i + 1 < x->n ? x->u.runs[i + 1].start : x->len;
        if (i)
            fmt(o, " ");
        if (end - r->start > 1)
            fmt(o, "%" PRIu64 "-%" PRIu64 ":", r->start, end - 1);
        else
            fmt(o, "%" PRIu64 ":", r->start);
        if (r->x)
            siot_x_format(r->x, o);
        else if (r->stride && end - r->start > 1)
            fmt(o, "%" PRId64 "%+" PRId64 "*j", r->base, r->stride);
        else
            fmt(o, "%" PRId64, r->base);
    }
    if (show < x->n)
        fmt(o, " ...");
    fmt(o, "](%u runs)", x->n);
}

/* The array [first + step*j for j < len] as range(len; first, step). */
static void format_items(const siot_expr *x, siot_vbuf *o, const char *open, const char *close)
{
    fmt(o, "%s", open);
    for (uint32_t i = 0; i < x->n; i++) {
        if (i)
            fmt(o, x->tag == SIOT_X_RANGE && i == 1 ? "; " : ",");
        siot_x_format(x->u.items[i], o);
    }
    fmt(o, "%s", close);
}

/* A value by residue, {rank%3:10,15,20}, with a run of k equal classes
 * written once: {rank%8:-2,-1+1*rank(x7)}. */
static void put_run(siot_vbuf *o, const siot_vbuf *item, uint32_t k, int first)
{
    if (!first)
        fmt(o, ",");
    siot_vbuf_put(o, item->data, item->len);
    if (k > 1)
        fmt(o, "(x%u)", k);
}

static void format_rmod(const siot_expr *x, siot_vbuf *o)
{
    siot_vbuf run, next;
    siot_vbuf_init(&run);
    siot_vbuf_init(&next);
    fmt(o, "{rank%%%u:", x->n);
    uint32_t k = 0, runs = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        next.len = 0;
        siot_x_format(x->u.items[i], &next);
        if (k && next.len == run.len && memcmp(next.data, run.data, run.len) == 0) {
            k++;
            continue;
        }
        if (k)
            put_run(o, &run, k, runs++ == 0);
        siot_vbuf tmp = run;
        run = next, next = tmp, k = 1;
    }
    if (k)
        put_run(o, &run, k, runs == 0);
    fmt(o, "}");
    siot_vbuf_free(&run);
    siot_vbuf_free(&next);
}

static void format_array(const siot_expr *x, siot_vbuf *o)
{
    fmt(o, "[");
    for (uint32_t i = 0; i < x->n; i++) {
        if (i)
            fmt(o, ",");
        if (i == 16 && x->n > 20) {
            fmt(o, "...(n=%u)", x->n);
            break;
        }
        siot_x_format(x->u.items[i], o);
    }
    fmt(o, "]");
}

void siot_x_format(const siot_expr *x, siot_vbuf *o)
{
    switch (x ? x->tag : 255) {
    case SIOT_X_NONE:
        fmt(o, "-");
        break;
    case SIOT_X_CONST:
        fmt(o, "%" PRId64, x->base);
        break;
    case SIOT_X_AFFINE:
        format_affine(x, o);
        break;
    case SIOT_X_SEQINT:
    case SIOT_X_SEQ:
        format_seq(x, o);
        break;
    case SIOT_X_RANKED:
        format_ranked(x, o);
        break;
    case SIOT_X_STR:
        format_str(x, o);
        break;
    case SIOT_X_SEQL:
        format_seql(x, o);
        break;
    case SIOT_X_APPROX:
        fmt(o, "~%" PRId64 "(%" PRId64 "..%" PRId64 " over %" PRIu64 ")", siot_x_approx_mean(x), x->base, x->rcoef,
            x->len);
        break;
    case SIOT_X_ARRAY:
        format_array(x, o);
        break;
    case SIOT_X_RMOD:
        format_rmod(x, o);
        break;
    case SIOT_X_RANGE:
        format_items(x, o, "range(", ")");
        break;
    case SIOT_X_RDIV:
        format_rdiv(x, o);
        break;
    case SIOT_X_RDIG:
        siot_x_format(x->u.items[0], o);
        fmt(o, "%+" PRId64 "*(digits(rank)-1)", x->sum);
        break;
    default:
        fmt(o, "?");
    }
}

int siot_arg_index(const siot_funcdesc *f, unsigned role)
{
    for (uint32_t k = 0; k < f->nargs; k++)
        if (f->argroles[k] == role)
            return (int)k;
    return -1;
}

int siot_poll_flag_arg(const siot_funcdesc *f)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    if (base != SIOT_CLASS_test && base != SIOT_CLASS_probe)
        return -1;
    int at = -1;
    for (uint32_t a = 0; a < f->nargs; a++)
        if (f->argroles[a] == SIOT_ROLE_outflag || (at < 0 && f->argroles[a] == SIOT_ROLE_outint))
            at = (int)a;
    return at;
}

int siot_aio_poll_idle(const siot_funcdesc *f, int64_t ret)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    int aio = 0;
    for (uint32_t a = 0; a < f->nargs; a++)
        aio |= f->argroles[a] == SIOT_ROLE_aiocb || f->argroles[a] == SIOT_ROLE_aiolist;
    return aio && ((base == SIOT_CLASS_test && ret == EINPROGRESS) ||
                   (base == SIOT_CLASS_wait && f->retrole != SIOT_ROLE_r_bytes && ret == -1));
}

int64_t siot_arg_int(const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, unsigned role, int64_t def)
{
    int k = siot_arg_index(f, role);
    return k >= 0 && (uint32_t)k < e->nargs ? siot_eval_int(e->args[k], c, def) : def;
}

int64_t siot_arg_dirfd(const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, int kpath)
{
    for (int k = kpath - 1; k >= 0 && f->argroles[k] != SIOT_ROLE_path; k--)
        if (f->argroles[k] == SIOT_ROLE_dirfd)
            return (uint32_t)k < e->nargs ? siot_eval_int(e->args[k], c, -1) : -1;
    return -100; /* AT_FDCWD */
}

int siot_dirfd_path_index(const siot_funcdesc *f, int kdirfd)
{
    for (uint32_t k = (uint32_t)kdirfd + 1; k < f->nargs && f->argroles[k] != SIOT_ROLE_dirfd; k++)
        if (f->argroles[k] == SIOT_ROLE_path)
            return (int)k;
    return -1;
}
