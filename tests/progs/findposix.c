/* findposix: programs for siot findings' stdio-bulk, redundant-reads,
 * file-per-process and open-in-loop rules, their remedies, and the ranking
 * by cost (tests/integ/55-findings-posix.sh, which reads the constants).
 * Pairs of modes, the problem then its remedy:
 *   stdio / posix      each rank writes N_REC records of REC bytes into its
 *                      part of one shared file, with fwrite / with pwrite;
 *   redundant / bcast  every rank preads the same N_IN blocks of IN_SIZE
 *                      bytes of in.dat (made by the test) / rank 0 preads
 *                      them and MPI_Bcast sends them;
 *   fpp / shared       each rank writes FPP_BYTES into a file of its own /
 *                      into one shared file with MPI_File_write_at_all;
 *   loop / once        STEPS steps, each writing REC bytes per rank into a
 *                      shared file with MPI_File_write_at_all, opening and
 *                      closing it in each step / once around the loop;
 *   newfile            as loop, each step opening a new file (step.S.dat);
 *   two                two problems of different cost: STEPS steps each
 *                      opening a shared file with open(), writing REC bytes
 *                      per rank with pwrite and closing it (2 * STEPS calls
 *                      per rank in loops), then the stdio mode's records
 *                      BULK times over (N_REC * BULK fwrites, N_REC * REC *
 *                      BULK bytes per rank). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/progs/mpi_check.h"

#define N_REC 512
#define REC 4096
#define N_IN 64
#define IN_SIZE 65536
#define FPP_BYTES 65536
#define STEPS 6
#define BULK 16

static char buf[IN_SIZE];

static void records(int rank, int bulk, int use_stdio)
{
    long base = (long)rank * N_REC * REC * bulk;
    if (use_stdio) {
        FILE *fp = fopen("records.dat", "r+"); /* made by rank 0 beforehand */
        if (!fp || fseek(fp, base, SEEK_SET) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int i = 0; i < N_REC * bulk; i++)
            fwrite(buf, 1, REC, fp); /* SITE:stdio */
        fclose(fp);
        return;
    }
    int fd = open("records.dat", O_CREAT | O_WRONLY, 0644);
    for (int i = 0; i < N_REC * bulk; i++)
        if (pwrite(fd, buf, REC, base + (long)i * REC) != REC) /* SITE:posix */
            MPI_Abort(MPI_COMM_WORLD, 1);
    close(fd);
}

static void reads(int rank, int bcast)
{
    int fd = open("in.dat", O_RDONLY);
    for (int i = 0; i < N_IN; i++) {
        if ((!bcast || rank == 0) && pread(fd, buf, IN_SIZE, (off_t)i * IN_SIZE) != IN_SIZE) /* SITE:redundant */
            MPI_Abort(MPI_COMM_WORLD, 1);
        if (bcast)
            MPI_Bcast(buf, IN_SIZE, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    close(fd);
}

static void per_process(int rank, int shared)
{
    if (shared) {
        MPI_File fh;
        CHECK(MPI_File_open(MPI_COMM_WORLD, "shared.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
        CHECK(MPI_File_write_at_all(fh, (MPI_Offset)rank * FPP_BYTES, buf, FPP_BYTES, MPI_BYTE, MPI_STATUS_IGNORE));
        MPI_File_close(&fh);
        return;
    }
    char name[64];
    snprintf(name, sizeof name, "fpp.%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644); /* SITE:fpp */
    if (fd < 0 || write(fd, buf, FPP_BYTES) != FPP_BYTES)
        MPI_Abort(MPI_COMM_WORLD, 1);
    close(fd);
}

/* in_loop: 0 the file opened once, 1 in each step, 2 a new file in each step */
static void steps(int rank, int np, int in_loop)
{
    MPI_File fh;
    int flags = MPI_MODE_CREATE | MPI_MODE_WRONLY;
    char name[32] = "steps.dat";
    if (!in_loop)
        CHECK(MPI_File_open(MPI_COMM_WORLD, name, flags, MPI_INFO_NULL, &fh));
    for (int s = 0; s < STEPS; s++) {
        if (in_loop == 2)
            snprintf(name, sizeof name, "step.%d.dat", s);
        if (in_loop)
            CHECK(MPI_File_open(MPI_COMM_WORLD, name, flags, MPI_INFO_NULL, &fh)); /* SITE:loop */
        MPI_Offset off = ((MPI_Offset)s * np + rank) * REC;
        CHECK(MPI_File_write_at_all(fh, off, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE));
        if (in_loop)
            MPI_File_close(&fh);
    }
    if (!in_loop)
        MPI_File_close(&fh);
}

/* records.dat, empty, before the ranks open it (by rank 0) */
static void make_records(int rank)
{
    if (rank == 0)
        close(open("records.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* STEPS steps, each opening steps.dat with open(), writing REC bytes per
 * rank and closing it: the cheap problem of the two mode */
static void posix_steps(int rank, int np)
{
    for (int s = 0; s < STEPS; s++) {
        int fd = open("steps.dat", O_CREAT | O_WRONLY, 0644); /* SITE:posixloop */
        if (fd < 0 || pwrite(fd, buf, REC, ((off_t)s * np + rank) * REC) != REC)
            MPI_Abort(MPI_COMM_WORLD, 1);
        close(fd);
    }
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    memset(buf, 'a' + rank % 26, sizeof buf);
    const char *m = argc > 1 ? argv[1] : "stdio";
    if (strcmp(m, "stdio") == 0 || strcmp(m, "posix") == 0) {
        make_records(rank);
        records(rank, 1, m[0] == 's');
    } else if (strcmp(m, "redundant") == 0 || strcmp(m, "bcast") == 0) {
        reads(rank, m[0] == 'b');
    } else if (strcmp(m, "fpp") == 0 || strcmp(m, "shared") == 0) {
        per_process(rank, m[0] == 's');
    } else if (strcmp(m, "loop") == 0 || strcmp(m, "once") == 0 || strcmp(m, "newfile") == 0) {
        steps(rank, np, m[0] == 'l' ? 1 : m[0] == 'n' ? 2 : 0);
    } else if (strcmp(m, "two") == 0) {
        posix_steps(rank, np);
        make_records(rank);
        records(rank, BULK, 1);
    } else {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
