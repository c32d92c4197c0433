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
#include "siot/dump.h"
#include "core/roles.h"

int siot_stats_resolve_sites = 1;

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

typedef struct filestat {
    char *name;
    uint8_t layer;
    uint64_t calls, rbytes, wbytes;
} filestat;

typedef struct handle {
    uint8_t kind;
    int64_t id;
    int32_t file;
} handle;

typedef struct stats {
    const siot_trace *t;
    uint64_t total;
    fnstat *fn;
    uint64_t lcalls[SIOT_NLAYERS], lread[SIOT_NLAYERS], lwrite[SIOT_NLAYERS];
    double ltime[SIOT_NLAYERS];
    uint64_t *rank_calls; /* nranks x NCOLS */
    filestat *files;
    uint32_t nfiles, capfiles;
    handle *handles;
    uint32_t nhandles, caphandles;
    uint64_t sizes[SIOT_NLAYERS][2][SIZE_BINS];
    uint64_t *site_calls; /* per site + 1 */
    uint32_t *site_func;
    siot_vbuf scratch, pat;
    int oom;
} stats;

static unsigned comm_kind(unsigned cls)
{
    unsigned b = SIOT_CLASS_BASE(cls);
    if (b == SIOT_CLASS_coll || (cls & SIOT_CLS_COLL))
        return COMM_COLL;
    if (b == SIOT_CLASS_send || b == SIOT_CLASS_recv || b == SIOT_CLASS_sendrecv || b == SIOT_CLASS_probe ||
        b == SIOT_CLASS_wait || b == SIOT_CLASS_test || b == SIOT_CLASS_start)
        return (cls & SIOT_CLS_NB) || b == SIOT_CLASS_wait || b == SIOT_CLASS_test || b == SIOT_CLASS_start
                   ? COMM_NB
                   : COMM_BLOCK;
    return COMM_OTHER;
}

static int32_t file_index(stats *s, const char *name, uint8_t layer)
{
    for (uint32_t i = 0; i < s->nfiles; i++)
        if (s->files[i].layer == layer && strcmp(s->files[i].name, name) == 0)
            return (int32_t)i;
    if (s->nfiles == s->capfiles) {
        uint32_t cap = s->capfiles ? s->capfiles * 2 : 16;
        filestat *f = realloc(s->files, cap * sizeof *f);
        if (!f) {
            s->oom = 1;
            return -1;
        }
        s->files = f;
        s->capfiles = cap;
    }
    filestat *f = &s->files[s->nfiles];
    memset(f, 0, sizeof *f);
    f->name = strdup(name);
    f->layer = layer;
    if (!f->name) {
        s->oom = 1;
        return -1;
    }
    return (int32_t)s->nfiles++;
}

static handle *find_handle(stats *s, uint8_t kind, int64_t id)
{
    for (uint32_t i = 0; i < s->nhandles; i++)
        if (s->handles[i].kind == kind && s->handles[i].id == id)
            return &s->handles[i];
    return NULL;
}

static void set_handle(stats *s, uint8_t kind, int64_t id, int32_t file)
{
    handle *h = find_handle(s, kind, id);
    if (!h) {
        if (s->nhandles == s->caphandles) {
            uint32_t cap = s->caphandles ? s->caphandles * 2 : 16;
            handle *v = realloc(s->handles, cap * sizeof *v);
            if (!v) {
                s->oom = 1;
                return;
            }
            s->handles = v;
            s->caphandles = cap;
        }
        h = &s->handles[s->nhandles++];
        h->kind = kind;
        h->id = id;
    }
    h->file = file;
}


/* Handle kinds: descriptors, streams and MPI files name files. */
static int handle_kind(unsigned role)
{
    switch (role) {
    case SIOT_ROLE_fd:
        return 1;
    case SIOT_ROLE_stream:
        return 2;
    case SIOT_ROLE_file:
    case SIOT_ROLE_newfile:
    case SIOT_ROLE_closefile:
        return 3;
    }
    return 0;
}

static int arg_of_role(const siot_funcdesc *f, unsigned role)
{
    for (uint32_t k = 0; k < f->nargs; k++)
        if (f->argroles[k] == role)
            return (int)k;
    return -1;
}

static int64_t arg_int(stats *s, const siot_agg_event *e, int k)
{
    siot_value v;
    if (k < 0 || siot_agg_arg(e, (uint32_t)k, &s->scratch, &v) != 0 || v.kind != SIOT_V_INT)
        return INT64_MIN;
    return v.i;
}

