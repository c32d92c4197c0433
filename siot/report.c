#include "siot/report.h"
#include "siot/report_io.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/expr.h"
#include "core/hist.h"
#include "core/ranksum.h"
#include "replay/analyze.h"
#include "siot/chart.h"
#include "siot/measures.h"
#include "replay/files.h"
#include "siot/findings.h"
#include "siot/rankstats.h"
#include "replay/progress.h"
#include "core/roles.h"
#include "siot/stats.h"
#include "replay/synth.h"

#define SIZE_BINS 64
#define MAX_BARS 400 /* per-rank charts: more ranks are grouped */
#define TOP_SITES 50
#define INIT_ROW SIOT_NLAYERS /* the layer charts' row of MPI init/finalize */

#define LAYER_TITLE(l) (siot_concepts[l].name)

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
    /* per layer, and MPI init/finalize apart (row INIT_ROW, not in the MPI row) */
    uint64_t lcalls[SIOT_NLAYERS + 1];
    double lread[SIOT_NLAYERS], lwrite[SIOT_NLAYERS], ltime[SIOT_NLAYERS + 1];
    uint64_t sizes[SIOT_NLAYERS][2][SIZE_BINS];
    double size_bytes[SIOT_NLAYERS][2][SIZE_BINS];
    rankrow *ranks;
    int own_times; /* ranks[] times are the ranks' own (the trace's RANKTIMES) */
    sitestat *sites; /* per site index + 1 */
    siot_files files; /* the same per-file rows as siot stats */
    siot_access acc;  /* access patterns and amplification: the walk of every event */
    siot_heat heat;   /* fed by that walk */
    siot_origins origins; /* the traced calls each call was made in: sites at the program's lines */
    siot_vbuf scratch;
    int oom;
    FILE *o;
} report;

/* MPI_Init, MPI_Init_thread, MPI_Finalize: start-up and shutdown, neither
 * I/O nor communication. */
static int is_init_fini(const siot_funcdesc *f) { return siot_is_mpi_startup(f->layer, f->cls); }

static int concept_of(const siot_funcdesc *f)
{
    return is_init_fini(f) ? SIOT_C_INIT : f->layer;
}

/* ------------------------------------------------------------ formatting */

void siot_report_esc(FILE *o, const char *s)
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

const char *siot_report_bytes(char *b, size_t n, double v)
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

/* Calls, bytes and time per layer (MPI init/finalize apart), and the
 * request sizes, counted as siot stats counts them. */
static void layer_account(report *r, const siot_agg_event *e, double bytes)
{
    const siot_funcdesc *f = e->fn;
    const siot_event *ev = &e->node->u.ev;
    uint64_t total = e->calls * e->nranks;
    unsigned row = is_init_fini(f) ? INIT_ROW : f->layer, b = SIOT_CLASS_BASE(f->cls);
    int64_t aiofd;
    unsigned aio = siot_aio_direction(e, &r->scratch, &aiofd);
    if (aio)
        b = aio; /* an aio completion's bytes: read or written */
    r->total += total;
    r->lcalls[row] += total;
    if (e->first_visit)
        r->ltime[row] += ev->dur.mean * (double)ev->dur.count;
    if ((b != SIOT_CLASS_read && b != SIOT_CLASS_write) || f->layer == SIOT_LAYER_mpi)
        return;
    int w = b == SIOT_CLASS_write;
    if (w)
        r->lwrite[f->layer] += bytes * (double)total;
    else
        r->lread[f->layer] += bytes * (double)total;
    if (e->bytes > 0) {
        unsigned bin = siot_hist_bin((uint64_t)e->bytes);
        r->sizes[f->layer][w][bin] += total;
        r->size_bytes[f->layer][w][bin] += bytes * (double)total;
    }
}

