/* findptr: reads at the file pointer for siot findings' redundant-reads
 * (tests/integ/57-findings-pointer.sh, which reads the constants). in.dat
 * (made by the test) holds HDR bytes of header, then P parts of N_IN
 * blocks of IN_SIZE bytes. Every rank reads N_IN blocks with calls that
 * take no offset, after positioning the pointer; in the modes ending in
 * "mine" each rank reads its own part (nothing read twice), in the others
 * every rank reads the first part (the same bytes P times):
 *   lseek / lseekmine   lseek(fd, HDR (+ part), SEEK_SET), then read();
 *   fseek / fseekmine   fseek(fp, HDR (+ part), SEEK_SET), then fread();
 *   mpiseek / mpiseekmine MPI_File_seek(fh, HDR (+ part), MPI_SEEK_SET),
 *                       then MPI_File_read (an MPI_File_get_position in
 *                       between, as a program checking where it is);
 *   mpiview / mpiviewmine MPI_File_set_view(fh, HDR (+ part), MPI_BYTE,
 *                       MPI_BYTE), then MPI_File_read.
 * And for read-after-write: every rank writes its part of rw.dat (N_IN
 * blocks of IN_SIZE bytes, lseek then write), then reads a part back with
 * lseek then read: its own (ownback) or the next rank's (neighbour, as a
 * benchmark reading another node's data does: nothing read back). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/progs/mpi_check.h"

#define HDR 4096
#define N_IN 16
#define IN_SIZE 65536

static char buf[IN_SIZE];

static void posix_reads(off_t at)
{
    int fd = open("in.dat", O_RDONLY);
    if (fd < 0 || lseek(fd, at, SEEK_SET) != at)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < N_IN; i++)
        if (read(fd, buf, IN_SIZE) != IN_SIZE) /* SITE:lseek */
            MPI_Abort(MPI_COMM_WORLD, 1);
    close(fd);
}

static void write_read(int rank, int neighbour)
{
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int fd = open("rw.dat", O_CREAT | O_RDWR, 0644);
    off_t part = (off_t)N_IN * IN_SIZE, back = (neighbour ? (rank + 1) % np : rank) * part;
    if (fd < 0 || lseek(fd, rank * part, SEEK_SET) != rank * part)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < N_IN; i++)
        if (write(fd, buf, IN_SIZE) != IN_SIZE)
            MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (lseek(fd, back, SEEK_SET) != back)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < N_IN; i++)
        if (read(fd, buf, IN_SIZE) != IN_SIZE) /* SITE:readback */
            MPI_Abort(MPI_COMM_WORLD, 1);
    close(fd);
}

static void stdio_reads(long at)
{
    FILE *fp = fopen("in.dat", "r");
    if (!fp || fseek(fp, at, SEEK_SET) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < N_IN; i++)
        if (fread(buf, 1, IN_SIZE, fp) != IN_SIZE) /* SITE:fseek */
            MPI_Abort(MPI_COMM_WORLD, 1);
    fclose(fp);
}

static void mpi_reads(MPI_Offset at, int view)
{
    MPI_File fh;
    MPI_Offset pos;
    CHECK(MPI_File_open(MPI_COMM_WORLD, "in.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    if (view)
        CHECK(MPI_File_set_view(fh, at, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    else
        CHECK(MPI_File_seek(fh, at, MPI_SEEK_SET));
    CHECK(MPI_File_get_position(fh, &pos));
    for (int i = 0; i < N_IN; i++)
        CHECK(MPI_File_read(fh, buf, IN_SIZE, MPI_BYTE, MPI_STATUS_IGNORE)); /* SITE:mpiread */
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *m = argc > 1 ? argv[1] : "lseek";
    int mine = strstr(m, "mine") != NULL;
    long at = HDR + (mine ? (long)rank * N_IN * IN_SIZE : 0);
    if (strncmp(m, "lseek", 5) == 0)
        posix_reads(at);
    else if (strcmp(m, "ownback") == 0 || strcmp(m, "neighbour") == 0)
        write_read(rank, m[0] == 'n');
    else if (strncmp(m, "fseek", 5) == 0)
        stdio_reads(at);
    else if (strncmp(m, "mpiseek", 7) == 0 || strncmp(m, "mpiview", 7) == 0)
        mpi_reads(at, m[4] == 'v');
    else
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Finalize();
    return 0;
}
