/* test_format: file format v1 round trips of a hand-built trace, and the
 * decoder's behaviour on truncated, bit-flipped and hostile (CRC-valid) input. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "core/expr.h"
#include "core/hist.h"
#include "compress/merge.h"
#include "compress/timefold.h"
#include "core/ranklist.h"
#include "replay/walk.h"
#include "core/format.h"
#include "core/pack.h"
#include "core/roles.h"
#include "tests/unit/unit.h"
#include "tests/unit/xbuild.h"

/* ================================================================ builders */

static siot_expr *xlist(siot_arena *a, uint8_t tag, uint32_t n, siot_expr *const *items)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    x->tag = tag;
    x->n = n;
    x->u.items = siot_arena_alloc(a, (n ? n : 1) * sizeof *x->u.items);
    for (uint32_t i = 0; i < n; i++)
        x->u.items[i] = items[i];
    return x;
}

static siot_expr *xseqint(siot_arena *a, uint32_t n, const int64_t *vals)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    x->tag = SIOT_X_SEQINT;
    x->n = n;
    x->u.vals = siot_arena_alloc(a, (n ? n : 1) * sizeof(int64_t));
    for (uint32_t i = 0; i < n; i++)
        x->u.vals[i] = vals[i];
    return x;
}

static siot_expr *xranked(siot_arena *a, uint32_t n, const siot_ranklist *rls, siot_expr *const *xs)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    x->tag = SIOT_X_RANKED;
    x->n = n;
    x->u.ranked = siot_arena_alloc(a, n * sizeof *x->u.ranked);
    for (uint32_t i = 0; i < n; i++) {
        x->u.ranked[i].rl = rls[i];
        x->u.ranked[i].x = xs[i];
    }
    return x;
}

/* lit1 + field (width, zero_pad) + lit2 */
static siot_expr *xstr3(siot_arena *a, const char *lit1, siot_expr *field, uint16_t width, int pad, const char *lit2)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    x->tag = SIOT_X_STR;
    x->n = 3;
    x->u.segs = siot_arena_alloc(a, 3 * sizeof *x->u.segs);
    x->u.segs[0].lit = lit1;
    x->u.segs[0].len = (uint32_t)strlen(lit1);
    x->u.segs[1].is_field = 1;
    x->u.segs[1].zero_pad = (uint8_t)pad;
    x->u.segs[1].width = width;
    x->u.segs[1].field = field;
    x->u.segs[2].lit = lit2;
    x->u.segs[2].len = (uint32_t)strlen(lit2);
    return x;
}

/* One entry: start with up to two dims (count 0 = no such dim). */
static siot_ranklist rl1(siot_arena *a, int32_t start, uint32_t c0, int32_t s0, uint32_t c1, int32_t s1)
{
    siot_ranklist rl = {1, siot_arena_alloc(a, sizeof(siot_rentry))};
    rl.e[0].start = start;
    if (c0) {
        rl.e[0].dims[rl.e[0].ndims].count = c0;
        rl.e[0].dims[rl.e[0].ndims++].stride = s0;
    }
    if (c1) {
        rl.e[0].dims[rl.e[0].ndims].count = c1;
        rl.e[0].dims[rl.e[0].ndims++].stride = s1;
    }
    return rl;
}

static siot_node *ev(siot_arena *a, siot_ranklist ranks, uint32_t func, uint32_t site, uint32_t nargs,
                     siot_expr *const *args, siot_expr *ret, siot_expr *bytes, siot_expr *thread)
{
    siot_node *n = siot_arena_alloc(a, sizeof *n);
    n->kind = SIOT_N_EVENT;
    n->ranks = ranks;
    siot_event *e = &n->u.ev;
    e->func = func;
    e->site = site;
    e->thread = thread ? thread : siot_x_const(a, 0);
    e->parent = siot_x_const(a, 0);
    e->ret = ret;
    e->err = siot_x_const(a, 0);
    e->bytes = bytes ? bytes : siot_x_const(a, 0);
    e->nargs = nargs;
    e->args = siot_arena_alloc(a, (nargs ? nargs : 1) * sizeof *e->args);
    for (uint32_t i = 0; i < nargs; i++)
        e->args[i] = args[i];
    return n;
}

static siot_node *loop(siot_arena *a, siot_ranklist ranks, siot_expr *count, uint32_t nbody, siot_node *const *body)
{
    siot_node *n = siot_arena_alloc(a, sizeof *n);
    n->kind = SIOT_N_LOOP;
    n->ranks = ranks;
    n->u.loop.count = count;
    n->u.loop.nbody = nbody;
    n->u.loop.body = siot_arena_alloc(a, nbody * sizeof *n->u.loop.body);
    for (uint32_t i = 0; i < nbody; i++)
        n->u.loop.body[i] = body[i];
    return n;
}

/* ============================================================ the rich trace */

/* Function table: 7 entries, of which 1 and 4 are never used by a node. */
static const char *const open_an[] = {"path", "flags", "mode"};
static const uint8_t open_ar[] = {SIOT_ROLE_path, SIOT_ROLE_oflags, SIOT_ROLE_mode};
static const char *const fsync_an[] = {"fd"};
static const uint8_t fsync_ar[] = {SIOT_ROLE_fd};
static const char *const pwrite_an[] = {"fd", "buf", "count", "offset"};
static const uint8_t pwrite_ar[] = {SIOT_ROLE_fd, SIOT_ROLE_buf, SIOT_ROLE_count, SIOT_ROLE_offset};
static const char *const wat_an[] = {"fh", "offset", "buf", "count", "datatype", "status"};
static const uint8_t wat_ar[] = {SIOT_ROLE_file, SIOT_ROLE_offset, SIOT_ROLE_buf,
                                 SIOT_ROLE_count, SIOT_ROLE_dtype, SIOT_ROLE_status};
static const char *const h5_an[] = {"file_id"};
static const uint8_t h5_ar[] = {SIOT_ROLE_closehid};
static const char *const bar_an[] = {"comm"};
static const uint8_t bar_ar[] = {SIOT_ROLE_comm};
static const char *const close_an[] = {"fd"};
static const uint8_t close_ar[] = {SIOT_ROLE_fd};

static const siot_funcdesc FUNCS[7] = {
    {"open", SIOT_LAYER_posix, SIOT_CLASS_open, SIOT_ROLE_r_newfd, 3, open_an, open_ar},
    {"fsync", SIOT_LAYER_posix, SIOT_CLASS_sync, SIOT_ROLE_r_int, 1, fsync_an, fsync_ar},
    {"pwrite", SIOT_LAYER_posix, SIOT_CLASS_write, SIOT_ROLE_r_bytes, 4, pwrite_an, pwrite_ar},
    {"MPI_File_write_at_all", SIOT_LAYER_mpiio, SIOT_CLASS_write | SIOT_CLS_COLL, SIOT_ROLE_r_mpi, 6, wat_an, wat_ar},
    {"H5Fclose", SIOT_LAYER_hdf5, SIOT_CLASS_close, SIOT_ROLE_r_herr, 1, h5_an, h5_ar},
    {"MPI_Barrier", SIOT_LAYER_mpi, SIOT_CLASS_coll | SIOT_CLS_COLL, SIOT_ROLE_r_mpi, 1, bar_an, bar_ar},
    {"close", SIOT_LAYER_posix, SIOT_CLASS_close, SIOT_ROLE_r_int, 1, close_an, close_ar},
};
/* Used functions in table order: the decoded table. */
static const uint32_t USED[5] = {0, 2, 3, 5, 6};

#define NRANKS 16
/* counts per occurrence; the extremes make the delta encoding wrap */
static const int64_t PW_COUNT[9] = {10, 20, 5, (int64_t)1 << 33, -7, INT64_MIN, INT64_MAX, -1, 12345};
static int in_p(int r) { return r < 12 && r % 8 < 4; } /* {0-3, 8-11} */
static int in_cl(int r) { return r == 0 || r == 3 || r == 5 || r == 6 || r == 7 || r == 12; }

static uint64_t *SITE0, *SITE1;

/*
 *   open            ranks 0-15   path "plot_%04d.h5"(rank), flags 66, mode 420, ret 3 (even) / 4 (odd)
 *   loop x3 (j)     ranks 0-15
 *     MPI_Barrier   ranks 0-15
 *     loop x(2+j) (i)  ranks {0-3,8-11}
 *       pwrite      fd 3, buf -, count PW_COUNT[occ], offset 1000 + rank*2^20 + 4096 i + 65536 j,
 *                   ret = bytes = 4096 (even occ) / 100+rank (odd occ), thread 0 (ranks 0-3) / 1 (8-11)
 *     MPI_File_write_at_all  fh 7, offset 4096 rank + 65536 j, buf -, count 4096, datatype 3, status [rank,0,4096]
 *   close           ranks {0,3,5,6,7,12}   fd 3
 */
static void build_rich(siot_trace *t)
{
    siot_trace_init(t);
    siot_arena *a = &t->arena;
    t->nranks = NRANKS;
    t->flags = SIOT_TF_COMPRESSED;
    t->start_ns = UINT64_C(1700000000123456789);
    t->exe = "/usr/bin/app";
    t->flavour = "mpich";
    t->host = "node01";
    t->version = "0.1.0";
    /* first note by hand (see the set_kv check in main), then one replaced and one appended */
    t->kv = siot_arena_alloc(a, sizeof *t->kv);
    t->kv[0].key = "cmdline";
    t->kv[0].val = "old";
    t->nkv = 1;
    CHECK(siot_trace_set_kv(t, "cmdline", "./app -n 16") == 0);
    CHECK(siot_trace_set_kv(t, "note", "") == 0);
    CHECK(t->nkv == 2);
    t->nfuncs = 7;
    t->funcs = siot_arena_alloc(a, sizeof FUNCS);
    memcpy(t->funcs, FUNCS, sizeof FUNCS);
    t->nsites = 2;
    t->sites = siot_arena_alloc(a, 2 * sizeof *t->sites);
    SITE0 = siot_arena_alloc(a, 3 * sizeof(uint64_t));
    SITE1 = siot_arena_alloc(a, sizeof(uint64_t));
    SITE0[0] = SIOT_ADDR(0, 0x401000), SITE0[1] = SIOT_ADDR(0, 0x402abc), SITE0[2] = SIOT_ADDR(1, 0x7fff00001234);
    SITE1[0] = SIOT_ADDR(1, 0x1234);
    static const char *MODULES[2] = {"/usr/bin/app", "/lib/x86_64-linux-gnu/libx.so.1"};
    t->nmodules = 2;
    t->modules = MODULES;
    t->sites[0].depth = 3, t->sites[0].addrs = SITE0;
    t->sites[1].depth = 1, t->sites[1].addrs = SITE1;

    siot_ranklist all = rl1(a, 0, NRANKS, 1, 0, 0);
    siot_ranklist p = rl1(a, 0, 4, 1, 2, 8);
    siot_ranklist eo[2] = {rl1(a, 0, 8, 2, 0, 0), rl1(a, 1, 8, 2, 0, 0)};
    siot_ranklist cl = {3, siot_arena_alloc(a, 3 * sizeof(siot_rentry))};
    cl.e[0].start = 0, cl.e[0].ndims = 1, cl.e[0].dims[0].count = 2, cl.e[0].dims[0].stride = 3;
    cl.e[1].start = 5, cl.e[1].ndims = 1, cl.e[1].dims[0].count = 3, cl.e[1].dims[0].stride = 1;
    cl.e[2].start = 12, cl.e[2].ndims = 0;

    /* open */
    siot_expr *rets[2] = {siot_x_const(a, 3), siot_x_const(a, 4)};
    siot_expr *oargs[3] = {xstr3(a, "plot_", unit_affine(a, 0, 1, 0, NULL), 4, 1, ".h5"), siot_x_const(a, 66),
                           siot_x_const(a, 420)};
    siot_node *n_open = ev(a, all, 0, 1, 3, oargs, xranked(a, 2, eo, rets), NULL, NULL);
    siot_hist_init1(&n_open->u.ev.dur, 1234, 5, 0); /* comp: no samples, dur: one */

    /* barrier */
    siot_expr *bargs[1] = {siot_x_const(a, 0)};
    siot_node *n_bar = ev(a, all, 5, 0, 1, bargs, siot_x_const(a, 0), NULL, NULL);
    for (int i = 0; i < 48; i++) {
        CHECK(siot_hist_add(a, &n_bar->u.ev.comp, (uint64_t)(i * 37 + 5), i % NRANKS, (uint64_t)(i / NRANKS)));
        CHECK(siot_hist_add(a, &n_bar->u.ev.dur, (uint64_t)1 << (i % 30), i % NRANKS, (uint64_t)(i / NRANKS)));
    }

    /* pwrite in the inner loop */
    siot_expr *retseq[9];
    for (int k = 0; k < 9; k++)
        retseq[k] = k % 2 == 0 ? siot_x_const(a, 4096) : unit_affine(a, 100, 1, 0, NULL);
    siot_expr *ret_pw = xlist(a, SIOT_X_SEQ, 9, retseq);
    const int64_t off_coef[2] = {4096, 65536};
    siot_expr *pargs[4] = {siot_x_const(a, 3), siot_x_none(a), xseqint(a, 9, PW_COUNT),
                           unit_affine(a, 1000, 1 << 20, 2, off_coef)};
    siot_ranklist th[2] = {rl1(a, 0, 4, 1, 0, 0), rl1(a, 8, 4, 1, 0, 0)};
    siot_expr *thx[2] = {siot_x_const(a, 0), siot_x_const(a, 1)};
    siot_node *n_pw = ev(a, p, 2, 2, 4, pargs, ret_pw, ret_pw, xranked(a, 2, th, thx));
    siot_hist_init1(&n_pw->u.ev.comp, 77, 3, 4);
    for (int i = 0; i < 9; i++)
        CHECK(siot_hist_add(a, &n_pw->u.ev.dur, UINT64_C(1) << (10 + 3 * i), 11, (uint64_t)i));
    const int64_t one[1] = {1};
    siot_node *n_inner = loop(a, p, unit_affine(a, 2, 0, 1, one), 1, &n_pw);

    /* write_at_all */
    siot_expr *st[3] = {unit_affine(a, 0, 1, 0, NULL), siot_x_const(a, 0), siot_x_const(a, 4096)};
    const int64_t wcoef[1] = {65536};
    siot_expr *wargs[6] = {siot_x_const(a, 7), unit_affine(a, 0, 4096, 1, wcoef), siot_x_none(a),
                           siot_x_const(a, 4096), siot_x_const(a, 3), xlist(a, SIOT_X_ARRAY, 3, st)};
    siot_node *n_wat = ev(a, all, 3, 0, 6, wargs, siot_x_const(a, 0), NULL, NULL);

    siot_node *outer_body[3] = {n_bar, n_inner, n_wat};
    siot_node *n_outer = loop(a, all, siot_x_const(a, 3), 3, outer_body);

    /* close */
    siot_expr *cargs[1] = {siot_x_const(a, 3)};
    siot_node *n_close = ev(a, cl, 6, 0, 1, cargs, siot_x_const(a, 0), NULL, NULL);
    for (int i = 0; i < 6; i++)
        CHECK(siot_hist_add(a, &n_close->u.ev.dur, (uint64_t)(1000 + 500 * i), i, 0));

    t->ntop = 3;
    t->top = siot_arena_alloc(a, 3 * sizeof *t->top);
    t->top[0] = n_open;
    t->top[1] = n_outer;
    t->top[2] = n_close;
    siot_trace_index(t);
}

/* ======================================================== event rendering */