/* Per rank: the outermost calls' bytes and time, I/O against MPI. */
static void rank_account(report *r, const siot_agg_event *e, double bytes)
{
    const siot_funcdesc *f = e->fn;
    const siot_event *ev = &e->node->u.ev;
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int io = b == SIOT_CLASS_read || b == SIOT_CLASS_write;
    if (siot_eval_int(ev->parent, &e->ctx, 0) != 0)
        return;
    double t = ev->dur.mean * (double)e->calls;
    for (uint32_t i = 0; i < e->nranks; i++) {
        uint32_t k = (uint32_t)e->ranks[i];
        if (k >= r->t->nranks)
            continue;
        rankrow *row = &r->ranks[k];
        if (f->layer == SIOT_LAYER_mpi) {
            if (!is_init_fini(f)) /* start-up apart, as the ranks' own times */
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

static void on_event(void *user, const siot_agg_event *e)
{
    report *r = user;
    const siot_funcdesc *f = e->fn;
    const siot_event *ev = &e->node->u.ev;
    uint64_t total = e->calls * e->nranks;
    double bytes = siot_is_data_class(f->cls) && e->bytes > 0 ? (double)e->bytes : 0;
    layer_account(r, e, bytes);
    rank_account(r, e, bytes);
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

/* A chart and its own legend, side by side with the next ones. */
void siot_report_fig_open(FILE *o, int w, int h, const char *cls)
{
    fprintf(o, "<div class=\"fig\"><svg class=\"chart%s%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "role=\"img\">\n",
            cls ? " " : "", cls ? cls : "", w, h, w, h);
}

void siot_report_fig_close(FILE *o, int n, const int *concepts)
{
    fprintf(o, "</svg>\n");
    siot_chart_legend(o, n, concepts);
    fprintf(o, "</div>\n");
}

static void chart_title(FILE *o, const char *title)
{
    fprintf(o, "<text x=\"0\" y=\"16\" class=\"t\">");
    siot_report_esc(o, title);
    fprintf(o, "</text>\n");
}

/* The concepts of a chart's legend: the distinct ones of c[0..n), in order. */
static int distinct(const int *c, int n, int *out)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < k && out[j] != c[i])
            j++;
        if (j == k && c[i] >= 0)
            out[k++] = c[i];
    }
    return k;
}

/* Horizontal bars, one row a label, up to two stacked series, each bar
 * of the concept c[row][series]; the value written after the bar. */
static void hbars(FILE *o, const char *title, uint32_t n, const char *const *labels, double (*v)[2], int (*c)[2],
                  const char *const *series, fmt_fn fmt)
{
    const int W = 380, LW = 120, RH = 22, TOP = 26;
    double max = 0;
    for (uint32_t i = 0; i < n; i++)
        if (v[i][0] + v[i][1] > max)
            max = v[i][0] + v[i][1];
    siot_report_fig_open(o, W, TOP + RH * (int)n + 8, NULL);
    chart_title(o, title);
    char a[48];
    for (uint32_t i = 0; i < n; i++) {
        int y = TOP + RH * (int)i;
        fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LW - 6, y + 14);
        siot_report_esc(o, labels[i]);
        fprintf(o, "</text>\n");
        double x = LW;
        for (int s = 0; s < 2; s++) {
            double w = max > 0 ? v[i][s] / max * (W - LW - 70) : 0;
            if (w <= 0)
                continue;
            siot_chart_rect(o, c[i][s], x, y + 3, w, RH - 6);
            fprintf(o, "<title>");
            siot_report_esc(o, labels[i]);
            fprintf(o, "%s%s: %s</title></rect>\n", series[s][0] ? " " : "", series[s], fmt(a, sizeof a, v[i][s]));
            x += w;
        }
        fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"v\" data-row=\"%s\" data-v=\"%.17g,%.17g\">%s</text>\n",
                x + 4, y + 14, labels[i], v[i][0], v[i][1], fmt(a, sizeof a, v[i][0] + v[i][1]));
    }
    int flat[2 * (SIOT_NLAYERS + 1)], legend[SIOT_NCONCEPTS];
    uint32_t m = n < SIOT_NLAYERS + 1 ? n : SIOT_NLAYERS + 1;
    for (uint32_t i = 0; i < m; i++)
        for (int s = 0; s < 2; s++)
            flat[2 * i + s] = c[i][s];
    siot_report_fig_close(o, distinct(flat, 2 * (int)m, legend), legend);
}

/* Horizontal grid lines and tick labels of a vertical axis; the ticks
 * carry class "tick" (and "log" on a logarithmic axis). */
static void y_axis(FILE *o, const siot_axis *ax, int L, int R, int TOP, int H)
{
    char a[48];
    for (int t = 0; t <= ax->nticks; t++) {
        double y = TOP + H - H * siot_axis_pos(ax, siot_axis_tick(ax, t));
        fprintf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", L, R, y, y);
        fprintf(o, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" class=\"tick%s\">%s</text>\n", L - 4, y + 4,
                ax->log ? " log" : "", siot_axis_label(ax, t, a, sizeof a));
    }
}

/* Vertical bars over ranks (grouped when there are many), two stacked series. */
static void rank_bars(FILE *o, const report *r, const char *title, int which, const char *const *series,
                      const int *c, fmt_fn fmt)
{
    uint32_t n = r->t->nranks, group = (n + MAX_BARS - 1) / MAX_BARS, bars = (n + group - 1) / group;
    const int W = 900, H = 200, L = 80, B = 28, TOP = 26;
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
    siot_axis ax;
    siot_axis_linear(&ax, which ? SIOT_AX_TIME : SIOT_AX_BYTES, max);
    siot_report_fig_open(o, W, H + B + TOP, NULL);
    fprintf(o, "<text x=\"0\" y=\"16\" class=\"t\">");
    siot_report_esc(o, title);
    if (group > 1)
        fprintf(o, " (bars of %u ranks)", group);
    fprintf(o, "</text>\n");
    y_axis(o, &ax, L, W, TOP, H);
    char a[48];
    double bw = (double)(W - L) / bars;
    for (uint32_t i = 0; i < bars; i++) {
        double y = TOP + H;
        for (int s = 0; s < 2; s++) {
            double h = siot_axis_pos(&ax, v[2 * i + s]) * H;
            if (h <= 0)
                continue;
            y -= h;
            siot_chart_rect(o, c[s], L + bw * i, y, bw > 2 ? bw - 1 : bw, h);
            if (group > 1)
                fprintf(o, "<title>ranks %u-%u", i * group, (i + 1) * group - 1 < n ? (i + 1) * group - 1 : n - 1);
            else
                fprintf(o, "<title>rank %u", i);
            fprintf(o, " %s: %s</title></rect>\n", series[s], fmt(a, sizeof a, v[2 * i + s]));
        }
    }
    uint32_t step = bars > 16 ? bars / 8 : 1;
    for (uint32_t i = 0; i < bars; i += step)
        fprintf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%u</text>\n", L + bw * (i + 0.5), TOP + H + 16,
                i * group);
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank</text>\n", W, TOP + H + B);
    free(v);
    siot_report_fig_close(o, 2, c);
}

/* One bar of a size histogram and its value written above it (turned, so
 * that narrow bars keep readable values). */
static void size_bar(FILE *o, unsigned layer, int w, unsigned bin, double v, int bytes, double x, double bw,
                     double h, int base)
{
    char a[48], lo[48];
    siot_chart_rect(o, w ? SIOT_C_WRITE : SIOT_C_READ, x, base - h, bw, h);
    fprintf(o, "<title>%s %s of %s.. bytes: %s</title></rect>\n", LAYER_TITLE(layer), w ? "writes" : "reads",
            fmt_size_bin(lo, sizeof lo, bin), bytes ? siot_report_bytes(a, sizeof a, v) : siot_fmt_count(a, sizeof a, v));
    if (bytes)
        siot_report_bytes(a, sizeof a, v);
    else
        snprintf(a, sizeof a, "%.0f", v);
    double cx = x + bw / 2 + 3, cy = base - h - 3;
    fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"bv\" data-layer=\"%s\" data-dir=\"%s\" data-min=\"%.0f\" "
               "data-what=\"%s\" transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
            cx, cy, siot_layer_name(layer), w ? "write" : "read", ldexp(1.0, (int)bin), bytes ? "bytes" : "calls", cx,
            cy, a);
}

