/* findmore: the findings that follow each call's chain of traced calls
 * (finder.h; the rules and thresholds: findings.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/ranksum.h"
#include "core/roles.h"
#include "siot/finder.h"

#define RMW_MIN 65536      /* read-modify-write: bytes beyond the program's */
#define H5_MIN 16          /* hdf5-metadata-flush: writes under flushes and closes */
#define CB_MIN 32          /* small-collective-buffer: POSIX calls beneath collective calls */
#define CB_RATIO 8         /* ... per collective call of the job */
#define CB_SMALL 1048576   /* ... each under 1 MiB on average */
#define STRAG_MIN_NS 50e6  /* collective-straggler: 50 ms of waiting, */
#define STRAG_SHARE 0.25   /* a quarter of the collective calls' time, */
#define STRAG_COMP_NS 10e6 /* the slowest rank computing 10 ms more than the fastest */
#define LOOP_PER_RANK 2    /* open-in-loop: opens in loops per rank */
#define STDIO_MIN 1048576  /* stdio-bulk: bytes, */
#define STDIO_SHARE 0.1    /* and a tenth of the program's data bytes */

static const siot_funcdesc *ofunc(const finder *f, uint32_t id)
{
    return &f->t->funcs[f->origins.v[id].func];
}

/* The nearest traced call around origin id (not itself) of the layer, or 0. */
static uint32_t around(const finder *f, uint32_t id, int layer)
{
    const siot_origins *o = &f->origins;
    for (uint32_t p = id < o->n ? o->v[id].parent : 0; p && p < o->n; p = o->v[p].parent)
        if (ofunc(f, p)->layer == layer)
            return p;
    return 0;
}

static owrite *ow_at(finder *f, uint32_t id)
{
    more *m = &f->m;
    if (id >= m->capow) {
        uint32_t cap = m->capow ? m->capow : 256;
        while (cap <= id)
            cap *= 2;
        owrite *w = realloc(m->ow, (size_t)cap * sizeof *w);
        if (!w) {
            f->oom = 1;
            return NULL;
        }
        memset(w + m->capow, 0, (size_t)(cap - m->capow) * sizeof *w);
        m->ow = w;
        m->capow = cap;
    }
    return &m->ow[id];
}

static uint64_t rec_bytes(const siot_agg_event *e)
{
    return e->bytes > 0 ? e->calls * e->nranks * (uint64_t)e->bytes : 0;
}

/* read-modify-write: POSIX reads inside an MPI-IO write call, and what the
 * POSIX writes beneath each MPI-IO write origin wrote against what it asked
 * for (data sieving, two-phase hole filling). */
static void rmw_event(finder *f, const siot_agg_event *e, uint32_t id, unsigned base)
{
    more *m = &f->m;
    owrite *w;
    if (e->fn->layer == SIOT_LAYER_mpiio && base == SIOT_CLASS_write) {
        m->mpiio_wbytes += rec_bytes(e);
        if ((w = ow_at(f, id)))
            w->mpi_bytes += rec_bytes(e);
        return;
    }
    uint32_t a = e->fn->layer == SIOT_LAYER_posix ? around(f, id, SIOT_LAYER_mpiio) : 0;
    if (!a || SIOT_CLASS_BASE(ofunc(f, a)->cls) != SIOT_CLASS_write)
        return;
    if (base == SIOT_CLASS_read) {
        m->rmw_reads += e->calls * e->nranks;
        m->rmw_rbytes += rec_bytes(e);
        m->rmw_ns += siot_finder_rec_ns(e);
        *(ofunc(f, a)->cls & SIOT_CLS_COLL ? &m->rmw_coll : &m->rmw_indep) = 1;
        m->rmw_h5 |= around(f, a, SIOT_LAYER_hdf5) != 0;
        siot_finder_hit(f, F_RMW, e->calls * e->nranks);
    } else if (base == SIOT_CLASS_write && (w = ow_at(f, a))) {
        w->posix_bytes += rec_bytes(e);
        w->posix_ns += siot_finder_rec_ns(e);
    }
}

