/* hmap: handles to files (replay/hmap.h). */
#include "replay/hmap.h"

#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

static uint64_t handle_hash(int32_t rank, uint8_t kind, int64_t id)
{
    return siot_hash_fmix((uint64_t)id * 31 + ((uint64_t)(uint32_t)rank << 3) + kind);
}

/* The handle's slot, or the empty one that ends its probe; cap > 0. */
static rp_handle *slot(const rp_hmap *m, int32_t rank, uint8_t kind, int64_t id)
{
    uint64_t i = handle_hash(rank, kind, id) & (m->cap - 1);
    while (m->h[i].used && !(m->h[i].rank == rank && m->h[i].kind == kind && m->h[i].id == id))
        i = (i + 1) & (m->cap - 1);
    return &m->h[i];
}

static int grow(rp_hmap *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 256, old = m->cap;
    rp_handle *prev = m->h, *v = calloc(cap, sizeof *v);
    if (!v)
        return -1;
    m->h = v;
    m->cap = cap;
    for (uint32_t i = 0; i < old; i++)
        if (prev[i].used)
            *slot(m, prev[i].rank, prev[i].kind, prev[i].id) = prev[i];
    free(prev);
    return 0;
}

rp_handle *rp_hmap_find(const rp_hmap *m, int32_t rank, uint8_t kind, int64_t id)
{
    if (!m->cap)
        return NULL;
    rp_handle *s = slot(m, rank, kind, id);
    return s->used ? s : NULL;
}

rp_handle *rp_hmap_set(rp_hmap *m, int32_t rank, uint8_t kind, int64_t id, int32_t file)
{
    if ((m->count + 1) * 2 > m->cap && grow(m) != 0)
        return NULL;
    rp_handle *s = slot(m, rank, kind, id);
    if (!s->used)
        m->count++;
    *s = (rp_handle){.id = id, .pos = 0, .rank = rank, .file = file, .kind = kind, .used = 1};
    return s;
}

/* Linear probing without tombstones: the handles after the hole in its
 * run move back into it when their probe started at or before it, so that
 * every probe still finds its handle before an empty slot. */
void rp_hmap_remove(rp_hmap *m, rp_handle *h)
{
    uint32_t mask = m->cap - 1, hole = (uint32_t)(h - m->h);
    for (uint32_t j = (hole + 1) & mask; m->h[j].used; j = (j + 1) & mask) {
        uint32_t home = (uint32_t)handle_hash(m->h[j].rank, m->h[j].kind, m->h[j].id) & mask;
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            m->h[hole] = m->h[j];
            hole = j;
        }
    }
    m->h[hole].used = 0;
    m->count--;
}

void rp_hmap_clear(rp_hmap *m)
{
    if (m->cap)
        memset(m->h, 0, m->cap * sizeof *m->h);
    m->count = 0;
}

void rp_hmap_free(rp_hmap *m)
{
    free(m->h);
    memset(m, 0, sizeof *m);
}
