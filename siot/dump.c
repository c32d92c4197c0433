/* siot dump: the trace expanded to every event (--jsonl), or its compressed
 * structure for a person to read. */
#include "siot/dump.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/expr.h"
#include "core/hist.h"
#include "core/ranklist.h"
#include "replay/nest.h"
#include "replay/walk.h"
#include "core/names.h"
#include "core/roles.h"
#include "replay/files.h"
#include "siot/measures.h"
#include "siot/rankstats.h"

static int flush_out(siot_vbuf *o, FILE *fp)
{
    if (o->len && fwrite(o->data, 1, o->len, fp) != o->len)
        return -1;
    o->len = 0;
    return 0;
}

/* One event as a JSON line: the raw values, and the names of those that
 * have one (names.h) in "names". -1 when an argument cannot be evaluated. */
static int jsonl_event(siot_vbuf *o, const siot_trace *t, const siot_node *n, const siot_ctx *c, uint32_t r,
                       int64_t seq, siot_vbuf *scratch, siot_vbuf *names, siot_files *fs, char *err, size_t errlen)
{
    const siot_event *e = &n->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    char head[160];
    int hn = snprintf(head, sizeof head, "{\"rank\":%u,\"seq\":%" PRId64 ",\"layer\":\"%s\",\"func\":", r, seq,
                      siot_layer_name(f->layer));
    siot_vbuf_put(o, head, (size_t)hn);
    siot_json_str(o, f->name, strlen(f->name));
    hn = snprintf(head, sizeof head, ",\"parent\":%" PRId64 ",\"args\":{", rp_parent_seq(e, c, seq));
    siot_vbuf_put(o, head, (size_t)hn);
    names->len = 0;
    uint32_t bad;
    if (siot_json_args(o, names, f, e, c, scratch, &bad) != 0) {
        snprintf(err, errlen, "rank %u event %" PRId64 " (%s): argument %s cannot be evaluated", r, seq, f->name,
                 f->argnames[bad]);
        return -1;
    }
    siot_files_name_handles(fs, names, t, n, c);
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
    siot_json_ret_name(names, t->flavour, f->retrole, ret);
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
    siot_files fs; /* which file each handle refers to, event by event */
    siot_files_init(&fs);
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
            if (jsonl_event(&o, t, n, &c, r, seq, &scratch, &names, &fs, err, errlen) != 0) {
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
    if (rc == 0 && (o.oom || scratch.oom || names.oom || fs.oom)) {
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
    siot_files_free(&fs);
    return rc;
}

/* ------------------------------------------------------------ human form */

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
    int n = h->max_rank < 0 /* not kept (SIOT_TOLERANCE: compress/timefold.h) */
                ? snprintf(t, sizeof t, " %s={n=%" PRIu64 " mean=%s sd=%s min=%s max=%s}", label, h->count, a, d, b, c)
                : snprintf(t, sizeof t, " %s={n=%" PRIu64 " mean=%s sd=%s min=%s max=%s@r%d#%" PRIu64 "}", label,
                           h->count, a, d, b, c, h->max_rank, h->max_occ);
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

/* An MPI call's error class by its name in the trace's flavour
 * (MPI_ERR_NO_SUCH_FILE is 37 in MPICH, 42 in Open MPI); 0 stays 0. */
static void put_ret(siot_vbuf *o, const char *flavour, unsigned retrole, const siot_expr *x)
{
    const char *name = retrole == SIOT_ROLE_r_mpi && x->tag == SIOT_X_CONST && x->base
                           ? siot_mpi_error_name(flavour, x->base) : NULL;
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

/* The file beside a handle in the compressed form: the path expression of
 * the open that produced the handle's id, as the node order of the dump
 * meets it (files.h's classification of calls, on constant handle ids).
 * An entry holds for the ranks of its open; a use whose ranks are not all
 * covered by one entry, or whose id is not a constant, names no file. */
typedef struct hentry {
    uint8_t kind;
    int64_t id;
    const siot_ranklist *ranks;
    char *text; /* NULL: the handle names no file */
} hentry;
typedef struct hmap {
    hentry *v;
    uint32_t n, cap;
    siot_vbuf tmp;
} hmap;

/* The newest entry for the handle that holds rank, or NULL. */
static const hentry *hmap_rank(const hmap *m, uint8_t kind, int64_t id, int64_t rank)
{
    for (uint32_t i = m->n; i-- > 0;)
        if (m->v[i].kind == kind && m->v[i].id == id && siot_rl_contains(m->v[i].ranks, rank) > 0)
            return &m->v[i];
    return NULL;
}

/* The file of the handle on all of ranks, when they agree: opens of the
 * same path are often split between ranks (rank 0 creates, the others
 * open). Lists of more than 4096 ranks need one entry holding them all. */
static const char *hmap_find(const hmap *m, uint8_t kind, int64_t id, const siot_ranklist *ranks)
{
    uint64_t n = siot_rl_size(ranks);
    if (n > 4096) {
        for (uint32_t i = m->n; i-- > 0;)
            if (m->v[i].kind == kind && m->v[i].id == id && ranks_in(m->v[i].ranks, ranks) != RL_NONE)
                return ranks_in(m->v[i].ranks, ranks) == RL_ALL ? m->v[i].text : NULL;
        return NULL;
    }
    const char *text = NULL;
    for (uint64_t k = 0; k < n; k++) {
        const hentry *h = hmap_rank(m, kind, id, siot_rl_nth(ranks, k));
        if (!h || !h->text || (text && strcmp(text, h->text) != 0))
            return NULL;
        text = h->text;
    }
    return text;
}

/* text: a path expression's form, without its quotes; NULL for none. */
static void hmap_set(hmap *m, uint8_t kind, int64_t id, const siot_ranklist *ranks, const char *text, size_t len)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < m->n; i++) /* entries the new one replaces on all their ranks */
        if (m->v[i].kind == kind && m->v[i].id == id && ranks_in(ranks, m->v[i].ranks) == RL_ALL)
            free(m->v[i].text);
        else
            m->v[w++] = m->v[i];
    m->n = w;
    if (m->n == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 16;
        hentry *v = realloc(m->v, cap * sizeof *v);
        if (!v)
            return; /* the handle is then shown without its file */
        m->v = v;
        m->cap = cap;
    }
    char *t = text ? malloc(len + 1) : NULL;
    if (t) {
        memcpy(t, text, len);
        t[len] = 0;
    }
    m->v[m->n++] = (hentry){kind, id, ranks, t};
}

static int const_id(const siot_expr *x, int64_t *id)
{
    if (!x || x->tag != SIOT_X_CONST || x->base < 0)
        return 0;
    *id = x->base;
    return 1;
}

/* What the event node does to the map: an open binds its new handle to its
 * path, a derived handle takes its source's file. */
static void hmap_event(hmap *m, const siot_trace *t, const siot_node *nd)
{
    siot_vbuf *tmp = &m->tmp;
    const siot_event *e = &nd->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    int fdup = siot_arg_index(f, SIOT_ROLE_fcntlarg) >= 0 && e->nargs > 1 && e->args[1]->tag == SIOT_X_CONST &&
               (e->args[1]->base == F_DUPFD || e->args[1]->base == F_DUPFD_CLOEXEC);
    siot_handle_op op = siot_handle_op_of(f, fdup);
    int64_t id, src;
    if (op.what == SIOT_HOP_OPEN && const_id(op.kout >= 0 ? e->args[op.kout] : e->ret, &id)) {
        tmp->len = 0;
        siot_x_format(e->args[op.karg], tmp);
        const char *p = (const char *)tmp->data;
        size_t len = tmp->len;
        if (len >= 2 && p[0] == '"' && p[len - 1] == '"') {
            p++;
            len -= 2;
        }
        if (!tmp->oom)
            hmap_set(m, op.kind, id, &nd->ranks, p, len);
    } else if (op.what == SIOT_HOP_DERIVE && const_id(e->ret, &id)) {
        const char *from = const_id(e->args[op.karg], &src)
                               ? hmap_find(m, siot_handle_kind(f->argroles[op.karg]), src, &nd->ranks) : NULL;
        hmap_set(m, op.kind, id, &nd->ranks, from, from ? strlen(from) : 0);
    } else if (op.what == SIOT_HOP_UNNAMED && const_id(e->ret, &id)) {
        hmap_set(m, op.kind, id, &nd->ranks, NULL, 0);
    }
}

/* <file> after a handle argument: the file its open named, or <stdout>... */
static void put_handle_file(siot_vbuf *o, const hmap *m, unsigned role, const siot_expr *x,
                            const siot_ranklist *ranks)
{
    int64_t id;
    if (!m || !siot_role_uses_handle(role) || !const_id(x, &id))
        return;
    const char *file = hmap_find(m, siot_handle_kind(role), id, ranks);
    if (file) {
        siot_vbuf_u8(o, '<');
        siot_vbuf_put(o, file, strlen(file));
        siot_vbuf_u8(o, '>');
    } else if ((file = siot_std_stream_name(role, id))) {
        siot_vbuf_put(o, file, strlen(file));
    }
}

/* One event: the call, its arguments (by name where they have one), its
 * result, the distance to its parent unless it is shown nested, its call
 * site and its timing. */
static void dump_event(const siot_trace *t, const siot_node *nd, int nested, siot_vbuf *o, hmap *hm)
{
    const siot_event *e = &nd->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    siot_vbuf_put(o, f->name, strlen(f->name));
    siot_vbuf_u8(o, '(');
    for (uint32_t k = 0; k < e->nargs; k++) {
        if (k)
            siot_vbuf_put(o, ", ", 2);
        siot_vbuf_put(o, f->argnames[k], strlen(f->argnames[k]));
        siot_vbuf_u8(o, '=');
        put_arg(o, f->argroles[k], e->args[k]);
        put_handle_file(o, hm, f->argroles[k], e->args[k], &nd->ranks);
    }
    siot_vbuf_put(o, ") ret=", 6);
    put_ret(o, t->flavour, f->retrole, e->ret);
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
                       const siot_ranklist *parent_ranks, int raw, hmap *hm)
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
            dump_nodes(t, nd->u.loop.body, nd->u.loop.nbody, indent + 1, o, &nd->ranks, raw, hm);
            for (int k = 0; k < indent; k++)
                siot_vbuf_put(o, "  ", 2);
            siot_vbuf_put(o, "}\n", 2);
            continue;
        }
        dump_event(t, nd, up >= 0, o, hm);
        hmap_event(hm, t, nd);
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
    char form[96];
    if (t->rtsum)
        fprintf(fp, "  rank times: %s (the %u fastest and slowest ranks of each quantity)\n",
                siot_rank_times_form(t, form, sizeof form), t->rt_keep);
    else if (t->nrt)
        fprintf(fp, "  rank times: %s (%u rows)\n", siot_rank_times_form(t, form, sizeof form), t->nrt);
    fputc('\n', fp);
    hmap hm = {0};
    siot_vbuf_init(&hm.tmp);
    dump_nodes(t, t->top, t->ntop, 0, &o, NULL, raw, &hm);
    for (uint32_t i = 0; i < hm.n; i++)
        free(hm.v[i].text);
    free(hm.v);
    siot_vbuf_free(&hm.tmp);
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
