/* endings: how a session ends when the program does not reach MPI_Finalize
 * (endings.h): exit, _exit, exec, MPI_Abort, a signal. */
#include "src/endings.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compress/timefold.h"
#include "core/format.h"
#include "core/salloc.h"
#include "src/config.h"
#include "src/lock.h"
#include "src/runtime.h"
#include "src/session.h"
#include "src/stack.h"
#include "src/sysio.h"
#include "src/tracefile.h"

static atomic_int ending;      /* a trace is being or has been taken for an ending */
static atomic_int end_written; /* ... and written */

/* An MPI rank that cannot reach the merge writes its own part. */
static int write_own_part(const siot_trace *t, const char *reason)
{
    char where[PATH_MAX + 64], why[sizeof ((siot_out *)0)->why];
    if (siot_write_part(t, siot_session_rank(), where, sizeof where, why, sizeof why) != 0) {
        siot_sayf("siotrace: %s: this rank's trace could not be written anywhere (%s)", reason ? reason : "ended", why);
        return -1;
    }
    siot_sayf("siotrace: %s: this rank's trace is in %s", reason ? reason : "ended", where);
    return 0;
}

/* Rank 0's one line for a launch whose parts could not be merged: where its
 * own part went and the command that joins them (the other parts are named
 * like it: <trace>.part-RRRRRR.siot). */
static void say_launch_parts(const char *where)
{
    static const char suffix[] = ".part-000000.siot"; /* siot_partial_path's, for rank 0 */
    size_t len = strlen(where), base = len >= sizeof suffix - 1 ? len - (sizeof suffix - 1) : len;
    siot_sayf("siotrace: the %u processes of this MPI launch could not merge their traces: the tracer never saw "
              "MPI start (neither MPI_Init nor PMPI_Init: the program uses no MPI, or starts it out of the tracer's "
              "sight); each wrote its own part (rank 0: %s), to be joined with: siot merge -o %.*s.siot %.*s.part-*.siot",
              (unsigned)siot_session_nranks(), where, (int)base, where, (int)base, where);
}

/* A process of an MPI launch whose MPI start the tracer never saw: its trace
 * cannot meet the others', so it is its rank's part. Rank 0 says so once for
 * the launch; another rank speaks only when its part is not where rank 0's
 * line points (a fallback directory), or nowhere, or when asked to
 * (SIOT_VERBOSE). */
static int write_launch_part(const siot_trace *t)
{
    char where[PATH_MAX + 64], why[sizeof ((siot_out *)0)->why], beside[PATH_MAX + 64], path[PATH_MAX + 64];
    int rank = (int)siot_session_rank();
    if (siot_write_part(t, rank, where, sizeof where, why, sizeof why) != 0) {
        siot_sayf("siotrace: rank %d of an MPI launch that the tracer never saw start MPI: its part could not be written anywhere (%s)",
                  rank, why);
        return -1;
    }
    siot_partial_path(path, sizeof path, rank);
    siot_absolute_path(beside, sizeof beside, path);
    if (rank == 0)
        say_launch_parts(where);
    else if (strcmp(where, beside) != 0 || siot_cfg.verbose)
        siot_sayf("siotrace: rank %d of an MPI launch that the tracer never saw start MPI: its part is in %s", rank, where);
    return 0;
}

/* The ending's trace: a serial program's; the part of a launched process
 * whose MPI start the tracer never saw, when it ends by itself; or the rank's
 * own part, said by each rank, as for any abnormal ending. */
static int write_ending(siot_trace *t, const char *reason, int partial)
{
    if (!siot_session_in_job()) {
        if (siot_cfg.compress) /* within SIOT_TOLERANCE, timings too (none without it) */
            siot_timefold(t);
        return siot_write_trace(t);
    }
    if (siot_session_is_mpi())
        return write_own_part(t, reason);
    siot_trace_set_kv(t, "mpi_init_unseen",
                      "the tracer never saw MPI start (neither MPI_Init nor PMPI_Init): each process of the "
                      "launch wrote its own part, from its start");
    return partial ? write_own_part(t, reason) : write_launch_part(t);
}

int siot_end_session(const char *reason, int partial)
{
    if (siot_session_ended() || atomic_exchange(&ending, 1))
        return 0;
    siot_out_ending(); /* its part, and a checkpoint committed meanwhile, skip fsync */
    /* Signals that arrive on this thread now wait until the trace is written
     * (rule 2 of lock.h); other threads' wait at most a few seconds. */
    siot_t.ending = 1;
    siot_t.busy++;
    siot_trace t;
    int rc = siot_session_take_within(&t, SIOT_SIGNAL_WAIT_NS);
    if (rc == SIOT_TAKE_BUSY) {
        siot_sayf("siotrace: the trace could not be written: another thread held the tracer for seconds");
    } else {
        if (reason)
            siot_trace_set_kv(&t, partial ? "partial" : "ended", reason);
        if (partial)
            t.flags |= SIOT_TF_PARTIAL;
        rc = write_ending(&t, reason, partial);
    }
    siot_trace_free(&t);
    atomic_store(&end_written, 1);
    siot_t.busy--;
    siot_t.ending = 0;
    if (atomic_load(&siot_pending_signal) && !siot_t.locks)
        siot_handle_pending_signal();
    return rc;
}

/* Signals that end the process: the trace so far is written, then the
 * signal takes its course (the previous handler, or the default action). */
