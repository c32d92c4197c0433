#define UNW_LOCAL_ONLY
#include "src/stack.h"
#include "core/salloc.h"

#include <link.h>
#include <libunwind.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/modules.h"
#include "src/config.h"
#include "src/lock.h"
#include "src/thread.h"

#define MAX_FRAMES 64
#define CACHE_SLOTS 64
#define CACHE_DEPTH 16

extern char __start_siot_text[] __attribute__((weak));
extern char __stop_siot_text[] __attribute__((weak));

static struct {
    /* sites */
    uint64_t *frames; /* SIOT_ADDR(module, offset), site i at frames[off[i]] */
    uint32_t *off, *depth;
    uint32_t nsites, capsites;
    size_t nframes, capframes;
    uint32_t *index; /* open addressing: site id + 1 */
    uint64_t *index_hash;
    uint32_t capindex;
} G;

static int map_addr(uintptr_t a, uint64_t *out)
{
    uint32_t m;
    uintptr_t base;
    if (!siot_module_of(a, &m, &base))
        return 0;
    /* a - 1: the call instruction, not the one after it (addr2line's convention). */
    *out = SIOT_ADDR(m, a - 1 - base);
    return 1;
}

/* ---- the site table ---- */

static uint64_t hash_frames(const uint64_t *f, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ n;
    for (uint32_t i = 0; i < n; i++) {
        h ^= f[i];
        h *= 0x100000001b3ULL;
        h ^= h >> 29;
    }
    return h;
}

static int index_grow(void)
{
    uint32_t cap = G.capindex ? G.capindex * 2 : 256;
    uint32_t *ix = siot_calloc(cap, sizeof *ix);
    uint64_t *ih = siot_calloc(cap, sizeof *ih);
    if (!ix || !ih) {
        siot_free(ix);
        siot_free(ih);
        return -1;
    }
    for (uint32_t i = 0; i < G.capindex; i++) {
        if (!G.index[i])
            continue;
        uint32_t j = (uint32_t)G.index_hash[i] & (cap - 1);
        while (ix[j])
            j = (j + 1) & (cap - 1);
        ix[j] = G.index[i];
        ih[j] = G.index_hash[i];
    }
    siot_free(G.index);
    siot_free(G.index_hash);
    G.index = ix;
    G.index_hash = ih;
    G.capindex = cap;
    return 0;
}

/* Under the rank lock. */
static uint32_t intern_site(const uint64_t *f, uint32_t n)
{
    uint64_t h = hash_frames(f, n);
    if ((G.nsites + 1) * 2 > G.capindex && index_grow())
        return 0;
    uint32_t j = (uint32_t)h & (G.capindex - 1);
    while (G.index[j]) {
        uint32_t id = G.index[j] - 1;
        if (G.index_hash[j] == h && G.depth[id] == n && memcmp(&G.frames[G.off[id]], f, n * sizeof *f) == 0)
            return id + 1;
        j = (j + 1) & (G.capindex - 1);
    }
    if (G.nsites == G.capsites) {
        uint32_t cap = G.capsites ? G.capsites * 2 : 64;
        /* Not SIOT_REGROW (core/salloc.h): this is inlined into site_of,
         * which every traced call runs, and that form changed its
         * register allocation throughout (objdump -d). */
        uint32_t *o = siot_realloc(G.off, cap * sizeof *o);
        if (!o)
            return 0;
        G.off = o;
        uint32_t *d = siot_realloc(G.depth, cap * sizeof *d);
        if (!d)
            return 0;
        G.depth = d;
        G.capsites = cap;
    }
    if (G.nframes + n > G.capframes) {
        size_t cap = G.capframes ? G.capframes * 2 : 512;
        while (cap < G.nframes + n)
            cap *= 2;
        uint64_t *fr = siot_realloc(G.frames, cap * sizeof *fr);
        if (!fr)
            return 0;
        G.frames = fr;
        G.capframes = cap;
    }
    memcpy(&G.frames[G.nframes], f, n * sizeof *f);
    G.off[G.nsites] = (uint32_t)G.nframes;
    G.depth[G.nsites] = n;
    G.nframes += n;
    G.index[j] = G.nsites + 1;
    G.index_hash[j] = h;
    return ++G.nsites;
}

