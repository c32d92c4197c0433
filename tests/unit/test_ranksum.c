/* test_ranksum: the summary of per-rank times (core/ranksum.h). Random
 * per-rank values of many job sizes are merged in the order of the job's
 * binary tree (pmpi/job_trace.c: rank r takes r + step's subtree), and the
 * result is checked against the values themselves: minimum, maximum, the K
 * fastest and slowest ranks and their values exactly, the histogram's
 * bins exactly (they add up to the ranks), mean and variance within float
 * rounding; at most 2K ranks keep every row. Then the summary goes through
 * both file forms and back, in minor 9's form as in minor 7's (the same
 * summary read back from either), and corrupt summaries of both are
 * refused. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/hist.h"
#include "core/ranksum.h"
#include "tests/unit/unit.h"

/* core/format_ranktimes.c: set, the writer writes minor 7's RANKSUM (tag 7)
 * instead of minor 9's (tag 8). */
extern int siot_fmt_ranksum_minor7;
enum { TAG_RANKSUM7 = 7, TAG_RANKSUM9 = 8 };

static uint32_t rng_state = 2463534242u;
static uint32_t rng(void) { return unit_rng(&rng_state); }

/* A rank's values: some quantities with many ties (few distinct values),
 * some zero everywhere, some spread over decades. */
static void fill_row(siot_rtrow *row, int32_t rank)
{
    memset(row, 0, sizeof *row);
    row->rank = rank;
    row->v[SIOT_RT_io] = (uint64_t)(rng() % 5) * 1000;
    row->v[SIOT_RT_mpi] = (uint64_t)rng() % 100000000u;
    row->v[SIOT_RT_mpi_collective] = row->v[SIOT_RT_mpi] / 2;
    row->v[SIOT_RT_mpi_init] = 1000 + rng() % 7;
    row->v[SIOT_RT_layer_posix] = (uint64_t)1 << (rng() % 40);
    row->v[SIOT_RT_span] = row->v[SIOT_RT_io] + row->v[SIOT_RT_mpi] + row->v[SIOT_RT_mpi_init] + rng() % 3000000u;
    row->v[SIOT_RT_layer_mpiio] = row->v[SIOT_RT_io]; /* all I/O through MPI-IO: one summary twice */
}

/* The job's trace: leaves of one row each, merged as the binary tree does. */
static void merge_job(siot_trace *t, const siot_rtrow *rows, uint32_t n, uint32_t keep)
{
    for (uint32_t r = 0; r < n; r++) {
        siot_trace_init(&t[r]);
        t[r].nranks = n;
        t[r].rt_keep = keep;
        t[r].rt = siot_arena_alloc(&t[r].arena, sizeof *t[r].rt);
        t[r].rt[0] = rows[r];
        t[r].nrt = 1;
    }
    for (uint32_t step = 1; step < n; step *= 2)
        for (uint32_t r = 0; r + step < n; r += 2 * step) {
            CHECK(siot_rts_union(&t[r], &t[r + step]) == 0);
            siot_trace_free(&t[r + step]);
        }
}

static int by_value(const void *a, const void *b, unsigned key)
{
    const siot_rtrow *x = a, *y = b;
    uint64_t u = siot_rt_value(x, key), v = siot_rt_value(y, key);
    if (u != v)
        return u < v ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}
static unsigned sort_key;
static int by_key(const void *a, const void *b) { return by_value(a, b, sort_key); }

