/* endings: how a session ends when the program does not reach MPI_Finalize,
 * and what the tracer does at load time (its constructor).
 *
 * exit() without MPI_Finalize (or the end of a program that never called
 * MPI), _exit/_Exit, exec*, MPI_Abort and the signals that end a process
 * (TERM, INT, HUP, QUIT, ABRT, SEGV, BUS, FPE, ILL) write what was recorded:
 * the trace of a serial program, or this rank's part
 * <trace>.part-RRRRRR.siot, marked partial with the reason. A signal then
 * takes its course (the previous handler, or the default action). A process
 * of an MPI launch whose MPI_Init the tracer never saw (session.h:
 * siot_session_in_job) writes its rank's part too, complete when it ends by
 * itself, and rank 0 says so once for the launch.
 *
 * The top of the runtime: it uses the session, the trace files and the
 * lock; no layer below includes it. The one call up, a signal deferred
 * while its thread held a lock, reaches it through the handler it
 * registers with the lock (lock.h siot_on_pending_signal).
 *
 * Locks: an ending takes the recorder lock and every thread's queue lock
 * (session.h siot_session_take_within), waiting at most
 * SIOT_SIGNAL_WAIT_NS. Signals: the handler follows lock.h's rule: on a thread that holds the lock
 * or is writing the ending it only notes the signal; elsewhere it writes
 * with memory from fresh mappings (salloc.h), waiting at most
 * SIOT_SIGNAL_WAIT_NS for the lock. A fault inside the tracer itself is
 * passed on at once. *
 * Errors: what cannot be written is said on stderr in one line; the
 * program's own exit status and signal are never changed.
 */
#ifndef SIOT_ENDINGS_H
#define SIOT_ENDINGS_H

/* Ends the session now and writes what was recorded: the trace (a serial
 * program), or this rank's own part (an MPI program that cannot reach
 * MPI_Finalize), marked partial with the reason when partial. Once per
 * process. */
int siot_end_session(const char *reason, int partial);
/* _exit and _Exit (generated wrappers). */
void siot_exit_hook(int status);
/* exec*: the trace is written before the process image is replaced; when
 * exec fails (returns), the program goes on untraced, and is told so. */
void siot_exec_hook(const char *fn, const char *path);
void siot_exec_failed(const char *fn);
/* The at-exit writer (registered again after MPI_Init, to run before the
 * MPI library's own exit handlers, which may call MPI_Finalize). */
void siot_at_exit(void);
/* Installed at load time and again after MPI_Init (which may set handlers
 * of its own: ours then runs first and hands over to them); registers with
 * the lock (lock.h siot_on_pending_signal) the handling of a signal it
 * deferred. */
void siot_install_signal_handlers(void);
/* The runtime's layers set up, once, bottom first: configuration, clock,
 * locks, descriptor table, session, the main thread's staging area; then
 * recording starts (the constructor, or MPI_Init when it came first). */
void siot_runtime_init(void);

#endif
