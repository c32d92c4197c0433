#include "siot/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/expr.h"
#include "core/hist.h"
#include "replay/analyze.h"
#include "siot/dump.h"
#include "siot/files.h"
#include "siot/findings.h"
#include "replay/progress.h"
#include "core/roles.h"
#include "siot/stats.h"
#include "replay/synth.h"

#define SIZE_BINS 64
#define MAX_BARS 400 /* per-rank charts: more ranks are grouped */
#define TOP_SITES 50

static const char *const LAYER_COLOUR[SIOT_NLAYERS] = {"#4e79a7", "#f28e2b", "#e15759",
                                                       "#76b7b2", "#59a14f", "#b07aa1"};
static const char *const LAYER_TITLE[SIOT_NLAYERS] = {"POSIX", "stdio", "MPI", "MPI-IO", "HDF5", "PnetCDF"};

typedef struct rankrow {
    double rbytes, wbytes; /* outermost I/O calls: what the program asked for */
    double io_ns, mpi_ns;  /* outermost calls: the rank's own totals, or calls x mean duration */
} rankrow;

typedef struct sitestat {
    uint64_t calls, bytes;
    double time_ns;
    uint32_t func;
    siot_rankset ranks; /* the ranks that made the call: records split ranks into groups, so a union */
    int used;
} sitestat;

typedef struct report {
    const siot_trace *t;
    uint64_t total;
    uint64_t lcalls[SIOT_NLAYERS];
    double lread[SIOT_NLAYERS], lwrite[SIOT_NLAYERS], ltime[SIOT_NLAYERS];
    uint64_t sizes[SIOT_NLAYERS][2][SIZE_BINS];
    rankrow *ranks;
    sitestat *sites; /* per site index + 1 */
    siot_files files; /* the same per-file rows as siot stats */
    int oom;
    FILE *o;
} report;

/* ------------------------------------------------------------ formatting */

static void esc(FILE *o, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '<')
            fputs("&lt;", o);
        else if (c == '>')
            fputs("&gt;", o);
        else if (c == '&')
            fputs("&amp;", o);
        else if (c == '"')
            fputs("&quot;", o);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(o, "\\x%02x", c); /* untrusted bytes never make invalid text */
        else
            fputc(c, o);
    }
}

static const char *fmt_bytes(char *b, size_t n, double v)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int i = 0;
    while (v >= 1024 && i < 6) {
        v /= 1024;
        i++;
    }
    snprintf(b, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
    return b;
}

static const char *fmt_time(char *b, size_t n, double ns)
{
    siot_fmt_ns(b, n, ns);
    return b;
}

static const char *fmt_size_bin(char *b, size_t n, unsigned bin)
{
    /* bin k holds [2^k, 2^(k+1)) */
    double lo = ldexp(1.0, (int)bin);
    const char *u[] = {"", "K", "M", "G", "T", "P", "E"};
    int i = 0;
    while (lo >= 1024 && i < 6) {
        lo /= 1024;
        i++;
    }
    snprintf(b, n, "%.0f%s", lo, u[i]);
    return b;
}

typedef const char *(*fmt_fn)(char *, size_t, double);

/* ------------------------------------------------------------ aggregation */

