/* match: the sender and tag that a receive posted with MPI_ANY_SOURCE or
 * MPI_ANY_TAG matched in the run, so that a replay posts the receive for
 * them and matches the same messages whatever the timing.
 *
 * A blocking receive or probe records its own status ([source, tag,
 * bytes]): rp_match_status reads it. A non-blocking receive (MPI_Irecv,
 * MPI_Imrecv) learns its sender at its completion, later in the rank's
 * events: rp_match_request walks the rank's trace ahead of the replay (one
 * more iterator, never behind the replay) to the MPI_Wait, MPI_Test,
 * MPI_Waitany/Testany (their status) or MPI_Waitall/Testall/Waitsome/
 * Testsome (their statuses, recorded since the statusarr role is) that
 * completed the request, and answers its recorded source and tag. A trace
 * from before the statuses were recorded, or a completion whose status
 * says nothing (a request freed or cancelled, MPI_STATUSES_IGNORE for more
 * than 64 requests), answers 0: the receive stays a wildcard.
 *
 * Errors: rp_match_init returns 0, or -1 without memory. rp_match_request
 * answers 0 when the walk ahead fails (a damaged trace, no memory); the
 * replay's own walk reports such a trace. */
#ifndef SIOT_MATCH_H
#define SIOT_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "core/vbuf.h"
#include "replay/handles.h"
#include "replay/walk.h"

typedef struct rp_match_ent {
    int64_t seq, req;     /* the event that posted the receive, and its request id */
    int64_t source, tag;  /* as its completion's status recorded them */
    int done;             /* 1: completed (source and tag known), 2: completed without a word */
} rp_match_ent;

typedef struct rp_match {
    siot_iter it;
    int ok;       /* the iterator walks (init succeeded, no error yet) */
    int64_t seq;  /* the seq of the next event the iterator gives */
    int no_statuses;     /* the statuses of MPI_Waitall and the like are not read (replay/compare.c:
                          * comparing with a trace from before they were recorded) */
    rp_idmap persistent; /* request id -> 1: a persistent receive (MPI_Recv_init) */
    rp_match_ent *v;     /* receives posted ahead of the replay, in seq order */
    size_t n, cap;
    siot_vbuf scratch[3];
} rp_match;

int rp_match_init(rp_match *m, const siot_trace *t, int64_t rank);
void rp_match_free(rp_match *m);
/* The source and tag request req, posted by the rank's event seq (MPI_Irecv,
 * MPI_Imrecv, or MPI_Start of a persistent receive), matched in the run: 1
 * with *source and *tag (the trace's values: -1 for MPI_ANY_*), 0 when the
 * trace does not say. Asked in ascending seq. */
int rp_match_request(rp_match *m, int64_t seq, int64_t req, int64_t *source, int64_t *tag);
/* A recorded status value [source, tag, bytes]: 1 with its source and tag. */
int rp_match_status(const siot_value *status, int64_t *source, int64_t *tag);

#endif
