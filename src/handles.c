/* Handle tables: opaque handles (FILE*, DIR*, MPI objects, HDF5 ids) become
 * small integers that are stable across runs and ranks. A new handle takes the
 * lowest free id at or above the kind's base, the way the kernel numbers file
 * descriptors, so that an open/close loop sees the same id every iteration.
 * Callers hold the rank lock. */
#include <stdlib.h>
#include <string.h>

#include "src/handles.h"
#include "core/predef.h"
#include "core/salloc.h"

typedef struct htab {
    uintptr_t *keys;
    int32_t *ids;
    uint64_t *tags; /* siot_h_tag's, 0 for none */
    uint32_t *refs; /* creations seen that returned the key (shared_kind), 0: only looked up */
    uint8_t *state; /* 0 empty, 1 used, 2 deleted */
    uint32_t cap, used, tomb;
    uint64_t *idbits; /* ids in use */
    uint32_t idwords;
    int32_t base;
    int32_t lowest; /* no free id below this one (>= base) */
} htab;

static htab tabs[SIOT_NHKINDS];

/* The stream and directory filters' lock-free hint: live handles of those
 * kinds counted per bucket of their hash, kept under the lock, read without
 * it. A bucket at zero: the handle is certainly not traced (the common case
 * of an fputc or printf on a stream the tracer does not follow). */
#define HINT_BUCKETS 256
static uint32_t hint[2][HINT_BUCKETS];

