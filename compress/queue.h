/* queue: a rank's trace as it is being recorded, compressed on the fly.
 *
 * Groups of raw events (a call and the calls it issued, in pre-order) arrive
 * as they complete. Each event is appended to the rank's node list and the
 * tail is folded (ALGORITHMS.md): when the last L nodes repeat the L before
 * them they become a loop of 2; when they repeat the body of the loop just
 * before them, that loop gets one more iteration. Nodes match on structure
 * (function, call site, thread; loop bodies), never on values: values are
 * merged into progressions or, failing that, run tables (compress/xmerge.h),
 * so the trace stays lossless. The search looks at most `window` nodes back.
 *
 * While the tail is a loop, incoming events are matched straight against the
 * body element they should repeat, without building nodes: the common case of
 * a long loop costs no allocation at all.
 *
 * Locks: none of its own; the session calls it under the recorder lock
 * (src/session.h). Signals: siot_queue_finish also runs when a signal
 * handler takes the trace (memory then from salloc.h's emergency side).
 *
 * Errors: running out of memory and a failed spill are sticky (q->oom,
 * q->stopped): siot_queue_push returns -1 from then on and drops every later
 * group (counted in q->lost), and the trace says so (notes truncated,
 * stopped). siot_queue_finish: 0, or -1 once q->oom is set.
 *
 * The queue's state, siot_queue, is compress/queue_state.h's (below this
 * header and compress/repeat.h, which both use it). */
#ifndef SIOT_QUEUE_H
#define SIOT_QUEUE_H

#include "core/event.h"
#include "core/model.h"
#include "compress/queue_state.h"


void siot_queue_init(siot_queue *q, siot_arena *a, int32_t rank, int compress, uint32_t window);
void siot_queue_free(siot_queue *q);
/* pool: the staging byte pool the group's strings and arrays refer to. */
int siot_queue_push(siot_queue *q, const siot_raw *grp, uint32_t n, const uint8_t *pool);
/* The hot case of a push: siot_queue_repeat, inline (compress/repeat.h). */
/* Turns a pending partial iteration into nodes; call before reading nodes. */
int siot_queue_finish(siot_queue *q);
/* Every node to the spill callback now (what a push does past `limit`);
 * a failing callback stops recording. */
void siot_queue_spill(siot_queue *q);

#endif
