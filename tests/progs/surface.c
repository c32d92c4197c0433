/* surface: the POSIX and stdio calls beyond open/read/write/close, each made
 * a known number of times with known byte counts (the constants below, which
 * tests/integ/26-posix-surface.sh reads from this file). Every rank works on
 * its own files (name-R.*) in the current directory. Any call that does not
 * do what it should ends the program with a message and status 1. */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_DUP3 1
#define DUP_BYTES 256
#define N_MKSTEMP 1
#define TMP_BYTES 512
#define N_FPUTC 10
#define N_FPRINTF 4
#define FPRINTF_BYTES 6 /* "%05d\n" of a number below 100000 */
#define N_REWIND 1
#define N_FGETC 5
#define N_FGETPOS 1
#define N_FSETPOS 1
#define N_FSCANF 2
#define FSCANF_BYTES 5 /* "fghij" after the five fgetc, then "00000" */
#define N_FREOPEN 1
#define REOPEN_BYTES 100
#define N_FREOPEN_STDOUT 1
#define N_PRINTF 3
#define PRINTF_BYTES 5 /* "%04d\n" of a number below 10000 */
#define N_AIO 2
#define AIO_BYTES 1000
#define N_LIO_LISTIO 1
#define LIO_REQS 2
#define LIO_BYTES 500
#define SRC_BYTES 4096
#define N_COPY_FILE_RANGE 1
#define CFR_BYTES 3000
#define N_SENDFILE 1
#define SENDFILE_BYTES 1024
#define N_STATX 2
#define N_POSIX_FALLOCATE 1
#define FALLOC_BYTES 8192

static char data[SRC_BYTES];
static int rank;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "surface: rank %d: %s failed: %s\n", rank, what, strerror(errno));
        exit(1);
    }
}

static void name(char *buf, size_t n, const char *base) { snprintf(buf, n, "%s-%d.dat", base, rank); }

static void descriptors(void)
{
    char p[64];
    name(p, sizeof p, "dup");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    check(fd >= 0, "open dup");
    int target = 200 + rank;
    for (int i = 0; i < N_DUP3; i++)
        check(dup3(fd, target, O_CLOEXEC) == target, "dup3");
    check(write(target, data, DUP_BYTES) == DUP_BYTES, "write on the dup3 target");
    close(target);
    close(fd);

    char tmpl[64];
    for (int i = 0; i < N_MKSTEMP; i++) {
        snprintf(tmpl, sizeof tmpl, "tmp-%d-XXXXXX", rank);
        int t = mkstemp(tmpl);
        check(t >= 0, "mkstemp");
        check(write(t, data, TMP_BYTES) == TMP_BYTES, "write on mkstemp's file");
        close(t);
    }
}

static void streams(void)
{
    char p[64];
    name(p, sizeof p, "stream");
    FILE *f = fopen(p, "w+");
    check(f != NULL, "fopen");
    for (int i = 0; i < N_FPUTC; i++)
        check(fputc('a' + i, f) == 'a' + i, "fputc");
    for (int i = 0; i < N_FPRINTF; i++)
        check(fprintf(f, "%05d\n", i) == FPRINTF_BYTES, "fprintf");
    for (int i = 0; i < N_REWIND; i++)
        rewind(f);
    for (int i = 0; i < N_FGETC; i++)
        check(fgetc(f) == 'a' + i, "fgetc");
    fpos_t pos;
    for (int i = 0; i < N_FGETPOS; i++)
        check(fgetpos(f, &pos) == 0, "fgetpos");
    for (int i = 0; i < N_FSETPOS; i++)
        check(fsetpos(f, &pos) == 0, "fsetpos");
    char word[8];
    int number = -1;
    check(fscanf(f, "%5s", word) == 1 && strcmp(word, "fghij") == 0, "fscanf of a word");
    check(fscanf(f, "%d", &number) == 1 && number == 0, "fscanf of a number");
    name(p, sizeof p, "reopened");
    for (int i = 0; i < N_FREOPEN; i++)
        check((f = freopen(p, "w", f)) != NULL, "freopen");
    check(fwrite(data, 1, REOPEN_BYTES, f) == REOPEN_BYTES, "fwrite after freopen");
    fclose(f);

    /* standard output, not traced, reopened on a file: printf is traced then */
    name(p, sizeof p, "out");
    for (int i = 0; i < N_FREOPEN_STDOUT; i++)
        check(freopen(p, "w", stdout) == stdout, "freopen of stdout");
    for (int i = 0; i < N_PRINTF; i++)
        check(printf("%04d\n", i) == PRINTF_BYTES, "printf");
    check(fflush(stdout) == 0, "fflush of stdout");
}

