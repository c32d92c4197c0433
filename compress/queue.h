/* queue: a rank's trace as it is being recorded.
 *
 * Groups of raw events (a call and the calls it issued, in pre-order) are
 * pushed as they complete and become nodes. In this version every event is
 * its own node with constant expressions and a one-rank rank list; the node
 * shapes are those that loop folding and rank merging fill later. */
#ifndef SIOT_QUEUE_H
#define SIOT_QUEUE_H

#include "../src/event.h"
#include "../src/model.h"

typedef struct siot_queue {
    siot_arena *arena;
    int32_t rank;
    siot_node **nodes;
    uint32_t n, cap;
    uint64_t events; /* raw events pushed */
    int oom;         /* set when an allocation failed: the trace is then marked truncated */
} siot_queue;

void siot_queue_init(siot_queue *q, siot_arena *a, int32_t rank);
void siot_queue_free(siot_queue *q);
/* pool: the staging byte pool the group's strings and arrays refer to. */
int siot_queue_push(siot_queue *q, const siot_raw *grp, uint32_t n, const uint8_t *pool);

#endif
