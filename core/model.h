/* model: the in-memory form of a trace, shared by the recorder, the file
 * reader/writer, the merger and every walker (dump, stats, replay).
 *
 * A trace is a sequence of nodes. A node is an event or a loop; both carry
 * the list of ranks that execute them. A loop repeats its body `count` times.
 * Every recorded value is an expression that yields the concrete value for a
 * given rank, loop iteration vector and occurrence number, so that the same
 * shapes serve a flat trace (constants, one rank per node) and a fully
 * compressed one (progressions, rank functions, nested loops).
 *
 * Locks: none of its own; an arena or a trace is used by one thread at a
 * time (the recorder's under the recorder lock). Signals: arenas allocate
 * through salloc.h, so they also serve a handler writing a partial trace.
 *
 * Errors: siot_arena_alloc and siot_arena_strdup return NULL when memory ran
 * out (or n is within 16 of SIZE_MAX); the other arena functions cannot
 * fail. */
#ifndef SIOT_MODEL_H
#define SIOT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/ranktimes.h"
#include "core/vbuf.h"

/* ---- arena: bump allocation, freed all at once ---- */
typedef struct siot_arena_chunk siot_arena_chunk;
typedef struct siot_arena {
    siot_arena_chunk *head;
    size_t used_bytes; /* payload handed out, for memory accounting */
    size_t chunk_bytes;
} siot_arena;

void siot_arena_init(siot_arena *a);
void siot_arena_free(siot_arena *a);
void *siot_arena_alloc(siot_arena *a, size_t n); /* zeroed, 8-aligned; NULL on OOM */
/* The current chunk (the head; a large request's own chunk goes after it). */
struct siot_arena_chunk {
    siot_arena_chunk *next;
    size_t size;
    size_t used;
    size_t mapped; /* length of its own mapping (every chunk but the emergency allocator's), else 0 */
    max_align_t data[];
};
/* siot_arena_alloc for a size known to be a non-zero multiple of 8, its
 * common case inline: every new event of the recorder takes three blocks
 * or more (compress/pool.h). */
static inline void *siot_arena_alloc8(siot_arena *a, size_t n)
{
    siot_arena_chunk *c = a->head;
    if (__builtin_expect(c && c->size - c->used >= n, 1)) {
        void *p = (char *)c->data + c->used;
        c->used += n;
        a->used_bytes += n;
        return p;
    }
    return siot_arena_alloc(a, n);
}
char *siot_arena_strdup(siot_arena *a, const char *s, size_t n);
/* Moves all of src's memory into dst (src is left empty). */
void siot_arena_take(siot_arena *dst, siot_arena *src);

/* ---- rank lists: unions of nested strided ranges ----
 * entry = { start + sum_k i_k*stride_k : 0 <= i_k < count_k }.
 * {0,2,4,...,62} is one entry with one dimension {32, 2}. */
#define SIOT_RL_MAXDIMS 4
typedef struct siot_rdim {
    uint32_t count;
    int32_t stride;
} siot_rdim;
typedef struct siot_rentry {
    int32_t start;
    uint32_t ndims;
    siot_rdim dims[SIOT_RL_MAXDIMS];
} siot_rentry;
typedef struct siot_ranklist {
    uint32_t n;
    siot_rentry *e;
} siot_ranklist;

/* ---- expressions ---- */
enum siot_xtag {
    SIOT_X_NONE = 0,   /* no value */
    SIOT_X_CONST = 1,  /* base */
    SIOT_X_AFFINE = 2, /* base + rcoef*rank + sum coef[k]*iter[k], k=0 innermost loop */
    SIOT_X_SEQINT = 3, /* vals[occurrence] */
    SIOT_X_SEQ = 4,    /* items[occurrence] */
    SIOT_X_RANKED = 5, /* ranked[i].x for the entry whose rank list holds the rank */
    SIOT_X_STR = 6,    /* concatenation of segments: literal text or a numeric field */
    SIOT_X_ARRAY = 7,  /* an array value, one expression per element */
    SIOT_X_SEQL = 8,   /* piecewise over the iterations j of enclosing loop `level`: runs[] */
    SIOT_X_APPROX = 9, /* an approximate count (SIOT_TOLERANCE): len instances, min base,
                        * max rcoef, sum; runs[] hold (value base, count start) while few */
    /* Written only by the job's last pass (compress/rankfold.h), never merged: */
    SIOT_X_RMOD = 10,  /* items[rank mod n]: a value by the rank's residue */
    SIOT_X_RANGE = 11, /* the array items[1] + items[2]*j for j < items[0] (request ids) */
    /* (12 is a wire tag only: RMOD in runs, core/format_expr.c) */
    SIOT_X_RDIV = 13,  /* items[0] + sum*(rank div len), len >= 1: a process grid's row or a
                        * node's group (n = 1) */
    /* (14 is a wire tag only: a per-rank table in runs, core/format_ranks.c) */
    SIOT_X_RDIG = 15,  /* items[0] + sum*(decimal digits of the rank - 1): a byte count or a
                        * name's length that holds the rank in decimal (n = 1) */
};

