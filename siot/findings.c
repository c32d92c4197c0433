/* findings: known I/O problems with their evidence (findings.h). */
#include "siot/findings.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/hist.h"
#include "core/ranksum.h"
#include "core/roles.h"
#include "replay/analyze.h"
#include "replay/json.h"
#include "siot/measures.h"
#include "replay/files.h"
#include "siot/rankstats.h"
#include "siot/origin.h"
#include "siot/stats.h"
#include "siot/access.h"
#include "siot/finder.h"


static const struct {
    const char *id, *what;
} FINDING_RULES[NFIND] = {
    [F_SMALL] = {"small-requests", "move under 4 KiB each"},
    [F_MISALIGNED] = {"misaligned-requests", "are not aligned to 4 KiB (offset or size)"},
    [F_IMBALANCE] = {"rank-imbalance", "bytes per rank far from the mean"},
    [F_REOPEN] = {"reopened-file", "opens of the same file"},
    [F_SYNC] = {"sync-in-loop", "syncs"},
    [F_INDEPENDENT] = {"independent-shared", "independent MPI-IO on a file the ranks share"},
    [F_METADATA] = {"metadata-heavy", "metadata calls"},
    [F_MANYFILES] = {"many-files-per-rank", "opens"},
    [F_RANDOM] = {"random-access", "calls that go backwards"},
    [F_READBACK] = {"read-after-write", "reads of data the rank wrote"},
    [F_WAIT] = {"rank-wait", "time ranks wait in MPI for the slowest"},
    [F_RMW] = {"read-modify-write", "bytes read and written back beneath MPI-IO writes"},
    [F_H5FLUSH] = {"hdf5-metadata-flush", "metadata writes of HDF5 flushes and closes"},
    [F_COLLBUF] = {"small-collective-buffer", "POSIX calls per collective MPI-IO call"},
    [F_STRAGGLER] = {"collective-straggler", "time ranks wait in collective MPI-IO for the last"},
    [F_OPENLOOP] = {"open-in-loop", "opens and closes inside a loop"},
    [F_STDIO] = {"stdio-bulk", "bytes through stdio"},
    [F_REDUNDANT] = {"redundant-reads", "bytes read by several ranks alike"},
    [F_FPP] = {"file-per-process", "files each used by one rank"},
};

#define BLOCK SIOT_FS_BLOCK
#define MIN_COUNT 100
#define REPEAT 10
#define INDEP_MIN 8 /* independent-shared: calls on one file */
#define META_RATIO 2    /* metadata-heavy: more than 2 metadata calls per data call */
#define META_HIGH_SHARE 0.5 /* its severity: high from half the file-system time, */
#define META_LOW_SHARE 0.1  /* low under a tenth */
#define MANY_FILES 64   /* many-files-per-rank: more than 64 distinct files on a rank */
#define SAMPLES 1024    /* random-access: iterations of a multiplied loop evaluated */

/* Counts n calls of the record being handled for a rule, at its origin. */
void siot_finder_hit(finder *f, int rule, uint64_t n)
{
    uint32_t id = f->origins.current;
    if (id >= f->caphits) {
        uint32_t cap = f->caphits ? f->caphits : 256;
        while (cap <= id)
            cap *= 2;
        uint64_t *h = realloc(f->hits, (size_t)cap * NFIND * sizeof *h);
        if (!h) {
            f->oom = 1;
            return;
        }
        memset(h + (size_t)f->caphits * NFIND, 0, (size_t)(cap - f->caphits) * NFIND * sizeof *h);
        f->hits = h;
        f->caphits = cap;
    }
    f->hits[(size_t)id * NFIND + rule] += n;
}

/* The same for a per-file rule, on file x. */
static void file_hit(finder *f, int rule, const char *x, uint64_t n)
{
    filehit *last = f->nfhits ? &f->fhits[f->nfhits - 1] : NULL;
    if (last && last->rule == rule && last->file == x && last->origin == f->origins.current) {
        last->n += n;
        return;
    }
    if (f->nfhits == f->capfhits) {
        uint32_t cap = f->capfhits ? 2 * f->capfhits : 64;
        filehit *v = realloc(f->fhits, cap * sizeof *v);
        if (!v) {
            f->oom = 1;
            return;
        }
        f->fhits = v;
        f->capfhits = cap;
    }
    f->fhits[f->nfhits++] = (filehit){rule, x, f->origins.current, n};
}

static int is_data(unsigned cls)
{
    unsigned b = SIOT_CLASS_BASE(cls);
    return b == SIOT_CLASS_read || b == SIOT_CLASS_write;
}

/* The program's own data calls: sizes and bytes per rank. */
static void own_call(finder *f, const siot_agg_event *e, uint64_t n)
{
    f->own_calls += n;
    if (e->bytes >= 0 && e->bytes < BLOCK) {
        f->small_calls += n;
        f->small_bytes += n * (uint64_t)e->bytes;
        f->small_ns += siot_finder_rec_ns(e);
        siot_finder_hit(f, F_SMALL, n);
    }
    double each = e->node->u.ev.dur.mean * (double)e->calls;
    for (uint32_t i = 0; i < e->nranks; i++)
        if ((uint32_t)e->ranks[i] < f->t->nranks && e->bytes > 0) {
            f->rank_bytes[e->ranks[i]] += e->calls * (uint64_t)e->bytes;
            f->rank_ns[e->ranks[i]] += each;
        }
    siot_finder_hit(f, F_IMBALANCE, n); /* the sites that move the bytes */
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
        f->misaligned_ns += siot_finder_rec_ns(e);
        siot_finder_hit(f, F_MISALIGNED, n);
    }
}

/* The classes that create, name, position, flush or describe files rather
 * than move their data (core/roles.h). */
