/* ioreplay: reissues a trace's I/O and communication, rank by rank, straight
 * from the compressed form, with the recorded parameters, random buffers of
 * the recorded sizes and computation simulated from the timing histograms.
 *
 * usage: mpirun -np P ioreplay [--root DIR] [--level posix] [--verify] [--explain]
 *                              [--no-compute] [--time-scale X] [--seed N] [--quiet]
 *                              [--call-timeout S]
 *                              [--progress] FILE */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/expr.h"
#include "core/hist.h"
#include "core/format.h"
#include "replay/analyze.h"
#include "replay/check.h"
#include "replay/explain.h"
#include "replay/inputs.h"
#include "replay/order.h"
#include "replay/progress.h"
#include "replay/watchdog.h"
#include "replay/synth.h"
#include "core/roles.h"
#include "replay/plan.h"
#include "replay/rp.h"
#include "replay/match.h"
#include "replay/verify.h"
#include "replay/walk.h"

#ifndef SIOT_VERSION
#define SIOT_VERSION "0.1.0"
#endif

static const char *USAGE =
    "usage: mpirun -np P ioreplay [OPTIONS] FILE\n"
    "       ioreplay --check [--level posix] FILE\n"
    "\n"
    "Reissues the I/O and communication of a siotrace trace with the recorded\n"
    "parameters, random buffers of the recorded sizes, and computation time\n"
    "drawn from the recorded timing histograms. P must be the traced job's\n"
    "rank count.\n"
    "\n"
    "  --root DIR       where every path of the trace is replayed (default\n"
    "                   ./siot-replay, created when missing). Relative paths\n"
    "                   are taken inside it, absolute ones too (their leading /\n"
    "                   dropped), .. never leaves it, and a call through a\n"
    "                   symbolic link that leads outside it is refused.\n"
    "  --level posix    replay only the POSIX and stdio calls (with the\n"
    "                   application's MPI communication): the exact file-system\n"
    "                   request stream, also the one MPI-IO issued. Default:\n"
    "                   the outermost replayable level of each call chain (an\n"
    "                   MPI-IO call, not the POSIX calls it issued; HDF5 and\n"
    "                   PnetCDF calls through the MPI-IO calls they issued).\n"
    "  --verify         trace the replay itself (ioreplay re-executes itself with\n"
    "                   the preload library libsiotrace.so; the trace goes to\n"
    "                   ROOT.siot beside the root) and compare it with FILE at\n"
    "                   the replayed level: same calls, arguments, results and\n"
    "                   order per rank, paths through the root. Prints 'round\n"
    "                   trip: faithful (N calls at LEVEL)' or the first 10\n"
    "                   differences with the original's call site\n"
    "  --check          without mpirun and before any I/O: whether every call at\n"
    "                   the replayed level can be reissued, and, when not, the\n"
    "                   calls that cannot, by function and reason, and whether\n"
    "                   the trace holds every call the run made (exit 0 or 1)\n"
    "  --explain        list every call that was not reissued (with the reason)\n"
    "                   or that returned another result than the recorded one\n"
    "  --inputs DIR     the files the program read without making them are\n"
    "                   copied from DIR (DIR/PATH, a leading / dropped) into the\n"
    "                   root. Without it they are made from the trace: the size\n"
    "                   the reads reached, the lines fgets read, the bytes fgetc\n"
    "                   returned (binary data as zeros). A file already in the\n"
    "                   root is kept\n"
    "  --no-compute     do not simulate computation between calls\n"
    "  --time-scale X   multiply the simulated computation times by X\n"
    "  --seed N         seed of the random draws from the histograms (default 1)\n"
    "  --quiet          no report at the end\n"
    "  --call-timeout S a replayed call that has not returned S seconds (default\n"
    "                   600; 0: never) after twice its longest recorded time\n"
    "                   (times --time-scale when over 1)\n"
    "                   ends the replay with a line naming it (exit 1): a\n"
    "                   collective that another rank left after an I/O error\n"
    "                   (files in the root that differ from the run's) waits\n"
    "                   for good in MPICH's and Open MPI's MPI-IO\n"
    "  --progress       rank 0 shows its progress (events done of total, rate,\n"
    "                   time left) on stderr; the default when stderr is a\n"
    "                   terminal, which under mpirun it is not: MPI launchers\n"
    "                   pipe the ranks' output; asked for, it ends with a\n"
    "                   final line even when the replay was too short to show any\n"
    "\n"
    "Exit status: 0 when every call at the replayed level was reissued and\n"
    "returned its recorded result (and, with --verify, the round trip is\n"
    "faithful); 1 when calls could not be reissued or returned other results\n"
    "(counted by function and reason at the end; --explain lists each), the\n"
    "round trip differs, a call passed --call-timeout, or the trace's notes say\n"
    "the run made calls it does not hold (MPI-IO through PMPI_File_*, events\n"
    "lost to a memory limit); 2 bad usage, an unreadable or corrupt trace, a rank\n"
    "count that does not match the trace, or a root that cannot be used (with\n"
    "one line saying why, before any I/O).\n";

