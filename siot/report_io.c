/* report_io: files, access patterns, amplification and the I/O heat map
 * of siot report (see report_io.h). Tables carry their exact numbers in
 * data- attributes beside the rounded text, so that a test compares them
 * with siot stats --json (tests/py/check_report.py). */
#include "siot/report_io.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "siot/chart.h"
#include "siot/measures.h"
#include "siot/rankstats.h"

#define TOP_FILES 10
/* a cell's opacity for a share of I/O time: a faint trace of I/O stays visible */
#define HEAT_OPACITY(share) (0.08 + 0.92 * (share))

static const char *fmt_time(char *b, size_t n, double ns)
{
    siot_fmt_ns(b, n, ns);
    return b;
}

/* ------------------------------------------------------------ files */

void siot_report_file_time_cells(FILE *o, const siot_filerow *f)
{
    char a[48], b[48];
    double moved = (double)(f->rbytes + f->wbytes);
    fprintf(o, "<td class=\"n\" data-ns=\"%.17g\">%s</td>", f->time_ns, fmt_time(a, sizeof a, f->time_ns));
    if (f->time_ns > 0 && moved > 0)
        fprintf(o, "<td class=\"n\" data-bps=\"%.17g\">%s/s</td>", moved / (f->time_ns * 1e-9),
                siot_report_bytes(b, sizeof b, moved / (f->time_ns * 1e-9)));
    else
        fprintf(o, "<td class=\"n\"></td>");
}

/* What the top tables sort by: the files' rows, and which key. */
typedef struct topkey {
    const siot_files *fs;
    int by_time;
} topkey;

static double key_of(const topkey *k, uint32_t row)
{
    const siot_filerow *f = &k->fs->rows[row];
    return k->by_time ? f->time_ns : (double)(f->rbytes + f->wbytes);
}

/* Largest first; equal keys in row order, so that the page is stable. */
static int cmp_rows(const void *a, const void *b, void *ctx)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    double x = key_of(ctx, i), y = key_of(ctx, j);
    return x < y ? 1 : x > y ? -1 : (i > j) - (i < j);
}

/* The TOP_FILES files (name and layer) with the most bytes, or time in
 * their data calls; files that moved nothing left out. */
static void top_table(FILE *o, const siot_files *fs, uint32_t *idx, int by_time)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < fs->nrows; i++)
        if (fs->rows[i].rbytes + fs->rows[i].wbytes > 0 || fs->rows[i].time_ns > 0)
            idx[n++] = i;
    topkey k = {fs, by_time};
    qsort_r(idx, n, sizeof *idx, cmp_rows, &k);
    n = n > TOP_FILES ? TOP_FILES : n;
    fprintf(o, "<table class=\"top-%s\"><caption>Top %u by %s</caption><tr><th>file</th><th>layer</th>"
               "<th>read</th><th>written</th><th>time in data calls</th><th>bandwidth</th></tr>\n",
            by_time ? "time" : "bytes", n, by_time ? "time in data calls" : "bytes moved");
    char a[48];
    for (uint32_t i = 0; i < n; i++) {
        const siot_filerow *f = &fs->rows[idx[i]];
        fprintf(o, "<tr><td class=\"site\">");
        siot_report_esc(o, f->name);
        fprintf(o, "</td><td>%s</td>", siot_concepts[f->layer].name);
        fprintf(o, "<td class=\"n\" data-bytes=\"%" PRIu64 "\">%s</td>", f->rbytes,
                siot_report_bytes(a, sizeof a, (double)f->rbytes));
        fprintf(o, "<td class=\"n\" data-bytes=\"%" PRIu64 "\">%s</td>", f->wbytes,
                siot_report_bytes(a, sizeof a, (double)f->wbytes));
        siot_report_file_time_cells(o, f);
        fprintf(o, "</tr>\n");
    }
    fprintf(o, "</table>\n");
}

void siot_report_top_files(FILE *o, const siot_files *fs)
{
    uint32_t *idx = calloc(fs->nrows ? fs->nrows : 1, sizeof *idx);
    if (!idx)
        return;
    fprintf(o, "<h3>Top files</h3>\n<p>By bytes read and written, and by the time in their data calls (all "
               "ranks; a call's time is its count times the mean duration of its call site, as in the call-site "
               "table). Bandwidth: the file's bytes per second of that time. One row per file and layer: a file "
               "written through HDF5 has an HDF5, an MPI-IO and a POSIX row.</p>\n<div class=\"tops\">");
    top_table(o, fs, idx, 0);
    top_table(o, fs, idx, 1);
    fprintf(o, "</div>\n");
    free(idx);
}