static void on_event(void *user, const siot_agg_event *e)
{
    report *r = user;
    const siot_funcdesc *f = e->fn;
    const siot_event *ev = &e->node->u.ev;
    uint64_t total = e->calls * e->nranks;
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int io = b == SIOT_CLASS_read || b == SIOT_CLASS_write;
    double bytes = siot_is_data_class(f->cls) && e->bytes > 0 ? (double)e->bytes : 0;
    r->total += total;
    r->lcalls[f->layer] += total;
    if (io && f->layer != SIOT_LAYER_mpi) {
        if (b == SIOT_CLASS_read)
            r->lread[f->layer] += bytes * (double)total;
        else
            r->lwrite[f->layer] += bytes * (double)total;
        if (e->bytes > 0)
            r->sizes[f->layer][b == SIOT_CLASS_write][siot_hist_bin((uint64_t)e->bytes)] += total;
    }
    if (e->first_visit)
        r->ltime[f->layer] += ev->dur.mean * (double)ev->dur.count;
    int outermost = siot_eval_int(ev->parent, &e->ctx, 0) == 0;
    if (outermost) {
        double t = ev->dur.mean * (double)e->calls;
        for (uint32_t i = 0; i < e->nranks; i++) {
            uint32_t k = (uint32_t)e->ranks[i];
            if (k >= r->t->nranks)
                continue;
            rankrow *row = &r->ranks[k];
            if (f->layer == SIOT_LAYER_mpi) {
                row->mpi_ns += t;
            } else {
                row->io_ns += t;
                if (io && b == SIOT_CLASS_read)
                    row->rbytes += bytes * (double)e->calls;
                else if (io)
                    row->wbytes += bytes * (double)e->calls;
            }
        }
    }
    if (ev->site <= r->t->nsites) {
        sitestat *s = &r->sites[ev->site];
        s->used = 1;
        s->calls += total;
        s->bytes += (uint64_t)(bytes * (double)total);
        s->func = ev->func;
        if (e->first_visit)
            s->time_ns += ev->dur.mean * (double)ev->dur.count;
        for (uint32_t i = 0; i < e->nranks; i++)
            if (siot_rankset_add(&s->ranks, e->ranks[i]) != 0)
                r->oom = 1;
    }
    siot_files_event(&r->files, e);
}

/* ------------------------------------------------------------ charts */

/* Horizontal bars, one row a label, up to two stacked series. */
static void hbars(FILE *o, const char *title, uint32_t n, const char *const *labels, double (*v)[2],
                  const char *const *colours, const char *const *series, fmt_fn fmt)
{
    const int W = 360, LW = 70, RH = 22, TOP = 26;
    double max = 0;
    for (uint32_t i = 0; i < n; i++)
        if (v[i][0] + v[i][1] > max)
            max = v[i][0] + v[i][1];
    int h = TOP + RH * (int)n + 8;
    fprintf(o, "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", W, h, W, h);
    fprintf(o, "<text x=\"0\" y=\"16\" class=\"t\">");
    esc(o, title);
    fprintf(o, "</text>\n");
    for (uint32_t i = 0; i < n; i++) {
        int y = TOP + RH * (int)i;
        fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LW - 6, y + 14);
        esc(o, labels[i]);
        fprintf(o, "</text>\n");
        double x = LW;
        for (int s = 0; s < 2; s++) {
            double w = max > 0 ? v[i][s] / max * (W - LW - 70) : 0;
            if (w <= 0)
                continue;
            char a[48];
            fprintf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>", x, y + 3, w,
                    RH - 6, colours[s]);
            esc(o, labels[i]);
            fprintf(o, " %s: %s</title></rect>\n", series[s] ? series[s] : "", fmt(a, sizeof a, v[i][s]));
            x += w;
        }
        char a[48];
        fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"v\">%s</text>\n", x + 4, y + 14,
                fmt(a, sizeof a, v[i][0] + v[i][1]));
    }
    fprintf(o, "</svg>\n");
}

static void legend(FILE *o, int n, const char *const *names, const char *const *colours)
{
    fprintf(o, "<div class=\"legend\">");
    for (int i = 0; i < n; i++) {
        fprintf(o, "<span><i style=\"background:%s\"></i>", colours[i]);
        esc(o, names[i]);
        fprintf(o, "</span>");
    }
    fprintf(o, "</div>\n");
}

