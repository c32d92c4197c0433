/* siot stats: the statistics pass over the compressed trace (replay/analyze.h):
 * calls per layer for rank 0 and the other ranks, communication by kind,
 * bytes per layer and per file, request sizes, time per function from the
 * histograms, and the busiest call sites resolved to source lines. */
#include "siot/stats.h"

#include <aio.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/expr.h"
#include "core/hist.h"
#include "replay/analyze.h"
#include "replay/json.h"
#include "siot/measures.h"
#include "siot/access.h"
#include "replay/files.h"
#include "siot/rankstats.h"
#include "core/roles.h"

enum { COMM_COLL, COMM_BLOCK, COMM_NB, COMM_OTHER, NCOMM };
static const char *const COMM_NAMES[NCOMM] = {"collective", "blocking", "nonblocking", "other"};
#define NCOLS (SIOT_NLAYERS + NCOMM)
#define SIZE_BINS 64

typedef struct fnstat {
    uint64_t calls, bytes;
    double time_ns;
    uint64_t max_ns;
    int32_t max_rank;
} fnstat;

typedef struct stats {
    const siot_trace *t;
    uint64_t total;
    fnstat *fn;
    uint64_t lcalls[SIOT_NLAYERS], lread[SIOT_NLAYERS], lwrite[SIOT_NLAYERS];
    double ltime[SIOT_NLAYERS];
    uint64_t *rank_calls; /* nranks x NCOLS */
    siot_files files; /* exact per-file rows (replay/files.h) */
    uint64_t sizes[SIOT_NLAYERS][2][SIZE_BINS];
    uint64_t size_bytes[SIOT_NLAYERS][2][SIZE_BINS]; /* the bytes those calls moved */
    uint64_t *site_calls; /* per site + 1 */
    uint32_t *site_func;
    siot_origins origins; /* the traced calls each call was made in (siot/origin.h) */
    siot_vbuf scratch;
    int oom;
} stats;

/* the kinds in the order of SIOT_RT_mpi_collective... (core/ranktimes.h) */
static unsigned comm_kind(unsigned cls) { return siot_rt_mpi_kind(cls) - SIOT_RT_mpi_collective; }

static void on_event(void *user, const siot_agg_event *e)
{
    stats *s = user;
    const siot_funcdesc *f = e->fn;
    uint32_t fi = e->node->u.ev.func;
    uint64_t total = e->calls * e->nranks;
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int64_t aiofd;
    unsigned aio = siot_aio_direction(e, &s->scratch, &aiofd);
    if (aio)
        b = aio; /* an aio completion's bytes: read or written */
    int data = siot_is_data_class(f->cls);
    uint64_t bytes = data && e->bytes > 0 ? (uint64_t)e->bytes * total : 0;
    s->total += total;
    s->fn[fi].calls += total;
    s->fn[fi].bytes += bytes;
    s->lcalls[f->layer] += total;
    if (b == SIOT_CLASS_read)
        s->lread[f->layer] += bytes;
    else if (b == SIOT_CLASS_write)
        s->lwrite[f->layer] += bytes;
    for (uint32_t i = 0; i < e->nranks; i++) {
        uint64_t *row = &s->rank_calls[(uint64_t)e->ranks[i] * NCOLS];
        row[f->layer] += e->calls;
        if (f->layer == SIOT_LAYER_mpi)
            row[SIOT_NLAYERS + comm_kind(f->cls)] += e->calls;
    }
    if ((b == SIOT_CLASS_read || b == SIOT_CLASS_write) && e->bytes > 0 && f->layer != SIOT_LAYER_mpi) {
        unsigned bin = siot_hist_bin((uint64_t)e->bytes);
        s->sizes[f->layer][b == SIOT_CLASS_write][bin] += total;
        s->size_bytes[f->layer][b == SIOT_CLASS_write][bin] += bytes;
    }
    if (e->first_visit) {
        const siot_hist *d = &e->node->u.ev.dur;
        double t = d->mean * (double)d->count;
        s->fn[fi].time_ns += t;
        s->ltime[f->layer] += t;
        if (d->count && d->max >= s->fn[fi].max_ns) {
            s->fn[fi].max_ns = d->max;
            s->fn[fi].max_rank = d->max_rank;
        }
    }
    uint32_t site = e->node->u.ev.site;
    if (site <= s->t->nsites) {
        s->site_calls[site] += total;
        s->site_func[site] = fi;
    }
    siot_files_event(&s->files, e);
}

/* ------------------------------------------------------------ output */

static const char *LAYER_TITLE[SIOT_NLAYERS] = {"POSIX", "stdio", "MPI", "MPI-IO", "HDF5", "PnetCDF"};

typedef struct spread {
    uint64_t r0;
    double mean;
    uint64_t min, max;
} spread;