/* ---- per-thread cache on raw addresses ---- */

typedef struct cache_slot {
    uint32_t n, site;
    uintptr_t raw[CACHE_DEPTH];
} cache_slot;
static __thread cache_slot cache[CACHE_SLOTS] __attribute__((tls_model("initial-exec")));

static int in_tracer(uintptr_t a)
{
    return __start_siot_text && a >= (uintptr_t)__start_siot_text && a < (uintptr_t)__stop_siot_text;
}

/* ---- the fast walk: frame sizes learned from libunwind ----
 *
 * libunwind reads DWARF unwind tables on every walk (most of a traced call's
 * cost). Yet at a given return address the distance from the frame's stack
 * pointer to its caller's (the frame size) is nearly always the same, so each
 * thread learns it, per return address, from the walks libunwind makes, and
 * then finds the caller's return address with one load per frame:
 * ip' = *(sp + size - 8), sp' = sp + size. The tracer's own frames at the top
 * are passed by their frame pointers (the runtime is built with them).
 * A function whose frame can change size (alloca, variable-length arrays,
 * stack realignment) finds its caller through its frame pointer: its unwind
 * rule is CFA = rbp + 16. Seeing two sizes is not enough to tell it: a frame
 * that shrinks by exactly its caller's size makes a walk by the first size
 * land on a return address the thread already knows, and go on, wrong. So
 * each learned entry also says how the caller's frame pointer is found:
 *  - FP_FRAME: the frame is rbp-based; the caller is at rbp + 16, its return
 *    address at rbp + 8 and its rbp at [rbp], whatever the frame's size;
 *  - FP_KEPT: a fixed-size frame that left rbp alone;
 *  - an offset from the frame's sp: a fixed-size frame that saved rbp there;
 *  - FP_LOST: a fixed-size frame that keeps rbp elsewhere: a rbp-based frame
 *    above it cannot be walked fast.
 * The walk starts from the rbp the tracer's outermost frame saved (the
 * program's, at the call). A return address seen with two sizes or two rules
 * is marked variable and always unwound; one never seen sends the walk to
 * libunwind, which teaches it. Every VERIFY_EVERY-th call walks both ways and
 * compares; a difference is counted (the trace's note site_walk_mismatches)
 * and the thread forgets what it learned. */
#define FSZ_SLOTS 512
#define FSZ_PROBES 8
#define FSZ_END UINT32_MAX            /* the outermost frame: walks end here */
#define FSZ_VARIABLE (UINT32_MAX - 1) /* seen with two sizes: always unwound */
#define MAX_FRAME_BYTES (1u << 20)
#define MAX_WALK (MAX_FRAMES + 16)
#define VERIFY_EVERY 4096
#define MEMO_SET_BITS 4
#define MEMO_SETS (1u << MEMO_SET_BITS)
#define MEMO_WAYS 4
#define MEMO_READS 40
#define FP_FRAME (-1) /* rbp-based frame */
#define FP_KEPT (-2)  /* rbp left as it was */
#define FP_LOST (-3)  /* rbp kept where the walk cannot follow */

typedef struct frame_size {
    uintptr_t ip;
    uint32_t size; /* 0 for FP_FRAME frames (their size may vary) */
    int32_t fp;    /* FP_FRAME, FP_KEPT, FP_LOST, or where rbp was saved */
} frame_size;
static __thread frame_size fsz[FSZ_SLOTS] __attribute__((tls_model("initial-exec")));
/* The thread's stack, [lo, hi): a walk never reads outside it. */
static __thread struct {
    uintptr_t lo, hi;
    int known; /* 1: bounds known, -1: cannot be known (no fast walk) */
    uint32_t calls;
} W __attribute__((tls_model("initial-exec")));
static _Atomic uint64_t walk_mismatches;
static __thread int forget_walks __attribute__((tls_model("initial-exec")));