/* Vertical bars over ranks (grouped when there are many), two stacked series. */
static void rank_bars(FILE *o, const report *r, const char *title, int which, const char *const *series,
                      const char *const *colours, fmt_fn fmt)
{
    uint32_t n = r->t->nranks, group = (n + MAX_BARS - 1) / MAX_BARS, bars = (n + group - 1) / group;
    const int W = 900, H = 200, L = 70, B = 28, TOP = 26;
    double *v = calloc((size_t)bars * 2 + 2, sizeof *v), max = 0;
    if (!v)
        return;
    for (uint32_t k = 0; k < n; k++) {
        const rankrow *row = &r->ranks[k];
        double a = which ? row->io_ns : row->rbytes, b = which ? row->mpi_ns : row->wbytes;
        v[(k / group) * 2] += a;
        v[(k / group) * 2 + 1] += b;
    }
    for (uint32_t i = 0; i < bars; i++)
        if (v[2 * i] + v[2 * i + 1] > max)
            max = v[2 * i] + v[2 * i + 1];
    fprintf(o, "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", W,
            H + B + TOP, W, H + B + TOP);
    fprintf(o, "<text x=\"0\" y=\"16\" class=\"t\">");
    esc(o, title);
    if (group > 1)
        fprintf(o, " (bars of %u ranks)", group);
    fprintf(o, "</text>\n");
    char a[48];
    for (int t = 0; t <= 4; t++) {
        double y = TOP + H - H * t / 4.0;
        fprintf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", L, W, y, y);
        fprintf(o, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", L - 4, y + 4,
                fmt(a, sizeof a, max * t / 4.0));
    }
    double bw = (double)(W - L) / bars;
    for (uint32_t i = 0; i < bars; i++) {
        double y = TOP + H;
        for (int s = 0; s < 2; s++) {
            double h = max > 0 ? v[2 * i + s] / max * H : 0;
            if (h <= 0)
                continue;
            y -= h;
            fprintf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>", L + bw * i,
                    y, bw > 2 ? bw - 1 : bw, h, colours[s]);
            if (group > 1)
                fprintf(o, "ranks %u-%u", i * group, (i + 1) * group - 1 < n ? (i + 1) * group - 1 : n - 1);
            else
                fprintf(o, "rank %u", i);
            fprintf(o, " %s: %s</title></rect>\n", series[s], fmt(a, sizeof a, v[2 * i + s]));
        }
    }
    uint32_t step = bars > 16 ? bars / 8 : 1;
    for (uint32_t i = 0; i < bars; i += step)
        fprintf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%u</text>\n", L + bw * (i + 0.5), TOP + H + 16,
                i * group);
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank</text>\n", W, TOP + H + B);
    fprintf(o, "</svg>\n");
    free(v);
}

static void size_hist(FILE *o, const report *r, unsigned layer)
{
    const uint64_t(*s)[SIZE_BINS] = r->sizes[layer];
    int lo = SIZE_BINS, hi = -1;
    uint64_t max = 0;
    for (int b = 0; b < SIZE_BINS; b++)
        if (s[0][b] || s[1][b]) {
            if (b < lo)
                lo = b;
            hi = b;
            if (s[0][b] > max)
                max = s[0][b];
            if (s[1][b] > max)
                max = s[1][b];
        }
    if (hi < 0)
        return;
    const int H = 140, L = 50, TOP = 26, B = 30;
    int nb = hi - lo + 1, bw = nb > 20 ? 20 : 36, W = L + nb * bw + 10;
    if (W < 260)
        W = 260;
    fprintf(o, "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", W,
            H + TOP + B, W, H + TOP + B);
    fprintf(o, "<text x=\"0\" y=\"16\" class=\"t\">%s requests by size</text>\n", LAYER_TITLE[layer]);
    char a[48];
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", L - 4, TOP + 8, siot_fmt_count(a, sizeof a, (double)max));
    fprintf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>\n", L, W, TOP + H, TOP + H);
    for (int b = lo; b <= hi; b++) {
        int x = L + (b - lo) * bw;
        for (int w = 0; w < 2; w++) {
            if (!s[w][b])
                continue;
            double h = (double)s[w][b] / (double)max * H;
            if (h < 1)
                h = 1;
            fprintf(o, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%s %s..: %" PRIu64
                       " calls</title></rect>\n",
                    x + 1 + w * (bw / 2 - 1), TOP + H - h, bw / 2 - 1, h, w ? "#e15759" : "#4e79a7",
                    w ? "writes" : "reads", fmt_size_bin(a, sizeof a, (unsigned)b), s[w][b]);
        }
        if (nb <= 12 || (b - lo) % 2 == 0)
            fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x + bw / 2, TOP + H + 14,
                    fmt_size_bin(a, sizeof a, (unsigned)b));
    }
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">bytes per call (from)</text>\n", W, TOP + H + 28);
    fprintf(o, "</svg>\n");
}

