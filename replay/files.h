/* files: exact per-file accounting over the compressed trace, shared by
 * `siot stats` (text, JSON, CSV), `siot report` and `ioreplay --verify`'s
 * totals of an approximate trace (replay/totals.h).
 *
 * One row per file name and layer. A data call is attributed through the
 * handle it uses, on its own rank, to the file that handle's open named on
 * that rank (descriptors, streams, MPI files, HDF5 ids, netCDF ids; an HDF5
 * dataset belongs to the file it was created or opened in). Names are never
 * merged into patterns here: replay/analyze.c walks a loop iteration by
 * iteration when the name it opens changes with the iteration, and an open
 * shared by ranks is evaluated for each of them, so the work is proportional
 * to files x ranks, never to the data calls, which stay multiplied. Patterns
 * (ckpt_{0010..0050}.dat) are a summary computed from the exact rows.
 *
 * Errors: siot_files_event returns nothing: running out of memory is kept
 * in fs->oom (the rows are then incomplete). siot_files_summarise and
 * siot_rankset_add return -1 without memory; siot_rankset_format leaves it
 * in out->oom. The rest cannot fail. */
#ifndef SIOT_FILES_H
#define SIOT_FILES_H

#include <stdint.h>

#include "core/vbuf.h"
#include "replay/analyze.h"

/* A set of ranks as ascending disjoint ranges: one range for the usual
 * "all ranks" or "one rank", whatever the job size. */
typedef struct siot_rankset {
    int32_t (*span)[2]; /* [lo, hi], ascending, not adjacent */
    uint32_t n, cap;
} siot_rankset;

int siot_rankset_add(siot_rankset *s, int32_t rank); /* -1 when out of memory */
uint64_t siot_rankset_count(const siot_rankset *s);
void siot_rankset_format(const siot_rankset *s, siot_vbuf *out); /* "0-3", "0,2,5-7" */
void siot_rankset_free(siot_rankset *s);

typedef struct siot_filerow {
    char *name;
    uint8_t layer;
    int exact;             /* 0: the name still varies over a multiplied loop (approximate traces) */
    uint64_t opens, calls; /* calls: reads and writes */
    uint64_t rbytes, wbytes;
    double time_ns; /* in its data calls: per rank, calls x the call's mean duration (as per call site) */
    siot_rankset ranks; /* ranks that opened it or moved data to or from it */
} siot_filerow;

/* A summary of rows whose names differ only in numbers: ckpt_{0010..0050}.dat */
typedef struct siot_filepattern {
    char *pattern;
    uint8_t layer;
    uint32_t files;
    uint64_t calls, rbytes, wbytes;
    siot_rankset ranks;
} siot_filepattern;

/* An open that failed, per file name and layer: the file is in no row
 * unless another open of it succeeded. */
typedef struct siot_failedopen {
    char *name;
    uint8_t layer;
    uint64_t calls;
    siot_rankset ranks;
} siot_failedopen;
#define SIOT_MAX_FAILED 256 /* names kept; the failed opens of further names are only counted */

typedef struct siot_files {
    siot_filerow *rows;
    uint32_t nrows, caprows;
    siot_failedopen *failed; /* in the order first seen */
    uint32_t nfailed;
    uint64_t failed_more; /* failed opens of names past SIOT_MAX_FAILED */
    siot_filepattern *patterns; /* filled by siot_files_summarise */
    uint32_t npatterns;
    struct siot_files_index *ix; /* name and handle lookup */
    siot_vbuf scratch, name;
    int oom;
} siot_files;

void siot_files_init(siot_files *fs);
/* Feed every record of the analysis pass (a handlers' event callback). */
void siot_files_event(siot_files *fs, const siot_agg_event *e);
/* Computes the patterns after the pass. Returns -1 when out of memory. */
int siot_files_summarise(siot_files *fs);
void siot_files_free(siot_files *fs);

/* Handle kinds, and the kind of handle a parameter or return role holds
 * (SIOT_HK_NONE for a role that holds none). */
enum { SIOT_HK_NONE, SIOT_HK_FD, SIOT_HK_STREAM, SIOT_HK_MPIFILE, SIOT_HK_HID, SIOT_HK_NCID };
uint8_t siot_handle_kind(unsigned role);

/* What a call does to the handle-to-file association: an open naming a
 * file (karg: its path; the new handle in argument kout, or the return
 * when kout is -1), a handle derived from handle argument karg (dup,
 * fdopen, an HDF5 dataset of a file), an open naming no file, or data
 * moved through handle argument karg; kind is the new or used handle's.
 * One classification for the accounting here and for the file names the
 * dump shows beside handles (siot/dump.c). fcntl_dup: the call is an
 * fcntl(F_DUPFD...), known only from its argument's value. */
enum { SIOT_HOP_NONE, SIOT_HOP_OPEN, SIOT_HOP_DERIVE, SIOT_HOP_UNNAMED, SIOT_HOP_DATA };
typedef struct siot_handle_op {
    int what, karg, kout;
    uint8_t kind;
} siot_handle_op;
siot_handle_op siot_handle_op_of(const siot_funcdesc *f, int fcntl_dup);

/* Expanded walks (dump --jsonl, export): one event of a rank, in that
 * rank's program order, so that the handles name the file they refer to
 * at that point; then siot_files_handle_file gives, for an argument that
 * uses a handle (siot_role_uses_handle: fd, stream, MPI file, HDF5 id,
 * netCDF id), the file's name, "<stdin>", "<stdout>" or "<stderr>" for an
 * untraced descriptor or stream 0-2, or NULL when it names no known file.
 * The name stays valid until siot_files_free. */
void siot_files_step(siot_files *fs, const siot_trace *t, const siot_node *n, const siot_ctx *c);
const char *siot_files_handle_file(const siot_files *fs, int32_t rank, unsigned role, int64_t id);
/* For one event, before its siot_files_step: the row of the file it moves
 * data to or from (aio completions included), its direction
 * (SIOT_CLASS_read or SIOT_CLASS_write) and bytes, as the accounting counts
 * them; -1 when it moves none to a known file. */
int32_t siot_files_data_row(siot_files *fs, const siot_trace *t, const siot_node *n, const siot_ctx *c,
                            unsigned *dir, int64_t *bytes);
/* After an open's siot_files_step: the row its new handle (kind, id) names;
 * -1 when the event is no open with a path or it failed. */
int32_t siot_files_opened_row(siot_files *fs, const siot_trace *t, const siot_node *n, const siot_ctx *c,
                              uint8_t *kind, int64_t *id);
/* The same, as the index of the file's row; -1 when it names no file. */
int32_t siot_files_handle_row(const siot_files *fs, int32_t rank, unsigned role, int64_t id);
int siot_role_uses_handle(unsigned role);
/* Both for one event: ,"fd_file":"posix-1.dat" (the argument's name and
 * _file) in names for each argument that names a file, then the step. */
void siot_files_name_handles(siot_files *fs, siot_vbuf *names, const siot_trace *t, const siot_node *n,
                             const siot_ctx *c);
const char *siot_std_stream_name(unsigned role, int64_t id);

/* Helpers stats.c shares: an aio completion's direction (read or write
 * class, 0 when not one) and its descriptor; fcntl(F_DUPFD...) is a dup. */
unsigned siot_aio_direction(const siot_agg_event *e, siot_vbuf *scratch, int64_t *fd);
int siot_is_fcntl_dup(const siot_agg_event *e, siot_vbuf *scratch);

/* "shared" when more than one rank touched the file, else "unique". */
const char *siot_file_sharing(const siot_filerow *r);

#endif