static int is_meta(unsigned cls)
{
    unsigned b = SIOT_CLASS_BASE(cls);
    return b == SIOT_CLASS_open || b == SIOT_CLASS_close || b == SIOT_CLASS_meta || b == SIOT_CLASS_seek ||
           b == SIOT_CLASS_sync || b == SIOT_CLASS_dir;
}

static uint64_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

static int ft_grow(finder *f)
{
    uint32_t cap = f->capft ? 2 * f->capft : 64;
    ftrack *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (uint32_t i = 0; i < f->capft; i++) {
        if (!f->ft[i].name)
            continue;
        uint32_t j = (uint32_t)ptr_hash(f->ft[i].name) & (cap - 1);
        while (t[j].name)
            j = (j + 1) & (cap - 1);
        t[j] = f->ft[i];
    }
    free(f->ft);
    f->ft = t;
    f->capft = cap;
    return 0;
}

/* The file's entry (names from siot_files are stable, so the pointer is
 * the key), or NULL when out of memory. */
static ftrack *track(finder *f, const char *name)
{
    if (2 * (f->nft + 1) > f->capft && ft_grow(f)) {
        f->oom = 1;
        return NULL;
    }
    uint32_t j = (uint32_t)ptr_hash(name) & (f->capft - 1);
    while (f->ft[j].name && f->ft[j].name != name)
        j = (j + 1) & (f->capft - 1);
    ftrack *x = &f->ft[j];
    if (!x->name) {
        x->name = name;
        f->nft++;
    }
    return x;
}

/* Does a call at off start below the end of one of bytes at prev? (No
 * sum is formed: offsets from a damaged trace may be anything.) */
static int before_end(int64_t off, int64_t prev, int64_t bytes)
{
    return off < prev || (uint64_t)off - (uint64_t)prev < (uint64_t)bytes;
}

/* The calls of the record (per rank) whose offset is below the previous
 * call's end, i.e. not sequential. In a multiplied loop the previous call
 * is the same site's in the previous iteration of the innermost multiplied
 * loop: its offsets are evaluated for up to SAMPLES iterations (affine
 * progressions and run tables alike) and the share found is applied to
 * all of them; the first call of each run of the loop is not judged.
 * Elsewhere (walked loops, straight code) the previous call is the site's
 * previous record, when that was for the same first rank. */
static uint64_t backward_calls(finder *f, const siot_agg_event *e, int koff)
{
    const siot_expr *x = e->node->u.ev.args[koff];
    int64_t bytes = e->bytes > 0 ? e->bytes : 0;
    uint32_t site = e->node->u.ev.site, L = 0;
    while (L < e->ctx.depth && !(e->summed >> L & 1))
        L++;
    if (L >= e->ctx.depth || L >= SIOT_MAX_NEST || e->counts[L] < 2) {
        int64_t off = siot_eval_int(x, &e->ctx, 0);
        prevcall *p = site <= f->t->nsites ? &f->prev[site] : NULL;
        uint64_t back = p && p->rank == e->ranks[0] && before_end(off, p->off, p->bytes) ? e->calls : 0;
        if (p)
            *p = (prevcall){e->ranks[0], off, bytes};
        return back;
    }
    uint64_t it[SIOT_MAX_NEST], c = e->counts[L], n = c < SAMPLES ? c : SAMPLES, back = 0;
    memcpy(it, e->ctx.iter, e->ctx.depth * sizeof *it);
    siot_ctx ctx = e->ctx;
    ctx.iter = it;
    it[L] = 0;
    int64_t prev = siot_eval_int(x, &ctx, 0);
    for (uint64_t i = 1; i < n; i++) {
        it[L] = i;
        int64_t off = siot_eval_int(x, &ctx, 0);
        back += before_end(off, prev, bytes);
        prev = off;
    }
    if (n == c)
        return e->calls / c * back;
    return (uint64_t)((double)e->calls * (double)(c - 1) / (double)c * (double)back / (double)(n - 1) + 0.5);
}

/* An independent MPI-IO data call on a file (by its name, whichever handle
 * id the library gave it) on one rank. */
enum { RANK_WROTE = 1, RANK_INDEP = 2 };

static int rank_did(const finder *f, const ftrack *x, int32_t rank, uint8_t what)
{
    return rp_hmap_find(&f->rank_file, rank, what, (int64_t)(uintptr_t)x->name) != NULL;
}

/* Marks that rank did `what` on x's file; returns 1 the first time, 0
 * after (or without memory: f->oom). */
static int rank_does(finder *f, const ftrack *x, int32_t rank, uint8_t what)
{
    if (rank_did(f, x, rank, what))
        return 0;
    if (!rp_hmap_set(&f->rank_file, rank, what, (int64_t)(uintptr_t)x->name, 0)) {
        f->oom = 1;
        return 0;
    }
    return 1;
}

static void independent_call(finder *f, ftrack *x, int32_t rank, uint64_t calls, double ns)
{
    x->indep_ranks += (uint32_t)rank_does(f, x, rank, RANK_INDEP);
    if (f->oom)
        return;
    x->indep += calls;
    x->indep_ns += ns;
    file_hit(f, F_INDEPENDENT, x->name, calls);
}

/* Data calls per file and rank: independent MPI-IO ones, whoever made
 * them (independent-shared); the program's own (own): positioned calls that
 * go backwards (random-access), reads after the rank's first write to the
 * file in trace order (read-after-write). */
