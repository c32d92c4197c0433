/* Datatypes made and freed where the tracer cannot see, the way MPI-IO
 * handles the program's types: ROMIO's MPI_File_set_view copies the etype
 * and filetype with PMPI_Type_dup, makes types of its own with
 * MPI_Type_create_resized, and frees them all with PMPI_Type_free; MPI then
 * hands their handle values out again, in an order that depends on what
 * else was freed (rank 0, the aggregator, frees more).
 *
 * Each of the ITERS iterations, on every rank:
 *   x = PMPI_Type_contiguous(4, MPI_INT)        not seen
 *   MPI_Type_create_resized(x, 0, EXTENT, &y)   seen: x first seen here
 *   MPI_Type_commit(&y)                         seen
 *   MPI_Type_dup(y, &z); MPI_Type_free(&z)      seen
 *   PMPI_Type_free(&y); PMPI_Type_free(&x)      not seen
 * and, on rank 0 every third iteration, two more types made and freed
 * unseen in the order that swaps MPI's free list. The program's own type t
 * (MPI_Type_contiguous(2, MPI_DOUBLE)) lives the whole run.
 *
 * Ids are the lowest free at or above 256 (docs/handles.md): t is 256;
 * each iteration x is 257, y 258 and z 259, on every rank.
 *
 * Then MANY types are made with MPI_Type_contiguous (seen: ids 257 on) and
 * all freed with PMPI_Type_free, with no traced call between: the tracer
 * keeps 256 reported frees waiting, so MANY - 256 are lost, and the trace
 * says so (note handle_frees_lost). The next traced call (a barrier) takes
 * the waiting ones in. */
#include <mpi.h>
#include <stdio.h>

#define ITERS 12
#define EXTENT 64
#define MANY 300

static void churn(void)
{
    MPI_Datatype a, b;
    PMPI_Type_contiguous(2, MPI_INT, &a);
    PMPI_Type_contiguous(3, MPI_INT, &b);
    PMPI_Type_free(&a);
    PMPI_Type_free(&b);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Datatype t;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(2, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    for (int i = 0; i < ITERS; i++) {
        MPI_Datatype x, y, z;
        PMPI_Type_contiguous(4, MPI_INT, &x);
        PMPI_Type_commit(&x);
        MPI_Type_create_resized(x, 0, EXTENT, &y);
        MPI_Type_commit(&y);
        MPI_Type_dup(y, &z);
        MPI_Type_free(&z);
        PMPI_Type_free(&y);
        PMPI_Type_free(&x);
        if (rank == 0 && i % 3 == 1)
            churn();
    }
    static MPI_Datatype many[MANY];
    for (int i = 0; i < MANY; i++)
        MPI_Type_contiguous(i + 1, MPI_CHAR, &many[i]);
    for (int i = 0; i < MANY; i++)
        PMPI_Type_free(&many[i]);
    MPI_Barrier(MPI_COMM_WORLD); /* its lookup of the communicator takes the 256 in */
    MPI_Type_free(&t);
    MPI_Finalize();
    return 0;
}