/* One quantity of the merged trace against the values themselves. */
static void check_quantity(const siot_trace *t, const siot_hist *h, siot_rtrow *rows, uint32_t n, unsigned k,
                           uint32_t keep)
{
    sort_key = k;
    qsort(rows, n, sizeof *rows, by_key);
    double sum = 0, m2 = 0;
    uint64_t bins[SIOT_HBINS] = {0}, total = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += (double)siot_rt_value(&rows[i], k);
        bins[siot_hist_bin(siot_rt_value(&rows[i], k))]++;
    }
    double mean = sum / n;
    for (uint32_t i = 0; i < n; i++)
        m2 += ((double)siot_rt_value(&rows[i], k) - mean) * ((double)siot_rt_value(&rows[i], k) - mean);
    CHECK(h->count == n && h->min == siot_rt_value(&rows[0], k) && h->max == siot_rt_value(&rows[n - 1], k));
    CHECK(fabs(h->mean - mean) <= 1e-9 * (fabs(mean) + 1));
    CHECK(fabs(h->m2 - m2) <= 1e-7 * (m2 + 1));
    for (unsigned b = 0; b < SIOT_HBINS; b++) {
        CHECK(siot_hist_bin_count(h, b) == bins[b]);
        total += siot_hist_bin_count(h, b);
    }
    CHECK(total == n);
    siot_rtx ex[64];
    uint32_t want = keep < n ? keep : n;
    CHECK(siot_rts_extremes(t, k, 0, ex, keep) == want);
    for (uint32_t i = 0; i < want; i++)
        CHECK(ex[i].rank == rows[i].rank && ex[i].v == siot_rt_value(&rows[i], k));
    CHECK(siot_rts_extremes(t, k, 1, ex, keep) == want);
    for (uint32_t i = 0; i < want; i++)
        CHECK(ex[i].rank == rows[n - 1 - i].rank && ex[i].v == siot_rt_value(&rows[n - 1 - i], k));
}

static void check_job(uint32_t n, uint32_t keep)
{
    siot_rtrow *rows = calloc(n, sizeof *rows);
    siot_trace *t = malloc(n * sizeof *t);
    CHECK(rows && t);
    if (!rows || !t) {
        free(rows);
        free(t);
        return;
    }
    for (uint32_t r = 0; r < n; r++)
        fill_row(&rows[r], (int32_t)r);
    merge_job(t, rows, n, keep);
    CHECK(siot_rts_nranks(&t[0]) == n);
    CHECK(n > 2 * keep ? t[0].rtsum != NULL && t[0].nrt == 0 : t[0].rtsum == NULL && t[0].nrt == n);
    siot_hist buf[SIOT_RT_NQ];
    const siot_hist *sum = siot_rts_get(&t[0], &t[0].arena, buf);
    CHECK(sum != NULL);
    for (unsigned k = 0; sum && k < SIOT_RT_NQ; k++)
        check_quantity(&t[0], &sum[k], rows, n, k, keep);
    siot_trace_free(&t[0]);
    free(t);
    free(rows);
}

/* The file f again with its RANKSUM section (tag: 7 or 8) written twice,
 * or with that section's payload changed by edit; END's count follows. */
static void recraft(const siot_vbuf *f, siot_vbuf *out, uint8_t sumtag, int twice, void (*edit)(siot_vbuf *))
{
    siot_rd rd;
    siot_rd_init(&rd, f->data + 12, f->len - 12);
    out->len = 0;
    siot_vbuf_put(out, f->data, 12);
    uint8_t tag;
    const uint8_t *p;
    uint64_t n, nsec = 0;
    siot_vbuf sec;
    siot_vbuf_init(&sec);
    while (siot_rd_left(&rd) > 0 && siot_rd_section(&rd, &tag, &p, &n) == 0) {
        for (int copy = 0; copy < (tag == sumtag && twice ? 2 : 1); copy++) {
            sec.len = 0;
            if (tag == 5) {
                siot_vbuf_uvar(&sec, nsec);
            } else {
                siot_vbuf_put(&sec, p, n);
                if (tag == sumtag && edit)
                    edit(&sec);
            }
            siot_vbuf_u8(out, tag);
            siot_vbuf_uvar(out, sec.len);
            siot_vbuf_put(out, sec.data, sec.len);
            siot_vbuf_u32le(out, siot_crc32(siot_crc32(0, &tag, 1), sec.data, sec.len));
            nsec++;
        }
    }
    siot_vbuf_free(&sec);
}

/* RANKSUM = keep, n, the m = min(keep, n) lowest and highest ranks,
 * nkeys, (key, hist, m fastest, m slowest)...: every quantity listed twice. */
