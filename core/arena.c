#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/salloc.h"
#include <stdint.h>
#include <sys/mman.h>

/* A chunk of 2 MiB or more is a mapping of its own, aligned on 2 MiB and
 * advised to be backed by transparent huge pages (where the system leaves
 * them to madvise): the recorder fills its chunks in order, and each 4 KiB
 * page first touched costs a fault (about 1.6 us in a VM, a tenth of an
 * irregular event's cost); one huge page replaces 512 of them. A chunk from
 * malloc would be aligned on 4 KiB and only its aligned 2 MiB middle could
 * be huge. The advice may be refused: nothing fails without it. In
 * emergency mode chunks come from salloc's own mappings. */
static const size_t huge_page = (size_t)2 << 20;

static siot_arena_chunk *map_huge_chunk(size_t bytes)
{
    char *m = siot_map_anon(bytes + huge_page);
    if (!m)
        return NULL;
    char *lo = (char *)(((uintptr_t)m + huge_page - 1) & ~(uintptr_t)(huge_page - 1));
    if (lo > m)
        munmap(m, (size_t)(lo - m));
    if (lo + bytes < m + bytes + huge_page)
        munmap(lo + bytes, (size_t)(m + bytes + huge_page - (lo + bytes)));
    madvise(lo, bytes, MADV_HUGEPAGE);
    siot_arena_chunk *c = (siot_arena_chunk *)lo;
    c->mapped = bytes;
    return c; /* fresh anonymous memory is zeroed */
}

/* Smaller chunks (64 KiB to 1 MiB) are mappings of their own too: from
 * malloc, a chunk that reuses freed memory is zeroed whole by calloc, so
 * its every page becomes resident however little of it is used, and glibc
 * takes such chunks from the heap once the program has freed a large
 * block (its mmap threshold rises: Open MPI's collective buffers raise it
 * to 32 MiB), where their pages stay resident after they are freed. Rank
 * 0 of FLASH-IO on Open MPI, 16 ranks: the merge at MPI_Finalize took 4.5
 * MB of resident memory for 1-2 MB of arena. A fresh mapping's pages are
 * resident once touched and given back by munmap. */
static siot_arena_chunk *map_chunk(size_t bytes)
{
    siot_arena_chunk *c = siot_map_anon(bytes);
    if (c)
        c->mapped = bytes;
    return c;
}

/* A chunk whose whole footprint (header included) is `bytes`, zeroed. */
static siot_arena_chunk *new_chunk(size_t bytes)
{
    siot_arena_chunk *c = NULL;
    if (bytes >= huge_page && bytes % huge_page == 0 && !siot_emergency)
        c = map_huge_chunk(bytes);
    else if (!siot_emergency)
        c = map_chunk(bytes);
    if (!c)
        c = siot_calloc(1, bytes);
    if (c)
        c->size = bytes - sizeof *c;
    return c;
}

static void free_chunk(siot_arena_chunk *c)
{
    if (c->mapped && !siot_emergency)
        munmap(c, c->mapped);
    else if (!c->mapped)
        siot_free(c);
}

void siot_arena_init(siot_arena *a)
{
    memset(a, 0, sizeof *a);
    a->chunk_bytes = 64 * 1024;
}

void siot_arena_free(siot_arena *a)
{
    siot_arena_chunk *c = a->head;
    while (c) {
        siot_arena_chunk *n = c->next;
        free_chunk(c);
        c = n;
    }
    a->head = NULL;
    a->used_bytes = 0;
}

void *siot_arena_alloc(siot_arena *a, size_t n)
{
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX - 16)
        return NULL;
    n = (n + 7) & ~(size_t)7;
    siot_arena_chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t want = a->chunk_bytes ? a->chunk_bytes : 64 * 1024;
        /* Large requests get their own chunk so small ones keep filling the current one. */
        if (n > want / 4) {
            siot_arena_chunk *big = siot_calloc(1, sizeof *big + n);
            if (!big)
                return NULL;
            big->size = n;
            big->used = n;
            if (c) {
                big->next = c->next;
                c->next = big;
            } else {
                a->head = big;
            }
            a->used_bytes += n;
            return big->data;
        }
        c = new_chunk(want);
        if (!c)
            return NULL;
        c->next = a->head;
        a->head = c;
        if (a->chunk_bytes < 4 * 1024 * 1024)
            a->chunk_bytes *= 2;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    a->used_bytes += n;
    return p;
}

char *siot_arena_strdup(siot_arena *a, const char *s, size_t n)
{
    char *d = siot_arena_alloc(a, n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

void siot_arena_take(siot_arena *dst, siot_arena *src)
{
    if (!src->head)
        return;
    if (!dst->head) {
        dst->head = src->head;
    } else {
        /* Keep dst's current chunk first so its free space is still used. */
        siot_arena_chunk *t = src->head;
        while (t->next)
            t = t->next;
        t->next = dst->head->next;
        dst->head->next = src->head;
    }
    dst->used_bytes += src->used_bytes;
    src->head = NULL;
    src->used_bytes = 0;
}