extern void *__libc_stack_end;

static void learn_bounds(void)
{
    if (W.known)
        return;
    W.known = -1;
    if (getpid() == (pid_t)syscall(SYS_gettid)) {
        /* The initial thread: its stack ends at __libc_stack_end (args and
         * environment above it) and grows down at most RLIMIT_STACK; without
         * a limit, 1 GiB is taken (mappings sit far below it then). */
        struct rlimit rl;
        uintptr_t span = 1u << 30;
        if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < span)
            span = rl.rlim_cur < (8u << 20) ? (8u << 20) : (uintptr_t)rl.rlim_cur;
        W.hi = (uintptr_t)__libc_stack_end;
        W.lo = W.hi - span;
    } else {
        pthread_attr_t a;
        void *addr;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &a) != 0)
            return;
        int rc = pthread_attr_getstack(&a, &addr, &size);
        pthread_attr_destroy(&a);
        if (rc != 0)
            return;
        W.lo = (uintptr_t)addr;
        W.hi = (uintptr_t)addr + size;
    }
    W.known = 1;
}

static uint32_t ip_slot(uintptr_t ip) { return (uint32_t)(((uint64_t)ip * 0x9e3779b97f4a7c15ULL) >> 55); }

/* A frame's size as the table keeps it (a size of 0 or over 1 MiB is not
 * believed). */
static uint32_t size_class(uint64_t size) { return size == 0 || size > MAX_FRAME_BYTES ? FSZ_VARIABLE : (uint32_t)size; }

static void learn_size(uintptr_t ip, uint32_t s, int32_t fp)
{
    for (uint32_t k = 0, h = ip_slot(ip); k < FSZ_PROBES; k++) {
        frame_size *f = &fsz[(h + k) & (FSZ_SLOTS - 1)];
        if (f->ip == ip) {
            int same = f->fp == fp && (fp == FP_FRAME || f->size == s);
            if (!same && f->size != FSZ_VARIABLE) {
                f->size = FSZ_VARIABLE;
                forget_walks = 1; /* walks through ip may be remembered */
            }
            return;
        }
        if (!f->ip) {
            f->ip = ip;
            f->size = s;
            f->fp = fp;
            return;
        }
    }
}

static const frame_size *size_of(uintptr_t ip)
{
    for (uint32_t k = 0, h = ip_slot(ip); k < FSZ_PROBES; k++) {
        const frame_size *f = &fsz[(h + k) & (FSZ_SLOTS - 1)];
        if (f->ip == ip)
            return f;
        if (!f->ip)
            break;
    }
    return NULL;
}

static int in_stack(uintptr_t a, size_t n) { return a >= W.lo && a <= W.hi - n; }

/* top_frame's last answer, with what it read on the way: each tracer
 * frame's return address and link (the next frame up), in order from
 * frame. From the same frame, slots holding the same values lead to the
 * same frame of the program (the stack's bounds and the tracer's text do
 * not change). Its return address is read again, not kept: a wrapper
 * called from another call site of the program differs only there. NULL
 * frame: none. */
#define TOP_FRAMES 4
static __thread struct {
    const void *frame;
    uint32_t n; /* tracer frames passed */
    uintptr_t ret[TOP_FRAMES], link[TOP_FRAMES];
} top_seen __attribute__((tls_model("initial-exec")));

/* The innermost frame outside the tracer: its return address, its stack
 * pointer and where the tracer saved its rbp, found through the tracer's
 * frame pointers from frame (a tracer function's own frame: starting there,
 * not here, spares the frames of the walk itself). 0 when it cannot be.
 * Remembered in top_seen. */
