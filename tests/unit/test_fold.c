/* test_fold: the on-the-fly trace compressor (compress/queue.c folding the
 * tail into loops, compress/xmerge.c growing expressions) loses nothing and
 * folds what it should.
 *
 *   1. lossless property test: random programs of nested loops (depth <= 4,
 *      counts 1..30, some changing from one outer iteration to the next, 1..5
 *      statements per body, 8 call sites of 11 functions, groups of nested
 *      calls, integer / string / array parameters of many shapes) are run by a
 *      reference executor that lists the raw events; the events go through a
 *      queue (compress on, window 256; compress off; windows 1, 2, 4; pushed
 *      group by group or in chunks of groups, with the caller's staging memory
 *      scribbled over after every push) and the trace walked with siot_iter
 *      and siot_eval must give back every event exactly; so must it after
 *      the final pass and the job's last pass (arrays of request ids, first +
 *      step*j of a length that follows a loop or the occurrence, as ranges).
 *   2. the compressed trace survives siot_trace_encode / siot_trace_decode:
 *      the same events, and histograms as the file form keeps them.
 *   3. structure: the classic open / 100 x write / close example, run tables
 *      and string patterns of small sequences, a body that ends with a loop,
 *      a program that ends inside an iteration, and one call repeated
 *      1,000,000 times in memory independent of the count.
 *   4. constant size: a 3-level nest encodes to the same size (within 5%) for
 *      innermost counts 10, 1,000 and 100,000; request batches of
 *      10 + 5*(rank % 3) calls completed by one Waitall, merged over 3..24
 *      ranks, within 24 bytes at any rank count, round count and batch
 *      length, their request ids one range (the job's last pass,
 *      compress/rankfold.h); segment nests whose boundary falls in the
 *      middle of the loop's body (random inner count, body, rotation and
 *      values), renested into two loops, lossless, within 6 bytes at 64
 *      times the segments.
 *   5. timing histograms of folded events: count, min, max, mean, M2, bins and
 *      the occurrence of the maximum.
 *   6. extreme integer values (run in a child process: UBSan aborts).
 *   7. format limits: what the compressor builds from legitimate input must
 *      decode (deep loop nests, long strings).
 *
 * Environment: SIOT_FOLD_SEEDS=n runs n random programs (default 300);
 * SIOT_FOLD_SEED=s runs only seed s and prints its program and the
 * compressed trace. A failing seed prints its program. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/expr.h"
#include "core/hist.h"
#include "compress/queue.h"
#include "compress/merge.h"
#include "compress/rankfold.h"
#include "compress/renest.h"
#include "replay/walk.h"
#include "siot/dump.h"
#include "core/format.h"
#include "core/roles.h"
#include "tests/unit/unit.h"

/* ================================================================ randomness */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnext(rng *r)
{
    r->s += 0x632be59bd9b4e019ULL;
    return mix64(r->s);
}
static uint32_t rbelow(rng *r, uint32_t n) { return n ? (uint32_t)(rnext(r) % n) : 0; }

/* ============================================================ function table */

enum { F_OPEN, F_PWRITE, F_WAT, F_WAITALL, F_FWRITE, F_WRITE, F_CLOSE, F_H5CREATE, F_MPIOPEN, F_FSYNC, F_BARRIER, NF };
enum { K_NONE = SIOT_RV_NONE, K_INT = SIOT_RV_INT, K_STR = SIOT_RV_STR, K_ARR = SIOT_RV_ARR };

static const char *const open_an[] = {"path", "flags", "mode"};
static const uint8_t open_ar[] = {SIOT_ROLE_path, SIOT_ROLE_oflags, SIOT_ROLE_mode};
static const uint8_t open_k[] = {K_STR, K_INT, K_INT};
static const char *const pwrite_an[] = {"fd", "buf", "count", "offset"};
static const uint8_t pwrite_ar[] = {SIOT_ROLE_fd, SIOT_ROLE_buf, SIOT_ROLE_count, SIOT_ROLE_offset};
static const uint8_t pwrite_k[] = {K_INT, K_NONE, K_INT, K_INT};
static const char *const wat_an[] = {"fh", "offset", "buf", "count", "datatype", "status"};
static const uint8_t wat_ar[] = {SIOT_ROLE_file, SIOT_ROLE_offset, SIOT_ROLE_buf,
                                 SIOT_ROLE_count, SIOT_ROLE_dtype, SIOT_ROLE_status};
static const uint8_t wat_k[] = {K_INT, K_INT, K_NONE, K_INT, K_INT, K_ARR};
static const char *const waitall_an[] = {"count", "requests"};
static const uint8_t waitall_ar[] = {SIOT_ROLE_count, SIOT_ROLE_reqarr};
static const uint8_t waitall_k[] = {K_INT, K_ARR};
static const char *const fwrite_an[] = {"ptr", "size", "nmemb", "stream"};
static const uint8_t fwrite_ar[] = {SIOT_ROLE_buf, SIOT_ROLE_size, SIOT_ROLE_count, SIOT_ROLE_stream};
static const uint8_t fwrite_k[] = {K_NONE, K_INT, K_INT, K_INT};
static const char *const write_an[] = {"fd", "buf", "count"};
static const uint8_t write_ar[] = {SIOT_ROLE_fd, SIOT_ROLE_buf, SIOT_ROLE_count};
static const uint8_t write_k[] = {K_INT, K_NONE, K_INT};
static const char *const fd_an[] = {"fd"};
static const uint8_t fd_ar[] = {SIOT_ROLE_fd};
static const uint8_t fd_k[] = {K_INT};
static const char *const h5c_an[] = {"name", "flags"};
static const uint8_t h5c_ar[] = {SIOT_ROLE_path, SIOT_ROLE_int};
static const uint8_t h5c_k[] = {K_STR, K_INT};
static const char *const mpiopen_an[] = {"comm", "filename", "amode", "info"};
static const uint8_t mpiopen_ar[] = {SIOT_ROLE_comm, SIOT_ROLE_path, SIOT_ROLE_omode, SIOT_ROLE_info};
static const uint8_t mpiopen_k[] = {K_INT, K_STR, K_INT, K_INT};
static const char *const bar_an[] = {"comm"};
static const uint8_t bar_ar[] = {SIOT_ROLE_comm};
static const uint8_t bar_k[] = {K_INT};

static siot_funcdesc FUNCS[NF] = {
    {"open", SIOT_LAYER_posix, SIOT_CLASS_open, SIOT_ROLE_r_newfd, 3, open_an, open_ar},
    {"pwrite", SIOT_LAYER_posix, SIOT_CLASS_write, SIOT_ROLE_r_bytes, 4, pwrite_an, pwrite_ar},
    {"MPI_File_write_at", SIOT_LAYER_mpiio, SIOT_CLASS_write, SIOT_ROLE_r_mpi, 6, wat_an, wat_ar},
    {"MPI_Waitall", SIOT_LAYER_mpi, SIOT_CLASS_wait, SIOT_ROLE_r_mpi, 2, waitall_an, waitall_ar},
    {"fwrite", SIOT_LAYER_stdio, SIOT_CLASS_write, SIOT_ROLE_r_items, 4, fwrite_an, fwrite_ar},
    {"write", SIOT_LAYER_posix, SIOT_CLASS_write, SIOT_ROLE_r_bytes, 3, write_an, write_ar},
    {"close", SIOT_LAYER_posix, SIOT_CLASS_close, SIOT_ROLE_r_int, 1, fd_an, fd_ar},
    {"H5Fcreate", SIOT_LAYER_hdf5, SIOT_CLASS_open, SIOT_ROLE_r_newhid, 2, h5c_an, h5c_ar},
    {"MPI_File_open", SIOT_LAYER_mpiio, SIOT_CLASS_open, SIOT_ROLE_r_mpi, 4, mpiopen_an, mpiopen_ar},
    {"fsync", SIOT_LAYER_posix, SIOT_CLASS_sync, SIOT_ROLE_r_int, 1, fd_an, fd_ar},
    {"MPI_Barrier", SIOT_LAYER_mpi, SIOT_CLASS_coll | SIOT_CLS_COLL, SIOT_ROLE_r_mpi, 1, bar_an, bar_ar},
};
static const uint8_t *const KINDS[NF] = {open_k, pwrite_k, wat_k, waitall_k, fwrite_k, write_k,
                                         fd_k, h5c_k, mpiopen_k, fd_k, bar_k};

/* Call sites: site ids 1..NSITES (0 = unknown), one module. */
#define NSITES 12
static uint64_t SITE_ADDRS[NSITES];
static siot_site SITES[NSITES];
static const char *MODULES[1] = {"/usr/bin/test_fold"};

static void sites_init(void)
{
    for (uint32_t i = 0; i < NSITES; i++) {
        SITE_ADDRS[i] = SIOT_ADDR(0, 0x401000 + 16 * i);
        SITES[i].depth = 1;
        SITES[i].addrs = &SITE_ADDRS[i];
    }
}

/* The call statements a program is made of: a top-level call and the traced
 * calls it issues (pre-order, parent = index in the group). */
typedef struct ckdef {
    const char *name;
    uint32_t nev;
    uint32_t func[3], site[3];
    int32_t parent[3];
    uint32_t thread;
    int varkids; /* the number of children may change from call to call */
} ckdef;

static const ckdef CK[] = {
    {"open", 1, {F_OPEN}, {1}, {-1}, 0, 0},
    {"pwrite@2", 1, {F_PWRITE}, {2}, {-1}, 0, 0},
    {"pwrite@3", 1, {F_PWRITE}, {3}, {-1}, 1, 0},
    {"write_at>pwrite,pwrite", 3, {F_WAT, F_PWRITE, F_PWRITE}, {4, 7, 7}, {-1, 0, 0}, 0, 1},
    {"fwrite>write", 2, {F_FWRITE, F_WRITE}, {5, 8}, {-1, 0}, 0, 0},
    {"waitall", 1, {F_WAITALL}, {0}, {-1}, 0, 0},
    {"H5Fcreate>MPI_File_open>open", 3, {F_H5CREATE, F_MPIOPEN, F_OPEN}, {6, 9, 10}, {-1, 0, 1}, 0, 1},
    {"close", 1, {F_CLOSE}, {11}, {-1}, 0, 0},
};
#define NCK (sizeof CK / sizeof CK[0])

/* ============================================================ reference events */

/* The flat list of raw events a program produced, grouped as they are pushed,
 * with the strings and arrays in one byte pool. */
typedef struct ref {
    siot_raw *ev;
    int64_t *dist; /* parent distance of each event */
    size_t n, cap;
    size_t *gstart; /* first event of each group */
    size_t ng, gcap;
    uint8_t *pool;
    size_t plen, pcap;
    uint64_t clock;
    uint64_t tsalt;
} ref;

static void ref_free(ref *R)
{
    free(R->ev);
    free(R->dist);
    free(R->gstart);
    free(R->pool);
    memset(R, 0, sizeof *R);
}

static int64_t ref_bytes(ref *R, const void *p, size_t n)
{
    size_t off = (R->plen + 7) & ~(size_t)7;
    if (off + n + 8 > R->pcap) {
        size_t cap = R->pcap ? R->pcap : 4096;
        while (cap < off + n + 8)
            cap *= 2;
        R->pool = realloc(R->pool, cap);
        if (!R->pool)
            abort();
        R->pcap = cap;
    }
    if (n)
        memcpy(R->pool + off, p, n);
    R->plen = off + n;
    return (int64_t)off;
}

static void ref_group(ref *R)
{
    if (R->ng == R->gcap) {
        R->gcap = R->gcap ? 2 * R->gcap : 256;
        R->gstart = realloc(R->gstart, R->gcap * sizeof *R->gstart);
        if (!R->gstart)
            abort();
    }
    R->gstart[R->ng++] = R->n;
}

/* Appends r (its parent is an index within the current group). */
static void ref_add(ref *R, const siot_raw *r)
{
    if (R->n == R->cap) {
        R->cap = R->cap ? 2 * R->cap : 256;
        R->ev = realloc(R->ev, R->cap * sizeof *R->ev);
        R->dist = realloc(R->dist, R->cap * sizeof *R->dist);
        if (!R->ev || !R->dist)
            abort();
    }
    size_t in_group = R->n - R->gstart[R->ng - 1];
    R->ev[R->n] = *r;
    R->dist[R->n] = r->parent >= 0 ? (int64_t)in_group - r->parent : 0;
    R->n++;
}

/* Deterministic fake timing for the next event. */
static void ref_time(ref *R, siot_raw *r)
{
    uint64_t h = mix64(R->tsalt ^ (R->n * 0x9e3779b97f4a7c15ULL));
    r->comp = h % 3000;
    r->t_start = R->clock + r->comp;
    r->t_end = r->t_start + 10 + (h >> 20) % 100000;
    R->clock = r->t_end;
}

/* Raw values for hand-written events (the pool is the reference's). */
static siot_rawval rv_int(int64_t v)
{
    siot_rawval x = {SIOT_RV_INT, 0, v};
    return x;
}
static siot_rawval rv_none(void)
{
    siot_rawval x = {SIOT_RV_NONE, 0, 0};
    return x;
}
static siot_rawval rv_str(ref *R, const char *s)
{
    size_t n = strlen(s);
    siot_rawval x = {SIOT_RV_STR, (uint32_t)n, ref_bytes(R, s, n)};
    return x;
}

/* ============================================================ programs */

#define MAXDEPTH 4
#define SRC_OCC 255

/* An integer parameter. `src` is the value that drives irregular, stepping
 * and periodic values: the occurrence number of the statement, or the index
 * of one of the enclosing loops (0 = innermost). */
enum { I_CONST, I_PROG, I_IRREG, I_STEP, I_MOD, I_OCC };
typedef struct ispec {
    uint8_t kind, src;
    int64_t a, b;
    int64_t coef[MAXDEPTH]; /* I_PROG: a + sum coef[k] * idx[k] */
    uint64_t salt, range, period;
} ispec;

enum { S_CONST, S_FMT, S_IRREG, S_MANY, S_LONGNUM, S_EMPTY };
typedef struct sspec {
    uint8_t kind, tmpl, src, ndig;
    ispec f[2];
    uint64_t salt;
} sspec;

/* A_IDS: request ids a Waitall completes, el[0] + el[1]*j for j < len (len
 * up to 40, following a loop, the occurrence or nothing) */
enum { A_FIXED, A_VARY, A_BIG, A_IDS };
typedef struct aspec {
    uint8_t kind;
    uint32_t n;
    ispec el[3];
    ispec len;
} aspec;

typedef struct argspec {
    uint8_t kind;
    ispec i;
    sspec s;
    aspec a;
} argspec;

typedef struct evspec {
    ispec ret, err, bytes;
    argspec args[6];
} evspec;

typedef struct stmt stmt;
struct stmt {
    uint8_t is_loop;
    uint64_t occ; /* executions so far (reset before each run) */
    /* loop */
    ispec count;
    int64_t cmax;
    uint32_t nbody;
    stmt *body;
    /* call */
    uint32_t ck;
    ispec thread, nkids;
    int varkids;
    evspec ev[3];
};

typedef struct prog {
    siot_arena arena;
    stmt *top;
    uint32_t ntop;
} prog;

typedef struct ectx {
    const int64_t *idx; /* idx[0] = innermost loop's iteration */
    uint32_t depth;
    uint64_t occ;
} ectx;

static int64_t src_val(uint8_t src, const ectx *c)
{
    return src != SRC_OCC && src < c->depth ? c->idx[src] : (int64_t)c->occ;
}

static int64_t ival(const ispec *s, const ectx *c)
{
    switch (s->kind) {
    case I_CONST:
        return s->a;
    case I_PROG: {
        int64_t v = s->a;
        for (uint32_t k = 0; k < c->depth && k < MAXDEPTH; k++)
            v += s->coef[k] * c->idx[k];
        return v;
    }
    case I_IRREG:
        return s->a + (int64_t)(mix64(s->salt + (uint64_t)src_val(s->src, c)) % s->range);
    case I_STEP:
        return s->a + s->b * (src_val(s->src, c) / (int64_t)s->period);
    case I_MOD:
        return s->a + s->b * (src_val(s->src, c) % (int64_t)s->period);
    case I_OCC:
        return s->a + s->b * (int64_t)c->occ;
    }
    return 0;
}