/* fcntl(fd, F_DUPFD or F_DUPFD_CLOEXEC, min): a duplicate, like dup */
static int is_fcntl_dup(stats *s, const siot_agg_event *e)
{
    const siot_funcdesc *f = e->fn;
    if (arg_of_role(f, SIOT_ROLE_fcntlarg) < 0 || f->nargs < 2)
        return 0;
    int64_t cmd = arg_int(s, e, 1);
    return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;
}

/* An aio completion (aio_return: class wait, an aiocb argument [fd id,
 * offset, nbytes, opcode]): the read or write its bytes are, by the
 * request's opcode (0 when not one), and the request's descriptor id. */
static unsigned aio_direction(stats *s, const siot_agg_event *e, int64_t *fd)
{
    int k = arg_of_role(e->fn, SIOT_ROLE_aiocb);
    siot_value v;
    if (SIOT_CLASS_BASE(e->fn->cls) != SIOT_CLASS_wait || k < 0 ||
        siot_agg_arg(e, (uint32_t)k, &s->scratch, &v) != 0 || v.kind != SIOT_V_ARR || v.n < 4)
        return 0;
    *fd = v.arr[0];
    return v.arr[3] == LIO_READ ? SIOT_CLASS_read : v.arr[3] == LIO_WRITE ? SIOT_CLASS_write : 0;
}

static void file_bytes(stats *s, const handle *h, unsigned b, uint64_t total, int64_t bytes)
{
    if (!h || h->file < 0)
        return;
    filestat *fs = &s->files[h->file];
    fs->calls += total;
    uint64_t n = total * (uint64_t)(bytes > 0 ? bytes : 0);
    if (b == SIOT_CLASS_read)
        fs->rbytes += n;
    else
        fs->wbytes += n;
}

static void track_files(stats *s, const siot_agg_event *e, uint64_t total)
{
    const siot_funcdesc *f = e->fn;
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int64_t aiofd = -1;
    unsigned aio = aio_direction(s, e, &aiofd);
    if (aio) {
        file_bytes(s, find_handle(s, 1, aiofd), aio, total, e->bytes);
        return;
    }
    int kp = arg_of_role(f, SIOT_ROLE_path);
    if (b == SIOT_CLASS_open && kp >= 0) {
        s->pat.len = 0;
        siot_agg_pattern(e, e->node->u.ev.args[kp], &s->pat);
        siot_vbuf_u8(&s->pat, 0);
        if (s->pat.oom)
            return;
        int32_t fi = file_index(s, (const char *)s->pat.data, f->layer);
        int knew = arg_of_role(f, SIOT_ROLE_newfile);
        int64_t id = knew >= 0 ? arg_int(s, e, knew) : siot_eval_int(e->node->u.ev.ret, &e->ctx, -1);
        int kind = knew >= 0 ? 3 : f->layer == SIOT_LAYER_stdio ? 2 : 1;
        if (fi >= 0 && id >= 0)
            set_handle(s, (uint8_t)kind, id, fi);
        return;
    }
    if (b == SIOT_CLASS_open || b == SIOT_CLASS_dup || is_fcntl_dup(s, e)) {
        /* fdopen, dup, dup2, fcntl(F_DUPFD): the new handle names the old file */
        int kfd = arg_of_role(f, SIOT_ROLE_fd);
        handle *h = kfd >= 0 ? find_handle(s, 1, arg_int(s, e, kfd)) : NULL;
        int64_t id = siot_eval_int(e->node->u.ev.ret, &e->ctx, -1);
        /* from a descriptor that was not traced (-1): the target names no file any more */
        if (id >= 0 && (h || (kfd >= 0 && arg_int(s, e, kfd) == -1)))
            set_handle(s, f->layer == SIOT_LAYER_stdio ? 2 : 1, id, h ? h->file : -1);
        return;
    }
    if (b != SIOT_CLASS_read && b != SIOT_CLASS_write)
        return;
    for (uint32_t k = 0; k < f->nargs; k++) {
        int kind = handle_kind(f->argroles[k]);
        if (!kind)
            continue;
        file_bytes(s, find_handle(s, (uint8_t)kind, arg_int(s, e, (int)k)), b, total, e->bytes);
        return;
    }
}

static void on_event(void *user, const siot_agg_event *e)
{
    stats *s = user;
    const siot_funcdesc *f = e->fn;
    uint32_t fi = e->node->u.ev.func;
    uint64_t total = e->calls * e->nranks;
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int64_t aiofd;
    unsigned aio = aio_direction(s, e, &aiofd);
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
    track_files(s, e, total);
}