static uint32_t hash_key(uintptr_t k)
{
    uint64_t x = (uint64_t)k;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

static void hint_add(const htab *h, uintptr_t key, int d)
{
    int kind = (int)(h - tabs);
    if (kind == SIOT_H_STREAM || kind == SIOT_H_DIR)
        __atomic_add_fetch(&hint[kind == SIOT_H_DIR][hash_key(key) % HINT_BUCKETS], (uint32_t)d, __ATOMIC_RELAXED);
}

int siot_h_maybe(int kind, uintptr_t key)
{
    return __atomic_load_n(&hint[kind == SIOT_H_DIR][hash_key(key) % HINT_BUCKETS], __ATOMIC_RELAXED) != 0;
}

static int grow(htab *h)
{
    uint32_t ncap = h->cap ? h->cap * 2 : 64;
    uintptr_t *keys = siot_calloc(ncap, sizeof *keys);
    int32_t *ids = siot_calloc(ncap, sizeof *ids);
    uint64_t *tags = siot_calloc(ncap, sizeof *tags);
    uint32_t *refs = siot_calloc(ncap, sizeof *refs);
    uint8_t *state = siot_calloc(ncap, 1);
    if (!keys || !ids || !tags || !refs || !state) {
        siot_free(keys);
        siot_free(ids);
        siot_free(tags);
        siot_free(refs);
        siot_free(state);
        return 0;
    }
    for (uint32_t i = 0; i < h->cap; i++) {
        if (h->state[i] != 1)
            continue;
        uint32_t j = hash_key(h->keys[i]) & (ncap - 1);
        while (state[j])
            j = (j + 1) & (ncap - 1);
        keys[j] = h->keys[i];
        ids[j] = h->ids[i];
        tags[j] = h->tags[i];
        refs[j] = h->refs[i];
        state[j] = 1;
    }
    /* The parallel arrays field by field (as compress/merge.c's unify_tables
     * and compress/queue.c's siot_queue_free): rehashed into new
     * ones, so core/salloc.h's siot_regrow, which keeps places, is not it. */
    siot_free(h->keys);
    siot_free(h->ids);
    siot_free(h->tags);
    siot_free(h->refs);
    siot_free(h->state);
    h->keys = keys;
    h->ids = ids;
    h->tags = tags;
    h->refs = refs;
    h->state = state;
    h->cap = ncap;
    h->tomb = 0;
    return 1;
}

static int64_t slot_of(const htab *h, uintptr_t key)
{
    if (!h->cap)
        return -1;
    uint32_t j = hash_key(key) & (h->cap - 1);
    for (uint32_t probes = 0; probes < h->cap; probes++) {
        if (h->state[j] == 0)
            return -1;
        if (h->state[j] == 1 && h->keys[j] == key)
            return j;
        j = (j + 1) & (h->cap - 1);
    }
    return -1;
}

/* A key's slot; of a request handle shared by several requests (MPICH's
 * one lightweight completed request, Open MPI's handle for every request
 * that completed at once), the slot of the lowest id: which slot the probe
 * meets first is the table's history, and a wait's recorded labels would
 * follow it, not the program (issue 45: Open MPI's dtype_send replayed
 * with its Waitall labels permuted). Every slot of a key lies on its probe
 * chain, which ends at an empty slot. */
static int64_t slot_for(const htab *h, int kind, uintptr_t key)
{
    int64_t j = slot_of(h, key);
    if (kind != SIOT_H_REQ || j < 0)
        return j;
    for (uint32_t k = ((uint32_t)j + 1) & (h->cap - 1), probes = 1; probes < h->cap && h->state[k];
         k = (k + 1) & (h->cap - 1), probes++)
        if (h->state[k] == 1 && h->keys[k] == key && h->ids[k] < h->ids[j])
            j = k;
    return j;
}

static int id_used(const htab *h, int32_t id)
{
    uint32_t w = (uint32_t)id / 64;
    return w < h->idwords && (h->idbits[w] >> (id % 64)) & 1;
}

static int set_id(htab *h, int32_t id, int on)
{
    uint32_t w = (uint32_t)id / 64;
    if (w >= h->idwords) {
        if (!on)
            return 1;
        uint32_t nw = h->idwords ? h->idwords : 4;
        while (nw <= w)
            nw *= 2;
        uint64_t *b = siot_realloc(h->idbits, nw * sizeof *b);
        if (!b)
            return 0;
        memset(b + h->idwords, 0, (nw - h->idwords) * sizeof *b);
        h->idbits = b;
        h->idwords = nw;
    }
    if (on)
        h->idbits[w] |= 1ULL << (id % 64);
    else
        h->idbits[w] &= ~(1ULL << (id % 64));
    return 1;
}

static int32_t take_lowest(htab *h)
{
    int32_t id = h->lowest < h->base ? h->base : h->lowest;
    while (id_used(h, id))
        id++;
    h->lowest = id + 1;
    return id;
}

/* refs: 1 for a creation, 0 for a key first seen as an argument. */
static int32_t insert(htab *h, uintptr_t key, int32_t id, uint32_t refs)
{
    if ((h->used + h->tomb + 1) * 2 > h->cap && !grow(h))
        return -1;
    uint32_t j = hash_key(key) & (h->cap - 1);
    while (h->state[j] == 1)
        j = (j + 1) & (h->cap - 1);
    if (h->state[j] == 2)
        h->tomb--;
    h->keys[j] = key;
    h->ids[j] = id;
    h->tags[j] = 0;
    h->refs[j] = refs;
    h->state[j] = 1;
    h->used++;
    hint_add(h, key, 1);
    if (!set_id(h, id, 1))
        return -1;
    return id;
}

static void remove_slot(htab *h, uint32_t j)
{
    int32_t id = h->ids[j];
    hint_add(h, h->keys[j], -1);
    h->state[j] = 2;
    h->used--;
    h->tomb++;
    set_id(h, id, 0);
    if (id >= h->base && id < h->lowest)
        h->lowest = id;
}

/* Frees reported by siot_h_gone, waiting for the lock: a place is free
 * (0), being written (1) or ready (2). Written from any thread, read under
 * the lock by drain_gone. */
#define GONE_PLACES 256
static struct gone {
    uint32_t state;
    int kind;
    uintptr_t key;
    uint64_t tag;
} gone[GONE_PLACES];
static uint32_t gone_ready; /* places in state 2 */
static uint64_t gone_lost, next_tag;

/* The last mappings drain_gone dropped: a release that another thread's
 * lookup overtook (a free reported by its callback, drained before the
 * freeing call's own release) still gets the id. */
#define DROPPED_KEPT 8
static struct dropped {
    int kind;
    uintptr_t key;
    int32_t id_plus1; /* 0: none */
} dropped[DROPPED_KEPT];
static unsigned dropped_next;

void siot_h_gone(int kind, uintptr_t key, uint64_t tag)
{
    for (unsigned i = 0; i < GONE_PLACES; i++) {
        uint32_t free_place = 0;
        if (!__atomic_compare_exchange_n(&gone[i].state, &free_place, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            continue;
        gone[i].kind = kind;
        gone[i].key = key;
        gone[i].tag = tag;
        __atomic_store_n(&gone[i].state, 2, __ATOMIC_RELEASE);
        __atomic_add_fetch(&gone_ready, 1, __ATOMIC_RELEASE);
        return;
    }
    __atomic_add_fetch(&gone_lost, 1, __ATOMIC_RELAXED);
}

uint64_t siot_h_gone_lost(void) { return __atomic_load_n(&gone_lost, __ATOMIC_RELAXED); }

static void drop_gone(const struct gone *g)
{
    if (g->kind < 0 || g->kind >= SIOT_NHKINDS)
        return;
    htab *h = &tabs[g->kind];
    int64_t j = slot_of(h, g->key);
    if (j < 0 || h->tags[j] != g->tag)
        return; /* released by its own free, or the handle value made again */
    dropped[dropped_next++ % DROPPED_KEPT] = (struct dropped){g->kind, g->key, h->ids[j] + 1};
    remove_slot(h, (uint32_t)j);
}

static void drain_gone_slow(void)
{
    for (unsigned i = 0; i < GONE_PLACES; i++) {
        if (__atomic_load_n(&gone[i].state, __ATOMIC_ACQUIRE) != 2)
            continue;
        drop_gone(&gone[i]);
        __atomic_store_n(&gone[i].state, 0, __ATOMIC_RELEASE);
        __atomic_sub_fetch(&gone_ready, 1, __ATOMIC_RELAXED);
    }
}

/* Called under the lock before a lookup: one atomic load when nothing waits. */
static inline void drain_gone(void)
{
    if (__atomic_load_n(&gone_ready, __ATOMIC_ACQUIRE))
        drain_gone_slow();
}

uint64_t siot_h_tag(int kind, uintptr_t key)
{
    htab *h = &tabs[kind];
    int64_t j = slot_of(h, key);
    if (j < 0 || h->ids[j] < h->base)
        return 0;
    h->tags[j] = ++next_tag;
    return h->tags[j];
}

int32_t siot_h_find(int kind, uintptr_t key)
{
    drain_gone();
    htab *h = &tabs[kind];
    int64_t j = slot_for(h, kind, key);
    return j < 0 ? -1 : h->ids[j];
}

static uint64_t unknown_uses;

int32_t siot_h_find_known(int kind, uintptr_t key)
{
    int32_t id = siot_h_find(kind, key);
    if (id >= 0)
        return id;
    unknown_uses++;
    return SIOT_ID_UNKNOWN;
}

uint64_t siot_h_unknown_uses(void) { return unknown_uses; }

int32_t siot_h_id(int kind, uintptr_t key)
{
    drain_gone();
    htab *h = &tabs[kind];
    int64_t j = slot_of(h, key);
    if (j >= 0)
        return h->ids[j];
    return insert(h, key, take_lowest(h), 0);
}

/* Kinds of which MPI hands out a live object again as the result of a
 * creating call, each result a reference the program frees once: groups
 * (MPI_Comm_group of the same communicator twice gives the same handle on
 * MPICH and Open MPI; on Open MPI, MPI_File_get_group, MPI_Win_get_group
 * and MPI_Comm_group of MPI_COMM_WORLD or of its duplicates all give the
 * world's group). For the other kinds a creation never returns a live
 * value (each makes a new object; checked on both libraries for
 * MPI_File_get_view's types and MPI_Type_dup of a predefined type, and the
 * group constructors of the whole group make new groups): a known value
 * made again was freed where the tracer could not see, and is a new object. */
static int shared_kind(int kind) { return kind == SIOT_H_GROUP; }

/* A creation returned the live value of slot j: one more reference to the
 * same object, with the same id, when the kind shares and the mapping was
 * made by a creation the tracer saw (a key only looked up may have been
 * freed unseen). 1: counted; 0: the caller replaces the mapping. */
static int one_more_ref(htab *h, int kind, int64_t j)
{
    if (!shared_kind(kind) || h->refs[j] == 0 || h->refs[j] == UINT32_MAX)
        return 0;
    h->refs[j]++;
    return 1;
}

int32_t siot_h_new(int kind, uintptr_t key)
{
    drain_gone();
    htab *h = &tabs[kind];
    int64_t j = slot_of(h, key);
    /* MPICH gives every request that completed as it was made (a small
     * eager send) the same handle, its one lightweight completed request:
     * each keeps an id of its own, and a lookup or release of that handle
     * takes one of them. */
    if (kind == SIOT_H_REQ)
        j = -1;
    if (j >= 0) {
        if (h->ids[j] < h->base || one_more_ref(h, kind, j))
            return h->ids[j];
        /* The same value again: the old handle was freed where we could not see it. */
        remove_slot(h, (uint32_t)j);
    }
    return insert(h, key, take_lowest(h), 1);
}

/* Unlike siot_h_new, of any kind and of a key only looked up too: the
 * call returns a reference to an object the program holds now (the
 * constituent of a type it holds), so a live mapping cannot be stale. A
 * key first seen as an argument counts two: the reference its unseen
 * creation made, and this one; the object's end, whoever frees it last,
 * is reported by its free or the library's (siot_h_gone). */
int32_t siot_h_ref(int kind, uintptr_t key)
{
    drain_gone();
    htab *h = &tabs[kind];
    int64_t j = slot_of(h, key);
    if (j < 0)
        return insert(h, key, take_lowest(h), 1);
    if (h->ids[j] >= h->base && h->refs[j] < UINT32_MAX)
        h->refs[j] = h->refs[j] ? h->refs[j] + 1 : 2;
    return h->ids[j];
}

int32_t siot_h_next(int kind)
{
    drain_gone();
    htab *h = &tabs[kind];
    int32_t id = h->lowest < h->base ? h->base : h->lowest;
    while (id_used(h, id))
        id++;
    return id;
}

int32_t siot_h_new_at(int kind, uintptr_t key, int32_t id)
{
    drain_gone();
    htab *h = &tabs[kind];
    int64_t j = slot_of(h, key);
    if (j >= 0) {
        if (h->ids[j] < h->base || one_more_ref(h, kind, j))
            return h->ids[j];
        remove_slot(h, (uint32_t)j);
    }
    if (id < h->base || id_used(h, id))
        id = take_lowest(h);
    return insert(h, key, id, 1);
}

static int32_t dropped_id(int kind, uintptr_t key)
{
    for (unsigned i = 0; i < DROPPED_KEPT; i++) {
        struct dropped *d = &dropped[(dropped_next - 1 - i) % DROPPED_KEPT];
        if (d->id_plus1 && d->key == key && d->kind == kind) {
            int32_t id = d->id_plus1 - 1;
            d->id_plus1 = 0;
            return id;
        }
    }
    return -1;
}

/* No drain here: the freeing call's own callback has just reported this
 * handle, and its release must still find the id. A free of one of several
 * references (one_more_ref) keeps the id: MPI keeps the object. */
int32_t siot_h_release(int kind, uintptr_t key)
{
    htab *h = &tabs[kind];
    int64_t j = slot_for(h, kind, key);
    if (j < 0)
        return dropped_id(kind, key);
    int32_t id = h->ids[j];
    if (id >= h->base && h->refs[j] > 1)
        h->refs[j]--;
    else if (id >= h->base)
        remove_slot(h, (uint32_t)j);
    return id;
}

void siot_h_fixed(int kind, uintptr_t key, int32_t id)
{
    htab *h = &tabs[kind];
    int64_t j = slot_of(h, key);
    if (j >= 0)
        remove_slot(h, (uint32_t)j);
    insert(h, key, id, 0);
}

void siot_h_set_base(int kind, int32_t base)
{
    tabs[kind].base = base;
    if (tabs[kind].lowest < base)
        tabs[kind].lowest = base;
}

void siot_h_clear(int kind)
{
    htab *h = &tabs[kind];
    siot_free(h->keys);
    siot_free(h->ids);
    siot_free(h->tags);
    siot_free(h->refs);
    siot_free(h->state);
    siot_free(h->idbits);
    int32_t base = h->base;
    if (kind == SIOT_H_STREAM || kind == SIOT_H_DIR)
        for (int b = 0; b < HINT_BUCKETS; b++)
            __atomic_store_n(&hint[kind == SIOT_H_DIR][b], 0, __ATOMIC_RELAXED);
    memset(h, 0, sizeof *h);
    h->base = base;
    h->lowest = base;
}

void siot_h_reset_all(void)
{
    for (int k = 0; k < SIOT_NHKINDS; k++)
        siot_h_clear(k);
    unknown_uses = 0;
}