/* Request sizes of a layer on a logarithmic axis: the calls per size, or
 * the bytes they moved (bytes != 0), read and write bars side by side. */
static void size_hist(FILE *o, const report *r, unsigned layer, int bytes)
{
    int lo = SIZE_BINS, hi = -1, dirs[2] = {0, 0};
    double max = 0;
    for (int b = 0; b < SIZE_BINS; b++)
        for (int w = 0; w < 2; w++) {
            double v = bytes ? r->size_bytes[layer][w][b] : (double)r->sizes[layer][w][b];
            if (!r->sizes[layer][w][b])
                continue;
            lo = b < lo ? b : lo;
            hi = b;
            dirs[w] = 1;
            max = v > max ? v : max;
        }
    if (hi < 0)
        return;
    const int H = 140, L = 64, TOP = 74, B = 30, nd = dirs[0] + dirs[1];
    int nb = hi - lo + 1, bw = nb > 20 ? 22 : 36, W = L + nb * bw + 10;
    W = W < 280 ? 280 : W;
    siot_axis ax;
    siot_axis_log(&ax, bytes ? SIOT_AX_BYTES : SIOT_AX_COUNT, max);
    siot_report_fig_open(o, W, H + TOP + B, "log");
    fprintf(o, "<text x=\"0\" y=\"16\" class=\"t\">%s requests by size: %s</text>\n", LAYER_TITLE(layer),
            bytes ? "bytes moved" : "calls");
    fprintf(o, "<text x=\"0\" y=\"30\" class=\"axis\">logarithmic axis</text>\n");
    y_axis(o, &ax, L, W, TOP, H);
    char a[48];
    for (int b = lo; b <= hi; b++) {
        int x = L + (b - lo) * bw, k = 0;
        for (int w = 0; w < 2; w++) {
            double v = bytes ? r->size_bytes[layer][w][b] : (double)r->sizes[layer][w][b];
            if (!dirs[w] || !r->sizes[layer][w][b])
                k += dirs[w];
            else {
                double h = siot_axis_pos(&ax, v) * H;
                size_bar(o, layer, w, (unsigned)b, v, bytes, x + 1 + k++ * (bw - 2) / (double)nd,
                         (bw - 2) / (double)nd - 1, h < 2 ? 2 : h, TOP + H);
            }
        }
        if (nb <= 12 || (b - lo) % 2 == 0)
            fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x + bw / 2, TOP + H + 14,
                    fmt_size_bin(a, sizeof a, (unsigned)b));
    }
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">bytes per call (from)</text>\n", W, TOP + H + 28);
    int legend[2], nl = 0;
    for (int w = 0; w < 2; w++)
        if (dirs[w])
            legend[nl++] = w ? SIOT_C_WRITE : SIOT_C_READ;
    siot_report_fig_close(o, nl, legend);
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

/* The timeline's state: the rectangle being merged, and what was drawn. */
typedef struct tline {
    FILE *o;
    const report *r;
    const siot_report_opts *opt;
    double span, scale;
    int draw, truncated, L, RH, y;
    int cur; /* the concept of the open rectangle, -1 when none */
    double x0, x1;
    uint64_t merged;
    unsigned used; /* bit per concept drawn */
    double worst_span; /* the largest |synthesised end - recorded span| / span (-1: no span kept) */
} tline;

static void tl_flush(tline *tl)
{
    if (tl->cur >= 0 && tl->x1 - tl->x0 >= 0.3) {
        siot_chart_rect(tl->o, tl->cur, tl->x0, tl->y + 2, tl->x1 - tl->x0 < 0.5 ? 0.5 : tl->x1 - tl->x0, tl->RH - 4);
        fprintf(tl->o, "<title>%s, %" PRIu64 " calls</title></rect>\n", siot_concepts[tl->cur].name, tl->merged);
        tl->used |= 1u << tl->cur;
    }
    tl->cur = -1;
}

/* One rank's outermost calls: their span (not drawing), or their
 * rectangles. Returns 0, or -1 with a reason in err. */