static void app(char *out, size_t len, size_t *pos, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void app(char *out, size_t len, size_t *pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (*pos < len) {
        int n = vsnprintf(out + *pos, len - *pos, fmt, ap);
        if (n > 0)
            *pos += (size_t)n;
    }
    va_end(ap);
}

/* "name(arg,...) ret=.. bytes=.. err=.. parent=.. thread=.. site=.." from the decoded values. */
static void render(const siot_trace *t, const siot_node *n, const siot_ctx *c, siot_vbuf *scratch, char *out,
                   size_t len)
{
    const siot_event *e = &n->u.ev;
    size_t pos = 0;
    app(out, len, &pos, "%s(", e->func < t->nfuncs ? t->funcs[e->func].name : "?");
    for (uint32_t i = 0; i < e->nargs; i++) {
        siot_value v;
        if (i)
            app(out, len, &pos, ",");
        if (siot_eval(e->args[i], c, scratch, &v) != 0) {
            app(out, len, &pos, "?");
            continue;
        }
        if (v.kind == SIOT_V_INT)
            app(out, len, &pos, "%lld", (long long)v.i);
        else if (v.kind == SIOT_V_STR)
            app(out, len, &pos, "\"%.*s\"", (int)v.slen, v.s);
        else if (v.kind == SIOT_V_ARR) {
            app(out, len, &pos, "[");
            for (uint32_t k = 0; k < v.n; k++)
                app(out, len, &pos, "%s%lld", k ? "," : "", (long long)v.arr[k]);
            app(out, len, &pos, "]");
        } else
            app(out, len, &pos, "-");
    }
    const int64_t bad = -999999;
    app(out, len, &pos, ") ret=%lld bytes=%lld err=%lld parent=%lld thread=%lld site=%u",
        (long long)siot_eval_int(e->ret, c, bad), (long long)siot_eval_int(e->bytes, c, bad),
        (long long)siot_eval_int(e->err, c, bad), (long long)siot_eval_int(e->parent, c, bad),
        (long long)siot_eval_int(e->thread, c, bad), e->site);
}

/* The events of rank r, computed by hand from the description above build_rich. */
static int expected_events(int r, char lines[][200])
{
    int n = 0;
    snprintf(lines[n++], 200, "open(\"plot_%04d.h5\",66,420) ret=%d bytes=0 err=0 parent=0 thread=0 site=1", r,
             r % 2 ? 4 : 3);
    int occ = 0;
    for (int j = 0; j < 3; j++) {
        snprintf(lines[n++], 200, "MPI_Barrier(0) ret=0 bytes=0 err=0 parent=0 thread=0 site=0");
        if (in_p(r))
            for (int i = 0; i < 2 + j; i++, occ++) {
                long long off = 1000 + (long long)r * 1048576 + 4096LL * i + 65536LL * j;
                long long rv = occ % 2 == 0 ? 4096 : 100 + r;
                snprintf(lines[n++], 200, "pwrite(3,-,%lld,%lld) ret=%lld bytes=%lld err=0 parent=0 thread=%d site=2",
                         (long long)PW_COUNT[occ], off, rv, rv, r >= 8 ? 1 : 0);
            }
        snprintf(lines[n++], 200,
                 "MPI_File_write_at_all(7,%lld,-,4096,3,[%d,0,4096]) ret=0 bytes=0 err=0 parent=0 thread=0 site=0",
                 4096LL * r + 65536LL * j, r);
    }
    if (in_cl(r))
        snprintf(lines[n++], 200, "close(3) ret=0 bytes=0 err=0 parent=0 thread=0 site=0");
    return n;
}

/* Walks every rank and evaluates everything; returns the number of events (capped per rank). */
static uint64_t walk_all(const siot_trace *t, uint64_t cap)
{
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    uint64_t total = 0;
    char line[4096];
    for (uint32_t r = 0; r < t->nranks; r++) {
        siot_iter it;
        if (siot_iter_init(&it, t, r) != 0)
            break;
        siot_ctx c;
        const siot_node *n;
        uint64_t k = 0;
        while (k < cap && (n = siot_iter_next(&it, &c))) {
            render(t, n, &c, &scratch, line, sizeof line);
            k++;
        }
        total += k;
        siot_iter_free(&it);
    }
    siot_vbuf_free(&scratch);
    return total;
}

static int hist_same(const siot_hist *x, const siot_hist *y)
{
    if (x->count != y->count)
        return 0;
    if (x->count == 0)
        return 1;
    if (x->min != y->min || x->max != y->max || x->max_rank != y->max_rank || x->max_occ != y->max_occ)
        return 0;
    if (memcmp(&x->mean, &y->mean, sizeof x->mean) != 0 || memcmp(&x->m2, &y->m2, sizeof x->m2) != 0)
        return 0;
    for (unsigned b = 0; b < SIOT_HBINS; b++)
        if (siot_hist_bin_count(x, b) != siot_hist_bin_count(y, b))
            return 0;
    return 1;
}

/* ============================================ hand-crafted files (own encoder) */

static const uint8_t MAGIC[8] = {0x89, 'S', 'I', 'O', 'T', '\r', '\n', 0x1a};
enum { S_HEADER = 1, S_FUNCS = 2, S_SITES = 3, S_NODES = 4, S_END = 5 };

/* tag, varint length, payload, CRC-32 over tag byte + payload */
static void put_section(siot_vbuf *f, uint8_t tag, const siot_vbuf *p)
{
    siot_vbuf_u8(f, tag);
    siot_vbuf_uvar(f, p->len);
    siot_vbuf_put(f, p->data, p->len);
    uint32_t crc = siot_crc32(0, &tag, 1);
    crc = siot_crc32(crc, p->data, p->len);
    siot_vbuf_u32le(f, crc);
}

static void put_str(siot_vbuf *b, const char *s) { siot_vbuf_str(b, s, strlen(s)); }

typedef struct craft {
    siot_vbuf hdr, funcs, sites, nodes;
} craft;

/* Header for nranks, one function "f(x:int)", no call sites, empty node list. */
static void craft_init(craft *c, uint64_t nranks)
{
    siot_vbuf_init(&c->hdr);
    siot_vbuf_init(&c->funcs);
    siot_vbuf_init(&c->sites);
    siot_vbuf_init(&c->nodes);
    siot_vbuf_uvar(&c->hdr, nranks);
    siot_vbuf_uvar(&c->hdr, 0); /* flags */
    siot_vbuf_uvar(&c->hdr, 0); /* start_ns */
    put_str(&c->hdr, "exe");
    put_str(&c->hdr, "mpich");
    put_str(&c->hdr, "host");
    put_str(&c->hdr, "1");
    siot_vbuf_uvar(&c->hdr, 0); /* notes */
    siot_vbuf_uvar(&c->funcs, 1);
    put_str(&c->funcs, "f");
    siot_vbuf_u8(&c->funcs, SIOT_LAYER_posix);
    siot_vbuf_uvar(&c->funcs, SIOT_CLASS_meta);
    siot_vbuf_u8(&c->funcs, SIOT_ROLE_r_int);
    siot_vbuf_uvar(&c->funcs, 1);
    put_str(&c->funcs, "x");
    siot_vbuf_u8(&c->funcs, SIOT_ROLE_int);
    siot_vbuf_uvar(&c->sites, 0); /* modules */
    siot_vbuf_uvar(&c->sites, 0); /* sites */
}

static void craft_free(craft *c)
{
    siot_vbuf_free(&c->hdr);
    siot_vbuf_free(&c->funcs);
    siot_vbuf_free(&c->sites);
    siot_vbuf_free(&c->nodes);
}

/* magic, u16 major 1, u16 minor 0, HEADER FUNCS SITES NODES, END(4) */
static void craft_file(const craft *c, siot_vbuf *f)
{
    siot_vbuf end;
    siot_vbuf_init(&end);
    siot_vbuf_uvar(&end, 4);
    siot_vbuf_put(f, MAGIC, 8);
    const uint8_t ver[4] = {1, 0, 0, 0};
    siot_vbuf_put(f, ver, 4);
    put_section(f, S_HEADER, &c->hdr);
    put_section(f, S_FUNCS, &c->funcs);
    put_section(f, S_SITES, &c->sites);
    put_section(f, S_NODES, &c->nodes);
    put_section(f, S_END, &end);
    siot_vbuf_free(&end);
}

/* rank list of one entry holding ranks [0, n) */
static void w_rl_all(siot_vbuf *b, uint64_t n)
{
    siot_vbuf_uvar(b, 1);
    siot_vbuf_uvar(b, 0);
    if (n == 1) {
        siot_vbuf_u8(b, 0);
        return;
    }
    siot_vbuf_u8(b, 1);
    siot_vbuf_uvar(b, n);
    siot_vbuf_uvar(b, 1);
}

static void w_const(siot_vbuf *b, int64_t v)
{
    siot_vbuf_u8(b, SIOT_X_CONST);
    siot_vbuf_svar(b, v);
}

/* AFFINE base + sum coef[k]*iter[k] with n coefficients all equal to c */
static void w_affine(siot_vbuf *b, int64_t base, uint64_t n, int64_t c)
{
    siot_vbuf_u8(b, SIOT_X_AFFINE);
    siot_vbuf_svar(b, base);
    siot_vbuf_svar(b, 0);
    siot_vbuf_uvar(b, n);
    for (uint64_t k = 0; k < n; k++)
        siot_vbuf_svar(b, c);
}

/* An event of function 0 on ranks [0, nranks): five zero constants, the argument bytes, two empty histograms. */
static void w_event(siot_vbuf *b, uint64_t nranks, const siot_vbuf *arg)
{
    siot_vbuf_u8(b, SIOT_N_EVENT);
    w_rl_all(b, nranks);
    siot_vbuf_uvar(b, 0); /* func */
    siot_vbuf_uvar(b, 0); /* site */
    for (int i = 0; i < 5; i++)
        w_const(b, 0);
    siot_vbuf_put(b, arg->data, arg->len);
    siot_vbuf_uvar(b, 0);
    siot_vbuf_uvar(b, 0);
}

/* An event of function 0 at no call site on ranks [0, nranks): five zero
 * fields and a zero argument; its two histograms are for the caller to write. */
static void w_event_zero(siot_vbuf *b, uint64_t nranks)
{
    siot_vbuf_u8(b, SIOT_N_EVENT);
    w_rl_all(b, nranks);
    siot_vbuf_uvar(b, 0);
    siot_vbuf_uvar(b, 0);
    for (int i = 0; i < 6; i++)
        w_const(b, 0);
}

static void w_event_const(siot_vbuf *b, uint64_t nranks, int64_t v)
{
    siot_vbuf arg;
    siot_vbuf_init(&arg);
    w_const(&arg, v);
    w_event(b, nranks, &arg);
    siot_vbuf_free(&arg);
}

static void w_loop_head(siot_vbuf *b, uint64_t nranks, int64_t count, uint64_t nbody)
{
    siot_vbuf_u8(b, SIOT_N_LOOP);
    w_rl_all(b, nranks);
    w_const(b, count);
    siot_vbuf_uvar(b, nbody);
}

/* Decodes f from an exact-size heap copy (so ASan sees any overread). */
static int decode_exact(const uint8_t *p, size_t n, siot_trace *t, char *err, size_t errlen)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (n)
        memcpy(copy, p, n);
    err[0] = 0;
    int rc = siot_trace_decode(copy, n, t, err, errlen);
    free(copy);
    return rc;
}

static int expect_reject(const char *what, const siot_vbuf *f)
{
    siot_trace t;
    char err[256];
    int rc = decode_exact(f->data, f->len, &t, err, sizeof err);
    int ok = rc == -1 && err[0] != 0 && t.top == NULL && t.ntop == 0 && t.arena.head == NULL;
    if (!ok)
        fprintf(stderr, "  %s: expected rejection, got rc=%d err='%s'\n", what, rc, err);
    if (rc == 0)
        siot_trace_free(&t);
    return ok;
}

static int expect_accept(const char *what, const siot_vbuf *f, siot_trace *t)
{
    char err[256];
    int rc = decode_exact(f->data, f->len, t, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "  %s: expected success, got '%s'\n", what, err);
    return rc == 0;
}

/* Builds c's file into f, expects the reader to refuse it, frees c. */
static int reject_crafted(const char *what, craft *c, siot_vbuf *f)
{
    f->len = 0;
    craft_file(c, f);
    int ok = expect_reject(what, f);
    craft_free(c);
    return ok;
}

/* Builds a file whose NODES section is one event with the given argument bytes. */
static void file_with_arg(siot_vbuf *f, uint64_t nranks, const siot_vbuf *arg)
{
    craft c;
    craft_init(&c, nranks);
    siot_vbuf_uvar(&c.nodes, 1);
    w_event(&c.nodes, nranks, arg);
    craft_file(&c, f);
    craft_free(&c);
}

/* arg (emptied first): depth SEQs of one item each around the constant v. */
static void w_nested_seq(siot_vbuf *arg, int depth, int64_t v)
{
    arg->len = 0;
    for (int i = 0; i < depth; i++) {
        siot_vbuf_u8(arg, SIOT_X_SEQ);
        siot_vbuf_uvar(arg, 1);
    }
    w_const(arg, v);
}

/* The file of that one event (f emptied first) is refused. */
static int arg_rejected(siot_vbuf *f, uint64_t nranks, const siot_vbuf *arg, const char *what)
{
    f->len = 0;
    file_with_arg(f, nranks, arg);
    return expect_reject(what, f);
}

/* Per-rank time rows: exact between ranks, within 0.1% in the file form,
 * united by append (sorted, each rank once); a rank row beyond the rank
 * count or a rank listed twice is refused. */
static void check_rank_times(void)
{
    siot_trace a, b, d;
    siot_vbuf f;
    char err[256];
    static const uint64_t V[3] = {123456789, 0, 1023};
    build_rich(&a);
    build_rich(&b);
    a.rt = siot_arena_alloc(&a.arena, 2 * sizeof *a.rt);
    a.nrt = 2;
    a.rt[0].rank = 1, a.rt[1].rank = 9;
    b.rt = siot_arena_alloc(&b.arena, sizeof *b.rt);
    b.nrt = 1;
    b.rt[0].rank = 4;
    for (unsigned k = 0; k < 3; k++) {
        a.rt[0].v[SIOT_RT_span + k] = V[k];
        a.rt[1].v[SIOT_RT_layer_hdf5] = V[0] + 7;
        b.rt[0].v[SIOT_RT_mpi_collective] = V[k] * 3 + 1;
    }
    for (int exact = 1; exact >= 0; exact--) {
        siot_vbuf_init(&f);
        CHECK((exact ? siot_trace_encode_exact(&a, &f) : siot_trace_encode(&a, &f)) == 0);
        CHECK(decode_exact(f.data, f.len, &d, err, sizeof err) == 0);
        CHECK(d.nrt == 2 && d.rt[0].rank == 1 && d.rt[1].rank == 9);
        for (unsigned k = 0; k < SIOT_RT_N && d.nrt == 2; k++)
            for (int r = 0; r < 2; r++) {
                double want = (double)a.rt[r].v[k], got = (double)d.rt[r].v[k];
                CHECK(exact ? got == want : got >= want * 0.999 && got <= want * 1.001);
            }
        siot_trace_free(&d);
        siot_vbuf_free(&f);
    }
    CHECK(siot_trace_append(&a, &b) == 0);
    CHECK(a.nrt == 3 && a.rt[0].rank == 1 && a.rt[1].rank == 4 && a.rt[2].rank == 9);
    CHECK(a.nrt == 3 && a.rt[1].v[SIOT_RT_mpi_collective] == 3 * V[2] + 1 && a.rt[2].v[SIOT_RT_layer_hdf5] == V[0] + 7);
    /* rows of several blocks are settled at the end of a decode: a rank twice is refused */
    a.rt[1].rank = 9;
    CHECK(siot_rt_settle(&a) == -1);
    a.rt[1].rank = 4;
    CHECK(siot_rt_settle(&a) == 0 && a.rt[0].rank == 1 && a.rt[1].rank == 4);
    siot_vbuf_init(&f);
    a.rt[2].rank = NRANKS; /* beyond the rank count */
    CHECK(siot_trace_encode_exact(&a, &f) == 0);
    CHECK(expect_reject("rank times: a row beyond the rank count", &f));
    siot_vbuf_free(&f);
    siot_trace_free(&a);
}

/* ==================================================================== main */

/* ================================================ minor 1: the compact forms */

/* A one-rank trace of one close() event at site 1, for the tables below. */
static siot_node *compact_trace(siot_trace *t, uint32_t nsites)
{
    siot_trace_init(t);
    siot_arena *a = &t->arena;
    t->nranks = 4;
    t->exe = t->flavour = t->host = t->version = "x";
    t->nfuncs = 7;
    t->funcs = siot_arena_alloc(a, sizeof FUNCS);
    memcpy(t->funcs, FUNCS, sizeof FUNCS);
    static const char *MODS[2] = {"/app", "/lib/libz.so"};
    t->nmodules = 2;
    t->modules = MODS;
    t->nsites = nsites;
    t->sites = siot_arena_alloc(a, (nsites ? nsites : 1) * sizeof *t->sites);
    siot_expr *args[1] = {siot_x_const(a, 3)};
    siot_node *n = ev(a, rl1(a, 0, 4, 1, 0, 0), 6, nsites ? 1 : 0, 1, args, siot_x_const(a, 0), NULL, NULL);
    t->top = siot_arena_alloc(a, sizeof *t->top);
    t->top[0] = n;
    t->ntop = 1;
    return n;
}

static void set_site(siot_trace *t, uint32_t i, uint32_t depth, const uint64_t *addrs)
{
    t->sites[i].depth = depth;
    t->sites[i].addrs = siot_arena_alloc(&t->arena, (depth ? depth : 1) * sizeof(uint64_t));
    if (depth)
        memcpy(t->sites[i].addrs, addrs, depth * sizeof(uint64_t));
}

/* Decodes both forms of t and checks the sites and the event's histograms
 * come back bit for bit (the file form: against the file-form values the
 * caller expects, in want_file; not at all without them). */
static void compact_round_trip(const siot_trace *t, const siot_hist *want_file)
{
    for (int exact = 0; exact < 2; exact++) {
        siot_vbuf f;
        siot_vbuf_init(&f);
        CHECK((exact ? siot_trace_encode_exact(t, &f) : siot_trace_encode(t, &f)) == 0);
        siot_trace d;
        char err[256];
        int rc = decode_exact(f.data, f.len, &d, err, sizeof err);
        CHECK(rc == 0);
        if (rc != 0) {
            fprintf(stderr, "  compact round trip: %s\n", err);
            siot_vbuf_free(&f);
            continue;
        }
        CHECK(d.nsites == t->nsites);
        for (uint32_t i = 0; i < d.nsites && i < t->nsites; i++)
            CHECK(d.sites[i].depth == t->sites[i].depth &&
                  memcmp(d.sites[i].addrs, t->sites[i].addrs, t->sites[i].depth * sizeof(uint64_t)) == 0);
        const siot_event *e = &t->top[0]->u.ev, *g = &d.top[0]->u.ev;
        if (exact || want_file) {
            CHECK(hist_same(&g->comp, exact ? &e->comp : &want_file[0]));
            CHECK(hist_same(&g->dur, exact ? &e->dur : &want_file[1]));
        }
        siot_trace_free(&d);
        siot_vbuf_free(&f);
    }
}

/* 20 sites sharing their 7 outer frames, one repeated: the tree holds 27
 * frames and 27 nodes, so the section's size follows from the format:
 * payload = modules 1+5+13 (two paths) + frames 1+27*2 + nodes 1+27*2 +
 * sites 1+21 (every delta, index and distance under 128: one byte each)
 * = 151, section = tag 1 + length 2 + 151 + CRC 4 = 158. The flat form of
 * minor 0 took 1 + 8*(1+1+1 or 2) bytes per site (over 350 in all). */