static void twice_a_key(siot_vbuf *sec)
{
    siot_rd rd;
    siot_rd_init(&rd, sec->data, sec->len);
    uint64_t keep = siot_rd_uvar(&rd), n = siot_rd_uvar(&rd);
    for (uint64_t i = 0; i < 2 * (n < keep ? n : keep); i++)
        siot_rd_uvar(&rd);
    size_t at = (size_t)(rd.p - sec->data);
    uint64_t nk = siot_rd_uvar(&rd);
    siot_vbuf body;
    siot_vbuf_init(&body);
    siot_vbuf_put(&body, sec->data, at);
    siot_vbuf_uvar(&body, nk + 1);
    size_t keys = (size_t)(rd.p - sec->data);
    siot_vbuf_put(&body, sec->data + keys, sec->len - keys);
    siot_vbuf_put(&body, sec->data + keys, sec->len - keys); /* every quantity again */
    sec->len = 0;
    siot_vbuf_put(sec, body.data, body.len);
    siot_vbuf_free(&body);
}

/* The count of ranks one less than the histograms'. */
static void other_count(siot_vbuf *sec)
{
    sec->data[1]--; /* keep and n under 128: one byte each */
}

/* Minor 9's RANKSUM = keep, n, w << 1 | lists, [lists], mask, entries:
 * the offsets of the mask and of the first entry (lists: not written,
 * every rank summarised). */
static void find_mask(const siot_vbuf *sec, size_t *mask_at, size_t *entry_at, uint64_t *mask)
{
    siot_rd rd;
    siot_rd_init(&rd, sec->data, sec->len);
    for (int i = 0; i < 3; i++)
        siot_rd_uvar(&rd);
    *mask_at = (size_t)(rd.p - sec->data);
    *mask = siot_rd_uvar(&rd);
    *entry_at = (size_t)(rd.p - sec->data);
}

/* The first entry names itself (a quantity not before it). */
static void entry_names_itself(siot_vbuf *sec)
{
    size_t m, e;
    uint64_t mask;
    find_mask(sec, &m, &e, &mask);
    sec->data[e] = (uint8_t)(__builtin_ctzll(mask) << 1 | 1);
}

/* The first entry's head of a form this reader does not know. */
static void entry_of_unknown_form(siot_vbuf *sec)
{
    size_t m, e;
    uint64_t mask;
    find_mask(sec, &m, &e, &mask);
    sec->data[e] = 16;
}

/* The section cut short. */
static void cut_short(siot_vbuf *sec) { sec->len -= 3; }

/* A quantity of a newer version (number 40) appended, naming the first:
 * read and skipped. */
static void newer_quantity(siot_vbuf *sec)
{
    size_t m, e;
    uint64_t mask;
    find_mask(sec, &m, &e, &mask);
    siot_vbuf body;
    siot_vbuf_init(&body);
    siot_vbuf_put(&body, sec->data, m);
    siot_vbuf_uvar(&body, mask | 1ULL << 40);
    siot_vbuf_put(&body, sec->data + e, sec->len - e);
    siot_vbuf_uvar(&body, (uint64_t)__builtin_ctzll(mask) << 1 | 1);
    sec->len = 0;
    siot_vbuf_put(sec, body.data, body.len);
    siot_vbuf_free(&body);
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Two traces' summaries, field by field: the same. */
static void check_same_summary(const siot_trace *a, const siot_trace *b)
{
    CHECK(a->rtsum && b->rtsum && a->rt_keep == b->rt_keep && a->nrt == b->nrt);
    for (unsigned k = 0; a->rtsum && b->rtsum && k < SIOT_RT_NQ; k++) {
        const siot_hist *x = &a->rtsum[k], *y = &b->rtsum[k];
        CHECK(x->count == y->count && x->min == y->min && x->max == y->max && x->max_rank == y->max_rank &&
              x->max_occ == y->max_occ && same_double(x->mean, y->mean) && same_double(x->m2, y->m2));
        for (unsigned i = 0; i < SIOT_HBINS; i++)
            CHECK(siot_hist_bin_count(x, i) == siot_hist_bin_count(y, i));
    }
    for (unsigned l = 0; a->rtsum && b->rtsum && l < SIOT_RTS_NLISTS; l++) {
        CHECK(a->nrtx[l] == b->nrtx[l]);
        for (uint32_t j = 0; j < a->nrtx[l] && j < b->nrtx[l]; j++)
            CHECK(a->rtx[l][j].rank == b->rtx[l][j].rank && a->rtx[l][j].v == b->rtx[l][j].v);
    }
}

static void check_refusals(const siot_trace *t, int minor7)
{
    static const struct {
        int minor7, twice;
        void (*edit)(siot_vbuf *);
        const char *why; /* NULL: read as the file without the edit */
    } cases[] = {{1, 1, NULL, "two rank-time summaries"},
                 {1, 0, twice_a_key, "a quantity summarised twice"},
                 {1, 0, other_count, "another rank count"},
                 {0, 1, NULL, "two rank-time summaries"},
                 {0, 0, entry_names_itself, "names a quantity not listed before it"},
                 {0, 0, entry_of_unknown_form, "of an unknown form"},
                 {0, 0, cut_short, "trace is corrupt ("},
                 {0, 0, newer_quantity, NULL}};
    uint8_t tag = minor7 ? TAG_RANKSUM7 : TAG_RANKSUM9;
    siot_vbuf f, g;
    siot_vbuf_init(&f);
    siot_vbuf_init(&g);
    char err[256];
    siot_trace d, plain;
    siot_fmt_ranksum_minor7 = minor7;
    CHECK(siot_trace_encode(t, &f) == 0);
    siot_fmt_ranksum_minor7 = 0;
    recraft(&f, &g, tag, 0, NULL);
    CHECK(siot_trace_decode(g.data, g.len, &plain, err, sizeof err) == 0 && plain.rtsum);
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cases[i].minor7 != minor7)
            continue;
        recraft(&f, &g, tag, cases[i].twice, cases[i].edit);
        int rc = siot_trace_decode(g.data, g.len, &d, err, sizeof err);
        if (!cases[i].why) {
            CHECK(rc == 0);
            if (rc == 0)
                check_same_summary(&plain, &d);
        } else {
            CHECK(rc == -1 && strstr(err, cases[i].why) && !strchr(err, '\n'));
            if (rc == -1 && !strstr(err, cases[i].why))
                fprintf(stderr, "  %s: refused as '%s'\n", cases[i].why, err);
        }
        if (rc == 0)
            siot_trace_free(&d);
    }
    if (plain.rtsum)
        siot_trace_free(&plain);
    siot_vbuf_free(&f);
    siot_vbuf_free(&g);
}