static spread col_spread(const stats *s, unsigned col)
{
    spread sp = {0, 0, UINT64_MAX, 0};
    uint32_t P = s->t->nranks;
    sp.r0 = s->rank_calls[col];
    for (uint32_t r = 1; r < P; r++) {
        uint64_t v = s->rank_calls[(uint64_t)r * NCOLS + col];
        sp.mean += (double)v;
        if (v < sp.min)
            sp.min = v;
        if (v > sp.max)
            sp.max = v;
    }
    if (P > 1)
        sp.mean /= (double)(P - 1);
    else
        sp.min = 0;
    return sp;
}

static void human_bytes(char *b, size_t n, double v)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int i = 0;
    while (v >= 1024 && i < 5) {
        v /= 1024;
        i++;
    }
    if (i == 0)
        snprintf(b, n, "%.0f B", v);
    else
        snprintf(b, n, "%.1f %s", v, u[i]);
}

static int cmp_site(const void *a, const void *b, void *ctx)
{
    const stats *s = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return s->site_calls[y] > s->site_calls[x] ? 1 : s->site_calls[y] < s->site_calls[x] ? -1 : (x > y) - (x < y);
}

static uint32_t top_sites(stats *s, siot_siteloc *loc, uint32_t max)
{
    uint32_t n = 0, *ids = malloc((s->t->nsites + 1) * sizeof *ids);
    if (!ids)
        return 0;
    for (uint32_t i = 1; i <= s->t->nsites; i++)
        if (s->site_calls[i])
            ids[n++] = i;
    qsort_r(ids, n, sizeof *ids, cmp_site, s);
    if (n > max)
        n = max;
    for (uint32_t i = 0; i < n; i++) {
        loc[i].site = ids[i];
        loc[i].origin = siot_origins_dominant(&s->origins, ids[i]);
    }
    free(ids);
    siot_resolve_origins(s->t, &s->origins, loc, n);
    return n;
}

/* Bytes read and written, for people. */
static void human_rw(char (*rw)[32], uint64_t rbytes, uint64_t wbytes)
{
    human_bytes(rw[0], sizeof rw[0], (double)rbytes);
    human_bytes(rw[1], sizeof rw[1], (double)wbytes);
}

/* One row per file and layer, exact; then the patterns that sum up rows
 * whose names differ only in numbers. */
static void print_files_human(siot_files *fs, FILE *o)
{
    char rw[2][32];
    siot_vbuf rl;
    siot_vbuf_init(&rl);
    if (fs->nrows)
        fprintf(o, "\nFiles                                          layer        calls         read      written"
                   "  ranks\n");
    for (uint32_t i = 0; i < fs->nrows; i++) {
        const siot_filerow *f = &fs->rows[i];
        human_rw(rw, f->rbytes, f->wbytes);
        rl.len = 0;
        siot_rankset_format(&f->ranks, &rl);
        fprintf(o, "  %-44s %-8s %9" PRIu64 " %12s %12s  %" PRIu64 " %s (%.*s)%s\n", f->name, siot_layer_name(f->layer),
                f->calls, rw[0], rw[1], siot_rankset_count(&f->ranks), siot_file_sharing(f), (int)rl.len, (const char *)rl.data,
                f->exact ? "" : " approximate");
    }
    if (fs->npatterns)
        fprintf(o, "\nFile patterns (sums of the rows above)  layer   files    calls         read      written"
                   "  ranks\n");
    for (uint32_t i = 0; i < fs->npatterns; i++) {
        const siot_filepattern *p = &fs->patterns[i];
        human_rw(rw, p->rbytes, p->wbytes);
        fprintf(o, "  %-38s %-8s %5u %8" PRIu64 " %12s %12s  %" PRIu64 "\n", p->pattern, siot_layer_name(p->layer),
                p->files, p->calls, rw[0], rw[1], siot_rankset_count(&p->ranks));
    }
    if (fs->nfailed)
        fprintf(o, "\nFailed opens (no file: the open returned an error)  layer        calls  ranks\n");
    for (uint32_t i = 0; i < fs->nfailed; i++) {
        const siot_failedopen *f = &fs->failed[i];
        rl.len = 0;
        siot_rankset_format(&f->ranks, &rl);
        fprintf(o, "  %-50s %-8s %9" PRIu64 "  %" PRIu64 " (%.*s)\n", f->name, siot_layer_name(f->layer), f->calls,
                siot_rankset_count(&f->ranks), (int)rl.len, (const char *)rl.data);
    }
    if (fs->failed_more)
        fprintf(o, "  and %" PRIu64 " failed opens of further names\n", fs->failed_more);
    siot_vbuf_free(&rl);
}

/* Each rank's own times (the trace's per-rank rows): rank 0, the others'
 * mean, min and max with the rank of the max. */
