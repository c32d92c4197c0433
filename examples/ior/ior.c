/* ior: an IOR-like parallel I/O benchmark kernel.
 *
 * Each of P ranks writes, for each of S segments, one block of B bytes in
 * transfers of T bytes, then reads it back and checks it:
 *   shared file (default): block of rank r in segment s at offset (s*P + r)*B
 *   file per process (-F):  block of segment s at offset s*B of file.<rank>
 * through POSIX (-a posix) or MPI-IO (-a mpiio, independent or -c collective).
 *
 * usage: ior [-a posix|mpiio] [-b B] [-t T] [-s S] [-i reps] [-F] [-c] [-w] [-r]
 *            [-o file]
 *   -w only write, -r only read (a file written before); default both. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;
static struct {
    const char *api;
    long block, xfer, segments, reps;
    int fpp, coll, write, read;
    const char *file;
} o = {"posix", 65536, 16384, 4, 1, 0, 0, 1, 1, "ior.dat"};

static void fill(unsigned char *buf, long n, long long off)
{
    for (long i = 0; i < n; i++)
        buf[i] = (unsigned char)((off + i) * 31 + 7);
}

static long check(const unsigned char *buf, long n, long long off)
{
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += buf[i] != (unsigned char)((off + i) * 31 + 7);
    return bad;
}

static long long block_offset(long s)
{
    return o.fpp ? (long long)s * o.block : ((long long)s * size + rank) * o.block;
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: ior [-a posix|mpiio] [-b B] [-t T] [-s S] [-i reps] [-F] [-c] [-w] [-r] [-o file]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static long phase(int writing, unsigned char *buf)
{
    char name[512];
    long bad = 0;
    if (o.fpp)
        snprintf(name, sizeof name, "%s.%08d", o.file, rank);
    else
        snprintf(name, sizeof name, "%s", o.file);
    if (strcmp(o.api, "posix") == 0) {
        int fd = open(name, writing ? O_CREAT | O_WRONLY : O_RDONLY, 0644);
        if (fd < 0) {
            perror(name);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (long s = 0; s < o.segments; s++)
            for (long k = 0; k < o.block / o.xfer; k++) {
                long long off = block_offset(s) + k * o.xfer;
                if (writing) {
                    fill(buf, o.xfer, off);
                    if (pwrite(fd, buf, (size_t)o.xfer, (off_t)off) != o.xfer)
                        MPI_Abort(MPI_COMM_WORLD, 1);
                } else {
                    if (pread(fd, buf, (size_t)o.xfer, (off_t)off) != o.xfer)
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    bad += check(buf, o.xfer, off);
                }
            }
        if (writing)
            fsync(fd);
        close(fd);
    } else if (strcmp(o.api, "mpiio") == 0) {
        MPI_File fh;
        MPI_Comm comm = o.fpp ? MPI_COMM_SELF : MPI_COMM_WORLD;
        if (MPI_File_open(comm, name, writing ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL,
                          &fh) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (long s = 0; s < o.segments; s++)
            for (long k = 0; k < o.block / o.xfer; k++) {
                MPI_Offset off = block_offset(s) + k * o.xfer;
                if (writing) {
                    fill(buf, o.xfer, off);
                    if (o.coll)
                        MPI_File_write_at_all(fh, off, buf, (int)o.xfer, MPI_BYTE, MPI_STATUS_IGNORE);
                    else
                        MPI_File_write_at(fh, off, buf, (int)o.xfer, MPI_BYTE, MPI_STATUS_IGNORE);
                } else {
                    if (o.coll)
                        MPI_File_read_at_all(fh, off, buf, (int)o.xfer, MPI_BYTE, MPI_STATUS_IGNORE);
                    else
                        MPI_File_read_at(fh, off, buf, (int)o.xfer, MPI_BYTE, MPI_STATUS_IGNORE);
                    bad += check(buf, o.xfer, off);
                }
            }
        if (writing)
            MPI_File_sync(fh);
        MPI_File_close(&fh);
    } else {
        usage();
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int only_w = 0, only_r = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-a") && v)
            o.api = argv[++i];
        else if (!strcmp(a, "-b") && v)
            o.block = atol(argv[++i]);
        else if (!strcmp(a, "-t") && v)
            o.xfer = atol(argv[++i]);
        else if (!strcmp(a, "-s") && v)
            o.segments = atol(argv[++i]);
        else if (!strcmp(a, "-i") && v)
            o.reps = atol(argv[++i]);
        else if (!strcmp(a, "-o") && v)
            o.file = argv[++i];
        else if (!strcmp(a, "-F"))
            o.fpp = 1;
        else if (!strcmp(a, "-c"))
            o.coll = 1;
        else if (!strcmp(a, "-w"))
            only_w = 1;
        else if (!strcmp(a, "-r"))
            only_r = 1;
        else
            usage();
    }
    if (only_w || only_r) {
        o.write = only_w;
        o.read = only_r;
    }
    if (o.xfer <= 0 || o.block <= 0 || o.block % o.xfer || o.segments <= 0 || o.reps <= 0)
        usage();
    unsigned char *buf = malloc((size_t)o.xfer);
    long bad = 0;
    for (long rep = 0; rep < o.reps; rep++) {
        double t0 = MPI_Wtime();
        if (o.write)
            phase(1, buf);
        MPI_Barrier(MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        if (o.read)
            bad += phase(0, buf);
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        long total_bad;
        MPI_Reduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double mib = (double)o.block * o.segments * size / 1048576.0;
            printf("ior: %s%s%s, %d ranks, %ld segments x %ld B in %ld B transfers: write %.1f MiB/s, read %.1f "
                   "MiB/s, %ld bad bytes\n",
                   o.api, o.fpp ? " file-per-process" : " shared", o.coll ? " collective" : "", size, o.segments,
                   o.block, o.xfer, o.write ? mib / (t1 - t0) : 0.0, o.read ? mib / (t2 - t1) : 0.0, total_bad);
        }
    }
    free(buf);
    MPI_Finalize();
    return bad ? 3 : 0;
}