typedef struct opts {
    const char *root, *file, *inputs;
    int posix_level, no_compute, quiet, progress, verify, explain, check;
    double scale, call_timeout;
    uint64_t seed;
} opts;

enum { OK = 0, BAD_TRACE = 1, BAD_RANKS = 2, BAD_ROOT = 3, LOST_RANKS = 4 };

static int env_rank(void)
{
    const char *v = getenv("PMI_RANK");
    if (!v)
        v = getenv("OMPI_COMM_WORLD_RANK");
    if (!v)
        v = getenv("PMIX_RANK");
    return v ? atoi(v) : 0;
}

/* Simulated computation: sleep most of it, spin the end for precision. */
static void compute_for(uint64_t ns)
{
    uint64_t end = rp_now_ns() + ns;
    if (ns > 2000000) {
        struct timespec t = {(time_t)((ns - 1000000) / 1000000000u), (long)((ns - 1000000) % 1000000000u)};
        nanosleep(&t, NULL);
    }
    while (rp_now_ns() < end)
        ;
}

static double urand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static int parse(int argc, char **argv, opts *o, const char **why)
{
    memset(o, 0, sizeof *o);
    o->root = "siot-replay";
    o->scale = 1.0;
    o->seed = 1;
    o->call_timeout = 600;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--root") && i + 1 < argc)
            o->root = argv[++i];
        else if (!strcmp(a, "--level") && i + 1 < argc) {
            const char *l = argv[++i];
            if (!strcmp(l, "posix"))
                o->posix_level = 1;
            else if (strcmp(l, "default") != 0) {
                *why = "--level takes posix or default";
                return -1;
            }
        } else if (!strcmp(a, "--verify"))
            o->verify = 1;
        else if (!strcmp(a, "--explain"))
            o->explain = 1;
        else if (!strcmp(a, "--check"))
            o->check = 1;
        else if (!strcmp(a, "--inputs") && i + 1 < argc)
            o->inputs = argv[++i];
        else if (!strcmp(a, "--no-compute"))
            o->no_compute = 1;
        else if (!strcmp(a, "--quiet"))
            o->quiet = 1;
        else if (!strcmp(a, "--progress"))
            o->progress = 1;
        else if (!strcmp(a, "--time-scale") && i + 1 < argc) {
            char *end;
            o->scale = strtod(argv[++i], &end);
            if (*end || !(o->scale >= 0) || !isfinite(o->scale)) {
                *why = "--time-scale takes a number >= 0";
                return -1;
            }
        } else if (!strcmp(a, "--call-timeout") && i + 1 < argc) {
            char *end;
            o->call_timeout = strtod(argv[++i], &end);
            if (*end || !(o->call_timeout >= 0) || !isfinite(o->call_timeout)) {
                *why = "--call-timeout takes a number of seconds >= 0";
                return -1;
            }
        } else if (!strcmp(a, "--seed") && i + 1 < argc)
            o->seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return 1;
        else if (!strcmp(a, "--version"))
            return 2;
        else if (a[0] == '-' && a[1]) {
            *why = "unknown option (see ioreplay --help)";
            return -1;
        } else if (!o->file)
            o->file = a;
        else {
            *why = "one trace file at a time";
            return -1;
        }
    }
    if (!o->file) {
        *why = "missing trace file (see ioreplay --help)";
        return -1;
    }
    return 0;
}

