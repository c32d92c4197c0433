/* abortend: a run that ends in MPI_Abort. Each rank writes LINE to
 * out-R.dat with stdio and meets the others in a barrier; then rank 0
 * calls MPI_Abort(MPI_COMM_WORLD, ABORT_CODE) while the others sleep
 * OTHERS_SLEEP_S seconds before an MPI_Finalize the launcher never lets
 * them reach. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define ABORT_CODE 3
#define OTHERS_SLEEP_S 30
#define LINE "rank %d\n"

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[32];
    snprintf(name, sizeof name, "out-%d.dat", rank);
    FILE *f = fopen(name, "w");
    fprintf(f, LINE, rank);
    fclose(f);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Abort(MPI_COMM_WORLD, ABORT_CODE);
    struct timespec t = {OTHERS_SLEEP_S, 0};
    while (nanosleep(&t, &t) != 0)
        ;
    MPI_Finalize();
    return 0;
}