/* ------------------------------------------------------------ access */

static void walk_note(FILE *o, const siot_access *a)
{
    if (a->truncated)
        fprintf(o, "<p class=\"note\">From each rank's first events only: the walk stopped at its limit, after %"
                   PRIu64 " events in all.</p>\n", a->events);
}

void siot_report_access(FILE *o, const siot_access *a)
{
    const siot_files *fs = &a->files;
    fprintf(o, "<h3>Access patterns</h3>\n<p>Each rank's data calls on a file in program order, against the end of "
               "its previous call on that file (its first call against offset 0): <b>consecutive</b> starts where "
               "it ended, <b>sequential</b> starts past it, <b>random</b> starts before it; counted per rank and "
               "file, then summed. Offsets are the calls' own (<code>pread</code>, <code>MPI_File_write_at</code>"
               "...; MPI-IO's past the displacement of the rank's file view when the view is of bytes, as HDF5 "
               "sets it, else not known) or, for POSIX <code>read</code>/<code>write</code>, "
               "the descriptor's position followed from its open, <code>lseek</code> and the bytes moved; other "
               "calls (stdio, MPI-IO file pointers, HDF5, PnetCDF) have <b>no known offset</b>. <b>Aligned</b>: "
               "offset and size multiples of %d KiB (the misaligned-requests finding's measure), of the calls "
               "with a known offset. (<code>siot stats --json --access</code> gives the same numbers.)</p>\n",
            SIOT_FS_BLOCK / 1024);
    walk_note(o, a);
    fprintf(o, "<table class=\"access\"><tr><th>file</th><th>layer</th>");
    for (unsigned k = 0; k < SIOT_AP_N; k++)
        fprintf(o, "<th>%s</th>", k == SIOT_AP_UNKNOWN ? "no known offset" : siot_access_name(k));
    fprintf(o, "<th>aligned</th></tr>\n");
    for (uint32_t i = 0; i < fs->nrows; i++) {
        const siot_access_row *r = &a->rows[i];
        uint64_t all = r->n[0] + r->n[1] + r->n[2] + r->n[3];
        if (!all)
            continue;
        fprintf(o, "<tr><td class=\"site\">");
        siot_report_esc(o, fs->rows[i].name);
        fprintf(o, "</td><td>%s</td>", siot_concepts[fs->rows[i].layer].name);
        for (unsigned k = 0; k < SIOT_AP_N; k++)
            fprintf(o, "<td class=\"n\" data-key=\"%s\">%" PRIu64 "</td>", siot_access_name(k), r->n[k]);
        fprintf(o, "<td class=\"n\" data-key=\"aligned\">%" PRIu64 "</td></tr>\n", r->aligned);
    }
    fprintf(o, "</table>\n");
}

/* ------------------------------------------------------------ amplification */

