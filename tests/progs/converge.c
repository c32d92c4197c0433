/* converge: a CG-like solver. Each time step runs a convergence loop of
 * ITERS(step) iterations, one MPI_Allreduce (a dot product) each, and then
 * writes CHUNK bytes per rank to one shared file. The iteration count is
 * data-dependent for the tracer but computed here from the step number
 * alone, so the tests can compute the totals from these #defines:
 *   ITERS(step) = BASE + (step * STRIDE) % SPREAD   (BASE..BASE+SPREAD-1,
 *   about 5% apart: 40..42)
 *   converge [STEPS [ranked]]   (10 steps by default); with "ranked" each
 *   rank's count is ITERS(step + rank) and its dot products are its own
 *   (MPI_Sendrecv on MPI_COMM_SELF instead of MPI_Allreduce): counts that differ
 *   from rank to rank, which the merge of ranks folds within the tolerance */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define BASE 40
#define SPREAD 3
#define STRIDE 7
#define CHUNK 4096

static char buf[CHUNK];

/* As in tests/progs/polls.c, on purpose: each test program is one source
 * file, read beside its test as the statement of what it calls. */
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long steps = argc > 1 ? atol(argv[1]) : 10;
    int ranked = argc > 2 && strcmp(argv[2], "ranked") == 0;
    memset(buf, 'c', sizeof buf);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "converge.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    double x = 1.0;
    for (long step = 0; step < steps; step++) {
        int iters = BASE + (int)(((step + (ranked ? rank : 0)) * STRIDE) % SPREAD);
        for (int it = 0; it < iters; it++) {
            double dot = x * x, g = dot;
            if (ranked) /* a rank's own loop: no collective that would make the counts agree */
                MPI_Sendrecv(&dot, 1, MPI_DOUBLE, 0, 0, &g, 1, MPI_DOUBLE, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
            else
                MPI_Allreduce(&dot, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            x = 1.0 + 1.0 / (g + it);
        }
        MPI_Offset off = ((MPI_Offset)step * size + rank) * CHUNK;
        MPI_File_write_at(fh, off, buf, CHUNK, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
