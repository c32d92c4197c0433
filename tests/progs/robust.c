/* robust: programs for the runtime's robustness tests (tests/integ/98-*.sh).
 *   robust stdout-loop      fwrite to stdout (untraced) in an endless loop, and
 *                           every 1000th iteration an 8-byte pwrite to a traced
 *                           file: what a batch system's SIGTERM interrupts
 *   robust dups             descriptors through dup, dup2, dup3 and fcntl
 *                           F_DUPFD/F_DUPFD_CLOEXEC; the bytes each file gets
 *                           are in the comments below
 *   robust collective       (MPI) MPI_Comm_dup, MPI_Comm_split, a collective
 *                           MPI_File_open/write_at_all/close, MPI_Comm_free
 *   robust irregular N      (MPI) N pwrites per rank at offsets from a
 *                           generator seeded by the rank, so that no two ranks'
 *                           traces merge; prints each rank's peak memory after
 *                           MPI_Finalize ("peak_kb RANK KB")
 *   robust spill N          (MPI) like irregular, every rank the same offsets */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int stdout_loop(void)
{
    int fd = open("loop.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    static const char line[] = "a line of text that goes to stdout, not to a traced file\n";
    for (long i = 0;; i++) {
        fwrite(line, 1, sizeof line - 1, stdout);
        if (i % 1000 == 0 && pwrite(fd, line, 8, (i / 1000 % 512) * 8) != 8)
            return 1;
    }
}

/* a.dat: 5 bytes; b.dat: 7+3+11+13+17 = 51 bytes; c.dat: 0 bytes; d.dat: 19
 * bytes. What went to the pipe (10 + 23 bytes) is in no file. */
static int dups(void)
{
    int p[2];
    if (pipe(p) != 0)
        return 1;
    int a = open("a.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    write(a, "12345", 5);
    dup2(p[1], a); /* a now refers to the pipe: not traced any more */
    write(a, "0123456789", 10);
    close(a);

    int b = open("b.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    write(b, "bbbbbbb", 7);
    int b2 = dup(b);
    write(b2, "bbb", 3);
    int b3 = fcntl(b, F_DUPFD, 50);
    write(b3, "bbbbbbbbbbb", 11);
    int b4 = fcntl(b, F_DUPFD_CLOEXEC, 60);
    write(b4, "bbbbbbbbbbbbb", 13);

    int c = open("c.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    dup3(b, c, O_CLOEXEC); /* c now refers to b.dat; c.dat stays empty */
    write(c, "bbbbbbbbbbbbbbbbb", 17);

    int d = open("d.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    write(d, "ddddddddddddddddddd", 19);
    dup3(p[1], d, 0); /* d now refers to the pipe */
    write(d, "ppppppppppppppppppppppp", 23);
    close(b);
    close(b2);
    close(b3);
    close(b4);
    close(c);
    close(d);
    close(p[0]);
    close(p[1]);
    return 0;
}

static int collective(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(dup, rank % 2, rank, &half);
    MPI_File fh;
    int buf[256];
    for (int i = 0; i < 256; i++)
        buf[i] = rank * 256 + i;
    if (MPI_File_open(dup, "collective.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        return 1;
    MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof buf, buf, 256, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    return 0;
}

static long peak_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

static int writes(long n, int by_rank)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[64];
    snprintf(name, sizeof name, "irr-%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    uint64_t x = by_rank ? 0x9e3779b97f4a7c15ULL * (uint64_t)(rank + 1) : 12345;
    for (long i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        if (pwrite(fd, "x", 1, (off_t)(x >> 44)) != 1)
            return 1;
    }
    close(fd);
    unlink(name);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "stdout-loop") == 0)
        return stdout_loop();
    if (strcmp(mode, "dups") == 0)
        return dups();
    MPI_Init(&argc, &argv);
    int rc = 2, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(mode, "collective") == 0)
        rc = collective();
    else if (strcmp(mode, "irregular") == 0 && argc > 2)
        rc = writes(atol(argv[2]), 1);
    else if (strcmp(mode, "spill") == 0 && argc > 2)
        rc = writes(atol(argv[2]), 0);
    MPI_Finalize();
    if (strcmp(mode, "irregular") == 0 || strcmp(mode, "spill") == 0)
        printf("peak_kb %d %ld\n", rank, peak_kb());
    return rc;
}
