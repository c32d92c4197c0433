/* idioms: the MPI communication idioms of the MPI library's own test
 * suites, one family per argument (all of them without one), each checked
 * by the program itself (exit 2 when a value is wrong) and each leaving a
 * file res-FAMILY-R.dat of RES_INTS ints, so a replay has something to
 * write:
 *   inplace     MPI_IN_PLACE in Allreduce, Reduce, Allgather, Gather,
 *               Scan, Reduce_scatter_block, Alltoall, Alltoallw, Iallreduce,
 *               and on the receive side of Scatter and Iscatterv at the root
 *   persistent  Send_init/Recv_init started NITER times with Startall, a
 *               receive never started then waited on and freed (inactive),
 *               MPI-4 Allreduce_init where the library has it
 *   nbc         Ibcast, Iallreduce, Igather, Ialltoallw, Ibarrier, and on a
 *               ring topology Neighbor_allgather and Ineighbor_alltoall
 *   mixed       one Waitall over MPI-IO and point-to-point requests, then
 *               Waitany and Testsome over such mixtures
 *   self        messages to oneself (Isend+Recv, Sendrecv), MPI_COMM_SELF
 *   intercomm   two halves joined by Intercomm_create, messages across,
 *               Intercomm_merge and a reduction on the merged communicator
 *   greq        a generalized request started and completed by the program
 *   corners     MPI_BOTTOM with a datatype of absolute addresses, a receive
 *               freed while active (MPI_Request_free) then met by a send
 *               after larger messages, a cancelled receive, MPI_Testsome
 *               and MPI_Waitsome over no requests with NULL arrays
 *   scattered   a root that gathers (Gatherv) and scatters (Scatterv) with
 *               blocks it keeps apart, one per rank, its displacements
 *               relative to rank 0's block, which lies above the others:
 *               displacements below the buffer (negative), as a library
 *               gathering each rank's host name into a string of its own
 *   unknown     requests made through the profiling interface (PMPI_Isend,
 *               PMPI_Irecv: as a library inside the program may), completed
 *               with MPI_Waitall and MPI_Wait, which the tracer does see
 * Without an argument, every family but unknown (whose calls a replay
 * cannot reissue). Needs an even number of ranks for intercomm. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 8
#define NITER 5
#define RES_INTS 64
#define IO_INTS 256

static int rank, size, ok = 1, res[RES_INTS], nres;

static void expect(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "idioms rank %d: %s\n", rank, what);
        ok = 0;
    }
}

static void keep(int v)
{
    if (nres < RES_INTS)
        res[nres++] = v;
}

/* each family's result: its checked values, through POSIX stdio */
static void save(const char *family)
{
    char name[64];
    snprintf(name, sizeof name, "res-%s-%d.dat", family, rank);
    FILE *f = fopen(name, "wb");
    fwrite(res, sizeof(int), RES_INTS, f);
    fclose(f);
    memset(res, 0, sizeof res);
    nres = 0;
}

