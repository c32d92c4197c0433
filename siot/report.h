/* report: `siot report`, one self-contained HTML page about a trace: SVG
 * charts of bytes and calls per layer, bytes and time per rank, request
 * sizes (log axes), the files (time and bandwidth each, the top ten by
 * bytes and by time, access patterns) and failed opens, the layers'
 * amplification, a timeline per rank synthesised from the compressed
 * structure and a heat map of I/O over time, and the call-site table; one
 * colour per concept over the page (siot/chart.h). No script, no fetched resource: the page opens
 * offline and can be mailed around.
 *
 * Errors: siot_report returns 0, or -1 with a one-line reason in err (out of
 * memory, the analysis pass, a rank that cannot be walked, a write error on
 * out). After a failing timeline the page written so far stays in out. */
#ifndef SIOT_REPORT_H
#define SIOT_REPORT_H

#include <stdio.h>

#include "core/model.h"

typedef struct siot_report_opts {
    uint32_t timeline_ranks;  /* ranks drawn in the timeline (spread over the job) */
    uint64_t timeline_events; /* events walked per drawn rank */
    uint64_t walk_events;     /* events walked for the access patterns, amplification and heat map,
                               * shared by the ranks; 0: SIOT_ACCESS_MAX_EVENTS (siot/access.h) */
} siot_report_opts;

/* Returns 0, or -1 with a reason in err. */
int siot_report(const siot_trace *t, const char *path, const siot_report_opts *o, FILE *out, char *err,
                size_t errlen);

#endif