static int top_frame(const void *frame, uintptr_t *ip, uintptr_t *sp, uintptr_t *fpslot)
{
    if (W.known != 1 || siot_cfg.unwind_always)
        return 0;
    /* the bounds read once, not in every frame (runs on every traced call) */
    const uintptr_t lo = W.lo, hi = W.hi - 16;
    const uintptr_t *fp = frame;
    uint32_t n = 0;
    top_seen.frame = NULL;
    for (int k = 0; k < 16; k++) {
        if (((uintptr_t)fp & 7) || (uintptr_t)fp < lo || (uintptr_t)fp > hi) /* in_stack(fp, 16) */
            return 0;
        if (!in_tracer(fp[1])) {
            *ip = fp[1];
            *sp = (uintptr_t)(fp + 2);
            *fpslot = (uintptr_t)fp;
            if (n <= TOP_FRAMES) {
                top_seen.frame = frame;
                top_seen.n = n;
            }
            return 1;
        }
        const uintptr_t *next = (const uintptr_t *)fp[0];
        if (next <= fp)
            return 0;
        if (n < TOP_FRAMES) {
            top_seen.ret[n] = fp[1];
            top_seen.link[n] = fp[0];
        }
        n++;
        fp = next;
    }
    return 0;
}

/* The frame top_frame found last (its return address not yet checked),
 * when top_seen holds: each link is followed only once it is known to be
 * the same (inside the thread's stack, above this frame). NULL when it
 * does not hold. */
static inline const uintptr_t *top_again(const void *frame)
{
    if (frame != top_seen.frame)
        return NULL;
    const uintptr_t *fp = frame;
    for (uint32_t k = 0; k < top_seen.n; k++) {
        if (fp[1] != top_seen.ret[k] || fp[0] != top_seen.link[k])
            return NULL;
        fp = (const uintptr_t *)top_seen.link[k];
    }
    return fp;
}

/* The walk's position: a frame's return address, stack pointer and frame
 * pointer (fp_ok: the rbp the frame runs with is known; fp_at: the slot it
 * was read from), and the stack slots loaded so far that the walk depends on
 * (the memo checks them). The rbp slot joins them only when a rbp-based frame
 * uses it: a program that keeps a loop counter in rbp would otherwise never
 * find its walk in the memo. */
typedef struct walk {
    uintptr_t ip, sp, fp, fp_at;
    int fp_ok;
    uintptr_t *reads;
    uint32_t nreads;
} walk;

static int readable(uintptr_t at) { return !(at & 7) && in_stack(at, 8); }

static void depends_on(walk *w, uintptr_t at)
{
    if (w->nreads < MEMO_READS)
        w->reads[w->nreads] = at;
    w->nreads++;
}

static int load(walk *w, uintptr_t at, uintptr_t *v)
{
    if (!readable(at))
        return 0;
    *v = *(const uintptr_t *)at;
    depends_on(w, at);
    return 1;
}

/* rbp as a frame keeps it at slot at (read, not yet depended on) */
static void load_fp(walk *w, uintptr_t at)
{
    w->fp_ok = readable(at);
    if (w->fp_ok) {
        w->fp = *(const uintptr_t *)at;
        w->fp_at = at;
    }
}

/* One frame up by what the thread learned of w->ip: 0 when it cannot. */
static int step_up(walk *w, const frame_size *f)
{
    uintptr_t ip;
    if (f->size == FSZ_VARIABLE)
        return 0;
    if (f->fp == FP_FRAME) {
        if (!w->fp_ok || w->fp < w->sp || !readable(w->fp))
            return 0;
        depends_on(w, w->fp_at);
        uintptr_t fp = w->fp;
        if (!load(w, fp + 8, &ip))
            return 0;
        load_fp(w, fp);
        w->sp = fp + 16;
        w->ip = ip;
        return 1;
    }
    if (!load(w, w->sp + f->size - 8, &ip))
        return 0;
    if (f->fp >= 0)
        load_fp(w, w->sp + (uint32_t)f->fp);
    else if (f->fp == FP_LOST)
        w->fp_ok = 0;
    w->sp += f->size;
    w->ip = ip;
    return 1;
}