/* Minor 9's summary reads back as minor 7's (the form it replaces, whose
 * reader is the reference), field for field, in the exact form and the
 * file form, at several n and K; and is the smaller. */
static void check_minor7_alike(void)
{
    static const uint32_t cases[][2] = {{3, 1}, {17, 8}, {40, 3}, {257, 8}, {1000, 50}, {4999, 8}};
    for (unsigned c = 0; c < sizeof cases / sizeof *cases; c++) {
        uint32_t n = cases[c][0], keep = cases[c][1];
        siot_rtrow *rows = malloc(n * sizeof *rows);
        siot_trace *t = malloc(n * sizeof *t);
        CHECK(rows && t);
        for (uint32_t r = 0; rows && t && r < n; r++)
            fill_row(&rows[r], (int32_t)r);
        if (rows && t)
            merge_job(t, rows, n, keep);
        for (int exact = 1; rows && t && exact >= 0; exact--) {
            siot_vbuf f[2];
            siot_trace d[2];
            char err[256];
            for (int v7 = 0; v7 < 2; v7++) {
                siot_vbuf_init(&f[v7]);
                siot_fmt_ranksum_minor7 = v7;
                CHECK((exact ? siot_trace_encode_exact(&t[0], &f[v7]) : siot_trace_encode(&t[0], &f[v7])) == 0);
                siot_fmt_ranksum_minor7 = 0;
                CHECK(siot_trace_decode(f[v7].data, f[v7].len, &d[v7], err, sizeof err) == 0 && d[v7].rtsum);
            }
            check_same_summary(&d[0], &d[1]);
            CHECK(f[0].len < f[1].len);
            for (int v7 = 0; v7 < 2; v7++) {
                siot_trace_free(&d[v7]);
                siot_vbuf_free(&f[v7]);
            }
        }
        if (t)
            siot_trace_free(&t[0]);
        free(t);
        free(rows);
    }
}

/* A file of two blocks (a job whose merge was refused for memory): one of
 * ranks 0..19 summarised, one of ranks 20..23 with rows only; the reader
 * makes one summary of the 24 ranks, as a merge would. */