static void asynchronous(void)
{
    char p[64];
    name(p, sizeof p, "aio");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    check(fd >= 0, "open aio");
    struct aiocb cb[N_AIO];
    memset(cb, 0, sizeof cb);
    for (int i = 0; i < N_AIO; i++) {
        cb[i].aio_fildes = fd;
        cb[i].aio_buf = data;
        cb[i].aio_nbytes = AIO_BYTES;
        cb[i].aio_offset = (off_t)i * AIO_BYTES;
        check(aio_write(&cb[i]) == 0, "aio_write");
    }
    for (int i = 0; i < N_AIO; i++) {
        const struct aiocb *one[1] = {&cb[i]};
        check(aio_suspend(one, 1, NULL) == 0, "aio_suspend");
        check(aio_error(&cb[i]) == 0, "aio_error");
        check(aio_return(&cb[i]) == AIO_BYTES, "aio_return");
    }
    close(fd);

    /* a list of writes after the two above (LIO_WAIT: complete on return) */
    fd = open(p, O_WRONLY);
    check(fd >= 0, "open aio again");
    struct aiocb lcb[LIO_REQS], *list[LIO_REQS];
    memset(lcb, 0, sizeof lcb);
    for (int i = 0; i < LIO_REQS; i++) {
        lcb[i].aio_fildes = fd;
        lcb[i].aio_buf = data;
        lcb[i].aio_nbytes = LIO_BYTES;
        lcb[i].aio_offset = (off_t)N_AIO * AIO_BYTES + (off_t)i * LIO_BYTES;
        lcb[i].aio_lio_opcode = LIO_WRITE;
        list[i] = &lcb[i];
    }
    for (int i = 0; i < N_LIO_LISTIO; i++)
        check(lio_listio(LIO_WAIT, list, LIO_REQS, NULL) == 0, "lio_listio");
    for (int i = 0; i < LIO_REQS; i++)
        check(aio_return(&lcb[i]) == LIO_BYTES, "aio_return of lio_listio");
    close(fd);
}

static void between_files(void)
{
    char src[64], dst[64];
    name(src, sizeof src, "src");
    name(dst, sizeof dst, "cfr");
    int in = open(src, O_RDWR | O_CREAT | O_TRUNC, 0644);
    check(in >= 0 && write(in, data, SRC_BYTES) == SRC_BYTES, "writing the source");
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    check(out >= 0, "open cfr");
    for (int i = 0; i < N_COPY_FILE_RANGE; i++) {
        off64_t off_in = 0;
        check(copy_file_range(in, &off_in, out, NULL, CFR_BYTES, 0) == CFR_BYTES, "copy_file_range");
    }
    close(out);
    name(dst, sizeof dst, "sf");
    out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    check(out >= 0, "open sf");
    for (int i = 0; i < N_SENDFILE; i++) {
        off_t off = 0;
        check(sendfile(out, in, &off, SENDFILE_BYTES) == SENDFILE_BYTES, "sendfile");
    }
    close(out);
    close(in);
    struct statx sx;
    for (int i = 0; i < N_STATX; i++)
        check(statx(AT_FDCWD, src, 0, STATX_SIZE, &sx) == 0 && sx.stx_size == SRC_BYTES, "statx");

    name(dst, sizeof dst, "falloc");
    int fd = open(dst, O_RDWR | O_CREAT | O_TRUNC, 0644);
    check(fd >= 0, "open falloc");
    for (int i = 0; i < N_POSIX_FALLOCATE; i++) {
        errno = posix_fallocate(fd, 0, FALLOC_BYTES);
        check(errno == 0, "posix_fallocate");
    }
    close(fd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(data, 'x', sizeof data);
    descriptors();
    streams();
    asynchronous();
    between_files();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
