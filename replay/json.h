/* json: the JSON text of strings and recorded values, shared by the
 * readers that print events (siot dump --jsonl, export, stats) and the
 * comparison of two traces. Pure functions of their arguments.
 *
 * Errors: none returned; running out of memory is left in o->oom
 * (core/vbuf.h). */
#ifndef SIOT_JSON_H
#define SIOT_JSON_H

#include <stddef.h>

#include "core/model.h"
#include "core/vbuf.h"

/* s[0..n) as a JSON string (non-ASCII bytes escaped one by one). */
void siot_json_str(siot_vbuf *o, const char *s, size_t n);
/* A value as JSON: integer, string, array ({source,tag,bytes} for a status). */
void siot_json_value(siot_vbuf *o, unsigned role, const siot_value *v);

/* Names beside raw values (core/names.h): appends ,"key":"NAME" to names
 * when the value has a name for the role (its first member without the
 * comma), so a reader writes {"flags":65,...} and "names":{"flags":
 * "O_WRONLY|O_CREAT",...}. errno is named with role 0 and key "errno". */
void siot_json_name(siot_vbuf *names, const char *key, unsigned role, const siot_value *v);
void siot_json_errno_name(siot_vbuf *names, int64_t e);
/* ,"ret":"MPI_ERR_NO_SUCH_FILE" for an MPI call (return role r_mpi) that
 * returned an error class this flavour names (siot_mpi_error_name). */
void siot_json_ret_name(siot_vbuf *names, const char *flavour, unsigned retrole, int64_t ret);
/* ,"key":"text" in names, for names that are no value's (a handle's file). */
void siot_json_name_str(siot_vbuf *names, const char *key, const char *text);
/* An event's arguments as JSON members (no braces), and their names into
 * names (siot_json_name). -1 when argument *bad cannot be evaluated. */
int siot_json_args(siot_vbuf *o, siot_vbuf *names, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c,
                   siot_vbuf *scratch, uint32_t *bad);
/* ,"names":{...} when names holds any. */
void siot_json_put_names(siot_vbuf *o, const siot_vbuf *names);

#endif
