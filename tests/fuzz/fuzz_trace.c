/* fuzz_trace: libFuzzer target for everything that reads a trace file.
 *
 * The input is a trace file. It must be rejected with a reason or decoded;
 * a decoded trace must survive what siot does with one: the structure dump,
 * the statistics in every format (arithmetic on loop counts, never
 * expansion), the HTML report (a bounded timeline), the exports within a
 * small --max-events (refused beyond it, counted arithmetically), a
 * bounded walk of some ranks' events with every argument evaluated, the
 * replay's walk at both levels (replay/plan.h: what ioreplay reissues), and
 * re-encoding, whose output must decode again.
 *
 * An input holding two traces one after the other (a second magic number)
 * is also merged as `siot merge` and MPI_Finalize do, when both decode and
 * their ranks are disjoint parts of one job: side by side and merged, the
 * result must re-encode and decode again.
 *
 *   make fuzz             builds build/fuzz/fuzz_trace (clang, libFuzzer, ASan, UBSan)
 *   build/fuzz/fuzz_trace tests/fuzz/corpus -max_total_time=1800
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "compress/merge.h"
#include "core/ranklist.h"
#include "replay/plan.h"
#include "replay/walk.h"
#include "siot/dump.h"
#include "siot/export.h"
#include "siot/findings.h"
#include "core/format.h"
#include "siot/report.h"
#include "siot/stats.h"

#define WALK_EVENTS 20000
#define WALK_RANKS 4

static FILE *sink;

static void walk_some(const siot_trace *t)
{
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    uint32_t nr = t->nranks < WALK_RANKS ? t->nranks : WALK_RANKS;
    for (uint32_t r = 0; r < nr; r++) {
        siot_iter it;
        if (siot_iter_init(&it, t, r) != 0)
            continue;
        siot_ctx ctx;
        const siot_node *n;
        for (int k = 0; k < WALK_EVENTS && (n = siot_iter_next(&it, &ctx)); k++) {
            const siot_event *e = &n->u.ev;
            siot_value v;
            for (uint32_t a = 0; a < e->nargs; a++) {
                scratch.len = 0;
                siot_eval(e->args[a], &ctx, &scratch, &v);
            }
            (void)siot_eval_int(e->ret, &ctx, 0);
            (void)siot_eval_int(e->bytes, &ctx, 0);
            (void)siot_eval_int(e->parent, &ctx, 0);
        }
        siot_iter_free(&it);
    }
    siot_vbuf_free(&scratch);
}

/* What ioreplay would reissue, at both levels, for a few ranks. */
static void plan_some(const siot_trace *t)
{
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    uint32_t nr = t->nranks < WALK_RANKS ? t->nranks : WALK_RANKS;
    for (int level = 0; level < 2; level++)
        for (uint32_t r = 0; r < nr; r++) {
            rp_plan p;
            if (rp_plan_init(&p, t, r, level) != 0)
                continue;
            rp_step st;
            for (int k = 0; k < WALK_EVENTS && rp_plan_next(&p, &st); k++) {
                siot_value v;
                for (uint32_t a = 0; st.replay && a < st.ev->nargs; a++) {
                    scratch.len = 0;
                    siot_eval(st.ev->args[a], &st.ctx, &scratch, &v);
                }
                rp_plan_done(&p, &st, st.replay && (k & 1));
            }
            rp_plan_free(&p);
        }
    siot_vbuf_free(&scratch);
}

static void must_reencode(const siot_trace *t, const char *what)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    char err[256];
    if (siot_trace_encode_exact(t, &b) == 0) {
        siot_trace u;
        siot_format_verify_crc = 1;
        int rc = siot_trace_decode(b.data, b.len, &u, err, sizeof err);
        siot_format_verify_crc = 0;
        if (rc != 0) {
            fprintf(stderr, "%s: re-encoded trace rejected: %s\n", what, err);
            abort();
        }
        siot_trace_free(&u);
    }
    siot_vbuf_free(&b);
}

