/* tracefile: writing trace files, with system calls only (the tracer's own
 * I/O never reaches a wrapper) and atomically (a temporary name, synced,
 * renamed): a trace is either complete or absent. Written through
 * sysio.h; a rank's own trace that spilled is streamed from the spill file
 * (spill.h). Below the session and the endings, which give it what it
 * needs of them: the rank (siot_write_part) and that the process is
 * ending (siot_out_ending).
 *
 * Locks: none taken. Signals: usable in a signal handler (no stdio, memory
 * from salloc.h); an ending's part skips fsync, since the launcher may kill
 * the process any moment and the page cache outlives it. *
 * Errors: 0, or -1 with the reason in one line (siot_out.why, or on stderr
 * for siot_write_trace and siot_write_trace_to); errno is left as it was.
 */
#ifndef SIOT_TRACEFILE_H
#define SIOT_TRACEFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

/* Writes t atomically to the configured path (SIOT_TRACE, else the first
 * free default name). Returns 0 or -1 with a message on stderr. */
int siot_write_trace(const siot_trace *t);
/* A trace file being written: created under a temporary name first (so
 * that a job learns at once whether its trace can be written at all),
 * committed (synced, then renamed to its name) or aborted (removed). A
 * name that is a device or a FIFO is written in place, never renamed
 * over: a rename would replace /dev/null itself with a regular file. */
typedef struct siot_out {
    int fd;
    int default_name; /* no name was given: the first free default name at commit */
    int direct;       /* the name is a device or FIFO (SIOT_TRACE=/dev/null): written in place */
    size_t len;
    char path[PATH_MAX + 32];
    char tmp[PATH_MAX + 64];
    char why[3 * PATH_MAX + 160]; /* what failed, one line */
} siot_out;
/* path NULL: the default name. 0, or -1 with o->why. */
int siot_out_open(siot_out *o, const char *path);
int siot_out_commit(siot_out *o);
/* The process is ending (endings.h): from now on a commit skips fsync, since
 * the launcher may kill the process any moment and the page cache outlives
 * it. Set by the endings, which are above this layer. */
void siot_out_ending(void);
/* Removes the temporary file; what (if not NULL) says why, when o->why is empty. */
void siot_out_abort(siot_out *o, const char *what);
/* Writes t atomically to path (replacing it); exact: keep exact histogram bins. */
int siot_write_trace_to(const siot_trace *t, const char *path, int exact);
/* t written exactly to o's temporary file, not yet committed: the caller
 * calls siot_out_commit (fsync and rename) later, out of the recorder lock. */
int siot_write_uncommitted(const siot_trace *t, const char *path, siot_out *o);
/* Rank rank's own part, <trace>.part-RRRRRR.siot, beside the trace or, when
 * that directory cannot be written, in the first of the working directory,
 * $TMPDIR and /tmp that can (where: the path written). 0 or -1 with why. */
int siot_write_part(const siot_trace *t, int32_t rank, char *where, size_t nwhere, char *why, size_t nwhy);
/* The name of this rank's part: the trace's name with .part-RRRRRR before .siot. */
void siot_partial_path(char *out, size_t n, int32_t rank);
/* path made absolute against the working directory (getcwd, a system call). */
void siot_absolute_path(char *out, size_t n, const char *path);
/* The executable's path (readlink of /proc/self/exe), or "unknown". */
const char *siot_self_exe(char *buf, size_t n);

#endif