/* From the top frame: the same return addresses as slow_walk gives, or 0
 * when it cannot tell. reads[] gets the stack slots the walk loaded. */
static int fast_walk(uintptr_t ip, uintptr_t sp, uintptr_t fpslot, uintptr_t *raw, unsigned depth, uint32_t *out,
                     uintptr_t *reads, uint32_t *nreads)
{
    walk w = {.ip = ip, .sp = sp, .reads = reads};
    load_fp(&w, fpslot);
    uint32_t n = 0;
    for (int steps = 0; steps < MAX_WALK; steps++) {
        if (!in_tracer(w.ip) && (raw[n++] = w.ip, n == depth))
            break;
        const frame_size *f = size_of(w.ip);
        if (f && f->size == FSZ_END)
            break;
        if (!f || !step_up(&w, f))
            return 0;
    }
    *out = n;
    *nreads = w.nreads;
    return 1;
}

/* ---- the memo: the last walks from each top frame ----
 * A walk is a function of its top frame and of the stack slots it loads, so
 * when the top frame and every slot loaded hold what they held, the walk
 * would give the same site: checking that costs one load per frame.
 * MEMO_WAYS walks share a set, chosen by the top frame: sixteen call sites
 * at one stack depth took 69% misses in a table of one walk per slot
 * (bench/hotpath.c irregular), and one top frame reached from two callers
 * keeps both walks. The thread's last hit is tried first (memo_hot), then
 * the set's. 16 sets: with 8, those sixteen sites in random order missed
 * their set's last walk about half the time (two sites to a set), and
 * scanned the other ways (callgrind: 50 instructions a call more). */
typedef struct memo {
    uintptr_t ip, sp;
    uint32_t nreads, site;
    struct {
        uintptr_t at, val; /* side by side: a check reads both */
    } rd[MEMO_READS];
} memo;
typedef struct memo_set {
    memo way[MEMO_WAYS];
    memo *last;    /* the way last found (NULL: none yet) */
    uint32_t next; /* the way the next put replaces */
} memo_set;
static __thread memo_set memos[MEMO_SETS] __attribute__((tls_model("initial-exec")));
/* The walk the thread last found or put, whatever its set: a loop's call,
 * the same as the one before it, is checked without hashing its top frame.
 * Only a hint: memo_holds checks it as any other (zeroed: site 0); never
 * NULL, so that a miss costs one load and one compare. */
static const memo memo_none; /* site 0: never holds */
static __thread const memo *memo_hot __attribute__((tls_model("initial-exec"))) = &memo_none;

static memo_set *memo_set_of(uintptr_t ip, uintptr_t sp)
{
    /* multiplied twice: return addresses a few bytes apart, which differ
     * only in their low bits, went to 3 of the 8 sets after one multiply */
    uint64_t h = ((uint64_t)ip ^ ((uint64_t)sp << 7)) * 0x9e3779b97f4a7c15ULL;
    h = (h ^ (h >> 32)) * 0x9e3779b97f4a7c15ULL;
    return &memos[h >> (64 - MEMO_SET_BITS)];
}

/* The stack slots m's walk loaded still hold what they held. */
static inline int memo_reads_hold(const memo *m)
{
    for (uint32_t i = 0; i < m->nreads; i++)
        if (*(const uintptr_t *)m->rd[i].at != m->rd[i].val)
            return 0;
    return 1;
}

static int memo_holds(const memo *m, uintptr_t ip, uintptr_t sp)
{
    /* ip first: it tells most apart */
    return m->ip == ip && m->sp == sp && m->site && memo_reads_hold(m);
}

/* The walk memoised in the set of (ip, sp) that was last found there, if
 * it still holds (a loop's call): NULL when it does not. */