/* The ranks the timeline shows: all of them when few, else spread evenly
 * (first and last included). */
static uint32_t pick_ranks(uint32_t nranks, uint32_t want, uint32_t *out)
{
    if (nranks <= want) {
        for (uint32_t i = 0; i < nranks; i++)
            out[i] = i;
        return nranks;
    }
    for (uint32_t i = 0; i < want; i++)
        out[i] = (uint32_t)((uint64_t)i * (nranks - 1) / (want - 1));
    return want;
}

/* Pass 1 finds the span, pass 2 draws the outermost calls; neighbouring calls
 * of one layer closer than a pixel become one rectangle, so the page stays
 * small whatever the number of events. */
static int timeline(FILE *o, const report *r, const siot_report_opts *opt, char *err, size_t errlen)
{
    const siot_trace *t = r->t;
    uint32_t want = opt->timeline_ranks ? opt->timeline_ranks : 1;
    uint32_t *rk = calloc(want, sizeof *rk);
    if (!rk) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint32_t nr = pick_ranks(t->nranks, want < 2 ? 2 : want, rk);
    if (nr > want)
        nr = want;
    double span = 0;
    int truncated = 0;
    for (int pass = 0; pass < 2; pass++) {
        const int W = 900, L = 70, RH = 16, TOP = 26;
        if (pass == 1) {
            int h = TOP + RH * (int)nr + 30;
            fprintf(o, "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", W, h,
                    W, h);
            fprintf(o, "<text x=\"0\" y=\"16\" class=\"t\">Timeline per rank (outermost calls; times synthesised "
                       "from the histogram means%s)</text>\n",
                    truncated ? "; the first events of each rank only" : "");
            char a[48];
            for (int k = 0; k <= 5; k++) {
                double x = L + (W - L - 10) * k / 5.0;
                fprintf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>", x, x, TOP,
                        TOP + RH * (int)nr);
                fprintf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>\n", x, TOP + RH * (int)nr + 14,
                        k == 0 ? "start" : k == 5 ? "end" : "middle", fmt_time(a, sizeof a, span * k / 5.0));
            }
        }
        double scale = span > 0 ? (W - L - 10) / span : 0;
        for (uint32_t i = 0; i < nr; i++) {
            siot_synth s;
            if (siot_synth_init(&s, t, rk[i]) != 0) {
                free(rk);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            int y = TOP + RH * (int)i;
            if (pass == 1)
                fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %u</text>\n", L - 6, y + 12, rk[i]);
            siot_synth_ev ev;
            uint64_t n = 0;
            int cur_layer = -1;
            double x0 = 0, x1 = 0;
            uint64_t merged = 0;
            int k;
            while ((k = siot_synth_next(&s, &ev)) == 1) {
                if (++n > opt->timeline_events) {
                    truncated = 1;
                    break;
                }
                if (ev.depth != 0)
                    continue;
                double end = ev.start_ns + ev.dur_ns;
                if (pass == 0) {
                    if (end > span)
                        span = end;
                    continue;
                }
                int layer = t->funcs[ev.node->u.ev.func].layer;
                double a = L + ev.start_ns * scale, b = L + end * scale;
                if (layer == cur_layer && a - x1 < 1.0) {
                    x1 = b > x1 ? b : x1;
                    merged++;
                    continue;
                }
                if (cur_layer >= 0 && x1 - x0 >= 0.3)
                    fprintf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s, %" PRIu64
                               " calls</title></rect>\n",
                            x0, y + 2, x1 - x0 < 0.5 ? 0.5 : x1 - x0, RH - 4, LAYER_COLOUR[cur_layer],
                            LAYER_TITLE[cur_layer], merged);
                cur_layer = layer;
                x0 = a;
                x1 = b;
                merged = 1;
            }
            if (pass == 1 && cur_layer >= 0 && x1 - x0 >= 0.3)
                fprintf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s, %" PRIu64
                           " calls</title></rect>\n",
                        x0, y + 2, x1 - x0 < 0.5 ? 0.5 : x1 - x0, RH - 4, LAYER_COLOUR[cur_layer],
                        LAYER_TITLE[cur_layer], merged);
            if (k < 0) {
                snprintf(err, errlen, "rank %u: %s", rk[i], s.it.err ? s.it.err : "inconsistent trace");
                siot_synth_free(&s);
                free(rk);
                return -1;
            }
            siot_synth_free(&s);
        }
        if (pass == 1)
            fprintf(o, "</svg>\n");
    }
    free(rk);
    return 0;
}

