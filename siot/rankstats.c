/* rankstats: the ranks' own times in siot stats (rankstats.h). */
#include "siot/rankstats.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/hist.h"
#include "core/ranksum.h"
#include "siot/measures.h"

double siot_rank_time(const siot_trace *t, uint32_t rank, unsigned key)
{
    const siot_rtrow *row = siot_rt_find(t->rt, t->nrt, (int32_t)rank);
    if (!row || key > SIOT_RT_N)
        return -1;
    return (double)siot_rt_value(row, key);
}

const char *siot_rank_time_name(unsigned key) { return key == SIOT_RT_N ? "compute" : siot_rt_name(key); }

const char *siot_rank_time_title(unsigned key)
{
    static const char *const titles[SIOT_RT_N + 1] = {
        "run (span)", "I/O (outermost calls)", "MPI (outermost, no init)", "MPI_Init, MPI_Finalize",
        "  MPI collective", "  MPI blocking", "  MPI nonblocking", "  MPI other", "POSIX (every call)",
        "stdio (every call)", "MPI (every call)", "MPI-IO (every call)", "HDF5 (every call)",
        "PnetCDF (every call)", "computation (span - calls)"};
    return key <= SIOT_RT_N ? titles[key] : "unknown";
}

const unsigned SIOT_RT_ORDER[SIOT_RT_NQ] = {
    SIOT_RT_span, SIOT_RT_compute, SIOT_RT_io, SIOT_RT_mpi_init, SIOT_RT_mpi, SIOT_RT_mpi_collective,
    SIOT_RT_mpi_blocking, SIOT_RT_mpi_nonblocking, SIOT_RT_mpi_other, SIOT_RT_layer_posix, SIOT_RT_layer_stdio,
    SIOT_RT_layer_mpi, SIOT_RT_layer_mpiio, SIOT_RT_layer_hdf5, SIOT_RT_layer_pnetcdf};

unsigned siot_rank_extremes_kept(const siot_trace *t) { return t->rtsum && t->rt_keep ? t->rt_keep : SIOT_RT_KEEP_DEFAULT; }

const char *siot_rank_times_form(const siot_trace *t, char *buf, size_t len)
{
    if (t->rtsum)
        snprintf(buf, len, "summary of %" PRIu64 " ranks; extremes exact", siot_rts_nranks(t));
    else
        snprintf(buf, len, "every rank's row");
    return buf;
}

/* The extremes of key, n of them: "11 2.2 s, 10 2.0 s". */
static void text_extremes(const siot_trace *t, unsigned key, int slowest, FILE *o)
{
    siot_rtx ex[64];
    unsigned keep = siot_rank_extremes_kept(t);
    uint32_t n = siot_rts_extremes(t, key, slowest, ex, keep < 64 ? keep : 64);
    char a[32];
    for (uint32_t i = 0; i < n; i++) {
        siot_fmt_ns(a, sizeof a, (double)ex[i].v);
        fprintf(o, "%s%d %s", i ? ", " : "", ex[i].rank, a);
    }
}

void siot_rank_times_text(const siot_trace *t, FILE *o)
{
    if (!t->rtsum)
        return;
    char a[32], b[32], c[32], d[32], form[96];
    fprintf(o, "\nTime per rank (%s)    mean       stddev          min (rank)          max (rank)\n",
            siot_rank_times_form(t, form, sizeof form));
    for (unsigned i = 0; i < SIOT_RT_NQ; i++) {
        unsigned k = SIOT_RT_ORDER[i];
        const siot_hist *h = &t->rtsum[k];
        siot_rtx lo, hi;
        if (!h->max || !siot_rts_extremes(t, k, 0, &lo, 1) || !siot_rts_extremes(t, k, 1, &hi, 1))
            continue;
        siot_fmt_ns(a, sizeof a, h->mean);
        siot_fmt_ns(b, sizeof b, siot_hist_stddev(h));
        siot_fmt_ns(c, sizeof c, (double)lo.v);
        siot_fmt_ns(d, sizeof d, (double)hi.v);
        fprintf(o, "  %-28s %10s %12s %12s (%d) %12s (%d)\n", siot_rank_time_title(k), a, b, c, lo.rank, d, hi.rank);
    }
    fprintf(o, "\nSlowest and fastest ranks (%u of each, exact)\n", siot_rank_extremes_kept(t));
    for (unsigned i = 0; i < SIOT_RT_NQ; i++) {
        unsigned k = SIOT_RT_ORDER[i];
        if (!t->rtsum[k].max)
            continue;
        fprintf(o, "  %-28s slowest ", siot_rank_time_title(k));
        text_extremes(t, k, 1, o);
        fprintf(o, "; fastest ");
        text_extremes(t, k, 0, o);
        fprintf(o, "\n");
    }
}