static void check_blocks(void)
{
    enum { NA = 20, NB = 4, K = 3 };
    siot_rtrow rows[NA + NB];
    siot_trace a[NA], b[NB], d;
    for (uint32_t r = 0; r < NA + NB; r++)
        fill_row(&rows[r], (int32_t)r);
    merge_job(a, rows, NA, K);
    merge_job(b, rows + NA, NB, K);
    a[0].nranks = b[0].nranks = NA + NB;
    siot_vbuf f;
    siot_vbuf_init(&f);
    uint32_t nsec = 1;
    int rc = siot_file_start(&a[0], &f);
    for (int i = 0; i < 2 && rc == 0; i++) {
        siot_trace *t = i ? &b[0] : &a[0];
        siot_fmap m;
        siot_vbuf nodes;
        siot_vbuf_init(&nodes);
        rc = siot_fmap_init(&m, 0) || siot_nodes_section(t->top, 0, &m, &nodes) || siot_block_tables(t, &m, &f);
        siot_vbuf_put(&f, nodes.data, nodes.len); /* the tables, then the nodes */
        nsec += siot_block_table_sections(t) + 1;
        siot_vbuf_free(&nodes);
        siot_fmap_free(&m);
    }
    CHECK(rc == 0 && siot_file_end(nsec, &f) == 0);
    char err[256];
    CHECK(siot_trace_decode(f.data, f.len, &d, err, sizeof err) == 0);
    if (d.rtsum) {
        CHECK(siot_rts_nranks(&d) == NA + NB && d.nrt == 0 && d.rt_keep == K);
        siot_rtrow all[NA + NB];
        memcpy(all, rows, sizeof all);
        sort_key = SIOT_RT_mpi;
        qsort(all, NA + NB, sizeof *all, by_key);
        const siot_hist *h = &d.rtsum[SIOT_RT_mpi];
        siot_rtx ex[K];
        /* the file form keeps times to 0.1% */
        CHECK(fabs((double)h->max - (double)all[NA + NB - 1].v[SIOT_RT_mpi]) <= 2e-3 * (double)h->max);
        CHECK(siot_rts_extremes(&d, SIOT_RT_mpi, 1, ex, K) == K);
        CHECK(ex[0].v == h->max);
        for (unsigned i = 0; i < K; i++) /* random values up to 1e8: no two of the slowest round alike */
            CHECK(ex[i].rank == all[NA + NB - 1 - i].rank);
        siot_trace_free(&d);
    } else {
        CHECK(!"no summary read from the blocks");
        fprintf(stderr, "  blocks: %s\n", err);
    }
    siot_vbuf_free(&f);
    siot_trace_free(&a[0]);
    siot_trace_free(&b[0]);
}

/* The merged summary through the exact form and the file form. */
static void check_file_forms(void)
{
    enum { N = 40, K = 3 };
    siot_rtrow rows[N];
    siot_trace t[N], d;
    for (uint32_t r = 0; r < N; r++)
        fill_row(&rows[r], (int32_t)r);
    merge_job(t, rows, N, K);
    char err[256];
    for (int exact = 1; exact >= 0; exact--) {
        siot_vbuf f;
        siot_vbuf_init(&f);
        CHECK((exact ? siot_trace_encode_exact(&t[0], &f) : siot_trace_encode(&t[0], &f)) == 0);
        CHECK(siot_trace_decode(f.data, f.len, &d, err, sizeof err) == 0);
        CHECK(d.rtsum != NULL && d.rt_keep == K && d.nrt == 0 && siot_rts_nranks(&d) == N);
        for (unsigned l = 0; d.rtsum && l < SIOT_RTS_NLISTS; l++) {
            CHECK(d.nrtx[l] == t[0].nrtx[l]);
            for (uint32_t j = 0; exact && j < d.nrtx[l] && j < t[0].nrtx[l]; j++)
                CHECK(d.rtx[l][j].rank == t[0].rtx[l][j].rank && d.rtx[l][j].v == t[0].rtx[l][j].v);
        }
        for (unsigned k = 0; d.rtsum && k < SIOT_RT_NQ; k++) {
            const siot_hist *a = &t[0].rtsum[k], *b = &d.rtsum[k];
            double tol = exact ? 0 : 0.002;
            CHECK(fabs((double)b->min - (double)a->min) <= tol * (double)a->min + 1);
            CHECK(fabs((double)b->max - (double)a->max) <= tol * (double)a->max);
            CHECK(fabs(b->mean - a->mean) <= (exact ? 1e-9 : 0.002) * (a->mean + 1));
        }
        if (d.rtsum)
            siot_trace_free(&d);
        siot_vbuf_free(&f);
    }
    check_refusals(&t[0], 1);
    check_refusals(&t[0], 0);
    /* an extreme outside its summary, and a summary of more ranks than the job */
    siot_vbuf f;
    siot_vbuf_init(&f);
    siot_rtx *top = &t[0].rtx[2 * SIOT_RT_mpi + 1][K - 1], was = *top;
    top->v = t[0].rtsum[SIOT_RT_mpi].max + 1;
    CHECK(siot_trace_encode_exact(&t[0], &f) == 0);
    CHECK(siot_trace_decode(f.data, f.len, &d, err, sizeof err) == -1 && strstr(err, "outside its summary"));
    f.len = 0;
    *top = was;
    t[0].nranks = N - 1;
    CHECK(siot_trace_encode_exact(&t[0], &f) == 0);
    CHECK(siot_trace_decode(f.data, f.len, &d, err, sizeof err) == -1 && err[0]);
    siot_vbuf_free(&f);
    siot_trace_free(&t[0]);
}

