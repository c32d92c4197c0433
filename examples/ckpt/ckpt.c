/* ckpt: file-per-process checkpointing, the way many simulation codes do it.
 * Every K steps each rank writes ckpt-<step>-<rank>.dat (a header with
 * fwrite, the state with pwrite in blocks), checks it with stat, renames it
 * into place and unlinks its previous checkpoint. Between checkpoints the
 * ranks "compute" and exchange a halo with their neighbours.
 *
 * usage: ckpt [steps=20] [every=5] [blocks=8] [block_bytes=65536] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void compute(double seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 < seconds);
}

/* The start of main is the same in every example (and in the test programs
 * that start MPI), on purpose: each example is one source file built by one
 * mpicc command (examples/README.md) and shares no code with the others. */
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    int every = argc > 2 ? atoi(argv[2]) : 5;
    int blocks = argc > 3 ? atoi(argv[3]) : 8;
    size_t bsize = argc > 4 ? (size_t)atol(argv[4]) : 65536;
    char *state = malloc(bsize);
    double halo_out[64], halo_in[64];
    memset(state, rank, bsize);
    for (int i = 0; i < 64; i++)
        halo_out[i] = rank + i;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    char prev[256] = "";

    for (int step = 1; step <= steps; step++) {
        compute(0.001);
        MPI_Sendrecv(halo_out, 64, MPI_DOUBLE, right, 7, halo_in, 64, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        double local = halo_in[0], global;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (step % every)
            continue;
        char tmp[256], final[256];
        snprintf(tmp, sizeof tmp, "ckpt-%04d-%d.tmp", step, rank);
        snprintf(final, sizeof final, "ckpt-%04d-%d.dat", step, rank);
        FILE *h = fopen(tmp, "w");
        fprintf(h, "ckpt step %d rank %d blocks %d\n", step, rank, blocks);
        fclose(h);
        int fd = open(tmp, O_WRONLY);
        for (int b = 0; b < blocks; b++)
            if (pwrite(fd, state, bsize, 4096 + (off_t)b * bsize) != (ssize_t)bsize)
                MPI_Abort(MPI_COMM_WORLD, 1);
        fsync(fd);
        close(fd);
        struct stat st;
        if (stat(tmp, &st) != 0 || st.st_size != 4096 + (off_t)blocks * (off_t)bsize)
            MPI_Abort(MPI_COMM_WORLD, 2);
        rename(tmp, final);
        if (prev[0])
            unlink(prev);
        snprintf(prev, sizeof prev, "%s", final);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("ckpt: %d ranks, %d steps, checkpoint every %d steps, %d x %zu bytes per rank\n", size, steps, every,
               blocks, bsize);
    free(state);
    MPI_Finalize();
    return 0;
}
