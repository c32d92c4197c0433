#include "compress/pool.h"

#include <string.h>

/* The smallest class of 16 << c bytes that holds n (the last class when
 * none does), without a loop: every event's node and values pass here. */
static unsigned size_class(size_t n)
{
    if (n <= 16)
        return 0;
    unsigned c = 64u - (unsigned)__builtin_clzll((unsigned long long)(n - 1)) - 4u;
    return c < SIOT_POOL_CLASSES ? c : SIOT_POOL_CLASSES - 1;
}

static size_t class_size(unsigned c) { return (size_t)16 << c; }

void siot_pool_init(siot_pool *p, siot_arena *a)
{
    memset(p, 0, sizeof *p);
    p->arena = a;
}

void *siot_pool_alloc(siot_pool *p, size_t n)
{
    unsigned c = size_class(n ? n : 1);
    size_t s = class_size(c);
    void *b = p->free[c];
    if (b) {
        p->free[c] = *(void **)b;
        memset(b, 0, s);
    } else {
        b = siot_arena_alloc(p->arena, s);
        if (!b)
            return NULL;
    }
    p->live += s;
    if (p->live > p->peak)
        p->peak = p->live;
    return b;
}

void siot_pool_free(siot_pool *p, void *blk, size_t n)
{
    if (!blk)
        return;
    unsigned c = size_class(n ? n : 1);
    *(void **)blk = p->free[c];
    p->free[c] = blk;
    p->live -= class_size(c);
}

void *siot_pool_realloc(siot_pool *p, void *blk, size_t old_n, size_t new_n)
{
    if (blk && size_class(old_n ? old_n : 1) == size_class(new_n ? new_n : 1))
        return blk;
    void *nb = siot_pool_alloc(p, new_n);
    if (!nb)
        return NULL;
    if (blk) {
        memcpy(nb, blk, old_n < new_n ? old_n : new_n);
        siot_pool_free(p, blk, old_n);
    }
    return nb;
}