static int is_h5_flush(const char *name)
{
    static const char *const FLUSHES[] = {"H5Fflush", "H5Fclose", "H5Dclose", "H5Gclose", "H5Oflush", "H5Dflush"};
    for (size_t i = 0; i < sizeof FLUSHES / sizeof *FLUSHES; i++)
        if (strcmp(name, FLUSHES[i]) == 0)
            return 1;
    return 0;
}

/* hdf5-metadata-flush: the writes HDF5 makes directly (MPI-IO, or POSIX
 * with its sec2 driver) inside its flushes and closes, against those inside
 * H5Dwrite. */
static void h5_event(finder *f, const siot_agg_event *e, uint32_t id, unsigned base)
{
    const siot_origins *o = &f->origins;
    uint32_t p = id < o->n ? o->v[id].parent : 0;
    if (base != SIOT_CLASS_write || !p || p >= o->n || ofunc(f, p)->layer != SIOT_LAYER_hdf5)
        return;
    const char *name = ofunc(f, p)->name;
    more *m = &f->m;
    if (is_h5_flush(name)) {
        m->h5_flush_calls += e->calls * e->nranks;
        m->h5_flush_bytes += rec_bytes(e);
        m->h5_flush_ns += siot_finder_rec_ns(e);
        m->h5_flush_coll |= (e->fn->cls & SIOT_CLS_COLL) != 0;
        siot_finder_hit(f, F_H5FLUSH, e->calls * e->nranks);
    } else if (strncmp(name, "H5Dwrite", 8) == 0) {
        m->h5_data_calls += e->calls * e->nranks;
        m->h5_data_ns += siot_finder_rec_ns(e);
    }
}

/* small-collective-buffer: POSIX data calls inside collective MPI-IO data
 * calls (OMPIO's aio_write and aio_read among them: their bytes are those
 * of the aio_return that completes them); the collective calls counted
 * once per call of the job (a record's calls x its ranks / the job's
 * ranks). */
static void collbuf_event(finder *f, const siot_agg_event *e, uint32_t id, unsigned base)
{
    more *m = &f->m;
    int data = base == SIOT_CLASS_read || base == SIOT_CLASS_write;
    if (data && e->fn->layer == SIOT_LAYER_mpiio && (e->fn->cls & SIOT_CLS_COLL)) {
        m->cb_instances += (double)e->calls * e->nranks / (f->t->nranks ? f->t->nranks : 1);
        return;
    }
    uint32_t a = e->fn->layer == SIOT_LAYER_posix ? around(f, id, SIOT_LAYER_mpiio) : 0;
    if (!a || !(ofunc(f, a)->cls & SIOT_CLS_COLL) || (!data && base != SIOT_CLASS_wait))
        return;
    m->cb_posix_bytes += rec_bytes(e); /* an aio request's bytes come with its aio_return */
    if (!data)
        return;
    m->cb_posix_calls += e->calls * e->nranks;
    m->cb_posix_ns += siot_finder_rec_ns(e);
    siot_finder_hit(f, F_COLLBUF, e->calls * e->nranks);
}

/* collective-straggler, the requests: a non-blocking collective MPI-IO
 * call waits where its request completes (ROMIO runs the collective in
 * MPI_Wait), so the MPI waits that complete one count as the collective.
 * Every call that makes a request notes its id per rank: kept for such a
 * call, taken out for any other (ids are reused). */
enum { REQ_IO = 1 };