static void check_compact_sites(void)
{
    siot_trace t;
    compact_trace(&t, 21);
    uint64_t f[8];
    for (uint32_t i = 0; i < 20; i++) {
        f[0] = SIOT_ADDR(0, 200 + i);
        for (int k = 1; k < 8; k++)
            f[k] = SIOT_ADDR(0, 16 * (uint64_t)(8 - k));
        set_site(&t, i, 8, f);
    }
    set_site(&t, 20, 8, t.sites[1].addrs);
    uint64_t sz[SIOT_NSECTION_SIZES];
    CHECK(siot_section_sizes(&t, sz) == 0);
    CHECK_EQ_I64(sz[3], 158);
    compact_round_trip(&t, NULL);
    siot_trace_free(&t);

    /* Edge cases: no frames, the deepest site (256 frames over both
     * modules, the largest offset), a site that is the prefix of others,
     * sites in two modules interleaved, an empty table. */
    compact_trace(&t, 6);
    uint64_t deep[SIOT_MAX_SITE_DEPTH];
    for (uint32_t k = 0; k < SIOT_MAX_SITE_DEPTH; k++)
        deep[k] = SIOT_ADDR(k % 2, k == 7 ? SIOT_ADDR_OFFSET(UINT64_MAX) : 1000 + 977 * (uint64_t)k);
    set_site(&t, 0, 0, NULL);
    set_site(&t, 1, SIOT_MAX_SITE_DEPTH, deep);
    set_site(&t, 2, 5, deep + SIOT_MAX_SITE_DEPTH - 5);
    set_site(&t, 3, 3, deep + 2);
    set_site(&t, 4, 6, deep + SIOT_MAX_SITE_DEPTH - 6);
    set_site(&t, 5, 1, deep + 7);
    compact_round_trip(&t, NULL);
    siot_trace_free(&t);
    compact_trace(&t, 0);
    compact_round_trip(&t, NULL);
    siot_trace_free(&t);
}

/* Histograms: the integer mean, M2 and bins where they give the doubles
 * back exactly (in the file form: in at most 3 bytes), else the doubles, or
 * in the file form (minor 2) 3-byte floats of the mean and the standard
 * deviation; the bins of the file form as minor 0 read them. */
static void check_compact_hists(void)
{
    siot_trace t;
    siot_node *n = compact_trace(&t, 0);
    siot_hist *c = &n->u.ev.comp, *u = &n->u.ev.dur;
    /* 1000, 1500, 3000, 70000 ns: sum 75500, 4*M2 = 4*sum(x^2) - sum^2 =
     * 13,948,750,000, bins 9, 10, 11, 16. File form: count 1, min and max 4,
     * rank 1, occurrence 3: 1, mask<<3|form 2 (mask 0x87 from bin 9), mean as
     * 75500 - 4*1000 (3 bytes), 4*M2 (5 bytes: too long, so the standard
     * deviation as a 2-byte float instead, minor 6), bins but the last 3:
     * 17 bytes, against 18 in minor 2, 20 with the integer M2 of minor 1
     * and 29 with two doubles. */
    static const uint64_t S[4] = {1000, 1500, 3000, 70000};
    for (int i = 0; i < 4; i++)
        CHECK(siot_hist_add(&t.arena, c, S[i], i, 3));
    siot_vbuf sc;
    siot_vbuf_init(&sc);
    CHECK_EQ_I64(siot_hist_size(c, SIOT_HIST_NO_EXPECT, &sc), 17);
    CHECK_EQ_I64(siot_hist_moments_size(c), 5);
    /* siot dump --sizes by part: count 1, times 4, the maximum's rank and
     * occurrence 2, mean and standard deviation 5, mask 2 and bins 3 */
    uint64_t part[SIOT_HIST_PARTS];
    siot_hist_parts(c, SIOT_HIST_NO_EXPECT, &sc, part);
    CHECK(part[0] == 1 && part[1] == 4 && part[2] == 2 && part[3] == 5 && part[4] == 5);
    CHECK(c->mean == 75500.0 / 4 && c->m2 == 13948750000.0 / 4);
    siot_hist want[2] = {*c, {0}};
    want[0].max = 70016; /* 547 << 7: the file form's 0.1% */
    /* sd = sqrt(M2 / 4) = 29526.2066 in [2^14, 2^15): exponent 25, m =
     * round(sd * 2^(20-25)) = 923, sd' = 29536, M2' = 4 * sd'^2 (a relative
     * error of 7e-4) */
    want[0].m2 = 4.0 * 29536 * 29536;
    /* A mean and M2 no sum of integers gives (set by hand, as a merged or
     * decoded trace may hold): the doubles stay. */
    for (int i = 0; i < 300; i++)
        CHECK(siot_hist_add(&t.arena, u, 5000 + (uint64_t)i * 7, i % 4, (uint64_t)i));
    u->mean = nextafter(u->mean, 1e9);
    u->m2 = u->m2 * 1.1 + 0.3;
    want[1] = *u;
    want[1].bins = siot_arena_alloc(&t.arena, SIOT_HBINS * sizeof *want[1].bins);
    want[1].bins[12] = 300; /* 5000..7093 ns: one bin */
    want[1].min = 5000, want[1].max = 7096; /* 887 << 3 */
    /* The file form's floats: the mean 6046.5 (and a bit) in [2^12, 2^13)
     * in 3 bytes is m = round(6046.5 * 2^5) = 193488, 6046.5; M2 = 1.1 *
     * 110248775 + 0.3 over 300 samples, sd = 635.80304 in [2^9, 2^10), in
     * 2 bytes (minor 6) is e 20, m = round(sd * 2^(20-20)) = 636, sd' = 636, M2' =
     * 300 * sd'^2. */
    want[1].mean = 6046.5;
    want[1].m2 = 300.0 * 636 * 636;
    /* count 2, times 4, rank 1, occurrence 299: 2, mask<<3|0: 1, floats 3 + 2, one bin 1 */
    CHECK_EQ_I64(siot_hist_size(u, SIOT_HIST_NO_EXPECT, &sc), 2 + 4 + 1 + 2 + 1 + 5 + 1);
    compact_round_trip(&t, want);
    /* One sample: count 1, times 4, (rank+1)<<1|1 when the occurrence is 0
     * (then not written), else the occurrence after it. */
    siot_hist one;
    siot_hist_init1(&one, 1000, 2, 0);
    CHECK_EQ_I64(siot_hist_size(&one, SIOT_HIST_NO_EXPECT, &sc), 6);
    siot_hist_init1(&one, 1000, 2, 5);
    CHECK_EQ_I64(siot_hist_size(&one, SIOT_HIST_NO_EXPECT, &sc), 7);
    /* Bins that do not add up to the count (a forged trace read before):
     * written one by one, kept as they are in the exact form. */
    c->bins[9] = 5;
    compact_round_trip(&t, NULL);
    siot_vbuf_free(&sc);
    siot_trace_free(&t);
}

/* A minimum the file form rounds up into the next bin (2047 ns is stored as
 * 2048, bin 11) while the bins still hold that sample in bin 10: read back
 * and written again in the exact form (between ranks, siot merge), the
 * trace keeps bin 10, and its minimum stays below it. */
static void check_min_rounded_up(void)
{
    siot_trace t, d, e;
    siot_node *n = compact_trace(&t, 0);
    static const uint64_t S[3] = {2047, 3000, 4000};
    for (int i = 0; i < 3; i++)
        CHECK(siot_hist_add(&t.arena, &n->u.ev.comp, S[i], 0, (uint64_t)i));
    siot_vbuf f;
    siot_vbuf_init(&f);
    char err[256];
    CHECK(siot_trace_encode(&t, &f) == 0 && decode_exact(f.data, f.len, &d, err, sizeof err) == 0);
    const siot_hist *g = &d.top[0]->u.ev.comp;
    CHECK(g->bins && g->bins[10] >= 1 && g->min >= 1024 && g->min <= 2047);
    f.len = 0;
    CHECK(siot_trace_encode_exact(&d, &f) == 0 && decode_exact(f.data, f.len, &e, err, sizeof err) == 0);
    const siot_hist *h = &e.top[0]->u.ev.comp;
    for (unsigned b = 0; b < SIOT_HBINS && g->bins && h->bins; b++)
        CHECK_EQ_I64(h->bins[b], g->bins[b]);
    CHECK(h->min == g->min && h->count == 3);
    siot_trace_free(&e);
    siot_trace_free(&d);
    siot_trace_free(&t);
    siot_vbuf_free(&f);
}

/* A crafted file with the minor-1 forms (flag 32): c's sites payload is
 * replaced by the caller. */
static void craft_compact(craft *c, uint64_t nranks)
{
    craft_init(c, nranks);
    c->hdr.len = 0;
    siot_vbuf_uvar(&c->hdr, nranks);
    siot_vbuf_uvar(&c->hdr, SIOT_TF_COMPACT);
    siot_vbuf_uvar(&c->hdr, 0);
    for (int i = 0; i < 4; i++)
        put_str(&c->hdr, "x");
    siot_vbuf_uvar(&c->hdr, 0);
    c->sites.len = 0;
}

/* Builds c's file and frees c: 1 when the reader refuses it and want_ok is
 * 0, or accepts it, want_ok is not 0, and check (when given) approves what
 * it read. */
static int crafted_ok(const char *what, craft *c, int want_ok, int (*check)(const siot_trace *))
{
    siot_vbuf f;
    siot_vbuf_init(&f);
    int ok;
    if (want_ok) {
        siot_trace t;
        craft_file(c, &f);
        ok = expect_accept(what, &f, &t);
        if (ok) {
            ok = !check || check(&t);
            siot_trace_free(&t);
        }
        craft_free(c);
    } else {
        ok = reject_crafted(what, c, &f);
    }
    siot_vbuf_free(&f);
    return ok;
}

/* frames 5 and 12 of /app; site 0 = node 1 = [12, 5] innermost first */
static int good_tree_site(const siot_trace *t)
{
    return t->nsites == 1 && t->sites[0].depth == 2 && t->sites[0].addrs[0] == SIOT_ADDR(0, 12) &&
           t->sites[0].addrs[1] == SIOT_ADDR(0, 5);
}

/* An event of no sites whose duration histogram has 4 samples from min to
 * min + span, its maximum at rank 0, occurrence 0; the caller writes the
 * rest (from mask<<3|form on). */
static void craft_hist4(craft *c, uint64_t min, uint64_t span)
{
    for (int k = 0; k < 4; k++)
        siot_vbuf_uvar(&c->sites, 0);
    siot_vbuf_uvar(&c->nodes, 1);
    w_event_zero(&c->nodes, 1);
    siot_vbuf_uvar(&c->nodes, 0); /* comp: empty */
    siot_vbuf_uvar(&c->nodes, 4);
    siot_vbuf_uvar(&c->nodes, min);
    siot_vbuf_uvar(&c->nodes, span);
    siot_vbuf_uvar(&c->nodes, 1 << 1 | 1); /* rank 0, occurrence 0 */
}

/* One module, the frames (module delta, offset delta) pairs (a count of nfr,
 * at most the 2 frames fr holds written), the nodes (distance back, frame)
 * pairs and the sites' nodes, as the test gives them. want_ok: 0 rejected,
 * 1 accepted as the good tree's one site, 2 accepted. */
static int compact_sites_file(const char *what, const uint64_t *fr, uint64_t nfr, const uint64_t *nodes,
                              uint64_t nnodes, const uint64_t *sites, uint64_t nsites, int want_ok)
{
    craft c;
    craft_compact(&c, 1);
    siot_vbuf_uvar(&c.sites, 1);
    put_str(&c.sites, "/app");
    siot_vbuf_uvar(&c.sites, nfr);
    for (uint64_t i = 0; i < 2 * nfr && i < 4; i++)
        siot_vbuf_uvar(&c.sites, fr[i]);
    siot_vbuf_uvar(&c.sites, nnodes);
    for (uint64_t i = 0; i < 2 * nnodes; i++)
        siot_vbuf_uvar(&c.sites, nodes[i]);
    siot_vbuf_uvar(&c.sites, nsites);
    for (uint64_t i = 0; i < nsites; i++)
        siot_vbuf_uvar(&c.sites, sites[i]);
    siot_vbuf_uvar(&c.nodes, 0);
    return crafted_ok(what, &c, want_ok, want_ok == 1 ? good_tree_site : NULL);
}

/* mean (4*1000 + 10) / 4; bins 9 and 10 from the mask 0x3: 1, then 4 - 1 */
static int hist4_sum_read(const siot_trace *t)
{
    const siot_hist *h = &t->top[0]->u.ev.dur;
    return h->count == 4 && h->mean == 1002.5 && h->m2 == 0 && siot_hist_bin_count(h, 9) == 1 &&
           siot_hist_bin_count(h, 10) == 3;
}

static void check_compact_hostile(void)
{
    const uint64_t fr[4] = {0, 5, 0, 7}, nodes[4] = {0, 0, 1, 1}, site1[1] = {2};
    CHECK(compact_sites_file("a good tree", fr, 2, nodes, 2, site1, 1, 1));
    const uint64_t fwd[4] = {0, 0, 2, 1};
    CHECK(compact_sites_file("a parent after its child", fr, 2, fwd, 2, site1, 1, 0));
    const uint64_t badf[4] = {0, 0, 1, 2};
    CHECK(compact_sites_file("a frame out of range", fr, 2, badf, 2, site1, 1, 0));
    const uint64_t badm[4] = {1, 5, 0, 7};
    CHECK(compact_sites_file("a frame in an unknown module", badm, 2, nodes, 2, site1, 1, 0));
    const uint64_t wrap[4] = {0, UINT64_MAX, 0, 7};
    CHECK(compact_sites_file("an offset past 2^48", wrap, 2, nodes, 2, site1, 1, 0));
    const uint64_t site3[1] = {3};
    CHECK(compact_sites_file("a site of an unknown node", fr, 2, nodes, 2, site3, 1, 0));
    CHECK(compact_sites_file("more frames than bytes", fr, 1000, nodes, 0, NULL, 0, 0));
    /* a chain of 257 nodes: one too deep */
    uint64_t chain[2 * 257];
    for (int i = 0; i < 257; i++)
        chain[2 * i] = i ? 1 : 0, chain[2 * i + 1] = 0;
    const uint64_t top[1] = {257};
    CHECK(compact_sites_file("a site deeper than 256", fr, 1, chain, 257, top, 1, 0));
    const uint64_t deepest[1] = {256};
    CHECK(compact_sites_file("a site of 256 frames", fr, 1, chain, 256, deepest, 1, 2));

    /* Histograms of 4 samples at min 1000 (exact form, flag 32 without 16). */
    static const struct {
        const char *what;
        uint64_t form_mask, mean, bins[2];
        int nbins, ok;
    } H[] = {
        {"exact bins adding up", 0x3 << 3 | 7, 10, {1, 0}, 1, 1},
        {"exact bins over the count", 0x3 << 3 | 7, 10, {4, 0}, 1, 0},
        {"exact bins without a bin", 0 << 3 | 7, 10, {0, 0}, 0, 0},
        {"a sum past 2^64", 0x1 << 3 | 3, UINT64_MAX - 1, {0, 0}, 0, 0},
    };
    for (size_t i = 0; i < sizeof H / sizeof H[0]; i++) {
        craft c;
        craft_compact(&c, 1);
        craft_hist4(&c, i == 3 ? UINT64_MAX / 4 : 1000, i == 3 ? 0 : 1000);
        siot_vbuf_uvar(&c.nodes, H[i].form_mask);
        if (H[i].form_mask & 1)
            siot_vbuf_svar(&c.nodes, (int64_t)(H[i].mean & INT64_MAX));
        else
            siot_vbuf_f64(&c.nodes, 1000.0);
        siot_vbuf_uvar(&c.nodes, 0); /* 4*M2 */
        for (int k = 0; k < H[i].nbins; k++)
            siot_vbuf_uvar(&c.nodes, H[i].bins[k]);
        CHECK(crafted_ok(H[i].what, &c, H[i].ok, hist4_sum_read));
    }
}

/* Minor 2 (flag 64): a histogram of 4 samples, min 1000, max 2000 (exact
 * times: flag 32 and 64 without 16), whose mean and standard deviation are
 * 3-byte floats m*2^(e-16), e<<18|m, little-endian: 1500 = 192000 * 2^-7,
 * e 9: 0x26EE00; 500 = 256000 * 2^-9, e 7: 0x1FE800; M2 = 4 * 500^2. */
static int hist4_floats_read(const siot_trace *t)
{
    const siot_hist *h = &t->top[0]->u.ev.dur;
    return h->count == 4 && h->mean == 1500.0 && h->m2 == 1e6 && siot_hist_bin_count(h, 9) == 2 &&
           siot_hist_bin_count(h, 10) == 2;
}

/* sd_bytes: 3 (minor 2), or 2 with flag 128 (minor 6) */
static int moments_file(const char *what, const uint8_t mean[3], const uint8_t *sd, unsigned sd_bytes, int want_ok)
{
    craft c;
    craft_compact(&c, 1);
    c.hdr.len = 0;
    siot_vbuf_uvar(&c.hdr, 1);
    siot_vbuf_uvar(&c.hdr, SIOT_TF_COMPACT | SIOT_TF_MOMENTS24 | (sd_bytes == 2 ? SIOT_TF_SD16 : 0));
    siot_vbuf_uvar(&c.hdr, 0);
    for (int i = 0; i < 4; i++)
        put_str(&c.hdr, "x");
    siot_vbuf_uvar(&c.hdr, 0);
    craft_hist4(&c, 1000, 1000);
    siot_vbuf_uvar(&c.nodes, 0x3 << 3 | 4); /* bins 9 and 10, exact; both moments floats */
    siot_vbuf_put(&c.nodes, mean, 3);
    siot_vbuf_put(&c.nodes, sd, sd_bytes);
    siot_vbuf_uvar(&c.nodes, 2); /* bin 9: 2, bin 10: the other 2 */
    return crafted_ok(what, &c, want_ok, hist4_floats_read);
}

static int moments24_file(const char *what, const uint8_t mean[3], const uint8_t sd[3], int want_ok)
{
    return moments_file(what, mean, sd, 3, want_ok);
}