/* ------------------------------------------------------------ generator */

typedef struct gen {
    rng r;
    siot_arena *a;
} gen;

/* Bases: small (around the interned constants, -16..4095), or large. */
static int64_t g_base(gen *g)
{
    switch (rbelow(&g->r, 5)) {
    case 0:
        return (int64_t)rbelow(&g->r, 40) - 20;
    case 1:
        return 4090 + (int64_t)rbelow(&g->r, 12);
    case 2:
        return (int64_t)rbelow(&g->r, 1000);
    default:
        return (int64_t)rbelow(&g->r, 1u << 30) - (1 << 29);
    }
}

static int64_t g_coef(gen *g, int small)
{
    if (small)
        return (int64_t)rbelow(&g->r, 5) - 2;
    static const int64_t C[] = {1, -1, 2, 8, 64, 4096, -4096, 1 << 20};
    if (rbelow(&g->r, 4))
        return C[rbelow(&g->r, sizeof C / sizeof C[0])];
    return (int64_t)rbelow(&g->r, 1u << 16) - (1 << 15);
}

static void g_ispec(gen *g, ispec *s, uint32_t depth, int small)
{
    memset(s, 0, sizeof *s);
    s->a = small ? (int64_t)rbelow(&g->r, 20) : g_base(g);
    s->salt = rnext(&g->r);
    s->src = depth && rbelow(&g->r, 3) ? (uint8_t)rbelow(&g->r, depth) : SRC_OCC;
    uint32_t pick = rbelow(&g->r, 100);
    if (pick < 25) {
        s->kind = I_CONST;
    } else if (pick < 50 && depth) {
        s->kind = I_PROG;
        for (uint32_t k = 0; k < depth; k++)
            s->coef[k] = rbelow(&g->r, 3) ? g_coef(g, small) : 0;
    } else if (pick < 62) {
        s->kind = I_IRREG;
        s->range = small || rbelow(&g->r, 2) ? 1 + rbelow(&g->r, 5) : (uint64_t)1 << (4 + rbelow(&g->r, 28));
    } else if (pick < 75) {
        s->kind = I_STEP;
        s->b = g_coef(g, small);
        s->period = 1 + rbelow(&g->r, 7);
    } else if (pick < 87) {
        s->kind = I_MOD;
        s->b = g_coef(g, small);
        s->period = 1 + rbelow(&g->r, 5);
    } else {
        s->kind = I_OCC;
        s->b = g_coef(g, small);
    }
}

static void g_sspec(gen *g, sspec *s, uint32_t depth)
{
    memset(s, 0, sizeof *s);
    uint32_t pick = rbelow(&g->r, 100);
    s->kind = pick < 10 ? S_CONST : pick < 60 ? S_FMT : pick < 75 ? S_IRREG : pick < 85 ? S_MANY
            : pick < 95 ? S_LONGNUM : S_EMPTY;
    s->tmpl = (uint8_t)rbelow(&g->r, 8);
    s->src = depth && rbelow(&g->r, 2) ? (uint8_t)rbelow(&g->r, depth) : SRC_OCC;
    s->ndig = (uint8_t)(16 + rbelow(&g->r, 6)); /* 16..21 digits: fields up to 18, text beyond */
    s->salt = rnext(&g->r);
    for (int k = 0; k < 2; k++) {
        g_ispec(g, &s->f[k], depth, 0);
        if (rbelow(&g->r, 3)) { /* mostly small non-negative counters */
            s->f[k].a = s->f[k].a < 0 ? -s->f[k].a % 1000 : s->f[k].a % 1000;
            for (int j = 0; j < MAXDEPTH; j++)
                s->f[k].coef[j] %= 50;
            s->f[k].b %= 50;
            if (s->f[k].range > 100000)
                s->f[k].range = 100000;
        }
    }
}

static void g_aspec(gen *g, aspec *s, uint32_t depth)
{
    memset(s, 0, sizeof *s);
    uint32_t pick = rbelow(&g->r, 100);
    s->kind = pick < 50 ? A_FIXED : pick < 75 ? A_VARY : pick < 85 ? A_BIG : A_IDS;
    s->n = s->kind == A_BIG ? 65 + rbelow(&g->r, 16) : rbelow(&g->r, 5);
    for (int k = 0; k < 3; k++)
        g_ispec(g, &s->el[k], depth, 0);
    g_ispec(g, &s->len, depth, 1);
}

static void g_argspec(gen *g, argspec *s, uint8_t kind, uint32_t depth)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    if (kind == K_INT)
        g_ispec(g, &s->i, depth, 0);
    else if (kind == K_STR)
        g_sspec(g, &s->s, depth);
    else if (kind == K_ARR)
        g_aspec(g, &s->a, depth);
}

static void g_call(gen *g, stmt *s, uint32_t depth)
{
    s->is_loop = 0;
    s->ck = rbelow(&g->r, NCK);
    const ckdef *d = &CK[s->ck];
    memset(&s->thread, 0, sizeof s->thread);
    s->thread.kind = I_CONST;
    s->thread.a = d->thread;
    uint32_t t = rbelow(&g->r, 10);
    if (t == 0) {
        s->thread.a = 2;
    } else if (t == 1 && depth) { /* alternating threads */
        s->thread.kind = I_MOD;
        s->thread.src = (uint8_t)rbelow(&g->r, depth);
        s->thread.b = 1;
        s->thread.period = 2;
    }
    s->varkids = d->varkids && rbelow(&g->r, 3) == 0;
    g_ispec(g, &s->nkids, depth, 1);
    for (uint32_t e = 0; e < d->nev; e++) {
        evspec *ev = &s->ev[e];
        g_ispec(g, &ev->ret, depth, 0);
        g_ispec(g, &ev->bytes, depth, 0);
        g_ispec(g, &ev->err, depth, 1);
        if (rbelow(&g->r, 4)) {
            memset(&ev->err, 0, sizeof ev->err);
            ev->err.kind = I_CONST;
        }
        const siot_funcdesc *f = &FUNCS[d->func[e]];
        for (uint32_t k = 0; k < f->nargs; k++)
            g_argspec(g, &ev->args[k], KINDS[d->func[e]][k], depth);
    }
}

static void g_block(gen *g, stmt **out, uint32_t *nout, uint32_t depth, uint64_t budget);

static void g_loop(gen *g, stmt *s, uint32_t depth, uint64_t budget)
{
    s->is_loop = 1;
    uint64_t lim = budget / 4 < 30 ? budget / 4 : 30;
    s->cmax = 1 + (int64_t)rbelow(&g->r, (uint32_t)lim);
    if (s->cmax < 30 && rbelow(&g->r, 3) == 0)
        s->cmax++;
    ispec *c = &s->count;
    memset(c, 0, sizeof *c);
    c->salt = rnext(&g->r);
    c->src = depth && rbelow(&g->r, 2) ? (uint8_t)rbelow(&g->r, depth) : SRC_OCC;
    uint32_t pick = rbelow(&g->r, 100);
    if (pick < 55 || s->cmax < 3) {
        c->kind = I_CONST;
        c->a = s->cmax >= 2 ? 2 + (int64_t)rbelow(&g->r, (uint32_t)s->cmax - 1) : 1;
    } else if (pick < 72) { /* data-dependent: irregular from one execution to the next */
        c->kind = I_IRREG;
        c->a = rbelow(&g->r, 3);
        c->range = (uint64_t)(s->cmax - c->a + 1);
    } else if (pick < 82 && depth) {
        c->kind = I_PROG;
        c->a = 1 + (int64_t)rbelow(&g->r, (uint32_t)s->cmax);
        for (uint32_t k = 0; k < depth; k++)
            c->coef[k] = (int64_t)rbelow(&g->r, 4) - 1;
    } else if (pick < 92) {
        c->kind = I_STEP;
        c->a = 1 + (int64_t)rbelow(&g->r, (uint32_t)s->cmax);
        c->b = rbelow(&g->r, 2) ? 1 : -1;
        c->period = 1 + rbelow(&g->r, 4);
    } else {
        c->kind = I_MOD;
        c->a = (int64_t)rbelow(&g->r, (uint32_t)s->cmax / 2 + 1);
        c->b = 1 + rbelow(&g->r, 2);
        c->period = 2 + rbelow(&g->r, 3);
    }
    g_block(g, &s->body, &s->nbody, depth + 1, budget / (uint64_t)s->cmax);
}

static void g_block(gen *g, stmt **out, uint32_t *nout, uint32_t depth, uint64_t budget)
{
    uint32_t n = 1 + rbelow(&g->r, 5);
    stmt *s = siot_arena_alloc(g->a, n * sizeof *s);
    if (!s)
        abort();
    uint64_t each = budget / n;
    /* Usually one statement gets most of the budget (a main loop), the
     * others little (set-up and tear-down calls, short loops). */
    uint32_t main_stmt = rbelow(&g->r, n);
    int has_main = n > 1 && rbelow(&g->r, 3) != 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t mine = !has_main ? each : i == main_stmt ? budget * 2 / 3 : budget / (3 * (n - 1));
        if (depth < MAXDEPTH && mine >= 6 && (rbelow(&g->r, 100) < 55 || (has_main && i == main_stmt)))
            g_loop(g, &s[i], depth, mine);
        else
            g_call(g, &s[i], depth);
    }
    *out = s;
    *nout = n;
}

static void prog_gen(prog *p, uint64_t seed)
{
    siot_arena_init(&p->arena);
    gen g = {{seed * 0x2545f4914f6cdd1dULL + 1}, &p->arena};
    uint64_t budget = 100 + rbelow(&g.r, 6000);
    /* The top level is itself a loop often enough for deep nests. */
    g_block(&g, &p->top, &p->ntop, 0, budget);
}

static void prog_free(prog *p) { siot_arena_free(&p->arena); }

/* ------------------------------------------------------------ printing (for failures) */

static const char *src_name(uint8_t src)
{
    static const char *const N[MAXDEPTH] = {"i0", "i1", "i2", "i3"};
    return src < MAXDEPTH ? N[src] : "occ";
}

static void print_ispec(const ispec *s)
{
    switch (s->kind) {
    case I_CONST:
        fprintf(stderr, "%" PRId64, s->a);
        break;
    case I_PROG:
        fprintf(stderr, "%" PRId64, s->a);
        for (int k = 0; k < MAXDEPTH; k++)
            if (s->coef[k])
                fprintf(stderr, "%+" PRId64 "*i%d", s->coef[k], k);
        break;
    case I_IRREG:
        fprintf(stderr, "irreg(%" PRId64 "+h%%%" PRIu64 " by %s)", s->a, s->range, src_name(s->src));
        break;
    case I_STEP:
        fprintf(stderr, "step(%" PRId64 "%+" PRId64 "*(%s/%" PRIu64 "))", s->a, s->b, src_name(s->src), s->period);
        break;
    case I_MOD:
        fprintf(stderr, "mod(%" PRId64 "%+" PRId64 "*(%s%%%" PRIu64 "))", s->a, s->b, src_name(s->src), s->period);
        break;
    case I_OCC:
        fprintf(stderr, "%" PRId64 "%+" PRId64 "*occ", s->a, s->b);
        break;
    }
}

static void print_block(const stmt *b, uint32_t n, int ind)
{
    static const char *SK[] = {"const", "fmt", "irreg", "many", "longnum", "empty"};
    static const char *AK[] = {"fixed", "vary", "big", "ids"};
    for (uint32_t i = 0; i < n; i++) {
        const stmt *s = &b[i];
        fprintf(stderr, "%*s", ind, "");
        if (s->is_loop) {
            fprintf(stderr, "loop x ");
            print_ispec(&s->count);
            fprintf(stderr, " (max %" PRId64 ") {\n", s->cmax);
            print_block(s->body, s->nbody, ind + 2);
            fprintf(stderr, "%*s}\n", ind, "");
            continue;
        }
        const ckdef *d = &CK[s->ck];
        fprintf(stderr, "call %s thread=", d->name);
        print_ispec(&s->thread);
        if (s->varkids) {
            fprintf(stderr, " kids=");
            print_ispec(&s->nkids);
        }
        fprintf(stderr, "\n");
        for (uint32_t e = 0; e < d->nev; e++) {
            const evspec *ev = &s->ev[e];
            fprintf(stderr, "%*s  %s ret=", ind, "", FUNCS[d->func[e]].name);
            print_ispec(&ev->ret);
            fprintf(stderr, " err=");
            print_ispec(&ev->err);
            fprintf(stderr, " bytes=");
            print_ispec(&ev->bytes);
            for (uint32_t k = 0; k < FUNCS[d->func[e]].nargs; k++) {
                const argspec *a = &ev->args[k];
                fprintf(stderr, " %s=", FUNCS[d->func[e]].argnames[k]);
                if (a->kind == K_INT)
                    print_ispec(&a->i);
                else if (a->kind == K_STR) {
                    fprintf(stderr, "str:%s/%u(", SK[a->s.kind], a->s.tmpl);
                    print_ispec(&a->s.f[0]);
                    fprintf(stderr, ",");
                    print_ispec(&a->s.f[1]);
                    fprintf(stderr, ")");
                } else if (a->kind == K_ARR) {
                    fprintf(stderr, "arr:%s/%u(", AK[a->a.kind], a->a.n);
                    print_ispec(&a->a.el[0]);
                    fprintf(stderr, ")");
                } else
                    fprintf(stderr, "-");
            }
            fprintf(stderr, "\n");
        }
    }
}

/* ------------------------------------------------------------ reference executor */

static const char *const TEMPLATES[8] = {
    "file_%04lld_%lld.dat", "plot_%lld", "ckpt-%02lld.h5", "out/%lld/part%lld",
    "run%lld",              "%lld",      "x%lldy%lldz",    "/scratch/job/%06lld.nc",
};

