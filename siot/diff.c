#include "siot/diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "replay/walk.h"
#include "siot/dump.h"
#include "core/roles.h"

/* A rank's events, filtered: each comes with its index among the kept
 * events and the index of its nearest kept ancestor (-1 when none). */
typedef struct fiter {
    siot_iter it;
    const siot_diff_filter *flt;
    int64_t seq, kept;
    int64_t *st_seq, *st_keep; /* ancestors: seq, kept index of the nearest kept one (or -1) */
    size_t st_n, st_cap;
} fiter;

static int fiter_init(fiter *f, const siot_trace *t, int64_t rank, const siot_diff_filter *flt)
{
    memset(f, 0, sizeof *f);
    f->flt = flt;
    f->st_cap = 256;
    f->st_seq = malloc(f->st_cap * sizeof *f->st_seq);
    f->st_keep = malloc(f->st_cap * sizeof *f->st_keep);
    if (!f->st_seq || !f->st_keep || siot_iter_init(&f->it, t, rank) != 0)
        return -1;
    return 0;
}

static void fiter_free(fiter *f)
{
    siot_iter_free(&f->it);
    free(f->st_seq);
    free(f->st_keep);
}

static const siot_node *fiter_next(fiter *f, siot_ctx *c, int64_t *index, int64_t *parent)
{
    const siot_node *n;
    while ((n = siot_iter_next(&f->it, c))) {
        const siot_trace *t = f->it.t;
        const siot_funcdesc *fd = &t->funcs[n->u.ev.func];
        int64_t pd = siot_eval_int(n->u.ev.parent, c, 0), p = pd > 0 && pd <= f->seq ? f->seq - pd : -1;
        while (f->st_n && f->st_seq[f->st_n - 1] != p)
            f->st_n--;
        int64_t anc = f->st_n ? f->st_keep[f->st_n - 1] : -1;
        int keep = (!f->flt || !f->flt->layers || (f->flt->layers >> fd->layer & 1)) &&
                   !(f->flt && f->flt->outermost && anc >= 0);
        if (f->st_n == f->st_cap) {
            f->st_cap *= 2;
            int64_t *a = realloc(f->st_seq, f->st_cap * sizeof *a), *b = a ? realloc(f->st_keep, f->st_cap * sizeof *b) : NULL;
            if (a)
                f->st_seq = a;
            if (!b) {
                f->it.err = "out of memory";
                return NULL;
            }
            f->st_keep = b;
        }
        f->st_seq[f->st_n] = f->seq;
        f->st_keep[f->st_n] = keep ? f->kept : anc;
        f->st_n++;
        f->seq++;
        if (!keep)
            continue;
        *index = f->kept++;
        *parent = anc;
        return n;
    }
    return NULL;
}

/* A path as ioreplay uses it: leading "/" dropped, "." and ".." resolved
 * without climbing above the root. */
static void sandbox_path(const char *s, size_t n, siot_vbuf *o)
{
    size_t start = o->len;
    for (size_t i = 0; i < n;) {
        while (i < n && s[i] == '/')
            i++;
        size_t j = i;
        while (j < n && s[j] != '/')
            j++;
        if (j - i == 2 && s[i] == '.' && s[i + 1] == '.') {
            while (o->len > start && o->data[o->len - 1] != '/')
                o->len--;
            if (o->len > start)
                o->len--;
        } else if (j > i && !(j - i == 1 && s[i] == '.')) {
            if (o->len > start)
                siot_vbuf_u8(o, '/');
            siot_vbuf_put(o, s + i, j - i);
        }
        i = j;
    }
    if (o->len == start)
        siot_vbuf_u8(o, '.');
}

/* One event rendered as its JSON line without rank and seq: equal lines mean equal events. */
static int render(const siot_trace *t, const siot_node *n, const siot_ctx *c, int64_t parent, siot_vbuf *o,
                  siot_vbuf *scratch, int sandbox)
{
    const siot_event *e = &n->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    char head[128];
    o->len = 0;
    siot_json_str(o, f->name, strlen(f->name));
    int hn = snprintf(head, sizeof head, " parent=%" PRId64 " args={", parent);
    siot_vbuf_put(o, head, (size_t)hn);
    for (uint32_t k = 0; k < e->nargs; k++) {
        siot_value v;
        if (siot_eval(e->args[k], c, scratch, &v) != 0)
            return -1;
        if (k)
            siot_vbuf_u8(o, ',');
        siot_vbuf_put(o, f->argnames[k], strlen(f->argnames[k]));
        siot_vbuf_u8(o, ':');
        if (sandbox && f->argroles[k] == SIOT_ROLE_path && v.kind == SIOT_V_STR)
            sandbox_path(v.s, v.slen, o);
        else
            siot_json_value(o, f->argroles[k], &v);
    }
    hn = snprintf(head, sizeof head, "} ret=%" PRId64 " errno=%" PRId64 " bytes=%" PRId64, siot_eval_int(e->ret, c, 0),
                  siot_eval_int(e->err, c, 0), siot_eval_int(e->bytes, c, 0));
    siot_vbuf_put(o, head, (size_t)hn);
    return 0;
}

int siot_diff(const siot_trace *a, const siot_trace *b, const siot_diff_filter *flt, FILE *out, char *err,
              size_t errlen)
{
    if (a->nranks != b->nranks) {
        fprintf(out, "rank counts differ: %u and %u\n", a->nranks, b->nranks);
        return 1;
    }
    siot_vbuf la, lb, sa, sb;
    siot_vbuf_init(&la);
    siot_vbuf_init(&lb);
    siot_vbuf_init(&sa);
    siot_vbuf_init(&sb);
    int rc = 0;
    for (uint32_t r = 0; r < a->nranks && rc == 0; r++) {
        fiter ia, ib;
        if (fiter_init(&ia, a, r, flt) || fiter_init(&ib, b, r, flt)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        for (;;) {
            siot_ctx ca, cb;
            int64_t xa = 0, xb = 0, pa = -1, pb = -1;
            const siot_node *na = fiter_next(&ia, &ca, &xa, &pa), *nb = fiter_next(&ib, &cb, &xb, &pb);
            if (ia.it.err || ib.it.err) {
                snprintf(err, errlen, "rank %u: %s", r, ia.it.err ? ia.it.err : ib.it.err);
                rc = -1;
                break;
            }
            if (!na && !nb)
                break;
            if (!na || !nb) {
                fprintf(out, "rank %u: the %s trace ends at event %" PRId64 ", the other goes on\n", r,
                        na ? "second" : "first", na ? xa : xb);
                rc = 1;
                break;
            }
            int sb_paths = flt && flt->sandbox_paths;
            if (render(a, na, &ca, pa, &la, &sa, sb_paths) || render(b, nb, &cb, pb, &lb, &sb, sb_paths)) {
                snprintf(err, errlen, "rank %u event %" PRId64 ": a value cannot be evaluated", r, xa);
                rc = -1;
                break;
            }
            if (la.len != lb.len || memcmp(la.data, lb.data, la.len) != 0) {
                fprintf(out, "rank %u event %" PRId64 " differs:\n< %.*s\n> %.*s\n", r, xa, (int)la.len,
                        (const char *)la.data, (int)lb.len, (const char *)lb.data);
                rc = 1;
                break;
            }
        }
        fiter_free(&ia);
        fiter_free(&ib);
    }
    siot_vbuf_free(&la);
    siot_vbuf_free(&lb);
    siot_vbuf_free(&sa);
    siot_vbuf_free(&sb);
    return rc;
}