static void note_requests(finder *f, const siot_agg_event *e)
{
    int k = siot_arg_index(e->fn, SIOT_ROLE_newreq);
    if (k < 0)
        return;
    int io = e->fn->layer == SIOT_LAYER_mpiio && (e->fn->cls & SIOT_CLS_COLL) && (e->fn->cls & SIOT_CLS_NB);
    siot_ctx c = e->ctx;
    for (uint32_t i = 0; i < e->nranks; i++) {
        c.rank = e->ranks[i];
        int64_t id = siot_eval_int(e->node->u.ev.args[k], &c, INT64_MIN);
        rp_handle *h = id == INT64_MIN ? NULL : rp_hmap_find(&f->m.io_reqs, e->ranks[i], REQ_IO, id);
        if (io && id != INT64_MIN && !h && !rp_hmap_set(&f->m.io_reqs, e->ranks[i], REQ_IO, id, 0))
            f->oom = 1;
        else if (!io && h)
            rp_hmap_remove(&f->m.io_reqs, h);
    }
}

/* 1 when the MPI wait e completes, on some rank of it, a request that
 * note_requests kept (taken out then). */
static int completes_io(finder *f, const siot_agg_event *e)
{
    int k = siot_arg_index(e->fn, SIOT_ROLE_waitreq);
    k = k >= 0 ? k : siot_arg_index(e->fn, SIOT_ROLE_reqarr);
    if (k < 0 || !f->m.io_reqs.count || SIOT_CLASS_BASE(e->fn->cls) != SIOT_CLASS_wait)
        return 0;
    int hit = 0;
    siot_ctx c = e->ctx;
    for (uint32_t i = 0; i < e->nranks; i++) {
        siot_value v;
        c.rank = e->ranks[i];
        f->scratch.len = 0;
        if (siot_eval(e->node->u.ev.args[k], &c, &f->scratch, &v) != 0)
            continue;
        const int64_t *ids = v.kind == SIOT_V_ARR ? v.arr : &v.i;
        uint32_t n = v.kind == SIOT_V_ARR ? v.n : v.kind == SIOT_V_INT;
        for (uint32_t j = 0; j < n; j++) {
            rp_handle *h = rp_hmap_find(&f->m.io_reqs, e->ranks[i], REQ_IO, ids[j]);
            if (h) {
                rp_hmap_remove(&f->m.io_reqs, h);
                hit = 1;
            }
        }
    }
    return hit;
}

/* collective-straggler: in a collective MPI-IO call (or the wait that
 * completes a non-blocking one) the ranks that arrive first wait for the
 * last, so a node's executions beyond its fastest one are waiting:
 * count x (mean - min) of its duration histogram. The rank computing the
 * longest before it (its computation histogram's maximum) is the straggler
 * named. The call sites are the collective calls'. */
static void straggler_event(finder *f, const siot_agg_event *e)
{
    note_requests(f, e);
    int in_wait = completes_io(f, e);
    if ((!in_wait && (e->fn->layer != SIOT_LAYER_mpiio || !(e->fn->cls & SIOT_CLS_COLL))) || f->t->nranks < 2)
        return;
    if (!in_wait)
        siot_finder_hit(f, F_STRAGGLER, e->calls * e->nranks);
    const siot_hist *d = &e->node->u.ev.dur, *c = &e->node->u.ev.comp;
    if (!e->first_visit || d->count < 2)
        return;
    more *m = &f->m;
    double wait = (d->mean - (double)d->min) * (double)d->count;
    m->strag_wait_ns += wait;
    m->strag_coll_ns += d->mean * (double)d->count;
    m->strag_in_waits |= in_wait && wait > 0;
    if (wait > m->strag_most) {
        m->strag_most = wait;
        m->strag_most_fn = e->fn->name;
    }
    if ((double)(c->max - c->min) >= STRAG_COMP_NS && wait > m->strag_worst) {
        m->strag_worst = wait;
        m->strag_rank = c->max_rank;
    }
}

/* The program's opens and closes of files (H5Sclose and the like touch
 * none): in a loop run more than once (open-in-loop), and all of them (the
 * cost of many-files-per-rank and file-per-process). */
