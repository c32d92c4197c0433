/* findings: known I/O problems with their evidence (findings.h). */
#include "siot/findings.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/roles.h"
#include "replay/analyze.h"
#include "replay/json.h"
#include "siot/stats.h"

enum { F_SMALL, F_MISALIGNED, F_IMBALANCE, F_REOPEN, F_SYNC, F_INDEPENDENT, NFIND };

static const struct {
    const char *id, *what;
} FINDING_RULES[NFIND] = {
    [F_SMALL] = {"small-requests", "move under 4 KiB each"},
    [F_MISALIGNED] = {"misaligned-requests", "are not aligned to 4 KiB (offset or size)"},
    [F_IMBALANCE] = {"rank-imbalance", "bytes per rank far from the mean"},
    [F_REOPEN] = {"reopened-file", "opens of the same file"},
    [F_SYNC] = {"sync-in-loop", "syncs"},
    [F_INDEPENDENT] = {"independent-shared", "independent MPI-IO on a file the ranks share"},
};

#define BLOCK 4096
#define MIN_COUNT 100
#define REPEAT 10
#define NFH 64 /* MPI file ids followed for independent-shared */

typedef struct finder {
    const siot_trace *t;
    uint64_t *hits[NFIND];   /* per site + 1: the calls each rule counted there */
    uint64_t own_calls, small_calls, small_bytes, posix_calls, misaligned, *rank_bytes;
    uint64_t indep_calls[NFH];
    uint8_t *indep_ranks[NFH]; /* nranks flags per file id */
    siot_vbuf scratch;
    int oom;
} finder;

static void hit(finder *f, int rule, uint32_t site, uint64_t n)
{
    if (site <= f->t->nsites)
        f->hits[rule][site] += n;
}

static int is_data(unsigned cls)
{
    unsigned b = SIOT_CLASS_BASE(cls);
    return b == SIOT_CLASS_read || b == SIOT_CLASS_write;
}

/* The program's own data calls: sizes and bytes per rank. */
static void own_call(finder *f, const siot_agg_event *e, uint64_t n)
{
    uint32_t site = e->node->u.ev.site;
    f->own_calls += n;
    if (e->bytes >= 0 && e->bytes < BLOCK) {
        f->small_calls += n;
        f->small_bytes += n * (uint64_t)e->bytes;
        hit(f, F_SMALL, site, n);
    }
    for (uint32_t i = 0; i < e->nranks; i++)
        if ((uint32_t)e->ranks[i] < f->t->nranks && e->bytes > 0)
            f->rank_bytes[e->ranks[i]] += e->calls * (uint64_t)e->bytes;
    hit(f, F_IMBALANCE, site, n); /* the sites that move the bytes */
}

/* A POSIX data call is aligned when its size and its (first) offset are
 * multiples of the block. */
static void posix_call(finder *f, const siot_agg_event *e, uint64_t n)
{
    int k = siot_arg_index(e->fn, SIOT_ROLE_offset);
    int64_t off = k >= 0 ? siot_eval_int(e->node->u.ev.args[k], &e->ctx, 0) : 0;
    f->posix_calls += n;
    if (e->bytes % BLOCK || off % BLOCK) {
        f->misaligned += n;
        hit(f, F_MISALIGNED, e->node->u.ev.site, n);
    }
}

static void mpiio_independent(finder *f, const siot_agg_event *e, uint64_t n)
{
    int k = siot_arg_index(e->fn, SIOT_ROLE_file);
    int64_t fh = k >= 0 ? siot_eval_int(e->node->u.ev.args[k], &e->ctx, -1) : -1;
    if (fh < 0 || fh >= NFH)
        return;
    if (!f->indep_ranks[fh] && !(f->indep_ranks[fh] = calloc(f->t->nranks ? f->t->nranks : 1, 1))) {
        f->oom = 1;
        return;
    }
    f->indep_calls[fh] += n;
    for (uint32_t i = 0; i < e->nranks; i++)
        if ((uint32_t)e->ranks[i] < f->t->nranks)
            f->indep_ranks[fh][e->ranks[i]] = 1;
    hit(f, F_INDEPENDENT, e->node->u.ev.site, n);
}

static void on_event(void *user, const siot_agg_event *e)
{
    finder *f = user;
    unsigned cls = e->fn->cls, base = SIOT_CLASS_BASE(cls);
    uint64_t n = e->calls * e->nranks;
    uint32_t site = e->node->u.ev.site;
    int outermost = siot_eval_int(e->node->u.ev.parent, &e->ctx, 0) == 0;
    if (is_data(cls) && outermost)
        own_call(f, e, n);
    if (is_data(cls) && e->fn->layer == SIOT_LAYER_posix)
        posix_call(f, e, n);
    if (is_data(cls) && e->fn->layer == SIOT_LAYER_mpiio && !(cls & SIOT_CLS_COLL))
        mpiio_independent(f, e, n);
    /* a loop multiplied, not walked, keeps the same name: the analyzer walks
     * a loop whose opens change name (analyze.h) */
    if (base == SIOT_CLASS_open && e->calls >= REPEAT && e->fn->layer != SIOT_LAYER_mpi)
        hit(f, F_REOPEN, site, n);
    if (base == SIOT_CLASS_sync && e->calls >= REPEAT)
        hit(f, F_SYNC, site, n);
}