static void file_call(finder *f, const siot_agg_event *e, int own)
{
    int kh = siot_file_handle_arg(e->fn), koff = siot_arg_index(e->fn, SIOT_ROLE_offset);
    if (kh < 0)
        return;
    int indep = e->fn->layer == SIOT_LAYER_mpiio && !(e->fn->cls & SIOT_CLS_COLL);
    if (!own && !indep)
        return;
    unsigned base = SIOT_CLASS_BASE(e->fn->cls);
    uint64_t back = own && koff >= 0 ? backward_calls(f, e, koff) : 0;
    uint64_t bytes = e->calls * (uint64_t)(e->bytes > 0 ? e->bytes : 0);
    double ns = e->node->u.ev.dur.mean * (double)e->calls; /* one rank's */
    for (uint32_t i = 0; i < e->nranks && !f->oom; i++) {
        siot_ctx c = e->ctx;
        c.rank = e->ranks[i];
        int64_t id = siot_eval_int(e->node->u.ev.args[kh], &c, -1);
        const char *name = siot_files_handle_file(&f->files, e->ranks[i], e->fn->argroles[kh], id);
        ftrack *x = name && (uint32_t)e->ranks[i] < f->t->nranks ? track(f, name) : NULL;
        if (!x)
            continue;
        if (indep)
            independent_call(f, x, e->ranks[i], e->calls, ns);
        if (!own)
            continue;
        if (koff >= 0) {
            x->calls += e->calls;
            x->backward += back;
            x->pos_ns += ns;
            file_hit(f, F_RANDOM, x->name, back);
        }
        if (base == SIOT_CLASS_write)
            rank_does(f, x, e->ranks[i], RANK_WROTE);
        else if (rank_did(f, x, e->ranks[i], RANK_WROTE)) {
            x->readback += bytes;
            f->readback_ns += ns;
            siot_finder_hit(f, F_READBACK, e->calls);
        }
    }
}

/* A node's time: its histogram covers all its executions, so it is added
 * on the node's first record only. */
static double node_ns(const siot_agg_event *e)
{
    return e->first_visit ? e->node->u.ev.dur.mean * (double)e->node->u.ev.dur.count : 0;
}

double siot_finder_rec_ns(const siot_agg_event *e)
{
    return e->node->u.ev.dur.mean * (double)e->calls * (double)e->nranks;
}

/* Metadata calls that reach the file system (POSIX and stdio, the
 * libraries' calls included: HDF5's H5Sclose is a "close" that touches no
 * file, and MPI-IO's opens are counted in the POSIX calls they make), with
 * their time. */
static void meta_call(finder *f, const siot_agg_event *e, uint64_t n)
{
    f->meta_calls += n;
    siot_finder_hit(f, F_METADATA, n);
    f->meta_ns += node_ns(e);
}

static void on_event(void *user, const siot_agg_event *e)
{
    finder *f = user;
    siot_files_event(&f->files, e); /* first: an open names its handle */
    unsigned cls = e->fn->cls, base = SIOT_CLASS_BASE(cls);
    uint64_t n = e->calls * e->nranks;
    int outermost = siot_eval_int(e->node->u.ev.parent, &e->ctx, 0) == 0;
    if (is_data(cls) && outermost)
        own_call(f, e, n);
    if (is_data(cls))
        file_call(f, e, outermost);
    int fs_layer = e->fn->layer == SIOT_LAYER_posix || e->fn->layer == SIOT_LAYER_stdio;
    if (is_meta(cls) && fs_layer)
        meta_call(f, e, n);
    if (is_data(cls) && fs_layer) {
        f->fs_data_calls += n;
        f->fs_data_ns += node_ns(e);
    }
    if (base == SIOT_CLASS_open && outermost && e->fn->layer != SIOT_LAYER_mpi)
        siot_finder_hit(f, F_MANYFILES, n); /* the program's opens */
    if (is_data(cls) && e->fn->layer == SIOT_LAYER_posix)
        posix_call(f, e, n);
    /* a loop multiplied, not walked, keeps the same name: the analyzer walks
     * a loop whose opens change name (analyze.h) */
    if (base == SIOT_CLASS_open && e->calls >= REPEAT && e->fn->layer != SIOT_LAYER_mpi) {
        siot_finder_hit(f, F_REOPEN, n);
        f->reopen_ns += siot_finder_rec_ns(e);
    }
    if (base == SIOT_CLASS_sync && e->calls >= REPEAT) {
        siot_finder_hit(f, F_SYNC, n);
        f->sync_ns += siot_finder_rec_ns(e);
    }
    siot_findmore_event(f, e, outermost);
}

/* ------------------------------------------------------------ verdicts */


static uint64_t rule_total(const finder *f, int rule)
{
    uint64_t n = 0;
    for (uint32_t id = 0; id < f->caphits; id++)
        n += f->hits[(size_t)id * NFIND + rule];
    return n;
}

/* A file's entry, or NULL. */
static const ftrack *find_track(const finder *f, const char *name)
{
    if (!f->capft)
        return NULL;
    uint32_t j = (uint32_t)ptr_hash(name) & (f->capft - 1);
    while (f->ft[j].name && f->ft[j].name != name)
        j = (j + 1) & (f->capft - 1);
    return f->ft[j].name ? &f->ft[j] : NULL;
}

/* Does a per-file rule fire on the file? */
static int file_fires(const finder *f, int rule, const ftrack *x)
{
    if (rule == F_INDEPENDENT)
        return x->indep >= INDEP_MIN && x->indep_ranks >= 2;
    return x->calls >= MIN_COUNT && 2 * x->backward > x->calls; /* F_RANDOM */
}

/* A JSON string of a file name, cut to 400 bytes, into out (of n). */
static void json_name_into(char *out, size_t n, const char *name)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    size_t len = strlen(name);
    siot_json_str(&b, name, len < 400 ? len : 400);
    snprintf(out, n, "%.*s", b.oom ? 2 : (int)b.len, b.oom ? "\"\"" : (const char *)b.data);
    siot_vbuf_free(&b);
}