static inline memo *memo_last(memo_set *set, uintptr_t ip, uintptr_t sp)
{
    memo *m = set->last;
    return m && memo_holds(m, ip, sp) ? m : NULL;
}

/* The set's other ways. */
static uint32_t memo_find_other(memo_set *set, uintptr_t ip, uintptr_t sp)
{
    for (memo *m = set->way; m < set->way + MEMO_WAYS; m++)
        if (m != set->last && memo_holds(m, ip, sp)) {
            set->last = m;
            memo_hot = m;
            return m->site;
        }
    return 0;
}

static void memo_put(uintptr_t ip, uintptr_t sp, const uintptr_t *reads, uint32_t nreads, uint32_t site)
{
    if (nreads > MEMO_READS)
        return;
    memo_set *set = memo_set_of(ip, sp);
    uint32_t w = set->next;
    set->next = (w + 1) % MEMO_WAYS;
    memo *m = &set->way[w];
    for (uint32_t i = 0; i < nreads; i++) {
        m->rd[i].at = reads[i];
        m->rd[i].val = *(const uintptr_t *)reads[i];
    }
    m->ip = ip;
    m->sp = sp;
    m->nreads = nreads;
    m->site = site;
    set->last = m;
    memo_hot = m;
}

/* How the caller's rbp is found from a frame (sp, fp: its rbp) whose caller
 * (the cursor, stepped) has its stack at nsp. A frame with CFA = rbp + 16
 * (the caller's sp right above the saved rbp and return address) is
 * rbp-based. Otherwise libunwind says where the caller's rbp was saved: in
 * this frame (an offset from sp), or nowhere (left alone). */
static int32_t fp_rule(unw_cursor_t *caller, unw_word_t sp, unw_word_t fp, unw_word_t nsp)
{
    unw_word_t nfp;
    if (unw_get_reg(caller, UNW_X86_64_RBP, &nfp) != 0)
        return FP_LOST;
    if (fp >= sp && fp + 16 == nsp && !(fp & 7) && *(const unw_word_t *)fp == nfp)
        return FP_FRAME;
    unw_save_loc_t loc;
    if (unw_get_save_loc(caller, UNW_X86_64_RBP, &loc) != 0)
        return FP_LOST;
    if (loc.type == UNW_SLT_MEMORY && loc.u.addr >= sp && loc.u.addr + 8 <= nsp)
        return *(const unw_word_t *)loc.u.addr == nfp ? (int32_t)(loc.u.addr - sp) : FP_LOST;
    /* saved by a frame further in, or not at all: this one left it alone */
    return nfp == fp ? FP_KEPT : FP_LOST;
}

/* libunwind's walk, which also teaches the frame sizes. */
static SIOT_TEXT uint32_t slow_walk(uintptr_t *raw, unsigned depth)
{
    unw_context_t uc;
    unw_cursor_t cur;
    if (unw_getcontext(&uc) != 0 || unw_init_local(&cur, &uc) != 0)
        return 0;
    learn_bounds();
    uint32_t n = 0;
    int started = 0; /* past the tracer's frames at the top */
    for (int steps = 0; steps < MAX_WALK; steps++) {
        unw_word_t ip, sp, fp, nsp;
        if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0 || unw_get_reg(&cur, UNW_REG_SP, &sp) != 0 ||
            unw_get_reg(&cur, UNW_X86_64_RBP, &fp) != 0)
            break;
        started |= !in_tracer(ip);
        if (!in_tracer(ip) && (raw[n++] = ip, n == depth))
            break;
        if (unw_step(&cur) <= 0 || unw_get_reg(&cur, UNW_REG_SP, &nsp) != 0) {
            if (started)
                learn_size(ip, FSZ_END, FP_LOST);
            break;
        }
        if (started) {
            int32_t rule = fp_rule(&cur, sp, fp, nsp);
            learn_size(ip, rule == FP_FRAME ? 0 : size_class(nsp > sp ? nsp - sp : 0), rule);
        }
    }
    return n;
}