void siot_report_amplification(FILE *o, const siot_access *a)
{
    fprintf(o, "<h3>Amplification between layers</h3>\n<p>The bytes each layer's reads and writes made the layer "
               "under them move: the data calls whose recorded parent (the call that issued them) is a read or a "
               "write of the layer above, by their own direction, over all the bytes of that layer's reads or "
               "writes in the job (collective calls move data between ranks first, so the ratio holds for the job, "
               "not for each call). Above 1: the lower layer moved more (read-modify-write shows as reads under "
               "writes); below 1: it merged, cached or left bytes to other ranks.</p>\n");
    walk_note(o, a);
    fprintf(o, "<table class=\"amplification\"><tr><th>layer above</th><th>its calls</th><th>their bytes</th>"
               "<th>layer under</th><th>read under them</th><th>written under them</th><th>ratio</th></tr>\n");
    char x[48], y[48], z[48];
    int any = 0;
    for (unsigned u = 0; u < SIOT_NLAYERS; u++)
        for (unsigned d = 0; d < 2; d++)
            for (unsigned l = 0; l < SIOT_NLAYERS; l++) {
                const uint64_t *v = a->amp[u][d][l], up = a->layer_bytes[u][d];
                if (!v[0] && !v[1])
                    continue;
                any = 1;
                fprintf(o, "<tr><td>%s</td><td>%s</td><td class=\"n\" data-bytes=\"%" PRIu64 "\">%s</td><td>%s</td>"
                           "<td class=\"n\" data-bytes=\"%" PRIu64 "\">%s</td><td class=\"n\" data-bytes=\"%" PRIu64
                           "\">%s</td><td class=\"n\" data-ratio=\"%.17g\">%.2f</td></tr>\n",
                        siot_concepts[u].name, d ? "writes" : "reads", up, siot_report_bytes(x, sizeof x, (double)up),
                        siot_concepts[l].name, v[0], siot_report_bytes(y, sizeof y, (double)v[0]), v[1],
                        siot_report_bytes(z, sizeof z, (double)v[1]), up ? (double)(v[0] + v[1]) / (double)up : 0,
                        up ? (double)(v[0] + v[1]) / (double)up : 0);
            }
    fprintf(o, "</table>\n");
    if (!any)
        fprintf(o, "<p>No layer issued data calls of another: a single-layer trace.</p>\n");
}

/* ------------------------------------------------------------ heat map */

int siot_report_heat_init(siot_heat *h, const siot_trace *t)
{
    memset(h, 0, sizeof *h);
    h->nranks = t->nranks ? t->nranks : 1;
    h->group = (h->nranks + SIOT_HEAT_ROWS - 1) / SIOT_HEAT_ROWS;
    h->rows = (h->nranks + h->group - 1) / h->group;
    /* a first bin width from the recorded spans, which the synthesised
     * times come close to; doubled when an event ends past the last bin */
    double span = 0;
    for (uint32_t k = 0; k < t->nranks; k++) {
        double s = siot_rank_time(t, k, SIOT_RT_span);
        span = s > span ? s : span;
    }
    h->w = span > 0 ? span * 1.05 / SIOT_HEAT_BINS : 1000;
    h->v = calloc((size_t)h->rows * SIOT_HEAT_BINS, sizeof *h->v);
    return h->v ? 0 : -1;
}

void siot_report_heat_free(siot_heat *h)
{
    free(h->v);
    memset(h, 0, sizeof *h);
}

/* Twice the bin width: neighbouring bins merged. */
static void heat_grow(siot_heat *h)
{
    for (uint32_t r = 0; r < h->rows; r++) {
        double *v = h->v + (size_t)r * SIOT_HEAT_BINS;
        for (int i = 0; i < SIOT_HEAT_BINS / 2; i++)
            v[i] = v[2 * i] + v[2 * i + 1];
        memset(v + SIOT_HEAT_BINS / 2, 0, SIOT_HEAT_BINS / 2 * sizeof *v);
    }
    h->w *= 2;
}

/* An outermost call of an I/O layer: its time spread over the bins it overlaps. */
void siot_report_heat_event(void *heat, const siot_synth_ev *ev, const siot_funcdesc *f)
{
    siot_heat *h = heat;
    if (!h->v || ev->depth != 0 || f->layer == SIOT_LAYER_mpi || ev->ctx.rank < 0 ||
        (uint64_t)ev->ctx.rank >= h->nranks)
        return;
    double a = ev->start_ns, b = ev->start_ns + ev->dur_ns;
    if (!(b >= a) || !isfinite(b))
        return;
    while (b > SIOT_HEAT_BINS * h->w)
        heat_grow(h);
    h->end = b > h->end ? b : h->end;
    double *v = h->v + (size_t)(ev->ctx.rank / h->group) * SIOT_HEAT_BINS;
    for (int i = (int)(a / h->w); i < SIOT_HEAT_BINS && i * h->w < b; i++) {
        double lo = i * h->w > a ? i * h->w : a, hi = (i + 1) * h->w < b ? (i + 1) * h->w : b;
        if (hi > lo)
            v[i] += hi - lo;
    }
}

