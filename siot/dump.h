/* dump: `siot dump` in its two forms, and the JSON value writers that other
 * commands share. */
#ifndef SIOT_DUMP_H
#define SIOT_DUMP_H

#include <stdio.h>

#include "core/model.h"

int siot_dump_jsonl(const siot_trace *t, FILE *fp, char *err, size_t errlen);
int siot_dump_human(const siot_trace *t, const char *path, FILE *fp);
void siot_json_str(siot_vbuf *o, const char *s, size_t n);
void siot_json_value(siot_vbuf *o, unsigned role, const siot_value *v);
int siot_is_data_class(unsigned cls);
void siot_fmt_ns(char *buf, size_t n, double ns);

#endif
