/* findmpiio: MPI-IO programs for siot findings' read-modify-write,
 * small-collective-buffer and collective-straggler rules and their
 * remedies (tests/integ/54-findings-mpiio.sh, which reads the constants).
 * Each mode runs with and without the remedy:
 *   sieve    every rank writes NBLK blocks of BLK bytes, one every
 *            P * BLK bytes (a vector file view), with one independent
 *            MPI_File_write into a file of FILESIZE bytes made beforehand
 *            (MPI_File_set_size): ROMIO's data sieving reads the range the
 *            blocks span and writes it back;
 *   nosieve  the same with the hint romio_ds_write=disable;
 *   collsieve the same blocks with one collective MPI_File_write_all
 *            (romio_cb_write=enable): the ranks' blocks tile the range;
 *   smallcb  CB_STEPS collective writes of CB_BLK contiguous bytes per rank
 *            (romio_cb_write=enable) through a collective buffer of
 *            SMALL_CB bytes (cb_buffer_size);
 *   bigcb    the same with the default buffer;
 *   straggle S_STEPS collective writes of S_BLK bytes per rank, rank
 *            SLOW_RANK sleeping SLOW_MS ms before each;
 *   even     the same without the sleep;
 *   cbnodes  smallcb with every rank an aggregator (cb_nodes = P);
 *   split    straggle with the split collectives: each step's
 *            MPI_File_write_at_all_begin, then the sleep, then its _end
 *            (the early ranks could compute while the write is under way);
 *   iwrite   the same with MPI_File_iwrite_at_all, the sleep, MPI_Wait;
 *   iwritep2p each step's MPI_File_iwrite_at_all completed by MPI_Test
 *            at once (no sleep), then a ring exchange (MPI_Irecv from the
 *            left, MPI_Isend to the right, MPI_Waitall) in which rank
 *            SLOW_RANK sleeps SLOW_MS ms before its send, and a barrier
 *            before the close: the waits are point-to-point, and the
 *            requests they complete reuse the write's request id. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/progs/mpi_check.h"

#define BLK 512
#define NBLK 256
#define FILESIZE 4194304
#define CB_STEPS 2
#define CB_BLK 65536
#define SMALL_CB 4096
#define S_STEPS 4
#define S_BLK 4096
#define SLOW_RANK 1
#define SLOW_MS 200

/* The file opened with up to three hints (a NULL key: none). */
static MPI_File open_with3(const char *name, const char *key, const char *val, const char *key2, const char *val2,
                           const char *key3, const char *val3)
{
    MPI_Info info;
    MPI_File fh;
    MPI_Info_create(&info);
    if (key)
        MPI_Info_set(info, key, val);
    if (key2)
        MPI_Info_set(info, key2, val2);
    if (key3)
        MPI_Info_set(info, key3, val3);
    CHECK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    return fh;
}

static MPI_File open_with(const char *name, const char *key, const char *val, const char *key2, const char *val2)
{
    return open_with3(name, key, val, key2, val2, NULL, NULL);
}

/* hint: 0 none, 1 romio_ds_write=disable, 2 a collective write */
static void sieve(int rank, int np, int hint)
{
    static char buf[NBLK * BLK];
    memset(buf, 'a' + rank, sizeof buf);
    MPI_File fh = open_with("sieve.dat",
                            hint == 1   ? "romio_ds_write"
                            : hint == 2 ? "romio_cb_write"
                                        : NULL,
                            hint == 1 ? "disable" : "enable", NULL, NULL);
    CHECK(MPI_File_set_size(fh, FILESIZE));
    MPI_Datatype vec;
    MPI_Type_vector(NBLK, BLK, np * BLK, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * BLK, MPI_BYTE, vec, "native", MPI_INFO_NULL));
    if (hint == 2)
        CHECK(MPI_File_write_all(fh, buf, NBLK * BLK, MPI_BYTE, MPI_STATUS_IGNORE));
    else
        CHECK(MPI_File_write(fh, buf, NBLK * BLK, MPI_BYTE, MPI_STATUS_IGNORE)); /* SITE:sieve */
    MPI_Type_free(&vec);
    MPI_File_close(&fh);
}

