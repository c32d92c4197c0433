#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/salloc.h"
#include <stdint.h>
#include <sys/mman.h>

/* A chunk of 2 MiB or more asks for transparent huge pages on its aligned
 * part (where the system leaves them to madvise): the recorder fills its
 * chunks in order, and each 4 KiB page first touched costs a fault; one
 * huge page replaces 512 of them. Advice only: nothing fails without it. */
static void advise_huge(void *p, size_t n)
{
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);
    if (hi > lo && !siot_emergency)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
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
        siot_free(c);
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
        c = siot_calloc(1, sizeof *c + want);
        if (!c)
            return NULL;
        c->size = want;
        if (want >= ((size_t)2 << 20))
            advise_huge(c->data, want);
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