static int tl_rank(tline *tl, uint32_t rank, char *err, size_t errlen)
{
    siot_synth s;
    if (siot_synth_init(&s, tl->r->t, rank) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    siot_synth_ev ev;
    uint64_t n = 0;
    int k;
    tl->cur = -1;
    while ((k = siot_synth_next(&s, &ev)) == 1) {
        if (++n > tl->opt->timeline_events) {
            tl->truncated = 1;
            break;
        }
        if (ev.depth != 0)
            continue;
        double end = ev.start_ns + ev.dur_ns;
        if (!tl->draw) {
            tl->span = end > tl->span ? end : tl->span;
            continue;
        }
        int c = concept_of(&tl->r->t->funcs[ev.node->u.ev.func]);
        double a = tl->L + ev.start_ns * tl->scale, b = tl->L + end * tl->scale;
        if (c == tl->cur && a - tl->x1 < 1.0) {
            tl->x1 = b > tl->x1 ? b : tl->x1;
            tl->merged++;
            continue;
        }
        tl_flush(tl);
        tl->cur = c;
        tl->x0 = a;
        tl->x1 = b;
        tl->merged = 1;
    }
    if (tl->draw)
        tl_flush(tl);
    double span = siot_rank_time(tl->r->t, rank, SIOT_RT_span), end = siot_synth_end(&s);
    if (!tl->draw && k == 0 && !tl->truncated && span > 0) {
        double e = (end > span ? end - span : span - end) / span;
        tl->worst_span = e > tl->worst_span ? e : tl->worst_span;
    }
    if (k < 0)
        snprintf(err, errlen, "rank %u: %s", rank, s.it.err ? s.it.err : "inconsistent trace");
    siot_synth_free(&s);
    return k < 0 ? -1 : 0;
}

/* The time axis along the bottom: 1-2-5 ticks, the last at or after the span. */
static void tl_axis(tline *tl, const siot_axis *ax, int W, int TOP, int nr)
{
    char a[48];
    for (int k = 0; k <= ax->nticks; k++) {
        double x = tl->L + (W - tl->L - 10) * siot_axis_pos(ax, siot_axis_tick(ax, k));
        fprintf(tl->o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>", x, x, TOP,
                TOP + tl->RH * nr);
        fprintf(tl->o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" class=\"tick\">%s</text>\n", x,
                TOP + tl->RH * nr + 14, k == 0 ? "start" : k == ax->nticks ? "end" : "middle",
                siot_axis_label(ax, k, a, sizeof a));
    }
}

/* Pass 1 finds the span, pass 2 draws the outermost calls over a grey
 * "other" (no traced call) band; neighbouring calls of one concept closer
 * than a pixel become one rectangle, so the page stays small whatever the
 * number of events. */
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
    nr = nr > want ? want : nr;
    const int W = 900, TOP = 26;
    tline tl = {.o = o, .r = r, .opt = opt, .L = 70, .RH = 16, .cur = -1, .worst_span = -1};
    int rc = 0;
    for (uint32_t i = 0; i < nr && rc == 0; i++)
        rc = tl_rank(&tl, rk[i], err, errlen);
    siot_axis ax;
    siot_axis_linear(&ax, SIOT_AX_TIME, tl.span);
    tl.scale = ax.top > 0 ? (W - tl.L - 10) / ax.top : 0;
    tl.draw = 1;
    siot_report_fig_open(o, W, TOP + tl.RH * (int)nr + 30, NULL);
    fprintf(o, "<text x=\"0\" y=\"16\" class=\"t\">Timeline per rank (outermost calls; times synthesised from the "
               "histogram means%s)</text>\n",
            tl.truncated ? "; the first events of each rank only" : "");
    if (rc == 0)
        tl_axis(&tl, &ax, W, TOP, (int)nr);
    for (uint32_t i = 0; i < nr && rc == 0; i++) {
        tl.y = TOP + tl.RH * (int)i;
        fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %u</text>\n", tl.L - 6, tl.y + 12, rk[i]);
        siot_chart_rect(o, SIOT_C_OTHER, tl.L, tl.y + 2, tl.span * tl.scale, tl.RH - 4);
        fprintf(o, "<title>no traced call (compute)</title></rect>\n");
        rc = tl_rank(&tl, rk[i], err, errlen);
    }
    int legend[SIOT_NCONCEPTS], n = 0;
    for (int c = 0; c < SIOT_NCONCEPTS; c++)
        if (tl.used >> c & 1)
            legend[n++] = c;
    legend[n++] = SIOT_C_OTHER;
    siot_report_fig_close(o, n, legend);
    if (tl.worst_span >= 0)
        fprintf(o, "<p class=\"synth\">The timeline is a reconstruction: each call is placed by the mean durations "
                   "of the compressed trace. Against what was measured, each rank's synthesised end is within "
                   "%.1f%% of its recorded span (from its first traced call to the end of its last).</p>\n",
                tl.worst_span * 100);
    free(rk);
    return rc;
}

/* ------------------------------------------------------------ page */

static int cmp_site_time(const void *a, const void *b, void *ctx)
{
    const sitestat *s = ctx;
    const siot_siteloc *x = a, *y = b;
    double tx = s[x->site].time_ns, ty = s[y->site].time_ns;
    return tx < ty ? 1 : tx > ty ? -1 : (int)x->site - (int)y->site;
}

/* The call sites of I/O and communication that took the most time; MPI
 * init/finalize summed apart in one line under them. */
static void site_table(FILE *o, const report *r)
{
    const siot_trace *t = r->t;
    uint32_t n = 0;
    siot_siteloc *loc = calloc(t->nsites ? t->nsites : 1, sizeof *loc);
    if (!loc)
        return;
    for (uint32_t i = 1; i <= t->nsites; i++)
        if (r->sites[i].used && !is_init_fini(&t->funcs[r->sites[i].func]))
            loc[n++].site = i;
    qsort_r(loc, n, sizeof *loc, cmp_site_time, r->sites);
    uint32_t shown = n > TOP_SITES ? TOP_SITES : n;
    for (uint32_t i = 0; i < shown; i++)
        loc[i].origin = siot_origins_dominant(&r->origins, loc[i].site);
    siot_resolve_origins(t, &r->origins, loc, shown);
    fprintf(o, "<h2>Call sites</h2>\n<p>The %u call sites of I/O and communication (of %u) that took the most time: "
               "the sum of their calls' durations over all ranks.</p>\n",
            shown, n);
    fprintf(o, "<table class=\"sites\"><tr><th>where</th><th>function</th><th>layer</th><th>calls</th><th>bytes</th>"
               "<th>time</th><th>ranks</th></tr>\n");
    int no_line = 0;
    for (uint32_t i = 0; i < shown; i++) {
        const sitestat *s = &r->sites[loc[i].site];
        const siot_funcdesc *f = &t->funcs[s->func];
        char a[48], b[48], c[48];
        fprintf(o, "<tr><td class=\"site\">");
        siot_report_esc(o, loc[i].where);
        if (loc[i].chain[0]) {
            fprintf(o, "<br><small>via ");
            siot_report_esc(o, loc[i].chain);
            fprintf(o, "</small>");
        }
        fprintf(o, "</td><td>");
        siot_report_esc(o, f->name);
        fprintf(o, "</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                   "<td class=\"n\">%" PRIu64 "</td></tr>\n",
                LAYER_TITLE(f->layer), siot_fmt_count(a, sizeof a, (double)s->calls),
                s->bytes ? siot_report_bytes(b, sizeof b, (double)s->bytes) : "", fmt_time(c, sizeof c, s->time_ns),
                siot_rankset_count(&s->ranks));
        no_line |= loc[i].no_line;
    }
    fprintf(o, "</table>\n");
    if (no_line)
        fprintf(o, "<p class=\"hint\">%s.</p>\n", siot_no_line_hint);
    char a[48];
    if (r->lcalls[INIT_ROW])
        fprintf(o, "<p class=\"init\">Not in the table: MPI init/finalize (MPI_Init, MPI_Init_thread, "
                   "MPI_Finalize), %" PRIu64 " calls, %s.</p>\n",
                r->lcalls[INIT_ROW], fmt_time(a, sizeof a, r->ltime[INIT_ROW]));
    free(loc);
}

