/* session: a rank's tracing session. It starts at load time (a program
 * that never calls MPI is one rank), starts again for the rank when MPI_Init
 * returns (what came before is the MPI runtime's own start-up), and ends when
 * its trace is taken: at MPI_Finalize, at exit, or at an abnormal ending.
 * The session owns the rank's queue (compress/queue.h), its arena and its
 * checkpoints (SIOT_CHECKPOINT).
 *
 * Each thread folds its events into its own queue, under a lock of its own
 * that other threads take only to checkpoint, spill, restart or end the
 * session; the threads' queues are merged when the trace is taken, in the
 * order of their groups' keys (gather_nodes; each event keeps its thread
 * number).
 *
 * Locks: siot_session_restart and siot_session_take take the recorder lock
 * (lock.h) and then every thread's queue lock (that order, always);
 * siot_session_push, and a leaf's siot_leaf_end (runtime.h; defined in
 * session.c, with the push inlined), take their thread's queue lock (and
 * the recorder lock only for a thread's first group, a checkpoint or a
 * spill, never while it holds its queue's). The rest read state set before
 * recording starts.
 * Signals: siot_session_take_within runs in an ending's signal handler
 * (endings.h) on a thread that holds none of the locks (a signal on one
 * that does waits: lock.h, rule 2); it waits at most wait_ns for them and
 * allocates only from the trace's arena.
 * Layers: above the thread's state, the clock, the locks, the handle
 * tables, the call sites, the staging (stage.h), the spill file and the
 * trace files; below the endings and record.c (siot_begin...siot_finish),
 * which push groups into it. It calls nothing of theirs.
 * Errors: 0, or -1 when memory ran out (the trace then says it is
 * incomplete); the end of a session never fails silently.
 */
#ifndef SIOT_SESSION_H
#define SIOT_SESSION_H

#include <stdint.h>

#include "core/event.h"
#include "core/model.h"

/* The session's start: its wall-clock time, working directory and rank
 * (the launcher's, until MPI_Init), once, at load time (endings.h
 * siot_runtime_init). */
void siot_session_init(void);
/* MPI_Init began: stop recording until siot_session_restart. */
void siot_session_pause(void);
/* MPI_Init returned: drop what was recorded before (the runtime's own start-up)
 * and start a fresh session for this rank. */
void siot_session_restart(int32_t rank, uint32_t nranks);
/* Set by the MPI layer once MPI_Init ran: the serial at-exit writer steps aside
 * (and checkpoints, when asked for, start). */
void siot_session_set_mpi(int on);
int siot_session_is_mpi(void);
/* True when the session is one rank of several: MPI_Init ran, or the process
 * is one of an MPI launch's (config.h: launch_size > 1) whose MPI start the
 * tracer may never see (it uses no MPI). Its trace is
 * then the rank's part unless the MPI layer merges it. */
int siot_session_in_job(void);
int32_t siot_session_rank(void);
uint32_t siot_session_nranks(void);
/* True once the session has ended (the trace was taken). */
int siot_session_ended(void);
/* A forked child: nothing of the parent's session is its to write. */
void siot_session_forget(void);

/* A finished group of events (an outermost call and what it issued) goes to
 * the calling thread's own queue (*mine, made at its first group), under
 * that queue's lock; a checkpoint or a spill that came due is done after,
 * out of it. Called without the recorder lock. */
struct siot_tq;
/* key: the group's place among the other threads' (session.c gather_nodes). */
void siot_session_push(struct siot_tq **mine, const siot_raw *stage, uint32_t n, const uint8_t *pool, uint64_t now,
                       uint64_t key);
/* Calls that ran unrecorded: no memory to stage them (any thread). */
uint64_t siot_unstaged_calls(void);
/* n more such calls (also: a thread that could not get a queue of its own). */
void siot_note_unstaged(uint64_t n);
/* A checkpoint written is made durable (fsync, rename) out of the locks. */
void siot_session_commit_checkpoint(void);

/* Stops recording and returns this rank's trace (nodes + tables); caller
 * frees. wait_ns: how long to wait for the lock (0: as long as it takes);
 * SIOT_TAKE_BUSY when it could not be had. */
#define SIOT_TAKE_BUSY (-2)
int siot_session_take_within(siot_trace *t, uint64_t wait_ns);
int siot_session_take(siot_trace *t);
/* How long siot_session_take's final pass (compress/renest.h) took, in ns:
 * SIOT_VERBOSE reports it with the job's other passes. */
uint64_t siot_session_renest_ns(void);

/* After the job's trace is written (job_written 1: rank 0 says it was): this
 * rank's last checkpoint is removed, or kept when the job's trace failed (0),
 * or left to the part that superseded it (-1). */
void siot_checkpoint_settle(int job_written);

#endif