static siot_rawval x_str(ref *R, const sspec *s, const ectx *c)
{
    char buf[1024];
    size_t n = 0;
    long long f0 = (long long)ival(&s->f[0], c), f1 = (long long)ival(&s->f[1], c);
    uint64_t h = mix64(s->salt + (uint64_t)src_val(s->src, c));
    switch (s->kind) {
    case S_CONST:
        n = (size_t)snprintf(buf, sizeof buf, "/tmp/const_%u_42.txt", s->tmpl);
        break;
    case S_FMT:
        n = (size_t)snprintf(buf, sizeof buf, TEMPLATES[s->tmpl], f0, f1);
        break;
    case S_IRREG: {
        static const char AL[] = "ab_./-0123456789";
        n = h % 25;
        for (size_t i = 0; i < n; i++)
            buf[i] = AL[mix64(h + i) % (sizeof AL - 1)];
        break;
    }
    case S_MANY: /* 40 numeric fields: more segments than the fast path's scratch holds */
        n = (size_t)snprintf(buf, sizeof buf, "v");
        for (int k = 0; k < 40; k++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%lld,", k % 2 ? f1 : f0 + k);
        break;
    case S_LONGNUM: /* a digit run of 16..21 digits: a field up to 18, text beyond */
        n = (size_t)snprintf(buf, sizeof buf, "id");
        for (int k = 0; k < s->ndig; k++)
            buf[n++] = (char)('0' + (k == 0 ? 1 + mix64(h + (uint64_t)k) % 9 : mix64(h + (uint64_t)k) % 10));
        n += (size_t)snprintf(buf + n, sizeof buf - n, ".x");
        break;
    case S_EMPTY:
        n = 0;
        break;
    }
    siot_rawval v = {SIOT_RV_STR, (uint32_t)n, ref_bytes(R, buf, n)};
    return v;
}

static siot_rawval x_arr(ref *R, const aspec *s, const ectx *c)
{
    int64_t v[96];
    uint32_t n = s->n;
    if (s->kind == A_VARY)
        n = (uint32_t)((uint64_t)ival(&s->len, c) % 6);
    if (s->kind == A_IDS) {
        n = (uint32_t)((uint64_t)ival(&s->len, c) % 41);
        for (uint32_t k = 0; k < n; k++)
            v[k] = ival(&s->el[0], c) + (int64_t)k * (s->el[1].a % 3 + 1);
        siot_rawval x = {SIOT_RV_ARR, n, ref_bytes(R, v, n * sizeof *v)};
        return x;
    }
    for (uint32_t k = 0; k < n; k++)
        v[k] = ival(&s->el[k % 3], c) + (int64_t)k * (s->kind == A_BIG ? 7 : 1);
    siot_rawval x = {SIOT_RV_ARR, n, ref_bytes(R, v, n * sizeof *v)};
    return x;
}

static void exec_call(ref *R, stmt *s, const int64_t *idx, uint32_t depth)
{
    const ckdef *d = &CK[s->ck];
    ectx c = {idx, depth, s->occ++};
    uint32_t ne = d->nev;
    if (s->varkids)
        ne = 1 + (uint32_t)((uint64_t)ival(&s->nkids, &c) % d->nev);
    uint32_t thread = (uint32_t)(ival(&s->thread, &c) & 3);
    ref_group(R);
    for (uint32_t e = 0; e < ne; e++) {
        const evspec *ev = &s->ev[e];
        siot_raw r;
        memset(&r, 0, sizeof r);
        r.func = d->func[e];
        r.site = d->site[e];
        r.parent = d->parent[e];
        r.thread = thread;
        r.ret = ival(&ev->ret, &c);
        r.err = ival(&ev->err, &c);
        r.bytes = ival(&ev->bytes, &c);
        ref_time(R, &r);
        r.nargs = FUNCS[r.func].nargs;
        for (uint32_t k = 0; k < r.nargs; k++) {
            const argspec *a = &ev->args[k];
            if (a->kind == K_INT)
                r.args[k] = rv_int(ival(&a->i, &c));
            else if (a->kind == K_STR)
                r.args[k] = x_str(R, &a->s, &c);
            else if (a->kind == K_ARR)
                r.args[k] = x_arr(R, &a->a, &c);
            else
                r.args[k] = rv_none();
        }
        ref_add(R, &r);
    }
}

static void exec_block(ref *R, stmt *b, uint32_t n, const int64_t *idx, uint32_t depth)
{
    for (uint32_t i = 0; i < n; i++) {
        stmt *s = &b[i];
        if (!s->is_loop) {
            exec_call(R, s, idx, depth);
            continue;
        }
        ectx c = {idx, depth, s->occ++};
        int64_t cnt = ival(&s->count, &c);
        cnt = cnt < 0 ? 0 : cnt > s->cmax ? s->cmax : cnt;
        int64_t inner[MAXDEPTH + 1];
        for (uint32_t k = 0; k < depth; k++)
            inner[k + 1] = idx[k];
        for (int64_t it = 0; it < cnt; it++) {
            inner[0] = it;
            exec_block(R, s->body, s->nbody, inner, depth + 1);
        }
    }
}

static void reset_occ(stmt *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        b[i].occ = 0;
        if (b[i].is_loop)
            reset_occ(b[i].body, b[i].nbody);
    }
}

static void prog_run(prog *p, ref *R, uint64_t seed)
{
    memset(R, 0, sizeof *R);
    R->tsalt = seed;
    R->clock = 1000000;
    reset_occ(p->top, p->ntop);
    exec_block(R, p->top, p->ntop, NULL, 0);
}

/* ============================================================ queue -> trace */

enum { PUSH_GROUP, PUSH_CHUNK };

/* The caller's staging area: rebuilt for every push and scribbled over
 * afterwards, as the recorder reuses it for the next group. */
typedef struct stage {
    siot_raw *r;
    size_t cap;
    uint8_t *pool;
    size_t plen, pcap;
} stage;

static void stage_free(stage *S)
{
    free(S->r);
    free(S->pool);
    memset(S, 0, sizeof *S);
}

static uint32_t stage_fill(stage *S, const ref *R, size_t e0, size_t e1)
{
    size_t n = e1 - e0;
    if (n > S->cap) {
        S->cap = n + 64;
        S->r = realloc(S->r, S->cap * sizeof *S->r);
        if (!S->r)
            abort();
    }
    S->plen = 0;
    for (size_t k = e0; k < e1; k++) {
        siot_raw *r = &S->r[k - e0];
        *r = R->ev[k];
        if (r->parent >= 0)
            r->parent = (int32_t)((int64_t)(k - e0) - R->dist[k]);
        for (uint32_t a = 0; a < r->nargs; a++) {
            siot_rawval *v = &r->args[a];
            if (v->kind != SIOT_RV_STR && v->kind != SIOT_RV_ARR)
                continue;
            size_t len = v->kind == SIOT_RV_STR ? v->n : (size_t)v->n * 8;
            size_t off = (S->plen + 7) & ~(size_t)7;
            if (off + len + 8 > S->pcap) {
                size_t cap = S->pcap ? S->pcap : 1024;
                while (cap < off + len + 8)
                    cap *= 2;
                S->pool = realloc(S->pool, cap);
                if (!S->pool)
                    abort();
                S->pcap = cap;
            }
            if (len)
                memcpy(S->pool + off, R->pool + v->i, len);
            v->i = (int64_t)off;
            S->plen = off + len;
        }
    }
    if (!S->pool) {
        S->pool = malloc(64);
        S->pcap = 64;
    }
    return (uint32_t)n;
}

typedef struct built {
    siot_arena arena; /* the queue's: nodes live here */
    siot_queue q;
    siot_trace t;
    int push_rc;
} built;

/* A trace over nodes the caller owns (never siot_trace_free'd). */
static void trace_wrap(siot_trace *t, siot_node **top, uint32_t ntop, uint32_t nranks)
{
    siot_trace_init(t);
    t->nranks = nranks;
    t->flags = SIOT_TF_COMPRESSED;
    t->exe = "test_fold";
    t->flavour = "unit";
    t->host = "localhost";
    t->version = "0";
    t->funcs = FUNCS;
    t->nfuncs = NF;
    t->nmodules = 1;
    t->modules = MODULES;
    t->nsites = NSITES;
    t->sites = SITES;
    t->ntop = ntop;
    t->top = top;
    siot_trace_index(t);
}

static int force_scan; /* the fold scans the window instead of using its index */

static built *build(const ref *R, int32_t rank, int compress, uint32_t window, int mode, uint64_t seed)
{
    built *b = calloc(1, sizeof *b);
    if (!b)
        abort();
    siot_arena_init(&b->arena);
    siot_queue_init(&b->q, &b->arena, rank, compress, window);
    b->q.noindex = force_scan;
    stage S;
    memset(&S, 0, sizeof S);
    rng cr = {seed ^ 0xc0ffeeULL};
    for (size_t g = 0; g < R->ng;) {
        size_t g1 = g + 1;
        if (mode == PUSH_CHUNK)
            g1 = g + 1 + rbelow(&cr, 8);
        if (g1 > R->ng)
            g1 = R->ng;
        size_t e0 = R->gstart[g], e1 = g1 < R->ng ? R->gstart[g1] : R->n;
        uint32_t n = stage_fill(&S, R, e0, e1);
        if (siot_queue_push(&b->q, S.r, n, S.pool) != 0)
            b->push_rc = -1;
        memset(S.pool, 0xa5, S.pcap);
        memset(S.r, 0x5a, n * sizeof *S.r);
        g = g1;
    }
    if (siot_queue_finish(&b->q) != 0)
        b->push_rc = -1;
    stage_free(&S);
    trace_wrap(&b->t, b->q.nodes, b->q.n, (uint32_t)rank + 1);
    return b;
}

static void built_free(built *b)
{
    siot_arena_free(&b->t.arena); /* what the final pass added */
    siot_queue_free(&b->q);
    siot_arena_free(&b->arena);
    free(b);
}

/* ============================================================ checker */

static uint64_t events_compared;

static void put_value(char *out, size_t len, const siot_value *v)
{
    size_t pos = 0;
    switch (v->kind) {
    case SIOT_V_NONE:
        snprintf(out, len, "-");
        break;
    case SIOT_V_INT:
        snprintf(out, len, "%" PRId64, v->i);
        break;
    case SIOT_V_STR:
        snprintf(out, len, "\"%.*s\"", (int)(v->slen > 200 ? 200 : v->slen), v->s);
        break;
    case SIOT_V_ARR:
        pos += (size_t)snprintf(out, len, "[");
        for (uint32_t k = 0; k < v->n && pos < len; k++)
            pos += (size_t)snprintf(out + pos, len - pos, "%s%" PRId64, k ? "," : "", v->arr[k]);
        if (pos < len)
            snprintf(out + pos, len - pos, "]");
        break;
    }
}

static void put_raw(char *out, size_t len, const siot_rawval *r, const uint8_t *pool)
{
    siot_value v;
    memset(&v, 0, sizeof v);
    v.kind = r->kind == SIOT_RV_INT ? SIOT_V_INT : r->kind == SIOT_RV_STR ? SIOT_V_STR
           : r->kind == SIOT_RV_ARR ? SIOT_V_ARR : SIOT_V_NONE;
    v.i = r->i;
    v.s = (const char *)pool + r->i;
    v.slen = r->n;
    int64_t tmp[96];
    if (r->kind == SIOT_RV_ARR) {
        memcpy(tmp, pool + r->i, (r->n < 96 ? r->n : 96) * 8);
        v.arr = tmp;
        v.n = r->n < 96 ? r->n : 96;
    }
    put_value(out, len, &v);
}

static int int_matches(const siot_expr *x, const siot_ctx *c, siot_vbuf *scratch, int64_t want, int64_t *got)
{
    siot_value v;
    if (siot_eval(x, c, scratch, &v) != 0 || v.kind != SIOT_V_INT) {
        *got = INT64_MIN;
        return 0;
    }
    *got = v.i;
    return v.i == want;
}

static int arg_matches(const siot_expr *x, const siot_ctx *c, siot_vbuf *scratch, const siot_rawval *r,
                       const uint8_t *pool, siot_value *got)
{
    if (siot_eval(x, c, scratch, got) != 0)
        return 0;
    switch (r->kind) {
    case SIOT_RV_NONE:
        return got->kind == SIOT_V_NONE;
    case SIOT_RV_INT:
        return got->kind == SIOT_V_INT && got->i == r->i;
    case SIOT_RV_STR:
        return got->kind == SIOT_V_STR && got->slen == r->n && (r->n == 0 || memcmp(got->s, pool + r->i, r->n) == 0);
    case SIOT_RV_ARR:
        if (got->kind != SIOT_V_ARR || got->n != r->n)
            return 0;
        for (uint32_t k = 0; k < r->n; k++) {
            int64_t e;
            memcpy(&e, pool + r->i + 8 * (size_t)k, 8);
            if (got->arr[k] != e)
                return 0;
        }
        return 1;
    }
    return 0;
}

static void describe_ctx(const siot_ctx *c)
{
    fprintf(stderr, "    context: depth %u, iterations (innermost first)", c->depth);
    for (uint32_t k = 0; k < c->depth; k++)
        fprintf(stderr, " %" PRIu64, c->iter[k]);
    fprintf(stderr, ", occurrence %" PRIu64 "\n", c->occurrence);
}

static void describe_expr(const char *what, const siot_expr *x)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    siot_x_format(x, &b);
    fprintf(stderr, "    %s expression: %.*s\n", what, (int)(b.len > 600 ? 600 : b.len), b.data ? (char *)b.data : "");
    siot_vbuf_free(&b);
}

/* Expands rank's events of t and compares them with R. fmap maps t's function
 * indices to FUNCS (NULL: the same table). Prints the first difference. */
static int same_events(const siot_trace *t, int64_t rank, const ref *R, const uint32_t *fmap, const char *label,
                       uint64_t seed)
{
    siot_iter it;
    if (siot_iter_init(&it, t, rank) != 0)
        return 0;
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    siot_ctx c;
    const siot_node *n;
    size_t k = 0;
    int ok = 1;
    char a1[512], a2[512];
    while ((n = siot_iter_next(&it, &c))) {
        if (k >= R->n) {
            fprintf(stderr, "seed %" PRIu64 " [%s]: the trace has more events than the %zu recorded\n", seed, label,
                    R->n);
            ok = 0;
            break;
        }
        const siot_raw *r = &R->ev[k];
        const siot_event *e = &n->u.ev;
        uint32_t f = fmap ? (e->func < t->nfuncs ? fmap[e->func] : UINT32_MAX) : e->func;
        const char *bad = NULL;
        int64_t got = 0, want = 0;
        if (f != r->func)
            bad = "function", got = f, want = r->func;
        else if (e->site != r->site)
            bad = "site", got = e->site, want = r->site;
        else if (!int_matches(e->thread, &c, &scratch, r->thread, &got))
            bad = "thread", want = r->thread;
        else if (!int_matches(e->parent, &c, &scratch, R->dist[k], &got))
            bad = "parent", want = R->dist[k];
        else if (!int_matches(e->ret, &c, &scratch, r->ret, &got))
            bad = "ret", want = r->ret;
        else if (!int_matches(e->err, &c, &scratch, r->err, &got))
            bad = "err", want = r->err;
        else if (!int_matches(e->bytes, &c, &scratch, r->bytes, &got))
            bad = "bytes", want = r->bytes;
        else if (e->nargs != r->nargs)
            bad = "nargs", got = e->nargs, want = r->nargs;
        if (bad) {
            fprintf(stderr, "seed %" PRIu64 " [%s]: event %zu (%s): %s is %" PRId64 ", expected %" PRId64 "\n", seed,
                    label, k, FUNCS[r->func].name, bad, got, want);
            describe_ctx(&c);
            const siot_expr *x = !strcmp(bad, "thread") ? e->thread : !strcmp(bad, "parent") ? e->parent
                               : !strcmp(bad, "ret") ? e->ret : !strcmp(bad, "err") ? e->err
                               : !strcmp(bad, "bytes") ? e->bytes : NULL;
            if (x)
                describe_expr(bad, x);
            ok = 0;
            break;
        }
        for (uint32_t a = 0; a < e->nargs; a++) {
            siot_value v;
            if (!arg_matches(e->args[a], &c, &scratch, &r->args[a], R->pool, &v)) {
                memset(a1, 0, sizeof a1);
                put_raw(a1, sizeof a1, &r->args[a], R->pool);
                if (siot_eval(e->args[a], &c, &scratch, &v) == 0)
                    put_value(a2, sizeof a2, &v);
                else
                    snprintf(a2, sizeof a2, "(cannot be evaluated)");
                fprintf(stderr, "seed %" PRIu64 " [%s]: event %zu (%s): argument %u (%s) is %s, expected %s\n", seed,
                        label, k, FUNCS[r->func].name, a, FUNCS[r->func].argnames[a], a2, a1);
                describe_ctx(&c);
                describe_expr("argument", e->args[a]);
                ok = 0;
                break;
            }
        }
        if (!ok)
            break;
        k++;
    }
    if (ok && it.err) {
        fprintf(stderr, "seed %" PRIu64 " [%s]: walk error after %zu events: %s\n", seed, label, k, it.err);
        ok = 0;
    }
    if (ok && k != R->n) {
        fprintf(stderr, "seed %" PRIu64 " [%s]: %zu events expanded, %zu recorded\n", seed, label, k, R->n);
        ok = 0;
    }
    events_compared += k;
    siot_iter_free(&it);
    siot_vbuf_free(&scratch);
    return ok;
}

/* Timing histograms, summed over every event node: as many samples as events,
 * and the same extremes. */
typedef struct hsum {
    uint64_t dcount, ccount, dmin, dmax, cmin, cmax;
} hsum;