static void open_event(finder *f, const siot_agg_event *e, unsigned base)
{
    int open = base == SIOT_CLASS_open && e->fn->layer != SIOT_LAYER_mpi;
    int close = base == SIOT_CLASS_close && e->fn->layer != SIOT_LAYER_mpi &&
                (e->fn->layer != SIOT_LAYER_hdf5 || strcmp(e->fn->name, "H5Fclose") == 0);
    if (!open && !close)
        return;
    more *m = &f->m;
    double ns = siot_finder_rec_ns(e), iters = 1;
    m->open_ns += ns;
    if (open) /* the sites of file-per-process: the program's opens */
        siot_finder_hit(f, F_FPP, e->calls * e->nranks);
    for (uint32_t k = 0; k < e->ctx.depth; k++)
        iters *= (double)e->counts[k];
    if (iters <= 1)
        return;
    *(open ? &m->loop_opens : &m->loop_closes) += e->calls * e->nranks;
    if (open && !(e->summed & 1)) /* walked: the name opened changes with the iteration */
        m->loop_new_opens += e->calls * e->nranks;
    m->loop_ns += ns;
    siot_finder_hit(f, F_OPENLOOP, e->calls * e->nranks);
}

/* redundant-reads: a positioned read of a record of RED_RANKS ranks or more
 * whose offset and file are the same for its first and last rank: each
 * rank after the first reads the bytes again. */
static void redundant_event(finder *f, const siot_agg_event *e)
{
    int koff = siot_arg_index(e->fn, SIOT_ROLE_offset), kh = siot_file_handle_arg(e->fn);
    if (e->nranks < RED_RANKS || koff < 0 || kh < 0 || e->bytes <= 0)
        return;
    siot_ctx c0 = e->ctx, c1 = e->ctx;
    c0.rank = e->ranks[0];
    c1.rank = e->ranks[e->nranks - 1];
    const siot_expr *xo = e->node->u.ev.args[koff], *xh = e->node->u.ev.args[kh];
    if (siot_eval_int(xo, &c0, 0) != siot_eval_int(xo, &c1, 1))
        return;
    unsigned role = e->fn->argroles[kh];
    const char *n0 = siot_files_handle_file(&f->files, c0.rank, role, siot_eval_int(xh, &c0, -1));
    const char *n1 = siot_files_handle_file(&f->files, c1.rank, role, siot_eval_int(xh, &c1, -1));
    if (!n0 || !n1 || strcmp(n0, n1) != 0)
        return;
    more *m = &f->m;
    m->red_calls += e->calls * (e->nranks - 1);
    m->red_bytes += e->calls * (e->nranks - 1) * (uint64_t)e->bytes;
    m->red_ns += siot_finder_rec_ns(e) * (e->nranks - 1) / e->nranks;
    if (e->nranks > m->red_ranks)
        m->red_ranks = e->nranks;
    siot_finder_hit(f, F_REDUNDANT, e->calls * e->nranks);
}

void siot_findmore_event(finder *f, const siot_agg_event *e, int outermost)
{
    uint32_t id = f->origins.current;
    unsigned base = SIOT_CLASS_BASE(e->fn->cls);
    int data = base == SIOT_CLASS_read || base == SIOT_CLASS_write;
    rmw_event(f, e, id, base);
    h5_event(f, e, id, base);
    collbuf_event(f, e, id, base);
    straggler_event(f, e);
    if (!outermost)
        return;
    open_event(f, e, base);
    if (!data)
        return;
    f->m.own_bytes += rec_bytes(e);
    if (e->fn->layer == SIOT_LAYER_stdio) {
        f->m.stdio_calls += e->calls * e->nranks;
        f->m.stdio_bytes += rec_bytes(e);
        f->m.stdio_ns += siot_finder_rec_ns(e);
        siot_finder_hit(f, F_STDIO, e->calls * e->nranks);
    }
    if (base == SIOT_CLASS_read) {
        redundant_event(f, e);
        siot_findptr_event(f, e);
    }
}

/* ------------------------------------------------------------ verdicts */

