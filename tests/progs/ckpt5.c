/* ckpt5: NFILES shared checkpoint files ckpt_0010.dat .. ckpt_0050.dat
 * (step FIRST_STEP, every STEP_EVERY), each written by every rank with
 * MPI_File_write_at_all: PER_RANK bytes per rank per file in CHUNKS calls,
 * rank-interleaved blocks. The per-file statistics of `siot stats` and
 * `siot report` are checked against these constants (60-stats.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFILES 5
#define FIRST_STEP 10
#define STEP_EVERY 10
#define PER_RANK (1024 * 1024)
#define CHUNKS 4
#define CHUNK (PER_RANK / CHUNKS)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *buf = malloc(CHUNK);
    memset(buf, 'a' + rank, CHUNK);
    for (int f = 0; f < NFILES; f++) {
        char name[64];
        snprintf(name, sizeof name, "ckpt_%04d.dat", FIRST_STEP + f * STEP_EVERY);
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int c = 0; c < CHUNKS; c++) {
            MPI_Offset off = ((MPI_Offset)c * size + rank) * CHUNK;
            MPI_File_write_at_all(fh, off, buf, CHUNK, MPI_BYTE, MPI_STATUS_IGNORE);
        }
        MPI_File_close(&fh);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