static void ranks_of(const siot_node *const *nodes, uint32_t n, uint8_t *mine, uint32_t nranks)
{
    for (uint32_t i = 0; i < n; i++) {
        const siot_ranklist *rl = &nodes[i]->ranks;
        for (uint32_t r = 0; r < nranks; r++)
            if (siot_rl_contains(rl, r))
                mine[r] = 1;
    }
}

/* Two traces of disjoint ranks of one job, merged and appended. */
static void merge_pair(const uint8_t *data, size_t size, size_t cut)
{
    siot_trace a, b;
    char err[256];
    if (siot_trace_decode(data, cut, &a, err, sizeof err) != 0)
        return;
    if (siot_trace_decode(data + cut, size - cut, &b, err, sizeof err) != 0) {
        siot_trace_free(&a);
        return;
    }
    int disjoint = a.nranks == b.nranks && a.nranks <= 4096;
    uint8_t *ra = disjoint ? calloc(a.nranks, 1) : NULL, *rb = disjoint ? calloc(a.nranks, 1) : NULL;
    if (ra && rb) {
        ranks_of((const siot_node *const *)a.top, a.ntop, ra, a.nranks);
        ranks_of((const siot_node *const *)b.top, b.ntop, rb, b.nranks);
        for (uint32_t r = 0; r < a.nranks; r++)
            disjoint &= !(ra[r] && rb[r]);
    }
    free(ra);
    free(rb);
    if (disjoint) {
        siot_trace c, d;
        /* each operation consumes its second argument: decode again for the other */
        if (siot_trace_decode(data, cut, &c, err, sizeof err) == 0 &&
            siot_trace_decode(data + cut, size - cut, &d, err, sizeof err) == 0) {
            if (siot_trace_append(&c, &d) == 0) {
                must_reencode(&c, "appended");
                plan_some(&c);
            }
        }
        siot_trace_free(&c);
        if (siot_trace_merge(&a, &b, 64) == 0) {
            must_reencode(&a, "merged");
            siot_stats(&a, "fuzz", 0, sink, err, sizeof err);
            plan_some(&a);
        }
    } else {
        siot_trace_free(&b);
    }
    siot_trace_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink) {
        sink = fopen("/dev/null", "w");
        siot_stats_resolve_sites = 0; /* no addr2line on names taken from the input */
        siot_format_verify_crc = 0;   /* mutations reach the parsers, not just the checksum */
    }
    static const uint8_t magic[8] = {0x89, 'S', 'I', 'O', 'T', '\r', '\n', 0x1a};
    for (size_t cut = 8; cut + 8 <= size; cut++)
        if (memcmp(data + cut, magic, 8) == 0) {
            merge_pair(data, size, cut);
            break;
        }
    siot_trace t;
    char err[256];
    if (siot_trace_decode(data, size, &t, err, sizeof err) != 0) {
        if (!err[0])
            abort(); /* a rejection always says why */
        return 0;
    }
    siot_dump_human(&t, "fuzz", sink, 0); /* nested */
    siot_dump_human(&t, "fuzz", sink, 1); /* raw */
    for (int fmt = 0; fmt < 3; fmt++)
        siot_stats(&t, "fuzz", fmt, sink, err, sizeof err);
    siot_findings(&t, "fuzz", 0, sink, err, sizeof err);
    siot_findings(&t, "fuzz", 1, sink, err, sizeof err);
    siot_report_opts ro = {WALK_RANKS, 2000, 20000};
    siot_report(&t, "fuzz", &ro, sink, err, sizeof err);
    for (int fmt = SIOT_EXPORT_CHROME; fmt <= SIOT_EXPORT_CSV; fmt++) {
        siot_export_opts eo = {fmt, 5000, 0, 0, ""};
        uint64_t written;
        siot_export(&t, &eo, sink, &written, err, sizeof err);
    }
    walk_some(&t);
    plan_some(&t);
    must_reencode(&t, "decoded");
    siot_trace_free(&t);
    return 0;
}