/* small: 0 the default buffer, 1 SMALL_CB, 2 SMALL_CB with P aggregators */
static void collbuf(int rank, int small)
{
    static char buf[CB_BLK];
    char size[32], nodes[32];
    memset(buf, 'a' + rank, sizeof buf);
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    snprintf(size, sizeof size, "%d", SMALL_CB);
    snprintf(nodes, sizeof nodes, "%d", np);
    MPI_File fh = open_with3("collbuf.dat", "romio_cb_write", "enable", small ? "cb_buffer_size" : NULL, size,
                             small == 2 ? "cb_nodes" : NULL, nodes);
    for (int s = 0; s < CB_STEPS; s++) {
        MPI_Offset off = ((MPI_Offset)s * np + rank) * CB_BLK;
        CHECK(MPI_File_write_at_all(fh, off, buf, CB_BLK, MPI_BYTE, MPI_STATUS_IGNORE)); /* SITE:collbuf */
    }
    MPI_File_close(&fh);
}

/* iwritep2p's step: the write, then a ring exchange that SLOW_RANK delays */
static void ring_step(MPI_File fh, MPI_Offset off, const char *buf, int rank, int np)
{
    MPI_Request req, ring[2];
    int done = 0, in = 0, out = rank;
    CHECK(MPI_File_iwrite_at_all(fh, off, buf, S_BLK, MPI_BYTE, &req));
    while (!done)
        CHECK(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    CHECK(MPI_Irecv(&in, 1, MPI_INT, (rank + np - 1) % np, 7, MPI_COMM_WORLD, &ring[0]));
    if (rank == SLOW_RANK)
        usleep(SLOW_MS * 1000);
    CHECK(MPI_Isend(&out, 1, MPI_INT, (rank + 1) % np, 7, MPI_COMM_WORLD, &ring[1]));
    CHECK(MPI_Waitall(2, ring, MPI_STATUSES_IGNORE));
}

/* slow: 0 no sleep, 1 a sleep before each collective, 2 a sleep between
 * each split collective's begin and end, 3 between a non-blocking
 * collective and its MPI_Wait, 4 in a ring exchange after each (iwritep2p) */
static void straggle(int rank, int np, int slow)
{
    static char buf[S_BLK];
    memset(buf, 'a' + rank, sizeof buf);
    MPI_File fh = open_with("straggle.dat", NULL, NULL, NULL, NULL);
    for (int s = 0; s < S_STEPS; s++) {
        MPI_Offset off = ((MPI_Offset)s * np + rank) * S_BLK;
        if (slow == 4) {
            ring_step(fh, off, buf, rank, np);
            continue;
        }
        if (slow == 3) {
            MPI_Request req;
            CHECK(MPI_File_iwrite_at_all(fh, off, buf, S_BLK, MPI_BYTE, &req)); /* SITE:iwrite */
            if (rank == SLOW_RANK)
                usleep(SLOW_MS * 1000);
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            continue;
        }
        if (slow == 2) {
            CHECK(MPI_File_write_at_all_begin(fh, off, buf, S_BLK, MPI_BYTE)); /* SITE:split */
            if (rank == SLOW_RANK)
                usleep(SLOW_MS * 1000);
            CHECK(MPI_File_write_at_all_end(fh, buf, MPI_STATUS_IGNORE));
            continue;
        }
        if (slow && rank == SLOW_RANK)
            usleep(SLOW_MS * 1000);
        CHECK(MPI_File_write_at_all(fh, off, buf, S_BLK, MPI_BYTE, MPI_STATUS_IGNORE)); /* SITE:straggle */
    }
    if (slow == 4)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *mode = argc > 1 ? argv[1] : "sieve";
    if (strcmp(mode, "sieve") == 0 || strcmp(mode, "nosieve") == 0 || strcmp(mode, "collsieve") == 0)
        sieve(rank, np, mode[0] == 'n' ? 1 : mode[0] == 'c' ? 2 : 0);
    else if (strcmp(mode, "smallcb") == 0 || strcmp(mode, "bigcb") == 0 || strcmp(mode, "cbnodes") == 0)
        collbuf(rank, mode[0] == 's' ? 1 : mode[0] == 'c' ? 2 : 0);
    else if (strcmp(mode, "straggle") == 0 || strcmp(mode, "even") == 0 || strcmp(mode, "split") == 0)
        straggle(rank, np, mode[0] == 's' ? (mode[1] == 'p' ? 2 : 1) : 0);
    else if (strcmp(mode, "iwrite") == 0 || strcmp(mode, "iwritep2p") == 0)
        straggle(rank, np, mode[6] ? 4 : 3);
    else
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Finalize();
    return 0;
}
