#include "diff.h"

#include <inttypes.h>
#include <string.h>

#include "../compress/expr.h"
#include "../replay/walk.h"
#include "dump.h"

/* One event rendered as its JSON line without rank and seq: equal lines mean equal events. */
static int render(const siot_trace *t, const siot_node *n, const siot_ctx *c, int64_t seq, siot_vbuf *o,
                  siot_vbuf *scratch)
{
    const siot_event *e = &n->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    char head[128];
    o->len = 0;
    siot_json_str(o, f->name, strlen(f->name));
    int64_t pd = siot_eval_int(e->parent, c, 0);
    int hn = snprintf(head, sizeof head, " parent=%" PRId64 " args={", pd > 0 && pd <= seq ? seq - pd : -1);
    siot_vbuf_put(o, head, (size_t)hn);
    for (uint32_t k = 0; k < e->nargs; k++) {
        siot_value v;
        if (siot_eval(e->args[k], c, scratch, &v) != 0)
            return -1;
        if (k)
            siot_vbuf_u8(o, ',');
        siot_vbuf_put(o, f->argnames[k], strlen(f->argnames[k]));
        siot_vbuf_u8(o, ':');
        siot_json_value(o, f->argroles[k], &v);
    }
    hn = snprintf(head, sizeof head, "} ret=%" PRId64 " errno=%" PRId64 " bytes=%" PRId64, siot_eval_int(e->ret, c, 0),
                  siot_eval_int(e->err, c, 0), siot_eval_int(e->bytes, c, 0));
    siot_vbuf_put(o, head, (size_t)hn);
    return 0;
}

int siot_diff(const siot_trace *a, const siot_trace *b, FILE *out, char *err, size_t errlen)
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
        siot_iter ia, ib;
        if (siot_iter_init(&ia, a, r) || siot_iter_init(&ib, b, r)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        for (int64_t seq = 0;; seq++) {
            siot_ctx ca, cb;
            const siot_node *na = siot_iter_next(&ia, &ca), *nb = siot_iter_next(&ib, &cb);
            if (ia.err || ib.err) {
                snprintf(err, errlen, "rank %u: %s", r, ia.err ? ia.err : ib.err);
                rc = -1;
                break;
            }
            if (!na && !nb)
                break;
            if (!na || !nb) {
                fprintf(out, "rank %u: the %s trace ends at event %" PRId64 ", the other goes on\n", r,
                        na ? "second" : "first", seq);
                rc = 1;
                break;
            }
            if (render(a, na, &ca, seq, &la, &sa) || render(b, nb, &cb, seq, &lb, &sb)) {
                snprintf(err, errlen, "rank %u event %" PRId64 ": a value cannot be evaluated", r, seq);
                rc = -1;
                break;
            }
            if (la.len != lb.len || memcmp(la.data, lb.data, la.len) != 0) {
                fprintf(out, "rank %u event %" PRId64 " differs:\n< %.*s\n> %.*s\n", r, seq, (int)la.len,
                        (const char *)la.data, (int)lb.len, (const char *)lb.data);
                rc = 1;
                break;
            }
        }
        siot_iter_free(&ia);
        siot_iter_free(&ib);
    }
    siot_vbuf_free(&la);
    siot_vbuf_free(&lb);
    siot_vbuf_free(&sa);
    siot_vbuf_free(&sb);
    return rc;
}
