/* loops: loop patterns for the compression tests.
 *   loops nested3 N   3-level nest: 2 x (2 x (N x [MPI_File_write_at, pwrite]),
 *                     fsync), Barrier), offsets progressing with all three indices
 *   loops strided     strided and segmented offsets, sizes that grow
 *   loops files       numbered files opened, written and closed in a loop
 *   loops exchange    ring exchange with Isend/Irecv/Waitall each step
 *   loops datadep [S] S time steps (20) of a solver loop whose iteration count
 *                     changes from one step to the next (30..41, pseudo-random)
 *   loops all N       everything above in one run */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;
static char buf[8192];

static void nested3(long n)
{
    MPI_File fh;
    char name[64];
    snprintf(name, sizeof name, "nested-%d.posix", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    MPI_File_open(MPI_COMM_WORLD, "nested.mpiio", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 2; b++) {
            for (long c = 0; c < n; c++) {
                MPI_Offset off = ((((MPI_Offset)a * 2 + b) * n + c) * size + rank) * 32;
                MPI_File_write_at(fh, off, buf, 32, MPI_BYTE, MPI_STATUS_IGNORE);
                if (pwrite(fd, buf, 16, (off_t)(((a * 2 + b) * n + c) * 16)) != 16)
                    MPI_Abort(MPI_COMM_WORLD, 1);
            }
            fsync(fd);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_File_close(&fh);
    close(fd);
}

static void strided(void)
{
    char name[64];
    snprintf(name, sizeof name, "strided-%d.dat", rank);
    int fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0644);
    for (int seg = 0; seg < 4; seg++)
        for (int i = 0; i < 50; i++)
            if (pwrite(fd, buf, 100, (off_t)seg * 1000000 + i * 4096) != 100)
                MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 1; i <= 40; i++) /* growing sizes */
        if (write(fd, buf, (size_t)i * 100) != i * 100)
            MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < 30; i++) { /* backwards reads */
        lseek(fd, (off_t)(29 - i) * 512, SEEK_SET);
        if (read(fd, buf, 512) != 512)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    close(fd);
}

static void files(void)
{
    char name[64];
    for (int step = 1; step <= 12; step++) {
        snprintf(name, sizeof name, "plot_%04d_r%d.dat", step * 10, rank);
        FILE *f = fopen(name, "w");
        for (int k = 0; k < 5; k++)
            fwrite(buf, 8, (size_t)(k + 1) * 10, f);
        fclose(f);
        int fd = open(name, O_RDONLY);
        if (read(fd, buf, 200) != 200)
            MPI_Abort(MPI_COMM_WORLD, 1);
        close(fd);
    }
}

static void exchange(void)
{
    double out[16], in[16];
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int step = 0; step < 25; step++) {
        MPI_Request req[4];
        MPI_Irecv(in, 8, MPI_DOUBLE, left, step, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(in + 8, 8, MPI_DOUBLE, right, step, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(out, 8, MPI_DOUBLE, right, step, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(out + 8, 8, MPI_DOUBLE, left, step, MPI_COMM_WORLD, &req[3]);
        MPI_Status st[4];
        MPI_Waitall(4, req, st);
        double s = in[0], g;
        MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
}

static void datadep(long steps)
{
    unsigned seed = 12345;
    for (long step = 0; step < steps; step++) {
        seed = seed * 1103515245u + 12345u;
        int iters = 30 + (int)((seed >> 16) % 12); /* 30..41, the same on every rank */
        for (int it = 0; it < iters; it++) {
            double r = 1.0, g;
            MPI_Allreduce(&r, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(buf, 'q', sizeof buf);
    const char *what = argc > 1 ? argv[1] : "all";
    long n = argc > 2 ? atol(argv[2]) : 10;
    int all = strcmp(what, "all") == 0;
    if (all || !strcmp(what, "nested3"))
        nested3(n);
    if (all || !strcmp(what, "strided"))
        strided();
    if (all || !strcmp(what, "files"))
        files();
    if (all || !strcmp(what, "exchange"))
        exchange();
    if (all || !strcmp(what, "datadep"))
        datadep(all || argc < 3 ? 20 : n);
    MPI_Finalize();
    return 0;
}