/* The case labels of the tags whose u.items are all expressions, for the
 * walks that visit each one (freeing, copying, asking what they depend on):
 * `SIOT_X_ITEMS_CASES:` in a switch on the tag. */
#define SIOT_X_ITEMS_CASES \
    case SIOT_X_SEQ:       \
    case SIOT_X_ARRAY:     \
    case SIOT_X_RMOD:      \
    case SIOT_X_RANGE:     \
    case SIOT_X_RDIV:      \
    case SIOT_X_RDIG

typedef struct siot_expr siot_expr;

/* A run of an SEQL covers iterations [start, next run's start) of its loop
 * level. Integer runs are base + stride*(j - start); expression runs are x
 * evaluated with that loop's iteration replaced by j - start. */
typedef struct siot_run {
    uint64_t start;
    int64_t base;
    int64_t stride;
    siot_expr *x; /* NULL: an integer run */
} siot_run;


typedef struct siot_strseg {
    uint8_t is_field; /* 0: literal text, 1: integer field */
    uint8_t zero_pad; /* field printed with leading zeros up to width */
    uint16_t width;
    uint32_t len; /* literal length */
    const char *lit;
    siot_expr *field;
} siot_strseg;

typedef struct siot_rankedent {
    siot_ranklist rl;
    siot_expr *x;
} siot_rankedent;

struct siot_expr {
    uint8_t tag;
    uint8_t level;    /* SEQL: the loop level (0 = innermost enclosing loop) */
    uint8_t interned; /* shared constant: never modified or freed */
    uint32_t n;       /* number of coefs / values / items / entries / segments / runs */
    uint32_t cap;     /* allocated capacity of the array (recorder only) */
    int64_t base;
    int64_t rcoef;
    uint64_t len; /* SEQL: number of iterations covered; APPROX: instances */
    int64_t sum;  /* APPROX: sum of the values */
    union {
        int64_t *coef;
        int64_t *vals;
        siot_expr **items;
        siot_rankedent *ranked;
        siot_strseg *segs;
        siot_run *runs;
    } u;
};

/* A CONST or an AFFINE read as one form, base + rcoef*rank + sum
 * coef[k]*iter[k] (a CONST has neither term): the accessors the merges
 * across ranks, the loop folds and the rank fold share. */
static inline int siot_x_affinish(const siot_expr *x) { return x->tag == SIOT_X_CONST || x->tag == SIOT_X_AFFINE; }
static inline int64_t siot_x_rcoef(const siot_expr *x) { return x->tag == SIOT_X_AFFINE ? x->rcoef : 0; }
static inline uint32_t siot_x_nloops(const siot_expr *x) { return x->tag == SIOT_X_AFFINE ? x->n : 0; }
static inline int64_t siot_x_coef(const siot_expr *x, uint32_t k) { return k < siot_x_nloops(x) ? x->u.coef[k] : 0; }
/* The same loop terms (a missing coefficient is 0); the rank term aside. */
static inline int siot_x_same_loops(const siot_expr *a, const siot_expr *b)
{
    uint32_t na = siot_x_nloops(a), nb = siot_x_nloops(b);
    for (uint32_t k = 0; k < (na > nb ? na : nb); k++)
        if (siot_x_coef(a, k) != siot_x_coef(b, k))
            return 0;
    return 1;
}

/* An evaluated value. Strings and arrays point into a scratch buffer owned by
 * the caller of siot_eval and stay valid until it is reused. */
enum { SIOT_V_NONE = 0, SIOT_V_INT = 1, SIOT_V_STR = 2, SIOT_V_ARR = 3 };
typedef struct siot_value {
    uint8_t kind;
    int64_t i;
    const char *s;
    size_t slen;
    const int64_t *arr;
    uint32_t n;
} siot_value;

/* Where an expression is evaluated. */
#define SIOT_MAX_NEST 64
typedef struct siot_ctx {
    int64_t rank;
    uint32_t depth;                /* number of enclosing loops */
    const uint64_t *iter;          /* iter[0] = innermost loop's iteration */
    uint64_t occurrence;           /* how many times this rank ran the node before */
    int approx;                    /* the trace is approximate: sequences may be run past their end */
} siot_ctx;

/* ---- timing histograms (nanoseconds) ---- */
#define SIOT_HBINS 40 /* bin b holds [2^b, 2^(b+1)) ns; bin 0 also holds 0; the last is open */
typedef struct siot_hist {
    uint64_t count;
    uint64_t min, max;
    double mean, m2;  /* Welford, so merges are exact */
    int32_t max_rank; /* where the maximum occurred */
    uint64_t max_occ; /* occurrence number (iteration) of the maximum */
    uint32_t *bins;   /* NULL while count <= 1: the single value says it all */
} siot_hist;

/* ---- nodes ---- */
enum { SIOT_N_EVENT = 1, SIOT_N_LOOP = 2 };

