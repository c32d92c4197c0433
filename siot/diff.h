/* diff: are two traces the same events (function, arguments, return value,
 * errno, bytes, parent, per-rank order), timing aside? */
#ifndef SIOT_DIFF_H
#define SIOT_DIFF_H

#include <stdio.h>

#include "core/model.h"

/* Which events take part: layers (bit per layer; 0 = all) and, with
 * outermost, only those without a taking-part ancestor (the calls a replay
 * reissues itself). Parents are the nearest taking-part ancestors. */
typedef struct siot_diff_filter {
    uint32_t layers;
    int outermost;
    int sandbox_paths; /* compare paths as ioreplay maps them under its root */
} siot_diff_filter;

/* 0 same, 1 different (first difference written to out), -1 error (err). */
int siot_diff(const siot_trace *a, const siot_trace *b, const siot_diff_filter *flt, FILE *out, char *err,
              size_t errlen);

#endif