/* The per-file rows of siot stats (replay/files.h), exact byte counts in
 * the cells' titles, then the patterns summing them up. */
static void file_cell_bytes(FILE *o, uint64_t v)
{
    char b[48];
    fprintf(o, "<td class=\"n\" title=\"%" PRIu64 "\">%s</td>", v, siot_report_bytes(b, sizeof b, (double)v));
}

/* A row's first cells: the name (a file or pattern) and its layer. */
static void name_cells(FILE *o, const char *name, unsigned layer)
{
    fprintf(o, "<tr><td class=\"site\">");
    siot_report_esc(o, name);
    fprintf(o, "</td><td>%s</td>", LAYER_TITLE(layer));
}

/* The cells a file's row and a pattern's row share: the name, its layer,
 * two counts (opens or files; data calls), the bytes read and written and
 * the number of ranks; the row stays open after them. */
static void count_cells(FILE *o, const char *name, unsigned layer, uint64_t n1, uint64_t n2, uint64_t rbytes,
                        uint64_t wbytes, const siot_rankset *ranks)
{
    name_cells(o, name, layer);
    fprintf(o, "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td>", n1, n2);
    file_cell_bytes(o, rbytes);
    file_cell_bytes(o, wbytes);
    fprintf(o, "<td class=\"n\">%" PRIu64 "</td>", siot_rankset_count(ranks));
}

/* Opens that failed: no file, so not in the files table. */
static void failed_table(FILE *o, const siot_files *fs)
{
    if (!fs->nfailed)
        return;
    fprintf(o, "<p>Failed opens (the open returned an error; no file was touched):</p>\n<table class=\"failed\">"
               "<tr><th>file</th><th>layer</th><th>failed opens</th><th>ranks</th></tr>\n");
    for (uint32_t i = 0; i < fs->nfailed; i++) {
        const siot_failedopen *f = &fs->failed[i];
        name_cells(o, f->name, f->layer);
        fprintf(o, "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td></tr>\n", f->calls,
                siot_rankset_count(&f->ranks));
    }
    fprintf(o, "</table>\n");
    if (fs->failed_more)
        fprintf(o, "<p>and %" PRIu64 " failed opens of further names.</p>\n", fs->failed_more);
}

