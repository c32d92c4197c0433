/* stats: `siot stats`, the statistics pass over the compressed trace.
 *
 * Errors: siot_stats returns 0, or -1 with a one-line reason in err (out of
 * memory, or siot_analyze's) before anything is printed; write errors on
 * out are left to the caller (fflush). */
#ifndef SIOT_STATS_H
#define SIOT_STATS_H

#include <stdio.h>

#include "core/model.h"
#include "siot/sites.h"

/* Call sites (siot_siteloc, siot_resolve_sites) are siot/sites.h's. */

/* format: 0 tables for a person, 1 JSON, 2 CSV; with SIOT_STATS_ACCESS
 * or'ed in, the JSON adds what a walk of every event tells (siot/access.h:
 * "access" per file, "amplification" per pair of layers): time in
 * proportion to the expanded trace, hence asked for. */
#define SIOT_STATS_ACCESS 0x100
/* A rank's own times (siot_rank_time) are siot/rankstats.h's. */
int siot_stats(const siot_trace *t, const char *path, int format, FILE *out, char *err, size_t errlen);

#endif