static const int caught[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define NCAUGHT (sizeof caught / sizeof caught[0])
static struct sigaction prev_action[NCAUGHT];


static int caught_index(int sig)
{
    for (unsigned i = 0; i < NCAUGHT; i++)
        if (caught[i] == sig)
            return (int)i;
    return -1;
}

static void end_by_signal(int sig)
{
    int i = caught_index(sig);
    char why[64];
    snprintf(why, sizeof why, "signal %d (%s)", sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
    /* The interrupted code may hold malloc's locks: allocate from fresh mappings. */
    siot_emergency = 1;
    if (atomic_load(&ending)) {
        /* Another thread is writing the trace: let it finish (a few seconds at most). */
        for (int k = 0; k < 3000 && !atomic_load(&end_written); k++) {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
    } else {
        siot_end_session(why, 1);
    }
    if (i >= 0)
        sigaction(sig, &prev_action[i], NULL);
    raise(sig); /* delivered when the handler returns */
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    int saved = errno;
    int sync = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
    int inside = siot_t.locks || siot_t.ending;
    if (inside && !sync) {
        /* This thread holds the lock or is writing the ending: handled as
         * soon as it is out (rule 2 of lock.h). */
        atomic_store(&siot_pending_signal, sig);
    } else if (inside || (sync && siot_t.busy)) {
        /* A fault in the tracer itself: nothing safe to write. */
        int i = caught_index(sig);
        if (i >= 0)
            sigaction(sig, &prev_action[i], NULL);
        raise(sig);
    } else {
        end_by_signal(sig);
    }
    errno = saved;
}

/* Installed before main and again after MPI_Init (which may set handlers of
 * its own: ours then runs first and hands over to them). A handler the
 * application sets later replaces ours; an ignored signal stays ignored. */
void siot_install_signal_handlers(void)
{
    siot_on_pending_signal(end_by_signal);
    for (unsigned i = 0; i < NCAUGHT; i++) {
        struct sigaction cur;
        if (sigaction(caught[i], NULL, &cur) != 0 || cur.sa_handler == SIG_IGN ||
            ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(caught[i], &sa, &prev_action[i]) != 0)
            prev_action[i] = cur;
    }
}

/* exit() without MPI_Finalize, or the end of a program that never called MPI. */
void siot_at_exit(void)
{
    if (siot_session_ended())
        return;
    if (siot_session_is_mpi())
        siot_end_session("the program exited without calling MPI_Finalize", 1);
    else
        siot_end_session(NULL, 0);
}

/* _exit and _Exit (generated wrappers), MPI_Abort (mpi_session.c). */
void siot_exit_hook(int status)
{
    char why[64];
    snprintf(why, sizeof why, "_exit(%d)%s", status, siot_session_is_mpi() ? " without MPI_Finalize" : "");
    siot_end_session(why, siot_session_is_mpi());
}

/* exec*: the process image is about to be replaced. */
void siot_exec_hook(const char *fn, const char *path)
{
    char why[300];
    snprintf(why, sizeof why, "%s(%.200s)%s", fn, path ? path : "", siot_session_is_mpi() ? " without MPI_Finalize" : "");
    siot_end_session(why, siot_session_is_mpi());
}

void siot_exec_failed(const char *fn)
{
    int saved = errno;
    siot_sayf("siotrace: %s failed (%s) after the trace was written: the program's later calls are not traced", fn,
         strerror(saved));
    errno = saved;
}

/* A forked child is not traced: it would otherwise write the parent's
 * events into the parent's trace file. */
static void in_child(void)
{
    atomic_store(&siot_layer_mask, 0);
    siot_session_forget();
}

/* Whether this runtime's exported entries are the ones the process calls.
 * Not when libsiotrace.so came in as a dependency of a layer's library
 * preloaded alone (LD_PRELOAD=libsiotrace-hdf5.so): it then comes after
 * the C library and MPI, and would see the layer's calls alone, outside
 * any session MPI_Init starts. A runtime linked into the program is
 * always its own (a sanitizer's build may not export the entries). */
static int interposing(void)
{
    Dl_info first, own;
    if (!dladdr((void *)siot_at_exit, &own) || !own.dli_fname || !strstr(own.dli_fname, "libsiotrace"))
        return 1;
    void *f = dlsym(RTLD_DEFAULT, "close");
    return !f || !dladdr(f, &first) || first.dli_fbase == own.dli_fbase;
}

/* Nothing is recorded and nothing written; the program runs as untraced. */
static void stand_aside(void)
{
    siot_sayf("siotrace: libsiotrace.so was not preloaded itself (only as a dependency): nothing is traced; "
              "preload it after the layer's library: LD_PRELOAD=libsiotrace-LAYER.so:libsiotrace.so");
    siot_cfg.layers = 0;
    atomic_store(&siot_layer_mask, 0);
    siot_session_forget();
}

void siot_runtime_init(void)
{
    static int inited;
    if (inited)
        return;
    inited = 1;
    siot_config_load();
    siot_clock_init();
    siot_lock_faults_setup();
    siot_fd_init();
    siot_session_init();
    siot_record_init_thread();
    atomic_store(&siot_layer_mask, siot_cfg.layers);
}

__attribute__((constructor)) static void siot_ctor(void)
{
    siot_runtime_init();
    if (!interposing()) {
        stand_aside();
        return;
    }
    atexit(siot_at_exit);
    pthread_atfork(NULL, NULL, in_child);
    siot_install_signal_handlers();
    /* the first call-site signature's costs, paid before the program starts */
    if (siot_cfg.stack_depth)
        siot_stack_warm();
    siot_t.last_mark = siot_now();
}
