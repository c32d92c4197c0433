/* synth: one rank's events in program order with synthesised times.
 *
 * A compressed trace keeps no timestamps, only per-event histograms. A
 * timeline is rebuilt from their means: each event starts after its mean
 * computation time and lasts its mean duration; a call issued by another
 * (a pwrite under MPI_File_write_at) is placed inside its parent's span.
 * Times are therefore typical, not measured, and say so where shown.
 *
 * Errors: siot_synth_init 0, or -1 without memory; siot_synth_next -1 with
 * s->it.err on an inconsistent trace. The counts return 0, or -1 with a
 * reason in err (siot_analyze's); a count past 2^64 is UINT64_MAX. */
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

typedef struct siot_synth {
    siot_iter it;
    int64_t seq;
    double cursor;
    uint32_t sp;
    struct {
        int64_t seq;
        double end;
    } stack[SIOT_SYNTH_DEPTH];
} siot_synth;

int siot_synth_init(siot_synth *s, const siot_trace *t, int64_t rank);
/* 1: an event in *out; 0: the end; -1: an inconsistent trace (s->it.err). */
int siot_synth_next(siot_synth *s, siot_synth_ev *out);
void siot_synth_free(siot_synth *s);

/* Events of the trace (rank < 0) or of one rank, counted on the compressed
 * form without expanding it. Returns 0, or -1 with a reason in err. */
int siot_count_events(const siot_trace *t, int64_t rank, uint64_t *count, char *err, size_t errlen);
/* The same over all ranks, also marking in has[nranks] the ranks that have
 * events (a job of 10^6 ranks where few do I/O is walked for those only). */
int siot_count_events_by_rank(const siot_trace *t, uint8_t *has, uint64_t *count, char *err, size_t errlen);

#endif
