/* aioshort: aio reads whose result the file's state at the moment of their
 * transfer decides, each rank on its own file aioshort-R.dat:
 *   1. HEAD bytes written, then an aio_read of R_BYTES starting SHORT bytes
 *      before the end of the file, awaited with aio_suspend: aio_return
 *      gives SHORT (a short read);
 *   2. an aio_write of HEAD bytes over the head, then an aio_read of R_BYTES
 *      at LATER, past the end, on the same descriptor (glibc runs one
 *      descriptor's requests in order: the read waits for the write),
 *      awaited through the read's own notification (SIGEV_THREAD posting a
 *      semaphore: no call a tracer records), then R_BYTES written at LATER
 *      with pwrite, then aio_suspend and aio_return of both: the read gave
 *      0, it ran before the pwrite. A replay, which reissues the calls but
 *      not the wait nobody recorded, makes its pwrite while its read most
 *      likely still waits behind the write, and reads R_BYTES.
 * Exit 1 with a message when a call does not do what it should. */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEAD 2097152 /* written first, then over again with aio_write */
#define R_BYTES 1024 /* each aio_read */
#define SHORT 200    /* the first read starts SHORT bytes before the end */
#define GAP 4096     /* the second read starts GAP bytes past the end */
#define LATER (HEAD + GAP)

static int rank;
static sem_t done;

static void die(const char *what)
{
    fprintf(stderr, "aioshort rank %d: %s: %s\n", rank, what, strerror(errno));
    exit(1);
}

static void prep(struct aiocb *cb, int fd, void *buf, size_t n, off_t off)
{
    memset(cb, 0, sizeof *cb);
    cb->aio_fildes = fd;
    cb->aio_buf = buf;
    cb->aio_nbytes = n;
    cb->aio_offset = off;
    cb->aio_sigevent.sigev_notify = SIGEV_NONE;
}

static void notified(union sigval v)
{
    (void)v;
    sem_post(&done);
}

/* aio_suspend until the request is done, then its aio_return */
static ssize_t finish(struct aiocb *cb)
{
    const struct aiocb *list[1] = {cb};
    while (aio_error(cb) == EINPROGRESS)
        if (aio_suspend(list, 1, NULL) != 0 && errno != EINTR)
            die("aio_suspend");
    return aio_return(cb);
}

/* 1: a read that starts SHORT bytes before the end */
static void short_read(int fd, char *buf)
{
    struct aiocb cb;
    prep(&cb, fd, buf, R_BYTES, HEAD - SHORT);
    if (aio_read(&cb) != 0)
        die("aio_read past the end");
    if (finish(&cb) != SHORT)
        errno = 0, die("the short read's size");
}

/* 2: a write over the head, a read at LATER behind it awaited through its
 * notification, then the pwrite at LATER */
static void read_then_write(int fd, char *buf, char *in)
{
    struct aiocb w, r;
    prep(&w, fd, buf, HEAD, 0);
    prep(&r, fd, in, R_BYTES, LATER);
    r.aio_sigevent.sigev_notify = SIGEV_THREAD;
    r.aio_sigevent.sigev_notify_function = notified;
    if (sem_init(&done, 0, 0) != 0)
        die("sem_init");
    if (aio_write(&w) != 0)
        die("aio_write over the head");
    if (aio_read(&r) != 0)
        die("aio_read at a position written later");
    while (sem_wait(&done) != 0)
        if (errno != EINTR)
            die("sem_wait");
    if (pwrite(fd, buf, R_BYTES, LATER) != R_BYTES)
        die("pwrite at LATER");
    if (finish(&w) != HEAD)
        errno = 0, die("the aio_write's size");
    if (finish(&r) != 0)
        errno = 0, die("the read before the write found data");
    sem_destroy(&done);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static char buf[HEAD], in[R_BYTES];
    memset(buf, 'a' + rank, sizeof buf);
    char name[64];
    snprintf(name, sizeof name, "aioshort-%d.dat", rank);
    int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die("open");
    if (pwrite(fd, buf, HEAD, 0) != HEAD)
        die("pwrite of the head");
    short_read(fd, in);
    read_then_write(fd, buf, in);
    if (close(fd) != 0)
        die("close");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
