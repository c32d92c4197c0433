/* The emergency side of the tracer's allocator (salloc.h): only system
 * calls, so that it can run in a signal handler. */
#include "core/salloc.h"

#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

_Atomic int siot_emergency;

#define CHUNK_MIN (64u << 20)
#define MAX_CHUNKS 256
#define HDR 16 /* each block is preceded by its size, 16-byte aligned */

static struct {
    uint8_t *base;
    size_t size, used;
} chunks[MAX_CHUNKS];
static int nchunks;

void *siot_map_anon(size_t n)
{
    void *m = (void *)syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED || (intptr_t)m < 0 ? NULL : m;
}

int siot_eowns(const void *p)
{
    for (int i = 0; i < nchunks; i++)
        if ((const uint8_t *)p >= chunks[i].base && (const uint8_t *)p < chunks[i].base + chunks[i].size)
            return 1;
    return 0;
}

void *siot_emalloc(size_t n)
{
    if (n > ((size_t)1 << 46))
        return NULL;
    size_t need = (n + HDR + 15) & ~(size_t)15;
    if (!nchunks || chunks[nchunks - 1].used + need > chunks[nchunks - 1].size) {
        if (nchunks == MAX_CHUNKS)
            return NULL;
        size_t sz = need > CHUNK_MIN ? (need + 4095) & ~(size_t)4095 : CHUNK_MIN;
        void *m = siot_map_anon(sz);
        if (!m)
            return NULL;
        chunks[nchunks].base = m;
        chunks[nchunks].size = sz;
        chunks[nchunks].used = 0;
        nchunks++;
    }
    uint8_t *b = chunks[nchunks - 1].base + chunks[nchunks - 1].used;
    chunks[nchunks - 1].used += need;
    *(size_t *)b = n;
    return b + HDR;
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