/* The rank-time sections' bytes of n ranks summarised with K = 8, in the
 * file form of minor 9 (v7: minor 7's): bounded by the quantities and K,
 * not the ranks (only the ranks' width grows, with their log). */
static uint64_t summary_bytes(uint32_t n, int v7)
{
    siot_trace t;
    siot_trace_init(&t);
    t.nranks = n;
    siot_rts acc = {.sum = siot_arena_alloc(&t.arena, SIOT_RT_NQ * sizeof *acc.sum)};
    siot_rtrow *rows = malloc((size_t)n * sizeof *rows);
    CHECK(rows && acc.sum);
    uint64_t sz[SIOT_NSECTION_SIZES] = {0};
    if (rows && acc.sum) {
        for (uint32_t r = 0; r < n; r++)
            fill_row(&rows[r], (int32_t)r);
        CHECK(siot_rts_add_rows(&t.arena, &acc, rows, n, SIOT_RT_KEEP_DEFAULT) == 0);
        siot_rts_set(&t, &acc, SIOT_RT_KEEP_DEFAULT);
        siot_fmt_ranksum_minor7 = v7;
        CHECK(siot_section_sizes(&t, sz) == 0);
        siot_fmt_ranksum_minor7 = 0;
    }
    free(rows);
    siot_trace_free(&t);
    return sz[4];
}

static void check_sizes(void)
{
    static const uint32_t ns[] = {64, 128, 256, 1024, 4096, 65536};
    uint64_t b[6], b7[6];
    for (unsigned i = 0; i < 6; i++) {
        rng_state = 2463534242u; /* the same values in both forms */
        b7[i] = summary_bytes(ns[i], 1);
        rng_state = 2463534242u;
        b[i] = summary_bytes(ns[i], 0);
        printf("  rank times of %u ranks (K=8): %llu bytes (minor 7: %llu)\n", ns[i], (unsigned long long)b[i],
               (unsigned long long)b7[i]);
        CHECK(4 * b[i] <= 3 * b7[i]);
    }
    /* a rank takes 6 bits at 64 ranks, 8 at 256, 16 at 65,536: 2K ranks
     * of each quantity */
    CHECK(b[2] <= b[0] + 2 * 2 * 8 * SIOT_RT_NQ / 8 && b[5] <= b[0] + 10 * 2 * 8 * SIOT_RT_NQ / 8);
}

int main(void)
{
    static const uint32_t sizes[] = {1, 2, 3, 6, 7, 16, 17, 33, 100, 257, 1000, 4999, 5000};
    static const uint32_t keeps[] = {1, 3, 8};
    for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (unsigned j = 0; j < sizeof keeps / sizeof *keeps; j++)
            check_job(sizes[i], keeps[j]);
    for (int i = 0; i < 40; i++) /* random sizes */
        check_job(1 + rng() % 5000, 1 + rng() % 12);
    check_file_forms();
    check_minor7_alike();
    check_blocks();
    check_sizes();
    return unit_done("ranksum");
}