/* ------------------------------------------------------------ page */

static int cmp_site_time(const void *a, const void *b, void *ctx)
{
    const sitestat *s = ctx;
    const siot_siteloc *x = a, *y = b;
    double tx = s[x->site].time_ns, ty = s[y->site].time_ns;
    return tx < ty ? 1 : tx > ty ? -1 : (int)x->site - (int)y->site;
}

static void site_table(FILE *o, const report *r)
{
    const siot_trace *t = r->t;
    uint32_t n = 0;
    for (uint32_t i = 1; i <= t->nsites; i++)
        n += r->sites[i].used;
    siot_siteloc *loc = calloc(n ? n : 1, sizeof *loc);
    if (!loc)
        return;
    n = 0;
    for (uint32_t i = 1; i <= t->nsites; i++)
        if (r->sites[i].used)
            loc[n++].site = i;
    qsort_r(loc, n, sizeof *loc, cmp_site_time, r->sites);
    uint32_t shown = n > TOP_SITES ? TOP_SITES : n;
    siot_resolve_sites(t, loc, shown);
    fprintf(o, "<h2>Call sites</h2>\n<p>The %u call sites (of %u) that took the most time: the sum of their calls' "
               "durations over all ranks.</p>\n",
            shown, n);
    fprintf(o, "<table><tr><th>where</th><th>function</th><th>layer</th><th>calls</th><th>bytes</th><th>time</th>"
               "<th>ranks</th></tr>\n");
    for (uint32_t i = 0; i < shown; i++) {
        const sitestat *s = &r->sites[loc[i].site];
        const siot_funcdesc *f = &t->funcs[s->func];
        char a[48], b[48], c[48];
        fprintf(o, "<tr><td class=\"site\">");
        esc(o, loc[i].where);
        fprintf(o, "</td><td>");
        esc(o, f->name);
        fprintf(o, "</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                   "<td class=\"n\">%" PRIu64 "</td></tr>\n",
                LAYER_TITLE[f->layer], siot_fmt_count(a, sizeof a, (double)s->calls),
                s->bytes ? fmt_bytes(b, sizeof b, (double)s->bytes) : "", fmt_time(c, sizeof c, s->time_ns),
                siot_rankset_count(&s->ranks));
    }
    fprintf(o, "</table>\n");
    free(loc);
}

/* The per-file rows of siot stats (siot/files.h), exact byte counts in
 * the cells' titles, then the patterns summing them up. */
