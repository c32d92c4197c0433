/* The MPI side of a tracing session: MPI_Init starts the rank's session (what
 * the runtime did before is its own start-up and is dropped), MPI_Finalize
 * merges the ranks' traces over a binary reduction tree and rank 0 writes the
 * job's single trace file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_record.h"
#include "compress/merge.h"
#include "src/format.h"

static int finalized;
static MPI_Comm merge_comm = MPI_COMM_NULL; /* the tracer's own, made at MPI_Init */

static void register_predefined(void)
{
    siot_h_set_base(SIOT_H_COMM, SIOT_COMM_BASE);
    siot_h_set_base(SIOT_H_GROUP, SIOT_GROUP_BASE);
    siot_h_set_base(SIOT_H_DTYPE, SIOT_DTYPE_BASE);
    siot_h_set_base(SIOT_H_OP, SIOT_OP_BASE);
    siot_h_set_base(SIOT_H_STREAM, 3);
    siot_h_set_base(SIOT_H_FD, 3);
    /* First name wins when an implementation aliases two names to one handle. */
#define REG(kind, keyfn, id, h)                                  \
    if (siot_h_find(kind, keyfn(h)) < 0)                         \
        siot_h_fixed(kind, keyfn(h), id);
#define XC(id, h) REG(SIOT_H_COMM, siot_hkey_comm, id, h)
#define XG(id, h) REG(SIOT_H_GROUP, siot_hkey_group, id, h)
#define XD(id, h) REG(SIOT_H_DTYPE, siot_hkey_dtype, id, h)
#define XO(id, h) REG(SIOT_H_OP, siot_hkey_op, id, h)
    siot_lock();
    SIOT_PREDEF_COMMS(XC)
    SIOT_PREDEF_GROUPS(XG)
    SIOT_PREDEF_DTYPES(XD)
    SIOT_PREDEF_OPS(XO)
    siot_unlock();
#undef XC
#undef XG
#undef XD
#undef XO
#undef REG
}

void siot_mpi_init_pre(void) { siot_session_pause(); }

void siot_mpi_init_post(void)
{
    int rank = 0, size = 1, inited = 0;
    PMPI_Initialized(&inited);
    if (inited) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        PMPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    siot_session_restart(rank, (uint32_t)size);
    register_predefined();
    siot_session_set_mpi(1);
    /* MPI may have set signal and exit handlers of its own: ours go first. */
    siot_install_signal_handlers();
    atexit(siot_at_exit);
    /* Made now, so that MPI_Finalize does not pay for a collective. */
    if (inited && PMPI_Comm_dup(MPI_COMM_WORLD, &merge_comm) == MPI_SUCCESS)
        PMPI_Comm_set_errhandler(merge_comm, MPI_ERRORS_RETURN);
}

/* A trace goes to the next rank of the tree in one message (tag 3), probed
 * for its size; one larger than 1 GiB goes as a size (tag 1) and pieces
 * (tag 2), since MPI counts are ints. An empty message on tag 4 says that the
 * sender has nothing to give (it ran out of memory). */
#define CHUNK (1 << 30)
enum { TAG_SIZE = 1, TAG_PIECE = 2, TAG_WHOLE = 3, TAG_NONE = 4 };

static int send_blob(const siot_vbuf *b, int to, MPI_Comm comm)
{
    if (b->oom)
        return PMPI_Send(NULL, 0, MPI_BYTE, to, TAG_NONE, comm) == MPI_SUCCESS ? 0 : -1;
    if (b->len < CHUNK)
        return PMPI_Send(b->data, (int)b->len, MPI_BYTE, to, TAG_WHOLE, comm) == MPI_SUCCESS ? 0 : -1;
    uint64_t n = b->len;
    if (PMPI_Send(&n, 1, MPI_UINT64_T, to, TAG_SIZE, comm) != MPI_SUCCESS)
        return -1;
    for (uint64_t off = 0; off < n; off += CHUNK) {
        int c = (int)(n - off < CHUNK ? n - off : CHUNK);
        if (PMPI_Send(b->data + off, c, MPI_BYTE, to, TAG_PIECE, comm) != MPI_SUCCESS)
            return -1;
    }
    return 0;
}