static void hsum_node(const siot_node *n, hsum *h)
{
    if (n->kind == SIOT_N_LOOP) {
        for (uint32_t i = 0; i < n->u.loop.nbody; i++)
            hsum_node(n->u.loop.body[i], h);
        return;
    }
    const siot_hist *d = &n->u.ev.dur, *c = &n->u.ev.comp;
    h->dcount += d->count;
    h->ccount += c->count;
    if (d->count && d->min < h->dmin)
        h->dmin = d->min;
    if (d->count && d->max > h->dmax)
        h->dmax = d->max;
    if (c->count && c->min < h->cmin)
        h->cmin = c->min;
    if (c->count && c->max > h->cmax)
        h->cmax = c->max;
}

static int near(double a, double b, double rel) { return fabs(a - b) <= rel * (fabs(b) > 1 ? fabs(b) : 1); }

/* How near a file's mean and M2 are to the exact ones: 3-byte floats of the
 * mean and standard deviation (docs/format.md, minor 2) are within 2^-18,
 * M2 within twice that; in memory, exact but for the summation order. */
static double mean_tol(int file_form) { return file_form ? 4e-6 : 1e-12; }
/* the file form's standard deviation to 2^-10 (2 bytes, format minor 6),
 * so M2 = count*sd^2 to twice that */
static double m2_tol(int file_form) { return file_form ? 2e-3 : 1e-9; }

/* A time as a file keeps it (docs/format.md, flag 16): to 0.1%, exact below
 * 1024 ns. In memory and between ranks times are exact. */
static int time_close(uint64_t got, uint64_t want, int file_form)
{
    if (got == want)
        return 1;
    if (!file_form || want < 1024)
        return 0;
    uint64_t d = got > want ? got - want : want - got;
    return d * 1000 <= want;
}

static int hist_totals_ok(const siot_trace *t, const ref *R, const char *label, uint64_t seed)
{
    int file_form = (t->flags & SIOT_TF_QBINS) != 0;
    hsum got = {0, 0, UINT64_MAX, 0, UINT64_MAX, 0}, want = {0, 0, UINT64_MAX, 0, UINT64_MAX, 0};
    for (uint32_t i = 0; i < t->ntop; i++)
        hsum_node(t->top[i], &got);
    for (size_t k = 0; k < R->n; k++) {
        uint64_t d = R->ev[k].t_end - R->ev[k].t_start, c = R->ev[k].comp;
        want.dcount++, want.ccount++;
        want.dmin = d < want.dmin ? d : want.dmin;
        want.dmax = d > want.dmax ? d : want.dmax;
        want.cmin = c < want.cmin ? c : want.cmin;
        want.cmax = c > want.cmax ? c : want.cmax;
    }
    if (got.dcount != want.dcount || got.ccount != want.ccount || !time_close(got.dmin, want.dmin, file_form) ||
        !time_close(got.dmax, want.dmax, file_form) || !time_close(got.cmin, want.cmin, file_form) ||
        !time_close(got.cmax, want.cmax, file_form)) {
        fprintf(stderr,
                "seed %" PRIu64 " [%s]: histogram totals: durations %" PRIu64 " samples in [%" PRIu64 ",%" PRIu64
                "], computation %" PRIu64 " in [%" PRIu64 ",%" PRIu64 "]; expected %" PRIu64 " in [%" PRIu64
                ",%" PRIu64 "], %" PRIu64 " in [%" PRIu64 ",%" PRIu64 "]\n",
                seed, label, got.dcount, got.dmin, got.dmax, got.ccount, got.cmin, got.cmax, want.dcount, want.dmin,
                want.dmax, want.ccount, want.cmin, want.cmax);
        return 0;
    }
    return 1;
}

/* The histograms of a decoded node tree against the encoded one: count,
 * mean, M2 and the maximum's place exact, min and max to the file's
 * precision, bins exact while the count is under 255 (fractions in 255ths;
 * a single sample's bin is that of its rounded value). */
static int same_hist(const siot_hist *a, const siot_hist *d, int file_form)
{
    if (a->count != d->count)
        return 0;
    if (a->count == 0)
        return 1;
    if (!time_close(d->min, a->min, file_form) || !time_close(d->max, a->max, file_form) ||
        d->max_occ != a->max_occ || d->max_rank != a->max_rank)
        return 0;
    if (a->count > 1 && (!near(d->mean, a->mean, mean_tol(file_form)) || !near(d->m2, a->m2, m2_tol(file_form))))
        return 0;
    /* (one sample has no bins of its own: its bin follows the rounded min) */
    for (unsigned b = 0; (!file_form || (a->count > 1 && a->count < 255)) && b < SIOT_HBINS; b++)
        if (siot_hist_bin_count(a, b) != siot_hist_bin_count(d, b))
            return 0;
    return 1;
}

static int same_hists(const siot_node *a, const siot_node *d, int file_form, uint64_t seed, const char *label)
{
    if (a->kind != d->kind)
        return 0;
    if (a->kind == SIOT_N_LOOP) {
        if (a->u.loop.nbody != d->u.loop.nbody)
            return 0;
        for (uint32_t i = 0; i < a->u.loop.nbody; i++)
            if (!same_hists(a->u.loop.body[i], d->u.loop.body[i], file_form, seed, label))
                return 0;
        return 1;
    }
    const siot_hist *h[2][2] = {{&a->u.ev.comp, &d->u.ev.comp}, {&a->u.ev.dur, &d->u.ev.dur}};
    static unsigned reports;
    for (int k = 0; k < 2; k++) {
        if (same_hist(h[k][0], h[k][1], file_form))
            continue;
        if (reports++ >= 5)
            return 0; /* the first five tell the story */
        fprintf(stderr,
                "seed %" PRIu64 " [%s]: node %u (%s): %s histogram: count %" PRIu64 " min %" PRIu64 " max %" PRIu64
                " read back as count %" PRIu64 " min %" PRIu64 " max %" PRIu64 "\n  bins:",
                seed, label, a->id, FUNCS[a->u.ev.func].name, k ? "duration" : "computation", h[k][0]->count,
                h[k][0]->min, h[k][0]->max, h[k][1]->count, h[k][1]->min, h[k][1]->max);
        for (unsigned b = 0; b < SIOT_HBINS; b++)
            if (siot_hist_bin_count(h[k][0], b) || siot_hist_bin_count(h[k][1], b))
                fprintf(stderr, " [%u] %" PRIu64 "/%" PRIu64, b, siot_hist_bin_count(h[k][0], b),
                        siot_hist_bin_count(h[k][1], b));
        fprintf(stderr, "\n");
        return 0;
    }
    return 1;
}

/* Traces read back, and those whose histograms came back wrong (checked
 * once per test section by hist_roundtrips_ok). */
static uint64_t hist_rt_total, hist_rt_bad;

static void hist_roundtrips_ok(const char *section)
{
    if (hist_rt_bad)
        fprintf(stderr, "%s: the histograms of %" PRIu64 " of %" PRIu64 " traces read back differ (first ones above)\n",
                section, hist_rt_bad, hist_rt_total);
    CHECK(hist_rt_bad == 0);
    hist_rt_bad = hist_rt_total = 0;
}

/* Encodes t, decodes it and compares the decoded events with R (returned)
 * and the decoded histograms with t's (counted in hist_rt_bad). */
static int roundtrip_ok(const siot_trace *t, int64_t rank, const ref *R, const char *label, uint64_t seed,
                        size_t *encoded)
{
    siot_vbuf buf;
    siot_vbuf_init(&buf);
    int ok = siot_trace_encode(t, &buf) == 0;
    if (encoded)
        *encoded = buf.len;
    siot_trace d;
    char err[256] = "";
    if (ok && siot_trace_decode(buf.data, buf.len, &d, err, sizeof err) != 0) {
        fprintf(stderr, "seed %" PRIu64 " [%s]: the encoded trace does not decode: %s\n", seed, label, err);
        ok = 0;
    } else if (ok) {
        uint32_t fmap[NF + 1];
        for (uint32_t i = 0; i < d.nfuncs && i <= NF; i++) {
            fmap[i] = UINT32_MAX;
            for (uint32_t j = 0; j < NF; j++)
                if (strcmp(d.funcs[i].name, FUNCS[j].name) == 0)
                    fmap[i] = j;
        }
        char l2[64];
        snprintf(l2, sizeof l2, "%s, decoded", label);
        ok = d.nfuncs <= NF && same_events(&d, rank, R, fmap, l2, seed);
        /* timing is checked apart: it does not make the events wrong */
        int hists = d.ntop == t->ntop && hist_totals_ok(&d, R, l2, seed);
        for (uint32_t i = 0; hists && i < t->ntop; i++)
            hists = same_hists(t->top[i], d.top[i], (d.flags & SIOT_TF_QBINS) != 0, seed, l2);
        hist_rt_total++;
        hist_rt_bad += !hists;
        siot_trace_free(&d);
    }
    siot_vbuf_free(&buf);
    return ok;
}

/* ============================================================ 1. + 2. lossless property */

typedef struct config {
    const char *name;
    int compress;
    uint32_t window;
    int mode;
    int roundtrip;
} config;

static const config CONFIGS[] = {
    {"compress, window 256", 1, 256, PUSH_GROUP, 1},
    {"no compression", 0, 256, PUSH_GROUP, 0},
    {"compress, window 1, chunks", 1, 1, PUSH_CHUNK, 0},
    {"compress, window 2", 1, 2, PUSH_GROUP, 0},
    {"compress, window 4, chunks", 1, 4, PUSH_CHUNK, 1},
};

static uint64_t depth_seen[8]; /* compressed traces by loop nesting depth */
static uint64_t loops_split, programs_renested; /* by the final pass */
static uint64_t values_refolded;                 /* by the job's last pass (ranges) */
static size_t max_events;

/* The fold's index finds the same folds as trying every length in the
 * window: the two traces encode to the same bytes. */
static int same_as_scan(const built *b, const ref *R, int32_t rank, const config *cf, uint64_t seed)
{
    force_scan = 1;
    built *s = build(R, rank, cf->compress, cf->window, cf->mode, seed);
    force_scan = 0;
    siot_vbuf x, y;
    siot_vbuf_init(&x);
    siot_vbuf_init(&y);
    int ok = siot_trace_encode(&b->t, &x) == 0 && siot_trace_encode(&s->t, &y) == 0 && x.len == y.len &&
             memcmp(x.data, y.data, x.len) == 0;
    if (!ok)
        fprintf(stderr, "seed %" PRIu64 " [%s]: the indexed fold differs from the scanning one\n", seed, cf->name);
    siot_vbuf_free(&x);
    siot_vbuf_free(&y);
    built_free(s);
    return ok;
}

static int run_seed(uint64_t seed, int verbose, uint64_t *nevents, uint64_t *nnodes)
{
    prog p;
    ref R;
    prog_gen(&p, seed);
    prog_run(&p, &R, seed);
    if (verbose) {
        fprintf(stderr, "seed %" PRIu64 ": %zu events in %zu groups\n", seed, R.n, R.ng);
        print_block(p.top, p.ntop, 2);
    }
    int32_t rank = (int32_t)(seed % 3);
    int all_ok = 1;
    for (size_t ci = 0; ci < sizeof CONFIGS / sizeof CONFIGS[0]; ci++) {
        const config *cf = &CONFIGS[ci];
        built *b = build(&R, rank, cf->compress, cf->window, cf->mode, seed);
        int ok = b->push_rc == 0;
        if (!ok)
            fprintf(stderr, "seed %" PRIu64 " [%s]: push or finish failed\n", seed, cf->name);
        CHECK(ok);
        ok = same_events(&b->t, rank, &R, NULL, cf->name, seed);
        CHECK(ok);
        all_ok &= ok;
        ok = hist_totals_ok(&b->t, &R, cf->name, seed);
        CHECK(ok);
        all_ok &= ok;
        CHECK(b->q.events == R.n);
        if (!cf->compress) {
            CHECK(b->q.n == R.n); /* one node per event */
        } else {
            CHECK(b->t.nnodes <= R.n);
            if (ci == 0) {
                *nevents += R.n;
                *nnodes += b->t.nnodes;
                depth_seen[b->t.max_depth < 8 ? b->t.max_depth : 7]++;
                if (R.n > max_events)
                    max_events = R.n;
            }
        }
        if (cf->roundtrip) {
            ok = roundtrip_ok(&b->t, rank, &R, cf->name, seed, NULL);
            CHECK(ok);
            all_ok &= ok;
        }
        if (cf->compress) {
            ok = same_as_scan(b, &R, rank, cf, seed);
            CHECK(ok);
            all_ok &= ok;
        }
        if (cf->compress) { /* the final pass (compress/renest.h) loses nothing either */
            uint32_t split = siot_renest(&b->t);
            loops_split += split;
            programs_renested += split > 0;
            if (split) {
                ok = same_events(&b->t, rank, &R, NULL, "renested", seed) &&
                     roundtrip_ok(&b->t, rank, &R, "renested", seed, NULL);
                CHECK(ok);
                all_ok &= ok;
            }
        }
        if (cf->compress) { /* and the job's last pass (compress/rankfold.h) */
            uint32_t n = siot_rank_periodic(&b->t);
            values_refolded += n;
            if (n) {
                ok = same_events(&b->t, rank, &R, NULL, "refolded", seed) &&
                     roundtrip_ok(&b->t, rank, &R, "refolded", seed, NULL);
                CHECK(ok);
                all_ok &= ok;
            }
        }
        if (verbose) {
            fprintf(stderr, "  [%s] %u top nodes, %u nodes:\n", cf->name, b->t.ntop, b->t.nnodes);
            if (ci == 0)
                siot_dump_human(&b->t, "(compressed)", stderr, 1);
        }
        built_free(b);
    }
    static unsigned printed;
    if (!all_ok && !verbose && printed++ < 3) {
        fprintf(stderr, "seed %" PRIu64 " failed; its program (%zu events):\n", seed, R.n);
        print_block(p.top, p.ntop, 2);
    }
    ref_free(&R);
    prog_free(&p);
    return all_ok;
}

static void test_lossless(void)
{
    const char *one = getenv("SIOT_FOLD_SEED");
    if (one) {
        uint64_t ev = 0, nodes = 0;
        run_seed(strtoull(one, NULL, 0), 1, &ev, &nodes);
        return;
    }
    const char *ns = getenv("SIOT_FOLD_SEEDS");
    uint64_t nseeds = ns ? strtoull(ns, NULL, 0) : 300;
    uint64_t failed = 0, ev = 0, nodes = 0;
    for (uint64_t seed = 1; seed <= nseeds; seed++)
        if (!run_seed(seed, 0, &ev, &nodes))
            failed++;
    if (failed)
        fprintf(stderr, "lossless: %" PRIu64 " of %" PRIu64 " programs failed\n", failed, nseeds);
    hist_roundtrips_ok("lossless");
    printf("lossless: %" PRIu64 " programs, %" PRIu64 " events (at most %zu), %" PRIu64 " nodes when compressed, "
           "%" PRIu64 " events compared in all\n",
           nseeds, ev, max_events, nodes, events_compared);
    printf("lossless: the final pass split %" PRIu64 " loops in %" PRIu64 " traces\n", loops_split, programs_renested);
    printf("lossless: the job's last pass rewrote %" PRIu64 " values (arrays as ranges)\n", values_refolded);
    printf("lossless: compressed loop depth 0..5+:");
    for (int d = 0; d < 6; d++)
        printf(" %" PRIu64, d < 5 ? depth_seen[d] : depth_seen[5] + depth_seen[6] + depth_seen[7]);
    printf("\n");
}

/* ============================================================ 3. structure */

/* A compressing queue of rank 0 with a window of 256, on a fresh arena. */
static siot_queue *queue_new(siot_arena *a)
{
    siot_arena_init(a);
    siot_queue *q = malloc(sizeof *q);
    if (!q)
        abort();
    siot_queue_init(q, a, 0, 1, 256);
    return q;
}

static siot_raw mkraw(uint32_t func, uint32_t site)
{
    siot_raw r;
    memset(&r, 0, sizeof r);
    r.func = func;
    r.site = site;
    r.parent = -1;
    r.nargs = FUNCS[func].nargs;
    return r;
}

