/* spill: keeping a rank's recorder within SIOT_MAX_MEMORY (spill.h). */
#include "src/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/format.h"
#include "src/config.h"
#include "src/sysio.h"

static struct {
    int fd;
    int32_t rank;
    uint64_t bytes;    /* what went to the spill file: NODES sections */
    uint32_t sections;
    siot_fmap fmap;    /* function ids of the spilled sections */
    char stop_note[160];
    const siot_trace *own; /* the trace that holds the session's nodes in memory */
} P = {.fd = -1};

static int open_spill(void)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, siot_cfg.spill_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/siot-spill.%ld.%d", siot_cfg.spill_dir, (long)getpid(), (int)P.rank);
    fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        syscall(SYS_unlinkat, AT_FDCWD, path, 0); /* gone with the process */
    return fd;
}

/* The queue's spill callback (under the rank lock): the nodes are encoded
 * as a NODES section and appended to the spill file. */
static int spill_nodes(void *arg, siot_node *const *nodes, uint32_t n)
{
    (void)arg;
    if (P.fd < 0 && (P.fd = open_spill()) < 0) {
        snprintf(P.stop_note, sizeof P.stop_note, "no spill file in %s: %s", siot_cfg.spill_dir, strerror(errno));
        return -1;
    }
    if (!P.fmap.id && siot_fmap_init(&P.fmap, siot_nfuncs) != 0)
        return -1;
    siot_vbuf b;
    siot_vbuf_init(&b);
    int rc = siot_nodes_section(nodes, n, &P.fmap, &b);
    if (rc == 0 && siot_write_fd(P.fd, b.data, b.len) != 0) {
        snprintf(P.stop_note, sizeof P.stop_note, "the spill file in %s could not be written: %s", siot_cfg.spill_dir,
                 strerror(errno));
        rc = -1;
    }
    if (rc == 0) {
        P.bytes += b.len;
        P.sections++;
    }
    siot_vbuf_free(&b);
    return rc;
}

void siot_spill_reset(int32_t rank)
{
    if (P.fd >= 0)
        syscall(SYS_close, P.fd);
    P.fd = -1;
    P.bytes = 0;
    P.sections = 0;
    siot_fmap_free(&P.fmap);
    P.stop_note[0] = 0;
    P.rank = rank;
}

void siot_spill_attach(siot_queue *q) { q->spill = spill_nodes; }

int siot_session_spilled(void) { return P.sections > 0; }

const siot_trace *siot_spill_set_own(const siot_trace *t)
{
    const siot_trace *old = P.own;
    P.own = t;
    return old;
}

int siot_spill_owns(const siot_trace *t) { return P.sections && t == P.own; }

void siot_spill_describe(siot_trace *t, const siot_spill_counts *q)
{
    if (q->stopped) {
        char why[400];
        snprintf(why, sizeof why,
                 "recording stopped after event %llu of this rank (SIOT_MAX_MEMORY=%zu reached and %s); the %llu "
                 "events after it are not in the trace",
                 (unsigned long long)q->stopped_at, siot_cfg.max_memory,
                 P.stop_note[0] ? P.stop_note : "spilling failed", (unsigned long long)q->lost);
        siot_trace_set_kv(t, "stopped", why);
        t->flags |= SIOT_TF_TRUNCATED;
    }
    if (P.sections) {
        char sp[200];
        snprintf(sp, sizeof sp, "%llu nodes in %u sections (%llu bytes) went to disk to keep the recorder within "
                 "SIOT_MAX_MEMORY=%zu",
                 (unsigned long long)q->spilled_nodes, P.sections, (unsigned long long)P.bytes,
                 siot_cfg.max_memory);
        siot_trace_set_kv(t, "spilled", sp);
    }
}

int siot_block_prepare(const siot_trace *t, siot_block *b)
{
    memset(b, 0, sizeof *b);
    siot_vbuf_init(&b->tables);
    siot_vbuf_init(&b->last);
    int own = siot_spill_owns(t);
    siot_fmap local = {0}, *m = own ? &P.fmap : &local;
    if (own ? !P.fmap.id && siot_fmap_init(&P.fmap, siot_nfuncs) != 0 : siot_fmap_init(&local, t->nfuncs) != 0)
        return -1;
    /* the last section first: it may number functions the tables must list */
    int rc = siot_nodes_section(t->top, t->ntop, m, &b->last) == 0 && siot_block_tables(t, m, &b->tables) == 0 ? 0 : -1;
    siot_fmap_free(&local);
    b->spill_bytes = own ? P.bytes : 0;
    b->len = b->tables.len + b->spill_bytes + b->last.len;
    b->nsec = siot_block_table_sections(t) + (own ? P.sections : 0) + 1;
    return rc;
}

int siot_block_emit(const siot_block *b, siot_emit_fn emit, void *arg)
{
    if (emit(arg, b->tables.data, b->tables.len) != 0)
        return -1;
    static uint8_t buf[1 << 20]; /* static: usable in a signal handler, and one block at a time */
    for (uint64_t off = 0; off < b->spill_bytes;) {
        size_t want = b->spill_bytes - off < sizeof buf ? (size_t)(b->spill_bytes - off) : sizeof buf;
        ssize_t r = (ssize_t)syscall(SYS_pread64, P.fd, buf, want, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || emit(arg, buf, (size_t)r) != 0)
            return -1;
        off += (uint64_t)r;
    }
    return emit(arg, b->last.data, b->last.len);
}

void siot_block_free(siot_block *b)
{
    siot_vbuf_free(&b->tables);
    siot_vbuf_free(&b->last);
}