static void file_cell_bytes(FILE *o, uint64_t v)
{
    char b[48];
    fprintf(o, "<td class=\"n\" title=\"%" PRIu64 "\">%s</td>", v, fmt_bytes(b, sizeof b, (double)v));
}

static void file_table(FILE *o, const siot_files *fs)
{
    fprintf(o, "<h2>Files</h2>\n");
    if (!fs->nrows) {
        fprintf(o, "<p>No file was opened.</p>\n");
        return;
    }
    fprintf(o, "<table class=\"files\"><tr><th>file</th><th>layer</th><th>calls</th><th>read</th><th>written</th>"
               "<th>ranks</th><th>sharing</th></tr>\n");
    for (uint32_t i = 0; i < fs->nrows; i++) {
        const siot_filerow *f = &fs->rows[i];
        fprintf(o, "<tr><td class=\"site\">");
        esc(o, f->name);
        fprintf(o, "</td><td>%s</td><td class=\"n\">%" PRIu64 "</td>", LAYER_TITLE[f->layer], f->calls);
        file_cell_bytes(o, f->rbytes);
        file_cell_bytes(o, f->wbytes);
        fprintf(o, "<td class=\"n\">%" PRIu64 "</td><td>%s</td></tr>\n", siot_rankset_count(&f->ranks),
                siot_file_sharing(f));
    }
    fprintf(o, "</table>\n");
    if (!fs->npatterns)
        return;
    fprintf(o, "<p>Files whose names differ only in numbers, summed:</p>\n<table class=\"patterns\"><tr><th>"
               "pattern</th><th>layer</th><th>files</th><th>calls</th><th>read</th><th>written</th><th>ranks</th>"
               "</tr>\n");
    for (uint32_t i = 0; i < fs->npatterns; i++) {
        const siot_filepattern *p = &fs->patterns[i];
        fprintf(o, "<tr><td class=\"site\">");
        esc(o, p->pattern);
        fprintf(o, "</td><td>%s</td><td class=\"n\">%u</td><td class=\"n\">%" PRIu64 "</td>", LAYER_TITLE[p->layer],
                p->files, p->calls);
        file_cell_bytes(o, p->rbytes);
        file_cell_bytes(o, p->wbytes);
        fprintf(o, "<td class=\"n\">%" PRIu64 "</td></tr>\n", siot_rankset_count(&p->ranks));
    }
    fprintf(o, "</table>\n");
}

/* siot findings' text (findings.h), its first line (the command) left out. */
static void findings_section(FILE *o, const siot_trace *t)
{
    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    int rc = siot_findings(t, "", 0, m, err, sizeof err);
    if (fclose(m) != 0 || rc != 0 || !buf) {
        free(buf);
        return;
    }
    const char *body = strchr(buf, '\n');
    fprintf(o, "<h2 id=\"findings\">Findings</h2>\n<p>Known I/O problems with their evidence and call sites "
               "(<code>siot findings</code>; thresholds: <code>siot help findings</code>).</p>\n<pre class=\"findings\">");
    /* line by line: esc shows a control character as its code */
    for (char *line = body ? (char *)body + 1 : buf, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        esc(o, line);
        fputc('\n', o);
        if (!nl)
            break;
    }
    fprintf(o, "</pre>\n");
    free(buf);
}

static void report_free(report *r)
{
    for (uint32_t i = 0; r->sites && i <= r->t->nsites; i++)
        siot_rankset_free(&r->sites[i].ranks);
    free(r->ranks);
    free(r->sites);
    siot_files_free(&r->files);
}