/* ------------------------------------------------------------ call sites */


/* The innermost frame of each site that is in the traced executable,
 * resolved with addr2line (binutils); module+offset when that fails. */
void siot_resolve_sites(const siot_trace *t, siot_siteloc *loc, uint32_t n)
{
    int exe_mod = -1;
    for (uint32_t m = 0; m < t->nmodules; m++)
        if (strcmp(t->modules[m], t->exe) == 0)
            exe_mod = (int)m;
    uint64_t *off = calloc(n ? n : 1, sizeof *off);
    if (!off)
        return;
    for (uint32_t i = 0; i < n; i++) {
        const siot_site *st = &t->sites[loc[i].site - 1];
        uint64_t pick = st->depth ? st->addrs[0] : 0;
        for (uint32_t k = 0; k < st->depth; k++)
            if ((int)SIOT_ADDR_MODULE(st->addrs[k]) == exe_mod) {
                pick = st->addrs[k];
                break;
            }
        uint32_t m = SIOT_ADDR_MODULE(pick);
        const char *path = m < t->nmodules ? t->modules[m] : "?";
        const char *base = strrchr(path, '/');
        snprintf(loc[i].where, sizeof loc[i].where, "%s+0x%llx", base ? base + 1 : path,
                 (unsigned long long)SIOT_ADDR_OFFSET(pick));
        off[i] = (int)m == exe_mod ? (uint64_t)SIOT_ADDR_OFFSET(pick) : UINT64_MAX;
    }
    if (!siot_stats_resolve_sites || exe_mod < 0 || access(t->exe, R_OK) != 0 ||
        access("/usr/bin/addr2line", X_OK) != 0) {
        free(off);
        return;
    }
    /* One addr2line run for all of them; its output is read back in order. */
    char tmpl[] = "/tmp/siot-a2l-XXXXXX";
    int fd = mkstemp(tmpl);
    FILE *in = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!in) {
        free(off);
        return;
    }
    uint32_t asked = 0;
    for (uint32_t i = 0; i < n; i++)
        if (off[i] != UINT64_MAX) {
            fprintf(in, "0x%" PRIx64 "\n", off[i]);
            asked++;
        }
    fclose(in);
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "addr2line -f -C -e '%s' < '%s' 2>/dev/null", t->exe, tmpl);
    FILE *p = strchr(t->exe, '\'') ? NULL : popen(cmd, "r");
    if (p) {
        char fn[512], line[512];
        for (uint32_t i = 0; i < n; i++) {
            if (off[i] == UINT64_MAX)
                continue;
            if (!fgets(fn, sizeof fn, p) || !fgets(line, sizeof line, p))
                break;
            fn[strcspn(fn, "\n")] = 0;
            line[strcspn(line, "\n")] = 0;
            const char *file = strrchr(line, '/');
            file = file ? file + 1 : line;
            char w[1100];
            if (strncmp(file, "??", 2) != 0)
                snprintf(w, sizeof w, "%.400s (%.400s)", file, fn);
            else if (strcmp(fn, "??") != 0)
                snprintf(w, sizeof w, "%.400s (%.400s)", loc[i].where, fn);
            else
                continue;
            snprintf(loc[i].where, sizeof loc[i].where, "%.500s", w);
        }
        pclose(p);
    }
    (void)asked;
    unlink(tmpl);
    free(off);
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
    for (uint32_t i = 0; i < n; i++)
        loc[i].site = ids[i];
    free(ids);
    siot_resolve_sites(s->t, loc, n);
    return n;
}

