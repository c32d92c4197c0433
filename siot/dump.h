/* dump: `siot dump` in its two forms (--jsonl, every event expanded; else
 * the compressed structure for a person). What other commands share with
 * it is below it: which calls move data and how a time is written
 * (siot/measures.h), the JSON writers (replay/json.h).
 *
 * Errors: siot_dump_jsonl returns 0, or -1 with a one-line reason in err
 * (out of memory, a value or a walk that fails, a write error);
 * siot_dump_human returns -1, with no reason, on a write error of its last
 * flush or when memory ran out. The helpers cannot fail. */
#ifndef SIOT_DUMP_H
#define SIOT_DUMP_H

#include <stdio.h>

#include "core/model.h"
#include "replay/json.h"

int siot_dump_jsonl(const siot_trace *t, FILE *fp, char *err, size_t errlen);
/* raw: calls are not nested under the call that issued them; each shows
 * its parent's distance (parent=-N) as recorded. */
int siot_dump_human(const siot_trace *t, const char *path, FILE *fp, int raw);

#endif
