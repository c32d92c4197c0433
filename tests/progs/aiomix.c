/* aiomix: POSIX aio as programs and MPI-IO libraries use it, each rank on
 * its own file aio-R.dat: overlapping aio_write requests completed by
 * polling aio_error, overlapping aio_read requests awaited one by one with
 * aio_suspend, lio_listio with LIO_WAIT and LIO_NOWAIT, aio_fsync, aio_cancel
 * of requests done, aio_return of every request but one, which the program
 * never completes (it overwrites the file's first bytes, so that the file's
 * size does not depend on whether it ran before the exit). The counts and
 * sizes below are what tests/integ/79-replay-aio.sh reads. Any call that
 * does not do what it should ends the program with a message and status 1.
 *
 * aiomix unstarted: aio_error and aio_return on an aiocb never submitted
 * (glibc reads its zeroed fields: 0 and 0), which a replay cannot reissue. */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_OVER 4       /* aio_write requests in flight together, polled with aio_error */
#define W_BYTES 4096   /* each */
#define N_READ 3       /* aio_read requests in flight together, each awaited with aio_suspend */
#define R_BYTES 1024   /* each */
#define N_LIO_W 2      /* writes of the LIO_WAIT lio_listio (and one read of R_BYTES) */
#define N_LIO_NW 2     /* writes of the LIO_NOWAIT lio_listio, each awaited with aio_suspend */
#define L_BYTES 2048   /* each lio write */
#define N_FSYNC 1      /* aio_fsync, awaited with aio_suspend */
#define N_CANCEL 2     /* aio_cancel of requests done: one request, all of the descriptor's */
#define LOST_BYTES 512 /* the aio_write never completed, at offset 0 */

static void die(const char *what)
{
    fprintf(stderr, "aiomix: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void prep(struct aiocb *cb, int fd, void *buf, size_t n, off_t off, int op)
{
    memset(cb, 0, sizeof *cb);
    cb->aio_fildes = fd;
    cb->aio_buf = buf;
    cb->aio_nbytes = n;
    cb->aio_offset = off;
    cb->aio_lio_opcode = op;
    cb->aio_sigevent.sigev_notify = SIGEV_NONE;
}

static void expect_return(struct aiocb *cb, ssize_t n)
{
    if (aio_return(cb) != n)
        die("aio_return");
}

static void suspend_one(const struct aiocb *cb)
{
    const struct aiocb *one[1] = {cb};
    while (aio_suspend(one, 1, NULL) != 0)
        if (errno != EINTR)
            die("aio_suspend");
}

/* N_OVER writes in flight together, each polled until done; the first
 * cancelled once done (AIO_ALLDONE). */
static void overlapping_writes(int fd, char *buf)
{
    struct aiocb cb[N_OVER];
    for (int i = 0; i < N_OVER; i++) {
        prep(&cb[i], fd, buf + i * W_BYTES, W_BYTES, (off_t)i * W_BYTES, LIO_WRITE);
        if (aio_write(&cb[i]) != 0)
            die("aio_write");
    }
    for (int i = 0; i < N_OVER; i++) {
        int e;
        while ((e = aio_error(&cb[i])) == EINPROGRESS)
            ;
        if (e != 0)
            die("aio_error");
    }
    if (aio_cancel(fd, &cb[0]) != AIO_ALLDONE)
        die("aio_cancel of a request done");
    for (int i = 0; i < N_OVER; i++)
        expect_return(&cb[i], W_BYTES);
}

static void overlapping_reads(int fd, char *buf)
{
    struct aiocb cb[N_READ];
    for (int i = 0; i < N_READ; i++) {
        prep(&cb[i], fd, buf + i * R_BYTES, R_BYTES, (off_t)i * R_BYTES, LIO_READ);
        if (aio_read(&cb[i]) != 0)
            die("aio_read");
    }
    for (int i = 0; i < N_READ; i++) {
        suspend_one(&cb[i]);
        expect_return(&cb[i], R_BYTES);
    }
}

static void lists(int fd, char *buf)
{
    struct aiocb cb[N_LIO_W + 1], nw[N_LIO_NW];
    struct aiocb *list[N_LIO_W + 1], *nwlist[N_LIO_NW];
    off_t base = (off_t)N_OVER * W_BYTES;
    for (int i = 0; i < N_LIO_W; i++)
        prep(&cb[i], fd, buf + i * L_BYTES, L_BYTES, base + (off_t)i * L_BYTES, LIO_WRITE), list[i] = &cb[i];
    prep(&cb[N_LIO_W], fd, buf + N_LIO_W * L_BYTES, R_BYTES, 0, LIO_READ), list[N_LIO_W] = &cb[N_LIO_W];
    if (lio_listio(LIO_WAIT, list, N_LIO_W + 1, NULL) != 0)
        die("lio_listio LIO_WAIT");
    for (int i = 0; i < N_LIO_W; i++)
        expect_return(&cb[i], L_BYTES);
    expect_return(&cb[N_LIO_W], R_BYTES);
    base += (off_t)N_LIO_W * L_BYTES;
    for (int i = 0; i < N_LIO_NW; i++)
        prep(&nw[i], fd, buf + i * L_BYTES, L_BYTES, base + (off_t)i * L_BYTES, LIO_WRITE), nwlist[i] = &nw[i];
    if (lio_listio(LIO_NOWAIT, nwlist, N_LIO_NW, NULL) != 0)
        die("lio_listio LIO_NOWAIT");
    for (int i = 0; i < N_LIO_NW; i++) {
        suspend_one(&nw[i]);
        expect_return(&nw[i], L_BYTES);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[64];
    snprintf(name, sizeof name, "aio-%d.dat", rank);
    int fd = open(name, O_CREAT | O_TRUNC | O_RDWR, 0644);
    char *buf = malloc(N_OVER * W_BYTES), *in = malloc(N_OVER * W_BYTES);
    if (fd < 0 || !buf || !in)
        die("open");
    memset(buf, 'a' + rank, N_OVER * W_BYTES);
    if (argc > 1 && strcmp(argv[1], "unstarted") == 0) {
        struct aiocb never;
        prep(&never, fd, buf, W_BYTES, 0, LIO_WRITE);
        if (aio_error(&never) != 0 || aio_return(&never) != 0)
            die("an aiocb never submitted");
        MPI_Finalize();
        return 0;
    }
    overlapping_writes(fd, buf);
    overlapping_reads(fd, in);
    lists(fd, buf);
    struct aiocb sync;
    prep(&sync, fd, NULL, 0, 0, LIO_NOP);
    if (aio_fsync(O_SYNC, &sync) != 0)
        die("aio_fsync");
    suspend_one(&sync);
    expect_return(&sync, 0);
    if (aio_cancel(fd, NULL) != AIO_ALLDONE)
        die("aio_cancel of the descriptor's requests");
    static struct aiocb lost; /* still glibc's at the exit: not on the stack */
    prep(&lost, fd, buf, LOST_BYTES, 0, LIO_WRITE);
    if (aio_write(&lost) != 0)
        die("aio_write (never completed)");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