static const char *CSS = "body{font:14px/1.4 sans-serif;margin:24px;color:#222;max-width:1000px}"
                         "h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}"
                         "svg.chart{display:inline-block;margin:6px 18px 6px 0;font:11px sans-serif}"
                         "svg .t{font-weight:bold;font-size:12px}svg .v{fill:#555}svg .grid{stroke:#e4e4e4}"
                         "table{border-collapse:collapse}td,th{padding:2px 10px;border-bottom:1px solid #eee;"
                         "text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
                         "td.site{font-family:monospace;font-size:12px}"
                         ".legend span{margin-right:14px}.legend i{display:inline-block;width:11px;height:11px;"
                         "margin-right:4px;vertical-align:-1px}.note{color:#a33}";

/* Each rank's own I/O and MPI time (MPI_Init and MPI_Finalize apart) where
 * the trace keeps them; 1 when it does for every rank. */
static int own_rank_times(report *r)
{
    const siot_trace *t = r->t;
    for (uint32_t k = 0; k < t->nranks; k++)
        if (siot_rank_time(t, k, SIOT_RT_io) < 0)
            return 0;
    for (uint32_t k = 0; k < t->nranks; k++) {
        r->ranks[k].io_ns = siot_rank_time(t, k, SIOT_RT_io);
        r->ranks[k].mpi_ns = siot_rank_time(t, k, SIOT_RT_mpi);
    }
    return 1;
}