static int share_rule(verdict *v, int rule, uint64_t part, uint64_t all, const char *of, double ns)
{
    if (part < MIN_COUNT || 2 * part < all)
        return 0;
    v->rule = rule;
    v->seconds = ns * 1e-9;
    snprintf(v->remedy, sizeof v->remedy, "%s",
             rule == F_SMALL ? "gather the small requests into large ones (a buffer of 1 MiB or more per call), or "
                               "let collective MPI-IO calls (MPI_File_write_at_all, read_at_all) aggregate them"
                             : "align offsets and sizes to the file-system block (4 KiB, or the stripe size): "
                               "H5Pset_alignment(fapl, 0, 4096) for HDF5, the striping_unit hint for MPI-IO, "
                               "records padded to whole blocks");
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
    v->seconds = f->rank_ns[busiest] * (1 - mean / (double)f->rank_bytes[busiest]) * 1e-9;
    snprintf(v->remedy, sizeof v->remedy,
             "spread the I/O over the ranks (each writes its own part, e.g. MPI_File_write_at_all) instead of "
             "funnelling it through rank %u",
             busiest);
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
    v->seconds = (rule == F_REOPEN ? f->reopen_ns : f->sync_ns) * 1e-9;
    snprintf(v->remedy, sizeof v->remedy, "%s",
             rule == F_REOPEN ? "open the file once before the loop and keep the handle"
                              : "sync once after the loop or at checkpoints, not in every iteration");
    snprintf(v->summary, sizeof v->summary, "%" PRIu64 " %s at call sites that repeat them %d times or more per rank",
             n, what, REPEAT);
    snprintf(v->evidence, sizeof v->evidence, "\"count\":%" PRIu64 ",\"repeat_at_least\":%d", n, REPEAT);
    return 1;
}

/* Per file (by name: an MPI file handle id is reused for the next file
 * opened), independent calls from 2 ranks or more, INDEP_MIN or more. */
static int independent(const finder *f, verdict *v)
{
    uint64_t calls = 0;
    uint32_t files = 0;
    double ns = 0;
    const ftrack *worst = NULL;
    for (uint32_t i = 0; i < f->capft; i++) {
        const ftrack *x = &f->ft[i];
        if (!x->name || !file_fires(f, F_INDEPENDENT, x))
            continue;
        files++;
        calls += x->indep;
        ns += x->indep_ns;
        if (!worst || x->indep > worst->indep || (x->indep == worst->indep && strcmp(x->name, worst->name) < 0))
            worst = x;
    }
    if (!files)
        return 0;
    uint32_t ranks = worst->indep_ranks;
    char name[900];
    json_name_into(name, sizeof name, worst->name);
    v->rule = F_INDEPENDENT;
    v->severity = "medium";
    v->seconds = ns * 1e-9;
    snprintf(v->remedy, sizeof v->remedy,
             "use the collective calls so that MPI-IO aggregates the requests: MPI_File_write_at_all / "
             "MPI_File_read_at_all, H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) for HDF5, the ncmpi_*_all "
             "calls for PnetCDF");
    if (files == 1)
        snprintf(v->summary, sizeof v->summary,
                 "%" PRIu64 " independent MPI-IO data calls from %u ranks on %.300s: collective calls could aggregate them",
                 calls, ranks, worst->name);
    else
        snprintf(v->summary, sizeof v->summary,
                 "%" PRIu64 " independent MPI-IO data calls on %u files each shared by 2 ranks or more (most on "
                 "%.300s: %" PRIu64 " from %u ranks): collective calls could aggregate them",
                 calls, files, worst->name, worst->indep, ranks);
    snprintf(v->evidence, sizeof v->evidence,
             "\"count\":%" PRIu64 ",\"ranks\":%u,\"files\":%u,\"file\":%s,\"file_count\":%" PRIu64, calls, ranks,
             files, name, worst->indep);
    return 1;
}

/* How much it matters is the share of the file-system time the metadata
 * calls take, not their number: 3 stats before each 1 MiB write are many
 * calls and about 1% of the time. */
static const char *metadata_severity(double share)
{
    return share >= META_HIGH_SHARE ? "high" : share < META_LOW_SHARE ? "low" : "medium";
}

static int metadata(const finder *f, verdict *v)
{
    uint64_t m = f->meta_calls, d = f->fs_data_calls;
    if (m < MIN_COUNT || m <= META_RATIO * d)
        return 0;
    double ratio = d ? (double)m / (double)d : 0, all = f->meta_ns + f->fs_data_ns;
    double share = all > 0 ? f->meta_ns / all : 1;
    char rs[32] = "null";
    if (d)
        snprintf(rs, sizeof rs, "%.2f", ratio);
    v->rule = F_METADATA;
    v->severity = metadata_severity(share);
    v->seconds = f->meta_ns * 1e-9;
    snprintf(v->remedy, sizeof v->remedy,
             "keep what stat and access said instead of asking again, drop the lseek before each call (pread "
             "and pwrite take the offset), open each file once");
    snprintf(v->summary, sizeof v->summary,
             "%" PRIu64 " metadata calls (open, close, stat, seek, sync, directory) against %" PRIu64
             " data calls (%s per data call), %.6f s in them, %.0f%% of the file-system time",
             m, d, rs, f->meta_ns * 1e-9, share * 100);
    snprintf(v->evidence, sizeof v->evidence,
             "\"metadata_calls\":%" PRIu64 ",\"data_calls\":%" PRIu64 ",\"ratio\":%s,\"metadata_s\":%.9f,"
             "\"data_s\":%.9f,\"metadata_share\":%.4f",
             m, d, rs, f->meta_ns * 1e-9, f->fs_data_ns * 1e-9, share);
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const siot_filerow *const *)a)->name, (*(const siot_filerow *const *)b)->name);
}

/* The file rows sorted by name, the rows of a name (one per layer)
 * adjacent; NULL when out of memory. */
static const siot_filerow **rows_by_name(const siot_files *fs)
{
    const siot_filerow **rows = calloc(fs->nrows ? fs->nrows : 1, sizeof *rows);
    for (uint32_t i = 0; rows && i < fs->nrows; i++)
        rows[i] = &fs->rows[i];
    if (rows)
        qsort(rows, fs->nrows, sizeof *rows, by_name);
    return rows;
}

