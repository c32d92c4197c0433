/* job_trace: how the ranks of an MPI job end their tracing session at
 * MPI_Finalize (the protocol is described in job_trace.c).
 *
 * Called by every rank of the job with the tracer's own communicator, in
 * the calling thread, outside the recorder lock and with the thread marked
 * busy (its MPI calls are not recorded). A signal that arrives meanwhile
 * takes its course at once: the session has already ended.
 *
 * Errors: siot_job_trace_end returns 1 when rank 0 wrote the job's file
 * (every rank learns it), else 0. A failure never aborts nor leaves a rank
 * waiting: MPI errors return on the tracer's communicator, the rank
 * concerned (or rank 0) says what failed in one line on stderr, and traces
 * that could not be merged or sent mark the job's trace partial. */
#ifndef SIOT_JOB_TRACE_H
#define SIOT_JOB_TRACE_H

#include <mpi.h>
#include <stdint.h>

#include "core/model.h"

/* Merges or gathers the ranks' traces and writes the job's trace file (or
 * each rank's part when it cannot be created). mine: this rank's trace,
 * which the caller frees. t0: when MPI_Finalize began. Returns 1 when the job's file was
 * written (on every rank). */
int siot_job_trace_end(siot_trace *mine, MPI_Comm comm, uint64_t t0);

#endif