/* A verdict's rule, severity, cost and plain remedy. */
static void judge(verdict *v, int rule, const char *severity, double ns, uint64_t extra, const char *remedy)
{
    v->rule = rule;
    v->severity = severity;
    v->seconds = ns * 1e-9;
    v->extra_bytes = extra;
    snprintf(v->remedy, sizeof v->remedy, "%s", remedy);
}

/* Independent writes are sieved (romio_ds_write); collective ones fill
 * the holes between the ranks' pieces (romio_cb_write). Under HDF5 an
 * independent H5Dwrite of a strided selection is sieved like any
 * independent write; collective metadata writes leave holes between the
 * cache's entries, fewer when the metadata is gathered into one block
 * (measured with tests/progs/h5flush.c on ROMIO: 296,736 extra bytes, 100,840
 * with H5Pset_meta_block_size of 1 MiB; H5Pset_alignment of 4 KiB doubled
 * them, 597,008, by spreading the objects: not a remedy for this). */
static void rmw_remedy(const more *m, verdict *v)
{
    const char *h5 = !m->rmw_h5     ? ""
                     : m->rmw_indep ? "HDF5: write the dataset collectively "
                                      "(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE)), or give "
                                      "the hint below; "
                                    : "HDF5: gather its metadata into one block "
                                      "(H5Pset_meta_block_size(fapl, 1048576)) so that the "
                                      "collective metadata writes leave fewer holes (not "
                                      "H5Pset_alignment: it spreads the objects apart); ";
    const char *mpi = m->rmw_indep ? "ROMIO: MPI_Info_set(info, \"romio_ds_write\", "
                                     "\"disable\") on the file's "
                                     "info, or write the pieces collectively "
                                     "(MPI_File_write_at_all with "
                                     "romio_cb_write=enable)"
                                   : "ROMIO: let each collective write cover whole ranges "
                                     "without holes between "
                                     "the ranks' pieces, or MPI_Info_set(info, "
                                     "\"romio_cb_write\", \"disable\")";
    snprintf(v->remedy, sizeof v->remedy, "%s%s%s", h5, mpi, m->rmw_h5 ? " in the info given to H5Pset_fapl_mpio" : "");
}

static int rmw_verdict(const finder *f, verdict *v)
{
    const more *m = &f->m;
    uint64_t over = 0;
    double ns = m->rmw_ns;
    for (uint32_t i = 0; i < m->capow; i++) {
        const owrite *w = &m->ow[i];
        if (w->posix_bytes > w->mpi_bytes && w->posix_bytes) {
            over += w->posix_bytes - w->mpi_bytes;
            ns += w->posix_ns * (double)(w->posix_bytes - w->mpi_bytes) / (double)w->posix_bytes;
        }
    }
    uint64_t extra = m->rmw_rbytes + over;
    if (!m->rmw_reads || extra < RMW_MIN)
        return 0;
    v->rule = F_RMW;
    v->severity = extra >= m->mpiio_wbytes ? "high" : "medium";
    v->seconds = ns * 1e-9;
    v->extra_bytes = extra;
    snprintf(v->summary, sizeof v->summary,
             "%" PRIu64 " POSIX reads of %" PRIu64 " bytes inside MPI-IO write calls, and %" PRIu64
             " bytes written beyond the %" PRIu64 " the MPI-IO writes asked for: the MPI-IO layer read the "
             "file's ranges to write them back (%s)",
             m->rmw_reads, m->rmw_rbytes, over, m->mpiio_wbytes,
             m->rmw_indep ? "data sieving of independent writes" : "collective buffering filling holes");
    snprintf(v->evidence, sizeof v->evidence,
             "\"reads\":%" PRIu64 ",\"read_bytes\":%" PRIu64 ",\"overwritten_bytes\":%" PRIu64
             ",\"mpiio_write_bytes\":%" PRIu64 ",\"independent\":%s,\"collective\":%s,\"hdf5\":%s",
             m->rmw_reads, m->rmw_rbytes, over, m->mpiio_wbytes, m->rmw_indep ? "true" : "false",
             m->rmw_coll ? "true" : "false", m->rmw_h5 ? "true" : "false");
    rmw_remedy(m, v);
    return 1;
}

