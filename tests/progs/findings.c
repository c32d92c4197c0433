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
 *   findings metadata     every rank stats its file, checks it with access
 *                         and seeks before each of N_META appends of PAGE
 *                         bytes (3 metadata calls per data call)
 *   findings metabig      the same before each of N_META appends of BIG bytes:
 *                         as many metadata calls, a small share of the time
 *   findings manyfiles    every rank creates N_FILES files of PAGE bytes
 *   findings random       every rank writes N_RAND blocks of BLOCK bytes to its
 *                         own file with pwrite, from the last block down
 *   findings shuffled     the same in the order i*SHUFFLE mod N_RAND
 *   findings readback     every rank appends N_RB blocks of BLOCK bytes to its
 *                         own file, seeks to 0 and reads them back
 *   findings clean        every rank writes N_CLEAN blocks of BIG bytes with the
 *                         collective MPI_File_write_at_all, block-aligned */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TINY 7
#define N_TINY 2000
#define BLOCK 65536
#define N_INDEP 8
#define N_REOPEN 50
#define N_SYNC 20
#define BIG 1048576
#define N_CLEAN 4
#define N_META 100
#define N_FILES 80
#define PAGE 4096
#define N_RAND 128
#define SHUFFLE 125
#define N_RB 16

static char buf[BIG];

static void unaligned(int rank, int size)
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

static void reopen(int rank, int size)
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

/* The modes' checks: a failed call ends the job (the test then fails). */
static void check(int ok)
{
    if (!ok)
        MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The rank's own file PREFIX-RANK.dat, opened (its name left in name). */
static int open_own(char *name, size_t len, const char *prefix, int rank, int flags)
{
    snprintf(name, len, "%s-%d.dat", prefix, rank);
    int fd = open(name, flags | O_CREAT, 0644);
    check(fd >= 0);
    return fd;
}

static void sync_each(int rank, int size)
{
    char name[64];
    int fd = open_own(name, sizeof name, "sync", rank, O_WRONLY | O_TRUNC);
    for (int i = 0; i < N_SYNC; i++)
        check(write(fd, buf, BLOCK) == BLOCK && fsync(fd) == 0); /* SITE:sync */
    close(fd);
}

static void stat_before_writes(int rank, size_t size)
{
    char name[64];
    int fd = open_own(name, sizeof name, "meta", rank, O_WRONLY | O_TRUNC);
    struct stat st;
    for (int i = 0; i < N_META; i++) {
        check(stat(name, &st) == 0 && access(name, W_OK) == 0); /* SITE:metadata */
        check(lseek(fd, (off_t)i * (off_t)size, SEEK_SET) >= 0 && write(fd, buf, size) == (ssize_t)size);
    }
    close(fd);
}

static void metadata(int rank, int size) { stat_before_writes(rank, PAGE); }

static void metabig(int rank, int size) { stat_before_writes(rank, BIG); }

static void manyfiles(int rank, int size)
{
    char name[64];
    for (int i = 0; i < N_FILES; i++) {
        snprintf(name, sizeof name, "many-%d-%03d.dat", rank, i);
        int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644); /* SITE:manyfiles */
        check(fd >= 0 && write(fd, buf, PAGE) == PAGE);
        close(fd);
    }
}

static void random_order(int rank, int size)
{
    char name[64];
    int fd = open_own(name, sizeof name, "rand", rank, O_WRONLY | O_TRUNC);
    for (int i = N_RAND - 1; i >= 0; i--)
        check(pwrite(fd, buf, BLOCK, (off_t)i * BLOCK) == BLOCK); /* SITE:random */
    close(fd);
}

/* The blocks in the order i * SHUFFLE mod N_RAND (SHUFFLE is odd, so every
 * block once): mostly 3 blocks down, with a few jumps up. */
static void shuffled(int rank, int size)
{
    char name[64];
    int fd = open_own(name, sizeof name, "shuf", rank, O_WRONLY | O_TRUNC);
    for (int i = 0; i < N_RAND; i++)
        check(pwrite(fd, buf, BLOCK, (off_t)(i * SHUFFLE % N_RAND) * BLOCK) == BLOCK); /* SITE:shuffled */
    close(fd);
}

static void readback(int rank, int size)
{
    char name[64];
    int fd = open_own(name, sizeof name, "rb", rank, O_RDWR | O_TRUNC);
    for (int i = 0; i < N_RB; i++)
        check(write(fd, buf, BLOCK) == BLOCK);
    check(lseek(fd, 0, SEEK_SET) == 0);
    for (int i = 0; i < N_RB; i++)
        check(read(fd, buf, BLOCK) == BLOCK); /* SITE:readback */
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

/* Every mode takes the rank and the job size (some use only the rank). */
static const struct {
    const char *name;
    void (*run)(int rank, int size);
} MODES[] = {
    {"unaligned", unaligned}, {"independent", independent}, {"reopen", reopen},
    {"sync", sync_each},      {"metadata", metadata},       {"manyfiles", manyfiles},
    {"random", random_order}, {"shuffled", shuffled},       {"readback", readback},
    {"clean", clean},         {"metabig", metabig},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(buf, 'x', sizeof buf);
    const char *mode = argc > 1 ? argv[1] : "";
    size_t k = 0;
    while (k < sizeof MODES / sizeof *MODES && strcmp(mode, MODES[k].name) != 0)
        k++;
    if (k == sizeof MODES / sizeof *MODES)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MODES[k].run(rank, size);
    MPI_Finalize();
    return 0;
}
