/* ranktimes: each rank's own time totals, kept exactly beside the merged
 * histograms. Merging ranks into one event keeps a histogram of all their
 * durations, from which a rank's own total cannot be recovered ("who
 * waits?"): rank 0 waiting 60 ms in every MPI_Allreduce and rank 3 waiting
 * none look the same. So the recorder adds each call's duration to a few
 * per-rank sums (by layer, I/O against MPI for the calls the program made
 * itself, MPI by kind), and the trace file keeps one row per rank
 * (docs/format.md, section RANKTIMES).
 *
 * Rows grow with the number of ranks (2 bytes per quantity in use per
 * rank, about 20 bytes per rank): past 2K ranks (SIOT_RANK_TIMES=K, 8 by
 * default) the job keeps a summary instead (core/ranksum.h).
 *
 * Locks: none; a row is used by one thread at a time (the recorder's under
 * the recorder lock). Signals: siot_rt_add is async-signal-safe.
 *
 * Errors: siot_rt_from_name returns -1 for a name it does not know; nothing
 * else can fail. */
#ifndef SIOT_RANKTIMES_H
#define SIOT_RANKTIMES_H

#include <stdint.h>

#include "core/roles.h"

/* The quantities, in nanoseconds. "Outermost" calls are those the program
 * made itself (no traced call above them), so that nothing counts twice:
 * io + mpi + mpi_init + compute = span. Codes are names in files: new ones
 * may be appended, none renamed. */
#define SIOT_RT_LIST(X)                                                                                 \
    X(span)         /* from the start of the rank's first traced call to the end of its last */        \
    X(io)           /* outermost calls of the I/O layers (every layer but MPI) */                       \
    X(mpi)          /* outermost MPI calls other than MPI_Init*, MPI_Finalize */                        \
    X(mpi_init)     /* MPI_Init, MPI_Init_thread, MPI_Finalize */                                       \
    X(mpi_collective)  /* ... of mpi: collectives (blocking or not) */                                \
    X(mpi_blocking)    /* ... of mpi: blocking point-to-point (send, recv, sendrecv, probe) */          \
    X(mpi_nonblocking) /* ... of mpi: non-blocking point-to-point and completions (wait, test, start) */ \
    X(mpi_other)       /* ... of mpi: the rest (communicators, datatypes, windows...) */                \
    X(layer_posix)  /* every call of a layer, however deep (one call can count in several layers) */    \
    X(layer_stdio) X(layer_mpi) X(layer_mpiio) X(layer_hdf5) X(layer_pnetcdf)

enum siot_rtkey {
#define X(n) SIOT_RT_##n,
    SIOT_RT_LIST(X)
#undef X
    SIOT_RT_N
};

typedef struct siot_rtrow {
    int32_t rank;
    uint64_t v[SIOT_RT_N];
} siot_rtrow;

const char *siot_rt_name(unsigned key);
int siot_rt_from_name(const char *s, uint64_t n);

/* The kind of communication of an MPI call of class cls (SIOT_RT_mpi_*;
 * siot stats counts calls by the same kinds). */
static inline unsigned siot_rt_mpi_kind(uint32_t cls)
{
    unsigned b = SIOT_CLASS_BASE(cls);
    if (b == SIOT_CLASS_coll || (cls & SIOT_CLS_COLL))
        return SIOT_RT_mpi_collective;
    if (b == SIOT_CLASS_wait || b == SIOT_CLASS_test || b == SIOT_CLASS_start)
        return SIOT_RT_mpi_nonblocking;
    if (b == SIOT_CLASS_send || b == SIOT_CLASS_recv || b == SIOT_CLASS_sendrecv || b == SIOT_CLASS_probe)
        return cls & SIOT_CLS_NB ? SIOT_RT_mpi_nonblocking : SIOT_RT_mpi_blocking;
    return SIOT_RT_mpi_other;
}

/* MPI_Init, MPI_Init_thread, MPI_Finalize: start-up and shutdown, kept
 * apart from communication wherever times are shown. */
static inline int siot_is_mpi_startup(unsigned layer, uint32_t cls)
{
    unsigned b = SIOT_CLASS_BASE(cls);
    return layer == SIOT_LAYER_mpi && (b == SIOT_CLASS_init || b == SIOT_CLASS_finalize);
}

/* Adds one call's duration to the row's sums. */
static inline void siot_rt_add(uint64_t *v, unsigned layer, uint32_t cls, int outermost, uint64_t dur)
{
    v[SIOT_RT_layer_posix + layer] += dur;
    if (!outermost)
        return;
    if (layer != SIOT_LAYER_mpi) {
        v[SIOT_RT_io] += dur;
    } else if (siot_is_mpi_startup(layer, cls)) {
        v[SIOT_RT_mpi_init] += dur;
    } else {
        v[SIOT_RT_mpi] += dur;
        v[siot_rt_mpi_kind(cls)] += dur;
    }
}

/* The quantities of summaries and readers: the keys, then the computation
 * (SIOT_RT_compute = SIOT_RT_N, derived: span less the outermost calls). */
#define SIOT_RT_compute SIOT_RT_N
#define SIOT_RT_NQ (SIOT_RT_N + 1)

/* A row's value of quantity key (< SIOT_RT_NQ). */
static inline uint64_t siot_rt_value(const siot_rtrow *row, unsigned key)
{
    if (key < SIOT_RT_N)
        return row->v[key];
    uint64_t calls = row->v[SIOT_RT_io] + row->v[SIOT_RT_mpi] + row->v[SIOT_RT_mpi_init];
    return row->v[SIOT_RT_span] > calls ? row->v[SIOT_RT_span] - calls : 0;
}

/* One rank's value of one quantity: an entry of a summary's lists of the
 * fastest and slowest ranks (core/ranksum.h). */
typedef struct siot_rtx {
    int32_t rank;
    uint64_t v;
} siot_rtx;

/* A summary's lists: per quantity q < SIOT_RT_NQ, and q = SIOT_RT_NQ for
 * the ranks themselves (value 0), list 2q the fastest, 2q+1 the slowest. */
#define SIOT_RTS_NLISTS (2 * (SIOT_RT_NQ + 1))

/* The row of rank in rows sorted by rank, or NULL. */
const siot_rtrow *siot_rt_find(const siot_rtrow *rows, uint32_t n, int32_t rank);

#endif
