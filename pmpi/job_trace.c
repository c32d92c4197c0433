/* job_trace: how the ranks of an MPI job end their tracing session at
 * MPI_Finalize. A protocol every rank follows whatever happens to it, so
 * that MPI_Finalize always returns and the program's exit status is its own:
 *
 *  1. Rank 0 creates the job's trace file (under a temporary name) before
 *     anything is merged.
 *  2. One Allreduce tells every rank whether it could, whether some rank
 *     spilled, and the piece size rank 0 can receive.
 *  3. It could not: every rank writes its own part (as for an abnormal
 *     ending) beside the trace or in a writable fallback, and rank 0 says
 *     where in one line.
 *  4. Otherwise the ranks' traces merge over a binary reduction tree. A node
 *     takes a subtree's trace only while its memory stays within
 *     SIOT_MAX_MEMORY; a refused subtree's root keeps its (merged) trace as
 *     a block of its own. When a rank spilled, no rank merges: every rank's
 *     trace is a block.
 *  5. Rank 0 writes the header and its own trace, then every other block in
 *     rank order, each received piece by piece. Every piece is received,
 *     even after a write error, so that no rank is left waiting.
 *  6. Rank 0 says whether the file was written; each rank then settles its
 *     checkpoints (SIOT_CHECKPOINT).
 *
 * Rank 0 holds at most its own trace, the subtrees it accepted and one
 * piece. Messages travel on the tracer's own communicator (made at
 * MPI_Init), whose errors return rather than abort. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compress/merge.h"
#include "compress/rankfold.h"
#include "compress/timefold.h"
#include "pmpi/job_piece.h"
#include "pmpi/job_trace.h"
#include "core/format.h"
#include "src/runtime.h"
#include "src/session.h"
#include "src/spill.h"
#include "src/sysio.h"
#include "src/tracefile.h"

typedef struct job_state {
    MPI_Comm comm;
    int rank, size;
    int spilled;       /* some rank spilled: no merge, a block per rank */
    uint64_t refused;  /* subtrees this rank refused for lack of memory */
    uint8_t *piece;    /* rank 0: where a piece of a block is received */
    size_t piece_cap;  /* the agreed piece size */
    int piece_static;
} job_state;

enum { TAG_OFFER = 11, TAG_REPLY = 12, TAG_BYTES = 13, TAG_PIECE = 14 };
#define NOTHING UINT64_MAX  /* an offer of no trace (it could not be encoded) */
#define MSG_MAX (1u << 30)  /* MPI counts are ints: larger buffers go in several messages */
#define PIECE_MIN (64u << 10)
#define PIECE_MAX (64u << 20)
/* Decoding a trace takes up to about 24 times its encoded size (measured on
 * the test programs' traces: 10x for folded ones, 23x for flat ones), and
 * the merge about as much again. */
#define DECODED_PER_BYTE 24

static int send_bytes(const uint8_t *p, uint64_t n, int to, MPI_Comm comm)
{
    for (uint64_t off = 0; off < n; off += MSG_MAX) {
        int c = (int)(n - off < MSG_MAX ? n - off : MSG_MAX);
        if (PMPI_Send(p + off, c, MPI_BYTE, to, TAG_BYTES, comm) != MPI_SUCCESS)
            return -1;
    }
    return 0;
}

