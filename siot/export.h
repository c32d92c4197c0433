/* export: `siot export`, the trace expanded into the formats of existing
 * viewers and tools: Chrome/Perfetto trace-event JSON, and CSV for pandas.
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

enum { SIOT_EXPORT_CHROME = 1, SIOT_EXPORT_CSV = 2 };

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

#endif