/* "slowest":[{"rank":r,"s":v},...] */
static void json_extremes(const siot_trace *t, unsigned key, int slowest, FILE *o)
{
    siot_rtx ex[64];
    unsigned keep = siot_rank_extremes_kept(t);
    uint32_t n = siot_rts_extremes(t, key, slowest, ex, keep < 64 ? keep : 64);
    fprintf(o, ",\"%s\":[", slowest ? "slowest" : "fastest");
    for (uint32_t i = 0; i < n; i++)
        fprintf(o, "%s{\"rank\":%d,\"s\":%.9g}", i ? "," : "", ex[i].rank, (double)ex[i].v * 1e-9);
    fprintf(o, "]");
}

static void json_quantity(const siot_trace *t, const siot_hist *h, unsigned k, FILE *o)
{
    fprintf(o, "\"%s\":{\"min_s\":%.9g,\"max_s\":%.9g,\"max_rank\":%d,\"mean_s\":%.9g,\"stddev_s\":%.9g",
            siot_rank_time_name(k), (double)h->min * 1e-9, (double)h->max * 1e-9, h->max_rank, h->mean * 1e-9,
            siot_hist_stddev(h) * 1e-9);
    json_extremes(t, k, 1, o);
    json_extremes(t, k, 0, o);
    fprintf(o, ",\"hist\":[");
    for (unsigned b = 0, first = 1; b < SIOT_HBINS; b++) {
        uint64_t lo, hi, c = siot_hist_bin_count(h, b);
        siot_hist_bin_range(b, &lo, &hi);
        if (c)
            fprintf(o, "%s[%" PRIu64 ",%" PRIu64 "]", first ? "" : ",", lo, c);
        first &= !c;
    }
    fprintf(o, "]}");
}

void siot_rank_times_json(const siot_trace *t, FILE *o)
{
    siot_arena a;
    siot_arena_init(&a);
    siot_hist buf[SIOT_RT_NQ];
    const siot_hist *sum = siot_rts_get(t, &a, buf);
    if (sum) {
        fprintf(o, ",\"rank_times\":{\"form\":\"%s\",\"ranks\":%" PRIu64 ",\"rows\":%u,\"keep\":%u,\"quantities\":{",
                t->rtsum ? "summary" : "rows", siot_rts_nranks(t), t->nrt, siot_rank_extremes_kept(t));
        for (unsigned i = 0, first = 1; i < SIOT_RT_NQ; i++) {
            if (!sum[SIOT_RT_ORDER[i]].max)
                continue;
            fprintf(o, "%s", first ? "" : ",");
            json_quantity(t, &sum[SIOT_RT_ORDER[i]], SIOT_RT_ORDER[i], o);
            first = 0;
        }
        fprintf(o, "}}");
    }
    siot_arena_free(&a);
}

static void csv_extremes(const siot_trace *t, unsigned key, int slowest, FILE *o)
{
    siot_rtx ex[64];
    unsigned keep = siot_rank_extremes_kept(t);
    uint32_t n = siot_rts_extremes(t, key, slowest, ex, keep < 64 ? keep : 64);
    const char *w = slowest ? "slowest" : "fastest", *q = siot_rank_time_name(key);
    for (uint32_t i = 0; i < n; i++)
        fprintf(o, "rank_times,%s,%s%u_s,%.9g,\nrank_times,%s,%s%u_rank,%d,\n", q, w, i + 1,
                (double)ex[i].v * 1e-9, q, w, i + 1, ex[i].rank);
}

void siot_rank_times_csv(const siot_trace *t, FILE *o)
{
    siot_arena a;
    siot_arena_init(&a);
    siot_hist buf[SIOT_RT_NQ];
    const siot_hist *sum = siot_rts_get(t, &a, buf);
    if (sum)
        fprintf(o, "rank_times,,ranks,%" PRIu64 ",\nrank_times,,rows,%u,\n", siot_rts_nranks(t), t->nrt);
    for (unsigned k = 0; sum && k < SIOT_RT_NQ; k++) {
        const siot_hist *h = &sum[k];
        if (!h->max)
            continue;
        const char *q = siot_rank_time_name(k);
        fprintf(o, "rank_times,%s,min_s,%.9g,\nrank_times,%s,max_s,%.9g,\nrank_times,%s,mean_s,%.9g,\n"
                   "rank_times,%s,stddev_s,%.9g,\n",
                q, (double)h->min * 1e-9, q, (double)h->max * 1e-9, q, h->mean * 1e-9, q, siot_hist_stddev(h) * 1e-9);
        csv_extremes(t, k, 1, o);
        csv_extremes(t, k, 0, o);
    }
    siot_arena_free(&a);
}