static void print_rank_times(const siot_trace *t, FILE *o)
{
    if (t->rtsum) { /* a summary: every rank's row is not there */
        siot_rank_times_text(t, o);
        return;
    }
    if (!t->nrt)
        return;
    char a[32], b[32], c[32], d[32];
    fprintf(o, "\nTime per rank (each rank's own)   rank 0    other ranks: mean          min          max (rank)\n");
    for (unsigned i = 0; i <= SIOT_RT_N; i++) {
        unsigned k = SIOT_RT_ORDER[i];
        double r0 = siot_rank_time(t, 0, k), sum = 0, min = -1, max = -1;
        uint32_t n = 0, at = 0;
        for (uint32_t r = 1; r < t->nranks; r++) {
            double v = siot_rank_time(t, r, k);
            if (v < 0)
                continue;
            n++;
            sum += v;
            min = min < 0 || v < min ? v : min;
            if (v > max) {
                max = v;
                at = r;
            }
        }
        if (r0 <= 0 && max <= 0)
            continue;
        siot_fmt_ns(a, sizeof a, r0 < 0 ? 0 : r0);
        if (n) {
            siot_fmt_ns(b, sizeof b, sum / n);
            siot_fmt_ns(c, sizeof c, min);
            siot_fmt_ns(d, sizeof d, max);
            char who[16] = "";
            if (max > 0) /* the rank of a maximum of nothing says nothing */
                snprintf(who, sizeof who, " (%u)", at);
            fprintf(o, "  %-28s %10s %17s %12s %12s%s\n", siot_rank_time_title(k), a, b, c, d, who);
        } else {
            fprintf(o, "  %-28s %10s %17s %12s %12s\n", siot_rank_time_title(k), a, "-", "-", "-");
        }
    }
}

/* The title and what the reader should know first: a partial,
 * approximate or truncated trace, calls the run made that it lacks. */
static void print_head_human(const stats *s, const char *path, FILE *o)
{
    const siot_trace *t = s->t;
    fprintf(o, "siot stats %s\n", path);
    fprintf(o, "  %u ranks, %" PRIu64 " events (%u nodes in the compressed trace), %s\n", t->nranks, s->total, t->nnodes,
            t->exe);
    if (t->flags & (SIOT_TF_PARTIAL | SIOT_TF_APPROX | SIOT_TF_TRUNCATED))
        fprintf(o, "  note: the trace is%s%s%s\n", t->flags & SIOT_TF_PARTIAL ? " partial" : "",
                t->flags & SIOT_TF_APPROX ? " approximate (SIOT_TOLERANCE)" : "",
                t->flags & SIOT_TF_TRUNCATED ? " truncated" : "");
    char lacks[512];
    if (siot_trace_lacks_text(t, "", lacks, sizeof lacks))
        fprintf(o, "  note: %s\n", lacks);
}

/* Calls per layer and per kind of MPI communication: rank 0 against the
 * other ranks (MPI as a layer is shown by its kinds). */
static void print_calls_human(const stats *s, FILE *o)
{
    const siot_trace *t = s->t;
    fprintf(o, "\nCalls per layer            rank 0    other ranks: mean        min        max    all ranks\n");
    for (unsigned col = 0; col < SIOT_NLAYERS + NCOMM; col++) {
        uint64_t tot = 0;
        for (uint32_t r = 0; r < t->nranks; r++)
            tot += s->rank_calls[(uint64_t)r * NCOLS + col];
        if (!tot || col == SIOT_LAYER_mpi)
            continue;
        spread sp = col_spread(s, col);
        char name[40];
        if (col < SIOT_NLAYERS)
            snprintf(name, sizeof name, "%s", LAYER_TITLE[col]);
        else
            snprintf(name, sizeof name, "MPI %s", COMM_NAMES[col - SIOT_NLAYERS]);
        if (t->nranks > 1)
            fprintf(o, "  %-22s %10" PRIu64 "   %17.1f %10" PRIu64 " %10" PRIu64 " %12" PRIu64 "\n", name, sp.r0,
                    sp.mean, sp.min, sp.max, tot);
        else
            fprintf(o, "  %-22s %10" PRIu64 "   %17s %10s %10s %12" PRIu64 "\n", name, sp.r0, "-", "-", "-", tot);
    }
}

