/* pool: size-class free lists over an arena. Folding frees nodes and
 * expressions all the time; recycling them keeps the recorder's memory
 * proportional to the compressed trace and its steady state free of malloc.
 *
 * Locks: none of its own: a pool belongs to one thread's queue, used under
 * that queue's own lock (compress/queue.h, src/lock_fast.h).
 *
 * Errors: siot_pool_alloc and siot_pool_realloc return NULL when the arena
 * cannot grow (a block being grown is then kept as it was); freeing cannot
 * fail. */
#ifndef SIOT_POOL_H
#define SIOT_POOL_H

#include <stddef.h>

#include "core/model.h"

#define SIOT_POOL_CLASSES 40

typedef struct siot_pool {
    siot_arena *arena;
    void *free[SIOT_POOL_CLASSES];
    size_t live;  /* bytes handed out and not freed */
    size_t peak;
} siot_pool;

void siot_pool_init(siot_pool *p, siot_arena *a);

/* The smallest class of 16 << c bytes that holds n (the last class when
 * none does), without a loop: every event's node and values pass here. */
static inline unsigned siot_pool_class(size_t n)
{
    if (n <= 16)
        return 0;
    unsigned c = 64u - (unsigned)__builtin_clzll((unsigned long long)(n - 1)) - 4u;
    return c < SIOT_POOL_CLASSES ? c : SIOT_POOL_CLASSES - 1;
}

/* Zeroed block of at least n bytes; NULL when memory is exhausted. Inline:
 * a new event takes three blocks or more, of sizes its callers know, so
 * that the class is found at compile time. */
static inline void *siot_pool_alloc(siot_pool *p, size_t n)
{
    unsigned c = siot_pool_class(n ? n : 1);
    size_t s = (size_t)16 << c;
    void *b = p->free[c];
    if (b) {
        p->free[c] = *(void **)b;
        __builtin_memset(b, 0, s);
    } else {
        b = siot_arena_alloc8(p->arena, s); /* s: 16 << c */
        if (!b)
            return NULL;
    }
    p->live += s;
    if (p->live > p->peak)
        p->peak = p->live;
    return b;
}

/* Returns a block; n must be the size it was allocated with. */
void siot_pool_free(siot_pool *p, void *blk, size_t n);
/* Grows an array block from old_n to new_n bytes (copying). */
void *siot_pool_realloc(siot_pool *p, void *blk, size_t old_n, size_t new_n);

#endif