static void check_moments24(void)
{
    static const uint8_t M1500[3] = {0x00, 0xEE, 0x26}, S500[3] = {0x00, 0xE8, 0x1F};
    CHECK(moments24_file("3-byte floats", M1500, S500, 1));
    /* e 1 with m 5 < 2^17: not the canonical code */
    static const uint8_t DENORM[3] = {0x05, 0x00, 0x04};
    CHECK(moments24_file("a float not normalised", DENORM, S500, 0));
    CHECK(moments24_file("a deviation not normalised", M1500, DENORM, 0));
    /* 1e6 = 250000 * 2^2, e 18: 0x4BD090, a mean above the maximum */
    static const uint8_t M1E6[3] = {0x90, 0xD0, 0x4B};
    CHECK(moments24_file("a mean above the maximum", M1E6, S500, 0));
    CHECK(moments24_file("a deviation past the range", M1500, M1E6, 0));
    /* the largest code, 262143 * 2^47: finite, rejected by the range check */
    static const uint8_t TOP[3] = {0xFF, 0xFF, 0xFF};
    CHECK(moments24_file("the largest float", TOP, S500, 0));
    /* Minor 6: the deviation in 2 bytes, 500 = 1000 * 2^(19-20): e 19, m
     * 1000, 19<<10|1000 = 0x4FE8; e 1 with m 5 < 2^9 is not canonical; e 63
     * with m 1023 (about 9e15) is finite and past the range. */
    static const uint8_t S500_16[2] = {0xE8, 0x4F}, DENORM16[2] = {0x05, 0x04}, TOP16[2] = {0xFF, 0xFF};
    CHECK(moments_file("a 2-byte deviation", M1500, S500_16, 2, 1));
    CHECK(moments_file("a 2-byte deviation not normalised", M1500, DENORM16, 2, 0));
    CHECK(moments_file("the largest 2-byte deviation", M1500, TOP16, 2, 0));

    /* Sizes: a mean and sd the integers give back in at most 3 and 2
     * bytes keep them (2 samples 1000 and 1001: sum delta 1, 2*M2 = 1: 2
     * bytes); a bounded size whatever the count (10^6 samples of
     * 1000..1999: floats of 3 and 2 bytes, where the exact sum delta alone
     * takes 5). */
    siot_arena a;
    siot_arena_init(&a);
    siot_hist h = {0};
    h.max_rank = -1;
    CHECK(siot_hist_add(&a, &h, 1000, 0, 0) && siot_hist_add(&a, &h, 1001, 0, 1));
    CHECK_EQ_I64(siot_hist_moments_size(&h), 2);
    for (uint64_t i = 0; i < 1000000; i++)
        CHECK(siot_hist_add(&a, &h, 1000 + i % 1000, 0, i + 2));
    CHECK_EQ_I64(siot_hist_moments_size(&h), 5);
    siot_arena_free(&a);
}

/* Constants of -64..63 are one byte (128 + zigzag); others keep tag 1. */
static void check_small_consts(void)
{
    siot_arena a;
    siot_arena_init(&a);
    siot_vbuf sc;
    siot_vbuf_init(&sc);
    static const int64_t V[] = {0, -1, 63, -64, 64, -65, INT64_MIN};
    static const size_t N[] = {1, 1, 1, 1, 3, 3, 11};
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++)
        CHECK_EQ_I64(siot_expr_size(siot_x_const(&a, V[i]), &sc), N[i]);
    siot_vbuf_free(&sc);
    siot_arena_free(&a);
    /* read back: 0x81 is -1, 0xFF is -64, 0x80+126 is 63 */
    static const uint8_t TAG[3] = {0x81, 0xFF, 0x80 + 126};
    static const int64_t WANT[3] = {-1, -64, 63};
    for (int i = 0; i < 3; i++) {
        siot_vbuf arg, f;
        siot_vbuf_init(&arg);
        siot_vbuf_init(&f);
        siot_vbuf_u8(&arg, TAG[i]);
        file_with_arg(&f, 1, &arg);
        siot_trace t;
        if (expect_accept("a one-byte constant", &f, &t)) {
            const siot_expr *x = t.top[0]->u.ev.args[0];
            CHECK(x->tag == SIOT_X_CONST && x->base == WANT[i]);
            siot_trace_free(&t);
        } else {
            CHECK(0);
        }
        siot_vbuf_free(&arg);
        siot_vbuf_free(&f);
    }
}

/* A node of every rank is its kind + 128 and no rank list: read back as
 * the canonical list of [0, nranks), one entry without dimensions for one
 * rank. Its thread and errno are 0: written again, the kind has 64 too and
 * the event is 9 bytes (kind, function, site, parent, ret, bytes and its
 * argument as one-byte constants, two empty histograms). */
static void check_all_ranks(void)
{
    for (uint64_t nr = 1; nr <= 3; nr += 2) {
        craft c;
        craft_init(&c, nr);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_u8(&c.nodes, SIOT_N_EVENT | 128);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        for (int i = 0; i < 6; i++)
            siot_vbuf_u8(&c.nodes, 128); /* the constant 0 */
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf f;
        siot_vbuf_init(&f);
        craft_file(&c, &f);
        siot_trace t;
        if (expect_accept("an event of every rank", &f, &t)) {
            const siot_ranklist *rl = &t.top[0]->ranks;
            CHECK(t.top[0]->kind == SIOT_N_EVENT && rl->n == 1 && rl->e[0].start == 0);
            if (nr == 1)
                CHECK(rl->e[0].ndims == 0);
            else
                CHECK(rl->e[0].ndims == 1 && rl->e[0].dims[0].count == 3 && rl->e[0].dims[0].stride == 1);
            siot_vbuf sc;
            siot_vbuf_init(&sc);
            CHECK_EQ_I64(siot_node_own_size(t.top[0], (uint32_t)nr, 1, &sc), 9);
            CHECK(sc.data[0] == (SIOT_N_EVENT | 128 | 64));
            siot_vbuf_free(&sc);
            siot_trace_free(&t);
        } else {
            CHECK(0);
        }
        /* a loop of every rank read from the same bytes: no count where it must be */
        f.len = 0;
        c.nodes.data[1] = SIOT_N_LOOP | 128;
        CHECK(reject_crafted("a loop of every rank with an event's fields", &c, &f));
        siot_vbuf_free(&f);
    }
}

/* An event of kind + 64 has no thread and errno fields: both read as the
 * constant 0; a loop with 64 is refused. */
static void check_main_no_errno(void)
{
    for (int loop = 0; loop < 2; loop++) {
        craft c;
        craft_init(&c, 1);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_u8(&c.nodes, (loop ? SIOT_N_LOOP : SIOT_N_EVENT) | 128 | 64);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_u8(&c.nodes, 128 + 2); /* parent 1 */
        siot_vbuf_u8(&c.nodes, 128 + 6); /* ret 3 */
        siot_vbuf_u8(&c.nodes, 128 + 8); /* bytes 4 */
        siot_vbuf_u8(&c.nodes, 128 + 10); /* x = 5 */
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf f;
        siot_vbuf_init(&f);
        if (loop) {
            CHECK(reject_crafted("a loop with kind bit 64", &c, &f));
        } else {
            siot_trace t;
            craft_file(&c, &f);
            if (expect_accept("an event of thread 0 without errno", &f, &t)) {
                const siot_event *e = &t.top[0]->u.ev;
                CHECK(e->thread->tag == SIOT_X_CONST && e->thread->base == 0);
                CHECK(e->err->tag == SIOT_X_CONST && e->err->base == 0);
                CHECK(e->parent->base == 1 && e->ret->base == 3 && e->bytes->base == 4 && e->args[0]->base == 5);
                siot_trace_free(&t);
            } else {
                CHECK(0);
            }
            craft_free(&c);
        }
        siot_vbuf_free(&f);
    }
}

/* A value by residue in runs (minor 3, wire tag 12): {rank%8:-2,-1+1*rank(x7)}
 * reads as eight classes, each its own copy, and is written again in runs;
 * periods, run counts and lengths that do not add up are refused, and so is
 * a run repeated beyond what the file's size allows. */
static void w_rmod_runs(siot_vbuf *b, uint64_t n, uint64_t nruns, const uint64_t *len, int64_t step)
{
    siot_vbuf_u8(b, 12);
    siot_vbuf_uvar(b, n);
    siot_vbuf_uvar(b, nruns);
    for (uint64_t r = 0; r < nruns; r++) {
        siot_vbuf_uvar(b, len[r]);
        if (r == 0) { /* -2 (MPI_PROC_NULL), then -1 + step*rank */
            w_const(b, -2);
            continue;
        }
        siot_vbuf_u8(b, SIOT_X_AFFINE);
        siot_vbuf_svar(b, -1);
        siot_vbuf_svar(b, step);
        siot_vbuf_uvar(b, 0);
    }
}

static void check_rmod_runs(void)
{
    siot_vbuf arg, f, again;
    siot_vbuf_init(&arg);
    siot_vbuf_init(&f);
    siot_vbuf_init(&again);
    const uint64_t grid[2] = {1, 7};
    w_rmod_runs(&arg, 8, 2, grid, 1);
    file_with_arg(&f, 16, &arg);
    siot_trace x;
    int ok = expect_accept("rmod in runs", &f, &x);
    CHECK(ok);
    if (ok) {
        const siot_expr *v = x.top[0]->u.ev.args[0];
        CHECK(v->tag == SIOT_X_RMOD && v->n == 8 && v->u.items[1] != v->u.items[2]);
        for (int r = 0; r < 16; r++) {
            siot_ctx c = {.rank = r};
            CHECK_EQ_I64(siot_eval_int(v, &c, 99), r % 8 == 0 ? -2 : r - 1);
        }
        CHECK(siot_trace_encode(&x, &again) == 0);
        siot_trace y;
        ok = expect_accept("rmod in runs, written again", &again, &y);
        CHECK(ok);
        if (ok) {
            const siot_expr *w = y.top[0]->u.ev.args[0];
            siot_vbuf s1, s2;
            siot_vbuf_init(&s1);
            siot_vbuf_init(&s2);
            /* 1 tag + 1 period + 1 run count + (1 length + 1 byte) + (1 length + 4 bytes) */
            CHECK_EQ_I64((int64_t)siot_expr_size(w, &s1), 10);
            siot_x_format(w, &s2);
            CHECK(s2.len == strlen("{rank%8:-2,-1+1*rank(x7)}") && memcmp(s2.data, "{rank%8:-2,-1+1*rank(x7)}", s2.len) == 0);
            siot_vbuf_free(&s1);
            siot_vbuf_free(&s2);
            siot_trace_free(&y);
        }
        siot_trace_free(&x);
    }
    static const struct {
        const char *what;
        uint64_t n, nruns, len[3];
    } bad[] = {
        {"rmod runs short of the period", 8, 2, {1, 6}},
        {"rmod runs past the period", 8, 2, {1, 8}},
        {"rmod run of length 0", 8, 3, {1, 0, 7}},
        {"rmod period 0", 0, 1, {0}},
        {"rmod without runs", 8, 0, {0}},
        {"rmod with more runs than classes", 2, 3, {1, 1, 0}},
        {"rmod period over 2^24", (1u << 24) + 1, 1, {(1u << 24) + 1}},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        arg.len = f.len = 0;
        w_rmod_runs(&arg, bad[i].n, bad[i].nruns, bad[i].len, 1);
        CHECK(arg_rejected(&f, 16, &arg, bad[i].what));
    }
    /* 2^20 copies of a 2,000-byte value from a file of about 2 KB */
    arg.len = f.len = 0;
    siot_vbuf_u8(&arg, 12);
    siot_vbuf_uvar(&arg, 1u << 20);
    siot_vbuf_uvar(&arg, 1);
    siot_vbuf_uvar(&arg, 1u << 20);
    siot_vbuf_u8(&arg, SIOT_X_SEQINT);
    siot_vbuf_uvar(&arg, 1000);
    for (int k = 0; k < 1000; k++)
        siot_vbuf_svar(&arg, 1000 + k);
    file_with_arg(&f, 16, &arg);
    CHECK(expect_reject("rmod run repeated 2^20 times", &f));
    siot_vbuf_free(&arg);
    siot_vbuf_free(&f);
    siot_vbuf_free(&again);
}

/* A per-rank table in runs of ranks (minor 6, wire tag 14). A grid's first
 * row apart, {r0-3:-2 r4-15:-4+1*rank}, reads back with every rank's value
 * and is written again in 10 bytes (17 as rank lists); runs interleaved
 * between entries, with gaps, keep each entry's ranks; runs that do not
 * match the entries, leave the job, overlap or leave an entry without ranks
 * are refused. */
typedef struct trun {
    uint64_t gap, len, entry;
} trun;

static void w_ranked_runs(siot_vbuf *b, uint64_t n, uint64_t nruns, int in_order, const trun *r)
{
    siot_vbuf_u8(b, 14);
    siot_vbuf_uvar(b, n);
    siot_vbuf_uvar(b, nruns << 1 | (uint64_t)in_order);
    for (uint64_t j = 0; j < nruns; j++) {
        siot_vbuf_uvar(b, (r[j].len - 1) << 1 | (r[j].gap > 0));
        if (r[j].gap > 0)
            siot_vbuf_uvar(b, r[j].gap);
        if (!in_order)
            siot_vbuf_uvar(b, r[j].entry);
    }
    for (uint64_t i = 0; i < n; i++) { /* entry i: -2 - i, the last -4 + rank */
        if (i + 1 < n) {
            w_const(b, -2 - (int64_t)i);
            continue;
        }
        siot_vbuf_u8(b, SIOT_X_AFFINE);
        siot_vbuf_svar(b, -4);
        siot_vbuf_svar(b, 1);
        siot_vbuf_uvar(b, 0);
    }
}

/* Decodes arg in a file of 16 ranks, checks each rank's value (want[r],
 * 99: a rank of no entry) and that writing it again gives size bytes and
 * the same value. */
static void ranked_runs_accepted(const char *what, const siot_vbuf *arg, const int64_t *want, int64_t size,
                                 const char *printed)
{
    siot_vbuf f, again, s;
    siot_vbuf_init(&f);
    siot_vbuf_init(&again);
    siot_vbuf_init(&s);
    file_with_arg(&f, 16, arg);
    siot_trace x, y;
    if (!expect_accept(what, &f, &x)) {
        CHECK(0);
    } else {
        const siot_expr *v = x.top[0]->u.ev.args[0];
        CHECK(v->tag == SIOT_X_RANKED);
        for (int r = 0; r < 16; r++) {
            siot_ctx c = {.rank = r};
            CHECK_EQ_I64(siot_eval_int(v, &c, 99), want[r]);
        }
        CHECK_EQ_I64((int64_t)siot_expr_size(v, &s), size);
        if (printed) {
            s.len = 0;
            siot_x_format(v, &s);
            CHECK(s.len == strlen(printed) && memcmp(s.data, printed, s.len) == 0);
        }
        CHECK(siot_trace_encode(&x, &again) == 0);
        if (expect_accept(what, &again, &y)) {
            for (int r = 0; r < 16; r++) {
                siot_ctx c = {.rank = r};
                CHECK_EQ_I64(siot_eval_int(y.top[0]->u.ev.args[0], &c, 99), want[r]);
            }
            siot_trace_free(&y);
        } else {
            CHECK(0);
        }
        siot_trace_free(&x);
    }
    siot_vbuf_free(&f);
    siot_vbuf_free(&again);
    siot_vbuf_free(&s);
}

static void check_ranked_runs(void)
{
    siot_vbuf arg, f;
    siot_vbuf_init(&arg);
    siot_vbuf_init(&f);
    const trun row[2] = {{0, 4, 0}, {0, 12, 1}};
    w_ranked_runs(&arg, 2, 2, 1, row);
    int64_t want[16];
    for (int r = 0; r < 16; r++)
        want[r] = r < 4 ? -2 : r - 4;
    /* tag, entries, runs, two run lengths, -2 in one byte, -4+1*rank in 4
     * (17 bytes as two rank lists) */
    ranked_runs_accepted("rank table in runs", &arg, want, 1 + 1 + 1 + 2 + 1 + 4, "{r0-3:-2 r4-15:-4+1*rank}");
    /* entry 0 at ranks 0-1 and 8-9, entry 1 at rank 2, entry 2 (-4+rank)
     * at 5-7 and 12: ranks 3-4, 10-11 and 13-15 in none */
    const trun mixed[5] = {{0, 2, 0}, {0, 1, 1}, {2, 3, 2}, {0, 2, 0}, {2, 1, 2}};
    arg.len = 0;
    w_ranked_runs(&arg, 3, 5, 0, mixed);
    for (int r = 0; r < 16; r++)
        want[r] = r < 2 || r == 8 || r == 9 ? -2 : r == 2 ? -3 : (r >= 5 && r <= 7) || r == 12 ? r - 4 : 99;
    /* tag, entries, runs, five runs of 2, 2, 3, 2, 3 bytes, values 1+1+4 */
    ranked_runs_accepted("rank table in runs, interleaved", &arg, want, 1 + 1 + 1 + 12 + 6, NULL);
    static const struct {
        const char *what;
        uint64_t n, nruns;
        int in_order;
        trun r[3];
    } bad[] = {
        {"rank table runs without entries", 0, 1, 0, {{0, 4, 0}}},
        {"rank table runs fewer than its entries", 3, 2, 0, {{0, 4, 0}, {0, 4, 1}}},
        {"rank table runs in order, more than its entries", 2, 3, 1, {{0, 4, 0}, {0, 4, 1}, {0, 4, 2}}},
        {"rank table run past the job", 2, 2, 1, {{0, 4, 0}, {0, 13, 1}}},
        {"rank table run gap past the job", 2, 2, 1, {{0, 4, 0}, {20, 1, 1}}},
        {"rank table run gap wrapping around", 2, 2, 1, {{0, 4, 0}, {UINT64_MAX - 1, 1, 1}}},
        {"rank table run of an entry not there", 2, 2, 0, {{0, 4, 0}, {0, 4, 2}}},
        {"rank table entry without ranks", 2, 2, 0, {{0, 4, 0}, {0, 4, 0}}},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        arg.len = f.len = 0;
        w_ranked_runs(&arg, bad[i].n, bad[i].nruns, bad[i].in_order, bad[i].r);
        CHECK(arg_rejected(&f, 16, &arg, bad[i].what));
    }
    /* A plain table (tag 5) with an entry of no rank, as a file may hold:
     * read, it is written again in rank lists (the runs could not say the
     * empty entry) and read back (the fuzzer's find). */
    arg.len = f.len = 0;
    siot_vbuf_u8(&arg, SIOT_X_RANKED);
    siot_vbuf_uvar(&arg, 2);
    siot_vbuf_uvar(&arg, 0); /* entry 0: no rank */
    w_const(&arg, 7);
    siot_vbuf_uvar(&arg, 1); /* entry 1: ranks 0-15 */
    siot_vbuf_uvar(&arg, 0);
    siot_vbuf_u8(&arg, 1);
    siot_vbuf_uvar(&arg, 16);
    siot_vbuf_uvar(&arg, 1);
    w_const(&arg, 9);
    file_with_arg(&f, 16, &arg);
    siot_trace e, e2;
    if (expect_accept("rank table with an entry of no rank", &f, &e)) {
        siot_vbuf again;
        siot_vbuf_init(&again);
        CHECK(siot_trace_encode(&e, &again) == 0);
        int back = again.len > 12 && expect_accept("rank table with an entry of no rank, written again", &again, &e2);
        CHECK(back);
        if (back) {
            siot_ctx c = {.rank = 3};
            CHECK_EQ_I64(siot_eval_int(e2.top[0]->u.ev.args[0], &c, 99), 9);
            siot_trace_free(&e2);
        }
        siot_vbuf_free(&again);
        siot_trace_free(&e);
    } else {
        CHECK(0);
    }
    /* a gap said to follow that is 0, and a table cut short */
    arg.len = f.len = 0;
    siot_vbuf_u8(&arg, 14);
    siot_vbuf_uvar(&arg, 1);
    siot_vbuf_uvar(&arg, 1 << 1 | 1);
    siot_vbuf_uvar(&arg, 3 << 1 | 1);
    siot_vbuf_uvar(&arg, 0);
    w_const(&arg, 5);
    file_with_arg(&f, 16, &arg);
    CHECK(expect_reject("rank table run with a gap of 0", &f));
    arg.len = f.len = 0;
    w_ranked_runs(&arg, 2, 2, 1, row);
    arg.len -= 3;
    file_with_arg(&f, 16, &arg);
    CHECK(expect_reject("rank table in runs cut short", &f));
    siot_vbuf_free(&arg);
    siot_vbuf_free(&f);
}