/* mkdir -p with raw system calls; then the absolute, resolved path. */
static int make_root(const char *root, char *abs, size_t n, char *why, size_t wn)
{
    char path[PATH_MAX];
    if (root[0] == '/') {
        snprintf(path, sizeof path, "%s", root);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            snprintf(why, wn, "cannot tell the working directory: %s", strerror(errno));
            return -1;
        }
        if ((size_t)snprintf(path, sizeof path, "%s/%s", cwd, root) >= sizeof path) {
            snprintf(why, wn, "the replay root's path is too long");
            return -1;
        }
    }
    for (char *p = path + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (syscall(SYS_mkdirat, AT_FDCWD, path, 0755) != 0 && errno != EEXIST) {
                snprintf(why, wn, "cannot create the replay root %.400s: %s", path, strerror(errno));
                return -1;
            }
            *p = c;
            if (!c)
                break;
        }
    }
    if (syscall(SYS_faccessat, AT_FDCWD, path, W_OK | X_OK, 0) != 0) {
        snprintf(why, wn, "cannot write in the replay root %.400s: %s", path, strerror(errno));
        return -1;
    }
    char *real = realpath(path, NULL);
    if (!real) {
        snprintf(why, wn, "cannot resolve the replay root %.400s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(abs, n, "%s", real);
    free(real);
    return 0;
}

/* The "required" level of the traced MPI_Init_thread (or PMPI_Init_thread),
 * -1 when it used MPI_Init (or PMPI_Init). */
static int traced_thread_level(const siot_trace *t)
{
    siot_iter it;
    siot_ctx c;
    const siot_node *n;
    int level = -1;
    if (siot_iter_init(&it, t, 0) != 0)
        return -1;
    for (int k = 0; k < 16 && (n = siot_iter_next(&it, &c)); k++) {
        const siot_funcdesc *f = &t->funcs[n->u.ev.func];
        const char *name = f->name + (f->name[0] == 'P'); /* PMPI_Init_thread: the same */
        if (strcmp(name, "MPI_Init_thread") == 0) {
            for (uint32_t a = 0; a < f->nargs; a++)
                if (strcmp(f->argnames[a], "required") == 0)
                    level = (int)siot_eval_int(n->u.ev.args[a], &c, MPI_THREAD_SINGLE);
            break;
        }
        if (strcmp(name, "MPI_Init") == 0)
            break;
    }
    siot_iter_free(&it);
    return level;
}

/* The trace holds calls of the function named name (its table holds only
 * the functions called). */
static int traced_calls(const siot_trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->nfuncs; i++)
        if (strcmp(t->funcs[i].name, name) == 0)
            return 1;
    return 0;
}

/* The program called PMPI_X itself (pname), never MPI_X: so does the
 * replay, whose trace (--verify) then holds the same call as the run's
 * (ROMIO's psimple.c starts and ends MPI with PMPI_Init and PMPI_Finalize). */
static int traced_pmpi(const siot_trace *t, const char *pname)
{
    return traced_calls(t, pname) && !traced_calls(t, pname + 1);
}

enum { R_CALLS, R_SKIPPED, R_READ, R_WRITTEN, R_RECORDED, R_REPLAY, R_DIFF, R_REFUSED, R_ORDER, R_POLLS, NREPORT };

/* Whether the directory holds anything (an earlier replay's files). Raw
 * system calls, as make_root's: under --verify the replay is traced, and
 * this look is ioreplay's own, not a call of the run. */