typedef struct siot_node siot_node;
typedef struct siot_event {
    uint32_t func; /* index into the trace's function table */
    uint32_t site; /* call-site signature index + 1; 0 when unknown */
    siot_expr *thread;
    siot_expr *parent; /* distance back to the enclosing traced call, 0 = none */
    siot_expr *ret;
    siot_expr *err; /* errno (POSIX) when the call failed, else 0 */
    siot_expr *bytes;
    uint32_t nargs;
    uint8_t idle; /* recorder only: a poll that found nothing, told apart under SIOT_TOLERANCE */
    siot_expr **args;
    siot_hist comp; /* computation time before the call */
    siot_hist dur;  /* the call's own duration */
} siot_event;
typedef struct siot_loop {
    siot_expr *count;
    uint32_t nbody;
    siot_node **body;
} siot_loop;
struct siot_node {
    uint8_t kind;
    uint32_t id;   /* dense index over the trace, for per-node walker state */
    uint64_t hash; /* structure (function, call site, thread; loop bodies), recorder only */
    uint8_t depth; /* loops nested in this node (0 for an event), recorder only */
    siot_ranklist ranks;
    union {
        siot_event ev;
        siot_loop loop;
    } u;
};

/* ---- function descriptors and the trace ---- */
#define SIOT_MAX_ARGS 16
typedef struct siot_funcdesc {
    const char *name;
    uint8_t layer;
    uint32_t cls;
    uint8_t retrole;
    uint32_t nargs;
    const char *const *argnames;
    const uint8_t *argroles;
} siot_funcdesc;

/* A call site: the return addresses of the frames that led to the call,
 * innermost first, each as (module << 48 | offset in that module), so that
 * the same code gives the same site in every rank despite address-space
 * randomisation. */
#define SIOT_ADDR_MODULE(a) ((uint32_t)((a) >> 48))
#define SIOT_ADDR_OFFSET(a) ((a) & ((1ULL << 48) - 1))
#define SIOT_ADDR(m, off) (((uint64_t)(m) << 48) | ((off) & ((1ULL << 48) - 1)))
typedef struct siot_site {
    uint32_t depth;
    uint64_t *addrs;
} siot_site;
#define SIOT_MAX_SITE_DEPTH 256u /* the frames a reader accepts in a site */

enum {
    SIOT_TF_PARTIAL = 1,     /* recording ended abnormally: what is here is all there is */
    SIOT_TF_APPROX = 2,      /* some loop counts are histograms (SIOT_TOLERANCE) */
    SIOT_TF_COMPRESSED = 4,  /* intra-node compression was on */
    SIOT_TF_TRUNCATED = 8,   /* recording stopped early (memory limit); see the notes */
    SIOT_TF_QBINS = 16,      /* histogram bins stored as fractions of the count (files) */
    SIOT_TF_COMPACT = 32,    /* minor 1: compact histograms, call sites as a tree (docs/format.md) */
    SIOT_TF_MOMENTS24 = 64,  /* minor 2: histogram means and deviations as 3-byte floats (files) */
    SIOT_TF_SD16 = 128,      /* minor 6: histogram standard deviations as 2-byte floats (files) */
    SIOT_TF_PCOUNT = 256,    /* minor 8: event histogram counts as differences from their ranks x loops */
};

typedef struct siot_kv {
    const char *key;
    const char *val;
} siot_kv;

typedef struct siot_trace {
    siot_arena arena;
    uint32_t nranks;
    uint32_t flags;
    uint64_t start_ns; /* wall clock at the start of tracing, ns since the epoch */
    const char *exe;
    const char *flavour;
    const char *host;
    const char *version;
    uint32_t nkv;
    siot_kv *kv;
    uint32_t nfuncs;
    siot_funcdesc *funcs;
    uint32_t nmodules;
    const char **modules; /* paths of the executable and libraries sites point into */
    uint32_t nsites;
    siot_site *sites;
    uint32_t ntop;
    siot_node **top;
    uint32_t nnodes;    /* total number of nodes; ids are < nnodes */
    uint32_t max_depth; /* deepest loop nesting */
    uint32_t nrt;       /* per-rank time totals (core/ranktimes.h), sorted by rank, */
    siot_rtrow *rt;     /* each rank at most once; none in traces of older versions */
    /* NULL: rt holds every rank's row. Else SIOT_RT_NQ summaries over ranks
     * (core/ranksum.h), no rows, and per quantity the (rank, value) of its
     * rt_keep fastest and slowest ranks in rtx (SIOT_RTS_NLISTS lists, each
     * sorted by value then rank). rt_keep: the K a merge cuts to, 0 for
     * every rank (SIOT_RANK_TIMES=all). */
    siot_hist *rtsum;
    uint32_t rt_keep;
    uint32_t nrtx[SIOT_RTS_NLISTS];
    siot_rtx *rtx[SIOT_RTS_NLISTS];
    uint64_t unpacked_bytes; /* read from a packed file (core/pack.h): its size unpacked; else 0 */
} siot_trace;

#endif
