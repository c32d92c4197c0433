/* xmerge: growing an expression by one more loop iteration.
 *
 * When a repeated sequence folds into a loop, every value of every event in
 * it becomes a function of the loop's iteration. siot_x_extend takes the
 * expression that yields iterations 0..c-1 of a loop level and makes it also
 * yield the value seen at iteration c: constants stay constants, two points
 * make a progression, a value that continues it changes nothing, string
 * patterns and arrays grow field by field, and anything else becomes a
 * piecewise run table (lossless, but it grows).
 *
 * Locks: none of its own; only the queues use it, each under its own
 * thread's queue lock. The shared small constants are read-only, filled by
 * a constructor at load time (xmerge.c), before any thread records.
 *
 * Errors: only allocation fails. The builders and siot_x_clone return NULL
 * (siot_x_clone also for a per-rank table, which it never copies);
 * siot_x_extend and siot_x_approx_extend return -1 with *px still valid for
 * the iterations it held; siot_x_tmp_raw returns NULL for a value too large
 * for the scratch area. */
#ifndef SIOT_XMERGE_H
#define SIOT_XMERGE_H

#include "core/event.h"
#include "compress/pool.h"

int siot_x_equal(const siot_expr *a, const siot_expr *b);
siot_expr *siot_x_clone(siot_pool *p, const siot_expr *x);
void siot_x_free(siot_pool *p, siot_expr *x);
int siot_x_depends(const siot_expr *x, unsigned lvl);
/* A constant: shared for small values, so flat traces stay small. Inline
 * for the shared ones (every new event makes five or more constants); the
 * others, and a use before the table is filled, out of line. */
#define SIOT_X_INTERN_LO (-16)
#define SIOT_X_INTERN_HI 4096
extern siot_expr siot_x_interned[SIOT_X_INTERN_HI - SIOT_X_INTERN_LO];
extern int siot_x_interned_ready;
siot_expr *siot_x_int_made(siot_pool *p, int64_t v);
/* A constant of its own in the pool (a value outside the shared ones). */
static inline siot_expr *siot_x_int_own(siot_pool *p, int64_t v)
{
    siot_expr *x = siot_pool_alloc(p, sizeof *x);
    if (x) {
        x->tag = SIOT_X_CONST;
        x->base = v;
    }
    return x;
}
static inline siot_expr *siot_x_int(siot_pool *p, int64_t v)
{
    if (v >= SIOT_X_INTERN_LO && v < SIOT_X_INTERN_HI && __builtin_expect(siot_x_interned_ready, 1))
        return &siot_x_interned[v - SIOT_X_INTERN_LO];
    return siot_x_int_made(p, v);
}
/* siot_x_int for the several values of one event: the table, or NULL
 * before it is filled (siot_x_int_table), read once instead of for each
 * value (a store through any pointer between two values makes the compiler
 * read the flag and the table's address again), and one unsigned compare. */
static inline siot_expr *siot_x_int_table(void)
{
    return __builtin_expect(siot_x_interned_ready, 1) ? siot_x_interned : (siot_expr *)0;
}
static inline siot_expr *siot_x_int_in(siot_pool *p, siot_expr *table, int64_t v)
{
    if (__builtin_expect(table == 0, 0))
        return siot_x_int_made(p, v);
    if ((uint64_t)v - (uint64_t)(int64_t)SIOT_X_INTERN_LO < (uint64_t)(SIOT_X_INTERN_HI - SIOT_X_INTERN_LO))
        return &table[v - SIOT_X_INTERN_LO];
    return siot_x_int_own(p, v); /* inline: an offset, a size */
}
/* Pattern form of a string: text and numeric fields (checkpoint-001-3.nc ->
 * "checkpoint-", 1 (%03d), "-", 3, ".nc"). */
siot_expr *siot_x_strpat(siot_pool *p, const char *s, size_t n);
siot_expr *siot_x_from_raw(siot_pool *p, const siot_rawval *v, const uint8_t *pool);

/* *px yields iterations 0..c-1 of loop level lvl (c >= 1); afterwards it also
 * yields X at iteration c. X is only read (copied when kept) and does not
 * depend on levels >= lvl. Returns 0, or -1 when memory ran out (*px is then
 * still valid for iterations 0..c-1). */
int siot_x_extend(siot_pool *p, siot_expr **px, const siot_expr *X, unsigned lvl, uint64_t c);

/* SIOT_TOLERANCE: when *px (a loop count over iterations 0..c-1 of a level)
 * and X differ by at most tolerance percent, *px becomes (or stays) an
 * approximate count that also counts X: returns 1. Returns 0 when the values
 * are not within tolerance (or not counts), -1 when memory ran out. */
int siot_x_approx_extend(siot_pool *p, siot_expr **px, const siot_expr *X, uint64_t c, double tolerance);
/* The merge of ranks: two loop counts (constants or approximate counts)
 * within tolerance percent of each other as one approximate count in the
 * arena (a constant stands for as many instances as the other side's, or
 * one); a itself when they are equal; NULL when they are not within it,
 * not counts, or memory ran out (the caller then merges them exactly). */
siot_expr *siot_x_approx_union(siot_arena *ar, siot_expr *a, const siot_expr *b, double tolerance);

/* Temporary expressions for a raw value, without the pool: built in tmp
 * (a scratch area reused per value), valid until tmp is reused. */
typedef struct siot_xtmp {
    siot_expr x;
    siot_expr items[64];
    siot_expr *itemp[64];
    siot_strseg segs[64];
    siot_expr fields[64];
} siot_xtmp;
/* NULL when the value does not fit the scratch area (then use siot_x_from_raw). */
const siot_expr *siot_x_tmp_raw(siot_xtmp *tmp, const siot_rawval *v, const uint8_t *pool);
const siot_expr *siot_x_tmp_int(siot_xtmp *tmp, int64_t v);

#endif
