/* synth: one rank's events in program order with synthesised times.
 *
 * A compressed trace keeps no timestamps, only per-event histograms. A
 * timeline is rebuilt from their means: each event starts after its mean
 * computation time and lasts its mean duration; a call issued by another
 * (a pwrite under MPI_File_write_at, H5Dwrite -> MPI-IO -> pwrite) is placed
 * inside its parent's span. Times are therefore typical, not measured, and
 * say so where shown.
 *
 * The times never contradict themselves: a child lies inside its parent,
 * siblings follow program order, and an event whose recorded minimum
 * duration is positive lasts at least 1 ns. Means of different executions
 * need not fit (a parent's mean can be shorter than its children's), so
 * an outermost call keeps its mean duration and its children are scaled
 * into it: their computation times and the part of their durations above
 * the least their own children need shrink by one factor. The parent is
 * not lengthened to fit (its recorded maximum would often fit, but would
 * move every later event of the rank by time no execution took); it is
 * lengthened only when its descendants' 1 ns minima do not fit. To know
 * what a call's children need before placing it, a second walk of the
 * rank reads each outermost call's tree ahead (memory: 24 bytes per event
 * of the largest tree; time: twice the walk).
 *
 * What the fitting cost is kept for the rank: recorded_ns, the sum of the
 * outermost events' mean computation time and duration; cursor, the
 * synthesised end (they differ by the lengthening); squeezed_ns, the
 * nested time the scaling removed.
 *
 * Errors: siot_synth_init 0, or -1 without memory; siot_synth_next -1 with
 * s->it.err on an inconsistent trace or without memory. The counts return
 * 0, or -1 with a reason in err (siot_analyze's); a count past 2^64 is
 * UINT64_MAX. */
#ifndef SIOT_SYNTH_H
#define SIOT_SYNTH_H

#include <stdint.h>

#include "replay/walk.h"
#include "core/model.h"

#define SIOT_SYNTH_DEPTH 32

typedef struct siot_synth_ev {
    const siot_node *node;
    siot_ctx ctx;   /* valid until the next call */
    int64_t seq;    /* the rank's event number, from 0 */
    int64_t parent; /* seq of the issuing call, or -1 */
    uint32_t depth; /* number of enclosing calls */
    double start_ns, dur_ns;
} siot_synth_ev;

/* One entry of a call tree read ahead: the least span its children need
 * (kids_min) and want (kids_want: their computation times and durations),
 * and its own least span. */
typedef struct siot_synth_need {
    double min, kids_min, kids_want;
} siot_synth_need;

typedef struct siot_synth_frame {
    int64_t seq;
    double end;    /* emitting: the end of its span; ahead: unused */
    double cursor; /* emitting: where its next child may start */
    double shrink; /* emitting: the factor its children's slack is scaled by */
} siot_synth_frame;

typedef struct siot_synth {
    siot_iter it, ahead;
    int64_t seq;
    double cursor;
    uint32_t sp;
    siot_synth_frame stack[SIOT_SYNTH_DEPTH];
    /* the outermost call's tree read ahead: need[seq - base], n entries */
    siot_synth_need *need;
    int64_t base, n, cap;
    int64_t ahead_seq;            /* seq of ahead's pending event */
    const siot_node *pending;     /* read by ahead, not yet in a tree; NULL at the end */
    int64_t pending_parent;       /* its parent's seq, or -1 */
    double recorded_ns, squeezed_ns;
} siot_synth;

int siot_synth_init(siot_synth *s, const siot_trace *t, int64_t rank);
/* 1: an event in *out; 0: the end; -1: an inconsistent trace (s->it.err). */
int siot_synth_next(siot_synth *s, siot_synth_ev *out);
void siot_synth_free(siot_synth *s);
/* The end of the rank's synthesised timeline so far (after the last event:
 * its end). */
double siot_synth_end(const siot_synth *s);

/* Events of the trace (rank < 0) or of one rank, counted on the compressed
 * form without expanding it. Returns 0, or -1 with a reason in err. */
int siot_count_events(const siot_trace *t, int64_t rank, uint64_t *count, char *err, size_t errlen);
/* The same over all ranks, also marking in has[nranks] the ranks that have
 * events (a job of 10^6 ranks where few do I/O is walked for those only). */
int siot_count_events_by_rank(const siot_trace *t, uint8_t *has, uint64_t *count, char *err, size_t errlen);

#endif
