#define UNW_LOCAL_ONLY
#include "src/stack.h"
#include "core/salloc.h"

#include <link.h>
#include <libunwind.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/modules.h"
#include "src/runtime.h"

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

/* The return addresses of the stack, innermost first. */
static int backtrace_ips(void **ips, int n)
{
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer builds: unw_backtrace's per-thread cache has a
     * destructor that locks a mutex after TSan has let go of the exiting
     * thread (a crash); the step-by-step walk keeps no such cache. */
    unw_context_t uc;
    unw_cursor_t cur;
    int got = 0;
    if (unw_getcontext(&uc) != 0 || unw_init_local(&cur, &uc) != 0)
        return 0;
    while (got < n && unw_step(&cur) > 0) {
        unw_word_t ip;
        if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0)
            break;
        ips[got++] = (void *)ip;
    }
    return got;
#else
    return unw_backtrace(ips, n);
#endif
}

SIOT_TEXT uint32_t siot_site_here(unsigned depth)
{
    void *ips[MAX_FRAMES + 8];
    uintptr_t raw[MAX_FRAMES];
    if (depth > MAX_FRAMES)
        depth = MAX_FRAMES;
    int got = backtrace_ips(ips, (int)(depth + 8 < MAX_FRAMES + 8 ? depth + 8 : MAX_FRAMES + 8));
    uint32_t n = 0;
    for (int i = 0; i < got && n < depth; i++)
        if (!in_tracer((uintptr_t)ips[i]))
            raw[n++] = (uintptr_t)ips[i];
    if (n == 0)
        return 0;
    uint64_t h = hash_frames((const uint64_t *)raw, n);
    cache_slot *c = &cache[h & (CACHE_SLOTS - 1)];
    if (c->site && c->n == n && n <= CACHE_DEPTH && memcmp(c->raw, raw, n * sizeof *raw) == 0)
        return c->site;
    /* mapped outside the lock: a library loaded since may need the loader's lock (modules.h) */
    uint64_t f[MAX_FRAMES];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (map_addr(raw[i], &f[k]))
            k++;
    siot_lock();
    uint32_t site = k ? intern_site(f, k) : 0;
    siot_unlock();
    if (site && n <= CACHE_DEPTH) {
        c->n = n;
        c->site = site;
        memcpy(c->raw, raw, n * sizeof *raw);
    }
    return site;
}

void siot_stack_warm(void)
{
    void *ips[8];
    backtrace_ips(ips, 8); /* libunwind's own set-up, once, before any thread of the program */
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