/* Distinct names per rank: the rows of a name (one per layer) counted once
 * per rank that opened it or moved data to or from it. */
static int many_files(const finder *f, verdict *v)
{
    const siot_files *fs = &f->files;
    uint32_t P = f->t->nranks, total = 0, busiest = 0;
    const siot_filerow **rows = rows_by_name(fs);
    uint32_t *per = calloc(P ? P : 1, sizeof *per), *last = calloc(P ? P : 1, sizeof *last);
    int found = 0;
    if (rows && per && last) {
        for (uint32_t i = 0; i < fs->nrows; i++) {
            total += !i || strcmp(rows[i]->name, rows[i - 1]->name) != 0; /* group number, from 1 */
            for (uint32_t k = 0; k < rows[i]->ranks.n; k++)
                for (int32_t r = rows[i]->ranks.span[k][0]; r <= rows[i]->ranks.span[k][1]; r++)
                    if ((uint32_t)r < P && last[r] != total) {
                        last[r] = total;
                        per[r]++;
                    }
        }
        for (uint32_t r = 0; r < P; r++)
            if (per[r] > per[busiest])
                busiest = r;
        found = P && per[busiest] > MANY_FILES;
    }
    if (found) {
        v->rule = F_MANYFILES;
        v->seconds = f->m.open_ns * 1e-9;
        snprintf(v->remedy, sizeof v->remedy,
                 "write fewer, larger files: one shared file with collective MPI-IO, HDF5 or PnetCDF, or "
                 "one file per step holding all the records");
        v->severity = per[busiest] > 16 * MANY_FILES ? "high" : "medium";
        snprintf(v->summary, sizeof v->summary, "rank %u uses %u distinct files (more than %d); %u files in all",
                 busiest, per[busiest], MANY_FILES, total);
        snprintf(v->evidence, sizeof v->evidence, "\"max_files_per_rank\":%u,\"rank\":%u,\"total_files\":%u",
                 per[busiest], busiest, total);
    }
    free(rows);
    free(per);
    free(last);
    return found;
}

/* file-per-process: at FPP_RANKS ranks or more, half the ranks or more
 * each use files no other rank uses (every row of the name on that one
 * rank) and move data through them (OMPIO's lock files, opened by each
 * rank inside MPI_File_open, hold none). */
#define FPP_RANKS 4

/* The one rank that used the name of rows[i..] and moved data through it,
 * or -1; *next: the first row of the next name. */
static int32_t sole_rank(const siot_filerow **rows, uint32_t n, uint32_t i, uint32_t *next)
{
    int32_t r = rows[i]->ranks.n == 1 && rows[i]->ranks.span[0][0] == rows[i]->ranks.span[0][1]
                    ? rows[i]->ranks.span[0][0]
                    : -1;
    uint64_t calls = 0;
    uint32_t j = i;
    for (; j < n && strcmp(rows[j]->name, rows[i]->name) == 0; j++) {
        calls += rows[j]->calls;
        if (rows[j]->ranks.n != 1 || rows[j]->ranks.span[0][0] != r || rows[j]->ranks.span[0][1] != r)
            r = -1;
    }
    *next = j;
    return calls ? r : -1;
}

static int file_per_process(const finder *f, verdict *v)
{
    uint32_t P = f->t->nranks, files = 0, owners = 0, next;
    if (P < FPP_RANKS)
        return 0;
    const siot_filerow **rows = rows_by_name(&f->files);
    uint8_t *own = calloc(P, 1);
    for (uint32_t i = 0; rows && own && i < f->files.nrows; i = next) {
        int32_t r = sole_rank(rows, f->files.nrows, i, &next);
        if (r >= 0 && (uint32_t)r < P) {
            files++;
            owners += !own[r];
            own[r] = 1;
        }
    }
    free(rows);
    free(own);
    if (owners < FPP_RANKS || 2 * owners < P)
        return 0;
    v->rule = F_FPP;
    v->severity = P >= 1024 ? "high" : P >= 64 ? "medium" : "low";
    v->seconds = f->m.open_ns * 1e-9;
    snprintf(v->summary, sizeof v->summary, "%u files each used by one rank only, on %u of the %u ranks", files,
             owners, P);
    snprintf(v->evidence, sizeof v->evidence, "\"files\":%u,\"ranks\":%u,\"nranks\":%u", files, owners, P);
    snprintf(v->remedy, sizeof v->remedy,
             "at scale, one file per process loads the file system's metadata servers: write a shared file "
             "collectively (MPI_File_write_at_all, HDF5 or PnetCDF), or one file per node "
             "(MPI_Comm_split_type(..., MPI_COMM_TYPE_SHARED, ...) and a file per node communicator)");
    return 1;
}

static int random_access(const finder *f, verdict *v)
{
    uint64_t calls = 0, back = 0;
    uint32_t files = 0;
    double ns = 0;
    const ftrack *worst = NULL;
    for (uint32_t i = 0; i < f->capft; i++) {
        const ftrack *x = &f->ft[i];
        if (!x->name || !file_fires(f, F_RANDOM, x))
            continue;
        files++;
        calls += x->calls;
        back += x->backward;
        ns += x->calls ? x->pos_ns * (double)x->backward / (double)x->calls : 0;
        /* ties by name: the table's order follows addresses */
        if (!worst || x->backward > worst->backward ||
            (x->backward == worst->backward && strcmp(x->name, worst->name) < 0))
            worst = x;
    }
    if (!files)
        return 0;
    double share = (double)back / (double)calls;
    v->rule = F_RANDOM;
    v->seconds = ns * 1e-9;
    snprintf(v->remedy, sizeof v->remedy,
             "issue the requests in offset order (sort them first), or read the region once in one large "
             "request and pick the pieces in memory");
    v->severity = share >= 0.9 ? "high" : "medium";
    snprintf(v->summary, sizeof v->summary,
             "%" PRIu64 " of the %" PRIu64 " positioned data calls (%.0f%%) on %u file%s go backwards (most on %s)",
             back, calls, 100 * share, files, files == 1 ? "" : "s", worst->name);
    snprintf(v->evidence, sizeof v->evidence,
             "\"files\":%u,\"calls\":%" PRIu64 ",\"backward\":%" PRIu64 ",\"backward_share\":%.4f", files, calls,
             back, share);
    return 1;
}

