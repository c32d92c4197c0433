/* walk: one rank's events, in program order, straight from the compressed
 * trace. Loops are iterated, nodes of other ranks skipped, and each event
 * comes with the context (rank, loop iterations, occurrence number) in which
 * its expressions are evaluated. State is O(nesting depth + node count),
 * independent of the number of events produced.
 *
 * Errors: siot_iter_init 0, or -1 without memory. siot_iter_next returns
 * NULL with it->err set for a trace it cannot walk (a loop count that cannot
 * be evaluated, loops nested too deeply, over 2^22 loop iterations without
 * an event); it never checks err itself, so a caller stops at that NULL. */
#ifndef SIOT_WALK_H
#define SIOT_WALK_H

#include "core/model.h"

typedef struct siot_frame {
    siot_node *const *nodes;
    uint32_t n, pos;
    uint64_t count, it; /* loop frames: iteration count and current iteration */
} siot_frame;

typedef struct siot_iter {
    const siot_trace *t;
    int64_t rank;
    uint32_t depth; /* loops entered */
    siot_frame st[SIOT_MAX_NEST + 1];
    uint64_t rev[SIOT_MAX_NEST]; /* iteration vector, innermost first */
    uint64_t *occ;               /* per node: how many times this rank ran it */
    uint64_t idle;               /* loop iterations finished since the last event */
    const char *err;
} siot_iter;

int siot_iter_init(siot_iter *it, const siot_trace *t, int64_t rank);
void siot_iter_free(siot_iter *it);
/* The next event of the rank and its evaluation context (valid until the next
 * call), or NULL at the end or on an inconsistency (it->err set). */
const siot_node *siot_iter_next(siot_iter *it, siot_ctx *ctx);

#endif