/* Bytes and time per layer, then time per function. */
static void print_volume_human(const stats *s, FILE *o)
{
    const siot_trace *t = s->t;
    char a[32], b[32], c[32];
    fprintf(o, "\nBytes per layer                 read       written      time in calls\n");
    for (unsigned l = 0; l < SIOT_NLAYERS; l++) {
        if (!s->lcalls[l] || l == SIOT_LAYER_mpi)
            continue;
        human_bytes(a, sizeof a, (double)s->lread[l]);
        human_bytes(b, sizeof b, (double)s->lwrite[l]);
        siot_fmt_ns(c, sizeof c, s->ltime[l]);
        fprintf(o, "  %-22s %12s %13s %18s\n", LAYER_TITLE[l], a, b, c);
    }
    int w = 20; /* the longest name called (ncmpi_put_vara_short_all: 24) widens the column */
    for (uint32_t i = 0; i < t->nfuncs; i++)
        if (s->fn[i].calls && (int)strlen(t->funcs[i].name) > w)
            w = (int)strlen(t->funcs[i].name);
    fprintf(o, "\nTime per function%*s        calls        total         mean          max (rank)\n", w - 20, "");
    for (uint32_t i = 0; i < t->nfuncs; i++) {
        const fnstat *f = &s->fn[i];
        if (!f->calls)
            continue;
        siot_fmt_ns(a, sizeof a, f->time_ns);
        siot_fmt_ns(b, sizeof b, f->time_ns / (double)f->calls);
        siot_fmt_ns(c, sizeof c, (double)f->max_ns);
        char r[16] = "-"; /* a trace recorded with SIOT_TOLERANCE keeps no rank of a maximum */
        if (f->max_rank >= 0)
            snprintf(r, sizeof r, "%d", f->max_rank);
        fprintf(o, "  %-*s %9" PRIu64 " %12s %12s %12s (%s)\n", w, t->funcs[i].name, f->calls, a, b, c, r);
    }
}

/* Request sizes per layer by log2 bin, reads and writes (nothing when no
 * data call was made). */
static void print_sizes_human(const stats *s, FILE *o)
{
    int any = 0;
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        for (unsigned w = 0; w < 2; w++)
            for (unsigned k = 0; k < SIZE_BINS; k++)
                any |= s->sizes[l][w][k] != 0;
    if (!any)
        return;
    char a[32], b[32];
    fprintf(o, "\nRequest sizes                          reads       writes\n");
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        for (unsigned k = 0; k < SIZE_BINS; k++) {
            if (!s->sizes[l][0][k] && !s->sizes[l][1][k])
                continue;
            uint64_t lo, hi;
            siot_hist_bin_range(k, &lo, &hi);
            human_bytes(a, sizeof a, (double)lo);
            human_bytes(b, sizeof b, (double)hi);
            char range[96];
            snprintf(range, sizeof range, "%s [%s, %s)", LAYER_TITLE[l], a, b);
            fprintf(o, "  %-32s %10" PRIu64 " %12" PRIu64 "\n", range, s->sizes[l][0][k], s->sizes[l][1][k]);
        }
}

/* The ten busiest call sites, at the program's line where known. */
static void print_sites_human(stats *s, FILE *o)
{
    const siot_trace *t = s->t;
    siot_siteloc loc[10];
    uint32_t n = top_sites(s, loc, 10);
    if (!n)
        return;
    fprintf(o, "\nTop call sites               calls  function             location\n");
    int no_line = 0;
    for (uint32_t i = 0; i < n; i++) {
        fprintf(o, "  s%-7u%24" PRIu64 "  %-20s %s%s%s\n", loc[i].site, s->site_calls[loc[i].site],
                t->funcs[s->site_func[loc[i].site]].name, loc[i].where, loc[i].chain[0] ? ", via " : "",
                loc[i].chain);
        no_line |= loc[i].no_line;
    }
    if (no_line)
        fprintf(o, "  (%s)\n", siot_no_line_hint);
}

static void print_human(stats *s, const char *path, FILE *o)
{
    print_head_human(s, path, o);
    print_calls_human(s, o);
    print_rank_times(s->t, o);
    print_volume_human(s, o);
    print_files_human(&s->files, o);
    print_sizes_human(s, o);
    print_sites_human(s, o);
}

static void json_name(FILE *o, const char *name)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    siot_json_str(&b, name, strlen(name));
    fwrite(b.data, 1, b.len, o);
    siot_vbuf_free(&b);
}

/* Each rank's calls per layer and per kind of MPI communication (the
 * CSV's "rank" rows), and its own times when the trace has them:
 * {"rank":0,"calls":{"posix":24,...,"collective":3},"time_s":{"span":..}}. */
static void print_ranks_json(const stats *s, FILE *o)
{
    for (uint32_t r = 0; r < s->t->nranks; r++) {
        fprintf(o, "%s{\"rank\":%u,\"calls\":{", r ? "," : "", r);
        for (unsigned c = 0; c < NCOLS; c++)
            fprintf(o, "%s\"%s\":%" PRIu64, c ? "," : "",
                    c < SIOT_NLAYERS ? siot_layer_name(c) : COMM_NAMES[c - SIOT_NLAYERS],
                    s->rank_calls[(uint64_t)r * NCOLS + c]);
        fprintf(o, "}");
        for (unsigned k = 0; k <= SIOT_RT_N; k++) {
            double v = siot_rank_time(s->t, r, k);
            if (v >= 0)
                fprintf(o, "%s\"%s\":%.9g", k ? "," : ",\"time_s\":{", siot_rank_time_name(k), v * 1e-9);
        }
        fprintf(o, "%s}", siot_rank_time(s->t, r, 0) >= 0 ? "}" : "");
    }
}

