/* sizes: `siot dump --sizes`: where a trace's bytes go, so that what did
 * not fold can be seen: the sections, events against loops and timing
 * histograms, values by kind (constants, progressions, run tables...), and
 * the largest events with the part that takes most of their bytes.
 * Sizes are those of the file form, measured by writing the trace again as
 * one block (a file of several blocks is a little larger).
 *
 * Errors: siot_dump_sizes returns -1 on a write error or without memory. */
#ifndef SIOT_SIZES_H
#define SIOT_SIZES_H

#include <stdint.h>
#include <stdio.h>

#include "core/model.h"

int siot_dump_sizes(const siot_trace *t, const char *path, uint64_t file_bytes, FILE *fp);

#endif