static uint32_t cache_find(const uintptr_t *raw, uint32_t n, cache_slot **slot)
{
    cache_slot *c = &cache[hash_frames((const uint64_t *)raw, n) & (CACHE_SLOTS - 1)];
    *slot = c;
    return c->site && c->n == n && n <= CACHE_DEPTH && memcmp(c->raw, raw, n * sizeof *raw) == 0 ? c->site : 0;
}

/* Every VERIFY_EVERY-th call: the fast walk must agree with libunwind. */
static void verify_walk(const uintptr_t *fast, uint32_t nfast, const uintptr_t *slow, uint32_t nslow)
{
    if (nfast == nslow && memcmp(fast, slow, nslow * sizeof *slow) == 0)
        return;
    atomic_fetch_add_explicit(&walk_mismatches, 1, memory_order_relaxed);
    forget_walks = 1;
    memset(fsz, 0, sizeof fsz);
}

/* The site of raw[0..n), interned when new (the lock, for a new site only). */
static uint32_t site_of(const uintptr_t *raw, uint32_t n)
{
    cache_slot *c;
    uint32_t site = cache_find(raw, n, &c);
    if (site || n == 0)
        return site;
    /* mapped outside the lock: a library loaded since may need the loader's lock (modules.h) */
    uint64_t f[MAX_FRAMES];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (map_addr(raw[i], &f[k]))
            k++;
    siot_lock();
    site = k ? intern_site(f, k) : 0;
    siot_unlock();
    if (site && n <= CACHE_DEPTH) {
        c->n = n;
        c->site = site;
        memcpy(c->raw, raw, n * sizeof *raw);
    }
    return site;
}

/* Everything but a hit in one of the set's ways: out of line and cold, so
 * that the hit, nearly every call from a loop, saves no registers and
 * reserves no stack for the walks' arrays. In siot_text: slow_walk runs
 * under it. top: ip, sp and fpslot were found (top_frame); verify: this
 * call compares the fast walk with libunwind's. */
static SIOT_TEXT __attribute__((cold)) uint32_t site_missed(unsigned depth, int top, int verify, uintptr_t ip,
                                                            uintptr_t sp, uintptr_t fpslot)
{
    uintptr_t raw[MAX_FRAMES], fast[MAX_FRAMES], reads[MEMO_READS];
    uint32_t n, nfast = 0, nreads = 0, site;
    if (depth > MAX_FRAMES)
        depth = MAX_FRAMES;
    int have_fast = top && fast_walk(ip, sp, fpslot, fast, depth, &nfast, reads, &nreads) && nfast;
    if (have_fast && !verify && (site = site_of(fast, nfast))) {
        memo_put(ip, sp, reads, nreads, site);
        return site;
    }
    n = slow_walk(raw, depth);
    if (verify && have_fast)
        verify_walk(fast, nfast, raw, n);
    if (forget_walks) {
        memset(memos, 0, sizeof memos);
        forget_walks = 0;
    }
    return site_of(raw, n);
}

/* What siot_site_here's hit leaves: top 0, the top frame not yet found;
 * 1, found and this call compares the walks (VERIFY_EVERY); 2, found, and
 * not the walk the thread last found. Out of line, so that the hit saves no
 * registers for top_frame and the sets; in siot_text: site_missed and
 * slow_walk run under it. */
static SIOT_TEXT __attribute__((noinline)) uint32_t site_other(unsigned depth, const void *frame, int top, uintptr_t ip,
                                                                uintptr_t sp, uintptr_t fpslot)
{
    int verify = top == 1;
    if (top == 0) {
        top = top_frame(frame, &ip, &sp, &fpslot);
        verify = top && ++W.calls % VERIFY_EVERY == 0;
        if (top && !verify && memo_holds(memo_hot, ip, sp))
            return memo_hot->site;
    }
    if (top && !verify) {
        memo_set *set = memo_set_of(ip, sp);
        const memo *m = memo_last(set, ip, sp);
        if (m) {
            memo_hot = m;
            return m->site;
        }
        /* the set's other ways here, not in site_missed: two sites sharing
         * a set alternate often, and site_missed's frame is large */
        uint32_t site = memo_find_other(set, ip, sp);
        if (site)
            return site;
    }
    return site_missed(depth, top, verify, ip, sp, fpslot);
}