/* A row's start, {"name":"...", its ranks formatted into rl. */
static void json_row(FILE *o, uint32_t i, const char *name, const siot_rankset *ranks, siot_vbuf *rl)
{
    rl->len = 0;
    siot_rankset_format(ranks, rl);
    fprintf(o, "%s{\"name\":", i ? "," : "");
    json_name(o, name);
}

/* The same rows as the text: "files" exact, "file_patterns" their summary. */
static void print_files_json(siot_files *fs, FILE *o)
{
    siot_vbuf rl;
    siot_vbuf_init(&rl);
    for (uint32_t i = 0; i < fs->nrows; i++) {
        const siot_filerow *f = &fs->rows[i];
        json_row(o, i, f->name, &f->ranks, &rl);
        fprintf(o, ",\"layer\":\"%s\",\"calls\":%" PRIu64 ",\"bytes_read\":%" PRIu64 ",\"bytes_written\":%" PRIu64
                   ",\"opens\":%" PRIu64 ",\"ranks\":%" PRIu64 ",\"rank_list\":\"%.*s\",\"sharing\":\"%s\",\"exact\":%s"
                   ",\"time_s\":%.9g}",
                siot_layer_name(f->layer), f->calls, f->rbytes, f->wbytes, f->opens, siot_rankset_count(&f->ranks),
                (int)rl.len, (const char *)rl.data, siot_file_sharing(f), f->exact ? "true" : "false",
                f->time_ns * 1e-9);
    }
    fprintf(o, "],\"file_patterns\":[");
    for (uint32_t i = 0; i < fs->npatterns; i++) {
        const siot_filepattern *p = &fs->patterns[i];
        fprintf(o, "%s{\"pattern\":", i ? "," : "");
        json_name(o, p->pattern);
        fprintf(o, ",\"layer\":\"%s\",\"files\":%u,\"calls\":%" PRIu64 ",\"bytes_read\":%" PRIu64
                   ",\"bytes_written\":%" PRIu64 ",\"ranks\":%" PRIu64 "}",
                siot_layer_name(p->layer), p->files, p->calls, p->rbytes, p->wbytes, siot_rankset_count(&p->ranks));
    }
    fprintf(o, "],\"failed_opens\":[");
    for (uint32_t i = 0; i < fs->nfailed; i++) {
        const siot_failedopen *f = &fs->failed[i];
        json_row(o, i, f->name, &f->ranks, &rl);
        fprintf(o, ",\"layer\":\"%s\",\"calls\":%" PRIu64 ",\"ranks\":%" PRIu64 ",\"rank_list\":\"%.*s\"}",
                siot_layer_name(f->layer), f->calls, siot_rankset_count(&f->ranks), (int)rl.len, (const char *)rl.data);
    }
    fprintf(o, "],\"failed_opens_more\":%" PRIu64, fs->failed_more);
    siot_vbuf_free(&rl);
}

typedef struct funcpair {
    uint32_t func, outer;
    uint64_t calls;
} funcpair;

static int by_pair(const void *a, const void *b)
{
    const funcpair *x = a, *y = b;
    return x->func != y->func ? (x->func > y->func) - (x->func < y->func) : (x->outer > y->outer) - (x->outer < y->outer);
}

/* "outermost": the calls of each function per outermost traced call they
 * were made in (a function's own outermost calls under its own name), from
 * the chains of siot/origin.h. */
static void print_outermost_json(const stats *s, FILE *o)
{
    const siot_origins *g = &s->origins;
    funcpair *v = malloc((g->n ? g->n : 1) * sizeof *v);
    uint32_t n = 0;
    for (uint32_t id = 1; v && id < g->n; id++)
        v[n++] = (funcpair){g->v[id].func, g->v[g->v[id].root].func, g->v[id].calls};
    if (v)
        qsort(v, n, sizeof *v, by_pair);
    fprintf(o, ",\"calls_without_chain\":%" PRIu64 ",\"outermost\":[", g->unlinked);
    for (uint32_t i = 0, k = 0; v && i < n; i++) {
        if (i + 1 < n && by_pair(&v[i], &v[i + 1]) == 0) {
            v[i + 1].calls += v[i].calls;
            continue;
        }
        fprintf(o, "%s{\"function\":", k++ ? "," : "");
        json_name(o, s->t->funcs[v[i].func].name);
        fprintf(o, ",\"outermost\":");
        json_name(o, s->t->funcs[v[i].outer].name);
        fprintf(o, ",\"calls\":%" PRIu64 "}", v[i].calls);
    }
    fprintf(o, "]");
    free(v);
}

