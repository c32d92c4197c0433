/* kernel: the small SPMD job of the scale benchmark (bench/scale.sh), of
 * the simulated merge (bench/simmerge.sh) and of its test
 * (tests/integ/52-merge-simulated.sh): every rank opens one shared file
 * with MPI-IO, writes NWRITES blocks of BLOCK bytes strided by rank, the
 * block of write i at offset (i*size + rank)*BLOCK, and closes it. Each
 * rank's I/O is a function of its rank and the job's size only, and no
 * rank waits for another outside MPI_File_open/close, which makes it fit
 * for a simulated rank (SIOT_SIM_RANK, SIOT_SIM_SIZE).
 *
 * usage: kernel [FILE=kernel.dat] */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NWRITES 8
#define BLOCK 1024

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *path = argc > 1 ? argv[1] : "kernel.dat";
    char buf[BLOCK];
    memset(buf, 'a' + rank % 26, sizeof buf);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "kernel: rank %d: cannot open %s\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < NWRITES; i++) {
        MPI_Offset off = ((MPI_Offset)i * size + rank) * BLOCK;
        if (MPI_File_write_at(fh, off, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            fprintf(stderr, "kernel: rank %d: write %d failed\n", rank, i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