static int recv_bytes(uint8_t *p, uint64_t n, int from, MPI_Comm comm)
{
    int rc = 0;
    for (uint64_t off = 0; off < n; off += MSG_MAX) {
        int c = (int)(n - off < MSG_MAX ? n - off : MSG_MAX);
        if (PMPI_Recv(p + off, c, MPI_BYTE, from, TAG_BYTES, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            rc = -1;
    }
    return rc;
}

/* ---------------------------------------------------------------- the merge */

/* Hands this rank's (merged) trace to its parent in the tree. Returns 1 when
 * the parent took it, 0 when this rank keeps it as a block. */
static int offer_up(const siot_trace *mine, int parent, MPI_Comm comm)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    uint64_t len = siot_trace_encode_exact(mine, &b) == 0 ? b.len : NOTHING;
    int accepted = 0;
    if (PMPI_Send(&len, 1, MPI_UINT64_T, parent, TAG_OFFER, comm) != MPI_SUCCESS ||
        PMPI_Recv(&accepted, 1, MPI_INT, parent, TAG_REPLY, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        accepted = 0;
    if (accepted && send_bytes(b.data, b.len, parent, comm) != 0)
        fprintf(stderr, "siotrace: rank %d: sending its trace to rank %d failed\n", siot_session_rank(), parent);
    siot_vbuf_free(&b);
    return accepted;
}

/* Takes the trace offered by child, when this rank's memory allows, and
 * merges it into mine. */
static void take_subtree(siot_trace *mine, int child, int step, int size, MPI_Comm comm, job_state *js)
{
    uint64_t len = NOTHING;
    PMPI_Recv(&len, 1, MPI_UINT64_T, child, TAG_OFFER, comm, MPI_STATUS_IGNORE);
    size_t limit = siot_cfg.max_memory;
    int fits = len != NOTHING &&
               (!limit || (len < limit && mine->arena.used_bytes + len * (1 + 2 * DECODED_PER_BYTE) <= limit));
    uint8_t *blob = fits ? malloc(len ? len : 1) : NULL;
    int accept = blob != NULL;
    PMPI_Send(&accept, 1, MPI_INT, child, TAG_REPLY, comm);
    if (!accept) {
        js->refused++;
        return;
    }
    int last = child + step - 1 < size ? child + step - 1 : size - 1;
    siot_trace theirs;
    char why[256];
    int mrc;
    if (recv_bytes(blob, len, child, comm) != 0) {
        fprintf(stderr, "siotrace: rank %d: lost the traces of ranks %d-%d (transfer failed)\n", js->rank, child, last);
        siot_trace_set_kv(mine, "lost", "some ranks' traces could not be transferred");
        mine->flags |= SIOT_TF_PARTIAL;
    } else if (siot_trace_decode(blob, len, &theirs, why, sizeof why) != 0) {
        fprintf(stderr, "siotrace: rank %d: cannot merge the traces of ranks %d-%d: %s\n", js->rank, child, last, why);
        mine->flags |= SIOT_TF_PARTIAL;
    } else if ((mrc = siot_cfg.compress ? siot_trace_merge(mine, &theirs, siot_cfg.window)
                                        : siot_trace_append(mine, &theirs)) != 0) {
        fprintf(stderr, "siotrace: rank %d: %s while merging the traces of ranks %d-%d\n", js->rank,
                mrc == SIOT_E_CONFLICT ? "function tables differ" : "out of memory", child, last);
        mine->flags |= SIOT_TF_PARTIAL;
    } else if (siot_cfg.compress) {
        /* mine's arena now holds both traces as they came and what the
         * merge replaced: kept, every level's would add up (rank 0 of
         * FLASH-IO at 16 ranks: 4.6 MB of arena, 1.0 MB of it live).
         * Without memory to rewrite it, it stays as it is. */
        siot_trace_compact(mine);
    }
    free(blob);
}

/* The binary reduction tree: in round k, ranks with bit k set offer their
 * trace to rank - 2^k, which takes it after its own (rank order kept). Returns
 * 1 when this rank holds a block of the job's file at the end. */
static int merge_tree(siot_trace *mine, MPI_Comm comm, job_state *js)
{
    for (int step = 1; step < js->size; step <<= 1) {
        if (js->rank & step)
            return !offer_up(mine, js->rank - step, comm);
        if (js->rank + step < js->size)
            take_subtree(mine, js->rank + step, step, js->size, comm, js);
    }
    return 1;
}

/* ---------------------------------------------------------------- the file */

typedef struct sender {
    MPI_Comm comm;
    uint8_t *buf;
    size_t n, cap;
} sender;

static int send_flush(sender *s)
{
    if (!s->n)
        return 0;
    int rc = PMPI_Send(s->buf, (int)s->n, MPI_BYTE, 0, TAG_PIECE, s->comm) == MPI_SUCCESS ? 0 : -1;
    s->n = 0;
    return rc;
}

/* pieces of the agreed size, gathered so that small emits do not each cost a message */
static int emit_send(void *arg, const void *p, size_t n)
{
    sender *s = arg;
    const uint8_t *q = p;
    while (n) {
        size_t c = s->cap - s->n < n ? s->cap - s->n : n;
        memcpy(s->buf + s->n, q, c);
        s->n += c;
        q += c;
        n -= c;
        if (s->n == s->cap && send_flush(s))
            return -1;
    }
    return 0;
}

static int emit_write(void *arg, const void *p, size_t n) { return siot_write_fd(*(int *)arg, p, n); }

/* Rank r's block, len bytes in pieces, written to fd while rc is 0, and
 * received whole whatever happens. */
static int receive_block(int r, uint64_t len, int fd, uint8_t *piece, size_t cap, MPI_Comm comm, int rc)
{
    for (uint64_t got = 0; got < len;) {
        MPI_Status st;
        int n = 0;
        if (PMPI_Recv(piece, (int)cap, MPI_BYTE, r, TAG_PIECE, comm, &st) != MPI_SUCCESS ||
            PMPI_Get_count(&st, MPI_BYTE, &n) != MPI_SUCCESS || n <= 0)
            return -1; /* the sender is gone or out of step: nothing more can be read from it */
        if (rc == 0 && siot_write_fd(fd, piece, (size_t)n) != 0)
            rc = -1;
        got += (uint64_t)n;
    }
    return rc;
}

enum { INFO_LEN, INFO_NSEC, INFO_FLAGS, INFO_REFUSED, INFO_LOST, INFO_EVENTS, NINFO };

/* The note saying why the file is made of blocks. */
static void note_blocks(siot_trace *mine, const uint64_t *info, const job_state *js)
{
    uint32_t nblocks = 0, nspilled = 0;
    uint64_t refused = 0, events = 0;
    for (int r = 0; r < js->size; r++) {
        nblocks += info[NINFO * r + INFO_NSEC] > 0;
        nspilled += info[NINFO * r + INFO_NSEC] > SIOT_BLOCK_TABLE_SECTIONS + 1;
        refused += info[NINFO * r + INFO_REFUSED];
        events += info[NINFO * r + INFO_EVENTS];
    }
    char note[400];
    /* the other notes are those of rank 0's block; this one counts them all */
    snprintf(note, sizeof note, "%llu", (unsigned long long)events);
    siot_trace_set_kv(mine, "events_recorded", note);
    if (js->spilled)
        snprintf(note, sizeof note,
                 "SIOT_MAX_MEMORY was reached on %u of %d ranks: each rank's trace is kept as it was recorded "
                 "(a block per rank), not merged", nspilled, js->size);
    else
        snprintf(note, sizeof note,
                 "merging every rank's trace would have exceeded SIOT_MAX_MEMORY=%zu (at %llu points of the "
                 "reduction tree): the job's trace is %u blocks, each the merge of some ranks' traces (rank lists "
                 "say whose)", siot_cfg.max_memory, (unsigned long long)refused, nblocks);
    siot_trace_set_kv(mine, "concatenated", note);
}

/* Rank 0: the header, its own block (blk, NULL when it has none), and every
 * other holder's block; every piece is received even when rc says that
 * writing already failed. */
static int write_blocks(siot_trace *mine, siot_block *blk, const uint64_t *info, int fd, job_state *js, int rc)
{
    uint32_t nsec = 1;
    for (int r = 0; r < js->size; r++)
        nsec += (uint32_t)info[NINFO * r + INFO_NSEC];
    note_blocks(mine, info, js);
    siot_vbuf b;
    siot_vbuf_init(&b);
    if (rc == 0)
        rc = siot_file_start(mine, &b) == 0 && siot_write_fd(fd, b.data, b.len) == 0 ? 0 : -1;
    if (rc == 0)
        rc = blk ? siot_block_emit(blk, emit_write, &fd) : -1;
    for (int r = 1; r < js->size; r++)
        if (info[NINFO * r + INFO_LEN] &&
            receive_block(r, info[NINFO * r + INFO_LEN], fd, js->piece, js->piece_cap, js->comm, rc) != 0)
            rc = -1;
    b.len = 0;
    if (rc == 0)
        rc = siot_file_end(nsec, &b) == 0 && siot_write_fd(fd, b.data, b.len) == 0 ? 0 : -1;
    siot_vbuf_free(&b);
    return rc;
}

/* A rank other than 0 that holds a block sends it, in pieces of the agreed size. */
static void send_block(const siot_block *blk, job_state *js)
{
    sender s = {js->comm, malloc(js->piece_cap), 0, js->piece_cap};
    uint8_t small[4096]; /* without memory, smaller pieces: a block announced must arrive whole */
    if (!s.buf) {
        s.buf = small;
        s.cap = sizeof small;
    }
    if (siot_block_emit(blk, emit_send, &s) != 0 || send_flush(&s) != 0)
        fprintf(stderr, "siotrace: rank %d: sending its trace to rank 0 failed\n", js->rank);
    if (s.buf != small)
        free(s.buf);
}

/* Rank 0's part of writing the job's file. */
static int root_write(siot_trace *mine, siot_block *blk, const uint64_t *info, siot_out *out, job_state *js, int rc)
{
    int alone = 1;
    uint64_t lost = 0;
    for (int r = 0; r < js->size; r++) {
        alone &= r == 0 || info[NINFO * r + INFO_LEN] == 0;
        lost += info[NINFO * r + INFO_LOST];
        mine->flags |= (uint32_t)info[NINFO * r + INFO_FLAGS] & (SIOT_TF_PARTIAL | SIOT_TF_TRUNCATED);
    }
    if (lost) {
        siot_trace_set_kv(mine, "lost", "some ranks' traces could not be encoded for the job's file (out of memory)");
        mine->flags |= SIOT_TF_PARTIAL;
    }
    if (alone && !js->spilled) {
        /* everything merged into rank 0: the usual one-block file, with the
         * per-rank tables the pairwise merge left by residue where they are */
        siot_vbuf b;
        siot_vbuf_init(&b);
        uint64_t t0 = siot_now();
        if (siot_cfg.compress)
            siot_rank_periodic(mine);
        if (siot_cfg.verbose) /* what the last passes cost at MPI_Finalize */
            fprintf(stderr, "siotrace: rank 0's final pass %.3f ms, the job's residues and ranges %.3f ms\n",
                    (double)siot_session_renest_ns() * 1e-6, (double)(siot_now() - t0) * 1e-6);
        if (rc == 0)
            rc = siot_trace_encode_file(mine, siot_cfg.pack, &b) == 0 && siot_write_fd(out->fd, b.data, b.len) == 0 ? 0 : -1;
        siot_vbuf_free(&b);
    } else {
        rc = write_blocks(mine, blk, info, out->fd, js, rc);
    }
    if (rc != 0) {
        siot_out_abort(out, errno ? strerror(errno) : "out of memory");
        return -1;
    }
    return siot_out_commit(out);
}

/* Every rank: its block, if it holds one, goes to rank 0, which writes the
 * file. Returns 0 when the job's file was written (on rank 0). */
static int write_job(siot_trace *mine, int holder, siot_out *out, job_state *js)
{
    siot_block blk;
    if (holder && siot_cfg.compress) /* within SIOT_TOLERANCE, timings too (none without it) */
        siot_timefold(mine);
    int ok = holder && siot_block_prepare(mine, &blk) == 0;
    const char *ev = holder ? siot_trace_get_kv(mine, "events_recorded") : NULL;
    uint64_t me[NINFO] = {ok && js->rank ? blk.len : 0, ok ? blk.nsec : 0, mine->flags, js->refused, holder && !ok,
                          ev ? strtoull(ev, NULL, 10) : 0};
    uint64_t *info = js->rank == 0 ? calloc((size_t)js->size * NINFO, sizeof *info) : NULL;
    /* rank 0 can take the blocks (it could not without the table of their lengths) */
    int go = js->rank != 0 || info;
    if (PMPI_Bcast(&go, 1, MPI_INT, 0, js->comm) != MPI_SUCCESS)
        go = 0;
    int rc = 0;
    if (go && PMPI_Gather(me, NINFO, MPI_UINT64_T, info, NINFO, MPI_UINT64_T, 0, js->comm) != MPI_SUCCESS)
        rc = -1;
    if (js->rank != 0) {
        if (go && rc == 0 && ok && me[INFO_LEN])
            send_block(&blk, js);
        rc = 0;
    } else if (!go) {
        siot_out_abort(out, "out of memory");
        rc = -1;
    } else {
        rc = root_write(mine, ok ? &blk : NULL, info, out, js, rc == 0 && ok ? 0 : -1);
    }
    if (ok)
        siot_block_free(&blk);
    free(info);
    return rc;
}

/* ---------------------------------------------------------------- failure */

/* Rank 0 could not create the job's file: each rank leaves its own part.
 * Rank 0 says in one line what failed and where the parts are; a rank whose
 * part went elsewhere, or nowhere, says so itself. */
static void leave_parts(siot_trace *mine, const char *why0, job_state *js)
{
    char where[PATH_MAX + 64], why[sizeof ((siot_out *)0)->why];
    siot_trace_set_kv(mine, "partial", "the job's trace file could not be created at MPI_Finalize");
    mine->flags |= SIOT_TF_PARTIAL;
    int wrote = siot_write_part(mine, siot_session_rank(), where, sizeof where, why, sizeof why) == 0;
    char dir0[PATH_MAX + 64] = "";
    if (js->rank == 0 && wrote) {
        snprintf(dir0, sizeof dir0, "%s", where);
        char *slash = strrchr(dir0, '/');
        *(slash ? slash : dir0) = 0;
    }
    PMPI_Bcast(dir0, (int)sizeof dir0, MPI_CHAR, 0, js->comm);
    char mydir[PATH_MAX + 64];
    snprintf(mydir, sizeof mydir, "%s", wrote ? where : "");
    char *slash = strrchr(mydir, '/');
    *(slash ? slash : mydir) = 0;
    if (js->rank == 0 && wrote)
        fprintf(stderr, "siotrace: %s: each rank's trace is left as its part in %s/ (siot merge joins them)\n", why0,
                dir0);
    else if (js->rank == 0)
        fprintf(stderr, "siotrace: %s\n", why0);
    if (!wrote)
        fprintf(stderr, "siotrace: rank %d: its trace could not be written anywhere (%s)\n", js->rank, why);
    else if (js->rank != 0 && strcmp(mydir, dir0) != 0)
        fprintf(stderr, "siotrace: rank %d: its part is in %s\n", js->rank, where);
}

/* ---------------------------------------------------------------- the whole */

static size_t piece_size(void)
{
    size_t p = siot_cfg.max_memory ? siot_cfg.max_memory / 16 : PIECE_MAX;
    return p < PIECE_MIN ? PIECE_MIN : p > PIECE_MAX ? PIECE_MAX : p;
}

int siot_job_trace_end(siot_trace *mine, MPI_Comm comm, uint64_t t0)
{
    job_state js = {.comm = comm};
    PMPI_Comm_rank(comm, &js.rank);
    PMPI_Comm_size(comm, &js.size);
    siot_out out = {.fd = -1};
    int cannot = 0;
    if (js.rank == 0) {
        cannot = siot_out_open(&out, siot_cfg.trace_path) != 0;
        js.piece_cap = piece_size();
        js.piece = malloc(js.piece_cap);
        if (!js.piece) {
            static uint8_t small[PIECE_MIN];
            js.piece = small;
            js.piece_cap = sizeof small;
            js.piece_static = 1;
        }
    }
    /* [spilled, rank 0 cannot write, the piece size rank 0 takes (job_piece.h)] */
    long long v[3] = {siot_session_spilled(), cannot, siot_piece_offer(js.rank, js.piece_cap)}, all[3];
    if (PMPI_Allreduce(v, all, 3, MPI_LONG_LONG, MPI_MAX, comm) != MPI_SUCCESS)
        memcpy(all, v, sizeof all);
    js.spilled = all[0] != 0;
    js.piece_cap = siot_piece_agreed(all[2], PIECE_MIN);
    int written = 0;
    if (all[1]) {
        leave_parts(mine, out.why, &js);
    } else {
        int holder = js.spilled ? 1 : merge_tree(mine, comm, &js);
        if (js.rank == 0) {
            char note[64];
            snprintf(note, sizeof note, "%.6f", (double)(siot_now() - t0) * 1e-9);
            siot_trace_set_kv(mine, "finalize_seconds", note);
        }
        written = write_job(mine, holder, &out, &js) == 0;
        if (js.rank == 0 && !written)
            fprintf(stderr, "siotrace: the job's trace was not written: %s\n", out.why);
        else if (js.rank == 0 && siot_cfg.verbose)
            fprintf(stderr, "siotrace: wrote %s\n", out.path);
    }
    if (js.rank == 0 && !js.piece_static)
        free(js.piece);
    PMPI_Bcast(&written, 1, MPI_INT, 0, comm);
    /* the parts left supersede the checkpoints, at the same names */
    siot_checkpoint_settle(all[1] ? -1 : written);
    return written;
}