/* "functions": per function called, its layer, calls, bytes and times. */
static void print_functions_json(const stats *s, FILE *o)
{
    const siot_trace *t = s->t;
    fprintf(o, "\"functions\":{");
    int first = 1;
    for (uint32_t i = 0; i < t->nfuncs; i++) {
        const fnstat *f = &s->fn[i];
        if (!f->calls)
            continue;
        fprintf(o, "%s", first ? "" : ",");
        first = 0;
        json_name(o, t->funcs[i].name);
        fprintf(o, ":{\"layer\":\"%s\",\"calls\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"time_s\":%.9g,\"max_s\":%.9g,\"max_rank\":%d}",
                siot_layer_name(t->funcs[i].layer), f->calls, f->bytes, f->time_ns * 1e-9, (double)f->max_ns * 1e-9,
                f->max_rank);
    }
    fprintf(o, "}");
}

/* "layers" (each layer called: calls, bytes, time, rank 0 against the
 * others) and "communication" (the same calls by kind of MPI call). */
static void print_layers_json(const stats *s, FILE *o)
{
    const siot_trace *t = s->t;
    fprintf(o, ",\"layers\":{");
    int first = 1;
    for (unsigned l = 0; l < SIOT_NLAYERS; l++) {
        if (!s->lcalls[l])
            continue;
        spread sp = col_spread(s, l);
        fprintf(o, "%s\"%s\":{\"calls\":%" PRIu64 ",\"bytes_read\":%" PRIu64 ",\"bytes_written\":%" PRIu64
                   ",\"time_s\":%.9g,\"rank0_calls\":%" PRIu64,
                first ? "" : ",", siot_layer_name(l), s->lcalls[l], s->lread[l], s->lwrite[l], s->ltime[l] * 1e-9,
                sp.r0);
        if (t->nranks > 1)
            fprintf(o, ",\"others_calls_mean\":%.9g,\"others_calls_min\":%" PRIu64 ",\"others_calls_max\":%" PRIu64,
                    sp.mean, sp.min, sp.max);
        fprintf(o, "}");
        first = 0;
    }
    fprintf(o, "},\"communication\":{");
    for (unsigned k = 0; k < NCOMM; k++) {
        spread sp = col_spread(s, SIOT_NLAYERS + k);
        uint64_t tot = 0;
        for (uint32_t r = 0; r < t->nranks; r++)
            tot += s->rank_calls[(uint64_t)r * NCOLS + SIOT_NLAYERS + k];
        fprintf(o, "%s\"%s\":{\"calls\":%" PRIu64 ",\"rank0\":%" PRIu64, k ? "," : "", COMM_NAMES[k], tot, sp.r0);
        if (t->nranks > 1)
            fprintf(o, ",\"others_mean\":%.9g,\"others_min\":%" PRIu64 ",\"others_max\":%" PRIu64, sp.mean, sp.min,
                    sp.max);
        fprintf(o, "}");
    }
    fprintf(o, "}");
}

/* "request_sizes": per layer and direction with calls, the log2 bins. */
static void print_sizes_json(const stats *s, FILE *o)
{
    fprintf(o, ",\"request_sizes\":{");
    int first = 1;
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        for (unsigned w = 0; w < 2; w++) {
            int any = 0;
            for (unsigned k = 0; k < SIZE_BINS; k++)
                any |= s->sizes[l][w][k] != 0;
            if (!any)
                continue;
            fprintf(o, "%s\"%s_%s\":[", first ? "" : ",", siot_layer_name(l), w ? "write" : "read");
            first = 0;
            int f2 = 1;
            for (unsigned k = 0; k < SIZE_BINS; k++) {
                if (!s->sizes[l][w][k])
                    continue;
                uint64_t lo, hi;
                siot_hist_bin_range(k, &lo, &hi);
                fprintf(o, "%s{\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
                        f2 ? "" : ",", lo, hi - 1, s->sizes[l][w][k], s->size_bytes[l][w][k]);
                f2 = 0;
            }
            fprintf(o, "]");
        }
    fprintf(o, "}");
}

/* "call_sites": the twenty busiest, with the program's line and the chain
 * of traced calls. */