/* ------------------------------------------------------------ verdicts */

typedef struct verdict {
    int rule;
    const char *severity;
    char summary[320];
    char evidence[320]; /* JSON members */
} verdict;

static uint64_t rule_total(const finder *f, int rule)
{
    uint64_t n = 0;
    for (uint32_t s = 0; s <= f->t->nsites; s++)
        n += f->hits[rule][s];
    return n;
}

static int share_rule(verdict *v, int rule, uint64_t part, uint64_t all, const char *of)
{
    if (part < MIN_COUNT || 2 * part < all)
        return 0;
    v->rule = rule;
    v->severity = 10 * part >= 9 * all ? "high" : "medium";
    snprintf(v->summary, sizeof v->summary, "%" PRIu64 " of the %" PRIu64 " %s (%.0f%%) %s", part, all, of,
             100.0 * (double)part / (double)all, FINDING_RULES[rule].what);
    snprintf(v->evidence, sizeof v->evidence, "\"count\":%" PRIu64 ",\"of\":%" PRIu64 ",\"share\":%.4f", part, all,
             (double)part / (double)all);
    return 1;
}

static int imbalance(const finder *f, verdict *v)
{
    uint32_t P = f->t->nranks, busiest = 0;
    uint64_t total = 0;
    for (uint32_t r = 0; r < P; r++) {
        total += f->rank_bytes[r];
        if (f->rank_bytes[r] > f->rank_bytes[busiest])
            busiest = r;
    }
    double mean = P ? (double)total / P : 0;
    if (P < 2 || total < BLOCK || (double)f->rank_bytes[busiest] < 2 * mean)
        return 0;
    v->rule = F_IMBALANCE;
    v->severity = (double)f->rank_bytes[busiest] >= 4 * mean ? "high" : "medium";
    snprintf(v->summary, sizeof v->summary,
             "rank %u moves %" PRIu64 " bytes, %.1f times the mean of %.0f over %u ranks (the program's own data calls)",
             busiest, f->rank_bytes[busiest], f->rank_bytes[busiest] / mean, mean, P);
    snprintf(v->evidence, sizeof v->evidence, "\"busiest_rank\":%u,\"busiest_bytes\":%" PRIu64 ",\"mean_bytes\":%.1f",
             busiest, f->rank_bytes[busiest], mean);
    return 1;
}

static int repeat_rule(const finder *f, verdict *v, int rule)
{
    const char *what = FINDING_RULES[rule].what;
    uint64_t n = rule_total(f, rule);
    if (!n)
        return 0;
    v->rule = rule;
    v->severity = "medium";
    snprintf(v->summary, sizeof v->summary, "%" PRIu64 " %s at call sites that repeat them %d times or more per rank",
             n, what, REPEAT);
    snprintf(v->evidence, sizeof v->evidence, "\"count\":%" PRIu64 ",\"repeat_at_least\":%d", n, REPEAT);
    return 1;
}

static int independent(const finder *f, verdict *v)
{
    for (int fh = 0; fh < NFH; fh++) {
        uint32_t ranks = 0;
        for (uint32_t r = 0; f->indep_ranks[fh] && r < f->t->nranks; r++)
            ranks += f->indep_ranks[fh][r];
        if (ranks < 2 || f->indep_calls[fh] < 8)
            continue;
        v->rule = F_INDEPENDENT;
        v->severity = "medium";
        snprintf(v->summary, sizeof v->summary,
                 "%" PRIu64 " independent MPI-IO data calls from %u ranks on MPI file %d: collective calls could aggregate them",
                 f->indep_calls[fh], ranks, fh);
        snprintf(v->evidence, sizeof v->evidence, "\"count\":%" PRIu64 ",\"ranks\":%u,\"file\":%d", f->indep_calls[fh],
                 ranks, fh);
        return 1;
    }
    return 0;
}

static int verdicts(const finder *f, verdict *v)
{
    int n = 0;
    n += share_rule(&v[n], F_SMALL, f->small_calls, f->own_calls, "data calls the program made");
    n += share_rule(&v[n], F_MISALIGNED, f->misaligned, f->posix_calls, "POSIX data calls");
    n += imbalance(f, &v[n]);
    n += repeat_rule(f, &v[n], F_REOPEN);
    n += repeat_rule(f, &v[n], F_SYNC);
    n += independent(f, &v[n]);
    return n;
}

