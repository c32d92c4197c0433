/* plan: which of a rank's events a replay reissues, decided from the trace
 * alone (no MPI, no I/O), so that ioreplay, its checks and the fuzzer walk a
 * trace the same way.
 *
 * At the default level the outermost replayable call of each call chain is
 * reissued (an MPI-IO call, not the POSIX calls it issued; an HDF5 call
 * through the MPI-IO calls it issued); with posix_level the POSIX and stdio
 * calls themselves, with the MPI calls that are not inside another replayed
 * call nor inside an MPI-IO call (those are the MPI-IO library's internals,
 * whose order replay/order.h keeps). A call inside one that was reissued is
 * covered by it. At the POSIX level, so is an MPI call on an object that an
 * MPI-IO call made (MPI_Wait on MPI_File_iwrite's request).
 *
 * Some calls at the replayed level are not reissued, whatever the replayer:
 * ioreplay's own (it starts and ends MPI and the run), and, in a trace whose
 * ranks made MPI calls from more than one thread, the calls that wait on
 * other ranks (one replay thread reissuing them in one order could
 * deadlock where the threads did not); the step says why.
 *
 * Errors: rp_plan_init and rp_plan_done return 0, or -1 without memory.
 * rp_plan_next returns 0 with p->it.err set for a damaged trace, or when
 * the POSIX-level object rule has no memory (a step it could not decide is
 * not handed out); callers check it.err after the walk. */
#ifndef SIOT_PLAN_H
#define SIOT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/vbuf.h"
#include "replay/handles.h"
#include "replay/nest.h"
#include "replay/walk.h"

typedef struct rp_plan {
    const siot_trace *t;
    siot_iter it;
    int posix_level;
    int mpi_threads; /* some rank made MPI calls from several threads */
    rp_idmap objs;     /* posix_level: MPI objects made by MPI-IO calls (replay/handles.h) */
    siot_vbuf scratch;
    int64_t seq;
    /* the calls in flight (replay/nest.h), flags RP_PLAN_COVERED (they or a
     * caller were reissued), RP_PLAN_IN_MPIIO (inside an MPI-IO call, or
     * one itself) and RP_PLAN_IN_DELETE (inside MPI_File_delete, or it) */
    rp_nest nest;
} rp_plan;
enum { RP_PLAN_COVERED = 1, RP_PLAN_IN_MPIIO = 2, RP_PLAN_IN_DELETE = 4 };

typedef struct rp_step {
    const siot_event *ev;
    const siot_funcdesc *fn;
    siot_ctx ctx;     /* valid until the next rp_plan_next */
    int64_t seq;      /* the rank's event number */
    int64_t parent;   /* seq of the traced call that issued it, -1 */
    int replay;       /* at the replayed level and not covered */
    int in_mpiio;     /* issued (directly or not) by an MPI-IO call */
    int in_delete;    /* issued (directly or not) by MPI_File_delete */
    int own;          /* at the replayed level, but ioreplay's own (init, finalize, abort, exit) */
    const char *why_not; /* at the replayed level, but not reissued: why (NULL when it is) */
} rp_step;

/* Why a function the trace records with other arguments than this build's
 * replayer reads is not reissued. */
#define RP_OTHER_ARGS "recorded with other arguments than this ioreplay reads (another siotrace version)"

/* This build's replayer of f, which reads nargs recorded arguments, reads
 * the trace's: the same number, or a trace from before the statuses of
 * MPI_Waitall, MPI_Testall, MPI_Waitsome and MPI_Testsome were recorded
 * (their last argument, which the replayer does not read). */
int rp_reads_args(uint32_t nargs, const siot_funcdesc *f);

/* 0, or -1 without memory. */
int rp_plan_init(rp_plan *p, const siot_trace *t, int64_t rank, int posix_level);
/* The rank's next event, 1; 0 at its end (p->it.err says when the trace is damaged). */
int rp_plan_next(rp_plan *p, rp_step *s);
/* What became of the step's call: done when it was reissued (the calls it
 * issued are then covered). Called once after each rp_plan_next. 0, or -1
 * without memory. */
int rp_plan_done(rp_plan *p, const rp_step *s, int done);
void rp_plan_free(rp_plan *p);

#endif