static void print_sites_json(stats *s, FILE *o)
{
    const siot_trace *t = s->t;
    fprintf(o, ",\"call_sites\":[");
    siot_siteloc loc[20];
    uint32_t n = top_sites(s, loc, 20);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(o, "%s{\"site\":%u,\"function\":", i ? "," : "", loc[i].site);
        json_name(o, t->funcs[s->site_func[loc[i].site]].name);
        fprintf(o, ",\"calls\":%" PRIu64 ",\"location\":", s->site_calls[loc[i].site]);
        json_name(o, loc[i].where);
        fprintf(o, ",\"program\":%s,\"chain\":", loc[i].program ? "true" : "false");
        json_name(o, loc[i].chain);
        fprintf(o, "}");
    }
    fprintf(o, "]");
}

static void print_json(stats *s, FILE *o)
{
    const siot_trace *t = s->t;
    fprintf(o, "{\"nranks\":%u,\"total_events\":%" PRIu64 ",\"nodes\":%u,\"partial\":%s,\"approximate\":%s,", t->nranks,
            s->total, t->nnodes, t->flags & SIOT_TF_PARTIAL ? "true" : "false",
            t->flags & SIOT_TF_APPROX ? "true" : "false");
    char lacks[400];
    if (siot_trace_lacks(t, lacks, sizeof lacks)) { /* calls of the run the trace does not hold, and why */
        fprintf(o, "\"lacks_calls\":");
        json_name(o, lacks);
        fputc(',', o);
    }
    print_functions_json(s, o);
    print_layers_json(s, o);
    fprintf(o, ",\"ranks\":[");
    print_ranks_json(s, o);
    fprintf(o, "]");
    siot_rank_times_json(t, o);
    fprintf(o, ",\"files\":[");
    print_files_json(&s->files, o);
    print_sizes_json(s, o);
    print_sites_json(s, o);
    print_outermost_json(s, o);
}

/* siot/access.h's numbers: "access" rows by file and layer, and the bytes
 * each layer issued under the read and write calls of another. */
static void print_access_json(const siot_access *a, FILE *o)
{
    fprintf(o, ",\"access_events\":%" PRIu64 ",\"access_truncated\":%s,\"access\":[", a->events,
            a->truncated ? "true" : "false");
    for (uint32_t i = 0; i < a->files.nrows; i++) {
        const siot_access_row *r = &a->rows[i];
        fprintf(o, "%s{\"name\":", i ? "," : "");
        json_name(o, a->files.rows[i].name);
        fprintf(o, ",\"layer\":\"%s\"", siot_layer_name(a->files.rows[i].layer));
        for (unsigned k = 0; k < SIOT_AP_N; k++)
            fprintf(o, ",\"%s\":%" PRIu64, siot_access_name(k), r->n[k]);
        fprintf(o, ",\"aligned\":%" PRIu64 "}", r->aligned);
    }
    fprintf(o, "],\"amplification\":[");
    int first = 1;
    for (unsigned u = 0; u < SIOT_NLAYERS; u++)
        for (unsigned d = 0; d < 2; d++)
            for (unsigned l = 0; l < SIOT_NLAYERS; l++) {
                const uint64_t *v = a->amp[u][d][l];
                if (!v[0] && !v[1])
                    continue;
                fprintf(o, "%s{\"upper\":\"%s\",\"upper_dir\":\"%s\",\"upper_bytes\":%" PRIu64
                           ",\"lower\":\"%s\",\"lower_read\":%" PRIu64 ",\"lower_written\":%" PRIu64 "}",
                        first ? "" : ",", siot_layer_name(u), d ? "write" : "read", a->layer_bytes[u][d],
                        siot_layer_name(l), v[0], v[1]);
                first = 0;
            }
    fprintf(o, "]");
}

static void csv_field(FILE *o, const char *v)
{
    fputc('"', o);
    for (; *v; v++) {
        if (*v == '"')
            fputc('"', o);
        fputc(*v, o);
    }
    fputc('"', o);
}

/* Rows of "file" (one per file and layer) and "file_pattern" (their
 * summary): a name, then the metrics, with the layer in its own column. */
static void csv_rows(FILE *o, const char *section, const char *name, const char *layer, const char *const *metric,
                     const uint64_t *v, int n)
{
    for (int k = 0; k < n; k++) {
        fprintf(o, "%s,", section);
        csv_field(o, name);
        fprintf(o, ",%s,%" PRIu64 ",%s\n", metric[k], v[k], layer);
    }
}

static void print_files_csv(const siot_files *fs, FILE *o)
{
    const char *fm[5] = {"calls", "bytes_read", "bytes_written", "opens", "ranks"};
    const char *pm[5] = {"calls", "bytes_read", "bytes_written", "ranks", "files"};
    for (uint32_t i = 0; i < fs->nrows; i++) {
        const siot_filerow *f = &fs->rows[i];
        uint64_t v[5] = {f->calls, f->rbytes, f->wbytes, f->opens, siot_rankset_count(&f->ranks)};
        csv_rows(o, "file", f->name, siot_layer_name(f->layer), fm, v, 5);
    }
    for (uint32_t i = 0; i < fs->npatterns; i++) {
        const siot_filepattern *p = &fs->patterns[i];
        uint64_t v[5] = {p->calls, p->rbytes, p->wbytes, siot_rankset_count(&p->ranks), p->files};
        csv_rows(o, "file_pattern", p->pattern, siot_layer_name(p->layer), pm, v, 5);
    }
}