/* The top frame, as top_frame found it last (top_again), is checked
 * against the walk the thread last found (memo_hot) before anything else:
 * a memo's return address is a program frame's, so when it is the frame's,
 * the frame is the top one without asking in_tracer (and memo_none's, 0,
 * is nobody's). */
SIOT_TEXT uint32_t siot_site_here(unsigned depth, const void *frame)
{
    const uintptr_t *fp = top_again(frame);
    if (SIOT_LIKELY(fp != NULL)) {
        uintptr_t ip = fp[1], sp = (uintptr_t)(fp + 2);
        const memo *m = memo_hot;
        int hot = m->ip == ip && m->sp == sp;
        if (SIOT_LIKELY(hot) || !in_tracer(ip)) {
            int verify = ++W.calls % VERIFY_EVERY == 0;
            if (SIOT_LIKELY(hot && !verify) && SIOT_LIKELY(memo_reads_hold(m)))
                return m->site;
            return site_other(depth, frame, verify ? 1 : 2, ip, sp, (uintptr_t)fp);
        }
    }
    return site_other(depth, frame, 0, 0, 0, 0);
}

uint64_t siot_site_walk_mismatches(void) { return atomic_load(&walk_mismatches); }

void siot_stack_warm(void)
{
    uintptr_t raw[8];
    slow_walk(raw, 8); /* libunwind's own set-up, once, before any thread of the program */
    siot_modules_init();
}

int siot_sites_export(siot_trace *t)
{
    siot_lock();
    int rc = siot_sites_export_locked(t);
    siot_unlock();
    return rc;
}

int siot_sites_export_locked(siot_trace *t)
{
    int rc = 0;
    /* Only the modules that some frame points into, renumbered densely. */
    uint32_t npaths = siot_module_count();
    uint32_t *map = siot_calloc(npaths + 1, sizeof *map);
    if (!map)
        return -1;
    for (size_t i = 0; i < G.nframes; i++)
        map[SIOT_ADDR_MODULE(G.frames[i])] = 1;
    uint32_t nused = 0;
    for (uint32_t i = 0; i < npaths; i++)
        map[i] = map[i] ? ++nused : 0; /* new index + 1 */
    t->nmodules = nused;
    t->modules = siot_arena_alloc(&t->arena, (nused ? nused : 1) * sizeof *t->modules);
    t->nsites = G.nsites;
    t->sites = siot_arena_alloc(&t->arena, (G.nsites ? G.nsites : 1) * sizeof *t->sites);
    if (!t->modules || !t->sites) {
        rc = -1;
        t->nmodules = t->nsites = 0;
    }
    for (uint32_t i = 0; rc == 0 && i < npaths; i++) {
        const char *path = siot_module_path(i);
        if (map[i] && !(t->modules[map[i] - 1] = siot_arena_strdup(&t->arena, path, strlen(path))))
            rc = -1;
    }
    for (uint32_t i = 0; rc == 0 && i < G.nsites; i++) {
        siot_site *s = &t->sites[i];
        s->depth = G.depth[i];
        s->addrs = siot_arena_alloc(&t->arena, (s->depth ? s->depth : 1) * sizeof *s->addrs);
        if (!s->addrs) {
            rc = -1;
            break;
        }
        for (uint32_t k = 0; k < s->depth; k++) {
            uint64_t a = G.frames[G.off[i] + k];
            s->addrs[k] = SIOT_ADDR(map[SIOT_ADDR_MODULE(a)] - 1, SIOT_ADDR_OFFSET(a));
        }
    }
    siot_free(map);
    return rc;
}
