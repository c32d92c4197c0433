/* siot dump: the trace expanded to every event (--jsonl), or its compressed
 * structure for a person to read. */
#include "siot/dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/expr.h"
#include "core/hist.h"
#include "core/ranklist.h"
#include "replay/walk.h"
#include "core/names.h"
#include "core/roles.h"

/* wait: the completion that reports an asynchronous request's bytes
 * (aio_return); MPI waits record none (their requests' calls do). */
int siot_is_data_class(unsigned cls)
{
    unsigned b = SIOT_CLASS_BASE(cls);
    return b == SIOT_CLASS_read || b == SIOT_CLASS_write || b == SIOT_CLASS_send || b == SIOT_CLASS_recv ||
           b == SIOT_CLASS_sendrecv || b == SIOT_CLASS_wait;
}

static int flush_out(siot_vbuf *o, FILE *fp)
{
    if (o->len && fwrite(o->data, 1, o->len, fp) != o->len)
        return -1;
    o->len = 0;
    return 0;
}

/* One event as a JSON line: the raw values, and the names of those that
 * have one (names.h) in "names". -1 when an argument cannot be evaluated. */
static int jsonl_event(siot_vbuf *o, const siot_trace *t, const siot_event *e, const siot_ctx *c, uint32_t r,
                       int64_t seq, siot_vbuf *scratch, siot_vbuf *names, char *err, size_t errlen)
{
    const siot_funcdesc *f = &t->funcs[e->func];
    char head[160];
    int64_t pd = siot_eval_int(e->parent, c, 0);
    int hn = snprintf(head, sizeof head, "{\"rank\":%u,\"seq\":%" PRId64 ",\"layer\":\"%s\",\"func\":", r, seq,
                      siot_layer_name(f->layer));
    siot_vbuf_put(o, head, (size_t)hn);
    siot_json_str(o, f->name, strlen(f->name));
    hn = snprintf(head, sizeof head, ",\"parent\":%" PRId64 ",\"args\":{", pd > 0 && pd <= seq ? seq - pd : -1);
    siot_vbuf_put(o, head, (size_t)hn);
    names->len = 0;
    uint32_t bad;
    if (siot_json_args(o, names, f, e, c, scratch, &bad) != 0) {
        snprintf(err, errlen, "rank %u event %" PRId64 " (%s): argument %s cannot be evaluated", r, seq, f->name,
                 f->argnames[bad]);
        return -1;
    }
    int64_t ret = siot_eval_int(e->ret, c, 0), ern = siot_eval_int(e->err, c, 0);
    int64_t bytes = siot_eval_int(e->bytes, c, 0), th = siot_eval_int(e->thread, c, 0);
    hn = snprintf(head, sizeof head, "},\"ret\":%" PRId64, ret);
    siot_vbuf_put(o, head, (size_t)hn);
    if (siot_is_data_class(f->cls)) {
        hn = snprintf(head, sizeof head, ",\"bytes\":%" PRId64, bytes);
        siot_vbuf_put(o, head, (size_t)hn);
    }
    if (ern) {
        hn = snprintf(head, sizeof head, ",\"errno\":%" PRId64, ern);
        siot_vbuf_put(o, head, (size_t)hn);
        siot_json_errno_name(names, ern);
    }
    if (th) {
        hn = snprintf(head, sizeof head, ",\"thread\":%" PRId64, th);
        siot_vbuf_put(o, head, (size_t)hn);
    }
    siot_json_put_names(o, names);
    siot_vbuf_put(o, "}\n", 2);
    return 0;
}

