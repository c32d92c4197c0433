#include "replay/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/format.h"
#include "core/roles.h"
#include "replay/compare.h"
#include "replay/totals.h"
#include "compress/merge.h"

#ifndef SIOT_FLAVOUR
#define SIOT_FLAVOUR "mpich"
#endif

/* Set in the re-executed process: the path of its own trace. */
#define VERIFY_ENV "SIOT_IOREPLAY_VERIFY"
#define MAX_SHOWN 10

const char *rp_verify_trace(void) { return getenv(VERIFY_ENV); }

/* The preload library of this flavour: beside ioreplay in the build tree
 * (build/F/bin -> build/F/lib) or where `make install` puts it. */
static int find_preload(char *out, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return -1;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = 0;
    const char *tails[] = {"/../lib/libsiotrace.so", "/../lib/siotrace/" SIOT_FLAVOUR "/libsiotrace.so"};
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        if ((size_t)snprintf(out, n, "%s%s", exe, tails[i]) < n && access(out, R_OK) == 0)
            return 0;
    }
    if ((size_t)snprintf(out, n, "%s%s", exe, tails[0]) >= n)
        out[0] = 0;
    return -1;
}

void rp_verify_reexec(char **argv, const char *trace_path, char *why, size_t n)
{
    char lib[PATH_MAX], path[2 * PATH_MAX + 2], cwd[PATH_MAX], pre[2 * PATH_MAX];
    if (find_preload(lib, sizeof lib) != 0) {
        snprintf(why, n, "--verify needs the preload library, not found at %.900s", lib);
        return;
    }
    int len = trace_path[0] != '/' && getcwd(cwd, sizeof cwd) ? snprintf(path, sizeof path, "%s/%s", cwd, trace_path)
                                                              : snprintf(path, sizeof path, "%s", trace_path);
    if (len < 0 || (size_t)len >= sizeof path) {
        snprintf(why, n, "--verify: the path of the replay's trace is too long");
        return;
    }
    const char *old = getenv("LD_PRELOAD");
    snprintf(pre, sizeof pre, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    unlink(path); /* a trace left by an earlier run must not be taken for this one */
    /* the replay is traced whole, whatever the original run chose */
    const char *unset[] = {"SIOT_LAYERS", "SIOT_RANK_TRACES", "SIOT_CHECKPOINT", "SIOT_TOLERANCE", "SIOT_COMPRESS"};
    for (size_t i = 0; i < sizeof unset / sizeof *unset; i++)
        unsetenv(unset[i]);
    if (setenv("LD_PRELOAD", pre, 1) || setenv("SIOT_TRACE", path, 1) || setenv(VERIFY_ENV, path, 1)) {
        snprintf(why, n, "--verify cannot set the environment: %s", strerror(errno));
        return;
    }
    execv("/proc/self/exe", argv);
    snprintf(why, n, "--verify cannot re-execute ioreplay: %s", strerror(errno));
}

/* An approximate trace (SIOT_TOLERANCE): its loop counts are ranges and
 * means, so the replay is compared by its totals within the tolerance
 * (replay/totals.h). The verdict says "approximate", never "faithful". */
static int verify_totals(const siot_trace *orig, const siot_trace *rt, const siot_diff_filter *flt,
                         const char *level, const char *replay_trace, FILE *out)
{
    char err[512];
    double tol = siot_trace_tolerance(orig);
    siot_totals_result res;
    int rc = siot_compare_totals(orig, rt, flt, tol, MAX_SHOWN, out, &res, err, sizeof err);
    if (rc < 0)
        fprintf(out, "round trip: not checked: %s\n", err);
    else if (rc == 0) {
        char gap[160] = "all equal";
        if (res.widest > 0)
            snprintf(gap, sizeof gap, "the widest gap %.2f%% in %s", res.widest, res.widest_what);
        fprintf(out,
                "round trip: approximate (the trace was recorded with SIOT_TOLERANCE=%g%%: the totals of %" PRIu64
                " functions and %" PRIu64 " files at the %s level are within it, %s; the replay's trace: %s)\n",
                tol, res.functions, res.files, level, gap, replay_trace);
    }
    else
        fprintf(out,
                "round trip: %" PRIu64 " totals differ by more than SIOT_TOLERANCE=%g%% at the %s level%s "
                "(the replay's trace: %s)\n",
                res.differences, tol, level, res.differences > MAX_SHOWN ? ", the first 10 above" : "", replay_trace);
    fflush(out);
    return rc;
}

int rp_verify_compare(const siot_trace *orig, const char *replay_trace, int posix_level, const int64_t *left_out,
                      const uint64_t *n_left_out, FILE *out)
{
    siot_trace rt;
    char err[512];
    const char *level = posix_level ? "posix" : "default";
    if (siot_trace_load(replay_trace, &rt, err, sizeof err) != 0) {
        fprintf(out, "round trip: not checked: the replay's trace %s: %s\n", replay_trace, err);
        return 1;
    }
    /* the calls the replay reissues: the outermost of each chain by default;
     * at the POSIX level every POSIX/stdio call and the MPI calls that the
     * MPI-IO library did not make (replay/plan.h), whose own objects shift
     * the ids of the program's. MPI objects are compared by creation order
     * at both levels: the recorder hands out the lowest free request id,
     * and which are free depends on which requests completed first (MPICH's
     * sends that complete as they are made) */
    siot_diff_filter flt = {
        .outermost = !posix_level, .sandbox_paths = 1, .no_mpi_in_mpiio = posix_level, .creation_order = 1,
        .reads_by_order = posix_level ? SIOT_BY_ORDER_IN_MPIIO : SIOT_BY_ORDER_IN_LIBRARY, .aio_reads_by_order = 1,
        .deletes_by_order = orig->nranks > 1};
    flt.layers = 1u << SIOT_LAYER_posix | 1u << SIOT_LAYER_stdio | 1u << SIOT_LAYER_mpi;
    if (!posix_level)
        flt.layers |= 1u << SIOT_LAYER_mpiio;
    /* the calls the replay did not reissue (listed in its report) are left
     * out of the original's side: the rest is compared in step */
    const int64_t **per_rank = left_out && n_left_out ? calloc(orig->nranks, sizeof *per_rank) : NULL;
    for (uint32_t r = 0, at = 0; per_rank && r < orig->nranks; at += (uint32_t)n_left_out[r], r++)
        per_rank[r] = left_out + at;
    flt.left_out = per_rank;
    flt.n_left_out = n_left_out;
    siot_compare_result res;
    int rc = orig->flags & SIOT_TF_APPROX ? verify_totals(orig, &rt, &flt, level, replay_trace, out)
                                          : siot_compare(orig, &rt, &flt, MAX_SHOWN, out, &res, err, sizeof err);
    free(per_rank);
    if (orig->flags & SIOT_TF_APPROX) {
        siot_trace_free(&rt);
        return rc == 0 ? 0 : 1;
    }
    uint64_t nleft = 0;
    for (uint32_t r = 0; left_out && n_left_out && r < orig->nranks; r++)
        nleft += n_left_out[r];
    char except[128] = "";
    if (nleft)
        snprintf(except, sizeof except, " but for the %" PRIu64 " calls not reissued (listed above), left out", nleft);
    char aio[192] = "";
    if (rc >= 0 && res.aio_by_order)
        snprintf(aio, sizeof aio,
                 "; the sizes of %" PRIu64 " aio reads (aio_return) compared by order, the moment their transfer "
                 "ran decided them: %" PRIu64 " differed",
                 res.aio_by_order, res.aio_order_results);
    if (rc < 0)
        fprintf(out, "round trip: not checked: %s\n", err);
    else if (rc == 0 && res.order_results)
        fprintf(out,
                "round trip: faithful%s (%" PRIu64 " calls at the %s level, of which %" PRIu64 " had another "
                "result that the order of the ranks' calls decided: the size a read or a seek to the end found, a "
                "file found or gone%s; the replay's trace: %s)\n",
                except, res.compared, level, res.order_results, aio,
                replay_trace);
    else if (rc == 0)
        fprintf(out, "round trip: faithful%s (%" PRIu64 " calls at the %s level%s; the replay's trace: %s)\n", except,
                res.compared, level, aio, replay_trace);
    else
        fprintf(out, "round trip: %" PRIu64 " differences in %" PRIu64 " calls at the %s level%s (the replay's trace: %s)\n",
                res.differences, res.compared, level, res.differences > MAX_SHOWN ? ", the first 10 above" : "",
                replay_trace);
    fflush(out);
    siot_trace_free(&rt);
    return rc == 0 ? 0 : 1;
}
