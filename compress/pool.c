#include "compress/pool.h"

#include <string.h>

static unsigned size_class(size_t n)
{
    unsigned c = 0;
    size_t s = 16;
    while (s < n && c + 1 < SIOT_POOL_CLASSES) {
        s <<= 1;
        c++;
    }
    return c;
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
