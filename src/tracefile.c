/* tracefile: writing trace files (tracefile.h). */
#include "src/tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/format.h"
#include "src/config.h"
#include "src/spill.h"
#include "src/sysio.h"

/* The process is ending (siot_out_ending): commits skip fsync. */
static atomic_int ending;

void siot_out_ending(void) { atomic_store(&ending, 1); }

const char *siot_self_exe(char *buf, size_t n)
{
    ssize_t r = (ssize_t)syscall(SYS_readlink, "/proc/self/exe", buf, n - 1);
    if (r <= 0)
        return "unknown";
    buf[r] = 0;
    return buf;
}

static void default_path(char *out, size_t n, int attempt)
{
    char exe[PATH_MAX];
    const char *e = siot_self_exe(exe, sizeof exe);
    const char *base = strrchr(e, '/');
    base = base ? base + 1 : e;
    if (attempt == 0)
        snprintf(out, n, "%s.siot", base);
    else
        snprintf(out, n, "%s.%d.siot", base, attempt);
}

static int emit_fd(void *arg, const void *p, size_t n) { return siot_write_fd(*(int *)arg, p, n); }

/* Writes t to fd: in one piece, or, when this rank spilled and t is its own
 * trace, as header, its block (streamed from the spill file) and end. */
static int write_to_fd(const siot_trace *t, int fd, int exact, size_t *len)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    int rc;
    if (siot_spill_owns(t)) {
        siot_block blk;
        rc = siot_block_prepare(t, &blk) == 0 && siot_file_start(t, &b) == 0 ? 0 : -1;
        if (rc == 0)
            rc = siot_write_fd(fd, b.data, b.len);
        if (rc == 0)
            rc = siot_block_emit(&blk, emit_fd, &fd);
        b.len = 0;
        if (rc == 0)
            rc = siot_file_end(1 + blk.nsec, &b) == 0 ? siot_write_fd(fd, b.data, b.len) : -1;
        *len = blk.len + b.len;
        siot_block_free(&blk);
    } else {
        rc = (exact ? siot_trace_encode_exact(t, &b) : siot_trace_encode_file(t, siot_cfg.pack, &b)) == 0 ? 0 : -1;
        if (rc == 0)
            rc = siot_write_fd(fd, b.data, b.len);
        *len = b.len;
    }
    siot_vbuf_free(&b);
    return rc;
}

/* path exists and is a character or block device or a FIFO. */
static int is_special(const char *path)
{
    struct stat st;
    if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) != 0)
        return 0;
    return S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode);
}