int siot_dump_jsonl(const siot_trace *t, FILE *fp, char *err, size_t errlen)
{
    siot_vbuf o, scratch, names;
    siot_vbuf_init(&o);
    siot_vbuf_init(&scratch);
    siot_vbuf_init(&names);
    int rc = 0;
    for (uint32_t r = 0; r < t->nranks && rc == 0; r++) {
        siot_iter it;
        if (siot_iter_init(&it, t, r) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        siot_ctx c;
        const siot_node *n;
        int64_t seq = 0;
        while ((n = siot_iter_next(&it, &c))) {
            if (jsonl_event(&o, t, &n->u.ev, &c, r, seq, &scratch, &names, err, errlen) != 0) {
                rc = -1;
                break;
            }
            seq++;
            if (o.len > (1 << 16) && flush_out(&o, fp) != 0) {
                snprintf(err, errlen, "write error");
                rc = -1;
                break;
            }
        }
        if (rc == 0 && it.err) {
            snprintf(err, errlen, "rank %u: %s", r, it.err);
            rc = -1;
        }
        siot_iter_free(&it);
    }
    if (rc == 0 && (o.oom || scratch.oom || names.oom)) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (flush_out(&o, fp) != 0 && rc == 0) {
        snprintf(err, errlen, "write error");
        rc = -1;
    }
    siot_vbuf_free(&o);
    siot_vbuf_free(&scratch);
    siot_vbuf_free(&names);
    return rc;
}

/* ------------------------------------------------------------ human form */

void siot_fmt_ns(char *buf, size_t n, double ns)
{
    if (ns < 1e3)
        snprintf(buf, n, "%.0fns", ns);
    else if (ns < 1e6)
        snprintf(buf, n, "%.2fus", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, n, "%.2fms", ns / 1e6);
    else
        snprintf(buf, n, "%.3fs", ns / 1e9);
}

static void put_hist(siot_vbuf *o, const char *label, const siot_hist *h)
{
    char a[32], b[32], c[32], d[32], t[200];
    if (h->count == 0)
        return;
    siot_fmt_ns(a, sizeof a, h->mean);
    if (h->count == 1) {
        int n = snprintf(t, sizeof t, " %s=%s", label, a);
        siot_vbuf_put(o, t, (size_t)n);
        return;
    }
    siot_fmt_ns(b, sizeof b, (double)h->min);
    siot_fmt_ns(c, sizeof c, (double)h->max);
    siot_fmt_ns(d, sizeof d, siot_hist_stddev(h));
    int n = snprintf(t, sizeof t, " %s={n=%" PRIu64 " mean=%s sd=%s min=%s max=%s@r%d#%" PRIu64 "}", label, h->count, a,
                     d, b, c, h->max_rank, h->max_occ);
    siot_vbuf_put(o, t, (size_t)n);
}

/* A constant with a name (flags, modes, whence, predefined MPI handles)
 * is shown by its name (names.h); anything else as its expression. */
static void put_arg(siot_vbuf *o, unsigned role, const siot_expr *x)
{
    char buf[160];
    const char *name = x && x->tag == SIOT_X_CONST ? siot_value_name(role, x->base, buf, sizeof buf) : NULL;
    if (name)
        siot_vbuf_put(o, name, strlen(name));
    else
        siot_x_format(x, o);
}

static void put_errno(siot_vbuf *o, const siot_expr *x)
{
    const char *name = x->tag == SIOT_X_CONST ? siot_errno_name(x->base) : NULL;
    if (name)
        siot_vbuf_put(o, name, strlen(name));
    else
        siot_x_format(x, o);
}

/* Whether the ranks of i are all in k, none, or some. Lists of more than
 * 4096 ranks are compared whole (equal: all, else some). */
enum { RL_ALL, RL_NONE, RL_SOME };
static int ranks_in(const siot_ranklist *k, const siot_ranklist *i)
{
    uint64_t n = siot_rl_size(i), in = 0;
    if (n > 4096)
        return siot_rl_equal(k, i) ? RL_ALL : RL_SOME;
    for (uint64_t x = 0; x < n; x++)
        in += siot_rl_contains(k, siot_rl_nth(i, x)) > 0;
    return in == n ? RL_ALL : in == 0 ? RL_NONE : RL_SOME;
}

/* The sibling that issued node i: its parent is at a constant distance and
 * every node on the way back is one event on all of i's ranks or on none
 * of them, so that on every rank the distance lands on the same sibling;
 * else -1 (the dump then shows the parent's distance). */
static int64_t issuer(siot_node *const *nodes, uint32_t i)
{
    const siot_node *nd = nodes[i];
    const siot_expr *p = nd->kind == SIOT_N_EVENT ? nd->u.ev.parent : NULL;
    if (!p || p->tag != SIOT_X_CONST || p->base <= 0)
        return -1;
    int64_t left = p->base;
    for (int64_t k = (int64_t)i - 1; k >= 0; k--) {
        if (nodes[k]->kind != SIOT_N_EVENT)
            return -1;
        int rel = ranks_in(&nodes[k]->ranks, &nd->ranks);
        if (rel == RL_SOME)
            return -1;
        if (rel == RL_ALL && --left == 0)
            return k;
    }
    return -1;
}

/* One event: the call, its arguments (by name where they have one), its
 * result, the distance to its parent unless it is shown nested, its call
 * site and its timing. */
static void dump_event(const siot_trace *t, const siot_event *e, int nested, siot_vbuf *o)
{
    const siot_funcdesc *f = &t->funcs[e->func];
    siot_vbuf_put(o, f->name, strlen(f->name));
    siot_vbuf_u8(o, '(');
    for (uint32_t k = 0; k < e->nargs; k++) {
        if (k)
            siot_vbuf_put(o, ", ", 2);
        siot_vbuf_put(o, f->argnames[k], strlen(f->argnames[k]));
        siot_vbuf_u8(o, '=');
        put_arg(o, f->argroles[k], e->args[k]);
    }
    siot_vbuf_put(o, ") ret=", 6);
    siot_x_format(e->ret, o);
    if (!(e->err->tag == SIOT_X_CONST && e->err->base == 0)) {
        siot_vbuf_put(o, " errno=", 7);
        put_errno(o, e->err);
    }
    if (siot_is_data_class(f->cls)) {
        siot_vbuf_put(o, " bytes=", 7);
        siot_x_format(e->bytes, o);
    }
    if (!nested && !(e->parent->tag == SIOT_X_CONST && e->parent->base == 0)) {
        siot_vbuf_put(o, " parent=-", 9);
        siot_x_format(e->parent, o);
    }
    if (!(e->thread->tag == SIOT_X_CONST && e->thread->base == 0)) {
        siot_vbuf_put(o, " thread=", 8);
        siot_x_format(e->thread, o);
    }
    if (e->site) {
        char tag[24];
        int n = snprintf(tag, sizeof tag, " @s%u", e->site);
        siot_vbuf_put(o, tag, (size_t)n);
    }
    put_hist(o, "comp", &e->comp);
    put_hist(o, "dur", &e->dur);
    siot_vbuf_u8(o, '\n');
}

static void dump_nodes(const siot_trace *t, siot_node *const *nodes, uint32_t n, int indent, siot_vbuf *o,
                       const siot_ranklist *parent_ranks, int raw)
{
    /* calls issued by a sibling are indented under it (not with --raw) */
    uint32_t *depth = raw ? NULL : calloc(n ? n : 1, sizeof *depth);
    for (uint32_t i = 0; i < n; i++) {
        const siot_node *nd = nodes[i];
        int64_t up = depth ? issuer(nodes, i) : -1;
        if (up >= 0)
            depth[i] = depth[up] + 1;
        for (int k = 0; k < indent + (int)(depth ? depth[i] : 0); k++)
            siot_vbuf_put(o, "  ", 2);
        const siot_ranklist *around = up >= 0 ? &nodes[up]->ranks : parent_ranks;
        int show_ranks = !around || !siot_rl_equal(around, &nd->ranks);
        if (show_ranks) {
            siot_vbuf_put(o, "[r", 2);
            siot_rl_format(&nd->ranks, o);
            siot_vbuf_put(o, "] ", 2);
        }
        if (nd->kind == SIOT_N_LOOP) {
            siot_vbuf_put(o, "loop x", 6);
            siot_x_format(nd->u.loop.count, o);
            siot_vbuf_put(o, " {\n", 3);
            dump_nodes(t, nd->u.loop.body, nd->u.loop.nbody, indent + 1, o, &nd->ranks, raw);
            for (int k = 0; k < indent; k++)
                siot_vbuf_put(o, "  ", 2);
            siot_vbuf_put(o, "}\n", 2);
            continue;
        }
        dump_event(t, &nd->u.ev, up >= 0, o);
    }
    free(depth);
}

int siot_dump_human(const siot_trace *t, const char *path, FILE *fp, int raw)
{
    siot_vbuf o;
    siot_vbuf_init(&o);
    char when[64] = "?";
    time_t secs = (time_t)(t->start_ns / 1000000000u);
    struct tm tm;
    if (gmtime_r(&secs, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(fp, "trace %s\n", path);
    fprintf(fp, "  ranks %u, flavour %s, host %s, siotrace %s, started %s\n", t->nranks, t->flavour, t->host,
            t->version, when);
    fprintf(fp, "  executable %s\n", t->exe);
    fprintf(fp, "  %u nodes, loop depth %u, %u functions, %u call sites%s%s%s%s\n", t->nnodes, t->max_depth, t->nfuncs,
            t->nsites, t->flags & SIOT_TF_COMPRESSED ? ", compressed" : "",
            t->flags & SIOT_TF_PARTIAL ? ", PARTIAL" : "", t->flags & SIOT_TF_APPROX ? ", APPROXIMATE" : "",
            t->flags & SIOT_TF_TRUNCATED ? ", TRUNCATED" : "");
    for (uint32_t i = 0; i < t->nkv; i++)
        fprintf(fp, "  note %s: %s\n", t->kv[i].key, t->kv[i].val);
    fputc('\n', fp);
    dump_nodes(t, t->top, t->ntop, 0, &o, NULL, raw);
    if (t->nsites) {
        /* Call sites: frames innermost first, as module+offset (addr2line -e MODULE OFFSET). */
        fprintf(fp, "%.*s", (int)o.len, (const char *)o.data);
        o.len = 0;
        fprintf(fp, "\ncall sites (innermost frame first; addr2line -e MODULE OFFSET):\n");
        for (uint32_t i = 0; i < t->nsites; i++) {
            fprintf(fp, "  s%u:", i + 1);
            for (uint32_t k = 0; k < t->sites[i].depth; k++) {
                uint64_t a = t->sites[i].addrs[k];
                uint32_t m = SIOT_ADDR_MODULE(a);
                const char *path = m < t->nmodules ? t->modules[m] : "?";
                const char *base = strrchr(path, '/');
                fprintf(fp, " %s+0x%llx", base ? base + 1 : path, (unsigned long long)SIOT_ADDR_OFFSET(a));
            }
            fputc('\n', fp);
        }
        fprintf(fp, "modules:\n");
        for (uint32_t i = 0; i < t->nmodules; i++)
            fprintf(fp, "  %s\n", t->modules[i]);
    }
    int rc = (o.oom || flush_out(&o, fp) != 0) ? -1 : 0;
    siot_vbuf_free(&o);
    return rc;
}