static void file_table(FILE *o, const siot_files *fs)
{
    fprintf(o, "<h2>Files</h2>\n<p>Each file per layer: its data calls, bytes, the time in its data calls (all "
               "ranks: each call's count times its call site's mean duration) and its bandwidth (its bytes per "
               "second of that time).</p>\n");
    if (!fs->nrows)
        fprintf(o, "<p>No file was opened.</p>\n");
    else
        fprintf(o, "<table class=\"files\"><tr><th>file</th><th>layer</th><th>opens</th><th>data calls</th>"
                   "<th>read</th><th>written</th><th>ranks</th><th>sharing</th><th>time in data calls</th>"
                   "<th>bandwidth</th></tr>\n");
    for (uint32_t i = 0; i < fs->nrows; i++) {
        const siot_filerow *f = &fs->rows[i];
        count_cells(o, f->name, f->layer, f->opens, f->calls, f->rbytes, f->wbytes, &f->ranks);
        fprintf(o, "<td>%s</td>", siot_file_sharing(f));
        siot_report_file_time_cells(o, f);
        fprintf(o, "</tr>\n");
    }
    if (fs->nrows)
        fprintf(o, "</table>\n");
    failed_table(o, fs);
    if (!fs->npatterns)
        return;
    fprintf(o, "<p>Files whose names differ only in numbers, summed:</p>\n<table class=\"patterns\"><tr><th>"
               "pattern</th><th>layer</th><th>files</th><th>data calls</th><th>read</th><th>written</th><th>ranks</th>"
               "</tr>\n");
    for (uint32_t i = 0; i < fs->npatterns; i++) {
        const siot_filepattern *p = &fs->patterns[i];
        count_cells(o, p->pattern, p->layer, p->files, p->calls, p->rbytes, p->wbytes, &p->ranks);
        fprintf(o, "</tr>\n");
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
        siot_report_esc(o, line);
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
    siot_origins_free(&r->origins);
    siot_vbuf_free(&r->scratch);
    siot_access_free(&r->acc);
    siot_report_heat_free(&r->heat);
}

static const char *CSS = "body{font:14px/1.4 sans-serif;margin:24px;color:#222;max-width:1000px}"
                         "h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}"
                         "div.fig{display:inline-block;vertical-align:top;margin:6px 18px 10px 0}"
                         "svg.chart{display:block;font:11px sans-serif}"
                         "svg .t{font-weight:bold;font-size:12px}svg .v,svg .axis{fill:#555}svg .bv{font-size:10px}"
                         "svg .grid{stroke:#e4e4e4}"
                         "table{border-collapse:collapse}td,th{padding:2px 10px;border-bottom:1px solid #eee;"
                         "text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
                         "td.site{font-family:monospace;font-size:12px}"
                         ".legend{font-size:12px}.legend span{margin-right:14px}.legend i{display:inline-block;"
                         "width:11px;height:11px;margin-right:4px;vertical-align:-1px}.note{color:#a33}"
                         ".hint,.synth{color:#555;font-style:italic}h3{font-size:15px}"
                         "caption{text-align:left;font-weight:bold}div.tops table{display:inline-table;"
                         "vertical-align:top;margin-right:18px}";

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

static void page_head(FILE *o, const report *r, const char *path)
{
    const siot_trace *t = r->t;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char a[64], b[64];
    fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>siotrace report: ");
    siot_report_esc(o, base);
    fprintf(o, "</title>\n<style>%s</style></head>\n<body>\n<h1>I/O report: ", CSS);
    siot_report_esc(o, base);
    fprintf(o, "</h1>\n<table>\n<tr><td>program</td><td>");
    siot_report_esc(o, t->exe ? t->exe : "?");
    fprintf(o, "</td></tr>\n<tr><td>ranks</td><td>%u</td></tr>\n", t->nranks);
    fprintf(o, "<tr><td>events</td><td>%" PRIu64 "</td></tr>\n", r->total);
    struct stat st;
    if (stat(path, &st) == 0)
        fprintf(o, "<tr><td>trace file</td><td>%s</td></tr>\n", siot_report_bytes(a, sizeof a, (double)st.st_size));
    if (t->start_ns) {
        time_t sec = (time_t)(t->start_ns / 1000000000ULL);
        struct tm tm;
        if (gmtime_r(&sec, &tm) && strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", &tm))
            fprintf(o, "<tr><td>traced</td><td>%s</td></tr>\n", b);
    }
    fprintf(o, "<tr><td>host, MPI</td><td>");
    siot_report_esc(o, t->host ? t->host : "?");
    fprintf(o, ", ");
    siot_report_esc(o, t->flavour ? t->flavour : "?");
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
}

/* Each I/O layer's bytes over the time spent in its calls (all ranks):
 * what the layer delivered while the program waited on it. */
static void bandwidths(FILE *o, const report *r)
{
    char a[48], b[48], c[48];
    fprintf(o, "<table class=\"bandwidth\"><tr><th>layer</th><th>bytes moved</th><th>time in its calls</th>"
               "<th>bytes per second of those calls</th></tr>\n");
    for (unsigned l = 0; l < SIOT_NLAYERS; l++) {
        double bytes = r->lread[l] + r->lwrite[l], t = r->ltime[l];
        if (l == SIOT_LAYER_mpi || bytes <= 0 || t <= 0)
            continue;
        fprintf(o, "<tr><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\" data-layer=\"%s\" "
                   "data-bps=\"%.6g\">%s/s</td></tr>\n",
                LAYER_TITLE(l), siot_report_bytes(a, sizeof a, bytes), fmt_time(b, sizeof b, t), siot_layer_name(l),
                bytes / (t * 1e-9), siot_report_bytes(c, sizeof c, bytes / (t * 1e-9)));
    }
    fprintf(o, "</table>\n");
}

/* Calls, bytes and time per layer; MPI init/finalize a row of its own. */
static void layers_section(FILE *o, const report *r)
{
    fprintf(o, "<h2>Layers</h2>\n");
    const char *labels[SIOT_NLAYERS + 1] = {0};
    double v[SIOT_NLAYERS + 1][2];
    int c[SIOT_NLAYERS + 1][2], cb[SIOT_NLAYERS + 1][2];
    uint32_t n = 0, nb = 0;
    unsigned which[SIOT_NLAYERS + 1];
    for (unsigned l = 0; l <= INIT_ROW; l++)
        if (r->lcalls[l])
            which[n++] = l;
    for (uint32_t i = 0; i < n; i++) {
        unsigned l = which[i];
        labels[i] = l == INIT_ROW ? siot_concepts[SIOT_C_INIT].name : LAYER_TITLE(l);
        c[i][0] = l == INIT_ROW ? SIOT_C_INIT : (int)l;
        c[i][1] = -1;
        cb[i][0] = SIOT_C_READ;
        cb[i][1] = SIOT_C_WRITE;
        nb += l != INIT_ROW;
        v[i][0] = (double)r->lcalls[l];
        v[i][1] = 0;
    }
    const char *no_series[2] = {"", ""}, *rw_series[2] = {"read", "written"};
    hbars(o, "Calls", n, labels, v, c, no_series, siot_fmt_count);
    for (uint32_t i = 0; i < nb; i++) {
        v[i][0] = r->lread[which[i]];
        v[i][1] = r->lwrite[which[i]];
    }
    hbars(o, "Bytes read and written", nb, labels, v, cb, rw_series, siot_report_bytes);
    for (uint32_t i = 0; i < n; i++) {
        v[i][0] = r->ltime[which[i]];
        v[i][1] = 0;
    }
    hbars(o, "Time in calls (all ranks)", n, labels, v, c, no_series, fmt_time);
    fprintf(o, "<p>A layer's bytes include those of the layers under it: an <code>H5Dwrite</code> is counted in "
               "HDF5, and the MPI-IO and POSIX calls it issued in theirs. MPI init/finalize (<code>MPI_Init</code>, "
               "<code>MPI_Init_thread</code>, <code>MPI_Finalize</code>) is start-up and shutdown, apart from MPI "
               "communication.</p>\n");
    bandwidths(o, r);
    siot_report_amplification(o, &r->acc);
}

/* One row of the time-share table: a rank's own times (or a summary row's
 * values in v), each cell with its nanoseconds for scripts. */
static void share_row(FILE *o, const char *label, const double *v)
{
    static const unsigned COLS[5] = {SIOT_RT_span, SIOT_RT_N, SIOT_RT_io, SIOT_RT_mpi, SIOT_RT_mpi_init};
    char a[48];
    fprintf(o, "<tr><td>%s</td>", label);
    for (int c = 0; c < 5; c++)
        fprintf(o, "<td class=\"n\" data-key=\"%s\" data-ns=\"%.0f\">%s</td>", siot_rank_time_name(COLS[c]),
                v[COLS[c]], fmt_time(a, sizeof a, v[COLS[c]]));
    double span = v[SIOT_RT_span];
    fprintf(o, "<td class=\"n\" data-key=\"io_share\">%.1f%%</td></tr>\n", span > 0 ? 100 * v[SIOT_RT_io] / span : 0);
}

static void shares_head(FILE *o, const char *form)
{
    fprintf(o, "<h3>Where each rank's time went%s</h3>\n<table class=\"shares\"><tr><th>rank</th><th>run</th>"
               "<th>computation</th><th>I/O</th><th>MPI</th><th>MPI init/finalize</th><th>I/O share</th></tr>\n",
            form);
}

/* Each layer's share of the job's run time, from the sums over ranks. */
static void layer_shares(FILE *o, double span, const double *lt)
{
    fprintf(o, "</table>\n<p>Share of the job's run time (all ranks) in each layer's calls, nested calls "
               "included (an <code>H5Dwrite</code> counts in HDF5, the <code>pwrite</code> it issued in POSIX):");
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        if (lt[l] > 0)
            fprintf(o, " <span data-layer=\"%s\">%s %.1f%%</span>", siot_layer_name(l), LAYER_TITLE(l),
                    span > 0 ? 100 * lt[l] / span : 0);
    fprintf(o, ".</p>\n");
}

/* Where each rank's time went (its own totals): every rank up to 16,
 * else rank 0 and the mean of all ranks; then each layer's share of the
 * job's run time. */
static void time_shares(FILE *o, const report *r)
{
    const siot_trace *t = r->t;
    double v[SIOT_RT_N + 1], sum[SIOT_RT_N + 1] = {0}, lt[SIOT_NLAYERS] = {0};
    shares_head(o, ""); /* every rank's row */
    char label[32];
    for (uint32_t k = 0; k < t->nranks; k++) {
        for (unsigned c = 0; c <= SIOT_RT_N; c++)
            sum[c] += (v[c] = siot_rank_time(t, k, c));
        for (unsigned l = 0; l < SIOT_NLAYERS; l++)
            lt[l] += v[SIOT_RT_layer_posix + l];
        if (t->nranks <= 16 || k == 0) {
            snprintf(label, sizeof label, "%u", k);
            share_row(o, label, v);
        }
    }
    double span = sum[SIOT_RT_span];
    if (t->nranks > 16) {
        for (unsigned c = 0; c <= SIOT_RT_N; c++)
            sum[c] /= t->nranks;
        share_row(o, "mean of all ranks", sum);
    }
    layer_shares(o, span, lt);
}

/* "3 (1.2 s), 7 (1.1 s)": the kept extremes of key, the most extreme first. */
static void extreme_cells(FILE *o, const siot_trace *t, unsigned key, int slowest)
{
    siot_rtx ex[64];
    unsigned keep = siot_rank_extremes_kept(t);
    uint32_t n = siot_rts_extremes(t, key, slowest, ex, keep < 64 ? keep : 64);
    char a[48];
    fprintf(o, "<td data-key=\"%s\">", slowest ? "slowest" : "fastest");
    for (uint32_t i = 0; i < n; i++)
        fprintf(o, "%s<span data-rank=\"%d\" data-ns=\"%" PRIu64 "\">%d (%s)</span>", i ? ", " : "", ex[i].rank,
                ex[i].v, ex[i].rank, fmt_time(a, sizeof a, (double)ex[i].v));
    fprintf(o, "</td>");
}

/* Per quantity of a summary: minimum, mean, deviation, maximum over the
 * ranks, and the kept fastest and slowest ranks with their exact values. */
static void summary_extremes(FILE *o, const siot_trace *t)
{
    char a[48], b[48], c[48], d[48];
    fprintf(o, "<table class=\"extremes\"><tr><th>per rank</th><th>least</th><th>mean</th><th>deviation</th>"
               "<th>most</th><th>slowest ranks (exact)</th><th>fastest ranks (exact)</th></tr>\n");
    for (unsigned i = 0; i < SIOT_RT_NQ; i++) {
        unsigned k = SIOT_RT_ORDER[i];
        const siot_hist *h = &t->rtsum[k];
        if (!h->max)
            continue;
        fprintf(o,
                "<tr data-key=\"%s\"><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                "<td class=\"n\">%s</td><td class=\"n\">%s</td>",
                siot_rank_time_name(k), siot_rank_time_title(k), fmt_time(a, sizeof a, (double)h->min),
                fmt_time(b, sizeof b, h->mean), fmt_time(c, sizeof c, siot_hist_stddev(h)),
                fmt_time(d, sizeof d, (double)h->max));
        extreme_cells(o, t, k, 1);
        extreme_cells(o, t, k, 0);
        fprintf(o, "</tr>\n");
    }
    fprintf(o, "</table>\n");
}

/* A summary (core/ranksum.h): the least, mean and most of all ranks (no
 * rank's row is kept), each quantity's extremes, and the slowest ranks
 * named, exactly (slowest_rank). */
static void summary_shares(FILE *o, const report *r)
{
    const siot_trace *t = r->t;
    double v[SIOT_RT_NQ], lt[SIOT_NLAYERS];
    char form[96], head[128];
    snprintf(head, sizeof head, " (%s)", siot_rank_times_form(t, form, sizeof form));
    shares_head(o, head);
    for (unsigned c = 0; c < SIOT_RT_NQ; c++)
        v[c] = (double)t->rtsum[c].min;
    share_row(o, "least of each column", v);
    for (unsigned c = 0; c < SIOT_RT_NQ; c++)
        v[c] = t->rtsum[c].mean;
    share_row(o, "mean of all ranks", v);
    for (unsigned c = 0; c < SIOT_RT_NQ; c++)
        v[c] = (double)t->rtsum[c].max;
    share_row(o, "most of each column", v);
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        lt[l] = t->rtsum[SIOT_RT_layer_posix + l].mean;
    layer_shares(o, t->rtsum[SIOT_RT_span].mean, lt);
    summary_extremes(o, t);
}

/* Who the others wait for, exactly in either form. */
static void slowest_rank(FILE *o, const siot_trace *t)
{
    siot_rtx slow, wait;
    char a[48], b[48], form[96];
    if (!siot_rts_extremes(t, SIOT_RT_compute, 1, &slow, 1) || !siot_rts_extremes(t, SIOT_RT_mpi, 1, &wait, 1))
        return;
    fprintf(o, "<p class=\"slowest\">Slowest rank: <b>rank %d</b> computes the most (%s); rank %d waits the most "
               "in MPI (%s); from %s",
            slow.rank, fmt_time(a, sizeof a, (double)slow.v), wait.rank,
            fmt_time(b, sizeof b, (double)wait.v), siot_rank_times_form(t, form, sizeof form));
    if (t->rtsum)
        fprintf(o, " (the %u fastest and slowest ranks of each quantity kept)", siot_rank_extremes_kept(t));
    fprintf(o, ".</p>\n");
}

static void ranks_and_sizes(FILE *o, const report *r)
{
    fprintf(o, "<h2>Ranks</h2>\n<p>Who does the I/O and who waits: the outermost calls of each rank (%s).</p>\n",
            r->own_times     ? "times are each rank's own totals, recorded; MPI_Init and MPI_Finalize left out"
            : r->t->rtsum    ? "times are calls &times; mean duration: the trace keeps a summary of the ranks' own "
                               "totals, with the fastest and slowest ranks exact (below)"
                             : "times are calls &times; mean duration: the trace has no per-rank totals");
    const char *rw_series[2] = {"read", "written"}, *time_series[2] = {"I/O", "MPI"};
    rank_bars(o, r, "Bytes per rank", 0, rw_series, (const int[]){SIOT_C_READ, SIOT_C_WRITE}, siot_report_bytes);
    rank_bars(o, r, "Time per rank", 1, time_series, (const int[]){SIOT_C_IO, SIOT_LAYER_mpi}, fmt_time);
    if (r->own_times)
        time_shares(o, r);
    else if (r->t->rtsum)
        summary_shares(o, r);
    slowest_rank(o, r->t);

    fprintf(o, "<h2>Request sizes</h2>\n<p>Calls and the bytes they moved per request size, on logarithmic axes: a "
               "few large requests that move most of the bytes show beside many small ones.</p>\n");
    int any = 0;
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        if (l != SIOT_LAYER_mpi && (r->lread[l] > 0 || r->lwrite[l] > 0)) {
            size_hist(o, r, l, 0);
            size_hist(o, r, l, 1);
            any = 1;
        }
    if (!any)
        fprintf(o, "<p>No data was read or written.</p>\n");
}

int siot_report(const siot_trace *t, const char *path, const siot_report_opts *opt, FILE *o, char *err,
                size_t errlen)
{
    report r;
    memset(&r, 0, sizeof r);
    r.t = t;
    r.o = o;
    siot_files_init(&r.files);
    siot_access_init(&r.acc);
    siot_vbuf_init(&r.scratch);
    r.ranks = calloc(t->nranks ? t->nranks : 1, sizeof *r.ranks);
    r.sites = calloc((size_t)t->nsites + 1, sizeof *r.sites);
    if (siot_origins_init(&r.origins, t) != 0 || !r.ranks || !r.sites) {
        report_free(&r);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    siot_handlers inner = {0};
    inner.user = &r;
    inner.event = on_event;
    siot_handlers h = siot_origins_wrap(&r.origins, &inner);
    if (siot_analyze(t, &h, err, errlen) != 0) {
        report_free(&r);
        return -1;
    }
    r.own_times = own_rank_times(&r);
    r.acc.on_event = siot_report_heat_event;
    r.acc.user = &r.heat;
    if (siot_report_heat_init(&r.heat, t) != 0 ||
        siot_access_run(t, &r.acc, opt->walk_events ? opt->walk_events : SIOT_ACCESS_MAX_EVENTS, err, errlen) != 0) {
        if (!r.heat.v)
            snprintf(err, errlen, "out of memory");
        report_free(&r);
        return -1;
    }
    if (r.oom || r.files.oom || r.origins.oom || r.scratch.oom || siot_files_summarise(&r.files) != 0) {
        report_free(&r);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    page_head(o, &r, path);
    findings_section(o, t);
    layers_section(o, &r);
    ranks_and_sizes(o, &r);
    file_table(o, &r.files);
    siot_report_top_files(o, &r.files);
    siot_report_access(o, &r.acc);
    fprintf(o, "<h2>Timeline</h2>\n");
    int rc = timeline(o, &r, opt, err, errlen);
    if (rc == 0)
        siot_report_heat(o, &r.heat, &r.acc);
    if (rc == 0)
        site_table(o, &r);
    char c[64];
    fprintf(o, "<p style=\"color:#888\">Made by siot report from a trace of siotrace ");
    siot_report_esc(o, t->version ? t->version : "?");
    fprintf(o, ": %s nodes in its compressed form.</p>\n</body></html>\n", siot_fmt_count(c, sizeof c, (double)t->nnodes));
    report_free(&r);
    if (rc == 0 && (ferror(o) || fflush(o) != 0)) {
        snprintf(err, errlen, "write error");
        rc = -1;
    }
    return rc;
}