static void print_human(stats *s, const char *path, FILE *o)
{
    const siot_trace *t = s->t;
    char a[32], b[32], c[32];
    fprintf(o, "siot stats %s\n", path);
    fprintf(o, "  %u ranks, %" PRIu64 " events (%u nodes in the compressed trace), %s\n", t->nranks, s->total, t->nnodes,
            t->exe);
    if (t->flags & (SIOT_TF_PARTIAL | SIOT_TF_APPROX | SIOT_TF_TRUNCATED))
        fprintf(o, "  note: the trace is%s%s%s\n", t->flags & SIOT_TF_PARTIAL ? " partial" : "",
                t->flags & SIOT_TF_APPROX ? " approximate (SIOT_TOLERANCE)" : "",
                t->flags & SIOT_TF_TRUNCATED ? " truncated" : "");

    fprintf(o, "\nCalls per layer            rank 0    other ranks: mean        min        max    all ranks\n");
    for (unsigned l = 0; l < SIOT_NLAYERS + NCOMM; l++) {
        unsigned col = l;
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

    fprintf(o, "\nBytes per layer                 read       written      time in calls\n");
    for (unsigned l = 0; l < SIOT_NLAYERS; l++) {
        if (!s->lcalls[l] || l == SIOT_LAYER_mpi)
            continue;
        human_bytes(a, sizeof a, (double)s->lread[l]);
        human_bytes(b, sizeof b, (double)s->lwrite[l]);
        siot_fmt_ns(c, sizeof c, s->ltime[l]);
        fprintf(o, "  %-22s %12s %13s %18s\n", LAYER_TITLE[l], a, b, c);
    }

    fprintf(o, "\nTime per function        calls        total         mean          max (rank)\n");
    for (uint32_t i = 0; i < t->nfuncs; i++) {
        const fnstat *f = &s->fn[i];
        if (!f->calls)
            continue;
        siot_fmt_ns(a, sizeof a, f->time_ns);
        siot_fmt_ns(b, sizeof b, f->time_ns / (double)f->calls);
        siot_fmt_ns(c, sizeof c, (double)f->max_ns);
        fprintf(o, "  %-20s %9" PRIu64 " %12s %12s %12s (%d)\n", t->funcs[i].name, f->calls, a, b, c, f->max_rank);
    }

    if (s->nfiles) {
        fprintf(o, "\nFiles                                          layer        calls         read      written\n");
        for (uint32_t i = 0; i < s->nfiles; i++) {
            const filestat *f = &s->files[i];
            human_bytes(a, sizeof a, (double)f->rbytes);
            human_bytes(b, sizeof b, (double)f->wbytes);
            fprintf(o, "  %-44s %-8s %9" PRIu64 " %12s %12s\n", f->name, siot_layer_name(f->layer), f->calls, a, b);
        }
    }

    int any = 0;
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        for (unsigned w = 0; w < 2; w++)
            for (unsigned k = 0; k < SIZE_BINS; k++)
                any |= s->sizes[l][w][k] != 0;
    if (any) {
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

    siot_siteloc loc[10];
    uint32_t n = top_sites(s, loc, 10);
    if (n) {
        fprintf(o, "\nTop call sites               calls  function             location\n");
        for (uint32_t i = 0; i < n; i++)
            fprintf(o, "  s%-6u %20" PRIu64 "  %-20s %s\n", loc[i].site, s->site_calls[loc[i].site],
                    t->funcs[s->site_func[loc[i].site]].name, loc[i].where);
    }
}

static void json_name(FILE *o, const char *name)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    siot_json_str(&b, name, strlen(name));
    fwrite(b.data, 1, b.len, o);
    siot_vbuf_free(&b);
}

static void print_json(stats *s, FILE *o)
{
    const siot_trace *t = s->t;
    fprintf(o, "{\"nranks\":%u,\"total_events\":%" PRIu64 ",\"nodes\":%u,\"partial\":%s,\"approximate\":%s,", t->nranks,
            s->total, t->nnodes, t->flags & SIOT_TF_PARTIAL ? "true" : "false",
            t->flags & SIOT_TF_APPROX ? "true" : "false");
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
    fprintf(o, "},\"layers\":{");
    first = 1;
    for (unsigned l = 0; l < SIOT_NLAYERS; l++) {
        if (!s->lcalls[l])
            continue;
        spread sp = col_spread(s, l);
        fprintf(o, "%s\"%s\":{\"calls\":%" PRIu64 ",\"bytes_read\":%" PRIu64 ",\"bytes_written\":%" PRIu64
                   ",\"time_s\":%.9g,\"rank0_calls\":%" PRIu64,
                first ? "" : ",", siot_layer_name(l), s->lcalls[l], s->lread[l], s->lwrite[l], s->ltime[l] * 1e-9,
                sp.r0);
        if (t->nranks > 1 && l != SIOT_LAYER_mpi)
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
    fprintf(o, "},\"files\":[");
    for (uint32_t i = 0; i < s->nfiles; i++) {
        const filestat *f = &s->files[i];
        fprintf(o, "%s{\"name\":", i ? "," : "");
        json_name(o, f->name);
        fprintf(o, ",\"layer\":\"%s\",\"calls\":%" PRIu64 ",\"bytes_read\":%" PRIu64 ",\"bytes_written\":%" PRIu64 "}",
                siot_layer_name(f->layer), f->calls, f->rbytes, f->wbytes);
    }
    fprintf(o, "],\"request_sizes\":{");
    first = 1;
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
                fprintf(o, "%s{\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"count\":%" PRIu64 "}", f2 ? "" : ",", lo,
                        hi - 1, s->sizes[l][w][k]);
                f2 = 0;
            }
            fprintf(o, "]");
        }
    fprintf(o, "},\"call_sites\":[");
    siot_siteloc loc[20];
    uint32_t n = top_sites(s, loc, 20);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(o, "%s{\"site\":%u,\"function\":", i ? "," : "", loc[i].site);
        json_name(o, t->funcs[s->site_func[loc[i].site]].name);
        fprintf(o, ",\"calls\":%" PRIu64 ",\"location\":", s->site_calls[loc[i].site]);
        json_name(o, loc[i].where);
        fprintf(o, "}");
    }
    fprintf(o, "]}\n");
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

