/* origin: which traced calls each call was made inside, over one
 * siot_analyze pass, so that a POSIX write ROMIO made for an H5Dwrite is
 * shown where the program called H5Dwrite (siot findings, siot stats' call
 * sites, siot report).
 *
 * An origin is a chain of traced calls from an outermost one (a call with no
 * traced call around it) down to one call: its function and call site, and
 * the origin of the call around it. Equal chains are one origin, so a trace
 * has about as many origins as distinct (call site, caller chain) pairs.
 *
 * How the chain is found: each event's parent is "d events back on its rank"
 * (core/model.h); the pass walks each rank's events in program order, but a
 * multiplied loop's body once for all its iterations, so each rank's count of
 * events walked is advanced by the iterations not walked when the loop ends
 * (a multiplied loop runs the same events in each iteration: analyze.h).
 * Per rank a stack of the open calls (shared between ranks in the same state)
 * gives the parent. A record stands for several ranks and iterations: its
 * origin is the one of its first rank in the first iteration; a parent the
 * stack does not hold (a loop the compressor cut across a call and its
 * children) makes the call an outermost one, counted in `unlinked`.
 *
 * Errors: running out of memory sets oom (origins then stop being added and
 * records get origin 0). No locks. */
#ifndef SIOT_ORIGIN_H
#define SIOT_ORIGIN_H

#include <stdint.h>

#include "replay/analyze.h"

typedef struct siot_origin {
    uint32_t parent; /* origin id of the call around it, 0 for an outermost call */
    uint32_t root;   /* origin id of the chain's outermost call (itself when parent is 0) */
    uint32_t func, site; /* site: index + 1 as in siot_event.site, 0 unknown */
    uint32_t depth;      /* 0 for an outermost call */
    uint64_t calls;      /* calls of all ranks the pass attributed to it */
} siot_origin;

typedef struct siot_origins {
    const siot_trace *t;
    siot_origin *v; /* v[0] unused: id 0 is "none" */
    uint32_t n, cap;
    uint32_t *ix, capix; /* open addressing on (parent, func, site) */
    struct siot_ocell **top; /* per rank: the innermost open call */
    int64_t *seq;            /* per rank: events walked, multiplied loops' iterations included */
    struct siot_oloop *loops;
    uint32_t nloops, caploops;
    struct siot_ocell *freelist;
    uint32_t *dominant; /* per site + 1: its origin with the most calls (at the pass's end) */
    uint64_t unlinked;  /* calls whose parent was not found */
    uint32_t current;   /* the origin of the record being handled (siot_origins_wrap) */
    siot_handlers inner;
    int oom;
} siot_origins;

int siot_origins_init(siot_origins *o, const siot_trace *t); /* -1 when out of memory */
void siot_origins_free(siot_origins *o);
/* Handlers' callbacks, in the pass's order: the record's origin id (0 when
 * out of memory). */
uint32_t siot_origins_event(siot_origins *o, const siot_agg_event *e);
void siot_origins_loop_enter(siot_origins *o, uint64_t count, int expanded, const int32_t *ranks, uint32_t nranks);
void siot_origins_loop_exit(siot_origins *o);
/* Handlers that follow the chains, then call inner's, whose event callback
 * finds the record's origin in o->current. */
siot_handlers siot_origins_wrap(siot_origins *o, const siot_handlers *inner);
/* After a pass through siot_origins_wrap: the origin of a call site with the
 * most calls (0 when it had none). */
uint32_t siot_origins_dominant(const siot_origins *o, uint32_t site);

#endif