/* The legend of the heat map: the I/O concept, then its scale of shares. */
static void heat_legend(FILE *o)
{
    static const double STEPS[] = {0.1, 0.25, 0.5, 0.75, 1};
    int io = SIOT_C_IO;
    siot_chart_legend(o, 1, &io);
    fprintf(o, "<div class=\"legend scale\">share of the bin's time in I/O calls: ");
    for (unsigned i = 0; i < sizeof STEPS / sizeof *STEPS; i++)
        fprintf(o, "<span><i class=\"%s\" style=\"background:%s;opacity:%.2f\"></i>%.0f%%</span>",
                siot_concepts[SIOT_C_IO].cls, siot_concepts[SIOT_C_IO].fill, HEAT_OPACITY(STEPS[i]), STEPS[i] * 100);
    fprintf(o, "</div>\n");
}

/* The time axis along the bottom, ticks 0, s, 2s... (class tick). */
static void heat_axis(FILE *o, const siot_axis *ax, int L, int W, int TOP, int H)
{
    char a[48];
    for (int k = 0; k <= ax->nticks; k++) {
        double x = L + (W - L - 10) * siot_axis_pos(ax, siot_axis_tick(ax, k));
        fprintf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>", x, x, TOP, TOP + H);
        fprintf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" class=\"tick\">%s</text>\n", x, TOP + H + 14,
                k == 0 ? "start" : k == ax->nticks ? "end" : "middle", siot_axis_label(ax, k, a, sizeof a));
    }
}

static void heat_row_label(const siot_heat *h, uint32_t r, char *buf, size_t n)
{
    uint32_t lo = r * h->group, hi = lo + h->group - 1 < h->nranks ? lo + h->group - 1 : h->nranks - 1;
    if (lo == hi)
        snprintf(buf, n, "rank %u", lo);
    else
        snprintf(buf, n, "ranks %u-%u", lo, hi);
}

void siot_report_heat(FILE *o, const siot_heat *h, const siot_access *a)
{
    if (!h->v || h->end <= 0)
        return;
    const int W = 900, L = 90, TOP = 26, RH = h->rows <= 16 ? 14 : h->rows <= 32 ? 8 : 5, H = RH * (int)h->rows;
    siot_axis ax;
    siot_axis_linear(&ax, SIOT_AX_TIME, h->end);
    double scale = ax.top > 0 ? (W - L - 10) / ax.top : 0;
    siot_report_fig_open(o, W, TOP + H + 22, "heat");
    fprintf(o, "<text x=\"0\" y=\"16\" class=\"t\">I/O activity over time (%s; bins of ", h->group > 1 ?
            "rows of grouped ranks" : "one row per rank");
    char t0[48], t1[48], lab[48];
    fprintf(o, "%s; times synthesised)</text>\n", fmt_time(t0, sizeof t0, h->w));
    heat_axis(o, &ax, L, W, TOP, H);
    for (uint32_t r = 0; r < h->rows; r++) {
        uint32_t nr = r == h->rows - 1 ? h->nranks - r * h->group : h->group;
        heat_row_label(h, r, lab, sizeof lab);
        if (h->rows <= 32 || r % 8 == 0)
            fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"row\">%s</text>\n", L - 6,
                    TOP + RH * (int)r + RH - 2, lab);
        for (int i = 0; i < SIOT_HEAT_BINS && i * h->w < h->end; i++) {
            double v = h->v[(size_t)r * SIOT_HEAT_BINS + i], share = v / (h->w * nr);
            if (v <= 0)
                continue;
            share = share > 1 ? 1 : share;
            fprintf(o, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" class=\"%s\" fill=\"%s\" "
                       "fill-opacity=\"%.3f\" data-share=\"%.4f\"><title>%s, %s to %s: %.1f%% in I/O calls</title>"
                       "</rect>\n",
                    L + i * h->w * scale, TOP + RH * (int)r, h->w * scale, RH - 1, siot_concepts[SIOT_C_IO].cls,
                    siot_concepts[SIOT_C_IO].fill, HEAT_OPACITY(share), share, lab, fmt_time(t0, sizeof t0, i * h->w),
                    fmt_time(t1, sizeof t1, (i + 1) * h->w), share * 100);
        }
    }
    fprintf(o, "</svg>\n");
    heat_legend(o);
    fprintf(o, "</div>\n<p class=\"synth\">Each cell: the share of the bin's time the rank (or the group's ranks, "
               "on average) spent in its outermost calls of the I/O layers, placed by the synthesised times "
               "(see the timeline).</p>\n");
    walk_note(o, a);
}
