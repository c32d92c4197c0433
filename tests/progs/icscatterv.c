/* MPI_Scatterv and MPI_Iscatterv across an intercommunicator, as MPICH's
 * coll/icscatterv makes them: the world split in halves, joined by
 * MPI_Intercomm_create, made afresh and freed each of ROUNDS rounds. One
 * group's rank 0 scatters (root MPI_ROOT, its other ranks MPI_PROC_NULL)
 * and the other group receives with root 0, passing no send buffer, counts
 * or displacements (NULL): those are significant at the root only. Then
 * the groups swap. The receiving group's rank 0 is the one whose rank
 * equals root: Open MPI 4.1 refuses MPI_IN_PLACE as its send buffer, which
 * an earlier replay passed there. Each receiver checks its block. */
#include "tests/progs/mpi_check.h"
#include <stdlib.h>

#define ROUNDS 2    /* intercommunicators made and freed */
#define SMALL 1     /* elements per receiver: sent eagerly */
#define LARGE 16384 /* elements per receiver: a rendezvous send */
#define TAG 7

static int errs;

/* The element k of the block the root of group `from` sends to remote rank r. */
static int value(int from, int r, int k) { return 1000000 * from + 10000 * r + k; }

static void check(const int *got, int n, int from, int rank)
{
    for (int k = 0; k < n; k++)
        if (got[k] != value(from, rank, k)) {
            fprintf(stderr, "from group %d, rank %d: element %d is %d, expected %d\n", from, rank, k, got[k],
                    value(from, rank, k));
            errs++;
            return;
        }
}

/* The root's buffer, counts and displacements for rsize receivers of n each. */
static int *root_side(int from, int rsize, int n, int *counts, int *displs)
{
    int *buf = malloc((size_t)rsize * (size_t)n * sizeof *buf);
    for (int r = 0; r < rsize; r++) {
        counts[r] = n;
        displs[r] = r * n;
        for (int k = 0; k < n; k++)
            buf[r * n + k] = value(from, r, k);
    }
    return buf;
}

/* One scatter of n elements per receiver from group `from` (0: left, 1:
 * right), blocking or not. */
static void scatter(MPI_Comm inter, int mygroup, int from, int n, int blocking)
{
    int rank, rsize;
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK(MPI_Comm_rank(inter, &rank));
    CHECK(MPI_Comm_remote_size(inter, &rsize));
    if (mygroup == from) {
        int *counts = malloc((size_t)rsize * sizeof *counts), *displs = malloc((size_t)rsize * sizeof *displs);
        int *buf = root_side(from, rsize, n, counts, displs), root = rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
        if (blocking)
            CHECK(MPI_Scatterv(buf, counts, displs, MPI_INT, NULL, 0, MPI_INT, root, inter));
        else
            CHECK(MPI_Iscatterv(buf, counts, displs, MPI_INT, NULL, 0, MPI_INT, root, inter, &req));
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        free(buf), free(counts), free(displs);
        return;
    }
    int *got = malloc((size_t)n * sizeof *got);
    if (blocking)
        CHECK(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, got, n, MPI_INT, 0, inter));
    else
        CHECK(MPI_Iscatterv(NULL, NULL, NULL, MPI_INT, got, n, MPI_INT, 0, inter, &req));
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check(got, n, from, rank);
    free(got);
}

int main(int argc, char **argv)
{
    int w, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 4) /* the receiving group needs a rank besides its rank 0 */
        MPI_Abort(MPI_COMM_WORLD, 2);
    int mygroup = w >= size / 2;
    const int sizes[] = {SMALL, LARGE};
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Comm half, inter;
        CHECK(MPI_Comm_split(MPI_COMM_WORLD, mygroup, w, &half));
        CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, mygroup ? 0 : size / 2, TAG, &inter));
        CHECK(MPI_Comm_free(&half));
        for (int from = 0; from < 2; from++)
            for (int s = 0; s < 2; s++)
                for (int blocking = 1; blocking >= 0; blocking--)
                    scatter(inter, mygroup, from, sizes[s], blocking);
        CHECK(MPI_Comm_free(&inter));
    }
    MPI_Finalize();
    if (errs)
        fprintf(stderr, "rank %d: %d wrong blocks\n", w, errs);
    return errs ? 1 : 0;
}