static void print_csv(stats *s, FILE *o)
{
    const siot_trace *t = s->t;
    fprintf(o, "section,name,metric,value\n");
    fprintf(o, "job,,nranks,%u\njob,,total_events,%" PRIu64 "\n", t->nranks, s->total);
    for (uint32_t i = 0; i < t->nfuncs; i++) {
        const fnstat *f = &s->fn[i];
        if (!f->calls)
            continue;
        fprintf(o, "function,%s,calls,%" PRIu64 "\nfunction,%s,bytes,%" PRIu64 "\nfunction,%s,time_s,%.9g\n",
                t->funcs[i].name, f->calls, t->funcs[i].name, f->bytes, t->funcs[i].name, f->time_ns * 1e-9);
    }
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        if (s->lcalls[l])
            fprintf(o, "layer,%s,calls,%" PRIu64 "\nlayer,%s,bytes_read,%" PRIu64 "\nlayer,%s,bytes_written,%" PRIu64 "\n",
                    siot_layer_name(l), s->lcalls[l], siot_layer_name(l), s->lread[l], siot_layer_name(l),
                    s->lwrite[l]);
    for (uint32_t r = 0; r < t->nranks; r++)
        for (unsigned c = 0; c < NCOLS; c++) {
            uint64_t v = s->rank_calls[(uint64_t)r * NCOLS + c];
            if (v)
                fprintf(o, "rank,%u,%s_calls,%" PRIu64 "\n", r,
                        c < SIOT_NLAYERS ? siot_layer_name(c) : COMM_NAMES[c - SIOT_NLAYERS], v);
        }
    for (uint32_t i = 0; i < s->nfiles; i++) {
        const char *m[3] = {"calls", "bytes_read", "bytes_written"};
        uint64_t v[3] = {s->files[i].calls, s->files[i].rbytes, s->files[i].wbytes};
        for (int k = 0; k < 3; k++) {
            fprintf(o, "file,");
            csv_field(o, s->files[i].name);
            fprintf(o, ",%s,%" PRIu64 "\n", m[k], v[k]);
        }
    }
}

/* ------------------------------------------------------------ entry */

int siot_stats(const siot_trace *t, const char *path, int format, FILE *out, char *err, size_t errlen)
{
    stats s;
    memset(&s, 0, sizeof s);
    s.t = t;
    s.fn = calloc(t->nfuncs + 1, sizeof *s.fn);
    s.rank_calls = calloc((size_t)t->nranks * NCOLS + 1, sizeof *s.rank_calls);
    s.site_calls = calloc(t->nsites + 2, sizeof *s.site_calls);
    s.site_func = calloc(t->nsites + 2, sizeof *s.site_func);
    int rc = -1;
    if (!s.fn || !s.rank_calls || !s.site_calls || !s.site_func) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    siot_handlers h = {.user = &s, .event = on_event};
    if (siot_analyze(t, &h, err, errlen) != 0)
        goto out;
    if (s.oom) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (format == 1)
        print_json(&s, out);
    else if (format == 2)
        print_csv(&s, out);
    else
        print_human(&s, path, out);
    rc = 0;
out:
    for (uint32_t i = 0; i < s.nfiles; i++)
        free(s.files[i].name);
    free(s.files);
    free(s.handles);
    free(s.fn);
    free(s.rank_calls);
    free(s.site_calls);
    free(s.site_func);
    siot_vbuf_free(&s.scratch);
    siot_vbuf_free(&s.pat);
    return rc;
}