/* ------------------------------------------------------------ output */

typedef struct site_row {
    uint32_t site;
    uint64_t calls;
} site_row;

static int by_calls(const void *a, const void *b)
{
    const site_row *x = a, *y = b;
    return x->calls != y->calls ? (x->calls < y->calls ? 1 : -1) : (x->site > y->site) - (x->site < y->site);
}

/* The rule's busiest sites (at most 5), resolved. Returns how many. */
static uint32_t rule_sites(const finder *f, int rule, siot_siteloc *loc, uint64_t *calls)
{
    site_row rows[5];
    uint32_t n = 0;
    for (uint32_t s = 1; s <= f->t->nsites; s++) {
        if (!f->hits[rule][s])
            continue;
        site_row r = {s, f->hits[rule][s]};
        if (n < 5)
            rows[n++] = r;
        else if (by_calls(&r, &rows[4]) < 0)
            rows[4] = r;
        qsort(rows, n, sizeof *rows, by_calls);
    }
    for (uint32_t i = 0; i < n; i++) {
        loc[i].site = rows[i].site;
        calls[i] = rows[i].calls;
    }
    siot_resolve_sites(f->t, loc, n);
    return n;
}

static void print_text(const finder *f, const verdict *v, int n, const char *path, FILE *o)
{
    fprintf(o, "siot findings %s\n  %u ranks: %d finding%s\n", path, f->t->nranks, n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        fprintf(o, "\n[%s] %s: %s\n", v[i].severity, FINDING_RULES[v[i].rule].id, v[i].summary);
        siot_siteloc loc[5];
        uint64_t calls[5];
        uint32_t ns = rule_sites(f, v[i].rule, loc, calls);
        for (uint32_t k = 0; k < ns; k++)
            fprintf(o, "    s%-6u %10" PRIu64 "  %s\n", loc[k].site, calls[k], loc[k].where);
    }
}

static void print_json(const finder *f, const verdict *v, int n, FILE *o)
{
    fprintf(o, "{\"nranks\":%u,\"findings\":[", f->t->nranks);
    for (int i = 0; i < n; i++) {
        fprintf(o, "%s{\"id\":\"%s\",\"severity\":\"%s\",\"summary\":", i ? "," : "", FINDING_RULES[v[i].rule].id,
                v[i].severity);
        siot_vbuf b;
        siot_vbuf_init(&b);
        siot_json_str(&b, v[i].summary, strlen(v[i].summary));
        fwrite(b.data, 1, b.len, o);
        fprintf(o, ",\"evidence\":{%s},\"sites\":[", v[i].evidence);
        siot_siteloc loc[5];
        uint64_t calls[5];
        uint32_t ns = rule_sites(f, v[i].rule, loc, calls);
        for (uint32_t k = 0; k < ns; k++) {
            b.len = 0;
            siot_json_str(&b, loc[k].where, strlen(loc[k].where));
            fprintf(o, "%s{\"site\":%u,\"calls\":%" PRIu64 ",\"location\":%.*s}", k ? "," : "", loc[k].site, calls[k],
                    (int)b.len, (const char *)b.data);
        }
        siot_vbuf_free(&b);
        fprintf(o, "]}");
    }
    fprintf(o, "]}\n");
}

static void finder_free(finder *f)
{
    for (int r = 0; r < NFIND; r++)
        free(f->hits[r]);
    for (int fh = 0; fh < NFH; fh++)
        free(f->indep_ranks[fh]);
    free(f->rank_bytes);
    siot_vbuf_free(&f->scratch);
}

int siot_findings(const siot_trace *t, const char *path, int json, FILE *out, char *err, size_t errlen)
{
    finder f;
    memset(&f, 0, sizeof f);
    f.t = t;
    int ok = (f.rank_bytes = calloc(t->nranks ? t->nranks : 1, sizeof *f.rank_bytes)) != NULL;
    for (int r = 0; ok && r < NFIND; r++)
        ok = (f.hits[r] = calloc(t->nsites + 1, sizeof *f.hits[r])) != NULL;
    siot_handlers h = {.user = &f, .event = on_event};
    int rc = -1;
    if (!ok)
        snprintf(err, errlen, "out of memory");
    else if (siot_analyze(t, &h, err, errlen) == 0 && !f.oom) {
        verdict v[NFIND];
        int n = verdicts(&f, v);
        if (json)
            print_json(&f, v, n, out);
        else
            print_text(&f, v, n, path, out);
        rc = 0;
    } else if (f.oom) {
        snprintf(err, errlen, "out of memory");
    }
    finder_free(&f);
    return rc;
}