int siot_out_open(siot_out *o, const char *path)
{
    int saved = errno;
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->default_name = !path;
    if (path)
        snprintf(o->path, sizeof o->path, "%s", path);
    else
        default_path(o->path, sizeof o->path, 0);
    o->direct = path && is_special(path);
    errno = saved;
    if (o->direct)
        snprintf(o->tmp, sizeof o->tmp, "%s", o->path);
    else
        snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", o->path, (long)getpid());
    o->fd = o->direct ? (int)syscall(SYS_openat, AT_FDCWD, o->tmp, O_WRONLY | O_CLOEXEC)
                      : (int)syscall(SYS_openat, AT_FDCWD, o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (o->fd < 0) {
        snprintf(o->why, sizeof o->why, "cannot create %s: %s", o->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

/* Renamed to the first free default name: an existing trace is never
 * replaced, and a run whose trace took another name says so (a user who
 * reads app.siot would otherwise read the previous run's). */
static int rename_default(siot_out *o)
{
    for (int attempt = 0;; attempt++) {
        if (attempt)
            default_path(o->path, sizeof o->path, attempt);
        int rc = (int)syscall(SYS_renameat2, AT_FDCWD, o->tmp, AT_FDCWD, o->path, 1 /* RENAME_NOREPLACE */);
        if (rc == 0 && attempt) {
            char first[PATH_MAX + 32];
            default_path(first, sizeof first, 0);
            siot_sayf("siotrace: %s exists: this run's trace is %s", first, o->path);
        }
        if (rc == 0 || errno != EEXIST || attempt >= 9999)
            return rc;
    }
}

int siot_out_commit(siot_out *o)
{
    /* A part written while the job is being torn down skips fsync: the
     * launcher may kill the process any moment, and the page cache outlives it. */
    int rc = !atomic_load(&ending) && !o->direct ? (int)syscall(SYS_fsync, o->fd) : 0;
    if (rc != 0)
        snprintf(o->why, sizeof o->why, "cannot write %s: %s", o->tmp, strerror(errno));
    syscall(SYS_close, o->fd);
    o->fd = -1;
    if (rc != 0) {
        syscall(SYS_unlinkat, AT_FDCWD, o->tmp, 0);
        return -1;
    }
    if (o->direct)
        return 0;
    rc = o->default_name ? rename_default(o) : (int)syscall(SYS_renameat, AT_FDCWD, o->tmp, AT_FDCWD, o->path);
    if (rc != 0) {
        snprintf(o->why, sizeof o->why, "cannot rename %.4000s to %.4000s: %s (the trace is left in %.4000s)", o->tmp, o->path,
                 strerror(errno), o->tmp);
        return -1;
    }
    return 0;
}

void siot_out_abort(siot_out *o, const char *what)
{
    if (what && !o->why[0])
        snprintf(o->why, sizeof o->why, "cannot write %s: %s", o->tmp, what);
    if (o->fd >= 0) {
        syscall(SYS_close, o->fd);
        if (!o->direct)
            syscall(SYS_unlinkat, AT_FDCWD, o->tmp, 0);
    }
    o->fd = -1;
}

/* t written atomically to path (NULL: the default name), as one file. */
static int write_file(const siot_trace *t, const char *path, int exact, siot_out *o)
{
    int saved = errno;
    int rc = siot_out_open(o, path);
    if (rc == 0 && write_to_fd(t, o->fd, exact, &o->len) != 0) {
        siot_out_abort(o, strerror(errno));
        rc = -1;
    }
    if (rc == 0)
        rc = siot_out_commit(o);
    errno = saved;
    return rc;
}

int siot_write_uncommitted(const siot_trace *t, const char *path, siot_out *o)
{
    int saved = errno;
    int rc = siot_out_open(o, path);
    if (rc == 0 && write_to_fd(t, o->fd, 1, &o->len) != 0) {
        siot_out_abort(o, strerror(errno));
        siot_sayf("siotrace: %s", o->why);
        rc = -1;
    }
    errno = saved;
    return rc;
}

int siot_write_trace_to(const siot_trace *t, const char *path, int exact)
{
    siot_out o;
    int rc = write_file(t, path, exact, &o);
    if (rc != 0)
        siot_sayf("siotrace: %s", o.why);
    return rc;
}

int siot_write_trace(const siot_trace *t)
{
    siot_out o;
    int rc = write_file(t, siot_cfg.trace_path, 0, &o);
    if (rc != 0)
        siot_sayf("siotrace: %s", o.why);
    else if (siot_cfg.verbose)
        siot_sayf("siotrace: wrote %s (%llu bytes)", o.path, (unsigned long long)o.len);
    return rc;
}

/* The name of a rank's partial trace: the job's trace name with
 * .part-RRRRRR before .siot (siot merge joins them afterwards). */
void siot_partial_path(char *out, size_t n, int32_t rank)
{
    char base[PATH_MAX + 32];
    if (siot_cfg.trace_path)
        snprintf(base, sizeof base, "%s", siot_cfg.trace_path);
    else
        default_path(base, sizeof base, 0);
    if (is_special(base)) { /* SIOT_TRACE=/dev/null: the parts go there too, never beside it in /dev */
        snprintf(out, n, "%s", base);
        return;
    }
    size_t l = strlen(base);
    if (l > 5 && strcmp(base + l - 5, ".siot") == 0)
        base[l - 5] = 0;
    snprintf(out, n, "%s.part-%06d.siot", base, (int)rank);
}

void siot_absolute_path(char *out, size_t n, const char *path)
{
    char cwd[PATH_MAX];
    if (path[0] != '/' && syscall(SYS_getcwd, cwd, sizeof cwd) > 0)
        snprintf(out, n, "%s/%s", cwd, path[0] == '.' && path[1] == '/' ? path + 2 : path);
    else
        snprintf(out, n, "%s", path);
}

/* An MPI rank that cannot reach the merge writes its own part. */
int siot_write_part(const siot_trace *t, int32_t rank, char *where, size_t nwhere, char *why, size_t nwhy)
{
    char path[PATH_MAX + 64];
    siot_partial_path(path, sizeof path, rank);
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    const char *tmpdir = getenv("TMPDIR");
    const char *dirs[] = {NULL, ".", tmpdir && *tmpdir ? tmpdir : "/tmp", "/tmp"};
    siot_out o;
    for (unsigned i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char alt[PATH_MAX + 64];
        if (i && snprintf(alt, sizeof alt, "%s/%s", dirs[i], name) >= (int)sizeof alt)
            continue;
        if (write_file(t, i ? alt : path, 1, &o) == 0) {
            siot_absolute_path(where, nwhere, o.path);
            return 0;
        }
        if (i == 0)
            snprintf(why, nwhy, "%s", o.why);
    }
    return -1;
}
