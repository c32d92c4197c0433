/* analyze: a generic pass over a compressed trace with pluggable handlers,
 * the engine of `siot stats` and of user analyses (linked, or loaded with
 * `siot stats --plugin lib.so`).
 *
 * The pass walks the compressed structure once. A loop is not iterated but
 * multiplied by its count, unless a byte count, a handle, the name of a
 * file it opens or an inner loop count in it depends on its iteration; ranks are taken as groups, split only
 * where a loop count or a value differs between them. Handlers therefore see
 * aggregate records: "this event, for these ranks, runs `calls` times per
 * rank, moving `bytes` per call", and the totals of a trace of 10^9 events
 * come out of a few thousand records.
 *
 * Errors: siot_analyze returns 0, or -1 with a one-line reason in err (out
 * of memory, a loop count that cannot be evaluated, loops nested too
 * deeply): handlers may have seen records by then, and finish is not
 * called. siot_agg_arg is siot_eval's 0 or -1. */
#ifndef SIOT_ANALYZE_H
#define SIOT_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

typedef struct siot_agg_event {
    const siot_trace *trace;
    const siot_node *node; /* the event node (its histograms cover all its executions) */
    const siot_funcdesc *fn;
    const int32_t *ranks; /* the ranks this record stands for, ascending */
    uint32_t nranks;
    uint64_t calls;   /* executions per rank */
    int64_t bytes;    /* bytes moved per execution (data calls), the same for all of them */
    siot_ctx ctx;     /* evaluation context of the first of those ranks and executions */
    uint64_t summed;  /* bit k set: enclosing loop level k is multiplied, not iterated
                       * (its iteration in ctx is 0); values that depend on it vary
                       * over [0, counts[k]) */
    const uint64_t *counts; /* iteration counts of the enclosing loops, innermost first */
    int first_visit;        /* the first record of this node (add its histograms once) */
} siot_agg_event;

typedef struct siot_handlers {
    void *user;
    /* an event record (the default handler ignores it) */
    void (*event)(void *user, const siot_agg_event *e);
    /* a loop entered for a set of ranks: count iterations, each walked
     * (expanded) or all at once (multiplied) */
    void (*loop_enter)(void *user, const siot_node *loop, uint64_t count, int expanded, const int32_t *ranks,
                       uint32_t nranks);
    void (*loop_exit)(void *user, const siot_node *loop);
    /* the end of the pass */
    void (*finish)(void *user);
} siot_handlers;

/* Runs the pass. Returns 0, or -1 with a reason in err. */
int siot_analyze(const siot_trace *t, const siot_handlers *h, char *err, size_t errlen);

/* A plug-in (a shared library) exports this function: it fills the handlers
 * (its own user pointer included) from its arguments and returns 0. */
typedef int (*siot_plugin_fn)(siot_handlers *h, int argc, char **argv);
#define SIOT_PLUGIN_SYMBOL "siot_plugin"

/* Helpers for handlers. */
/* The value of an argument for the record's first rank and execution. */
int siot_agg_arg(const siot_agg_event *e, uint32_t k, siot_vbuf *scratch, siot_value *out);
/* A string argument as a pattern: numeric fields that vary over the record's
 * multiplied loops or ranks shown as {lo..hi} or {rank}. */
void siot_agg_pattern(const siot_agg_event *e, const siot_expr *x, siot_vbuf *out);
/* The argument that names the file an event acts on (its first handle of
 * any kind: fd, stream, MPI file, HDF5 id, netCDF id), or -1. */
int siot_file_handle_arg(const siot_funcdesc *f);
/* A call that makes a file of the trace without opening it: mknod and
 * mknodat (a regular file when its mode's type is S_IFREG or 0; replay/files.c
 * tells by the mode). */
int siot_makes_file(const siot_funcdesc *f);
/* A call that removes a file by name: unlink, unlinkat, remove. */
int siot_is_removal(const siot_funcdesc *f);
/* MPI_File_delete: in a job of several ranks that delete the same file,
 * which rank deletes it and which find it gone (MPI_ERR_NO_SUCH_FILE) is
 * the order of their calls. */
int siot_is_mpi_delete(const siot_funcdesc *f);
/* Whether an MPI_File_delete's result (the class a trace of this flavour
 * recorded) says it deleted its file (0) or found it gone
 * (MPI_ERR_NO_SUCH_FILE, whose number differs between flavours). */
int siot_deleted_or_gone(const char *flavour, int64_t ret);
/* A seek to the file's end (whence SEEK_END) of event e: its result is the
 * file's size at that moment, which other ranks' writes may have changed. */
int siot_seeks_to_end(const siot_funcdesc *f, const siot_event *e, const siot_ctx *c);

/* Whether the trace says the run made calls it does not hold (notes
 * mpiio_unseen: MPI-IO the tracer did not see; calls_unrecorded: calls it
 * had no memory to stage; truncated: events lost when memory ran out;
 * stopped: recording stopped at SIOT_MAX_MEMORY with nowhere to spill;
 * lost: ranks whose traces did not reach the job's file), which no replay
 * can reissue: 1 with "NOTE: its text" in why (the first such note), else 0. */
int siot_trace_lacks(const siot_trace *t, char *why, size_t n);
/* The same as the one sentence every reader of a trace says it in (siot
 * stats, ioreplay --check, ioreplay after a replay): "the run made calls
 * the trace does not hold<aside> (NOTE: its text)" in buf (512 bytes hold
 * it whole); 1 when the trace lacks calls, else 0 and buf untouched. */
int siot_trace_lacks_text(const siot_trace *t, const char *aside, char *buf, size_t n);

#endif