/* The inner value of a value by quotient or by digits: the string "x"
 * (refused), or the integer 5 + 100*rank (quotient) or 28 (digits). */
static void w_inner(siot_vbuf *b, int str, int digits)
{
    if (str) {
        siot_vbuf_u8(b, SIOT_X_STR);
        siot_vbuf_uvar(b, 1);
        siot_vbuf_u8(b, 0);
        siot_vbuf_str(b, "x", 1);
    } else if (digits) {
        siot_vbuf_u8(b, SIOT_X_CONST);
        siot_vbuf_svar(b, 28);
    } else {
        siot_vbuf_u8(b, SIOT_X_AFFINE);
        siot_vbuf_svar(b, 5);
        siot_vbuf_svar(b, 100);
        siot_vbuf_uvar(b, 0);
    }
}

/* A value by quotient (minor 4, tag 13): 5 + 100*rank + 7*(rank/4). */
static void w_rdiv(siot_vbuf *b, uint64_t m, int64_t d, int str)
{
    siot_vbuf_u8(b, 13);
    siot_vbuf_uvar(b, m);
    siot_vbuf_svar(b, d);
    w_inner(b, str, 0);
}

/* A value by the rank's decimal digits (minor 10, tag 15): 28 + d*(digits - 1). */
static void w_rdig(siot_vbuf *b, int64_t d, int str)
{
    siot_vbuf_u8(b, 15);
    siot_vbuf_svar(b, d);
    w_inner(b, str, 1);
}

/* Value k (0: quotient, 1: digits) over P ranks: rank r's value. */
static int64_t want_value(int k, int r)
{
    char line[64];
    return k ? snprintf(line, sizeof line, "rank %d: a line of 28 bytes.\n", r) : 5 + 100 * r + 7 * (r / 4);
}

/* The file with one event whose argument is arg (P ranks) reads back with
 * every rank's value, prints as form, and is written again to a file that
 * reads back the same in size bytes. */
static void value_reads_back(int k, int P, siot_vbuf *arg, const char *form, int64_t size)
{
    static const char *const what[2] = {"value by quotient", "value by digits"};
    siot_vbuf f, again, s;
    siot_vbuf_init(&f);
    siot_vbuf_init(&again);
    siot_vbuf_init(&s);
    file_with_arg(&f, (uint32_t)P, arg);
    siot_trace x, y;
    if (!expect_accept(what[k], &f, &x))
        return;
    const siot_expr *v = x.top[0]->u.ev.args[0];
    CHECK(k ? v->tag == SIOT_X_RDIG && v->sum == 1 : v->tag == SIOT_X_RDIV && v->len == 4 && v->sum == 7);
    for (int r = 0; r < P; r++) {
        siot_ctx c = {.rank = r};
        CHECK_EQ_I64(siot_eval_int(v, &c, 99), want_value(k, r));
    }
    siot_x_format(v, &s);
    CHECK(s.len == strlen(form) && memcmp(s.data, form, s.len) == 0);
    CHECK(siot_trace_encode(&x, &again) == 0);
    if (expect_accept(what[k], &again, &y)) {
        s.len = 0;
        siot_x_format(y.top[0]->u.ev.args[0], &s);
        CHECK(s.len == strlen(form) && memcmp(s.data, form, s.len) == 0);
        CHECK_EQ_I64((int64_t)siot_expr_size(y.top[0]->u.ev.args[0], &s), size);
        siot_trace_free(&y);
    }
    siot_trace_free(&x);
    siot_vbuf_free(&f);
    siot_vbuf_free(&again);
    siot_vbuf_free(&s);
}

/* A value by quotient reads back with every rank's value, is written again
 * in 8 bytes (1 tag + 1 divisor + 1 coefficient + affine: 1 tag + 1 base + 2
 * rcoef + 1 count) and prints in the grid form 5+100*(rank%4)+407*(rank/4);
 * a divisor of 0 or over 2^24, a string inside and a truncated value are
 * refused. A value by digits (a line "rank %d: ...\n" of 28 bytes at ranks
 * 0-9), the same over ranks 0..1000 in 3 bytes (1 tag + 1 coefficient + the
 * constant in one byte, minor 1) as 28+1*(digits(rank)-1); a string inside
 * and a truncated value are refused. */
static void check_rdiv(void)
{
    siot_vbuf arg, f;
    siot_vbuf_init(&arg);
    siot_vbuf_init(&f);
    w_rdiv(&arg, 4, 7, 0);
    value_reads_back(0, 16, &arg, "5+100*(rank%4)+407*(rank/4)", 8);
    arg.len = 0;
    w_rdig(&arg, 1, 0);
    value_reads_back(1, 1001, &arg, "28+1*(digits(rank)-1)", 3);
    static const struct {
        const char *what;
        uint64_t m; /* 0: by digits */
        int str;
        size_t cut; /* bytes cut off the end */
    } bad[] = {
        {"quotient by 0", 0, 0, 0},      {"quotient by 2^24 + 1", (1u << 24) + 1, 0, 0},
        {"quotient of a string", 4, 1, 0}, {"quotient cut short", 4, 0, 3},
        {"digits of a string", 0, 1, 0},  {"digits cut short", 0, 0, 2},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        arg.len = f.len = 0;
        if (strncmp(bad[i].what, "quotient", 8) == 0)
            w_rdiv(&arg, bad[i].m, 7, bad[i].str);
        else
            w_rdig(&arg, 1, bad[i].str);
        arg.len -= bad[i].cut;
        if (bad[i].cut) {
            file_with_arg(&f, 16, &arg);
            CHECK(expect_reject(bad[i].what, &f));
        } else {
            CHECK(arg_rejected(&f, 16, &arg, bad[i].what));
        }
    }
    siot_vbuf_free(&arg);
    siot_vbuf_free(&f);
}

/* ============================================================ packed files */

/* A PACK section by hand: stated length, then the raw DEFLATE of data. */
static void w_piece(siot_vbuf *f, uint64_t stated, const uint8_t *data, size_t n)
{
    siot_vbuf body;
    siot_vbuf_init(&body);
    siot_vbuf_uvar(&body, stated);
    z_stream z;
    memset(&z, 0, sizeof z);
    CHECK(deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) == Z_OK);
    size_t bound = deflateBound(&z, (uLong)n);
    CHECK(siot_vbuf_reserve(&body, bound));
    z.next_in = (Bytef *)data, z.avail_in = (uInt)n;
    z.next_out = body.data + body.len, z.avail_out = (uInt)bound;
    CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
    body.len += bound - z.avail_out;
    deflateEnd(&z);
    uint8_t tag = SIOT_SEC_PACK;
    siot_vbuf_u8(f, tag);
    siot_vbuf_uvar(f, body.len);
    siot_vbuf_put(f, body.data, body.len);
    siot_vbuf_u32le(f, siot_crc32(siot_crc32(0, &tag, 1), body.data, body.len));
    siot_vbuf_free(&body);
}

static int reject_says(const char *what, const siot_vbuf *f, const char *want)
{
    siot_trace t;
    char err[256];
    int rc = decode_exact(f->data, f->len, &t, err, sizeof err);
    int ok = rc == -1 && strstr(err, want) != NULL && t.top == NULL && t.arena.head == NULL;
    if (!ok)
        fprintf(stderr, "  %s: expected '%s', got rc=%d '%s'\n", what, want, rc, err);
    if (rc == 0)
        siot_trace_free(&t);
    return ok;
}

/* Hostile packed files: every one refused with its reason, nothing read. */
static void check_packed_hostile(const siot_vbuf *raw, const siot_vbuf *packed)
{
    siot_vbuf f;
    siot_vbuf_init(&f);
    for (size_t n = 0; n < packed->len; n++) { /* every truncation */
        f.len = 0;
        siot_vbuf_put(&f, packed->data, n);
        CHECK(expect_reject("truncated packed file", &f));
    }
    for (size_t i = 12; i < packed->len; i += 7) { /* flips: the CRC says so */
        f.len = 0;
        siot_vbuf_put(&f, packed->data, packed->len);
        f.data[i] ^= 0x20;
        CHECK(expect_reject("packed file with a flipped byte", &f));
    }
    /* stated length one short, one over, and over the piece limit */
    const char *wrong = "not of its stated length";
    uint64_t stated[3] = {raw->len - 1, raw->len + 1, (uint64_t)SIOT_PACK_PIECE + 1};
    const char *why[3] = {wrong, wrong, "length is out of range"};
    for (int k = 0; k < 3; k++) {
        f.len = 0;
        siot_vbuf_put(&f, raw->data, 12);
        w_piece(&f, stated[k], raw->data, raw->len);
        CHECK(reject_says("packed piece of a wrong length", &f, why[k]));
    }
    /* packed twice; pieces that are not a trace; a bare section after the pieces */
    siot_vbuf twice;
    siot_vbuf_init(&twice);
    CHECK(siot_pack(packed->data, packed->len, &twice) == 0);
    CHECK(reject_says("packed twice", &twice, "do not make a trace"));
    f.len = 0;
    siot_vbuf_put(&f, raw->data, 12);
    w_piece(&f, 64, (const uint8_t *)"0123456789012345678901234567890123456789012345678901234567890123", 64);
    CHECK(reject_says("pieces of no trace", &f, "do not make a trace"));
    f.len = 0;
    siot_vbuf_put(&f, packed->data, packed->len);
    siot_vbuf_put(&f, raw->data + 12, raw->len - 12);
    CHECK(reject_says("a plain section after the pieces", &f, "other than a packed piece"));
    /* a bomb: pieces of 4 MiB of zeros (about 4 KiB each) past the budget of
     * SIOT_PACK_RATIO times the file's size plus 64 MiB */
    uint8_t *zeros = calloc(SIOT_PACK_PIECE, 1);
    f.len = 0;
    siot_vbuf_put(&f, raw->data, 12);
    w_piece(&f, SIOT_PACK_PIECE, zeros, SIOT_PACK_PIECE);
    size_t one = f.len - 12;
    uint8_t *piece = malloc(one);
    memcpy(piece, f.data + 12, one);
    for (int k = 1; k < 40; k++)
        siot_vbuf_put(&f, piece, one);
    free(piece);
    CHECK((uint64_t)40 * SIOT_PACK_PIECE > (uint64_t)f.len * SIOT_PACK_RATIO + (64u << 20));
    CHECK(reject_says("a packed bomb", &f, "length is out of range"));
    free(zeros);
    siot_vbuf_free(&twice);
    siot_vbuf_free(&f);
}

/* The packed form (minor 5): read back as the very trace the unpacked file
 * holds, pieces of at most SIOT_PACK_PIECE bytes, and hostile forms refused. */
static void check_packed(const siot_trace *t)
{
    siot_vbuf raw, packed, again;
    siot_vbuf_init(&raw);
    siot_vbuf_init(&packed);
    siot_vbuf_init(&again);
    CHECK(siot_trace_encode_file(t, 0, &raw) == 0);
    CHECK(siot_trace_encode_file(t, 1, &packed) == 0);
    CHECK(packed.len > 13 && memcmp(packed.data, raw.data, 12) == 0 && packed.data[12] == SIOT_SEC_PACK);
    CHECK(packed.len < raw.len);
    siot_trace d;
    char err[256];
    CHECK(expect_accept("packed file", &packed, &d));
    CHECK(d.unpacked_bytes == raw.len);
    CHECK(siot_trace_encode_file(&d, 0, &again) == 0);
    CHECK(again.len == raw.len && memcmp(again.data, raw.data, raw.len) == 0);
    siot_trace_free(&d);
    /* an unpacked file reads as before, with no unpacked size */
    CHECK(decode_exact(raw.data, raw.len, &d, err, sizeof err) == 0 && d.unpacked_bytes == 0);
    siot_trace_free(&d);
    /* a file of several pieces: 9 MiB of a note, 3 pieces */
    siot_trace big = *t;
    char *note = malloc(9u << 20);
    for (size_t i = 0; i < (9u << 20) - 1; i++)
        note[i] = (char)('a' + (i * 2654435761u >> 7) % 26);
    note[(9u << 20) - 1] = 0;
    siot_kv kv[3] = {t->kv[0], t->kv[1], {"big", note}};
    big.kv = kv, big.nkv = 3;
    siot_vbuf bigp;
    siot_vbuf_init(&bigp);
    CHECK(siot_trace_encode_file(&big, 1, &bigp) == 0);
    CHECK(expect_accept("packed file of 3 pieces", &bigp, &d));
    CHECK(d.unpacked_bytes > (8u << 20) && strcmp(siot_trace_get_kv(&d, "big"), note) == 0);
    siot_trace_free(&d);
    size_t pieces = 0;
    siot_rd rd;
    siot_rd_init(&rd, bigp.data + 12, bigp.len - 12);
    while (siot_rd_left(&rd) > 0 && !rd.err) {
        pieces += siot_rd_u8(&rd) == SIOT_SEC_PACK;
        uint64_t len = siot_rd_uvar(&rd);
        rd.p += len + 4;
    }
    CHECK_EQ_I64(pieces, 3);
    free(note);
    siot_vbuf_free(&bigp);
    check_packed_hostile(&raw, &packed);
    siot_vbuf_free(&raw);
    siot_vbuf_free(&packed);
    siot_vbuf_free(&again);
}

/* Minor 8: an event's histogram count is written as its difference from
 * its ranks times the iterations of the constant loops around it (the
 * duration's from the computation's), so that the counts of a job of any
 * size take one byte: a loop x5 of ranks 0-3 around a loop x3 and an
 * event of 2 ranks, with counts as predicted (2*5*3 = 30), none, one more
 * and fewer than predicted, and under a loop whose count is a value of the
 * rank (taken as 1: predicted 2). Both forms give every count back. */