static int h5_verdict(const finder *f, verdict *v)
{
    const more *m = &f->m;
    if (m->h5_flush_calls < H5_MIN || m->h5_flush_calls < m->h5_data_calls)
        return 0;
    double all = m->h5_flush_ns + m->h5_data_ns, share = all > 0 ? m->h5_flush_ns / all : 1;
    v->rule = F_H5FLUSH;
    v->severity = share >= 0.5 ? "high" : "medium";
    v->seconds = m->h5_flush_ns * 1e-9;
    snprintf(v->summary, sizeof v->summary,
             "%" PRIu64 " writes of %" PRIu64 " bytes made by HDF5 flushes and closes (H5Fflush, H5Fclose, "
             "H5Dclose...) against %" PRIu64 " made by H5Dwrite: %.0f%% of HDF5's write time",
             m->h5_flush_calls, m->h5_flush_bytes, m->h5_data_calls, 100 * share);
    snprintf(v->evidence, sizeof v->evidence,
             "\"flush_writes\":%" PRIu64 ",\"flush_bytes\":%" PRIu64 ",\"data_writes\":%" PRIu64
             ",\"flush_s\":%.9f,\"data_s\":%.9f,\"flush_share\":%.4f",
             m->h5_flush_calls, m->h5_flush_bytes, m->h5_data_calls, m->h5_flush_ns * 1e-9, m->h5_data_ns * 1e-9,
             share);
    snprintf(v->remedy, sizeof v->remedy,
             "flush less often: no H5Fflush in the time loop, and a metadata cache "
             "large enough to hold the steps' entries until H5Fclose "
             "(H5Pset_mdc_config); H5Pset_meta_block_size and H5Pset_alignment "
             "place the entries but write as many%s",
             m->h5_flush_coll ? ""
                              : "; at scale, write them collectively "
                                "(H5Pset_coll_metadata_write(fapl, 1): one "
                                "collective write per rank and flush instead of rank 0's "
                                "writes one by one, at the price of synchronising "
                                "the ranks in each flush)");
    return 1;
}

static int collbuf_verdict(const finder *f, verdict *v)
{
    const more *m = &f->m;
    double per = m->cb_instances > 0 ? (double)m->cb_posix_calls / m->cb_instances : 0;
    uint64_t mean = m->cb_posix_calls ? m->cb_posix_bytes / m->cb_posix_calls : 0;
    if (m->cb_posix_calls < CB_MIN || per < CB_RATIO || mean >= CB_SMALL)
        return 0;
    judge(v, F_COLLBUF, per >= 8 * CB_RATIO ? "high" : "medium", m->cb_posix_ns, 0,
          "a larger collective buffer: MPI_Info_set(info, \"cb_buffer_size\", \"16777216\") (ROMIO's default is "
          "16 MiB; OMPIO's: the MCA parameter io_ompio_bytes_per_agg); the number of aggregators (cb_nodes) "
          "does not change the count: each aggregator writes a buffer's worth at a time");
    snprintf(v->summary, sizeof v->summary,
             "%" PRIu64 " POSIX data calls of %" PRIu64 " bytes on average inside %.0f collective MPI-IO calls "
             "(%.1f per call): the collective buffer is small",
             m->cb_posix_calls, mean, m->cb_instances, per);
    snprintf(v->evidence, sizeof v->evidence,
             "\"posix_calls\":%" PRIu64 ",\"posix_bytes\":%" PRIu64 ",\"collective_calls\":%.0f,\"per_call\":%.2f"
             ",\"mean_bytes\":%" PRIu64,
             m->cb_posix_calls, m->cb_posix_bytes, m->cb_instances, per, mean);
    return 1;
}

