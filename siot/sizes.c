/* sizes: `siot dump --sizes`, where a trace's bytes go (siot/sizes.h). */
#include "siot/sizes.h"

#include "core/ranksum.h"

#include <inttypes.h>
#include <string.h>

#include "core/expr.h"
#include "core/format.h"
#include "core/pack.h"
#include "core/ranksum.h"

#define TOP_EVENTS 10
static const char *const META[5] = {"thread", "parent", "ret", "errno", "bytes"};
#define NTAGS (SIOT_X_RDIG + 1)

static const char *const TAG_NAMES[NTAGS] = {"none", "constant", "progression", "sequence of integers",
                                              "sequence", "per-rank table", "string pattern", "array",
                                              "run table", "approximate count", "by residue",
                                              "range", "-", "by quotient", "-", "by digits"};

typedef struct bigevent {
    const siot_node *n;
    uint64_t bytes;
    uint32_t depth;      /* loops around it */
    uint64_t iterations; /* product of the constant counts around it */
    int worst;           /* the slot that takes most: -2 histograms, -10-i META[i], else an argument */
    uint64_t worst_bytes;
    uint8_t worst_tag;
} bigevent;

typedef struct sizes {
    const siot_trace *t;
    siot_vbuf scratch;
    uint64_t by_tag[NTAGS], n_by_tag[NTAGS];
    uint64_t hist_part[SIOT_HIST_PARTS];
    uint64_t hist_bytes, nhist, moment_bytes, loop_bytes, nloops, event_bytes, nevents;
    bigevent top[TOP_EVENTS];
    uint32_t ntop;
} sizes;

static uint64_t slot(sizes *z, const siot_expr *x, uint64_t *worst, int *which, int id, uint8_t *tag)
{
    if (!x)
        return 0;
    uint64_t b = siot_expr_size(x, &z->scratch);
    unsigned k = x->tag < NTAGS ? x->tag : 0;
    z->by_tag[k] += b;
    z->n_by_tag[k]++;
    if (b > *worst) {
        *worst = b;
        *which = id;
        *tag = (uint8_t)k;
    }
    return b;
}

static void keep_big(sizes *z, const bigevent *b)
{
    uint32_t at = z->ntop < TOP_EVENTS ? z->ntop++ : TOP_EVENTS - 1;
    if (at == TOP_EVENTS - 1 && z->top[at].bytes >= b->bytes && z->ntop == TOP_EVENTS)
        return;
    while (at > 0 && z->top[at - 1].bytes < b->bytes) {
        z->top[at] = z->top[at - 1];
        at--;
    }
    z->top[at] = *b;
}

static void on_event(sizes *z, const siot_node *n, uint32_t depth, uint64_t iterations)
{
    const siot_event *e = &n->u.ev;
    bigevent b = {n, siot_node_own_size(n, z->t->nranks, iterations, &z->scratch), depth, iterations, -3, 0, 0};
    z->event_bytes += b.bytes;
    z->nevents++;
    const siot_expr *meta[5] = {e->thread, e->parent, e->ret, e->err, e->bytes};
    for (int i = 0; i < 5; i++)
        slot(z, meta[i], &b.worst_bytes, &b.worst, -10 - i, &b.worst_tag);
    for (uint32_t i = 0; i < e->nargs; i++)
        slot(z, e->args[i], &b.worst_bytes, &b.worst, (int)i, &b.worst_tag);
    uint64_t h = 0;
    z->nhist += 2;
    z->moment_bytes += siot_hist_moments_size(&e->comp) + siot_hist_moments_size(&e->dur);
    const siot_hist *hs[2] = {&e->comp, &e->dur};
    const uint64_t expect[2] = {siot_hist_expect(&n->ranks, iterations), e->comp.count};
    for (int i = 0; i < 2; i++) {
        uint64_t part[SIOT_HIST_PARTS];
        siot_hist_parts(hs[i], expect[i], &z->scratch, part);
        for (int j = 0; j < SIOT_HIST_PARTS; j++)
            z->hist_part[j] += part[j], h += part[j];
    }
    z->hist_bytes += h;
    if (h > b.worst_bytes) {
        b.worst_bytes = h;
        b.worst = -2;
    }
    keep_big(z, &b);
}

static void walk(sizes *z, const siot_node *n, uint32_t depth, uint64_t iterations)
{
    if (n->kind == SIOT_N_EVENT) {
        on_event(z, n, depth, iterations);
        return;
    }
    z->loop_bytes += siot_node_own_size(n, z->t->nranks, iterations, &z->scratch);
    z->nloops++;
    uint64_t inner = siot_loop_iters(iterations, n->u.loop.count);
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        walk(z, n->u.loop.body[i], depth + 1, inner);
}

static void print_big(const sizes *z, FILE *fp)
{
    const siot_trace *t = z->t;
    fprintf(fp, "\nlargest events (bytes, the part that takes most, loops around them):\n");
    for (uint32_t i = 0; i < z->ntop; i++) {
        const bigevent *b = &z->top[i];
        const siot_funcdesc *f = &t->funcs[b->n->u.ev.func];
        char what[160];
        if (b->worst == -2)
            snprintf(what, sizeof what, "its two timing histograms");
        else if (b->worst <= -10 && b->worst > -15)
            snprintf(what, sizeof what, "%s (%s)", META[-10 - b->worst], TAG_NAMES[b->worst_tag]);
        else if (b->worst >= 0 && (uint32_t)b->worst < f->nargs)
            snprintf(what, sizeof what, "%s (%s)", f->argnames[b->worst], TAG_NAMES[b->worst_tag]);
        else
            snprintf(what, sizeof what, "-");
        fprintf(fp, "  %7" PRIu64 "  %-22s @s%-4u %" PRIu64 " B in %s; %u loop(s) deep\n", b->bytes, f->name,
                b->n->u.ev.site, b->worst_bytes, what, b->depth);
    }
}

