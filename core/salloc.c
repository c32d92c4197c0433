/* The emergency side of the tracer's allocator (salloc.h): only system
 * calls, so that it can run in a signal handler. */
#include "core/salloc.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

_Atomic int siot_emergency;

#define CHUNK_MIN (64u << 20)
#define MAX_CHUNKS 256
#define HDR 16 /* each block is preceded by its size, 16-byte aligned */

/* Emergency mode is process-wide: the program's other threads go on
 * recording while one writes the ending, and a signal handler may
 * interrupt any of them inside siot_emalloc. So no lock (a handler could
 * wait for its own thread): blocks are carved from the current chunk by an
 * atomic add on its `used`, and a new chunk takes a slot of its own
 * (`reserved`), is filled in before its base is published (release), and
 * becomes the current one unless a later slot already did. */
static struct chunk {
    _Atomic(uint8_t *) base; /* NULL until the chunk can be used */
    size_t size;
    _Atomic size_t used;
} chunks[MAX_CHUNKS];
static _Atomic unsigned reserved; /* slots handed out (some may have stayed empty) */
static _Atomic unsigned current;  /* slot + 1 of the chunk blocks are carved from; 0: none */

void *siot_map_anon(size_t n)
{
    void *m = (void *)syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED || (intptr_t)m < 0 ? NULL : m;
}

int siot_eowns(const void *p)
{
    unsigned n = atomic_load(&reserved);
    for (unsigned i = 0; i < n && i < MAX_CHUNKS; i++) {
        const uint8_t *b = atomic_load_explicit(&chunks[i].base, memory_order_acquire);
        if (b && (const uint8_t *)p >= b && (const uint8_t *)p < b + chunks[i].size)
            return 1;
    }
    return 0;
}

static void *block_at(uint8_t *b, size_t n)
{
    *(size_t *)b = n;
    return b + HDR;
}

/* A block of need bytes from the current chunk, NULL when it has no room
 * (the bytes claimed past its end are never used). */
static void *carve(size_t need, size_t n)
{
    unsigned cur = atomic_load_explicit(&current, memory_order_acquire);
    if (!cur)
        return NULL;
    struct chunk *c = &chunks[cur - 1];
    size_t at = atomic_fetch_add(&c->used, need);
    if (at > c->size || need > c->size - at)
        return NULL;
    return block_at(atomic_load_explicit(&c->base, memory_order_relaxed) + at, n);
}

/* A fresh chunk whose first block is the caller's, made the current one. */
static void *new_chunk(size_t need, size_t n)
{
    unsigned slot = atomic_fetch_add(&reserved, 1);
    if (slot >= MAX_CHUNKS)
        return NULL;
    size_t sz = need > CHUNK_MIN ? (need + 4095) & ~(size_t)4095 : CHUNK_MIN;
    uint8_t *m = siot_map_anon(sz);
    if (!m)
        return NULL;
    chunks[slot].size = sz;
    atomic_store_explicit(&chunks[slot].used, need, memory_order_relaxed);
    atomic_store_explicit(&chunks[slot].base, m, memory_order_release);
    unsigned cur = atomic_load(&current);
    while (cur < slot + 1 && !atomic_compare_exchange_weak(&current, &cur, slot + 1))
        ;
    return block_at(m, n);
}

void *siot_emalloc(size_t n)
{
    if (n > ((size_t)1 << 46))
        return NULL;
    size_t need = (n + HDR + 15) & ~(size_t)15;
    void *b = carve(need, n);
    return b ? b : new_chunk(need, n);
}

void *siot_erealloc(void *p, size_t n)
{
    void *q = siot_emalloc(n);
    if (!q || !p)
        return q;
    /* malloc_usable_size only reads the block's header: no lock */
    size_t old = siot_eowns(p) ? *(size_t *)((uint8_t *)p - HDR) : malloc_usable_size(p);
    memcpy(q, p, old < n ? old : n);
    return q;
}