static void check_predicted_counts(void)
{
    static const uint64_t COUNT[5] = {30, 0, 31, 1, 2};
    siot_trace t;
    siot_node *n = compact_trace(&t, 0);
    siot_arena *a = &t.arena;
    siot_node *evs[5], *inner;
    for (int i = 0; i < 5; i++) {
        siot_expr *args[1] = {siot_x_const(a, 3)};
        evs[i] = i == 0 ? n : ev(a, rl1(a, 0, 2, 1, 0, 0), 6, 0, 1, args, siot_x_const(a, 0), NULL, NULL);
        evs[i]->ranks = rl1(a, 0, 2, 1, 0, 0);
        for (uint64_t k = 0; k < COUNT[i]; k++) {
            CHECK(siot_hist_add(a, &evs[i]->u.ev.comp, 100 + k, (int32_t)(k % 2), k));
            CHECK(siot_hist_add(a, &evs[i]->u.ev.dur, 200 + k, (int32_t)(k % 2), k));
        }
    }
    siot_hist_add(a, &evs[3]->u.ev.dur, 7, 0, 9); /* a duration more than its computation */
    inner = loop(a, rl1(a, 0, 4, 1, 0, 0), siot_x_const(a, 3), 4, evs);
    siot_node *outer = loop(a, rl1(a, 0, 4, 1, 0, 0), siot_x_const(a, 5), 1, &inner);
    siot_node *byrank = loop(a, rl1(a, 0, 4, 1, 0, 0), unit_affine(a, 1, 1, 0, NULL), 1, &evs[4]);
    t.top = siot_arena_alloc(a, 2 * sizeof *t.top);
    t.top[0] = outer;
    t.top[1] = byrank;
    t.ntop = 2;
    siot_vbuf sc;
    siot_vbuf_init(&sc);
    uint64_t part[SIOT_HIST_PARTS];
    siot_hist_parts(&evs[0]->u.ev.comp, siot_hist_expect(&evs[0]->ranks, 15), &sc, part);
    CHECK_EQ_I64(part[0], 1);
    siot_hist_parts(&evs[0]->u.ev.comp, SIOT_HIST_NO_EXPECT, &sc, part);
    CHECK_EQ_I64(part[0], 1); /* 30 < 128 */
    CHECK_EQ_I64(siot_loop_iters(siot_loop_iters(1, outer->u.loop.count), inner->u.loop.count), 15);
    CHECK_EQ_I64(siot_loop_iters(7, byrank->u.loop.count), 7);
    CHECK_EQ_I64(siot_loop_iters(UINT64_MAX / 2, outer->u.loop.count), 1); /* past 64 bits: from 1 again */
    siot_vbuf_free(&sc);
    for (int exact = 0; exact < 2; exact++) {
        siot_vbuf f;
        siot_vbuf_init(&f);
        CHECK((exact ? siot_trace_encode_exact(&t, &f) : siot_trace_encode(&t, &f)) == 0);
        siot_trace d;
        char err[256];
        if (decode_exact(f.data, f.len, &d, err, sizeof err) != 0) {
            fprintf(stderr, "  predicted counts: %s\n", err);
            CHECK(0);
            siot_vbuf_free(&f);
            continue;
        }
        CHECK(d.flags & SIOT_TF_PCOUNT);
        const siot_node *in = d.top[0]->u.loop.body[0];
        for (int i = 0; i < 5; i++) {
            const siot_event *g = i < 4 ? &in->u.loop.body[i]->u.ev : &d.top[1]->u.loop.body[0]->u.ev;
            CHECK(g->comp.count == COUNT[i] && g->dur.count == evs[i]->u.ev.dur.count);
            if (exact)
                CHECK(hist_same(&g->comp, &evs[i]->u.ev.comp) && hist_same(&g->dur, &evs[i]->u.ev.dur));
        }
        siot_trace_free(&d);
        siot_vbuf_free(&f);
    }
    siot_trace_free(&t);
}

/* A trace recorded with SIOT_TOLERANCE=5: its histograms, folded within 5%
 * (compress/timefold.h), are written in the file form and read back with
 * their counts, their extremes (6 significant bits: exact in the file's
 * 2-byte times), the same bins in use, and no maximum's rank. */
static int folded_read_back(const siot_node *x, const siot_node *y)
{
    if (x->kind != y->kind)
        return 0;
    if (x->kind == SIOT_N_LOOP) {
        int ok = x->u.loop.nbody == y->u.loop.nbody;
        for (uint32_t i = 0; ok && i < x->u.loop.nbody; i++)
            ok = folded_read_back(x->u.loop.body[i], y->u.loop.body[i]);
        return ok;
    }
    const siot_hist *hx[2] = {&x->u.ev.comp, &x->u.ev.dur}, *hy[2] = {&y->u.ev.comp, &y->u.ev.dur};
    for (int k = 0; k < 2; k++) {
        if (hx[k]->count != hy[k]->count || (hx[k]->count && hy[k]->max_rank != -1))
            return 0;
        if (hx[k]->count && (hx[k]->min != hy[k]->min || hx[k]->max != hy[k]->max))
            return 0;
        for (unsigned b = 0; b < SIOT_HBINS; b++)
            if ((siot_hist_bin_count(hx[k], b) != 0) != (siot_hist_bin_count(hy[k], b) != 0))
                return 0;
    }
    return 1;
}

static void check_timefold_file(void)
{
    siot_trace t, d;
    siot_vbuf f;
    char err[256];
    build_rich(&t);
    siot_vbuf_init(&f);
    CHECK(siot_trace_set_kv(&t, "tolerance", "5") == 0);
    const siot_hist *bar = &t.top[1]->u.loop.body[0]->u.ev.dur; /* 48 samples over 30 bins */
    CHECK(bar->count == 48 && bar->max_rank >= 0);
    CHECK(siot_timefold(&t) > 0);
    CHECK(bar->max_rank == -1);
    CHECK(siot_trace_encode(&t, &f) == 0);
    int rc = decode_exact(f.data, f.len, &d, err, sizeof err);
    CHECK(rc == 0);
    if (rc == 0) {
        int same = d.ntop == t.ntop;
        for (uint32_t i = 0; same && i < t.ntop; i++)
            same = folded_read_back(t.top[i], d.top[i]);
        CHECK(same);
        CHECK(siot_trace_tolerance(&d) == 5);
        siot_trace_free(&d);
    }
    siot_vbuf_free(&f);
    siot_trace_free(&t);
}