static int scan_sections(const uint8_t *p, size_t n, uint64_t out[8])
{
    memset(out, 0, 8 * sizeof *out);
    if (n < 12)
        return -1;
    out[0] = 12;
    siot_rd rd;
    siot_rd_init(&rd, p + 12, n - 12);
    while (siot_rd_left(&rd) > 0) {
        size_t before = siot_rd_left(&rd);
        uint8_t tag;
        const uint8_t *payload;
        uint64_t len;
        if (siot_rd_section(&rd, &tag, &payload, &len) == SIOT_SECTION_SHORT)
            return -1;
        out[tag == 8 ? 7 : tag & 7] += before - siot_rd_left(&rd); /* 8: RANKSUM of minor 9 */
    }
    return 0;
}

/* The bytes of each section kind in the file (framing included; a file of
 * several blocks summed by kind): out[tag], out[0] the magic. A packed file
 * (core/pack.h) is measured unpacked. The trace was read from it already,
 * so its framing is sound; -1 when it cannot be read again. */
static int file_sections(const char *path, uint64_t out[8])
{
    siot_vbuf file, raw;
    siot_vbuf_init(&file);
    siot_vbuf_init(&raw);
    FILE *f = fopen(path, "rb");
    int rc = f ? 0 : -1;
    char chunk[65536];
    for (size_t n; rc == 0 && (n = fread(chunk, 1, sizeof chunk, f)) > 0;)
        siot_vbuf_put(&file, chunk, n);
    if (f && (ferror(f) || file.oom))
        rc = -1;
    if (f)
        fclose(f);
    const char *why;
    siot_vbuf *src = &file;
    if (rc == 0 && siot_is_packed(file.data, file.len)) {
        rc = siot_unpack(file.data, file.len, &raw, &why);
        src = &raw;
    }
    if (rc == 0)
        rc = scan_sections(src->data, src->len, out);
    siot_vbuf_free(&file);
    siot_vbuf_free(&raw);
    return rc;
}

int siot_dump_sizes(const siot_trace *t, const char *path, uint64_t file_bytes, FILE *fp)
{
    sizes z;
    memset(&z, 0, sizeof z);
    z.t = t;
    siot_vbuf_init(&z.scratch);
    uint64_t sec[SIOT_NSECTION_SIZES];
    int rc = siot_section_sizes(t, sec);
    for (uint32_t i = 0; rc == 0 && i < t->ntop; i++)
        walk(&z, t->top[i], 0, 1);
    if (rc == 0 && z.scratch.oom)
        rc = -1;
    siot_vbuf_free(&z.scratch);
    if (rc != 0)
        return -1;
    uint64_t total = 0, in[8];
    for (int i = 0; i < SIOT_NSECTION_SIZES; i++)
        total += sec[i];
    fprintf(fp, "sizes of %s: %" PRIu64 " bytes\n", path, file_bytes);
    if (t->unpacked_bytes)
        fprintf(fp, "  packed (SIOT_PACK): %" PRIu64 " bytes unpacked, %.1f%% of that; the sizes below are unpacked\n",
                t->unpacked_bytes, 100.0 * (double)file_bytes / (double)t->unpacked_bytes);
    char form[80];
    if (t->rtsum)
        snprintf(form, sizeof form, "%u extremes a side, summary of %" PRIu64 " ranks", t->rt_keep, siot_rts_nranks(t));
    else
        snprintf(form, sizeof form, "%u ranks", t->nrt);
    /* rank times: the rows (section 6) and the summary (7, or 8 from minor 9) */
    if (file_sections(path, in) == 0)
        fprintf(fp, "  sections: magic %" PRIu64 ", header %" PRIu64 ", functions %" PRIu64 ", call sites %" PRIu64
                    ", rank times %" PRIu64 " (%s), nodes %" PRIu64 ", end %" PRIu64 "\n",
                in[0], in[1], in[2], in[3], in[6] + in[7], form, in[4], in[5]);
    fprintf(fp, "  written again as one block: %" PRIu64 " bytes, of which nodes %" PRIu64 ":\n", total, sec[5]);
    fprintf(fp, "  %" PRIu64 " events %" PRIu64 " B (of which histograms %" PRIu64 " B in %" PRIu64
                ", their means and M2 %" PRIu64 " B), %" PRIu64 " loops %" PRIu64 " B\n",
            z.nevents, z.event_bytes, z.hist_bytes, z.nhist, z.moment_bytes, z.nloops, z.loop_bytes);
    fprintf(fp, "  histograms by part: counts %" PRIu64 ", min and max %" PRIu64 ", the maximum's rank and occurrence %" PRIu64
                ", means and M2 %" PRIu64 ", bin masks and bins %" PRIu64 "\n",
            z.hist_part[0], z.hist_part[1], z.hist_part[2], z.hist_part[3], z.hist_part[4]);
    fprintf(fp, "  values by kind (bytes in count):");
    for (unsigned k = 1; k < NTAGS; k++)
        if (z.n_by_tag[k])
            fprintf(fp, " %s %" PRIu64 " in %" PRIu64 ";", TAG_NAMES[k], z.by_tag[k], z.n_by_tag[k]);
    fprintf(fp, "\n");
    print_big(&z, fp);
    return ferror(fp) ? -1 : 0;
}
