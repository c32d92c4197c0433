/* diff: are two traces the same events (function, arguments, return value,
 * errno, bytes, parent, per-rank order), timing aside? */
#ifndef SIOT_DIFF_H
#define SIOT_DIFF_H

#include <stdio.h>

#include "model.h"

/* 0 same, 1 different (first difference written to out), -1 error (err). */
int siot_diff(const siot_trace *a, const siot_trace *b, FILE *out, char *err, size_t errlen);

#endif
