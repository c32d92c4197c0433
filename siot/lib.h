/* lib: the trace reader as a shared library (build/<flavour>/lib/libsiot.so)
 * for other languages: the Python package siotrace calls it through ctypes,
 * so that Python never decodes the format itself. A trace is opened once;
 * its statistics (siot stats --json) and its compressed structure come as
 * JSON text; its events come in chunks (JSON arrays), or as columns written
 * into the caller's arrays (siot_lib_fill: no text per event, for Python's
 * DataFrames), one rank after the other, with the times siot export
 * synthesises, filtered by rank, layer and function before they are
 * formatted (the ranks not asked for are never walked).
 *
 * Locks: none. A handle, and its cursors, belong to one thread at a time.
 * Errors: the functions that can fail return NULL with a one-line reason in
 * err (the end of a cursor's events is NULL with err ""); text they return
 * is malloc'd and freed with siot_lib_free. */
#ifndef SIOT_LIB_H
#define SIOT_LIB_H

#include <stddef.h>
#include <stdint.h>

#include "siot/lib_columns.h"

typedef struct siot_lib siot_lib;
typedef struct siot_lib_cursor siot_lib_cursor;

siot_lib *siot_lib_open(const char *path, char *err, size_t errlen);
void siot_lib_close(siot_lib *h);
uint32_t siot_lib_nranks(const siot_lib *h);

/* siot stats --json's object. */
char *siot_lib_summary(siot_lib *h, char *err, size_t errlen);
/* The compressed form as a JSON array of nodes: events {"kind":"event",
 * "ranks","func","layer","site","args":{name:expression text},"ret",
 * "calls_per_rank"...} and loops {"kind":"loop","ranks","count","body":[...]}. */
char *siot_lib_structure(siot_lib *h, char *err, size_t errlen);

/* Events of the ranks listed ("0,2,5"; NULL or "" for all) and of the
 * layers listed ("posix,mpiio"; NULL or "" for all), each rank in program
 * order. siot_lib_next gives a JSON array of up to max events (one call
 * of a JSON parser per chunk):
 *   [{"rank":0,"seq":7,"thread":0,"layer":"posix","func":"pwrite","parent":6,
 *     "ret":64,"errno":0,"bytes":64,"start":1200.0,"dur":850.0,
 *     "args":{...},"names":{...}}, ...]
 * start and dur are synthesised nanoseconds (replay/synth.h). */
siot_lib_cursor *siot_lib_events(siot_lib *h, const char *ranks, const char *layers, char *err, size_t errlen);
char *siot_lib_next(siot_lib_cursor *c, uint32_t max, char *err, size_t errlen);
void siot_lib_cursor_free(siot_lib_cursor *c);

/* Which of the cursor's events are given (both forms): functions listed
 * ("pwrite,lseek"; NULL or "" for all), of those one in `sample` (0 or 1:
 * all), at most `limit` (0: no limit). 0, or -1 with a reason in err. */
int siot_lib_select(siot_lib_cursor *c, const char *functions, uint64_t sample, uint64_t limit, char *err,
                    size_t errlen);

/* ---- the columnar form: no text per event ----
 * siot_lib_fill writes up to max events into rows at, at+1, ... of arrays
 * the caller owns (numpy arrays) and returns how many (0 at the end, -1 on
 * error). The fixed columns are written in every row (thread and err
 * only where not 0); an argument column
 * only in the rows of the functions that have that argument, with its kind
 * in arg_kind (arrays that start zeroed: ABSENT elsewhere; a NULL array
 * for an argument of functions not selected). layer and func are codes
 * given in the order the cursor's rows first show them (siot_lib_codes
 * says which entry of siot_lib_tables' "layers" and "funcs" each is);
 * arg[k] is the column of "args"[k]; an argument of kind STR or JSON (a status, an
 * array, as siot dump writes it) is a code into the column's texts
 * (siot_lib_texts). The arrays and the kinds: siot/lib_columns.h. */

/* {"layers":[...],"funcs":[...],"args":[...]}: what the codes name. */
char *siot_lib_tables(siot_lib_cursor *c, char *err, size_t errlen);
/* At least as many events as the cursor will give (the ranks' events
 * counted on the compressed form, at most the limit), and in *most the
 * events of the rank that has most (what bounds seq); -1 on error. */
int64_t siot_lib_count(siot_lib_cursor *c, uint64_t *most, char *err, size_t errlen);
int64_t siot_lib_fill(siot_lib_cursor *c, const siot_lib_columns *cols, uint64_t at, uint64_t max, char *err,
                      size_t errlen);
/* {"funcs":[...],"layers":[...]}: for each code so far, its index into
 * the tables' "funcs" and "layers". */
char *siot_lib_codes(siot_lib_cursor *c, char *err, size_t errlen);
/* The texts made since the from-th: [[column, kind, "text"], ...], each
 * column's in the order of their codes. */
char *siot_lib_texts(siot_lib_cursor *c, uint32_t from, char *err, size_t errlen);

void siot_lib_free(void *p);

#endif
