/* dump: `siot dump` in its two forms, and the JSON value writers that other
 * commands share. */
#ifndef SIOT_DUMP_H
#define SIOT_DUMP_H

#include <stdio.h>

#include "core/model.h"
#include "replay/json.h"

int siot_dump_jsonl(const siot_trace *t, FILE *fp, char *err, size_t errlen);
int siot_dump_human(const siot_trace *t, const char *path, FILE *fp);
int siot_is_data_class(unsigned cls);
void siot_fmt_ns(char *buf, size_t n, double ns);

#endif
