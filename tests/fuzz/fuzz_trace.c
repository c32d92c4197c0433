/* fuzz_trace: libFuzzer target for everything that reads a trace file.
 *
 * The input is a trace file. It must be rejected with a reason or decoded;
 * a decoded trace must survive what siot does with one: the structure dump,
 * the statistics in every format (arithmetic on loop counts, never
 * expansion), the HTML report (a bounded timeline), the exports within a
 * small --max-events (refused beyond it, counted arithmetically), a
 * bounded walk of some ranks' events with every argument evaluated, and
 * re-encoding, whose output must decode again.
 *
 *   make fuzz             builds build/fuzz/fuzz_trace (clang, libFuzzer, ASan, UBSan)
 *   build/fuzz/fuzz_trace tests/fuzz/corpus -max_total_time=1800
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress/expr.h"
#include "replay/walk.h"
#include "src/dump.h"
#include "src/export.h"
#include "src/format.h"
#include "src/report.h"
#include "src/stats.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink) {
        sink = fopen("/dev/null", "w");
        siot_stats_resolve_sites = 0; /* no addr2line on names taken from the input */
        siot_format_verify_crc = 0;   /* mutations reach the parsers, not just the checksum */
    }
    siot_trace t;
    char err[256];
    if (siot_trace_decode(data, size, &t, err, sizeof err) != 0) {
        if (!err[0])
            abort(); /* a rejection always says why */
        return 0;
    }
    siot_dump_human(&t, "fuzz", sink);
    for (int fmt = 0; fmt < 3; fmt++)
        siot_stats(&t, "fuzz", fmt, sink, err, sizeof err);
    siot_report_opts ro = {WALK_RANKS, 2000};
    siot_report(&t, "fuzz", &ro, sink, err, sizeof err);
    for (int fmt = SIOT_EXPORT_CHROME; fmt <= SIOT_EXPORT_CSV; fmt++) {
        siot_export_opts eo = {fmt, 5000, 0, 0};
        uint64_t written;
        siot_export(&t, &eo, sink, &written, err, sizeof err);
    }
    walk_some(&t);
    siot_vbuf b;
    siot_vbuf_init(&b);
    if (siot_trace_encode_exact(&t, &b) == 0) {
        siot_trace u;
        siot_format_verify_crc = 1;
        int rc = siot_trace_decode(b.data, b.len, &u, err, sizeof err);
        siot_format_verify_crc = 0;
        if (rc != 0) {
            fprintf(stderr, "re-encoded trace rejected: %s\n", err);
            abort();
        }
        siot_trace_free(&u);
    }
    siot_vbuf_free(&b);
    siot_trace_free(&t);
    return 0;
}