/* section,name,metric,value and, where one applies, the layer (a column
 * added after the first four, so readers of those keep working). */
static void print_csv(stats *s, FILE *o)
{
    const siot_trace *t = s->t;
    fprintf(o, "section,name,metric,value,layer\n");
    fprintf(o, "job,,nranks,%u,\njob,,total_events,%" PRIu64 ",\n", t->nranks, s->total);
    for (uint32_t i = 0; i < t->nfuncs; i++) {
        const fnstat *f = &s->fn[i];
        const char *n = t->funcs[i].name, *l = siot_layer_name(t->funcs[i].layer);
        if (f->calls)
            fprintf(o, "function,%s,calls,%" PRIu64 ",%s\nfunction,%s,bytes,%" PRIu64 ",%s\nfunction,%s,time_s,%.9g,%s\n",
                    n, f->calls, l, n, f->bytes, l, n, f->time_ns * 1e-9, l);
    }
    for (unsigned l = 0; l < SIOT_NLAYERS; l++) {
        const char *n = siot_layer_name(l);
        if (s->lcalls[l])
            fprintf(o, "layer,%s,calls,%" PRIu64 ",%s\nlayer,%s,bytes_read,%" PRIu64 ",%s\nlayer,%s,bytes_written,%" PRIu64
                       ",%s\n",
                    n, s->lcalls[l], n, n, s->lread[l], n, n, s->lwrite[l], n);
    }
    for (uint32_t r = 0; r < t->nranks; r++)
        for (unsigned c = 0; c < NCOLS; c++) {
            uint64_t v = s->rank_calls[(uint64_t)r * NCOLS + c];
            if (v)
                fprintf(o, "rank,%u,%s_calls,%" PRIu64 ",%s\n", r,
                        c < SIOT_NLAYERS ? siot_layer_name(c) : COMM_NAMES[c - SIOT_NLAYERS], v,
                        c < SIOT_NLAYERS ? siot_layer_name(c) : "mpi");
        }
    for (uint32_t r = 0; r < t->nranks; r++)
        for (unsigned k = 0; k <= SIOT_RT_N; k++) {
            double v = siot_rank_time(t, r, k);
            if (v > 0)
                fprintf(o, "rank,%u,time_%s_s,%.9g,\n", r, siot_rank_time_name(k), v * 1e-9);
        }
    siot_rank_times_csv(t, o);
    print_files_csv(&s->files, o);
}

/* ------------------------------------------------------------ entry */

int siot_stats(const siot_trace *t, const char *path, int format, FILE *out, char *err, size_t errlen)
{
    stats s;
    memset(&s, 0, sizeof s);
    s.t = t;
    siot_files_init(&s.files);
    s.fn = calloc(t->nfuncs + 1, sizeof *s.fn);
    s.rank_calls = calloc((size_t)t->nranks * NCOLS + 1, sizeof *s.rank_calls);
    s.site_calls = calloc(t->nsites + 2, sizeof *s.site_calls);
    s.site_func = calloc(t->nsites + 2, sizeof *s.site_func);
    int rc = -1;
    if (siot_origins_init(&s.origins, t) != 0 || !s.fn || !s.rank_calls || !s.site_calls || !s.site_func) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    siot_handlers inner = {.user = &s, .event = on_event}, h = siot_origins_wrap(&s.origins, &inner);
    if (siot_analyze(t, &h, err, errlen) != 0)
        goto out;
    if (s.oom || s.files.oom || s.origins.oom || siot_files_summarise(&s.files) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    siot_access acc;
    siot_access_init(&acc);
    if ((format & SIOT_STATS_ACCESS) && siot_access_run(t, &acc, SIOT_ACCESS_MAX_EVENTS, err, errlen) != 0) {
        siot_access_free(&acc);
        goto out;
    }
    if ((format & 0xff) == 1) {
        print_json(&s, out);
        if (format & SIOT_STATS_ACCESS)
            print_access_json(&acc, out);
        fprintf(out, "}\n");
    }
    else if ((format & 0xff) == 2)
        print_csv(&s, out);
    else
        print_human(&s, path, out);
    siot_access_free(&acc);
    rc = 0;
out:
    siot_files_free(&s.files);
    siot_origins_free(&s.origins);
    free(s.fn);
    free(s.rank_calls);
    free(s.site_calls);
    free(s.site_func);
    siot_vbuf_free(&s.scratch);
    return rc;
}