static int64_t const_val(const siot_expr *x)
{
    return x && x->tag == SIOT_X_CONST ? x->base : INT64_MIN;
}

static int is_affine(const siot_expr *x, int64_t base, const int64_t *coef, uint32_t n)
{
    if (!x || x->tag != SIOT_X_AFFINE || x->base != base || x->rcoef != 0)
        return 0;
    for (uint32_t k = 0; k < (x->n > n ? x->n : n); k++)
        if ((k < x->n ? x->u.coef[k] : 0) != (k < n ? coef[k] : 0))
            return 0;
    return 1;
}

/* 10 x [open("file_<k>.dat"), 100 x pwrite(3, -, 64, 64*j), close(3)] */
static void test_classic(void)
{
    ref R;
    memset(&R, 0, sizeof R);
    R.clock = 1000;
    for (int k = 0; k < 10; k++) {
        char name[64];
        snprintf(name, sizeof name, "file_%d.dat", k);
        siot_raw r = mkraw(F_OPEN, 1);
        r.args[0] = rv_str(&R, name);
        r.args[1] = rv_int(65);
        r.args[2] = rv_int(0644);
        r.ret = 3;
        ref_time(&R, &r);
        ref_group(&R);
        ref_add(&R, &r);
        for (int j = 0; j < 100; j++) {
            r = mkraw(F_PWRITE, 2);
            r.args[0] = rv_int(3);
            r.args[1] = rv_none();
            r.args[2] = rv_int(64);
            r.args[3] = rv_int(64 * j);
            r.ret = r.bytes = 64;
            ref_time(&R, &r);
            ref_group(&R);
            ref_add(&R, &r);
        }
        r = mkraw(F_CLOSE, 11);
        r.args[0] = rv_int(3);
        ref_time(&R, &r);
        ref_group(&R);
        ref_add(&R, &r);
    }
    built *b = build(&R, 0, 1, 256, PUSH_GROUP, 0);
    CHECK(b->push_rc == 0);
    CHECK(same_events(&b->t, 0, &R, NULL, "classic", 0));
    CHECK(roundtrip_ok(&b->t, 0, &R, "classic", 0, NULL));

    /* one loop of 10: [open, loop of 100: [pwrite], close] */
    CHECK_EQ_I64(b->q.n, 1);
    siot_node *L = b->q.n ? b->q.nodes[0] : NULL;
    CHECK(L && L->kind == SIOT_N_LOOP);
    if (!L || L->kind != SIOT_N_LOOP || L->u.loop.nbody != 3) {
        CHECK(!"classic: the top loop does not have a body of 3");
        built_free(b);
        ref_free(&R);
        return;
    }
    CHECK_EQ_I64(const_val(L->u.loop.count), 10);
    siot_node *op = L->u.loop.body[0], *in = L->u.loop.body[1], *cl = L->u.loop.body[2];
    CHECK(op->kind == SIOT_N_EVENT && op->u.ev.func == F_OPEN);
    CHECK(cl->kind == SIOT_N_EVENT && cl->u.ev.func == F_CLOSE);
    CHECK(in->kind == SIOT_N_LOOP);
    if (in->kind == SIOT_N_LOOP) {
        CHECK(siot_x_is_const(in->u.loop.count));
        uint64_t it0[1] = {7};
        siot_ctx c1 = {.rank = 0, .depth = 1, .iter = it0, .occurrence = 7};
        CHECK_EQ_I64(siot_eval_int(in->u.loop.count, &c1, -1), 100);
        CHECK_EQ_I64(in->u.loop.nbody, 1);
        const siot_node *w = in->u.loop.body[0];
        CHECK(w->kind == SIOT_N_EVENT && w->u.ev.func == F_PWRITE);
        if (w->kind == SIOT_N_EVENT) {
            const int64_t c64[1] = {64};
            CHECK(is_affine(w->u.ev.args[3], 0, c64, 1)); /* offset = 64 * innermost index */
            CHECK_EQ_I64(const_val(w->u.ev.args[2]), 64);
            CHECK_EQ_I64(const_val(w->u.ev.args[0]), 3);
            CHECK_EQ_I64(w->u.ev.dur.count, 1000);
        }
    }
    if (op->kind == SIOT_N_EVENT) {
        const siot_expr *name = op->u.ev.args[0];
        CHECK(name->tag == SIOT_X_STR);
        int progressing = 0;
        for (uint32_t s = 0; name->tag == SIOT_X_STR && s < name->n; s++)
            if (name->u.segs[s].is_field && siot_x_depends(name->u.segs[s].field, 0))
                progressing = 1;
        CHECK(progressing);
        siot_vbuf scratch;
        siot_vbuf_init(&scratch);
        static const uint64_t ITS[3] = {0, 3, 9};
        for (int i = 0; i < 3; i++) {
            char want[64];
            snprintf(want, sizeof want, "file_%d.dat", (int)ITS[i]);
            siot_ctx c = {.rank = 0, .depth = 1, .iter = &ITS[i], .occurrence = ITS[i]};
            siot_value v;
            CHECK(siot_eval(name, &c, &scratch, &v) == 0 && v.kind == SIOT_V_STR && v.slen == strlen(want) &&
                  memcmp(v.s, want, v.slen) == 0);
        }
        siot_vbuf_free(&scratch);
        CHECK_EQ_I64(const_val(op->u.ev.ret), 3);
        CHECK_EQ_I64(op->u.ev.dur.count, 10);
    }
    built_free(b);
    ref_free(&R);
}

/* N x pwrite(3, -, 64, 64*i): one loop node of count N whose offset is AFFINE;
 * returns the pool's live bytes and the arena's used bytes. */
static void long_loop(uint64_t N, size_t *live, size_t *used, size_t *peak)
{
    siot_arena a;
    siot_queue *q = queue_new(&a);
    siot_raw r = mkraw(F_PWRITE, 2);
    r.args[0] = rv_int(3);
    r.args[1] = rv_none();
    r.args[2] = rv_int(64);
    r.ret = r.bytes = 64;
    uint8_t pool[8] = {0};
    int rc = 0;
    for (uint64_t i = 0; i < N; i++) {
        r.args[3] = rv_int((int64_t)(64 * i));
        r.t_start = 1000 * i;
        r.t_end = r.t_start + 300 + i % 7;
        r.comp = 100 + i % 3;
        rc |= siot_queue_push(q, &r, 1, pool);
    }
    rc |= siot_queue_finish(q);
    CHECK(rc == 0);
    CHECK_EQ_I64(q->n, 1);
    const siot_node *L = q->n ? q->nodes[0] : NULL;
    CHECK(L && L->kind == SIOT_N_LOOP);
    if (L && L->kind == SIOT_N_LOOP) {
        CHECK_EQ_I64(const_val(L->u.loop.count), (int64_t)N);
        CHECK_EQ_I64(L->u.loop.nbody, 1);
        const siot_node *w = L->u.loop.body[0];
        const int64_t c64[1] = {64};
        CHECK(w->kind == SIOT_N_EVENT && is_affine(w->u.ev.args[3], 0, c64, 1)); /* not a run table */
        CHECK(w->u.ev.args[3]->tag != SIOT_X_SEQL);
        CHECK_EQ_I64(w->u.ev.dur.count, N);
        CHECK_EQ_I64(w->u.ev.dur.min, 300);
        CHECK_EQ_I64(w->u.ev.dur.max, 306);
        CHECK_EQ_I64(w->u.ev.dur.max_occ, 6);
        uint64_t last = N - 1;
        siot_ctx c = {.rank = 0, .depth = 1, .iter = &last, .occurrence = last};
        CHECK_EQ_I64(siot_eval_int(w->u.ev.args[3], &c, -1), (int64_t)(64 * last));
    }
    *live = q->pool.live;
    *peak = q->pool.peak;
    *used = a.used_bytes;
    siot_queue_free(q);
    free(q);
    siot_arena_free(&a);
}

static void test_long_loop(void)
{
    size_t live_k, used_k, peak_k, live_m, used_m, peak_m;
    long_loop(1000, &live_k, &used_k, &peak_k);
    long_loop(1000000, &live_m, &used_m, &peak_m);
    printf("long loop: 1e3 iterations: pool live %zu peak %zu, arena %zu bytes; 1e6: %zu, %zu, %zu\n", live_k,
           peak_k, used_k, live_m, peak_m, used_m);
    CHECK(live_m < 64 * 1024 && peak_m < 64 * 1024);
    CHECK(used_m < 64 * 1024);
    /* independent of the count: at most a couple of small blocks more (a count
     * above the interned constants is allocated rather than shared) */
    CHECK(live_m <= live_k + 256);
    CHECK(used_m <= used_k + 256);
}

static int all_counts_const(const siot_node *n)
{
    if (n->kind != SIOT_N_LOOP)
        return 1;
    if (n->u.loop.count->tag != SIOT_X_CONST)
        return 0;
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        if (!all_counts_const(n->u.loop.body[i]))
            return 0;
    return 1;
}

/* 5 x [open, 4 x pwrite]: a body that ends with a loop. The inner loop at
 * the tail is still growing when the next open arrives, so it must not be
 * merged with a shorter copy of itself: whatever the shape, a handful of
 * nodes and only constant counts. (Today's shape is the rotation
 * open, 4 x [4 x pwrite, open], 4 x pwrite: 7 nodes.) */
static void test_tail_loop(void)
{
    ref R;
    memset(&R, 0, sizeof R);
    for (int j = 0; j < 5; j++) {
        siot_raw r = mkraw(F_OPEN, 1);
        r.args[0] = rv_str(&R, "a.dat");
        r.args[1] = rv_int(0);
        r.args[2] = rv_int(0);
        ref_time(&R, &r);
        ref_group(&R);
        ref_add(&R, &r);
        for (int i = 0; i < 4; i++) {
            r = mkraw(F_PWRITE, 2);
            r.args[0] = rv_int(3);
            r.args[1] = rv_none();
            r.args[2] = rv_int(8);
            r.args[3] = rv_int(8 * i);
            ref_time(&R, &r);
            ref_group(&R);
            ref_add(&R, &r);
        }
    }
    built *b = build(&R, 0, 1, 256, PUSH_GROUP, 0);
    CHECK(same_events(&b->t, 0, &R, NULL, "tail loop", 0));
    int consts = 1;
    for (uint32_t i = 0; i < b->q.n; i++)
        consts &= all_counts_const(b->q.nodes[i]);
    if (!consts || b->t.nnodes > 7) {
        fprintf(stderr, "tail loop: %u nodes:\n", b->t.nnodes);
        siot_dump_human(&b->t, "(tail loop)", stderr, 1);
    }
    CHECK(consts);
    CHECK(b->t.nnodes <= 7);
    built_free(b);
    ref_free(&R);
}

/* One call site N times, ret = vals[i] and path = names[i] (when names):
 * lossless, and returns the compressed trace for inspection. */
static built *one_site(ref *R, const int64_t *vals, const char *const *names, size_t n)
{
    memset(R, 0, sizeof *R);
    for (size_t i = 0; i < n; i++) {
        siot_raw r = mkraw(F_OPEN, 1);
        r.args[0] = rv_str(R, names ? names[i] : "x");
        r.args[1] = rv_int(0);
        r.args[2] = rv_int(0);
        r.ret = vals ? vals[i] : 3;
        ref_time(R, &r);
        ref_group(R);
        ref_add(R, &r);
    }
    built *b = build(R, 0, 1, 256, PUSH_GROUP, 0);
    CHECK(b->push_rc == 0);
    CHECK(same_events(&b->t, 0, R, NULL, "one site", 0));
    CHECK(roundtrip_ok(&b->t, 0, R, "one site", 0, NULL));
    return b;
}

static const siot_node *only_body_event(const built *b)
{
    if (b->q.n != 1 || b->q.nodes[0]->kind != SIOT_N_LOOP || b->q.nodes[0]->u.loop.nbody != 1)
        return NULL;
    const siot_node *e = b->q.nodes[0]->u.loop.body[0];
    return e->kind == SIOT_N_EVENT ? e : NULL;
}

/* Values constant for a while make one run per stretch; strings whose
 * zero-padded counter outgrows its width stay one pattern. */
static void test_runs(void)
{
    ref R;
    static const int64_t steps[] = {5, 5, 5, 9, 9, 9, 9, 2, 2};
    built *b = one_site(&R, steps, NULL, 9);
    const siot_node *e = only_body_event(b);
    CHECK(e != NULL);
    if (e) {
        CHECK(e->u.ev.ret->tag == SIOT_X_SEQL && e->u.ev.ret->level == 0);
        CHECK_EQ_I64(e->u.ev.ret->n, 3);
        CHECK_EQ_I64(e->u.ev.ret->len, 9);
    }
    built_free(b);
    ref_free(&R);

    static const int64_t drop[] = {5, 4, 4, 4, 4}; /* 5 then 4s, not a progression 5,4 broken */
    b = one_site(&R, drop, NULL, 5);
    e = only_body_event(b);
    CHECK(e && e->u.ev.ret->tag == SIOT_X_SEQL && e->u.ev.ret->n == 2);
    built_free(b);
    ref_free(&R);

    static const int64_t ramps[] = {0, 10, 20, 30, 100, 101, 102, 103, 104, 7, 7, 7};
    b = one_site(&R, ramps, NULL, 12);
    e = only_body_event(b);
    CHECK(e && e->u.ev.ret->tag == SIOT_X_SEQL && e->u.ev.ret->n == 3);
    built_free(b);
    ref_free(&R);

    /* plot_0990 .. plot_1009: %04d and %d agree from 1000 on */
    char buf[20][32];
    const char *names[20];
    for (int i = 0; i < 20; i++) {
        snprintf(buf[i], sizeof buf[i], "plot_%04d.dat", 990 + i);
        names[i] = buf[i];
    }
    b = one_site(&R, NULL, names, 20);
    e = only_body_event(b);
    CHECK(e != NULL);
    if (e) {
        const siot_expr *x = e->u.ev.args[0];
        const int64_t one[1] = {1};
        int ok = x->tag == SIOT_X_STR && x->n == 3 && x->u.segs[1].is_field && x->u.segs[1].zero_pad &&
                 x->u.segs[1].width == 4 && is_affine(x->u.segs[1].field, 990, one, 1);
        if (!ok)
            describe_expr("plot_%04d.dat", x);
        CHECK(ok);
    }
    built_free(b);
    ref_free(&R);

    /* a padded counter followed by a shorter unpadded one is another pattern */
    static const char *const shorter[] = {"p_0998", "p_0999", "p_12", "p_13", "p_0014", "q_07", "q_7"};
    b = one_site(&R, NULL, shorter, sizeof shorter / sizeof shorter[0]);
    built_free(b);
    ref_free(&R);

    /* and the other way, down through the width change, and negative values */
    static const char *const down[] = {"c_1002", "c_1001", "c_1000", "c_0999", "c_0998", "c_-1", "c_-01", "c_-001",
                                       "c_0",    "c_00",   "c_000",  "c_7",    "c_07",   "c_",   "c_1e5"};
    b = one_site(&R, NULL, down, sizeof down / sizeof down[0]);
    built_free(b);
    ref_free(&R);

    /* ends in the middle of an iteration of the tail loop: the pending part
     * is flushed by finish */
    memset(&R, 0, sizeof R);
    for (int i = 0; i < 7 * 3 + 2; i++) {
        siot_raw r = mkraw(i % 3 == 0 ? F_OPEN : i % 3 == 1 ? F_PWRITE : F_CLOSE, 1 + (uint32_t)(i % 3));
        for (uint32_t a = 0; a < r.nargs; a++)
            r.args[a] = KINDS[r.func][a] == K_STR ? rv_str(&R, "f_1") : rv_int(i / 3 * 10 + a);
        ref_time(&R, &r);
        ref_group(&R);
        ref_add(&R, &r);
    }
    b = build(&R, 0, 1, 256, PUSH_GROUP, 0);
    CHECK(same_events(&b->t, 0, &R, NULL, "partial iteration", 0));
    CHECK(b->q.n == 3 && b->q.nodes[0]->kind == SIOT_N_LOOP && const_val(b->q.nodes[0]->u.loop.count) == 7);
    built_free(b);
    ref_free(&R);
}