static void inplace(void)
{
    int v[N], all[64], tot = size * (size - 1) / 2;
    for (int i = 0; i < N; i++)
        v[i] = rank + i;
    MPI_Allreduce(MPI_IN_PLACE, v, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(v[0] == tot && v[N - 1] == tot + size * (N - 1), "Allreduce in place");
    keep(v[0]);
    v[0] = rank;
    if (rank == 0)
        MPI_Reduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    else
        MPI_Reduce(v, NULL, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    expect(rank != 0 || v[0] == size - 1, "Reduce in place");
    for (int i = 0; i < size; i++)
        all[i] = i == rank ? rank * 10 : -1;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD);
    expect(all[size - 1] == (size - 1) * 10, "Allgather in place");
    keep(all[size - 1]);
    all[0] = rank == 0 ? 7 : -1;
    if (rank == 0)
        MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Gather(&rank, 1, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
    expect(rank != 0 || (all[0] == 7 && all[size - 1] == size - 1), "Gather in place");
    v[0] = rank + 1;
    MPI_Scan(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(v[0] == (rank + 1) * (rank + 2) / 2, "Scan in place");
    keep(v[0]);
    for (int i = 0; i < size; i++)
        all[i] = rank * size + i;
    MPI_Reduce_scatter_block(MPI_IN_PLACE, all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(all[0] == size * (size - 1) / 2 * size + rank * size, "Reduce_scatter_block in place");
    keep(all[0]);
    for (int i = 0; i < size; i++)
        all[i] = rank * 100 + i;
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD);
    expect(all[size - 1] == (size - 1) * 100 + rank, "Alltoall in place");
    keep(all[size - 1]);
    int cnt[64], dsp[64];
    MPI_Datatype typ[64];
    for (int i = 0; i < size; i++) {
        all[i] = rank * 100 + i;
        cnt[i] = 1;
        dsp[i] = i * (int)sizeof(int);
        typ[i] = MPI_INT;
    }
    /* in place, the send arguments are ignored (the test suites pass junk) */
    MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, all, cnt, dsp, typ, MPI_COMM_WORLD);
    expect(all[size - 1] == (size - 1) * 100 + rank, "Alltoallw in place");
    keep(all[size - 1]);
    /* the root keeps its own part where it is */
    for (int i = 0; i < size; i++)
        all[i] = rank == 0 ? i * 7 : -1;
    if (rank == 0)
        MPI_Scatter(all, 1, MPI_INT, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD); /* as MPICH's scatter2 */
    else
        MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    expect(all[0] == rank * 7, "Scatter in place");
    keep(all[0]);
    MPI_Request rq;
    for (int i = 0; i < size; i++) {
        all[i] = rank == 0 ? i * 9 : -1;
        cnt[i] = 1;
        dsp[i] = i;
    }
    if (rank == 0)
        MPI_Iscatterv(all, cnt, dsp, MPI_INT, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, &rq);
    else
        MPI_Iscatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, all, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    expect(all[0] == rank * 9, "Iscatterv in place");
    keep(all[0]);
    v[0] = rank;
    MPI_Iallreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    expect(v[0] == tot, "Iallreduce in place");
    keep(v[0]);
    save("inplace");
}

static void persistent(void)
{
    int out[N] = {0}, in[N], next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Request rq[2], never;
    MPI_Send_init(out, N, MPI_INT, next, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(in, N, MPI_INT, prev, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Recv_init(in, N, MPI_INT, prev, 4, MPI_COMM_WORLD, &never);
    for (int it = 0; it < NITER; it++) {
        for (int i = 0; i < N; i++)
            out[i] = rank * 1000 + it * N + i;
        MPI_Status sts[2];
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, sts);
        expect(in[N - 1] == prev * 1000 + it * N + N - 1, "persistent ring");
        keep(in[0]);
    }
    /* waiting on an inactive persistent request returns at once */
    MPI_Status st;
    MPI_Wait(&never, &st);
    expect(st.MPI_TAG == MPI_ANY_TAG && st.MPI_SOURCE == MPI_ANY_SOURCE, "inactive request's empty status");
    MPI_Request_free(&never);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
#if MPI_VERSION >= 4
    MPI_Request ar;
    int v = rank, r = -1;
    MPI_Allreduce_init(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar);
    for (int it = 0; it < 2; it++) {
        MPI_Start(&ar);
        MPI_Wait(&ar, MPI_STATUS_IGNORE);
        expect(r == size * (size - 1) / 2, "Allreduce_init");
        keep(r);
    }
    MPI_Request_free(&ar);
#endif
    save("persistent");
}

static void nbc(void)
{
    int b = rank == 0 ? 42 : 0, s = rank, sum = -1, g[64], a[64], w[64];
    MPI_Request rq[6];
    MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Iallreduce(&s, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
    MPI_Igather(&s, 1, MPI_INT, g, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[2]);
    int cnt[64], dsp[64];
    MPI_Datatype typ[64];
    for (int i = 0; i < size; i++) {
        a[i] = rank * 100 + i;
        cnt[i] = 1;
        dsp[i] = i * (int)sizeof(int);
        typ[i] = MPI_INT;
    }
    MPI_Ialltoallw(a, cnt, dsp, typ, w, cnt, dsp, typ, MPI_COMM_WORLD, &rq[3]);
    MPI_Ibarrier(MPI_COMM_WORLD, &rq[4]);
    MPI_Status sts[5];
    MPI_Waitall(5, rq, sts);
    expect(b == 42 && sum == size * (size - 1) / 2, "Ibcast, Iallreduce");
    expect(rank != 0 || g[size - 1] == size - 1, "Igather");
    expect(w[size - 1] == (size - 1) * 100 + rank, "Ialltoallw");
    keep(b), keep(sum), keep(w[size - 1]);
    /* a periodic ring: two neighbours each */
    MPI_Comm ring;
    int dims = size, period = 1, nb[2], sendn[2], recvn[2];
    MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &period, 0, &ring);
    MPI_Neighbor_allgather(&s, 1, MPI_INT, nb, 1, MPI_INT, ring);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    expect(nb[0] == left && nb[1] == right, "Neighbor_allgather");
    keep(nb[0]), keep(nb[1]);
    sendn[0] = rank * 10, sendn[1] = rank * 10 + 1;
    MPI_Ineighbor_alltoall(sendn, 1, MPI_INT, recvn, 1, MPI_INT, ring, &rq[5]);
    MPI_Wait(&rq[5], MPI_STATUS_IGNORE);
    /* from the left neighbour its "right" value, from the right its "left" */
    expect(recvn[0] == left * 10 + 1 && recvn[1] == right * 10, "Ineighbor_alltoall");
    keep(recvn[0]), keep(recvn[1]);
    MPI_Comm_free(&ring);
    save("nbc");
}

static void mixed(void)
{
    static int blk[IO_INTS];
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, in = -1, out = rank;
    for (int i = 0; i < IO_INTS; i++)
        blk[i] = rank * IO_INTS + i;
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "mixed.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_Offset at = (MPI_Offset)rank * 2 * sizeof blk;
    MPI_Request rq[4];
    MPI_Status st[4];
    MPI_File_iwrite_at(fh, at, blk, IO_INTS, MPI_INT, &rq[0]);
    MPI_Irecv(&in, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &rq[1]);
    MPI_File_iwrite_at(fh, at + sizeof blk, blk, IO_INTS, MPI_INT, &rq[2]);
    MPI_Isend(&out, 1, MPI_INT, next, 5, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, st);
    int got;
    MPI_Get_count(&st[0], MPI_INT, &got);
    expect(in == prev && got == IO_INTS, "Waitall over MPI-IO and messages");
    keep(in), keep(got);
    /* Waitany until all are done: a read and a message */
    int back[IO_INTS], done = 0, idx;
    MPI_File_iread_at(fh, at, back, IO_INTS, MPI_INT, &rq[0]);
    MPI_Isend(&out, 1, MPI_INT, next, 6, MPI_COMM_WORLD, &rq[1]);
    MPI_Irecv(&in, 1, MPI_INT, prev, 6, MPI_COMM_WORLD, &rq[2]);
    while (done < 3) {
        MPI_Waitany(3, rq, &idx, MPI_STATUS_IGNORE);
        done++;
    }
    expect(back[IO_INTS - 1] == blk[IO_INTS - 1] && in == prev, "Waitany");
    keep(back[IO_INTS - 1]);
    /* Testsome until all are done */
    int outc, ids[3];
    MPI_File_iread_at(fh, at + sizeof blk, back, IO_INTS, MPI_INT, &rq[0]);
    MPI_Isend(&out, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &rq[1]);
    MPI_Irecv(&in, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &rq[2]);
    for (done = 0; done < 3; done += outc == MPI_UNDEFINED ? 0 : outc)
        MPI_Testsome(3, rq, &outc, ids, st);
    expect(back[0] == blk[0] && in == prev, "Testsome");
    keep(back[0]);
    MPI_File_close(&fh);
    save("mixed");
}

static void self(void)
{
    int out = rank * 3, in = -1, sum = -1;
    MPI_Request rq;
    MPI_Isend(&out, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, &rq);
    MPI_Recv(&in, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    expect(in == out, "Isend to oneself");
    keep(in);
    MPI_Sendrecv(&out, 1, MPI_INT, rank, 9, &in, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(in == out, "Sendrecv with oneself");
    MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    expect(sum == out, "Allreduce on MPI_COMM_SELF");
    keep(sum);
    save("self");
}

static void intercomm(void)
{
    MPI_Comm half, inter, merged;
    int color = rank % 2, out = rank, in = -1, sum = -1, rsize = 0;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    /* the leaders: world ranks 0 and 1, rank 0 of each half */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 10, &inter);
    MPI_Comm_remote_size(inter, &rsize);
    int hrank;
    MPI_Comm_rank(half, &hrank);
    /* rank i of one half talks to rank i of the other */
    MPI_Sendrecv(&out, 1, MPI_INT, hrank, 11, &in, 1, MPI_INT, hrank, 11, inter, MPI_STATUS_IGNORE);
    expect(rsize == size / 2 && in == hrank * 2 + 1 - color, "messages across the intercommunicator");
    keep(in);
    MPI_Intercomm_merge(inter, color, &merged);
    MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, merged);
    expect(sum == size * (size - 1) / 2, "Allreduce on the merged communicator");
    keep(sum);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    save("intercomm");
}

/* A deliberate twin of replay/rp.c's do-nothing callbacks: a test program
 * links nothing of the tool it tests. */
static int gq_query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int gq_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}
static int gq_cancel(void *extra, int done)
{
    (void)extra, (void)done;
    return MPI_SUCCESS;
}

static void greq(void)
{
    MPI_Request rq;
    int flag = 1;
    MPI_Grequest_start(gq_query, gq_free, gq_cancel, NULL, &rq);
    MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
    expect(flag == 0, "a generalized request is not done before it is completed");
    MPI_Grequest_complete(rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    keep(flag);
    save("greq");
}

/* BIG ints: the larger messages sent while a freed receive is pending */
#define BIG 4096
static void corners(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    /* MPI_BOTTOM: a struct of absolute addresses */
    int a = rank, b[2] = {rank * 2, rank * 3}, ra = -1, rb[2] = {-1, -1};
    MPI_Aint at[2], rat[2];
    int len[2] = {1, 2};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT}, abs_out, abs_in;
    MPI_Get_address(&a, &at[0]);
    MPI_Get_address(b, &at[1]);
    MPI_Get_address(&ra, &rat[0]);
    MPI_Get_address(rb, &rat[1]);
    MPI_Type_create_struct(2, len, at, ints, &abs_out);
    MPI_Type_create_struct(2, len, rat, ints, &abs_in);
    MPI_Type_commit(&abs_out);
    MPI_Type_commit(&abs_in);
    MPI_Sendrecv(MPI_BOTTOM, 1, abs_out, next, 20, MPI_BOTTOM, 1, abs_in, prev, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(ra == prev && rb[1] == prev * 3, "MPI_BOTTOM with absolute addresses");
    keep(ra);
    MPI_Type_free(&abs_out);
    MPI_Type_free(&abs_in);
    /* a receive freed while active; larger messages in between */
    static int big[BIG], bigin[BIG];
    int late = -1, out = rank;
    MPI_Request rq;
    MPI_Irecv(&late, 1, MPI_INT, prev, 21, MPI_COMM_WORLD, &rq);
    MPI_Request_free(&rq);
    MPI_Sendrecv(big, BIG, MPI_INT, next, 22, bigin, BIG, MPI_INT, prev, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&out, 1, MPI_INT, next, 21, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    /* a receive nobody sends to, cancelled */
    int never = -1, cancelled = 0;
    MPI_Status st;
    MPI_Irecv(&never, 1, MPI_INT, prev, 23, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &cancelled);
    expect(cancelled, "a receive nobody sends to is cancelled");
    keep(cancelled);
    /* completions over no requests */
    int outc = -1;
    /* GCC takes MPICH's MPI_STATUSES_IGNORE for a too small array */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
    MPI_Testsome(0, NULL, &outc, NULL, MPI_STATUSES_IGNORE);
    expect(outc == MPI_UNDEFINED, "Testsome of no requests");
    MPI_Waitsome(0, NULL, &outc, NULL, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
    expect(outc == MPI_UNDEFINED, "Waitsome of no requests");
    save("corners");
}

/* SCAT_LEN chars per rank, in blocks SCAT_STRIDE apart, rank r's at
 * (size - 1 - r) * SCAT_STRIDE: displacements relative to rank 0's block */
#define SCAT_LEN 6
#define SCAT_STRIDE 64
static void scattered(void)
{
    char mine[SCAT_LEN], back[SCAT_LEN];
    snprintf(mine, sizeof mine, "n%04d", rank);
    char *pool = NULL, *base = NULL;
    int *counts = NULL, *displs = NULL;
    if (rank == 0) {
        pool = calloc((size_t)size, SCAT_STRIDE);
        counts = malloc((size_t)size * sizeof *counts);
        displs = malloc((size_t)size * sizeof *displs);
        base = pool + (size - 1) * SCAT_STRIDE;
        for (int r = 0; r < size; r++) {
            counts[r] = SCAT_LEN;
            displs[r] = (int)(pool + (size - 1 - r) * SCAT_STRIDE - base);
        }
        MPI_Gatherv(mine, SCAT_LEN, MPI_CHAR, base, counts, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
        for (int r = 0; r < size; r++) {
            char want[SCAT_LEN];
            snprintf(want, sizeof want, "n%04d", r);
            expect(memcmp(base + displs[r], want, SCAT_LEN) == 0, "Gatherv into blocks below the buffer");
            base[displs[r]] = 'm';
        }
        MPI_Scatterv(base, counts, displs, MPI_CHAR, back, SCAT_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    } else {
        MPI_Gatherv(mine, SCAT_LEN, MPI_CHAR, NULL, NULL, NULL, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Scatterv(NULL, NULL, NULL, MPI_CHAR, back, SCAT_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    expect(back[0] == 'm' && memcmp(back + 1, mine + 1, SCAT_LEN - 1) == 0, "Scatterv from blocks below the buffer");
    keep(back[0]);
    free(pool);
    free(counts);
    free(displs);
    save("scattered");
}

/* the program's own requests, made where no tracer sees them: NUNKNOWN per rank */
#define NUNKNOWN 3
static void unknown(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, out = rank, in[2] = {-1, -1};
    MPI_Request rq[2], one;
    PMPI_Irecv(&in[0], 1, MPI_INT, prev, 12, MPI_COMM_WORLD, &rq[0]);
    PMPI_Isend(&out, 1, MPI_INT, next, 12, MPI_COMM_WORLD, &rq[1]);
    MPI_Status sts[2];
    MPI_Waitall(2, rq, sts);
    PMPI_Sendrecv(&out, 1, MPI_INT, next, 13, &in[1], 1, MPI_INT, prev, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    PMPI_Ibarrier(MPI_COMM_WORLD, &one);
    MPI_Wait(&one, MPI_STATUS_IGNORE);
    expect(in[0] == prev && in[1] == prev, "messages through PMPI");
    keep(in[0]);
    save("unknown");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const struct {
        const char *name;
        void (*run)(void);
    } fam[] = {{"inplace", inplace}, {"persistent", persistent}, {"nbc", nbc}, {"mixed", mixed},
               {"self", self},       {"intercomm", intercomm},   {"greq", greq},
               {"corners", corners},  {"scattered", scattered}, {"unknown", unknown}};
    int nfam = (int)(sizeof fam / sizeof *fam), ran = 0;
    for (int f = 0; f < nfam; f++)
        if ((argc < 2 && fam[f].run != unknown) || (argc >= 2 && strcmp(argv[1], fam[f].name) == 0))
            fam[f].run(), ran++;
    if (!ran && rank == 0)
        fprintf(stderr, "idioms: no family %s\n", argv[1]);
    MPI_Finalize();
    return ok && ran ? 0 : 2;
}