static int read_after_write(const finder *f, verdict *v)
{
    uint64_t bytes = 0;
    uint32_t files = 0;
    for (uint32_t i = 0; i < f->capft; i++)
        if (f->ft[i].name && f->ft[i].readback) {
            bytes += f->ft[i].readback;
            files++;
        }
    const more *m = &f->m;
    if (m->rb_walked) { /* by byte ranges (findptr.c) */
        bytes = m->rb_bytes;
        files = m->rb_files;
    }
    if (bytes < BLOCK)
        return 0;
    v->rule = F_READBACK;
    v->seconds = (m->rb_walked ? m->rb_ns : f->readback_ns) * 1e-9;
    v->extra_bytes = bytes;
    snprintf(v->remedy, sizeof v->remedy, "keep the data in memory instead of writing it and reading it back");
    v->severity = "medium";
    snprintf(v->summary, sizeof v->summary,
             "%" PRIu64 " bytes read back by the ranks that wrote them, from %u file%s", bytes, files,
             files == 1 ? "" : "s");
    snprintf(v->evidence, sizeof v->evidence,
             "\"bytes\":%" PRIu64 ",\"files\":%u,\"by_ranges\":%s,\"overlap_bytes\":%" PRIu64
             ",\"unknown_offset_bytes\":%" PRIu64,
             bytes, files, m->rb_walked ? "true" : "false", m->rb_overlap, m->rb_assumed);
    return 1;
}

/* rank-wait: the waits differ by a tenth of the mean run time (high from
 * three tenths) and by 20 ms at least (more than a few time slices of a
 * busy machine), and the slowest rank computes 1.5 times the mean or more:
 * an imbalance of work, not of start-up. */
#define WAIT_SHARE 0.1
#define WAIT_HIGH 0.3
#define WAIT_MIN_NS 20e6
#define WAIT_COMPUTE 1.5

/* Who waits (the ranks' own times, core/ranksum.h): the ranks waiting the
 * most and the least in MPI, and the rank computing the most, which the
 * others wait for; exact ranks and times in either form of the trace. */
static int rank_wait(const finder *f, verdict *v)
{
    const siot_trace *t = f->t;
    siot_arena a;
    siot_arena_init(&a);
    siot_hist buf[SIOT_RT_NQ];
    const siot_hist *sum = siot_rts_get(t, &a, buf);
    siot_rtx most, least, busy;
    int found = sum && siot_rts_nranks(t) >= 2 && siot_rts_extremes(t, SIOT_RT_mpi, 1, &most, 1) &&
                siot_rts_extremes(t, SIOT_RT_mpi, 0, &least, 1) && siot_rts_extremes(t, SIOT_RT_compute, 1, &busy, 1);
    double gap = found ? (double)most.v - (double)least.v : 0;
    double span = sum ? sum[SIOT_RT_span].mean : 0;
    int fire = found && gap >= WAIT_MIN_NS && gap >= WAIT_SHARE * span &&
               (double)busy.v >= WAIT_COMPUTE * sum[SIOT_RT_compute].mean;
    if (fire) {
        char w[32], w0[32], wm[32], c[32], cm[32], form[96];
        siot_fmt_ns(w, sizeof w, (double)most.v);
        siot_fmt_ns(w0, sizeof w0, (double)least.v);
        siot_fmt_ns(wm, sizeof wm, sum[SIOT_RT_mpi].mean);
        siot_fmt_ns(c, sizeof c, (double)busy.v);
        siot_fmt_ns(cm, sizeof cm, sum[SIOT_RT_compute].mean);
        v->rule = F_WAIT;
        v->seconds = gap * 1e-9;
        snprintf(v->remedy, sizeof v->remedy,
                 "balance the computation between the ranks: rank %d computes %s against a mean of %s", busy.rank, c,
                 cm);
        v->severity = gap >= WAIT_HIGH * span ? "high" : "medium";
        snprintf(v->summary, sizeof v->summary,
                 "rank %d waits %s in MPI, rank %d %s (mean %s); slowest rank %d computes %s (mean %s) (%s)",
                 most.rank, w, least.rank, w0, wm, busy.rank, c, cm, siot_rank_times_form(t, form, sizeof form));
        snprintf(v->evidence, sizeof v->evidence,
                 "\"most_waiting_rank\":%d,\"wait_s\":%.9g,\"least_waiting_rank\":%d,\"least_wait_s\":%.9g,"
                 "\"mean_wait_s\":%.9g,\"slowest_rank\":%d,\"compute_s\":%.9g,\"ranks\":%" PRIu64 ",\"form\":\"%s\"",
                 most.rank, (double)most.v * 1e-9, least.rank, (double)least.v * 1e-9,
                 sum[SIOT_RT_mpi].mean * 1e-9, busy.rank, (double)busy.v * 1e-9,
                 siot_rts_nranks(t), t->rtsum ? "summary" : "rows");
    }
    siot_arena_free(&a);
    return fire;
}

/* The costliest first: time, then bytes beyond the program's, then the
 * table's order. */
static int by_cost(const void *a, const void *b)
{
    const verdict *x = a, *y = b;
    if (x->seconds != y->seconds)
        return x->seconds < y->seconds ? 1 : -1;
    if (x->extra_bytes != y->extra_bytes)
        return x->extra_bytes < y->extra_bytes ? 1 : -1;
    return (x->rule > y->rule) - (x->rule < y->rule);
}