/* ============================================================ 4. constant size */

/* The bytes of a trace's timing histograms in the file form. Their exact
 * mean and M2 are integers (the sum of the samples, count x M2) whose length
 * grows with the log of the count, up to the 16 bytes of the two doubles they
 * replace: the size checks below hold the rest flat and these to that bound. */
static size_t hist_bytes(const siot_node *n, siot_vbuf *scratch)
{
    if (n->kind == SIOT_N_EVENT)
        return siot_hist_size(&n->u.ev.comp, SIOT_HIST_NO_EXPECT, scratch) +
               siot_hist_size(&n->u.ev.dur, SIOT_HIST_NO_EXPECT, scratch);
    size_t sum = 0;
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        sum += hist_bytes(n->u.loop.body[i], scratch);
    return sum;
}

static size_t trace_hist_bytes(const siot_trace *t)
{
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    size_t sum = 0;
    for (uint32_t i = 0; i < t->ntop; i++)
        sum += hist_bytes(t->top[i], &scratch);
    siot_vbuf_free(&scratch);
    return sum;
}

/* a within 5% of b and b of a */
static int within5(size_t a, size_t b) { return a * 100 <= b * 105 && b * 100 <= a * 105; }

/* 2 x (2 x (N x [MPI_File_write_at, pwrite]), fsync), MPI_Barrier) with offsets
 * progressing with all three indices and periodic fake times. */
static size_t nested_size(uint64_t N, size_t *nnodes, size_t *hbytes)
{
    siot_arena ar;
    siot_arena_init(&ar);
    siot_queue *q = malloc(sizeof *q);
    if (!q)
        abort();
    siot_queue_init(q, &ar, 0, 1, 256);
    uint8_t pool[64];
    int64_t status[3] = {0, 32, 0};
    memcpy(pool, status, sizeof status);
    uint64_t clock = 0;
    int rc = 0;
    siot_raw r;
    for (uint64_t a = 0; a < 2; a++) {
        for (uint64_t b = 0; b < 2; b++) {
            for (uint64_t c = 0; c < N; c++) {
                uint64_t lin = (a * 2 + b) * N + c;
                r = mkraw(F_WAT, 4);
                r.args[0] = rv_int(5);
                r.args[1] = rv_int((int64_t)(lin * 32));
                r.args[2] = rv_none();
                r.args[3] = rv_int(32);
                r.args[4] = rv_int(1);
                r.args[5].kind = SIOT_RV_ARR, r.args[5].n = 3, r.args[5].i = 0;
                r.comp = 50 + (c % 5) * 10;
                r.t_start = clock + r.comp;
                r.t_end = r.t_start + 1000 + 1000 * (c % 4);
                clock = r.t_end;
                rc |= siot_queue_push(q, &r, 1, pool);
                r = mkraw(F_PWRITE, 2);
                r.args[0] = rv_int(3);
                r.args[1] = rv_none();
                r.args[2] = rv_int(16);
                r.args[3] = rv_int((int64_t)(lin * 16));
                r.ret = r.bytes = 16;
                r.comp = 20 + (c % 3) * 5;
                r.t_start = clock + r.comp;
                r.t_end = r.t_start + 300 + 100 * (c % 3);
                clock = r.t_end;
                rc |= siot_queue_push(q, &r, 1, pool);
            }
            r = mkraw(F_FSYNC, 9);
            r.args[0] = rv_int(3);
            r.comp = 10;
            r.t_start = clock + 10;
            r.t_end = r.t_start + 5000 + 100 * b;
            clock = r.t_end;
            rc |= siot_queue_push(q, &r, 1, pool);
        }
        r = mkraw(F_BARRIER, 0);
        r.args[0] = rv_int(0x44000000);
        r.comp = 10;
        r.t_start = clock + 10;
        r.t_end = r.t_start + 20000 + a;
        clock = r.t_end;
        rc |= siot_queue_push(q, &r, 1, pool);
    }
    rc |= siot_queue_finish(q);
    CHECK(rc == 0);
    siot_trace t;
    trace_wrap(&t, q->nodes, q->n, 1);
    *nnodes = t.nnodes;
    *hbytes = trace_hist_bytes(&t);
    siot_vbuf buf;
    siot_vbuf_init(&buf);
    CHECK(siot_trace_encode(&t, &buf) == 0);
    size_t size = buf.len;
    /* the file decodes and has every event */
    siot_trace d;
    char err[256] = "";
    int dec = siot_trace_decode(buf.data, buf.len, &d, err, sizeof err);
    CHECK(dec == 0);
    if (dec == 0) {
        siot_iter it;
        siot_ctx c;
        uint64_t k = 0;
        CHECK(siot_iter_init(&it, &d, 0) == 0);
        while (siot_iter_next(&it, &c))
            k++;
        CHECK(it.err == NULL);
        CHECK_EQ_I64(k, 8 * N + 6);
        siot_iter_free(&it);
        siot_trace_free(&d);
    } else {
        fprintf(stderr, "constant size: N=%" PRIu64 ": %s\n", N, err);
    }
    siot_vbuf_free(&buf);
    siot_queue_free(q);
    free(q);
    siot_arena_free(&ar);
    return size;
}

static void test_constant_size(void)
{
    static const uint64_t NS[3] = {10, 1000, 100000};
    size_t sz[3], nn[3], hb[3];
    for (int i = 0; i < 3; i++)
        sz[i] = nested_size(NS[i], &nn[i], &hb[i]);
    printf("constant size: encoded %zu / %zu / %zu bytes for innermost counts 10 / 1000 / 100000 (%zu / %zu / %zu nodes)\n",
           sz[0], sz[1], sz[2], nn[0], nn[1], nn[2]);
    CHECK(nn[0] == nn[1] && nn[1] == nn[2]);
    CHECK_EQ_I64(nn[0], 7); /* loop[loop[loop[write_at, pwrite], fsync], barrier] */
    /* all but the histograms within 5%; the 4 events' 8 histograms grow by
     * their exact moments only, at most 14 bytes each (2 bytes at least) */
    for (int i = 1; i < 3; i++) {
        CHECK(within5(sz[i] - hb[i], sz[0] - hb[0]));
        CHECK(hb[i] <= hb[0] + 8 * 14 && hb[0] <= hb[i] + 8 * 14);
    }
}

/* Segment-shaped nests (IOR's POSIX backend): for each of F files' S
 * segments, 64 transfers at f*2^30 + s*P*64K + rank*64K + j*1K, a pwrite
 * then a write of 16 bytes. The fold makes one loop of F*S*64 iterations
 * with run tables; the final pass must give back the nest (loop depth
 * 2 for F = 1, 3 for F > 1: the files' bases are not one progression with
 * the segments'), lose nothing, and keep the size flat in S. */
static size_t segments_size(uint64_t F, uint64_t S, int32_t rank, uint32_t *depth, size_t *hbytes)
{
    ref R;
    memset(&R, 0, sizeof R);
    for (uint64_t f = 0; f < F; f++)
        for (uint64_t sg = 0; sg < S; sg++)
            for (int64_t j = 0; j < 64; j++) {
                siot_raw r = mkraw(F_PWRITE, 2);
                r.args[0] = rv_int(3);
                r.args[1] = rv_none();
                r.args[2] = rv_int(1024);
                r.args[3] = rv_int((int64_t)(f << 30) + (int64_t)sg * 4 * 65536 + rank * 65536 + j * 1024);
                r.ret = r.bytes = 1024;
                ref_time(&R, &r);
                ref_group(&R);
                ref_add(&R, &r);
                r = mkraw(F_WRITE, 5);
                r.args[0] = rv_int(3);
                r.args[1] = rv_none();
                r.args[2] = rv_int(16);
                r.ret = r.bytes = 16;
                ref_time(&R, &r);
                ref_group(&R);
                ref_add(&R, &r);
            }
    built *b = build(&R, rank, 1, 256, PUSH_GROUP, 0);
    CHECK(b->push_rc == 0);
    CHECK(siot_renest(&b->t) >= 1);
    CHECK(same_events(&b->t, rank, &R, NULL, "segments", S));
    size_t encoded = 0;
    CHECK(roundtrip_ok(&b->t, rank, &R, "segments", S, &encoded));
    *depth = b->t.max_depth;
    *hbytes = trace_hist_bytes(&b->t);
    built_free(b);
    ref_free(&R);
    return encoded;
}

static void test_segments(void)
{
    static const uint64_t S[3] = {4, 64, 1024};
    for (uint64_t F = 1; F <= 3; F += 2) {
        size_t sz[3], hb[3];
        uint32_t depth[3];
        for (int i = 0; i < 3; i++)
            sz[i] = segments_size(F, S[i], (int32_t)(i % 3), &depth[i], &hb[i]);
        printf("segments: %" PRIu64 " file(s) x 4 / 64 / 1024 segments x 64 transfers: %zu / %zu / %zu bytes, loop "
               "depth %u / %u / %u\n", F, sz[0], sz[1], sz[2], depth[0], depth[1], depth[2]);
        for (int i = 0; i < 3; i++)
            CHECK_EQ_I64(depth[i], F == 1 ? 2 : 3);
        /* Flat but for the exact moments of the 2 events' 4 histograms
         * (hist_bytes) and numbers written as varints: the loop count S and
         * the rank's base offset (the rank changes with S here: 0 is one
         * byte, 2*65536 three) take a few bytes more; a table growing with
         * the segments would take kilobytes. */
        CHECK(within5(sz[2] - hb[2], sz[0] - hb[0]) || sz[2] - hb[2] <= sz[0] - hb[0] + 24);
        CHECK(hb[2] <= hb[0] + 4 * 14 && hb[0] <= hb[2] + 4 * 14);
    }
}

/* Request batches (issue 17): each of `rounds` rounds, rank r makes
 * n = k*(10 + 5*(r % 3)) pwrite calls, then one Waitall of the n request
 * ids 0..n-1. Each rank's trace goes through the final pass and the file
 * form (as the job sends it), the ranks are merged, and the job's last
 * pass runs: every rank's events come back, the Waitall's ids are one
 * range, and the size, timing histograms aside, stays under 400 bytes and
 * within 24 of each other over 3..24 ranks, 2 or 16 rounds and batches 1x
 * or 8x as long. */
static void batch_events(ref *R, int32_t rank, uint64_t rounds, int64_t k)
{
    int64_t n = k * (10 + 5 * (rank % 3)), ids[160];
    memset(R, 0, sizeof *R);
    for (uint64_t rd = 0; rd < rounds; rd++) {
        for (int64_t j = 0; j < n; j++) {
            siot_raw r = mkraw(F_PWRITE, 2);
            r.args[0] = rv_int(3);
            r.args[1] = rv_none();
            r.args[2] = rv_int(512);
            r.args[3] = rv_int(rank * 1048576 + j * 512);
            r.ret = r.bytes = 512;
            ref_time(R, &r);
            ref_group(R);
            ref_add(R, &r);
            ids[j] = j;
        }
        siot_raw w = mkraw(F_WAITALL, 6);
        w.args[0] = rv_int(n);
        w.args[1] = (siot_rawval){SIOT_RV_ARR, (uint32_t)n, ref_bytes(R, ids, (size_t)n * sizeof *ids)};
        ref_time(R, &w);
        ref_group(R);
        ref_add(R, &w);
    }
}

static void fmap_of(const siot_trace *d, uint32_t *fmap)
{
    for (uint32_t i = 0; i < d->nfuncs && i <= NF; i++) {
        fmap[i] = UINT32_MAX;
        for (uint32_t j = 0; j < NF; j++)
            if (strcmp(d->funcs[i].name, FUNCS[j].name) == 0)
                fmap[i] = j;
    }
}

/* One rank's trace as the job receives it: compressed, renested, decoded. */
static void rank_trace(const ref *R, int32_t rank, siot_trace *d)
{
    built *b = build(R, rank, 1, 256, PUSH_GROUP, 0);
    CHECK(b->push_rc == 0);
    siot_renest(&b->t);
    siot_vbuf buf;
    siot_vbuf_init(&buf);
    char err[256] = "";
    CHECK(siot_trace_encode(&b->t, &buf) == 0 && siot_trace_decode(buf.data, buf.len, d, err, sizeof err) == 0);
    siot_vbuf_free(&buf);
    built_free(b);
}

/* The timing histograms emptied: they hold at most 40 bins whatever the
 * counts, but more samples fill more of them, which is not what is measured. */
static void no_hists(siot_node *const *nodes, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        siot_node *nd = nodes[i];
        if (nd->kind == SIOT_N_LOOP) {
            no_hists(nd->u.loop.body, nd->u.loop.nbody);
        } else {
            nd->u.ev.comp.count = nd->u.ev.dur.count = 0;
        }
    }
}

/* whether every Waitall's ids are one range */
static int waitall_ranged(const siot_trace *t, siot_node *const *nodes, uint32_t n)
{
    int ok = 1;
    for (uint32_t i = 0; i < n; i++) {
        const siot_node *nd = nodes[i];
        if (nd->kind == SIOT_N_LOOP)
            ok &= waitall_ranged(t, nd->u.loop.body, nd->u.loop.nbody);
        else if (strcmp(t->funcs[nd->u.ev.func].name, "MPI_Waitall") == 0)
            ok &= nd->u.ev.args[1]->tag == SIOT_X_RANGE;
    }
    return ok;
}

static size_t batches_size(int32_t P, uint64_t rounds, int64_t k, int *ranged)
{
    static ref R[24];
    siot_trace job;
    for (int32_t rank = 0; rank < P; rank++) {
        batch_events(&R[rank], rank, rounds, k);
        siot_trace d;
        rank_trace(&R[rank], rank, rank ? &d : &job);
        if (rank)
            CHECK(siot_trace_merge(&job, &d, 256) == 0);
    }
    job.nranks = (uint32_t)P;
    siot_rank_periodic(&job);
    uint32_t fmap[NF + 1];
    fmap_of(&job, fmap);
    for (int32_t rank = 0; rank < P; rank++) {
        CHECK(same_events(&job, rank, &R[rank], fmap, "request batches", (uint64_t)P));
        ref_free(&R[rank]);
    }
    siot_vbuf buf;
    siot_vbuf_init(&buf);
    no_hists(job.top, job.ntop);
    CHECK(siot_trace_encode(&job, &buf) == 0);
    *ranged = waitall_ranged(&job, job.top, job.ntop);
    if (getenv("SIOT_FOLD_BATCHES"))
        siot_dump_human(&job, "(request batches)", stderr, 1);
    size_t size = buf.len;
    siot_vbuf_free(&buf);
    siot_trace_free(&job);
    return size;
}

static void test_request_batches(void)
{
    static const int32_t PS[] = {3, 6, 12, 24};
    size_t lo = SIZE_MAX, hi = 0;
    printf("request batches: bytes at");
    for (int i = 0; i < 4; i++)
        for (uint64_t rounds = 2; rounds <= 16; rounds *= 8)
            for (int64_t k = 1; k <= 8; k *= 8) {
                int ranged = 0;
                size_t z = batches_size(PS[i], rounds, k, &ranged);
                CHECK(ranged);
                lo = z < lo ? z : lo;
                hi = z > hi ? z : hi;
                printf(" %d/%" PRIu64 "/%" PRId64 ": %zu", PS[i], rounds, k, z);
            }
    printf(" (ranks/rounds/batch factor)\n");
    /* the same values and structure: only varints wider (counts over 127)
     * and, at 3 ranks, progressions in the rank instead of residues */
    CHECK(hi - lo <= 24 && hi <= 400);
}

/* siot_trace_compact after every merge of the tree, as rank 0 does at
 * MPI_Finalize: the trace is the one merged without it (the same exact
 * encoding and file, every rank's events the program's own), in less
 * arena: a merge keeps both inputs' memory and what it replaced. */
