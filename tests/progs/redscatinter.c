/* The reduce-scatter family on an intercommunicator whose groups differ in
 * size (MPICH's coll/redscatinter and redscatbkinter make such ones): world
 * rank 0 alone (the left group, NLEFT ranks) against the others (the right
 * group). There each group's recvcounts has one entry per rank of its own
 * group, and a rank sends one vector of the sum of those counts: the result
 * reduced over the other group is scattered by these counts. MPI_Reduce_scatter,
 * MPI_Ireduce_scatter, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block,
 * each checked against the sums computed here. */
#include "tests/progs/mpi_check.h"
#include <stdlib.h>

#define NLEFT 1 /* ranks of the left group: world ranks 0..NLEFT-1 */
#define UNIT 4  /* elements: rank i of a group of n gets UNIT*(i+1) (left: a multiple of it) */
#define TAG 5

static int errs;

/* What the element k of a rank's send vector holds, world rank w. */
static int value(int w, int k) { return 100 * w + k; }

/* The sum over the other group's ranks (world ranks lo..lo+n-1) of element k. */
static int remote_sum(int lo, int n, int k)
{
    int s = 0;
    for (int w = lo; w < lo + n; w++)
        s += value(w, k);
    return s;
}

/* recvcounts of a group of n: UNIT*(i+1) for rank i, scaled so that both
 * groups share the same total (UNIT * total of the bigger group). */
static int fill_counts(int *counts, int n, int other)
{
    int mine = n * (n + 1) / 2, theirs = other * (other + 1) / 2, total = 0;
    for (int i = 0; i < n; i++)
        counts[i] = UNIT * (i + 1);
    if (mine < theirs) /* the smaller group takes the difference on its last rank */
        counts[n - 1] += UNIT * (theirs - mine);
    for (int i = 0; i < n; i++)
        total += counts[i];
    return total;
}

static void check(const int *got, int n, int first, int lo, int rn, const char *what)
{
    for (int k = 0; k < n; k++)
        if (got[k] != remote_sum(lo, rn, first + k)) {
            fprintf(stderr, "%s: element %d is %d, expected %d\n", what, k, got[k], remote_sum(lo, rn, first + k));
            errs++;
            return;
        }
}

/* A rank's send vector of total elements (freed by the caller). */
static int *send_vector(int w, int total)
{
    int *send = malloc((size_t)total * sizeof *send);
    for (int k = 0; k < total; k++)
        send[k] = value(w, k);
    return send;
}

/* The non-blocking call's request (MPI_REQUEST_NULL after a blocking one),
 * completed before the result is checked. */
static MPI_Request req = MPI_REQUEST_NULL;

static void reduce_scatter(MPI_Comm inter, int w, int rank, int n, int rlo, int rn, int blocking)
{
    int *counts = malloc((size_t)n * sizeof *counts), total = fill_counts(counts, n, rn), first = 0;
    for (int i = 0; i < rank; i++)
        first += counts[i];
    int *send = send_vector(w, total), *recv = calloc((size_t)counts[rank], sizeof *recv);
    if (blocking)
        CHECK(MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, inter));
    else
        CHECK(MPI_Ireduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, inter, &req));
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check(recv, counts[rank], first, rlo, rn, blocking ? "MPI_Reduce_scatter" : "MPI_Ireduce_scatter");
    free(counts), free(send), free(recv);
}

/* Block variant: n * recvcount must be the same in both groups. */
static void reduce_scatter_block(MPI_Comm inter, int w, int rank, int n, int rlo, int rn, int blocking)
{
    int each = UNIT * rn; /* n * UNIT * rn elements sent: the same on both sides */
    int *send = send_vector(w, each * n), *recv = calloc((size_t)each, sizeof *recv);
    if (blocking)
        CHECK(MPI_Reduce_scatter_block(send, recv, each, MPI_INT, MPI_SUM, inter));
    else
        CHECK(MPI_Ireduce_scatter_block(send, recv, each, MPI_INT, MPI_SUM, inter, &req));
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check(recv, each, rank * each, rlo, rn, blocking ? "MPI_Reduce_scatter_block" : "MPI_Ireduce_scatter_block");
    free(send), free(recv);
}

int main(int argc, char **argv)
{
    int w, size, rank, n, rn;
    MPI_Comm half, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size <= NLEFT + 1) /* the right group must be bigger than the left */
        MPI_Abort(MPI_COMM_WORLD, 2);
    int left = w < NLEFT;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, left, w, &half));
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, left ? NLEFT : 0, TAG, &inter));
    CHECK(MPI_Comm_rank(inter, &rank));
    CHECK(MPI_Comm_size(inter, &n));
    CHECK(MPI_Comm_remote_size(inter, &rn));
    int rlo = left ? NLEFT : 0; /* world rank of the other group's first */
    for (int blocking = 1; blocking >= 0; blocking--) {
        reduce_scatter(inter, w, rank, n, rlo, rn, blocking);
        reduce_scatter_block(inter, w, rank, n, rlo, rn, blocking);
    }
    CHECK(MPI_Comm_free(&inter));
    CHECK(MPI_Comm_free(&half));
    MPI_Finalize();
    if (errs)
        fprintf(stderr, "rank %d: %d wrong results\n", w, errs);
    return errs ? 1 : 0;
}