static int verdicts(const finder *f, verdict *v)
{
    int n = 0;
    n += share_rule(&v[n], F_SMALL, f->small_calls, f->own_calls, "data calls the program made", f->small_ns);
    n += share_rule(&v[n], F_MISALIGNED, f->misaligned, f->posix_calls, "POSIX data calls", f->misaligned_ns);
    n += imbalance(f, &v[n]);
    n += repeat_rule(f, &v[n], F_REOPEN);
    n += repeat_rule(f, &v[n], F_SYNC);
    n += independent(f, &v[n]);
    n += metadata(f, &v[n]);
    n += many_files(f, &v[n]);
    n += file_per_process(f, &v[n]);
    n += random_access(f, &v[n]);
    n += read_after_write(f, &v[n]);
    n += rank_wait(f, &v[n]);
    n += siot_findmore_verdicts(f, &v[n]);
    qsort(v, (size_t)n, sizeof *v, by_cost);
    return n;
}

/* ------------------------------------------------------------ output */

typedef struct site_row {
    uint32_t root;
    uint64_t calls;
} site_row;

static int by_calls(const void *a, const void *b)
{
    const site_row *x = a, *y = b;
    return x->calls != y->calls ? (x->calls < y->calls ? 1 : -1) : (x->root > y->root) - (x->root < y->root);
}

/* The calls a rule counted per origin (n of them); for a per-file rule,
 * on the files it fires on only. NULL when out of memory. */
static uint64_t *rule_counts(const finder *f, int rule, uint32_t n)
{
    uint64_t *c = calloc(n ? n : 1, sizeof *c);
    if (!c)
        return NULL;
    if (rule == F_INDEPENDENT || rule == F_RANDOM) {
        for (uint32_t i = 0; i < f->nfhits; i++) {
            const filehit *h = &f->fhits[i];
            const ftrack *x = h->rule == rule ? find_track(f, h->file) : NULL;
            if (x && h->origin < n && file_fires(f, rule, x))
                c[h->origin] += h->n;
        }
        return c;
    }
    for (uint32_t id = 0; id < n && id < f->caphits; id++)
        c[id] = f->hits[(size_t)id * NFIND + rule];
    return c;
}

#define SITE_ROWS 5   /* sites shown per finding */
#define SITE_GROUPS 64 /* outermost calls resolved to find them */

/* The busiest outermost calls (at most SITE_GROUPS) into rows, busiest
 * first; how many. */
static uint32_t busiest_roots(const siot_origins *o, const uint64_t *root, site_row *rows)
{
    uint32_t n = 0;
    for (uint32_t r = 1; r < o->n; r++) {
        site_row x = {r, root[r]};
        if (!x.calls || (n == SITE_GROUPS && by_calls(&x, &rows[n - 1]) > 0))
            continue;
        uint32_t k = n < SITE_GROUPS ? n++ : n - 1;
        while (k > 0 && by_calls(&x, &rows[k - 1]) < 0) {
            rows[k] = rows[k - 1];
            k--;
        }
        rows[k] = x;
    }
    return n;
}

/* The rule's calls grouped by the outermost traced call they were made in
 * (the program's call: siot/sites.h), outermost calls at the same program
 * line taken together (one line reached by different paths), the busiest
 * SITE_ROWS groups, each with the chain that made the most of its calls.
 * Returns how many. */
static uint32_t rule_sites(const finder *f, int rule, siot_siteloc *loc, uint64_t *calls)
{
    const siot_origins *o = &f->origins;
    uint64_t *c = rule_counts(f, rule, o->n), *root = calloc(o->n ? o->n : 1, sizeof *root);
    uint32_t *best = calloc(o->n ? o->n : 1, sizeof *best), n = 0, kept = 0;
    site_row *rows = malloc(SITE_GROUPS * sizeof *rows);
    siot_siteloc *all = calloc(SITE_GROUPS, sizeof *all);
    for (uint32_t id = 1; c && root && best && id < o->n; id++) {
        uint32_t r = o->v[id].root;
        root[r] += c[id];
        if (c[id] && (!best[r] || c[id] > c[best[r]]))
            best[r] = id;
    }
    if (c && root && best && rows && all)
        n = busiest_roots(o, root, rows);
    for (uint32_t i = 0; i < n; i++) {
        all[i].site = o->v[rows[i].root].site;
        all[i].origin = best[rows[i].root];
    }
    siot_resolve_origins(f->t, o, all, n);
    for (uint32_t i = 0; i < n; i++) { /* rows[k] stays the busiest of its line */
        uint32_t k = 0;
        while (k < kept && strcmp(all[k].where, all[i].where) != 0)
            k++;
        if (k < kept) {
            rows[k].calls += rows[i].calls;
            continue;
        }
        all[kept] = all[i];
        rows[kept++] = rows[i];
    }
    for (uint32_t i = 0; i < kept && i < SITE_ROWS; i++) { /* the sums may reorder them */
        uint32_t m = i;
        for (uint32_t k = i + 1; k < kept; k++)
            if (rows[k].calls > rows[m].calls)
                m = k;
        site_row tr = rows[i];
        siot_siteloc tl = all[i];
        rows[i] = rows[m], all[i] = all[m];
        rows[m] = tr, all[m] = tl;
        loc[i] = all[i];
        calls[i] = rows[i].calls;
    }
    free(c);
    free(root);
    free(best);
    free(rows);
    free(all);
    return kept < SITE_ROWS ? kept : SITE_ROWS;
}

