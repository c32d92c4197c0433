/* The MPI side of a tracing session: MPI_Init starts the rank's session (what
 * the runtime did before is its own start-up and is dropped), MPI_Finalize
 * hands the rank's trace to the job's end (job_trace.c), MPI_Abort writes
 * the rank's part. PMPI_Init, PMPI_Init_thread and PMPI_Finalize, when the
 * program calls them itself (their wrappers: spec option wrap), do the same;
 * MPI_Init's own call of PMPI_Init reaches that wrapper too (--wrap, or the
 * preload library's PMPI_Init), inside the first: it is not a second start,
 * and PMPI_Finalize inside MPI_Finalize finds the trace handed on already. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

#include "pmpi/job_trace.h"
#include "pmpi/mpi_record.h"
#include "pmpi/sim.h"
#include "core/format.h"
#include "src/endings.h"
#include "src/session.h"
#include "src/sysio.h"
#include "src/tracefile.h"

static int finalized;
static MPI_Comm merge_comm = MPI_COMM_NULL; /* the tracer's own, made at MPI_Init */

static void register_predefined(void)
{
    siot_h_set_base(SIOT_H_COMM, SIOT_COMM_BASE);
    siot_h_set_base(SIOT_H_GROUP, SIOT_GROUP_BASE);
    siot_h_set_base(SIOT_H_DTYPE, SIOT_DTYPE_BASE);
    siot_h_set_base(SIOT_H_OP, SIOT_OP_BASE);
    siot_h_set_base(SIOT_H_STREAM, 3);
    siot_h_set_base(SIOT_H_FD, 3);
    /* First name wins when an implementation aliases two names to one handle. */
#define REG(kind, keyfn, id, h)                                  \
    if (siot_h_find(kind, keyfn(h)) < 0)                         \
        siot_h_fixed(kind, keyfn(h), id);
#define XC(id, h) REG(SIOT_H_COMM, siot_hkey_comm, id, h)
#define XG(id, h) REG(SIOT_H_GROUP, siot_hkey_group, id, h)
#define XD(id, h) REG(SIOT_H_DTYPE, siot_hkey_dtype, id, h)
#define XO(id, h) REG(SIOT_H_OP, siot_hkey_op, id, h)
    siot_lock();
    SIOT_PREDEF_COMMS(XC)
    SIOT_PREDEF_GROUPS(XG)
    SIOT_PREDEF_DTYPES(XD)
    SIOT_PREDEF_OPS(XO)
    siot_unlock();
#undef XC
#undef XG
#undef XD
#undef XO
#undef REG
}

/* Before MPI starts, the predefined handles are named as the ranks of a
 * merged trace name them (the handles are link-time constants or addresses,
 * valid before MPI_Init): a process whose MPI start the tracer never sees
 * still names them so. */
__attribute__((constructor)) static void predefined_at_load(void)
{
    siot_runtime_init();
    register_predefined();
}

/* Start wrappers in flight (MPI_Init, and the PMPI_Init it calls): the
 * outermost pauses the session and starts the rank's; an inner one, whose
 * call is MPI's own, only passes through (its slot is -1: paused). One
 * thread starts MPI, once. */
static int starting;

void siot_mpi_init_pre(void)
{
    if (starting++ == 0)
        siot_session_pause();
}

void siot_mpi_init_post(void)
{
    if (--starting > 0)
        return;
    int rank = 0, size = 1, inited = 0;
    PMPI_Initialized(&inited);
    if (inited) {
        siot_sim_comm_rank(MPI_COMM_WORLD, &rank);
        siot_sim_comm_size(MPI_COMM_WORLD, &size);
    }
    siot_session_restart(rank, (uint32_t)size);
    register_predefined();
    siot_session_set_mpi(1);
    /* MPI may have set signal and exit handlers of its own: ours go first. */
    siot_install_signal_handlers();
    atexit(siot_at_exit);
    /* Made now, so that MPI_Finalize does not pay for a collective. */
    if (inited && PMPI_Comm_dup(MPI_COMM_WORLD, &merge_comm) == MPI_SUCCESS)
        PMPI_Comm_set_errhandler(merge_comm, MPI_ERRORS_RETURN);
}

void siot_mpi_abort_hook(int errorcode)
{
    char why[96];
    snprintf(why, sizeof why, "MPI_Abort(errorcode %d) on rank %d", errorcode, (int)siot_session_rank());
    siot_end_session(why, 1);
}

/* mkdir -p: every component of dir made when missing. Ranks race to make
 * the same directories, so EEXIST is success as long as the path is a
 * directory in the end. Called with the recorder busy, so these mkdir calls
 * are the tracer's own and are not recorded. 0, or -1 with errno. */
static int make_dirs(char *dir)
{
    struct stat st;
    for (char *p = dir + 1; *p; p++)
        if (*p == '/' && p[-1] != '/') {
            *p = 0;
            int rc = mkdir(dir, 0777);
            *p = '/';
            if (rc != 0 && errno != EEXIST)
                return -1;
        }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return -1;
    if (stat(dir, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* SIOT_RANK_TRACES: each rank's own trace, before any merge (for checking
 * the merge), in a directory made when missing. A directory that cannot be
 * made is said once per rank; the job's trace is written all the same. */
static void write_rank_trace(const siot_trace *mine, int rank)
{
    char dir[PATH_MAX], path[PATH_MAX + 32];
    if ((size_t)snprintf(dir, sizeof dir, "%s", siot_cfg.rank_traces) >= sizeof dir) {
        siot_sayf("siotrace: SIOT_RANK_TRACES: the directory name is too long");
        return;
    }
    int saved = errno;
    if (make_dirs(dir) != 0) {
        siot_sayf("siotrace: SIOT_RANK_TRACES: cannot create %s: %s", siot_cfg.rank_traces, strerror(errno));
        errno = saved;
        return;
    }
    errno = saved;
    snprintf(path, sizeof path, "%s/rank-%06d.siot", dir, rank);
    siot_write_trace_to(mine, path, 1);
}

void siot_mpi_finalize_hook(void)
{
    if (finalized)
        return;
    finalized = 1;
    if (siot_session_ended()) /* the program is exiting and its part is written: no merge now */
        return;
    uint64_t t0 = siot_now();
    siot_trace mine;
    if (siot_session_take(&mine) != 0)
        fprintf(stderr, "siotrace: out of memory while closing the trace; it is incomplete\n");
    int busy = siot_t.busy;
    siot_t.busy = 1;
    MPI_Comm comm = merge_comm;
    if (comm == MPI_COMM_NULL && PMPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS)
        PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (siot_cfg.rank_traces) {
        int rank = 0;
        PMPI_Comm_rank(comm, &rank);
        write_rank_trace(&mine, siot_sim_active() ? siot_cfg.sim_rank : rank);
    }
    siot_job_trace_end(&mine, comm, t0);
    siot_trace_free(&mine);
    PMPI_Comm_free(&comm);
    merge_comm = MPI_COMM_NULL;
    siot_t.busy = busy;
}
