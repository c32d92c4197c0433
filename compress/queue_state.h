/* queue_state: the state of a rank's queue (compress/queue.h says what
 * the queue does), apart from its functions so that the two that use it
 * stand on it without including each other: the queue's inline hot case
 * (compress/repeat.h, which the session calls) and the queue itself
 * (compress/queue.c, which takes the same hot case for its own pushes).
 *
 * Locks, signals, errors: those of the queue (compress/queue.h). */
#ifndef SIOT_QUEUE_STATE_H
#define SIOT_QUEUE_STATE_H

#include "core/event.h"
#include "core/model.h"
#include "compress/pool.h"
#include "compress/xmerge.h"

/* Samples summed as integers, folded into a histogram's mean and M2 later. */
typedef struct siot_qsum {
    uint64_t k, sum;
    unsigned __int128 sq;
} siot_qsum;

typedef struct siot_queue {
    siot_arena *arena;
    siot_pool pool;
    int32_t rank;
    int compress;
    uint32_t window;
    siot_rentry self; /* the rank list every node of this rank shares */
    siot_node **nodes;
    uint64_t *hash;   /* hash of nodes[i] */
    uint32_t *nbody;  /* body length of nodes[i] when it is a loop, else 0 */
    uint64_t *tfirst; /* order key of nodes[i]'s first group (`key` when it
                         was pushed): the threads' queues are merged by it */
    uint64_t key;     /* the order key of the group pushed next, set by the
                         caller (src/session.c: when the group's handle ids
                         were settled); 0 in a single-threaded use */
    uint32_t n, cap;
    /* The fold's candidates without scanning the window: prev_same[i] is the
     * last position before i whose node and predecessor have the hashes of
     * i and its predecessor (SIOT_Q_NONE: none); the index maps such a pair
     * of hashes to its last position in the list. by_target[t] is the last
     * loop at a position b with b + its body length = t, loop_next[b] the
     * one before it. Positions leave from the top only, so each removal
     * restores both from prev_same and loop_next. */
    uint32_t *prev_same, *loop_next, *by_target;
    uint32_t tcap;
    uint64_t *ixkey; /* 0: a free slot (a hash of 0 is kept as 1) */
    uint32_t *ixpos;
    uint32_t ixcap, ixused;
    int noindex; /* the index could not grow: the fold scans the window */
    uint64_t events; /* raw events pushed */
    double tolerance;       /* SIOT_TOLERANCE percent, 0 = exact */
    /* With a tolerance: whether a raw event is a poll that found nothing
     * (src/session.c). Such polls then fold apart from the poll that found
     * something, as a loop of their own whose count folds whatever its
     * spread (the count is the machine's load, and a replay does not
     * reissue them). NULL: polls fold like any call. */
    int (*idle)(const siot_raw *r);
    uint64_t approx_merges; /* loop instances folded approximately */
    int oom;         /* set when an allocation failed: the trace is then marked truncated */
    /* a partial iteration of the tail loop, matched but not merged yet */
    siot_raw *pend;
    int64_t *pend_dist;
    uint64_t *pend_key;
    uint32_t npend, cappend;
    uint8_t *pbytes;
    uint32_t npbytes, cappbytes;
    siot_xtmp tmp;
    /* spilling (SIOT_MAX_MEMORY): when the arena holds more than `limit`
     * bytes after a group, every node goes to spill() and the arena is
     * freed; folding starts afresh after it. A failing spill() stops
     * recording. */
    size_t limit;
    int (*spill)(void *arg, siot_node *const *nodes, uint32_t n);
    void *spill_arg;
    uint64_t spills, spilled_nodes;
    int stopped;          /* recording stopped: a spill failed */
    uint64_t stopped_at;  /* events recorded when it stopped */
    uint64_t lost;        /* events that came after (or after running out of memory) */
    /* repeats further back than the window (folds the window made us miss) */
    uint64_t misses, miss_maxdist;
    struct {
        uint64_t h;
        uint32_t pos;
    } seen[4096];
    /* The tail loop when its body is one event whose values are all
     * integers it predicts (a constant, or base + step * iteration): those
     * values as plain integers, so that a repeat is checked without reading
     * expressions. Any change to the queue but such a repeat drops it
     * (queue.c pred_drop), first folding its sums into the event. */
    struct {
        siot_node *loop; /* NULL: not built */
        int ok;                /* the loop's values can be checked so (0 without a loop) */
        uint32_t nv;
        uint32_t func, site, thread; /* the body event's */
        /* the same, as a top-level call's raw event begins (func, parent
         * -1, thread, site): siot_queue_repeat compares it in two words */
        uint64_t top_head[2];
        /* iteration c has value base + step * c (parent distance, ret,
         * err, bytes, then the arguments) */
        int64_t base[4 + SIOT_MAX_ARGS], step[4 + SIOT_MAX_ARGS];
        /* the repeats' computation and duration samples not yet in the
         * event's mean and M2 (integer sums: no division per call); min,
         * max and bins are updated at once */
        siot_qsum comp, dur;
    } pred;
} siot_queue;

#define SIOT_Q_NONE UINT32_MAX

#endif