static int has_entries(const char *dir)
{
    long fd = syscall(SYS_openat, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char buf[4096] __attribute__((aligned(8)));
    long got;
    int found = 0;
    while (fd >= 0 && !found && (got = syscall(SYS_getdents64, (int)fd, buf, sizeof buf)) > 0)
        for (long at = 0; at < got && !found;) {
            const char *name = buf + at + 19; /* d_ino 8, d_off 8, d_reclen 2, d_type 1 */
            unsigned short reclen;
            memcpy(&reclen, buf + at + 16, sizeof reclen);
            found = strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
            at += reclen;
        }
    if (fd >= 0)
        syscall(SYS_close, (int)fd);
    return found;
}

static void report(const opts *o, const char *root, int rank, int size, const double *mine)
{
    double *all = rank == 0 ? calloc((size_t)size * NREPORT, sizeof *all) : NULL;
    PMPI_Gather(mine, NREPORT, MPI_DOUBLE, all, NREPORT, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0 || o->quiet) {
        free(all);
        return;
    }
    static const char *names[NREPORT] = {"calls replayed",    "calls not replayed", "bytes read",
                                         "bytes written",     "recorded time (s)",  "replay time (s)",
                                         "different results", "paths refused",    "results by order",
                                         "polls found nothing"};
    printf("ioreplay: %s on %d ranks, root %s, level %s%s\n", o->file, size, root,
           o->posix_level ? "posix" : "default", o->no_compute ? ", no computation" : "");
    printf("  %-20s %14s %14s %14s %14s\n", "", "rank 0", "others: min", "mean", "max");
    for (int k = 0; k < NREPORT; k++) {
        double mn = 0, mx = 0, sum = 0;
        for (int r = 1; r < size; r++) {
            double v = all[(size_t)r * NREPORT + k];
            mn = r == 1 || v < mn ? v : mn;
            mx = r == 1 || v > mx ? v : mx;
            sum += v;
        }
        int whole = k != R_RECORDED && k != R_REPLAY;
        const char *fmt = whole ? "%14.0f" : "%14.3f";
        printf("  %-20s", names[k]);
        printf(fmt, all[k]);
        if (size > 1) {
            printf(fmt, mn);
            printf(whole ? "%14.1f" : "%14.3f", sum / (size - 1));
            printf(fmt, mx);
        }
        printf("\n");
    }
    double rec = 0, rep = 0;
    for (int r = 0; r < size; r++) {
        rec = fmax(rec, all[(size_t)r * NREPORT + R_RECORDED]);
        rep = fmax(rep, all[(size_t)r * NREPORT + R_REPLAY]);
    }
    printf("  slowest rank: recorded %.3f s, replayed %.3f s, ratio %.3f\n", rec, rep, rec > 0 ? rep / rec : 0.0);
    fflush(stdout);
    free(all);
}

/* The run: the trace, the ranks, the root, and the replayers by function. */
typedef struct run {
    opts o;
    siot_trace t;
    int rank, size;
    char root[PATH_MAX];
    rp_fn *fmap;     /* functions of the trace -> replayers of this build, by name */
    rp_state c;
    double rep[NREPORT];
    uint64_t rng;
    rp_log log;
    uint32_t unstaged; /* rank 0: input files that could not be staged */
    int root_had_files; /* rank 0: the root was not empty when the replay began */
} run;

/* A function this build replays with other recorded arguments than the
 * trace's (its replayer would read values that are not there). */
static int rp_other_args(rp_state *c, const siot_value *a, int64_t rec_ret)
{
    (void)a;
    (void)rec_ret;
    return rp_skip(c, RP_OTHER_ARGS);
}

/* A trace of a run that ended early (partial) in which some ranks have no
 * events: MPI_Abort on one rank, and the launcher killed the others before
 * they wrote theirs. Their calls are lost, and the calls of the others that
 * wait for them would wait for ever in a replay: 1, with the ranks in err. */
static int lost_ranks(const siot_trace *t, const char *file, char *err, size_t n)
{
    if (!(t->flags & SIOT_TF_PARTIAL) || t->nranks == 0)
        return 0;
    uint8_t *has = calloc(t->nranks, 1);
    uint64_t count = 0;
    char why[128];
    if (!has || siot_count_events_by_rank(t, has, &count, why, sizeof why) != 0) {
        free(has);
        return 0; /* the replay finds what is wrong with the trace itself */
    }
    uint32_t lost = 0, first = 0;
    for (uint32_t r = t->nranks; r-- > 0;)
        if (!has[r])
            lost++, first = r;
    free(has);
    if (lost)
        snprintf(err, n, "%.200s holds no events of %u of its %u ranks (rank %u%s): the run ended early (%.80s) "
                 "before their traces were written, and a replay would wait for them for ever",
                 file, lost, t->nranks, first, lost > 1 ? " and others" : "",
                 siot_trace_get_kv(t, "partial") ? siot_trace_get_kv(t, "partial") : "partial");
    return lost != 0;
}

/* Reads the trace (before MPI starts, with raw system calls, so that the
 * replay can start MPI the way the traced program did), starts MPI and
 * checks what must hold before any I/O. Returns 0, or 2 after a refusal. */
static int start(run *r, int *argc, char ***argv)
{
    char err[512] = "";
    int code = OK, loaded = siot_trace_load(r->o.file, &r->t, err, sizeof err) == 0, provided;
    if (!loaded)
        code = BAD_TRACE;
    int level = loaded ? traced_thread_level(&r->t) : -1;
    int pmpi = loaded && (traced_pmpi(&r->t, "PMPI_Init") || traced_pmpi(&r->t, "PMPI_Init_thread"));
    if (level >= 0)
        (pmpi ? PMPI_Init_thread : MPI_Init_thread)(argc, argv, level, &provided);
    else
        (pmpi ? PMPI_Init : MPI_Init)(argc, argv);
    /* A call that failed in the run fails again in the replay: its error
     * code is compared with the recorded one, it must not end the replay. */
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &r->size);
    if (code == OK && (uint32_t)r->size != r->t.nranks) {
        code = BAD_RANKS;
        snprintf(err, sizeof err, "%.300s was traced on %u ranks; run ioreplay with mpirun -np %u (not %d)", r->o.file,
                 r->t.nranks, r->t.nranks, r->size);
    }
    if (code == OK && lost_ranks(&r->t, r->o.file, err, sizeof err))
        code = LOST_RANKS;
    if (code == OK && make_root(r->o.root, r->root, sizeof r->root, err, sizeof err) != 0)
        code = BAD_ROOT;
    if (code == OK && r->rank == 0)
        r->root_had_files = has_entries(r->root);
    int worst[2] = {code, r->rank}, res[2];
    PMPI_Allreduce(worst, res, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    if (res[0] == OK)
        return 0;
    if (r->rank == 0)
        fprintf(stderr, "ioreplay: %s\n",
                code != OK ? err : res[0] == BAD_ROOT ? "another rank cannot use the replay root"
                                                      : "another rank cannot read the trace");
    if (loaded)
        siot_trace_free(&r->t);
    /* MPI_Finalize, not PMPI_: under --verify the preloaded tracer ends as
     * at any finalize (not as a run that stopped without one, leaving a
     * part file per rank); its trace of a replay that did not start is
     * removed, by every rank: the rank that writes it at MPI_Finalize may
     * return from it after rank 0 (Open MPI, 3 ranks: the file was left). */
    MPI_Finalize();
    if (rp_verify_trace())
        unlink(rp_verify_trace());
    return 2;
}

static void prepare(run *r)
{
    if (syscall(SYS_chdir, r->root) != 0) {
        fprintf(stderr, "ioreplay: cannot enter %s: %s\n", r->root, strerror(errno));
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    r->fmap = calloc(r->t.nfuncs + 1, sizeof *r->fmap);
    for (uint32_t i = 0; r->fmap && i < r->t.nfuncs; i++)
        for (uint32_t k = 0; k < rp_table_n; k++)
            if (strcmp(rp_table[k].name, r->t.funcs[i].name) == 0)
                r->fmap[i] = rp_reads_args(rp_table[k].nargs, &r->t.funcs[i]) ? rp_table[k].fn : rp_other_args;
    rp_init(&r->c, r->rank, r->root);
    r->c.cwd = siot_trace_get_kv(&r->t, "cwd");
    rp_log_init(&r->log, r->rank, r->o.explain);
    r->rng = r->o.seed * 0x9e3779b97f4a7c15ULL + (uint64_t)r->rank + 1;
}

/* One event of the rank: its computation time, then the call when it is
 * at the replayed level. Returns 1 when the call was reissued; a call at
 * the replayed level that was not is noted with its reason. */
/* replay_event's outcome besides 0 (not reissued) and 1 (reissued): a
 * test or probe that found nothing, left out on purpose (rp_poll). */
enum { POLLED = 2 };

/* Whether the call's result is compared by order (replay/rp.h): a read or
 * a seek to the end, or a removal, made inside an MPI-IO call at the POSIX
 * level; in a job of several ranks, an MPI_File_delete that deleted its
 * file or found it gone, and at the POSIX level the calls it made that
 * found the file or found it gone (ROMIO's statfs and lstat). */
static void set_by_order(run *r, const rp_step *st)
{
    const siot_event *e = st->ev;
    const siot_funcdesc *f = st->fn;
    int64_t rec_ret = siot_eval_int(e->ret, &st->ctx, -1);
    r->c.read_by_order = r->o.posix_level && st->in_mpiio &&
                         (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_read || siot_seeks_to_end(f, e, &st->ctx));
    r->c.removal_by_order = r->o.posix_level && st->in_mpiio &&
                            (siot_is_removal(f) || (st->in_delete && r->t.nranks > 1)) &&
                            (rec_ret == 0 || siot_eval_int(e->err, &st->ctx, 0) == ENOENT);
    r->c.delete_by_order = r->t.nranks > 1 && siot_is_mpi_delete(f) && siot_deleted_or_gone(r->t.flavour, rec_ret);
}

static int replay_event(run *r, const rp_step *st, siot_vbuf *scratch, siot_value *vals)
{
    const siot_event *e = st->ev;
    const siot_funcdesc *f = st->fn;
    /* The recorded time between the end of MPI_Init and the start of
     * MPI_Finalize, which is what the replay reproduces. */
    unsigned base = SIOT_CLASS_BASE(f->cls);
    if (st->parent < 0 && base != SIOT_CLASS_init)
        r->rep[R_RECORDED] += (e->comp.mean + (base == SIOT_CLASS_finalize ? 0 : e->dur.mean)) * 1e-9;
    if ((st->replay || st->parent < 0) && base != SIOT_CLASS_init && !r->o.no_compute && r->o.scale > 0) {
        double u1 = urand(&r->rng), u2 = urand(&r->rng);
        compute_for((uint64_t)((double)siot_hist_draw(&e->comp, u1, u2) * r->o.scale));
    }
    if (!st->replay)
        return 0;
    if (st->own && SIOT_CLASS_ENDS_RUN(base)) {
        /* not reissued, named: ending the job here would lose the report
         * and the replay's own trace (--verify compares up to here) */
        r->c.skip_why = base == SIOT_CLASS_abort ? "the run ended here in MPI_Abort: the replay finalizes MPI instead"
                                                 : "the process ended here: the replay finalizes MPI instead";
        rp_log_skip(&r->log, st->seq, f->name, r->c.skip_why);
        return 0;
    }
    if (st->own)
        return 1;
    r->c.skip_why = st->why_not;
    if (!st->why_not && !r->fmap[e->func])
        r->c.skip_why = "this ioreplay has no replayer for it";
    for (uint32_t k = 0; !r->c.skip_why && k < e->nargs; k++)
        if (siot_eval(e->args[k], &st->ctx, &scratch[k], &vals[k]) != 0)
            r->c.skip_why = "a recorded value that cannot be evaluated";
    if (r->c.skip_why) {
        rp_log_skip(&r->log, st->seq, f->name, r->c.skip_why);
        return 0;
    }
    r->c.result_differs = 0;
    r->c.polled = 0;
    r->c.retest_until = 0;
    set_by_order(r, st);
    /* a wait for another rank's computation lasts as long as it, scaled */
    rp_watch_enter(st->seq, f->name, (uint64_t)((double)e->dur.max * (r->o.scale > 1 ? r->o.scale : 1)));
    int rc = r->fmap[e->func](&r->c, vals, siot_eval_int(e->ret, &st->ctx, 0));
    rp_watch_leave();
    if (rc != RP_DONE && r->c.polled)
        return POLLED;
    if (rc != RP_DONE) {
        rp_log_skip(&r->log, st->seq, f->name, r->c.skip_why);
        return 0;
    }
    if (r->c.result_differs)
        rp_log_differs(&r->log, st->seq, f->name, r->c.result_recorded, r->c.result_got);
    return 1;
}

/* What a call at the replayed level made is unmade when it was not
 * reissued (a later use says why), made again when it was. */
static void note_made(run *r, const rp_step *st, int done, siot_vbuf *scratch)
{
    if (!st->replay || st->own || done == POLLED)
        return;
    /* without memory an object keeps the general reason: nothing is lost */
    (void)rp_unmade_note(&r->c.unmade, st->fn, st->ev, &st->ctx, done ? NULL : r->c.skip_why, scratch);
}

static void count_done(run *r, const rp_step *st, int done)
{
    if (done == POLLED) {
        r->rep[R_POLLS]++;
        return;
    }
    if (!done) {
        if (st->replay)
            r->rep[R_SKIPPED]++;
        return;
    }
    r->rep[R_CALLS]++;
    int64_t bytes = siot_eval_int(st->ev->bytes, &st->ctx, 0);
    unsigned base = SIOT_CLASS_BASE(st->fn->cls);
    if (bytes > 0 && base == SIOT_CLASS_read)
        r->rep[R_READ] += (double)bytes;
    if (bytes > 0 && base == SIOT_CLASS_write)
        r->rep[R_WRITTEN] += (double)bytes;
}

/* The rank's events, in order (replay/plan.h decides which are reissued). */
static void replay_rank(run *r)
{
    siot_vbuf scratch[SIOT_MAX_ARGS];
    siot_value vals[SIOT_MAX_ARGS];
    for (int i = 0; i < SIOT_MAX_ARGS; i++)
        siot_vbuf_init(&scratch[i]);
    rp_plan plan;
    if (!r->fmap || rp_plan_init(&plan, &r->t, r->rank, r->o.posix_level) != 0) {
        fprintf(stderr, "ioreplay: out of memory\n");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Progress on a terminal: rank 0's events (the others' stderr is
     * usually the same terminal, and rank 0 stands for them). */
    siot_progress pg;
    uint64_t my_events = 0;
    int show = r->rank != 0 ? 0 : r->o.progress ? 2 : isatty(STDERR_FILENO);
    char cerr[128];
    if (show && siot_count_events(&r->t, 0, &my_events, cerr, sizeof cerr) != 0)
        show = 0;
    siot_progress_start(&pg, "ioreplay (rank 0)", my_events, show);
    rp_match match; /* the senders the run's wildcard receives matched */
    if (rp_match_init(&match, &r->t, r->rank) != 0) {
        fprintf(stderr, "ioreplay: out of memory\n");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    r->c.match = &match;
    rp_order order;
    rp_order_init(&order);
    rp_step st;
    int64_t seq = 0;
    while (rp_plan_next(&plan, &st)) {
        siot_progress_tick(&pg, (uint64_t)st.seq);
        if (r->o.posix_level)
            rp_order_step(&order, &plan, &st, &r->c);
        r->c.seq = st.seq;
        int done = replay_event(r, &st, scratch, vals);
        if (r->o.posix_level)
            rp_order_after(&order);
        count_done(r, &st, done);
        note_made(r, &st, done, scratch);
        if (rp_plan_done(&plan, &st, done) != 0)
            PMPI_Abort(MPI_COMM_WORLD, 2);
        seq = st.seq + 1;
    }
    rp_order_end(&order);
    rp_order_free(&order);
    if (plan.it.err) {
        fprintf(stderr, "ioreplay: rank %d: %s\n", r->rank, plan.it.err);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    siot_progress_end(&pg, (uint64_t)seq);
    rp_plan_free(&plan);
    r->c.match = NULL;
    rp_match_free(&match);
    for (int i = 0; i < SIOT_MAX_ARGS; i++)
        siot_vbuf_free(&scratch[i]);
}

/* --check: the trace alone, no MPI. */
static int check_only(const opts *o)
{
    siot_trace t;
    char err[512];
    if (siot_trace_load(o->file, &t, err, sizeof err) != 0) {
        fprintf(stderr, "ioreplay: %s\n", err);
        return 2;
    }
    rp_check_entry *tab = calloc(rp_table_n + 1, sizeof *tab);
    for (uint32_t i = 0; tab && i < rp_table_n; i++)
        tab[i] = (rp_check_entry){rp_table[i].name, rp_table[i].why, rp_table[i].nargs};
    int rc = tab ? rp_check(&t, o->posix_level, tab, rp_table_n, stdout, err, sizeof err) : -1;
    if (rc < 0)
        fprintf(stderr, "ioreplay: %s: %s\n", o->file, tab ? err : "out of memory");
    if (rc >= 0 && lost_ranks(&t, o->file, err, sizeof err)) {
        printf("but the job is not replayable: %s\n", err);
        rc = 1;
    }
    free(tab);
    siot_trace_free(&t);
    return rc < 0 ? 2 : rc;
}

/* Rank 0 stages the program's input files under the root before anyone
 * replays (the others wait at the barrier that follows). */
static void stage_inputs(run *r)
{
    if (r->rank != 0)
        return;
    rp_inputs_result res;
    rp_stage_inputs(&r->t, &r->c, r->o.inputs, &res);
    if (res.err)
        fprintf(stderr, "ioreplay: input files not staged: %s\n", res.err);
    if (res.unstaged)
        fprintf(stderr, "ioreplay: %u input file%s not staged: %s (%s)%s\n", res.unstaged, res.unstaged > 1 ? "s" : "",
                res.unstaged_path, res.unstaged_why, res.unstaged > 1 ? ", and others" : "");
    r->unstaged = res.unstaged;
    if (!r->o.quiet && (res.staged || res.copied || res.kept))
        printf("ioreplay: input files: %u made from the trace, %u copied from %s, %u already in the root (%llu bytes)\n",
               res.staged, res.copied, r->o.inputs ? r->o.inputs : "--inputs", res.kept, (unsigned long long)res.bytes);
}

/* --verify: the first start re-executes ioreplay traced; the traced one
 * goes on. Returns 2 when it cannot. */
static int verify_start(run *r, char **argv)
{
    if (!r->o.verify || rp_verify_trace())
        return 0;
    char trace[PATH_MAX], why[1200];
    size_t n = strlen(r->o.root);
    while (n > 1 && r->o.root[n - 1] == '/')
        n--;
    snprintf(trace, sizeof trace, "%.*s.siot", (int)n, r->o.root);
    rp_verify_reexec(argv, trace, why, sizeof why);
    if (env_rank() == 0)
        fprintf(stderr, "ioreplay: %s\n", why);
    return 2;
}

/* Rank 0, after the replay: the calls the run made that the trace does not
 * hold. Layers left out with SIOT_LAYERS are the user's choice, said only;
 * calls the tracer did not see or could not keep (siot_trace_lacks) make
 * the replay incomplete: 1. */
static int say_what_trace_lacks(const siot_trace *t)
{
    const char *layers = siot_trace_get_kv(t, "layers_left_out");
    if (layers)
        printf("ioreplay: the run recorded without the layers %s (SIOT_LAYERS): their calls are not in the trace, "
               "and were not replayed\n", layers);
    char lacks[512];
    if (!siot_trace_lacks_text(t, ", which no replay can reissue", lacks, sizeof lacks))
        return 0;
    printf("ioreplay: %s\n", lacks);
    return 1;
}

int main(int argc, char **argv)
{
    static run r;
    const char *why = NULL;
    int pr = parse(argc, argv, &r.o, &why);
    if (pr == 1 || pr == 2) {
        if (env_rank() == 0)
            fputs(pr == 1 ? USAGE : "ioreplay " SIOT_VERSION "\n", stdout);
        return 0;
    }
    if (pr < 0) {
        if (env_rank() == 0)
            fprintf(stderr, "ioreplay: %s\n", why);
        return 2;
    }
    if (r.o.check)
        return check_only(&r.o);
    char inputs[PATH_MAX];
    if (r.o.inputs && r.o.inputs[0] != '/' && getcwd(inputs, sizeof inputs) &&
        strlen(inputs) + strlen(r.o.inputs) + 2 < sizeof inputs) { /* the replay runs inside its root */
        strcat(strcat(inputs, "/"), r.o.inputs);
        r.o.inputs = inputs;
    }
    if (verify_start(&r, argv) != 0 || start(&r, &argc, &argv) != 0)
        return 2;
    prepare(&r);
    if (rp_watch_start(r.rank, r.o.call_timeout) != 0)
        fprintf(stderr, "ioreplay: rank %d: the watchdog thread could not start: --call-timeout is off\n", r.rank);
    stage_inputs(&r);
    PMPI_Barrier(MPI_COMM_WORLD);
    uint64_t t0 = rp_now_ns();
    replay_rank(&r);
    /* aio requests the program never completed, and the bytes of all: an
     * aio call's own event carries none (aio_return reports them) */
    rp_aio_finish(&r.c);
    r.rep[R_READ] += (double)r.c.aio_read_bytes;
    r.rep[R_WRITTEN] += (double)r.c.aio_written_bytes;
    r.rep[R_REPLAY] = (double)(rp_now_ns() - t0) * 1e-9;
    r.rep[R_DIFF] = (double)r.c.different_results;
    r.rep[R_REFUSED] = (double)r.c.refused_paths;
    r.rep[R_ORDER] = (double)r.c.order_results;
    report(&r.o, r.root, r.rank, r.size, r.rep);
    if (r.rank == 0 && r.root_had_files && !r.o.quiet)
        printf("ioreplay: the root %s held files before this replay began (an earlier replay's?): calls that "
               "look for a file may have found one where the run found none; a new --root replays from what the "
               "run had\n",
               r.root);
    uint64_t bad = rp_log_report(&r.log, r.size, stdout), *n_left_out = NULL;
    /* said before MPI_Finalize: Open MPI's mpirun ends rank 0 as soon as
     * another rank exits non-zero */
    int lacking = r.rank == 0 && say_what_trace_lacks(&r.t);
    fflush(stdout);
    /* every rank's calls not reissued, for the comparison (collective) */
    int64_t *left_out = r.o.verify ? rp_log_gather_left_out(&r.log, r.size, &n_left_out) : NULL;
    if (r.size != (int)r.t.nranks) {
        free(left_out), free(n_left_out);
        left_out = NULL, n_left_out = NULL;
    }
    rp_log_free(&r.log);
    free(r.fmap);
    rp_free(&r.c);
    if (traced_pmpi(&r.t, "PMPI_Finalize"))
        PMPI_Finalize();
    else
        MPI_Finalize();
    /* With --verify rank 0 alone carries the status: it compares after
     * MPI_Finalize (the replay's trace is written there), and Open MPI's
     * mpirun ends the job, rank 0's comparison with it, as soon as another
     * rank exits non-zero. */
    int rc = bad && (!r.o.verify || r.rank == 0) ? 1 : 0;
    if (lacking || r.unstaged) /* rank 0's: the replay ran without some of the run's input */
        rc = 1;
    if (r.o.verify && r.rank == 0 &&
        rp_verify_compare(&r.t, rp_verify_trace(), r.o.posix_level, left_out, n_left_out, stdout) != 0)
        rc = 1;
    free(left_out);
    free(n_left_out);
    siot_trace_free(&r.t);
    return rc;
}