/* The rank computing the most over the run, from the ranks' own times
 * (exact in either form), when it computes more than the rank computing
 * the least by STRAG_COMP_NS and by half the ranks' mean wait (one late
 * rank makes each other rank wait about its lead: a lead far shorter than
 * the waits does not explain them, as when 256 ranks share 2 cores); -1
 * otherwise or without them. Used when no call site shows who arrives
 * last: a trace recorded with SIOT_TOLERANCE keeps no rank in its
 * histograms (compress/timefold.h), and a wait that lands in a later
 * collective than the computation before it (OMPIO completes
 * MPI_File_iwrite_at_all in MPI_File_close) has no spread of computation
 * before the call that waits. */
static int32_t busiest_rank(const siot_trace *t, double wait_ns)
{
    siot_rtx most, least;
    uint64_t n = siot_rts_nranks(t);
    if (n < 2 || !siot_rts_extremes(t, SIOT_RT_compute, 1, &most, 1) ||
        !siot_rts_extremes(t, SIOT_RT_compute, 0, &least, 1))
        return -1;
    double lead = (double)(most.v - least.v);
    return lead >= STRAG_COMP_NS && lead >= 0.5 * wait_ns / (double)n ? most.rank : -1;
}

static int straggler_verdict(const finder *f, verdict *v)
{
    const more *m = &f->m;
    double share = m->strag_coll_ns > 0 ? m->strag_wait_ns / m->strag_coll_ns : 0;
    if (m->strag_wait_ns < STRAG_MIN_NS || share < STRAG_SHARE)
        return 0;
    int at_site = m->strag_worst > 0 && m->strag_rank >= 0;
    int32_t rank = at_site ? m->strag_rank : busiest_rank(f->t, m->strag_wait_ns);
    if (m->strag_worst <= 0 && rank < 0)
        return 0; /* no rank arrives late: the spread is the calls' own */
    char who[200];
    if (at_site)
        snprintf(who, sizeof who, "rank %d computes the longest before them", rank);
    else if (m->strag_worst <= 0)
        snprintf(who, sizeof who, "rank %d computes the most over the run, before an earlier call than the one that waits",
                 rank);
    else if (rank >= 0)
        snprintf(who, sizeof who, "rank %d computes the most over the run (this trace's timings keep no rank: SIOT_TOLERANCE)", rank);
    else
        snprintf(who, sizeof who, "which rank computes the longest is not kept (SIOT_TOLERANCE)");
    v->rule = F_STRAGGLER;
    v->severity = share >= 0.5 ? "high" : "medium";
    v->seconds = m->strag_wait_ns * 1e-9;
    snprintf(v->summary, sizeof v->summary,
             "ranks wait %.6f s in collective MPI-IO calls%s for the last to "
             "arrive (%.0f%% of their %.6f s; most in %s, %.6f s); %s",
             m->strag_wait_ns * 1e-9, m->strag_in_waits ? " and the MPI waits that complete them" : "", 100 * share,
             m->strag_coll_ns * 1e-9, m->strag_most_fn ? m->strag_most_fn : "?", m->strag_most * 1e-9, who);
    snprintf(v->evidence, sizeof v->evidence,
             "\"wait_s\":%.9f,\"collective_s\":%.9f,\"share\":%.4f,\"straggler_"
             "rank\":%d,\"most_wait_s\":%.9f",
             m->strag_wait_ns * 1e-9, m->strag_coll_ns * 1e-9, share, rank, m->strag_most * 1e-9);
    char last[48] = "";
    if (rank >= 0)
        snprintf(last, sizeof last, " (rank %d arrives last)", rank);
    snprintf(v->remedy, sizeof v->remedy,
             "balance the work before the collective I/O%s. "
             "The split collectives do not shorten the wait (the begin call holds "
             "the whole collective); MPI_File_iwrite_all moves it into MPI_Wait "
             "(with OMPIO into MPI_File_close), which saves time only when the "
             "early ranks have work of their own to do before it",
             last);
    return 1;
}

