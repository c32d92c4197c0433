/* export: `siot export`, the trace expanded into the formats of existing
 * viewers and tools: Chrome/Perfetto trace-event JSON, CSV for pandas, and
 * (siot/otf2.h, over the walk offered here) OTF2 archives.
 * Times are synthesised from the histogram means (synth.h); the export
 * says so, and how far they are from the recorded means: per rank in the
 * Chrome JSON's otherData.synthesis (end_ns: the synthesised end;
 * recorded_ns: the sum of the outermost calls' mean computation times and
 * durations; squeezed_ns: nested time scaled away to fit children into
 * their parents), summed in opts->note for both forms.
 *
 * Errors: 0; 1 when refused (more events than max_events and no sampling),
 * with the reason in err and nothing written; -1 with a one-line reason in
 * err (out of memory, a rank that cannot be walked, a write error), the
 * output then cut short. Output memory running out is called a write
 * error. */
#ifndef SIOT_EXPORT_H
#define SIOT_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "core/model.h"
#include "core/vbuf.h"
#include "replay/synth.h"

enum { SIOT_EXPORT_CHROME = 1, SIOT_EXPORT_CSV = 2, SIOT_EXPORT_OTF2 = 3 };

typedef struct siot_export_opts {
    int format;
    uint64_t max_events; /* more than this: refused, or sampled */
    int sample;          /* keep one event in k, so that at most max_events remain */
    int progress;        /* -1: on a terminal; 0 never; 1 always */
    /* out: how far the synthesised times are from the recorded means (a
     * line for stderr; the Chrome form also has it per rank, otherData) */
    char note[400];
} siot_export_opts;

/* Writes the export to out. Returns 0; 1 when refused (too many events,
 * reason in err); -1 on an error (reason in err). */
int siot_export(const siot_trace *t, siot_export_opts *o, FILE *out, uint64_t *written, char *err,
                size_t errlen);

/* The walk every form shares: rank by rank in rank order, each rank's
 * events in program order with synthesised times (replay/synth.h), the
 * --max-events refusal or sampling, progress, and the note. begin (may be
 * NULL) sees which ranks have events before the first; event sees every
 * event, keep 0 for one that sampling leaves out (it may still change the
 * state of handles); rank_end (may be NULL) follows each rank's last event,
 * end_ns the rank's synthesised end. A callback's non-zero return stops the
 * walk and is returned, its reason in err. */
typedef struct siot_export_sink {
    int (*begin)(void *self, const siot_trace *t, const uint8_t *has, char *err, size_t errlen);
    int (*event)(void *self, const siot_trace *t, const siot_synth_ev *ev, int keep, char *err, size_t errlen);
    int (*rank_end)(void *self, const siot_trace *t, uint32_t rank, double end_ns, char *err, size_t errlen);
    void *self;
} siot_export_sink;

/* What the synthesis cost, per rank (synth: one JSON object each) and over
 * ranks; worst: the largest |end - recorded| / recorded; worst_span: the
 * largest |end - span| / span (-1: the trace keeps no spans). */
typedef struct siot_export_account {
    siot_vbuf synth;
    double end, recorded, squeezed, worst, worst_span;
    uint64_t total, every; /* events in the trace; one kept in every */
} siot_export_account;

/* Returns 0, 1 when refused, -1 on an error (the sink's own codes too);
 * a->synth is the caller's to free (siot_vbuf_free) whatever the return. */
int siot_export_walk(const siot_trace *t, siot_export_opts *o, siot_export_sink *sink, siot_export_account *a,
                     uint64_t *written, char *err, size_t errlen);

#endif
