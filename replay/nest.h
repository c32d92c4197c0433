/* nest: the calls in flight around a rank's events, as a walk in program
 * order meets them. An event records its parent as a distance back
 * (core/model.h); rp_parent_seq turns it into the seq of the call that
 * issued it, and rp_nest keeps the calls the walk is inside, innermost
 * last, each with what its walker keeps about it. ioreplay's plan
 * (replay/plan.h: covered by a reissued caller, inside an MPI-IO call),
 * the comparison of two traces (replay/compare.h: the nearest kept
 * ancestor), the synthesised times (replay/synth.h) and siot dump --jsonl
 * read an event's parent here, so that all of them nest a call the same way.
 *
 * Memory: the stack grows with the depth of nesting, not with the events.
 * Errors: rp_nest_push returns NULL without memory (the stack is as it
 * was). No locks; an rp_nest belongs to one walk. */
#ifndef SIOT_NEST_H
#define SIOT_NEST_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

/* A call in flight: its seq (the rank's event number), and its walker's. */
typedef struct rp_frame {
    int64_t seq;
    int64_t keep, kseq; /* the comparison's nearest kept ancestor: kept index and seq, or -1 */
    uint8_t flags;      /* the walker's bits */
} rp_frame;

typedef struct rp_nest {
    rp_frame *v;
    size_t n, cap;
} rp_nest;

/* The seq of the call that issued e, the rank's event number seq; -1 when
 * e was issued by none (or its parent is not among the events before it). */
int64_t rp_parent_seq(const siot_event *e, const siot_ctx *c, int64_t seq);
/* Leaves the calls that returned before an event issued by parent: the
 * innermost frame left is parent's; NULL when none is left (the event is
 * outermost, or its parent is not on the stack). */
rp_frame *rp_nest_enter(rp_nest *s, int64_t parent);
/* A call entered: a frame for seq, innermost; its other fields zero. */
rp_frame *rp_nest_push(rp_nest *s, int64_t seq);
void rp_nest_free(rp_nest *s);

#endif