static uint8_t *recv_blob(int from, MPI_Comm comm, uint64_t *len)
{
    MPI_Status st;
    MPI_Message msg;
    if (PMPI_Mprobe(from, MPI_ANY_TAG, comm, &msg, &st) != MPI_SUCCESS)
        return NULL;
    int count = 0;
    PMPI_Get_count(&st, MPI_BYTE, &count);
    uint8_t one, *p;
    if (st.MPI_TAG == TAG_NONE) {
        PMPI_Mrecv(&one, 0, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        return NULL;
    }
    if (st.MPI_TAG == TAG_WHOLE) {
        p = malloc(count ? (size_t)count : 1);
        /* Without memory, still take the message (truncated: MPI_ERRORS_RETURN). */
        PMPI_Mrecv(p ? p : &one, p ? count : 0, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        *len = (uint64_t)count;
        return p;
    }
    uint64_t n = 0;
    PMPI_Mrecv(&n, 1, MPI_UINT64_T, &msg, MPI_STATUS_IGNORE);
    p = malloc(n ? n : 1);
    for (uint64_t off = 0; off < n; off += CHUNK) {
        int c = (int)(n - off < CHUNK ? n - off : CHUNK);
        PMPI_Recv(p ? p + off : &one, p ? c : 0, MPI_BYTE, from, TAG_PIECE, comm, MPI_STATUS_IGNORE);
    }
    *len = n;
    return p;
}

/* ---- a job where some rank spilled (SIOT_MAX_MEMORY): no merge; rank 0
 * writes the header and then every rank's block in rank order, each
 * streamed to it in pieces, so that no rank holds more than its own. */
enum { TAG_BLOCK = 5, TAG_BLOCK_PIECE = 6 };
#define PIECE (64u << 20)

typedef struct sender {
    MPI_Comm comm;
    uint8_t *buf;
    size_t n;
} sender;

static int send_flush(sender *s)
{
    if (!s->n)
        return 0;
    int rc = PMPI_Send(s->buf, (int)s->n, MPI_BYTE, 0, TAG_BLOCK_PIECE, s->comm) == MPI_SUCCESS ? 0 : -1;
    s->n = 0;
    return rc;
}

/* pieces of at most PIECE bytes, gathered so that small emits do not each cost a message */
static int emit_send(void *arg, const void *p, size_t n)
{
    sender *s = arg;
    const uint8_t *q = p;
    while (n) {
        size_t c = PIECE - s->n < n ? PIECE - s->n : n;
        memcpy(s->buf + s->n, q, c);
        s->n += c;
        q += c;
        n -= c;
        if (s->n == PIECE && send_flush(s))
            return -1;
    }
    return 0;
}

static int emit_write(void *arg, const void *p, size_t n) { return siot_write_fd(*(int *)arg, p, n); }

typedef struct job {
    siot_trace *mine;
    siot_block *blk;
    MPI_Comm comm;
    int size;
    uint64_t *info; /* per rank: length, sections, flags */
} job;

static int job_body(int fd, void *arg, size_t *len)
{
    job *j = arg;
    siot_vbuf b;
    siot_vbuf_init(&b);
    uint32_t nsec = 1;
    for (int r = 0; r < j->size; r++) {
        nsec += (uint32_t)j->info[3 * r + 1];
        j->mine->flags |= (uint32_t)j->info[3 * r + 2] & (SIOT_TF_PARTIAL | SIOT_TF_TRUNCATED);
    }
    int rc = siot_file_start(j->mine, &b) == 0 && siot_write_fd(fd, b.data, b.len) == 0 ? 0 : -1;
    *len = b.len;
    if (rc == 0)
        rc = siot_block_emit(j->blk, emit_write, &fd);
    *len += j->blk->len;
    uint8_t *piece = rc == 0 ? malloc(PIECE) : NULL;
    for (int r = 1; r < j->size && rc == 0; r++) {
        /* every piece of rank r's block, whatever happens, so that r is not left waiting */
        for (uint64_t got = 0; got < j->info[3 * r];) {
            MPI_Status st;
            int n = 0;
            if (PMPI_Recv(piece, piece ? PIECE : 0, MPI_BYTE, r, TAG_BLOCK_PIECE, j->comm, &st) != MPI_SUCCESS) {
                rc = -1;
                break;
            }
            PMPI_Get_count(&st, MPI_BYTE, &n);
            if (n <= 0 || siot_write_fd(fd, piece, (size_t)n) != 0)
                rc = -1;
            got += (uint64_t)(n > 0 ? n : 1);
        }
        *len += j->info[3 * r];
    }
    free(piece);
    b.len = 0;
    if (rc == 0)
        rc = siot_file_end(nsec, &b) == 0 && siot_write_fd(fd, b.data, b.len) == 0 ? 0 : -1;
    *len += b.len;
    siot_vbuf_free(&b);
    return rc;
}

/* Rank 0 says whether the job's trace was written; each rank then drops
 * its last checkpoint (SIOT_CHECKPOINT), or keeps it when the trace failed.
 * Every rank takes part, checkpointing or not: SIOT_CHECKPOINT may differ
 * between the programs of an MPMD job. */
static void settle_checkpoints(int written, MPI_Comm comm)
{
    PMPI_Bcast(&written, 1, MPI_INT, 0, comm);
    siot_checkpoint_settle(written);
}

/* Returns 0 when the job's trace was written (on rank 0; others 0). */
static int write_spilled_job(siot_trace *mine, int rank, int size, MPI_Comm comm)
{
    int rc = 0;
    siot_block blk;
    int ok = siot_block_prepare(mine, &blk) == 0;
    uint64_t me[3] = {ok ? blk.len : 0, ok ? blk.nsec : 0, mine->flags};
    uint64_t *info = rank == 0 ? calloc((size_t)size * 3, sizeof *info) : NULL;
    PMPI_Gather(me, 3, MPI_UINT64_T, info, 3, MPI_UINT64_T, 0, comm);
    if (rank != 0) {
        sender s = {comm, ok ? malloc(PIECE) : NULL, 0};
        if (s.buf && siot_block_emit(&blk, emit_send, &s) == 0)
            send_flush(&s);
        free(s.buf);
    } else if (info) {
        char note[200];
        int spilled = 0;
        for (int r = 0; r < size; r++)
            spilled += info[3 * r + 1] > 3;
        snprintf(note, sizeof note,
                 "SIOT_MAX_MEMORY was reached on %d of %d ranks: each rank's trace is kept as it was recorded "
                 "(a block per rank), not merged", spilled, size);
        siot_trace_set_kv(mine, "concatenated", note);
        job j = {mine, &blk, comm, size, info};
        rc = siot_write_trace_with(job_body, &j);
    } else {
        rc = -1;
    }
    free(info);
    siot_block_free(&blk);
    return rc;
}

void siot_mpi_abort_hook(int errorcode)
{
    char why[96];
    snprintf(why, sizeof why, "MPI_Abort(errorcode %d) on rank %d", errorcode, (int)siot_session_rank());
    siot_end_session(why, 1);
}

void siot_mpi_finalize_hook(void)
{
    if (finalized)
        return;
    finalized = 1;
    if (siot_session_ended()) /* the program is exiting and its part is written: no merge now */
        return;
    uint64_t t0 = siot_now();
    int written = 1; /* the job's trace, on rank 0 */
    siot_trace mine;
    if (siot_session_take(&mine) != 0)
        fprintf(stderr, "siotrace: out of memory while closing the trace; it is incomplete\n");

    int busy = siot_t.busy;
    siot_t.busy = 1;
    int rank = 0, size = 1;
    MPI_Comm comm = merge_comm;
    if (comm == MPI_COMM_NULL && PMPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS)
        PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);

    if (siot_cfg.rank_traces) {
        /* Each rank's own trace, before any merge (for checking the merge). */
        char path[4200];
        snprintf(path, sizeof path, "%s/rank-%06d.siot", siot_cfg.rank_traces, rank);
        siot_write_trace_to(&mine, path, 1);
    }

    /* A rank that spilled cannot merge in memory: then every rank's trace
     * goes to the file as it is. */
    int spilled = siot_session_spilled(), any = spilled;
    PMPI_Allreduce(&spilled, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
        settle_checkpoints(write_spilled_job(&mine, rank, size, comm) == 0, comm);
        siot_trace_free(&mine);
        PMPI_Comm_free(&comm);
        merge_comm = MPI_COMM_NULL;
        siot_t.busy = busy;
        return;
    }

    /* Round k: ranks with bit k set hand their (already merged) trace to
     * rank - 2^k, which appends it after its own; rank order is preserved. */
    for (int step = 1; step < size; step <<= 1) {
        if (rank & step) {
            siot_vbuf b;
            siot_vbuf_init(&b);
            if (siot_trace_encode_exact(&mine, &b) != 0)
                b.oom = 1;
            send_blob(&b, rank - step, comm);
            siot_vbuf_free(&b);
            break;
        }
        if (rank + step < size) {
            uint64_t n = 0;
            uint8_t *blob = recv_blob(rank + step, comm, &n);
            siot_trace theirs;
            char why[256];
            int mrc;
            if (!blob) {
                fprintf(stderr, "siotrace: rank %d: lost the traces of ranks %d-%d (transfer failed)\n", rank,
                        rank + step, rank + 2 * step - 1 < size ? rank + 2 * step - 1 : size - 1);
                siot_trace_set_kv(&mine, "lost", "some ranks' traces could not be transferred");
                mine.flags |= SIOT_TF_PARTIAL;
            } else if (siot_trace_decode(blob, n, &theirs, why, sizeof why) != 0) {
                fprintf(stderr, "siotrace: rank %d: cannot merge the trace of rank %d: %s\n", rank, rank + step, why);
                mine.flags |= SIOT_TF_PARTIAL;
            } else if ((mrc = siot_cfg.compress ? siot_trace_merge(&mine, &theirs, siot_cfg.window)
                                                : siot_trace_append(&mine, &theirs)) != 0) {
                fprintf(stderr, "siotrace: rank %d: %s while merging the trace of rank %d\n", rank,
                        mrc == SIOT_E_CONFLICT ? "function tables differ" : "out of memory", rank + step);
                mine.flags |= SIOT_TF_PARTIAL;
            }
            free(blob);
        }
    }
    if (rank == 0) {
        /* How long the tracer held MPI_Finalize up (gathering and merging). */
        char note[64];
        snprintf(note, sizeof note, "%.6f", (double)(siot_now() - t0) * 1e-9);
        siot_trace_set_kv(&mine, "finalize_seconds", note);
        written = siot_write_trace(&mine) == 0;
    }
    settle_checkpoints(written, comm);
    siot_trace_free(&mine);
    PMPI_Comm_free(&comm);
    merge_comm = MPI_COMM_NULL;
    siot_t.busy = busy;
}