static void test_compact(void)
{
    enum { P = 12 };
    static ref R[P];
    siot_trace kept, compacted;
    size_t most_kept = 0, most_compacted = 0;
    for (int32_t rank = 0; rank < P; rank++) {
        batch_events(&R[rank], rank, 16, 8);
        siot_trace d, e, *x = rank ? &d : &kept, *y = rank ? &e : &compacted;
        rank_trace(&R[rank], rank, x);
        rank_trace(&R[rank], rank, y);
        x->nranks = y->nranks = P; /* the job's size, as every rank's session knows it */
        if (!rank) {
            /* as a session's trace holds them (src/session.c), not as a decoding gives them */
            kept.flags = compacted.flags = SIOT_TF_COMPRESSED;
            kept.rt_keep = compacted.rt_keep = 3;
            continue;
        }
        CHECK(siot_trace_merge(&kept, &d, 256) == 0);
        CHECK(siot_trace_merge(&compacted, &e, 256) == 0);
        size_t before = compacted.arena.used_bytes;
        CHECK(siot_trace_compact(&compacted) == 0);
        CHECK(compacted.arena.used_bytes < before);
        CHECK(compacted.flags == kept.flags && compacted.rt_keep == 3);
        most_kept = kept.arena.used_bytes > most_kept ? kept.arena.used_bytes : most_kept;
        most_compacted = compacted.arena.used_bytes > most_compacted ? compacted.arena.used_bytes : most_compacted;
    }
    /* the arena's chunks are mappings of their own (core/arena.c) */
    CHECK(compacted.arena.head && compacted.arena.head->mapped >= 64 * 1024);
    siot_vbuf a, b;
    siot_vbuf_init(&a);
    siot_vbuf_init(&b);
    CHECK(siot_trace_encode_exact(&kept, &a) == 0 && siot_trace_encode_exact(&compacted, &b) == 0);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    siot_rank_periodic(&kept);
    siot_rank_periodic(&compacted);
    a.len = b.len = 0;
    CHECK(siot_trace_encode_file(&kept, 1, &a) == 0 && siot_trace_encode_file(&compacted, 1, &b) == 0);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    uint32_t fmap[NF + 1];
    fmap_of(&compacted, fmap);
    for (int32_t rank = 0; rank < P; rank++) {
        CHECK(same_events(&compacted, rank, &R[rank], fmap, "compacted", (uint64_t)P));
        ref_free(&R[rank]);
    }
    printf("compaction: %d ranks merged one by one, largest arena %zu B kept, %zu B compacted\n", P, most_kept,
           most_compacted);
    CHECK(most_compacted * 2 < most_kept);
    siot_vbuf_free(&a);
    siot_vbuf_free(&b);
    siot_trace_free(&kept);
    siot_trace_free(&compacted);
}

/* Segment nests whose inner boundary falls in the middle of the loop's
 * body (docs/compression.md, the final pass): a program's transfer is m
 * calls b_0..b_{m-1} (pwrite or write), transfer t = s*k + j at offset
 * off(s, j) = A + ss*s + js*j; it issues b_0..b_{r-1} of transfer 0 once
 * from other call sites (as a first lseek before the loop), then for each
 * transfer b_r..b_{m-1} of it and b_0..b_{r-1} of the next (as "write;
 * lseek to the next transfer"). The fold makes one loop of S*k whose body
 * starts at b_r: the values of b_0..b_{r-1} are run tables whose runs
 * start one transfer before each segment's. Each pwrite's offset is
 * off + a constant, j + a constant, or a constant; each count a constant. */
typedef struct midspec {
    uint32_t k, m, r;
    uint8_t fn[4], kind[4]; /* kind: 0 offset, 1 j, 2 constant */
    int64_t add[4], count[4], A, ss, js;
} midspec;

static void mid_gen(midspec *g, uint64_t seed)
{
    rng r = {seed * 0x9e3779b97f4a7c15ULL + 17};
    g->k = 2 + rbelow(&r, 40);
    g->m = 2 + rbelow(&r, 3);
    g->r = 1 + rbelow(&r, g->m - 1);
    g->A = (int64_t)rbelow(&r, 1u << 20);
    g->js = 1 + (int64_t)rbelow(&r, 4096);
    do
        g->ss = (int64_t)rbelow(&r, 1u << 24);
    while (g->ss == (int64_t)g->k * g->js);
    for (uint32_t e = 0; e < g->m; e++) {
        g->fn[e] = rbelow(&r, 3) ? F_PWRITE : F_WRITE;
        g->kind[e] = e == 0 ? 0 : (uint8_t)rbelow(&r, 3); /* b_0 moves with the transfers */
        g->add[e] = (int64_t)rbelow(&r, 512);
        g->count[e] = 1 + (int64_t)rbelow(&r, 8192);
    }
    g->fn[0] = F_PWRITE;
}

/* Call b_e of transfer t (t = S*k: the one after the last) at site. */
static void mid_call(ref *R, const midspec *g, uint32_t e, uint64_t t, int32_t rank, uint32_t site)
{
    int64_t s = (int64_t)(t / g->k), j = (int64_t)(t % g->k);
    siot_raw c = mkraw(g->fn[e], site);
    c.args[0] = rv_int(3);
    c.args[1] = rv_none();
    c.args[2] = rv_int(g->count[e]);
    if (g->fn[e] == F_PWRITE) {
        int64_t v = g->kind[e] == 0 ? g->A + g->ss * s + g->js * j + rank * 7919 : g->kind[e] == 1 ? j : 0;
        c.args[3] = rv_int(v + g->add[e]);
    }
    c.ret = c.bytes = g->count[e];
    ref_time(R, &c);
    ref_group(R);
    ref_add(R, &c);
}

static void mid_events(ref *R, const midspec *g, uint64_t S, int32_t rank)
{
    memset(R, 0, sizeof *R);
    for (uint32_t e = 0; e < g->r; e++) /* before the loop, from sites 9.. */
        mid_call(R, g, e, 0, rank, 9 + e);
    for (uint64_t t = 0; t < S * g->k; t++) {
        for (uint32_t e = g->r; e < g->m; e++)
            mid_call(R, g, e, t, rank, 1 + e);
        for (uint32_t e = 0; e < g->r; e++)
            mid_call(R, g, e, t + 1, rank, 1 + e);
    }
}

/* Whether a value of the nodes is a run table over their innermost loop
 * (the two pieces of a boundary in the middle of the body). */
static int has_inner_seql(siot_node *const *nodes, uint32_t n, int in_loop)
{
    for (uint32_t i = 0; i < n; i++) {
        const siot_node *nd = nodes[i];
        if (nd->kind == SIOT_N_LOOP) {
            if (has_inner_seql(nd->u.loop.body, nd->u.loop.nbody, 1))
                return 1;
            continue;
        }
        for (uint32_t a = 0; in_loop && a < nd->u.ev.nargs; a++)
            if (nd->u.ev.args[a]->tag == SIOT_X_SEQL && nd->u.ev.args[a]->level == 0)
                return 1;
    }
    return 0;
}

static uint64_t mid_pieces; /* renested traces with a value in two pieces */

/* One trace: folded into one flat loop, renested, lossless against the
 * reference in memory and read back; its size without the timing
 * histograms (more samples fill more bins, which is not what is measured)
 * and its loop depth. 0 when lost. */
static size_t mid_size(const midspec *g, uint64_t S, int32_t rank, uint64_t seed, uint32_t *depth)
{
    ref R;
    mid_events(&R, g, S, rank);
    built *b = build(&R, rank, 1, 256, PUSH_GROUP, seed);
    int ok = b->push_rc == 0 && b->t.max_depth == 1 && siot_renest(&b->t) >= 1 &&
             same_events(&b->t, rank, &R, NULL, "mid-body", seed) &&
             roundtrip_ok(&b->t, rank, &R, "mid-body", seed, NULL);
    CHECK(ok);
    *depth = b->t.max_depth;
    mid_pieces += has_inner_seql(b->t.top, b->t.ntop, 0);
    siot_vbuf buf;
    siot_vbuf_init(&buf);
    no_hists(b->t.top, b->t.ntop);
    CHECK(siot_trace_encode(&b->t, &buf) == 0);
    size_t size = ok ? buf.len : 0;
    if (getenv("SIOT_FOLD_MIDBODY"))
        siot_dump_human(&b->t, "(mid-body)", stderr, 1);
    siot_vbuf_free(&buf);
    built_free(b);
    ref_free(&R);
    return size;
}

/* Random k (2..41), body length m (2..4), rotation r (1..m-1), values and
 * S (2..9): the fold makes one flat loop, the renested trace is a nest of
 * two loops, loses nothing, and takes at most 6 bytes more at 64 times the
 * segments (the counts' varints may widen); most hold a value in two
 * pieces (the others fold their runs in phase: k = 2). */
static void test_midbody(void)
{
    const char *ns = getenv("SIOT_FOLD_SEEDS");
    uint64_t n = ns ? strtoull(ns, NULL, 0) : 300, grew = 0;
    size_t worst = 0;
    for (uint64_t seed = 1; seed <= n; seed++) {
        midspec g;
        mid_gen(&g, seed);
        uint64_t S = 2 + seed % 8;
        int32_t rank = (int32_t)(seed % 4);
        uint32_t d1, d2;
        size_t a = mid_size(&g, S, rank, seed, &d1), b = mid_size(&g, 64 * S, rank, seed, &d2);
        int ok = a && b && d1 == 2 && d2 == 2 && b <= a + 6;
        if (!ok)
            fprintf(stderr, "mid-body seed %" PRIu64 ": k %u, m %u, r %u, S %" PRIu64 ": %zu / %zu bytes, depth %u / %u\n",
                    seed, g.k, g.m, g.r, S, a, b, d1, d2);
        CHECK(ok);
        grew += b > a;
        worst = b > a && b - a > worst ? b - a : worst;
    }
    printf("mid-body segment nests: %" PRIu64 " programs, all two loops deep and lossless, %" PRIu64
           " of %" PRIu64 " traces with a value in two pieces; 64x the segments adds at most %zu bytes (%" PRIu64
           " grew at all)\n", n, mid_pieces, 2 * n, worst, grew);
    CHECK(mid_pieces * 4 >= 2 * n * 3);
}

/* ============================================================ 5. histograms */

typedef struct hwant {
    uint64_t count, min, max, max_occ;
    double mean, m2;
    uint64_t bins[SIOT_HBINS];
} hwant;

static void hwant_of(hwant *w, const uint64_t *v, uint64_t n)
{
    memset(w, 0, sizeof *w);
    w->count = n;
    w->min = UINT64_MAX;
    double sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        sum += (double)v[i];
        if (v[i] < w->min)
            w->min = v[i];
        if (v[i] > w->max || i == 0) {
            w->max = v[i];
            w->max_occ = i;
        }
        w->bins[siot_hist_bin(v[i])]++;
    }
    w->mean = sum / (double)n;
    for (uint64_t i = 0; i < n; i++)
        w->m2 += ((double)v[i] - w->mean) * ((double)v[i] - w->mean);
}


/* In memory (file_form 0) everything is exact. Read back from a file, min
 * and max are kept to 0.1% and bins as fractions of the count in 255ths,
 * which give the counts back exactly while the count is under 255, mean and
 * M2 to 4e-6 and 2e-3 (format minors 2 and 6); count and the maximum's place stay exact. */
static void check_hist(const char *what, const siot_hist *h, const hwant *w, int32_t rank, int file_form)
{
    /* (a file keeps no mean for a single sample: it is the rounded min) */
    int mean_ok = file_form && w->count == 1 ? time_close((uint64_t)h->mean, (uint64_t)w->mean, 1)
                                             : near(h->mean, w->mean, mean_tol(file_form));
    int ok = h->count == w->count && time_close(h->min, w->min, file_form) &&
             time_close(h->max, w->max, file_form) && h->max_occ == w->max_occ && h->max_rank == rank && mean_ok &&
             near(h->m2, w->m2, m2_tol(file_form));
    int bins = !file_form || (w->count > 1 && w->count < 255);
    for (unsigned b = 0; bins && b < SIOT_HBINS; b++)
        ok &= siot_hist_bin_count(h, b) == w->bins[b];
    if (!ok) {
        fprintf(stderr,
                "%s: count %" PRIu64 " min %" PRIu64 " max %" PRIu64 " max_occ %" PRIu64 " rank %d mean %.17g m2 %.17g; "
                "expected %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %.17g %.17g\n  bins:",
                what, h->count, h->min, h->max, h->max_occ, h->max_rank, h->mean, h->m2, w->count, w->min, w->max,
                w->max_occ, rank, w->mean, w->m2);
        for (unsigned b = 0; b < SIOT_HBINS; b++)
            if (siot_hist_bin_count(h, b) || w->bins[b])
                fprintf(stderr, " [%u] %" PRIu64 " (expected %" PRIu64 ")", b, siot_hist_bin_count(h, b), w->bins[b]);
        fprintf(stderr, "\n");
    }
    CHECK(ok);
}

/* N events of one call with durations d[] (given, or pseudo-random with the
 * maximum at dmax_at) and computation times c[] (maximum at cmax_at). */
static void hist_flat_d(uint64_t N, const uint64_t *given, uint64_t dmax_at, uint64_t cmax_at)
{
    uint64_t *d = malloc(N * sizeof *d), *c = malloc(N * sizeof *c);
    for (uint64_t i = 0; i < N; i++) {
        d[i] = given ? given[i] : 1000 + mix64(i) % 4000;
        c[i] = 10 + mix64(i + 77) % 500;
    }
    if (!given)
        d[dmax_at] = 100000;
    c[cmax_at] = 7777;
    const int32_t rank = 2;
    siot_arena a;
    siot_arena_init(&a);
    siot_queue *q = malloc(sizeof *q);
    siot_queue_init(q, &a, rank, 1, 256);
    siot_raw r = mkraw(F_PWRITE, 2);
    uint8_t pool[8] = {0};
    uint64_t clock = 0;
    for (uint64_t i = 0; i < N; i++) {
        r.args[0] = rv_int(3);
        r.args[1] = rv_none();
        r.args[2] = rv_int(8);
        r.args[3] = rv_int((int64_t)(8 * i));
        r.comp = c[i];
        r.t_start = clock + c[i];
        r.t_end = r.t_start + d[i];
        clock = r.t_end;
        CHECK(siot_queue_push(q, &r, 1, pool) == 0);
    }
    CHECK(siot_queue_finish(q) == 0);
    const siot_node *e = NULL;
    if (N == 1) {
        CHECK(q->n == 1 && q->nodes[0]->kind == SIOT_N_EVENT);
        e = q->nodes[0];
    } else {
        CHECK(q->n == 1 && q->nodes[0]->kind == SIOT_N_LOOP && const_val(q->nodes[0]->u.loop.count) == (int64_t)N);
        if (q->n == 1 && q->nodes[0]->kind == SIOT_N_LOOP)
            e = q->nodes[0]->u.loop.body[0];
    }
    if (e) {
        hwant wd, wc;
        hwant_of(&wd, d, N);
        hwant_of(&wc, c, N);
        char what[64];
        snprintf(what, sizeof what, "flat N=%" PRIu64 " duration", N);
        check_hist(what, &e->u.ev.dur, &wd, rank, 0);
        snprintf(what, sizeof what, "flat N=%" PRIu64 " computation", N);
        check_hist(what, &e->u.ev.comp, &wc, rank, 0);
        CHECK_EQ_I64(wd.max_occ, dmax_at);
        /* count, extremes, occurrence and moments survive the file */
        siot_trace t, dt;
        trace_wrap(&t, q->nodes, q->n, (uint32_t)rank + 1);
        siot_vbuf buf;
        siot_vbuf_init(&buf);
        CHECK(siot_trace_encode(&t, &buf) == 0);
        char err[256];
        if (siot_trace_decode(buf.data, buf.len, &dt, err, sizeof err) == 0) {
            const siot_node *de = dt.top[0]->kind == SIOT_N_LOOP ? dt.top[0]->u.loop.body[0] : dt.top[0];
            snprintf(what, sizeof what, "flat N=%" PRIu64 " duration, decoded", N);
            check_hist(what, &de->u.ev.dur, &wd, rank, (dt.flags & SIOT_TF_QBINS) != 0);
            snprintf(what, sizeof what, "flat N=%" PRIu64 " computation, decoded", N);
            check_hist(what, &de->u.ev.comp, &wc, rank, (dt.flags & SIOT_TF_QBINS) != 0);
            siot_trace_free(&dt);
        } else {
            fprintf(stderr, "flat N=%" PRIu64 " (durations from %" PRIu64 "): the trace does not decode: %s\n", N,
                    wd.min, err);
            CHECK(!"histogram trace decodes");
        }
        siot_vbuf_free(&buf);
    }
    siot_queue_free(q);
    free(q);
    siot_arena_free(&a);
    free(d);
    free(c);
}