int main(void)
{
    siot_trace t, d;
    siot_vbuf enc, enc2;
    char err[256];
    check_rank_times();
    check_compact_sites();
    check_compact_hists();
    check_min_rounded_up();
    check_compact_hostile();
    check_moments24();
    check_small_consts();
    check_all_ranks();
    check_main_no_errno();
    check_rmod_runs();
    check_ranked_runs();
    check_rdiv();
    check_predicted_counts();
    check_timefold_file();
    build_rich(&t);
    siot_vbuf_init(&enc);
    siot_vbuf_init(&enc2);

    /* Round trip: encode (exact bins, as between ranks), decode, re-encode byte for byte. */
    CHECK(siot_trace_encode_exact(&t, &enc) == 0);
    CHECK(enc.len > 12 && memcmp(enc.data, MAGIC, 8) == 0);
    CHECK(enc.data[8] == 1 && enc.data[9] == 0 && enc.data[10] == SIOT_FORMAT_MINOR && enc.data[11] == 0);
    int rc = decode_exact(enc.data, enc.len, &d, err, sizeof err);
    CHECK(rc == 0);
    if (rc != 0) {
        fprintf(stderr, "  decode of the rich trace failed: %s\n", err);
        return unit_done("format");
    }
    CHECK(siot_trace_encode_exact(&d, &enc2) == 0);
    CHECK(enc2.len == enc.len && memcmp(enc2.data, enc.data, enc.len) == 0);
    check_packed(&t);

    /* The file form keeps bins as fractions of the count: everything else of
     * the histograms exact but a mean and M2 of many samples (3-byte floats,
     * minor 2), each bin holding at least 1/255 of the count within
     * rounding, smaller bins folded into a kept neighbour. */
    {
        siot_vbuf qf;
        siot_trace qd;
        siot_vbuf_init(&qf);
        /* 10,000 samples: most in a few bins, a thin tail over many (folded). */
        siot_hist saved = t.top[1]->u.loop.body[0]->u.ev.dur, big;
        memset(&big, 0, sizeof big);
        for (int i = 0; i < 10000; i++)
            CHECK(siot_hist_add(&t.arena, &big, i % 1000 == 7 ? (uint64_t)1 << (i / 1000 + 20) : 1000 + (uint64_t)(i % 3) * 700,
                                i % NRANKS, (uint64_t)i));
        t.top[1]->u.loop.body[0]->u.ev.dur = big;
        CHECK(siot_trace_encode(&t, &qf) == 0);
        CHECK(decode_exact(qf.data, qf.len, &qd, err, sizeof err) == 0);
        CHECK(qd.flags == (SIOT_TF_COMPRESSED | SIOT_TF_QBINS | SIOT_TF_COMPACT | SIOT_TF_MOMENTS24 | SIOT_TF_SD16 |
                           SIOT_TF_PCOUNT));
        const siot_hist *e = &t.top[1]->u.loop.body[0]->u.ev.dur, *g = &qd.top[1]->u.loop.body[0]->u.ev.dur;
        CHECK(e->count > 255);
        /* the mean to 2^-18 (a 3-byte float), the standard deviation to
         * 2^-10 (2 bytes, minor 6), M2 to twice that */
        CHECK(g->count == e->count && g->min == e->min && g->max == e->max && fabs(g->mean / e->mean - 1) < 4e-6 &&
              fabs(g->m2 / e->m2 - 1) < 2e-3 && g->max_rank == e->max_rank && g->max_occ == e->max_occ);
        uint64_t sum = 0;
        for (unsigned b = 0; b < SIOT_HBINS; b++) {
            uint64_t ec = siot_hist_bin_count(e, b), gc = siot_hist_bin_count(g, b);
            sum += gc;
            if (ec * 255 >= e->count)
                CHECK(gc + e->count / 255 + 1 >= ec); /* kept: not smaller than it was, within rounding */
            else
                CHECK(gc == 0 || ec == 0 || gc * 255 >= e->count);
        }
        CHECK(sum + SIOT_HBINS >= e->count && sum <= e->count + SIOT_HBINS + e->count / 255 * SIOT_HBINS);
        /* 1000, 1700, 2400 ns: bins 9, 10, 11; the 10 outliers 2^20..2^29 ns: bins 20..29,
         * 1 sample each, under 1/255 of the count: folded away. */
        unsigned nnz_e = 0, nnz_g = 0;
        for (unsigned b = 0; b < SIOT_HBINS; b++) {
            nnz_e += siot_hist_bin_count(e, b) != 0;
            nnz_g += siot_hist_bin_count(g, b) != 0;
        }
        CHECK(nnz_e == 13 && nnz_g == 3);
        t.top[1]->u.loop.body[0]->u.ev.dur = saved;
        siot_trace_free(&qd);
        siot_vbuf_free(&qf);
    }

    /* Header fields, notes and call sites survive. */
    CHECK(d.nranks == NRANKS);
    CHECK(d.flags == (SIOT_TF_COMPRESSED | SIOT_TF_COMPACT | SIOT_TF_PCOUNT));
    CHECK(d.start_ns == UINT64_C(1700000000123456789));
    CHECK(strcmp(d.exe, "/usr/bin/app") == 0 && strcmp(d.flavour, "mpich") == 0);
    CHECK(strcmp(d.host, "node01") == 0 && strcmp(d.version, "0.1.0") == 0);
    CHECK(d.nkv == 2);
    CHECK(siot_trace_get_kv(&d, "cmdline") && strcmp(siot_trace_get_kv(&d, "cmdline"), "./app -n 16") == 0);
    CHECK(siot_trace_get_kv(&d, "note") && strcmp(siot_trace_get_kv(&d, "note"), "") == 0);
    CHECK(d.nsites == 2 && d.sites[0].depth == 3 && d.sites[1].depth == 1);
    CHECK(d.sites[0].addrs[0] == SIOT_ADDR(0, 0x401000) && d.sites[0].addrs[1] == SIOT_ADDR(0, 0x402abc) &&
          d.sites[0].addrs[2] == SIOT_ADDR(1, 0x7fff00001234) && d.sites[1].addrs[0] == SIOT_ADDR(1, 0x1234));
    CHECK(d.nmodules == 2 && strcmp(d.modules[0], "/usr/bin/app") == 0 &&
          strcmp(d.modules[1], "/lib/x86_64-linux-gnu/libx.so.1") == 0);

    /* Only the 5 functions the nodes use are written, in table order, with all their fields. */
    CHECK(d.nfuncs == 5);
    for (uint32_t k = 0; k < 5 && k < d.nfuncs; k++) {
        const siot_funcdesc *g = &d.funcs[k], *f = &FUNCS[USED[k]];
        int same = strcmp(g->name, f->name) == 0 && g->layer == f->layer && g->cls == f->cls &&
                   g->retrole == f->retrole && g->nargs == f->nargs;
        for (uint32_t i = 0; same && i < f->nargs; i++)
            same = strcmp(g->argnames[i], f->argnames[i]) == 0 && g->argroles[i] == f->argroles[i];
        CHECK(same);
    }

    /* Node structure: kinds, nesting, rank lists, function references, expression kinds, histograms. */
    CHECK(d.ntop == 3 && d.nnodes == 7 && d.max_depth == 2);
    if (d.ntop == 3) {
        const siot_node *o = d.top[0], *L = d.top[1], *c = d.top[2];
        CHECK(o->kind == SIOT_N_EVENT && L->kind == SIOT_N_LOOP && c->kind == SIOT_N_EVENT);
        CHECK(siot_rl_equal(&o->ranks, &t.top[0]->ranks) && siot_rl_equal(&L->ranks, &t.top[1]->ranks) &&
              siot_rl_equal(&c->ranks, &t.top[2]->ranks));
        CHECK(c->ranks.n == 3 && siot_rl_size(&c->ranks) == 6);
        CHECK(strcmp(d.funcs[o->u.ev.func].name, "open") == 0 && strcmp(d.funcs[c->u.ev.func].name, "close") == 0);
        CHECK(o->u.ev.args[0]->tag == SIOT_X_STR && o->u.ev.ret->tag == SIOT_X_RANKED);
        CHECK(hist_same(&o->u.ev.comp, &t.top[0]->u.ev.comp) && o->u.ev.comp.count == 0);
        CHECK(hist_same(&o->u.ev.dur, &t.top[0]->u.ev.dur) && o->u.ev.dur.count == 1);
        CHECK(hist_same(&c->u.ev.dur, &t.top[2]->u.ev.dur) && c->u.ev.dur.count == 6);
        if (L->kind == SIOT_N_LOOP && L->u.loop.nbody == 3) {
            const siot_node *bar = L->u.loop.body[0], *in = L->u.loop.body[1], *wat = L->u.loop.body[2];
            const siot_node *obar = t.top[1]->u.loop.body[0], *oin = t.top[1]->u.loop.body[1];
            CHECK(L->u.loop.count->tag == SIOT_X_CONST && L->u.loop.count->base == 3);
            CHECK(bar->kind == SIOT_N_EVENT && in->kind == SIOT_N_LOOP && wat->kind == SIOT_N_EVENT);
            CHECK(strcmp(d.funcs[bar->u.ev.func].name, "MPI_Barrier") == 0);
            CHECK(strcmp(d.funcs[wat->u.ev.func].name, "MPI_File_write_at_all") == 0);
            CHECK(hist_same(&bar->u.ev.comp, &obar->u.ev.comp) && bar->u.ev.comp.count == 48);
            CHECK(hist_same(&bar->u.ev.dur, &obar->u.ev.dur));
            CHECK(wat->u.ev.args[5]->tag == SIOT_X_ARRAY && wat->u.ev.args[2]->tag == SIOT_X_NONE);
            if (in->kind == SIOT_N_LOOP && in->u.loop.nbody == 1) {
                const siot_node *pw = in->u.loop.body[0], *opw = oin->u.loop.body[0];
                CHECK(siot_rl_equal(&in->ranks, &oin->ranks) && in->ranks.e[0].ndims == 2);
                CHECK(in->u.loop.count->tag == SIOT_X_AFFINE && in->u.loop.count->n == 1);
                CHECK(pw->kind == SIOT_N_EVENT && strcmp(d.funcs[pw->u.ev.func].name, "pwrite") == 0);
                CHECK(pw->u.ev.site == 2 && pw->u.ev.thread->tag == SIOT_X_RANKED);
                CHECK(pw->u.ev.args[2]->tag == SIOT_X_SEQINT && pw->u.ev.args[2]->n == 9);
                CHECK(pw->u.ev.args[3]->tag == SIOT_X_AFFINE && pw->u.ev.args[3]->n == 2 &&
                      pw->u.ev.args[3]->u.coef[0] == 4096 && pw->u.ev.args[3]->u.coef[1] == 65536 &&
                      pw->u.ev.args[3]->rcoef == 1 << 20 && pw->u.ev.args[3]->base == 1000);
                CHECK(pw->u.ev.ret->tag == SIOT_X_SEQ && pw->u.ev.ret->n == 9);
                CHECK(hist_same(&pw->u.ev.comp, &opw->u.ev.comp) && pw->u.ev.comp.count == 1);
                CHECK(hist_same(&pw->u.ev.dur, &opw->u.ev.dur) && pw->u.ev.dur.count == 9);
                CHECK(pw->u.ev.dur.max_rank == 11 && pw->u.ev.dur.max_occ == 8 &&
                      pw->u.ev.dur.max == UINT64_C(1) << 34);
            }
        }
    }

    /* Expanded events of every rank equal the hand-computed ones (decoded and original trace). */
    {
        siot_vbuf scratch;
        siot_vbuf_init(&scratch);
        static char want[64][200];
        char got[512];
        const siot_trace *which[2] = {&d, &t};
        for (int w = 0; w < 2; w++) {
            int all_ok = 1;
            for (int r = 0; r < NRANKS; r++) {
                int nw = expected_events(r, want);
                siot_iter it;
                CHECK(siot_iter_init(&it, which[w], r) == 0);
                siot_ctx c;
                const siot_node *n;
                int k = 0;
                while ((n = siot_iter_next(&it, &c))) {
                    render(which[w], n, &c, &scratch, got, sizeof got);
                    if (k >= nw || strcmp(got, want[k]) != 0) {
                        if (all_ok)
                            fprintf(stderr, "  rank %d event %d:\n    got  %s\n    want %s\n", r, k, got,
                                    k < nw ? want[k] : "(end)");
                        all_ok = 0;
                    }
                    k++;
                }
                all_ok &= it.err == NULL && k == nw;
                siot_iter_free(&it);
            }
            CHECK(all_ok);
        }
        /* spot checks written out in full */
        int n3 = expected_events(3, want);
        CHECK_EQ_I64(n3, 1 + 3 * 2 + 9 + 1);
        CHECK(strcmp(want[0], "open(\"plot_0003.h5\",66,420) ret=4 bytes=0 err=0 parent=0 thread=0 site=1") == 0);
        CHECK(strcmp(want[3], "pwrite(3,-,20,3150824) ret=103 bytes=103 err=0 parent=0 thread=0 site=2") == 0);
        CHECK_EQ_I64(expected_events(4, want), 1 + 3 * 2);
        siot_vbuf_free(&scratch);
    }

    /* The function table is pruned even when the only use is deep inside loops. */
    {
        siot_trace s, sd;
        siot_trace_init(&s);
        siot_arena *a = &s.arena;
        s.nranks = 2;
        s.nfuncs = 3;
        s.funcs = siot_arena_alloc(a, 3 * sizeof *s.funcs);
        s.funcs[0] = FUNCS[0];
        s.funcs[1] = FUNCS[1];
        s.funcs[2] = FUNCS[6];
        siot_ranklist all = rl1(a, 0, 2, 1, 0, 0);
        siot_expr *args[1] = {siot_x_const(a, 9)};
        siot_node *e = ev(a, all, 2, 0, 1, args, siot_x_const(a, 0), NULL, NULL);
        siot_node *l1 = loop(a, all, siot_x_const(a, 2), 1, &e);
        siot_node *l2 = loop(a, all, siot_x_const(a, 2), 1, &l1);
        s.ntop = 1;
        s.top = siot_arena_alloc(a, sizeof *s.top);
        s.top[0] = l2;
        siot_trace_index(&s);
        siot_vbuf b;
        siot_vbuf_init(&b);
        CHECK(siot_trace_encode(&s, &b) == 0);
        CHECK(decode_exact(b.data, b.len, &sd, err, sizeof err) == 0);
        CHECK(sd.nfuncs == 1 && strcmp(sd.funcs[0].name, "close") == 0);
        CHECK(sd.max_depth == 2 && sd.nnodes == 3);
        CHECK(walk_all(&sd, 100) == 2 * 4);
        siot_trace_free(&sd);
        siot_vbuf_free(&b);
        siot_trace_free(&s);
    }

    /* (a) Every truncation is refused with a message. */
    {
        int ok = 1;
        for (size_t L = 0; L < enc.len; L++) {
            siot_trace x;
            rc = decode_exact(enc.data, L, &x, err, sizeof err);
            if (rc != -1 || err[0] == 0) {
                if (ok)
                    fprintf(stderr, "  truncation to %zu bytes: rc=%d\n", L, rc);
                ok = 0;
                if (rc == 0)
                    siot_trace_free(&x);
            }
        }
        CHECK(ok);
    }

    /* (b) Single-byte flips: refused, or (only where no CRC covers the byte) safe to walk. */
    {
        int ok = 1;
        int decoded_at[2] = {-1, -1}, ndecoded = 0;
        uint8_t *buf = malloc(enc.len);
        const uint8_t masks[2] = {0xff, 0x01};
        for (size_t i = 0; i < enc.len; i++)
            for (int m = 0; m < 2; m++) {
                memcpy(buf, enc.data, enc.len);
                buf[i] ^= masks[m];
                siot_trace x;
                rc = decode_exact(buf, enc.len, &x, err, sizeof err);
                if (rc == -1) {
                    ok &= err[0] != 0;
                    continue;
                }
                walk_all(&x, 100000);
                siot_trace_free(&x);
                if (ndecoded < 2)
                    decoded_at[ndecoded] = (int)i;
                ndecoded++;
                /* only the minor version (bytes 10 and 11) is outside every checksum */
                if (i != 10 && i != 11) {
                    fprintf(stderr, "  flip of byte %zu (mask %02x) decoded\n", i, masks[m]);
                    ok = 0;
                }
            }
        CHECK(ok);
        CHECK(ndecoded == 4 && decoded_at[0] == 10 && decoded_at[1] == 10);
        free(buf);
    }

    /* (c) Hand-crafted CRC-valid files. */
    siot_vbuf f;
    siot_vbuf_init(&f);

    /* control: a minimal valid file from the test's own encoder decodes and walks */
    {
        craft c;
        craft_init(&c, 4);
        siot_vbuf_uvar(&c.nodes, 1);
        w_event_const(&c.nodes, 4, 5);
        craft_file(&c, &f);
        siot_trace x;
        CHECK(expect_accept("minimal", &f, &x));
        if (x.nranks == 4) {
            CHECK(x.nfuncs == 1 && x.ntop == 1 && x.nnodes == 1 && strcmp(x.funcs[0].name, "f") == 0);
            CHECK(walk_all(&x, 10) == 4);
            siot_ctx cx;
            siot_iter it;
            siot_iter_init(&it, &x, 2);
            const siot_node *n = siot_iter_next(&it, &cx);
            CHECK(n && siot_eval_int(n->u.ev.args[0], &cx, -1) == 5);
            siot_iter_free(&it);
            siot_trace_free(&x);
        }
        /* an unknown section (a newer minor version) before END is skipped; END then counts 5 */
        siot_vbuf g, extra, end;
        siot_vbuf_init(&g);
        siot_vbuf_init(&extra);
        siot_vbuf_init(&end);
        siot_vbuf_put(&extra, "future", 6);
        siot_vbuf_put(&g, f.data, f.len - 7); /* drop END: tag, len 1, payload 1 byte, crc 4 */
        put_section(&g, 9, &extra);
        siot_vbuf_uvar(&end, 5);
        put_section(&g, S_END, &end);
        CHECK(expect_accept("unknown section", &g, &x));
        if (x.nranks == 4)
            siot_trace_free(&x);
        /* the same with END still saying 4 is refused */
        g.len = 0;
        siot_vbuf_put(&g, f.data, f.len - 7);
        put_section(&g, 9, &extra);
        end.len = 0;
        siot_vbuf_uvar(&end, 4);
        put_section(&g, S_END, &end);
        CHECK(expect_reject("END count ignoring an unknown section", &g));
        siot_vbuf_free(&g);
        siot_vbuf_free(&extra);
        siot_vbuf_free(&end);
        craft_free(&c);
    }

    /* a loop of 2^62 iterations is legal: it decodes and indexes without being expanded */
    {
        craft c;
        craft_init(&c, 4);
        siot_vbuf arg;
        siot_vbuf_init(&arg);
        w_affine(&arg, 10, 1, 1); /* 10 + iteration */
        siot_vbuf_uvar(&c.nodes, 1);
        w_loop_head(&c.nodes, 4, (int64_t)1 << 62, 1);
        w_event(&c.nodes, 4, &arg);
        f.len = 0;
        craft_file(&c, &f);
        siot_trace x;
        CHECK(expect_accept("loop 2^62", &f, &x));
        if (x.nranks == 4) {
            CHECK(x.ntop == 1 && x.nnodes == 2 && x.max_depth == 1);
            CHECK(x.top[0]->u.loop.count->base == (int64_t)1 << 62);
            siot_trace_index(&x);
            CHECK(x.nnodes == 2 && x.max_depth == 1);
            /* the first few iterations come out in order */
            siot_iter it;
            siot_ctx cx;
            siot_iter_init(&it, &x, 3);
            int ok = 1;
            for (uint64_t k = 0; k < 5; k++) {
                const siot_node *n = siot_iter_next(&it, &cx);
                ok &= n != NULL && cx.depth == 1 && cx.iter[0] == k && cx.occurrence == k &&
                      siot_eval_int(n->u.ev.args[0], &cx, -1) == (int64_t)(10 + k);
            }
            CHECK(ok);
            siot_iter_free(&it);
            siot_trace_free(&x);
        }
        /* nested: 2^62 times INT64_MAX iterations, the product is never formed */
        c.nodes.len = 0;
        siot_vbuf_uvar(&c.nodes, 1);
        w_loop_head(&c.nodes, 4, (int64_t)1 << 62, 1);
        w_loop_head(&c.nodes, 4, INT64_MAX, 1);
        arg.len = 0;
        w_affine(&arg, 0, 2, 1); /* inner + outer */
        w_event(&c.nodes, 4, &arg);
        f.len = 0;
        craft_file(&c, &f);
        CHECK(expect_accept("nested huge loops", &f, &x));
        if (x.nranks == 4) {
            CHECK(x.nnodes == 3 && x.max_depth == 2);
            siot_iter it;
            siot_ctx cx;
            siot_iter_init(&it, &x, 0);
            const siot_node *n = NULL;
            for (int k = 0; k < 3; k++)
                n = siot_iter_next(&it, &cx);
            CHECK(n && cx.depth == 2 && cx.iter[0] == 2 && cx.iter[1] == 0);
            siot_iter_free(&it);
            siot_trace_free(&x);
        }
        /* a negative loop count runs zero times; the event after it still comes */
        c.nodes.len = 0;
        siot_vbuf_uvar(&c.nodes, 2);
        w_loop_head(&c.nodes, 4, -5, 1);
        w_event_const(&c.nodes, 4, 1);
        w_event_const(&c.nodes, 4, 2);
        f.len = 0;
        craft_file(&c, &f);
        CHECK(expect_accept("negative loop count", &f, &x));
        if (x.nranks == 4) {
            siot_iter it;
            siot_ctx cx;
            siot_iter_init(&it, &x, 1);
            const siot_node *n = siot_iter_next(&it, &cx);
            CHECK(n && siot_eval_int(n->u.ev.args[0], &cx, -1) == 2);
            CHECK(siot_iter_next(&it, &cx) == NULL && it.err == NULL);
            siot_iter_free(&it);
            siot_trace_free(&x);
        }
        siot_vbuf_free(&arg);
        craft_free(&c);
    }

    /* loop nesting: SIOT_MAX_NEST levels decode and walk, one more is refused */
    {
        for (int extra = 0; extra < 2; extra++) {
            craft c;
            craft_init(&c, 2);
            int levels = SIOT_MAX_NEST + extra;
            siot_vbuf_uvar(&c.nodes, 1);
            for (int k = 0; k < levels; k++)
                w_loop_head(&c.nodes, 2, k == 0 ? 2 : 1, 1); /* only the outermost runs twice */
            siot_vbuf arg;
            siot_vbuf_init(&arg);
            w_affine(&arg, 1, (uint64_t)levels, 1); /* 1 + sum of all iterations */
            w_event(&c.nodes, 2, &arg);
            f.len = 0;
            craft_file(&c, &f);
            if (extra) {
                CHECK(expect_reject("loops nested too deeply", &f));
            } else {
                siot_trace x;
                CHECK(expect_accept("loops nested SIOT_MAX_NEST deep", &f, &x));
                if (x.nranks == 2) {
                    CHECK(x.max_depth == SIOT_MAX_NEST && x.nnodes == SIOT_MAX_NEST + 1);
                    siot_iter it;
                    siot_ctx cx;
                    siot_iter_init(&it, &x, 1);
                    const siot_node *n1 = siot_iter_next(&it, &cx);
                    int64_t v1 = n1 ? siot_eval_int(n1->u.ev.args[0], &cx, -1) : -1;
                    uint32_t dep = n1 ? cx.depth : 0;
                    const siot_node *n2 = siot_iter_next(&it, &cx);
                    int64_t v2 = n2 ? siot_eval_int(n2->u.ev.args[0], &cx, -1) : -1;
                    CHECK(n1 && dep == SIOT_MAX_NEST && v1 == 1);
                    /* second event: outermost iteration 1 (the last slot of the vector), all others 0 */
                    CHECK(n2 && v2 == 2 && cx.depth == SIOT_MAX_NEST && cx.iter[SIOT_MAX_NEST - 1] == 1 &&
                          cx.iter[0] == 0);
                    CHECK(siot_iter_next(&it, &cx) == NULL && it.err == NULL);
                    siot_iter_free(&it);
                    siot_trace_free(&x);
                }
            }
            siot_vbuf_free(&arg);
            craft_free(&c);
        }
    }

    /* rank lists naming ranks outside the job, or non-canonical, are refused */
    {
        craft c;
        siot_vbuf arg;
        siot_vbuf_init(&arg);
        /* node on rank 4 of a 4-rank job */
        craft_init(&c, 4);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_u8(&c.nodes, SIOT_N_EVENT);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_uvar(&c.nodes, 4);
        siot_vbuf_u8(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        for (int i = 0; i < 6; i++)
            w_const(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("node on rank 4 of 4", &c, &f));
        /* node on ranks 0-4 of a 4-rank job */
        craft_init(&c, 4);
        siot_vbuf_uvar(&c.nodes, 1);
        w_event_const(&c.nodes, 5, 0);
        CHECK(reject_crafted("node on ranks 0-4 of 4", &c, &f));
        /* stride 0 */
        craft_init(&c, 4);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_u8(&c.nodes, SIOT_N_EVENT);
        const uint8_t rl_stride0[] = {1, 0, 1, 2, 0};
        siot_vbuf_put(&c.nodes, rl_stride0, sizeof rl_stride0);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        for (int i = 0; i < 6; i++)
            w_const(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("rank list stride 0", &c, &f));
        /* rank table entry naming rank 7 of 4 */
        siot_vbuf_u8(&arg, SIOT_X_RANKED);
        siot_vbuf_uvar(&arg, 1);
        siot_vbuf_uvar(&arg, 1);
        siot_vbuf_uvar(&arg, 7);
        siot_vbuf_u8(&arg, 0);
        w_const(&arg, 1);
        CHECK(arg_rejected(&f, 4, &arg, "rank table on rank 7 of 4"));
        /* histogram maximum at rank 4 of 4 (stored as rank+1 = 5) */
        craft_init(&c, 4);
        siot_vbuf_uvar(&c.nodes, 1);
        w_event_zero(&c.nodes, 4);
        const uint8_t h1[] = {1, 10, 0, 5, 0}; /* count 1, min 10, span 0, rank+1 5, occ 0 */
        siot_vbuf_put(&c.nodes, h1, sizeof h1);
        siot_vbuf_uvar(&c.nodes, 0);
        f.len = 0;
        craft_file(&c, &f);
        CHECK(expect_reject("histogram rank 4 of 4", &f));
        /* the same with rank+1 = 4 is fine */
        c.nodes.data[c.nodes.len - 3] = 4;
        f.len = 0;
        craft_file(&c, &f);
        siot_trace x;
        CHECK(expect_accept("histogram rank 3 of 4", &f, &x));
        if (x.nranks == 4) {
            CHECK(x.top[0]->u.ev.comp.count == 1 && x.top[0]->u.ev.comp.max_rank == 3 &&
                  x.top[0]->u.ev.comp.min == 10);
            siot_trace_free(&x);
        }
        craft_free(&c);
        siot_vbuf_free(&arg);
    }

    /* deeply nested expressions are refused; a shallow nesting evaluates */
    {
        siot_vbuf arg;
        siot_vbuf_init(&arg);
        w_nested_seq(&arg, 100, 42);
        CHECK(arg_rejected(&f, 2, &arg, "expression nested 100 deep"));
        /* 100-deep string fields: STR -> field SEQ -> ... */
        arg.len = 0;
        for (int i = 0; i < 100; i++) {
            siot_vbuf_u8(&arg, SIOT_X_STR);
            siot_vbuf_uvar(&arg, 1);
            siot_vbuf_u8(&arg, 1);
            siot_vbuf_uvar(&arg, 0);
        }
        w_const(&arg, 42);
        CHECK(arg_rejected(&f, 2, &arg, "string fields nested 100 deep"));
        w_nested_seq(&arg, 4, 42);
        f.len = 0;
        file_with_arg(&f, 2, &arg);
        siot_trace x;
        CHECK(expect_accept("expression nested 5 deep", &f, &x));
        if (x.nranks == 2) {
            siot_iter it;
            siot_ctx cx;
            siot_iter_init(&it, &x, 0);
            const siot_node *n = siot_iter_next(&it, &cx);
            CHECK(n && siot_eval_int(n->u.ev.args[0], &cx, -1) == 42);
            siot_iter_free(&it);
            siot_trace_free(&x);
        }
        siot_vbuf_free(&arg);
    }

    /* count and length fields of 2^40 are refused wherever they occur */
    {
        const uint64_t HUGE_N = UINT64_C(1) << 40;
        siot_vbuf arg;
        siot_vbuf_init(&arg);
        const uint8_t xtags[5] = {SIOT_X_SEQINT, SIOT_X_SEQ, SIOT_X_ARRAY, SIOT_X_RANKED, SIOT_X_STR};
        const char *xnames[5] = {"SEQINT of 2^40", "SEQ of 2^40", "ARRAY of 2^40", "RANKED of 2^40", "STR of 2^40"};
        for (int k = 0; k < 5; k++) {
            arg.len = 0;
            siot_vbuf_u8(&arg, xtags[k]);
            siot_vbuf_uvar(&arg, HUGE_N);
            w_const(&arg, 1);
            w_const(&arg, 1);
            CHECK(arg_rejected(&f, 2, &arg, xnames[k]));
        }
        arg.len = 0;
        siot_vbuf_u8(&arg, SIOT_X_AFFINE);
        siot_vbuf_svar(&arg, 0);
        siot_vbuf_svar(&arg, 0);
        siot_vbuf_uvar(&arg, HUGE_N);
        CHECK(arg_rejected(&f, 2, &arg, "AFFINE of 2^40 coefficients"));
        arg.len = 0;
        siot_vbuf_u8(&arg, SIOT_X_STR);
        siot_vbuf_uvar(&arg, 1);
        siot_vbuf_u8(&arg, 0);
        siot_vbuf_uvar(&arg, HUGE_N);
        siot_vbuf_put(&arg, "abc", 3);
        CHECK(arg_rejected(&f, 2, &arg, "string literal of 2^40 bytes"));

        craft c;
        /* 2^40 top nodes */
        craft_init(&c, 2);
        siot_vbuf_uvar(&c.nodes, HUGE_N);
        w_event_const(&c.nodes, 2, 0);
        CHECK(reject_crafted("2^40 nodes", &c, &f));
        /* rank list of 2^40 entries */
        craft_init(&c, 2);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_u8(&c.nodes, SIOT_N_EVENT);
        siot_vbuf_uvar(&c.nodes, HUGE_N);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_u8(&c.nodes, 0);
        CHECK(reject_crafted("rank list of 2^40 entries", &c, &f));
        /* loop body of 2^40 nodes */
        craft_init(&c, 2);
        siot_vbuf_uvar(&c.nodes, 1);
        w_loop_head(&c.nodes, 2, 3, HUGE_N);
        w_event_const(&c.nodes, 2, 0);
        CHECK(reject_crafted("loop body of 2^40 nodes", &c, &f));
        /* 2^40 histogram bins */
        craft_init(&c, 2);
        siot_vbuf_uvar(&c.nodes, 1);
        w_event_zero(&c.nodes, 2);
        siot_vbuf_uvar(&c.nodes, 2);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_f64(&c.nodes, 1.5);
        siot_vbuf_f64(&c.nodes, 0.5);
        size_t hist_nnz_at = c.nodes.len;
        siot_vbuf_uvar(&c.nodes, HUGE_N); /* bin mask: bits far beyond bin 39 */
        siot_vbuf_uvar(&c.nodes, 2);
        siot_vbuf_uvar(&c.nodes, 0);
        f.len = 0;
        craft_file(&c, &f);
        CHECK(expect_reject("histogram bin mask beyond bin 39", &f));
        /* the same histogram with only bin 1 (mask 2 from min's bin 0) is valid
         * (control); with bin 40 (mask bit 40) or a NaN mean it is not */
        siot_vbuf h;
        siot_vbuf_init(&h);
        siot_vbuf_put(&h, c.nodes.data, hist_nnz_at);
        siot_vbuf_uvar(&h, 2);
        siot_vbuf_uvar(&h, 2);
        siot_vbuf_uvar(&h, 0);
        siot_vbuf_free(&c.nodes);
        c.nodes = h;
        f.len = 0;
        craft_file(&c, &f);
        siot_trace x;
        CHECK(expect_accept("valid 2-sample histogram", &f, &x));
        if (x.nranks == 2) {
            const siot_hist *hh = &x.top[0]->u.ev.comp;
            CHECK(hh->count == 2 && hh->min == 1 && hh->max == 2 && hh->mean == 1.5 &&
                  siot_hist_bin_count(hh, 1) == 2 && siot_hist_bin_count(hh, 0) == 0);
            siot_trace_free(&x);
        }
        {
            siot_vbuf h40;
            siot_vbuf_init(&h40);
            siot_vbuf_put(&h40, c.nodes.data, hist_nnz_at);
            siot_vbuf_uvar(&h40, 1ULL << 40);
            siot_vbuf_uvar(&h40, 2);
            siot_vbuf_uvar(&h40, 0);
            siot_vbuf saved_nodes = c.nodes;
            c.nodes = h40;
            f.len = 0;
            craft_file(&c, &f);
            CHECK(expect_reject("histogram bin 40", &f));
            c.nodes = saved_nodes;
            siot_vbuf_free(&h40);
        }
        double nan = NAN;
        memcpy(c.nodes.data + hist_nnz_at - 16, &nan, 8);
        CHECK(reject_crafted("histogram NaN mean", &c, &f));

        /* header notes, function table, call sites, arguments, site depth, string length */
        craft_init(&c, 2);
        c.hdr.len--; /* drop the note count */
        siot_vbuf_uvar(&c.hdr, HUGE_N);
        put_str(&c.hdr, "k");
        put_str(&c.hdr, "v");
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("2^40 header notes", &c, &f));

        craft_init(&c, 2);
        c.funcs.len = 0;
        siot_vbuf_uvar(&c.funcs, HUGE_N);
        put_str(&c.funcs, "f");
        siot_vbuf_put(&c.funcs, "\0\7\x64\0", 4);
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("2^40 functions", &c, &f));

        craft_init(&c, 2);
        c.funcs.len = 0;
        siot_vbuf_uvar(&c.funcs, 1);
        put_str(&c.funcs, "f");
        siot_vbuf_put(&c.funcs, "\0\7\x64", 3);
        siot_vbuf_uvar(&c.funcs, HUGE_N);
        put_str(&c.funcs, "x");
        siot_vbuf_u8(&c.funcs, 4);
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("function of 2^40 arguments", &c, &f));

        craft_init(&c, 2);
        c.sites.len = 0;
        siot_vbuf_uvar(&c.sites, HUGE_N); /* modules */
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("2^40 modules", &c, &f));

        craft_init(&c, 2);
        c.sites.len = 0;
        siot_vbuf_uvar(&c.sites, 0);
        siot_vbuf_uvar(&c.sites, HUGE_N);
        siot_vbuf_uvar(&c.sites, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("2^40 call sites", &c, &f));

        craft_init(&c, 2);
        c.sites.len = 0;
        siot_vbuf_uvar(&c.sites, 1);
        put_str(&c.sites, "/bin/m");
        siot_vbuf_uvar(&c.sites, 1);
        siot_vbuf_uvar(&c.sites, 1);
        siot_vbuf_uvar(&c.sites, 3); /* module 3 of 1 */
        siot_vbuf_uvar(&c.sites, 0x1000);
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("call site in an unknown module", &c, &f));

        craft_init(&c, 2);
        c.sites.len = 0;
        siot_vbuf_uvar(&c.sites, 1);
        put_str(&c.sites, "/bin/m");
        siot_vbuf_uvar(&c.sites, 1);
        siot_vbuf_uvar(&c.sites, HUGE_N);
        siot_vbuf_uvar(&c.sites, 0);
        siot_vbuf_uvar(&c.sites, 0x1000);
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("call site 2^40 deep", &c, &f));

        craft_init(&c, 2);
        c.hdr.len = 0;
        siot_vbuf_uvar(&c.hdr, 2);
        siot_vbuf_uvar(&c.hdr, 0);
        siot_vbuf_uvar(&c.hdr, 0);
        siot_vbuf_uvar(&c.hdr, HUGE_N); /* executable name length */
        siot_vbuf_put(&c.hdr, "exe", 3);
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("executable name of 2^40 bytes", &c, &f));

        /* a section length of 2^40 */
        craft_init(&c, 2);
        siot_vbuf_uvar(&c.nodes, 0);
        f.len = 0;
        craft_file(&c, &f);
        siot_vbuf g;
        siot_vbuf_init(&g);
        siot_vbuf_put(&g, f.data, 12);
        siot_vbuf_u8(&g, S_HEADER);
        siot_vbuf_uvar(&g, HUGE_N);
        siot_vbuf_put(&g, c.hdr.data, c.hdr.len);
        CHECK(expect_reject("section length 2^40", &g));
        siot_vbuf_free(&g);
        craft_free(&c);
        siot_vbuf_free(&arg);
    }

    /* other structural violations */
    {
        craft c;
        siot_vbuf arg;
        siot_vbuf_init(&arg);
        siot_trace x;
        /* valid baseline of this group (two top events) */
        craft_init(&c, 3);
        siot_vbuf_uvar(&c.nodes, 2);
        w_event_const(&c.nodes, 3, 1);
        w_event_const(&c.nodes, 3, 2);
        f.len = 0;
        craft_file(&c, &f);
        CHECK(expect_accept("two events", &f, &x));
        if (x.nranks == 3) {
            CHECK(walk_all(&x, 10) == 6);
            siot_trace_free(&x);
        }
        size_t flen = f.len;
        /* data after END */
        siot_vbuf_u8(&f, 0);
        CHECK(expect_reject("data after END", &f));
        f.len = flen;
        /* bad major version */
        f.data[8] = 2;
        CHECK(expect_reject("major version 2", &f));
        f.data[8] = 1;
        /* bad magic */
        f.data[1] = 's';
        CHECK(expect_reject("bad magic", &f));
        f.data[1] = 'S';
        craft_free(&c);

        /* sections: missing END, END count wrong, duplicated, out of order */
        craft_init(&c, 3);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf g, end;
        siot_vbuf_init(&g);
        siot_vbuf_init(&end);
        const uint8_t ver[4] = {1, 0, 0, 0};
        siot_vbuf_put(&g, MAGIC, 8);
        siot_vbuf_put(&g, ver, 4);
        put_section(&g, S_HEADER, &c.hdr);
        put_section(&g, S_FUNCS, &c.funcs);
        put_section(&g, S_SITES, &c.sites);
        put_section(&g, S_NODES, &c.nodes);
        size_t upto_nodes = g.len;
        CHECK(expect_reject("no END", &g));
        siot_vbuf_uvar(&end, 3);
        put_section(&g, S_END, &end);
        CHECK(expect_reject("END count 3", &g));
        g.len = upto_nodes;
        put_section(&g, S_NODES, &c.nodes);
        end.len = 0;
        siot_vbuf_uvar(&end, 5);
        put_section(&g, S_END, &end);
        {
            /* a block's nodes in two sections (what a rank that spilled writes) */
            siot_trace two;
            CHECK(expect_accept("NODES twice", &g, &two));
            siot_trace_free(&two);
        }
        g.len = upto_nodes;
        put_section(&g, S_SITES, &c.sites);
        end.len = 0;
        siot_vbuf_uvar(&end, 5);
        put_section(&g, S_END, &end);
        CHECK(expect_reject("SITES after NODES", &g));
        g.len = upto_nodes;
        put_section(&g, S_FUNCS, &c.funcs);
        end.len = 0;
        siot_vbuf_uvar(&end, 5);
        put_section(&g, S_END, &end);
        CHECK(expect_reject("a block of FUNCS alone", &g));
        {
            /* Two blocks (a spilled rank's file) naming one function: united
             * when they describe it alike, refused when the second gives "f"
             * two arguments (its events would be read with the first's one). */
            siot_vbuf ev1, ev2, funcs2, arg2;
            siot_vbuf_init(&ev1);
            siot_vbuf_init(&ev2);
            siot_vbuf_init(&funcs2);
            siot_vbuf_init(&arg2);
            siot_vbuf_uvar(&ev1, 1);
            w_event_const(&ev1, 3, 7);
            w_const(&arg2, 7);
            w_const(&arg2, 8);
            siot_vbuf_uvar(&ev2, 1);
            w_event(&ev2, 3, &arg2);
            siot_vbuf_uvar(&funcs2, 1);
            put_str(&funcs2, "f");
            siot_vbuf_u8(&funcs2, SIOT_LAYER_posix);
            siot_vbuf_uvar(&funcs2, SIOT_CLASS_meta);
            siot_vbuf_u8(&funcs2, SIOT_ROLE_r_int);
            siot_vbuf_uvar(&funcs2, 2);
            put_str(&funcs2, "x");
            siot_vbuf_u8(&funcs2, SIOT_ROLE_int);
            put_str(&funcs2, "y");
            siot_vbuf_u8(&funcs2, SIOT_ROLE_int);
            for (int differ = 0; differ < 2; differ++) {
                g.len = 12;
                put_section(&g, S_HEADER, &c.hdr);
                put_section(&g, S_FUNCS, &c.funcs);
                put_section(&g, S_SITES, &c.sites);
                put_section(&g, S_NODES, &ev1);
                put_section(&g, S_FUNCS, differ ? &funcs2 : &c.funcs);
                put_section(&g, S_SITES, &c.sites);
                put_section(&g, S_NODES, differ ? &ev2 : &ev1);
                end.len = 0;
                siot_vbuf_uvar(&end, 7);
                put_section(&g, S_END, &end);
                if (differ) {
                    CHECK(expect_reject("two blocks describing f differently", &g));
                } else {
                    siot_trace two;
                    int accepted = expect_accept("two blocks describing f alike", &g, &two);
                    CHECK(accepted);
                    if (accepted) {
                        CHECK(two.nfuncs == 1 && two.ntop == 2);
                        CHECK(two.top[1]->u.ev.func == 0 && two.top[1]->u.ev.nargs == 1);
                        siot_trace_free(&two);
                    }
                }
            }
            /* The same pair as two jobs' traces given to siot merge: refused,
             * and the first keeps what it had. */
            for (int differ = 0; differ < 2; differ++) {
                siot_trace a, b;
                c.nodes.len = 0;
                siot_vbuf_put(&c.nodes, ev1.data, ev1.len);
                g.len = 0;
                craft_file(&c, &g);
                int ok_a = expect_accept("merge input a", &g, &a);
                siot_vbuf keep = c.funcs;
                if (differ) {
                    c.funcs = funcs2;
                    c.nodes.len = 0;
                    siot_vbuf_put(&c.nodes, ev2.data, ev2.len);
                }
                g.len = 0;
                craft_file(&c, &g);
                c.funcs = keep;
                int ok_b = expect_accept("merge input b", &g, &b);
                CHECK(ok_a && ok_b);
                if (ok_a && ok_b) {
                    int rc = siot_trace_merge(&a, &b, 0);
                    CHECK_EQ_I64(rc, differ ? SIOT_E_CONFLICT : 0);
                    CHECK(a.nfuncs == 1 && a.funcs[0].nargs == 1 && a.ntop >= 1);
                } else if (ok_b) {
                    siot_trace_free(&b);
                }
                if (ok_a)
                    siot_trace_free(&a);
            }
            c.nodes.len = 0;
            siot_vbuf_free(&ev1);
            siot_vbuf_free(&ev2);
            siot_vbuf_free(&funcs2);
            siot_vbuf_free(&arg2);
        }
        g.len = 12;
        put_section(&g, S_HEADER, &c.hdr);
        put_section(&g, S_HEADER, &c.hdr);
        CHECK(expect_reject("HEADER twice", &g));
        g.len = 12;
        put_section(&g, S_HEADER, &c.hdr);
        put_section(&g, S_SITES, &c.sites);
        put_section(&g, S_FUNCS, &c.funcs);
        put_section(&g, S_NODES, &c.nodes);
        end.len = 0;
        siot_vbuf_uvar(&end, 4);
        put_section(&g, S_END, &end);
        CHECK(expect_reject("SITES before FUNCS", &g));
        g.len = 12;
        put_section(&g, S_FUNCS, &c.funcs);
        CHECK(expect_reject("FUNCS first", &g));
        /* a section with trailing bytes */
        g.len = 12;
        siot_vbuf hx;
        siot_vbuf_init(&hx);
        siot_vbuf_put(&hx, c.hdr.data, c.hdr.len);
        siot_vbuf_u8(&hx, 0);
        put_section(&g, S_HEADER, &hx);
        put_section(&g, S_FUNCS, &c.funcs);
        put_section(&g, S_SITES, &c.sites);
        put_section(&g, S_NODES, &c.nodes);
        put_section(&g, S_END, &end);
        CHECK(expect_reject("trailing bytes in HEADER", &g));
        siot_vbuf_free(&hx);
        siot_vbuf_free(&g);
        siot_vbuf_free(&end);
        craft_free(&c);

        /* zero ranks */
        craft_init(&c, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("zero ranks", &c, &f));

        /* event of an unknown function, unknown call site, unknown node kind, empty loop body */
        const struct {
            const char *what;
            uint8_t kind;
            uint64_t func, site;
        } bad_nodes[] = {{"unknown function", SIOT_N_EVENT, 1, 0},
                         {"function index 2^32 (truncates to 0)", SIOT_N_EVENT, UINT64_C(1) << 32, 0},
                         {"unknown call site", SIOT_N_EVENT, 0, 1},
                         {"unknown node kind", 3, 0, 0}};
        for (size_t k = 0; k < sizeof bad_nodes / sizeof bad_nodes[0]; k++) {
            craft_init(&c, 2);
            siot_vbuf_uvar(&c.nodes, 1);
            siot_vbuf_u8(&c.nodes, bad_nodes[k].kind);
            w_rl_all(&c.nodes, 2);
            siot_vbuf_uvar(&c.nodes, bad_nodes[k].func);
            siot_vbuf_uvar(&c.nodes, bad_nodes[k].site);
            for (int i = 0; i < 6; i++)
                w_const(&c.nodes, 0);
            siot_vbuf_uvar(&c.nodes, 0);
            siot_vbuf_uvar(&c.nodes, 0);
            f.len = 0;
            craft_file(&c, &f);
            CHECK(expect_reject(bad_nodes[k].what, &f));
            craft_free(&c);
        }
        craft_init(&c, 2);
        siot_vbuf_uvar(&c.nodes, 1);
        w_loop_head(&c.nodes, 2, 3, 0);
        CHECK(reject_crafted("empty loop body", &c, &f));

        /* expressions: unknown kind, a string or nothing where a number is required,
         * a progression over more loops than enclose it */
        arg.len = 0;
        siot_vbuf_u8(&arg, 8);
        CHECK(arg_rejected(&f, 2, &arg, "expression kind 8"));
        arg.len = 0;
        w_affine(&arg, 0, 1, 1);
        CHECK(arg_rejected(&f, 2, &arg, "AFFINE over a loop outside any loop"));
        craft_init(&c, 2);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_u8(&c.nodes, SIOT_N_EVENT);
        w_rl_all(&c.nodes, 2);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        w_const(&c.nodes, 0);
        w_const(&c.nodes, 0);
        siot_vbuf_u8(&c.nodes, SIOT_X_STR); /* ret */
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_u8(&c.nodes, 0);
        put_str(&c.nodes, "s");
        w_const(&c.nodes, 0);
        w_const(&c.nodes, 0);
        w_const(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        siot_vbuf_uvar(&c.nodes, 0);
        CHECK(reject_crafted("string return value", &c, &f));
        /* the loop count is evaluated outside its own loop: an AFFINE count over 1 loop at top level */
        craft_init(&c, 2);
        siot_vbuf_uvar(&c.nodes, 1);
        siot_vbuf_u8(&c.nodes, SIOT_N_LOOP);
        w_rl_all(&c.nodes, 2);
        w_affine(&c.nodes, 1, 1, 1);
        siot_vbuf_uvar(&c.nodes, 1);
        w_event_const(&c.nodes, 2, 0);
        CHECK(reject_crafted("loop count over its own loop", &c, &f));
        siot_vbuf_free(&arg);
    }

    /* siot_trace_set_kv on a fresh trace (nkv 0, kv NULL), as the recorder does when it ran out of
     * memory, is well defined (run in a child: UBSan aborts the process on undefined behaviour) */
    {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            siot_trace s;
            siot_trace_init(&s);
            int ok = siot_trace_set_kv(&s, "truncated", "yes") == 0 && s.nkv == 1 &&
                     strcmp(siot_trace_get_kv(&s, "truncated"), "yes") == 0;
            siot_trace_free(&s);
            _exit(ok ? 0 : 3);
        }
        int status = 0;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }

    siot_vbuf_free(&f);
    siot_vbuf_free(&enc);
    siot_vbuf_free(&enc2);
    siot_trace_free(&d);
    siot_trace_free(&t);
    return unit_done("format");
}