int siot_report(const siot_trace *t, const char *path, const siot_report_opts *opt, FILE *o, char *err,
                size_t errlen)
{
    report r;
    memset(&r, 0, sizeof r);
    r.t = t;
    r.o = o;
    siot_files_init(&r.files);
    r.ranks = calloc(t->nranks ? t->nranks : 1, sizeof *r.ranks);
    r.sites = calloc((size_t)t->nsites + 1, sizeof *r.sites);
    if (!r.ranks || !r.sites) {
        report_free(&r);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    siot_handlers h = {0};
    h.user = &r;
    h.event = on_event;
    if (siot_analyze(t, &h, err, errlen) != 0) {
        report_free(&r);
        return -1;
    }
    int own = own_rank_times(&r);
    if (r.oom || r.files.oom || siot_files_summarise(&r.files) != 0) {
        report_free(&r);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char a[64], b[64], c[64];
    fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>siotrace report: ");
    esc(o, base);
    fprintf(o, "</title>\n<style>%s</style></head>\n<body>\n<h1>I/O report: ", CSS);
    esc(o, base);
    fprintf(o, "</h1>\n<table>\n<tr><td>program</td><td>");
    esc(o, t->exe ? t->exe : "?");
    fprintf(o, "</td></tr>\n<tr><td>ranks</td><td>%u</td></tr>\n", t->nranks);
    fprintf(o, "<tr><td>events</td><td>%" PRIu64 "</td></tr>\n", r.total);
    struct stat st;
    if (stat(path, &st) == 0)
        fprintf(o, "<tr><td>trace file</td><td>%s</td></tr>\n", fmt_bytes(a, sizeof a, (double)st.st_size));
    if (t->start_ns) {
        time_t sec = (time_t)(t->start_ns / 1000000000ULL);
        struct tm tm;
        if (gmtime_r(&sec, &tm) && strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", &tm))
            fprintf(o, "<tr><td>traced</td><td>%s</td></tr>\n", b);
    }
    fprintf(o, "<tr><td>host, MPI</td><td>");
    esc(o, t->host ? t->host : "?");
    fprintf(o, ", ");
    esc(o, t->flavour ? t->flavour : "?");
    fprintf(o, "</td></tr>\n</table>\n");
    if (t->flags & SIOT_TF_PARTIAL)
        fprintf(o, "<p class=\"note\">Partial trace: the run ended abnormally; this is what was recorded until "
                   "then.</p>\n");
    if (t->flags & SIOT_TF_TRUNCATED)
        fprintf(o, "<p class=\"note\">Recording stopped early (memory limit): see <code>siot dump</code> for "
                   "where.</p>\n");
    if (t->flags & SIOT_TF_APPROX)
        fprintf(o, "<p class=\"note\">Approximate trace (SIOT_TOLERANCE): some loop counts are "
                   "summaries.</p>\n");

    findings_section(o, t);

    /* Layers */
    fprintf(o, "<h2>Layers</h2>\n");
    const char *labels[SIOT_NLAYERS] = {0};
    double v[SIOT_NLAYERS][2];
    uint32_t n = 0;
    unsigned which[SIOT_NLAYERS];
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        if (r.lcalls[l])
            which[n++] = l;
    const char *rw_colours[2] = {"#4e79a7", "#e15759"}, *rw_series[2] = {"read", "written"};
    const char *one_colour[2] = {"#76b7b2", "#76b7b2"}, *no_series[2] = {"", ""};
    for (uint32_t i = 0; i < n; i++) {
        labels[i] = LAYER_TITLE[which[i]];
        v[i][0] = (double)r.lcalls[which[i]];
        v[i][1] = 0;
    }
    hbars(o, "Calls", n, labels, v, one_colour, no_series, siot_fmt_count);
    for (uint32_t i = 0; i < n; i++) {
        v[i][0] = r.lread[which[i]];
        v[i][1] = r.lwrite[which[i]];
    }
    hbars(o, "Bytes read and written", n, labels, v, rw_colours, rw_series, fmt_bytes);
    for (uint32_t i = 0; i < n; i++) {
        v[i][0] = r.ltime[which[i]];
        v[i][1] = 0;
    }
    hbars(o, "Time in calls (all ranks)", n, labels, v, one_colour, no_series, fmt_time);
    legend(o, 2, rw_series, rw_colours);
    fprintf(o, "<p>A layer's bytes include those of the layers under it: an <code>H5Dwrite</code> is counted in "
               "HDF5, and the MPI-IO and POSIX calls it issued in theirs.</p>\n");

    /* Ranks */
    fprintf(o, "<h2>Ranks</h2>\n<p>Who does the I/O and who waits: the outermost calls of each rank (%s).</p>\n",
            own ? "times are each rank's own totals, recorded; MPI_Init and MPI_Finalize left out"
                : "times are calls &times; mean duration: the trace has no per-rank totals");
    const char *time_series[2] = {"I/O", "MPI"}, *time_colours[2] = {"#59a14f", "#e15759"};
    rank_bars(o, &r, "Bytes per rank", 0, rw_series, rw_colours, fmt_bytes);
    legend(o, 2, rw_series, rw_colours);
    rank_bars(o, &r, "Time per rank", 1, time_series, time_colours, fmt_time);
    legend(o, 2, time_series, time_colours);

    /* Sizes */
    fprintf(o, "<h2>Request sizes</h2>\n");
    int any = 0;
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        if (l != SIOT_LAYER_mpi && (r.lread[l] > 0 || r.lwrite[l] > 0)) {
            size_hist(o, &r, l);
            any = 1;
        }
    if (any)
        legend(o, 2, (const char *const[]){"reads", "writes"}, rw_colours);
    else
        fprintf(o, "<p>No data was read or written.</p>\n");

    file_table(o, &r.files);

    /* Timeline */
    fprintf(o, "<h2>Timeline</h2>\n");
    int rc = timeline(o, &r, opt, err, errlen);
    legend(o, SIOT_NLAYERS, LAYER_TITLE, LAYER_COLOUR);

    if (rc == 0)
        site_table(o, &r);
    fprintf(o, "<p style=\"color:#888\">Made by siot report from a trace of siotrace ");
    esc(o, t->version ? t->version : "?");
    fprintf(o, ": %s nodes in its compressed form.</p>\n</body></html>\n", siot_fmt_count(c, sizeof c, (double)t->nnodes));
    report_free(&r);
    if (rc == 0 && (ferror(o) || fflush(o) != 0)) {
        snprintf(err, errlen, "write error");
        rc = -1;
    }
    return rc;
}
