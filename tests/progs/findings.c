/* findings: purpose-built I/O problems for `siot findings` (test
 * 65-findings.sh, which reads the constants and the lines marked SITE:).
 *
 *   findings unaligned    rank 0 writes N_TINY records of TINY bytes with
 *                         pwrite at TINY*i (small, misaligned, one rank only)
 *   findings independent  every rank writes N_INDEP blocks of BLOCK bytes with
 *                         independent MPI_File_write_at to one shared file
 *   findings reopen       every rank opens its own file N_REOPEN times, appends
 *                         BLOCK bytes and closes it
 *   findings sync         every rank appends N_SYNC blocks of BLOCK bytes to its
 *                         own file, each followed by fsync
 *   findings clean        every rank writes N_CLEAN blocks of BIG bytes with the
 *                         collective MPI_File_write_at_all, block-aligned */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TINY 7
#define N_TINY 2000
#define BLOCK 65536
#define N_INDEP 8
#define N_REOPEN 50
#define N_SYNC 20
#define BIG 1048576
#define N_CLEAN 4

static char buf[BIG];

static void unaligned(int rank)
{
    if (rank != 0)
        return;
    int fd = open("tiny.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < N_TINY; i++)
        if (pwrite(fd, buf, TINY, (off_t)TINY * i) != TINY) /* SITE:unaligned */
            MPI_Abort(MPI_COMM_WORLD, 2);
    close(fd);
}

static void independent(int rank, int size)
{
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "shared.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    for (int i = 0; i < N_INDEP; i++) {
        MPI_Offset off = ((MPI_Offset)i * size + rank) * BLOCK;
        MPI_File_write_at(fh, off, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE); /* SITE:independent */
    }
    MPI_File_close(&fh);
}

static void reopen(int rank)
{
    char name[64];
    snprintf(name, sizeof name, "log-%d.dat", rank);
    for (int i = 0; i < N_REOPEN; i++) {
        int fd = open(name, O_CREAT | O_WRONLY | O_APPEND, 0644); /* SITE:reopen */
        if (fd < 0 || write(fd, buf, BLOCK) != BLOCK)
            MPI_Abort(MPI_COMM_WORLD, 2);
        close(fd);
    }
}

static void sync_each(int rank)
{
    char name[64];
    snprintf(name, sizeof name, "sync-%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < N_SYNC; i++)
        if (write(fd, buf, BLOCK) != BLOCK || fsync(fd) != 0) /* SITE:sync */
            MPI_Abort(MPI_COMM_WORLD, 2);
    close(fd);
}

static void clean(int rank, int size)
{
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "clean.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    for (int i = 0; i < N_CLEAN; i++) {
        MPI_Offset off = ((MPI_Offset)i * size + rank) * BIG;
        MPI_File_write_at_all(fh, off, buf, BIG, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(buf, 'x', sizeof buf);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "unaligned") == 0)
        unaligned(rank);
    else if (strcmp(mode, "independent") == 0)
        independent(rank, size);
    else if (strcmp(mode, "reopen") == 0)
        reopen(rank);
    else if (strcmp(mode, "sync") == 0)
        sync_each(rank);
    else if (strcmp(mode, "clean") == 0)
        clean(rank, size);
    else
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
