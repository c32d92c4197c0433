/* lib: the trace reader as a shared library (build/<flavour>/lib/libsiot.so)
 * for other languages: the Python package siotrace calls it through ctypes,
 * so that Python never decodes the format itself. A trace is opened once;
 * its statistics (siot stats --json) and its compressed structure come as
 * JSON text; its events come in chunks (JSON arrays), one rank after the
 * other, with the times siot export synthesises, filtered by rank and layer
 * before they are formatted (the ranks not asked for are never walked).
 *
 * Locks: none. A handle, and its cursors, belong to one thread at a time.
 * Errors: the functions that can fail return NULL with a one-line reason in
 * err (the end of a cursor's events is NULL with err ""); text they return
 * is malloc'd and freed with siot_lib_free. */
#ifndef SIOT_LIB_H
#define SIOT_LIB_H

#include <stddef.h>
#include <stdint.h>

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

void siot_lib_free(void *p);

#endif
