/* salloc: the tracer's allocator on the paths that record and write a
 * trace. Normally the C library's. In emergency mode (writing a partial
 * trace from a signal handler, where the interrupted code may hold malloc's
 * locks) a bump allocator over fresh anonymous mappings that never frees:
 * the process is about to end.
 *
 * Locks: none. The emergency side is lock-free (atomic adds on its table
 * of mappings): once emergency mode is on, every thread that records
 * allocates from it, and a signal handler may interrupt one of them inside
 * it. Signals: in emergency mode only atomics and mmap system calls, safe
 * in a handler; otherwise malloc's rules apply.
 *
 * Errors: NULL when memory cannot be had (malloc's answer; in emergency mode
 * a request over 2^46 bytes, 256 mappings used, or mmap failing, errno set);
 * nothing aborts. In emergency mode siot_free does nothing. */
#ifndef SIOT_SALLOC_H
#define SIOT_SALLOC_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern _Atomic int siot_emergency;

/* n bytes of fresh zeroed memory, by the mmap system call itself (the
 * program's mmap is wrapped, and traced); NULL when it fails. */
void *siot_map_anon(size_t n);
void *siot_emalloc(size_t n);
void *siot_erealloc(void *p, size_t n);
int siot_eowns(const void *p);

static inline void *siot_malloc(size_t n) { return siot_emergency ? siot_emalloc(n) : malloc(n); }

static inline void *siot_calloc(size_t a, size_t b)
{
    if (!siot_emergency)
        return calloc(a, b);
    if (b && a > (size_t)-1 / b)
        return NULL;
    return siot_emalloc(a * b); /* fresh mappings are zeroed and never reused */
}

static inline void *siot_realloc(void *p, size_t n)
{
    return siot_emergency || siot_eowns(p) ? siot_erealloc(p, n) : realloc(p, n);
}

static inline void siot_free(void *p)
{
    if (p && !siot_emergency && !siot_eowns(p))
        free(p);
}

/* Parallel arrays grown together, one at a time: the array at p (a pointer
 * to the array's pointer) resized to n bytes; 0, or -1 with it unchanged.
 * The arrays grown before a failure keep their larger size, which is
 * harmless: the caller records the new capacity only once all have grown.
 * The pointer is read and stored through memcpy: p may point to a pointer
 * of any object type. SIOT_REGROW(arr, cap) sizes cap elements of arr. */
static inline int siot_regrow(void *p, size_t n)
{
    void *old, *v;
    memcpy(&old, p, sizeof old);
    if (!(v = siot_realloc(old, n)))
        return -1;
    memcpy(p, &v, sizeof v);
    return 0;
}
#define SIOT_REGROW(arr, cap) siot_regrow(&(arr), (size_t)(cap) * sizeof *(arr))

#endif