/* The cost line and the remedy line of a finding. */
static void print_cost(const verdict *v, FILE *o)
{
    char t[32];
    siot_fmt_ns(t, sizeof t, v->seconds * 1e9);
    fprintf(o, "    cost: %s", t);
    if (v->extra_bytes)
        fprintf(o, ", %" PRIu64 " bytes moved beyond the program's", v->extra_bytes);
    fprintf(o, "\n    remedy: %s\n", v->remedy);
}

static void print_text(const finder *f, const verdict *v, int n, const char *path, FILE *o)
{
    fprintf(o, "siot findings %s\n  %u ranks: %d finding%s\n", path, f->t->nranks, n, n == 1 ? "" : "s");
    if (f->origins.unlinked)
        fprintf(o, "  (%" PRIu64 " calls whose enclosing traced call was not found are shown at their own site)\n",
                f->origins.unlinked);
    if (f->m.red_walk_truncated)
        fprintf(o, "  (redundant-reads at a file pointer and read-after-write judged over the first %llu events only)\n",
                (unsigned long long)SIOT_ACCESS_MAX_EVENTS);
    for (int i = 0; i < n; i++) {
        fprintf(o, "\n[%s] %s: %s\n", v[i].severity, FINDING_RULES[v[i].rule].id, v[i].summary);
        print_cost(&v[i], o);
        siot_siteloc loc[SITE_ROWS];
        uint64_t calls[SITE_ROWS];
        uint32_t ns = rule_sites(f, v[i].rule, loc, calls);
        for (uint32_t k = 0; k < ns; k++)
            fprintf(o, "    s%-6u %10" PRIu64 "  %s%s%s\n", loc[k].site, calls[k], loc[k].where,
                    loc[k].chain[0] ? ", via " : "", loc[k].chain);
    }
}

static void print_json(const finder *f, const verdict *v, int n, FILE *o)
{
    fprintf(o, "{\"nranks\":%u,\"calls_without_chain\":%" PRIu64 ",\"pointer_walk_truncated\":%s,\"findings\":[",
            f->t->nranks, f->origins.unlinked, f->m.red_walk_truncated ? "true" : "false");
    for (int i = 0; i < n; i++) {
        fprintf(o, "%s{\"id\":\"%s\",\"severity\":\"%s\",\"summary\":", i ? "," : "", FINDING_RULES[v[i].rule].id,
                v[i].severity);
        siot_vbuf b;
        siot_vbuf_init(&b);
        siot_json_str(&b, v[i].summary, strlen(v[i].summary));
        fwrite(b.data, 1, b.len, o);
        fprintf(o, ",\"cost\":{\"seconds\":%.9f,\"extra_bytes\":%" PRIu64 "},\"remedy\":", v[i].seconds,
                v[i].extra_bytes);
        b.len = 0;
        siot_json_str(&b, v[i].remedy, strlen(v[i].remedy));
        fwrite(b.data, 1, b.len, o);
        fprintf(o, ",\"evidence\":{%s},\"sites\":[", v[i].evidence);
        siot_siteloc loc[SITE_ROWS];
        uint64_t calls[SITE_ROWS];
        uint32_t ns = rule_sites(f, v[i].rule, loc, calls);
        for (uint32_t k = 0; k < ns; k++) {
            b.len = 0;
            siot_json_str(&b, loc[k].where, strlen(loc[k].where));
            siot_vbuf_put(&b, ",\"chain\":", 9);
            siot_json_str(&b, loc[k].chain, strlen(loc[k].chain));
            fprintf(o, "%s{\"site\":%u,\"calls\":%" PRIu64 ",\"program\":%s,\"location\":%.*s}", k ? "," : "",
                    loc[k].site, calls[k], loc[k].program ? "true" : "false", (int)b.len, (const char *)b.data);
        }
        siot_vbuf_free(&b);
        fprintf(o, "]}");
    }
    fprintf(o, "]}\n");
}

static void finder_free(finder *f)
{
    free(f->hits);
    free(f->fhits);
    siot_origins_free(&f->origins);
    free(f->rank_bytes);
    free(f->rank_ns);
    siot_findmore_free(f);
    rp_hmap_free(&f->rank_file);
    free(f->ft);
    free(f->prev);
    siot_files_free(&f->files);
    siot_vbuf_free(&f->scratch);
}

int siot_findings(const siot_trace *t, const char *path, int json, FILE *out, char *err, size_t errlen)
{
    finder f;
    memset(&f, 0, sizeof f);
    f.t = t;
    siot_files_init(&f.files);
    int ok = siot_origins_init(&f.origins, t) == 0;
    ok = ok && (f.rank_bytes = calloc(t->nranks ? t->nranks : 1, sizeof *f.rank_bytes)) != NULL;
    ok = ok && (f.rank_ns = calloc(t->nranks ? t->nranks : 1, sizeof *f.rank_ns)) != NULL;
    ok = ok && (f.prev = calloc(t->nsites + 1, sizeof *f.prev)) != NULL;
    for (uint32_t s = 0; ok && s <= t->nsites; s++)
        f.prev[s].rank = -1;
    siot_handlers inner = {.user = &f, .event = on_event}, h = siot_origins_wrap(&f.origins, &inner);
    int rc = -1;
    if (!ok)
        snprintf(err, errlen, "out of memory");
    else if (siot_analyze(t, &h, err, errlen) == 0 && !f.oom && !f.files.oom && !f.origins.oom &&
             siot_findptr_walk(&f, err, errlen) == 0) {
        verdict *v = calloc(NFIND, sizeof *v); /* 3 KiB each: off the stack */
        int n = v ? verdicts(&f, v) : 0;
        if (v && json)
            print_json(&f, v, n, out);
        else if (v)
            print_text(&f, v, n, path, out);
        else
            snprintf(err, errlen, "out of memory");
        rc = v ? 0 : -1;
        free(v);
    } else if (f.oom || f.files.oom || f.origins.oom) {
        snprintf(err, errlen, "out of memory");
    }
    finder_free(&f);
    return rc;
}
