#include "compress/pool.h"

#include <string.h>

static unsigned size_class(size_t n) { return siot_pool_class(n); }

static size_t class_size(unsigned c) { return (size_t)16 << c; }

void siot_pool_init(siot_pool *p, siot_arena *a)
{
    memset(p, 0, sizeof *p);
    p->arena = a;
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