static int openloop_verdict(const finder *f, verdict *v)
{
    const more *m = &f->m;
    uint32_t P = f->t->nranks ? f->t->nranks : 1;
    if (m->loop_opens < (uint64_t)LOOP_PER_RANK * P)
        return 0;
    judge(v, F_OPENLOOP, "low", m->loop_ns, 0,
          "open the files once before the time loop and close them after it (MPI_File_open, H5Fopen and "
          "ncmpi_open are collective: each one synchronises the ranks)");
    snprintf(v->summary, sizeof v->summary,
             "%" PRIu64 " opens and %" PRIu64 " closes made inside loops that run more than once (%.1f opens per "
             "rank)",
             m->loop_opens, m->loop_closes, (double)m->loop_opens / P);
    snprintf(v->evidence, sizeof v->evidence,
             "\"opens\":%" PRIu64 ",\"closes\":%" PRIu64 ",\"per_rank\":%.2f,\"new_file_opens\":%" PRIu64,
             m->loop_opens, m->loop_closes, (double)m->loop_opens / P, m->loop_new_opens);
    if (2 * m->loop_new_opens > m->loop_opens)
        snprintf(v->remedy, sizeof v->remedy,
                 "a new file in each iteration: write the steps into one file opened before the loop (a dataset "
                 "grown with H5Dset_extent, an unlimited netCDF dimension, an offset per step with "
                 "MPI_File_write_at_all), or keep each file for several steps");
    return 1;
}

static int stdio_verdict(const finder *f, verdict *v)
{
    const more *m = &f->m;
    double share = m->own_bytes ? (double)m->stdio_bytes / (double)m->own_bytes : 0;
    if (m->stdio_bytes < STDIO_MIN || share < STDIO_SHARE)
        return 0;
    judge(v, F_STDIO, share >= 0.5 ? "high" : "medium", m->stdio_ns, 0,
          "move bulk data with write/pwrite of large buffers or with MPI-IO (MPI_File_write_at_all), HDF5 or "
          "PnetCDF; at least give the stream a large buffer: setvbuf(fp, NULL, _IOFBF, 1 << 20)");
    snprintf(v->summary, sizeof v->summary,
             "%" PRIu64 " stdio calls (fwrite, fread...) move %" PRIu64 " bytes, %.0f%% of the program's data",
             m->stdio_calls, m->stdio_bytes, 100 * share);
    snprintf(v->evidence, sizeof v->evidence, "\"calls\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"share\":%.4f",
             m->stdio_calls, m->stdio_bytes, share);
    return 1;
}

static int redundant_verdict(const finder *f, verdict *v)
{
    const more *m = &f->m;
    if (m->red_bytes < RED_MIN)
        return 0;
    judge(v, F_REDUNDANT, "medium", m->red_ns, m->red_bytes,
          "read the data once and share it: one rank reads and MPI_Bcast sends it, or a collective read "
          "(MPI_File_read_at_all) that reads each byte once");
    snprintf(v->summary, sizeof v->summary,
             "%" PRIu64 " bytes read again in %" PRIu64 " reads (%" PRIu64 " of the bytes at a file pointer): up "
             "to %u ranks read the same bytes of the same file",
             m->red_bytes, m->red_calls, m->red_ptr_bytes, m->red_ranks);
    snprintf(v->evidence, sizeof v->evidence,
             "\"calls\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"ranks\":%u,\"pointer_bytes\":%" PRIu64, m->red_calls,
             m->red_bytes, m->red_ranks, m->red_ptr_bytes);
    return 1;
}

int siot_findmore_verdicts(const finder *f, verdict *v)
{
    int n = 0;
    n += rmw_verdict(f, &v[n]);
    n += h5_verdict(f, &v[n]);
    n += collbuf_verdict(f, &v[n]);
    n += straggler_verdict(f, &v[n]);
    n += openloop_verdict(f, &v[n]);
    n += stdio_verdict(f, &v[n]);
    n += redundant_verdict(f, &v[n]);
    return n;
}

void siot_findmore_free(finder *f)
{
    free(f->m.ow);
    rp_hmap_free(&f->m.io_reqs);
}