static void hist_flat(uint64_t N, uint64_t dmax_at, uint64_t cmax_at) { hist_flat_d(N, NULL, dmax_at, cmax_at); }

/* M x [open, N x pwrite, close]: the occurrence of a maximum counts every
 * execution of the node before it, across outer iterations. */
static void hist_nested(uint64_t M, uint64_t N, uint64_t jmax, uint64_t imax)
{
    ref R;
    memset(&R, 0, sizeof R);
    uint64_t *dw = malloc(M * N * sizeof *dw), *dop = malloc(M * sizeof *dop), *cw = malloc(M * N * sizeof *cw);
    uint64_t clock = 0;
    for (uint64_t j = 0; j < M; j++) {
        siot_raw r = mkraw(F_OPEN, 1);
        r.args[0] = rv_str(&R, "same.dat");
        r.args[1] = rv_int(1);
        r.args[2] = rv_int(0);
        r.ret = 3;
        dop[j] = 5000 + mix64(j + 5) % 1000;
        if (j == (jmax + 1) % M)
            dop[j] = 9999;
        r.comp = 5;
        r.t_start = clock + 5;
        r.t_end = r.t_start + dop[j];
        clock = r.t_end;
        ref_group(&R);
        ref_add(&R, &r);
        for (uint64_t i = 0; i < N; i++) {
            uint64_t k = j * N + i;
            r = mkraw(F_PWRITE, 2);
            r.args[0] = rv_int(3);
            r.args[1] = rv_none();
            r.args[2] = rv_int(8);
            r.args[3] = rv_int((int64_t)(8 * i));
            dw[k] = 100 + mix64(k) % 900;
            cw[k] = 3 + mix64(k + 999) % 50;
            if (j == jmax && i == imax)
                dw[k] = 5555, cw[k] = 777;
            r.comp = cw[k];
            r.t_start = clock + cw[k];
            r.t_end = r.t_start + dw[k];
            clock = r.t_end;
            ref_group(&R);
            ref_add(&R, &r);
        }
        r = mkraw(F_CLOSE, 11);
        r.args[0] = rv_int(3);
        r.comp = 1;
        r.t_start = clock + 1;
        r.t_end = r.t_start + 10;
        clock = r.t_end;
        ref_group(&R);
        ref_add(&R, &r);
    }
    built *b = build(&R, 0, 1, 256, PUSH_GROUP, 0);
    CHECK(same_events(&b->t, 0, &R, NULL, "hist nested", 0));
    CHECK(b->q.n == 1 && b->q.nodes[0]->kind == SIOT_N_LOOP && b->q.nodes[0]->u.loop.nbody == 3);
    if (b->q.n == 1 && b->q.nodes[0]->kind == SIOT_N_LOOP && b->q.nodes[0]->u.loop.nbody == 3) {
        const siot_node *op = b->q.nodes[0]->u.loop.body[0], *in = b->q.nodes[0]->u.loop.body[1];
        hwant w;
        char what[96];
        hwant_of(&w, dop, M);
        snprintf(what, sizeof what, "nested %" PRIu64 "x%" PRIu64 " open duration", M, N);
        check_hist(what, &op->u.ev.dur, &w, 0, 0);
        CHECK(in->kind == SIOT_N_LOOP);
        if (in->kind == SIOT_N_LOOP) {
            const siot_node *pw = in->u.loop.body[0];
            hwant_of(&w, dw, M * N);
            CHECK_EQ_I64(w.max_occ, jmax * N + imax);
            snprintf(what, sizeof what, "nested %" PRIu64 "x%" PRIu64 " pwrite duration", M, N);
            check_hist(what, &pw->u.ev.dur, &w, 0, 0);
            hwant_of(&w, cw, M * N);
            snprintf(what, sizeof what, "nested %" PRIu64 "x%" PRIu64 " pwrite computation", M, N);
            check_hist(what, &pw->u.ev.comp, &w, 0, 0);
        }
    }
    built_free(b);
    ref_free(&R);
    free(dw);
    free(dop);
    free(cw);
}

static void test_histograms(void)
{
    hist_flat(1, 0, 0);
    hist_flat(2, 0, 1);
    hist_flat(2, 1, 0);
    hist_flat(3, 1, 2);
    hist_flat(17, 16, 0);
    hist_flat(1000, 437, 999);
    hist_flat(5000, 2, 4321);
    /* minima that a file rounds up to the next power of two (2047 -> 2048):
     * the bins must stay where they are */
    static const uint64_t r2047[4] = {2047, 5000, 5001, 40000}, r4095[5] = {9000, 4095, 70000, 4096, 12000};
    static const uint64_t r1023[3] = {1023, 1024, 3000}, rbig[3] = {(1u << 20) - 1, 3u << 20, 5u << 20};
    hist_flat_d(4, r2047, 3, 1);
    hist_flat_d(5, r4095, 2, 0);
    hist_flat_d(3, r1023, 2, 2);
    hist_flat_d(3, rbig, 2, 1);
    static const uint64_t rlong[4] = {2047, 5000, 5001, 600000000000ULL}; /* and a 10-minute call: last bin */
    hist_flat_d(4, rlong, 3, 2);
    hist_nested(6, 10, 0, 3);
    hist_nested(6, 10, 1, 0);
    hist_nested(6, 10, 3, 7);
    hist_nested(6, 10, 5, 9);
}

/* ============================================================ 6. extreme values */

/* n calls of one site with ret = v[i]; exits 0 when the expansion is exact. */
static void extreme_child(const int64_t *v, size_t n)
{
    ref R;
    memset(&R, 0, sizeof R);
    for (size_t i = 0; i < n; i++) {
        siot_raw r = mkraw(F_CLOSE, 11);
        r.args[0] = rv_int(v[n - 1 - i]);
        r.ret = v[i];
        r.bytes = (int64_t)((uint64_t)v[i] * 3);
        ref_time(&R, &r);
        ref_group(&R);
        ref_add(&R, &r);
    }
    built *b = build(&R, 0, 1, 256, PUSH_GROUP, 0);
    int ok = b->push_rc == 0 && same_events(&b->t, 0, &R, NULL, "extreme", 0);
    built_free(b);
    ref_free(&R);
    _exit(ok ? 0 : 1);
}

static int in_child(const int64_t *v, size_t n)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0)
        extreme_child(v, n);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void test_extremes(void)
{
    /* Values anywhere in the int64 range (bit masks, hashes, sentinels) must
     * fold like any others: the evaluator wraps, so must the merge. */
    static const int64_t two[] = {INT64_MIN, INT64_MAX};
    static const int64_t run[] = {0, 0, 0, INT64_MIN, INT64_MAX, 5};
    static const int64_t prog[] = {INT64_MAX - 2, INT64_MAX - 1, INT64_MAX, INT64_MIN, INT64_MIN + 1};
    static const int64_t mixed[] = {-1, INT64_MAX, -1, INT64_MAX, 7, INT64_MIN, 7};
    CHECK(in_child(two, 2));   /* xmerge.c siot_x_extend: X->base - B->base */
    CHECK(in_child(run, 6));   /* xmerge.c seql_append: X->base - last->base */
    CHECK(in_child(prog, 5));
    CHECK(in_child(mixed, 7));
}

/* ============================================================ 7. format limits */

/* Level 0: open("f_<irregular>"); level k: 2 x [level k-1, marker_k], where
 * the markers are distinct call sites so that every level is its own loop. */
static void deep_nest(ref *R, int level, uint64_t *k)
{
    if (level == 0) {
        char name[32];
        snprintf(name, sizeof name, "f_%d", (int)(mix64(*k) % 1000));
        (*k)++;
        siot_raw r = mkraw(F_OPEN, 1);
        r.args[0] = rv_str(R, name);
        r.args[1] = rv_int(0);
        r.args[2] = rv_int(0);
        r.ret = 3;
        ref_time(R, &r);
        ref_group(R);
        ref_add(R, &r);
        return;
    }
    for (int i = 0; i < 2; i++) {
        deep_nest(R, level - 1, k);
        siot_raw r = mkraw(level % 2 ? F_FSYNC : F_CLOSE, 1 + (uint32_t)(level / 2));
        r.args[0] = rv_int(level);
        ref_time(R, &r);
        ref_group(R);
        ref_add(R, &r);
    }
}

static int decodes(const siot_trace *t, const char *what)
{
    siot_vbuf buf;
    siot_vbuf_init(&buf);
    int ok = siot_trace_encode(t, &buf) == 0;
    siot_trace d;
    char err[256] = "";
    if (ok && siot_trace_decode(buf.data, buf.len, &d, err, sizeof err) != 0) {
        fprintf(stderr, "%s: the recorder's trace (%zu bytes) does not decode: %s\n", what, buf.len, err);
        ok = 0;
    } else if (ok) {
        siot_trace_free(&d);
    }
    siot_vbuf_free(&buf);
    return ok;
}

/* What the compressor builds from legitimate input must be a file its own
 * reader accepts (docs/format.md, "Limits the reader enforces"). */
static void test_format_limits(void)
{
    /* 16 nested loops with a value irregular at every level: the run tables
     * nest once per loop level, inside the string pattern, one level more
     * than the reader's expression depth limit (16). */
    ref R;
    memset(&R, 0, sizeof R);
    uint64_t k = 0;
    deep_nest(&R, 16, &k);
    built *b = build(&R, 0, 1, 256, PUSH_GROUP, 0);
    CHECK(same_events(&b->t, 0, &R, NULL, "16 nested loops", 0));
    CHECK_EQ_I64(b->t.max_depth, 16);
    CHECK(decodes(&b->t, "16 nested loops"));
    built_free(b);
    ref_free(&R);

    /* open() of a 70,000-byte path (it fails with ENAMETOOLONG, but it is
     * recorded): one literal longer than the reader's string limit (64 KiB). */
    memset(&R, 0, sizeof R);
    char *path = malloc(70001);
    memset(path, 'a', 70000);
    path[70000] = 0;
    siot_raw r = mkraw(F_OPEN, 1);
    r.args[0] = rv_str(&R, path);
    r.args[1] = rv_int(0);
    r.args[2] = rv_int(0);
    r.ret = -1;
    r.err = 36;
    ref_group(&R);
    ref_add(&R, &r);
    b = build(&R, 0, 1, 256, PUSH_GROUP, 0);
    CHECK(same_events(&b->t, 0, &R, NULL, "long path", 0));
    CHECK(decodes(&b->t, "70000-byte path"));
    built_free(b);
    ref_free(&R);
    free(path);
}

/* ============================================================ main */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* S segments x 4 collective writes, each with 4 pwrite children (a group of
 * 5, as OMPIO's single aggregator issues them). The tail loop of children
 * must fold with its parent at the group's edge: one loop of 4S {write_at;
 * loop 4 {pwrite}}, which the final pass splits into S x 4. Before, the loop
 * started one call late ({pwrite x4, write_at}, count 4S-1) with a call left
 * out at each end, and stayed a run table per segment. */
static void children_groups(uint32_t S)
{
    siot_arena a;
    siot_queue *q = queue_new(&a);
    uint8_t pool[8] = {0};
    int rc = 0;
    for (uint32_t seg = 0; seg < S; seg++)
        for (uint32_t j = 0; j < 4; j++) {
            siot_raw g[5];
            int64_t at = (int64_t)seg * 262144 + (int64_t)j * 16384;
            g[0] = mkraw(F_WAT, 4);
            g[0].args[0] = rv_int(0);
            g[0].args[1] = rv_int(at);
            g[0].args[2] = rv_none();
            g[0].args[3] = rv_int(16384);
            g[0].args[4] = rv_int(1);
            g[0].args[5] = rv_none();
            g[0].bytes = 16384;
            for (int c = 1; c <= 4; c++) {
                g[c] = mkraw(F_PWRITE, 7);
                g[c].parent = 0;
                g[c].args[0] = rv_int(3);
                g[c].args[1] = rv_none();
                g[c].args[2] = rv_int(16384);
                g[c].args[3] = rv_int(at * 4 + (c - 1) * 16384);
                g[c].ret = g[c].bytes = 16384;
            }
            rc |= siot_queue_push(q, g, 5, pool);
        }
    rc |= siot_queue_finish(q);
    CHECK(rc == 0);
    CHECK_EQ_I64(q->n, 1);
    const siot_node *L = q->n ? q->nodes[0] : NULL;
    CHECK(L && L->kind == SIOT_N_LOOP && const_val(L->u.loop.count) == 4 * (int64_t)S && L->u.loop.nbody == 2);
    if (L && L->kind == SIOT_N_LOOP && L->u.loop.nbody == 2)
        CHECK(L->u.loop.body[0]->kind == SIOT_N_EVENT && L->u.loop.body[0]->u.ev.func == F_WAT);
    siot_trace t;
    trace_wrap(&t, q->nodes, q->n, 1);
    siot_renest(&t);
    L = t.ntop == 1 ? t.top[0] : NULL;
    const siot_node *J = L && L->kind == SIOT_N_LOOP && L->u.loop.nbody == 1 ? L->u.loop.body[0] : NULL;
    CHECK(L && const_val(L->u.loop.count) == S);
    CHECK(J && J->kind == SIOT_N_LOOP && const_val(J->u.loop.count) == 4 && J->u.loop.nbody == 2);
    if (J && J->kind == SIOT_N_LOOP && J->u.loop.nbody == 2) {
        const siot_node *C = J->u.loop.body[1];
        CHECK(C->kind == SIOT_N_LOOP && const_val(C->u.loop.count) == 4 && C->u.loop.nbody == 1);
        /* the last child of the last transfer of the last segment, from the loops above */
        uint64_t it[3] = {3, 3, S - 1};
        siot_ctx c = {.rank = 0, .depth = 3, .iter = it, .occurrence = 16 * (uint64_t)S - 1};
        if (C->kind == SIOT_N_LOOP && C->u.loop.nbody == 1) {
            const siot_expr *off = C->u.loop.body[0]->u.ev.args[3];
            CHECK(off->tag != SIOT_X_SEQL); /* an expression of the loops, not a run table */
            CHECK_EQ_I64(siot_eval_int(off, &c, -1), ((int64_t)(S - 1) * 262144 + 3 * 16384) * 4 + 3 * 16384);
        }
    }
    siot_arena_free(&t.arena);
    siot_queue_free(q);
    free(q);
    siot_arena_free(&a);
}

static void test_children_groups(void)
{
    children_groups(16);
    children_groups(256);
}

int main(void)
{
    sites_init();
    double t0 = now();
    test_lossless();
    double t1 = now();
    test_classic();
    test_runs();
    test_tail_loop();
    hist_roundtrips_ok("structure");
    test_long_loop();
    test_segments();
    test_request_batches();
    test_compact();
    test_midbody();
    test_children_groups();
    double t2 = now();
    test_constant_size();
    double t3 = now();
    test_histograms();
    test_extremes();
    double t4 = now();
    test_format_limits();
    double t5 = now();
    printf("fold: lossless %.2fs, structure %.2fs, constant size %.2fs, histograms+extremes %.2fs, limits %.2fs\n",
           t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4);
    return unit_done("fold");
}
