#define _GNU_SOURCE
/* transp: exercises POSIX, stdio and MPI-IO calls, including failing ones,
 * and logs every return value and errno to t-log-<rank>.txt. Traced and
 * untraced runs must produce byte-identical files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static FILE *logf;
#define LOG(expr)                                                                          \
    do {                                                                                   \
        errno = 0;                                                                         \
        long long r_ = (long long)(expr);                                                  \
        int e_ = errno;                                                                    \
        fprintf(logf, "%-40s ret=%lld errno=%d\n", #expr, r_, e_);                         \
    } while (0)
/* errno after an MPI call is unspecified (and varies from run to run inside
 * Open MPI's OMPIO): log the return value only. */
#define LOGR(expr) fprintf(logf, "%-40s ret=%lld\n", #expr, (long long)(expr))

int main(int argc, char **argv)
{
    int rank, size;
    char name[64], buf[4096], rd[4096];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < (int)sizeof buf; i++)
        buf[i] = (char)(i * 7 + rank);
    snprintf(name, sizeof name, "t-log-%d.txt", rank);
    logf = fopen(name, "w");

    /* POSIX */
    snprintf(name, sizeof name, "t-posix-%d.dat", rank);
    int fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0640);
    LOG(fd >= 0);
    LOG(write(fd, buf, 1000));
    LOG(pwrite(fd, buf + 5, 300, 2000));
    struct iovec iov[3] = {{buf, 10}, {buf + 100, 20}, {buf + 200, 30}};
    LOG(writev(fd, iov, 3));
    LOG(lseek(fd, 0, SEEK_SET));
    LOG(read(fd, rd, 500));
    LOG(pread(fd, rd, 100, 2100));
    LOG(preadv(fd, iov, 3, 7));
    LOG(ftruncate(fd, 2200));
    LOG(fsync(fd));
    int fd2 = dup(fd);
    LOG(fd2 > fd);
    LOG(close(fd2));
    LOG(close(fd));
    /* failures: the program must see the same return values and errno */
    LOG(open("does/not/exist", O_RDONLY));
    LOG(read(-1, rd, 1));
    LOG(close(9999));
    LOG(lseek(9999, 0, SEEK_SET));
    struct stat st;
    LOG(stat("does-not-exist", &st));
    LOG(unlink("does-not-exist"));
    LOG(access("does-not-exist", R_OK));
    snprintf(name, sizeof name, "t-dir-%d", rank);
    LOG(mkdir(name, 0755));
    LOG(mkdir(name, 0755));
    LOG(rmdir(name));
    LOG(rmdir(name));
    LOG(fopen("does/not/exist", "r") == NULL);

    /* short transfers and EFBIG: a file size limit (SIGXFSZ ignored) */
    snprintf(name, sizeof name, "t-short-%d.dat", rank);
    fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0640);
    struct rlimit old_fsize;
    getrlimit(RLIMIT_FSIZE, &old_fsize);
    struct rlimit small = {3000, old_fsize.rlim_max}; /* the hard limit stays: the soft one comes back */
    /* a replay cannot reproduce the limit (its writes are whole): the
       round-trip test leaves this part out */
    if (!getenv("TRANSP_NO_FSIZE_LIMIT")) {
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &small);
        LOG(pwrite(fd, buf, 1000, 2500)); /* short: 500 */
        LOG(pwrite(fd, buf, 1000, 3000)); /* EFBIG */
        setrlimit(RLIMIT_FSIZE, &old_fsize);
    }
    LOG(pread(fd, rd, 4000, 2000)); /* short: 1000 */
    LOG(close(fd));
    LOG(write(fd, buf, 10)); /* EBADF: closed a moment ago */
    /* errno is left alone by calls that succeed, as without tracing */
    fd = open(name, O_RDONLY);
    errno = 1234;
    long long ok = pread(fd, rd, 10, 0);
    fprintf(logf, "errno kept across a successful pread: ret=%lld errno=%d\n", ok, errno);
    errno = 4321;
    ok = lseek(fd, 5, SEEK_SET);
    fprintf(logf, "errno kept across a successful lseek: ret=%lld errno=%d\n", ok, errno);
    errno = 77;
    ok = close(fd);
    fprintf(logf, "errno kept across a successful close: ret=%lld errno=%d\n", ok, errno);

    /* stdio */
    snprintf(name, sizeof name, "t-stdio-%d.txt", rank);
    FILE *f = fopen(name, "w+");
    LOG(f != NULL);
    LOG(fwrite(buf, 1, 777, f));
    LOG(fputs("a line of text\n", f));
    LOG(fflush(f));
    LOG(fseek(f, 10, SEEK_SET));
    LOG(ftell(f));
    LOG(fread(rd, 1, 100, f));
    LOG(fseek(f, 777, SEEK_SET));
    LOG(fgets(rd, sizeof rd, f) != NULL);
    LOG(fread(rd, 1, 100, f)); /* at EOF */
    LOG(fclose(f));

    /* MPI-IO: a view and collective writes */
    MPI_File fh;
    MPI_Datatype vec;
    MPI_Type_vector(4, 16, 16 * size, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    LOGR(MPI_File_open(MPI_COMM_WORLD, "t-mpiio.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    LOGR(MPI_File_set_view(fh, rank * 16, MPI_BYTE, vec, "native", MPI_INFO_NULL));
    LOGR(MPI_File_write_all(fh, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_Status status;
    int count = -1;
    LOGR(MPI_File_read_at_all(fh, 0, rd, 64, MPI_BYTE, &status));
    MPI_Get_count(&status, MPI_BYTE, &count);
    LOGR(count);
    LOGR(memcmp(rd, buf, 64));
    LOGR(MPI_File_close(&fh));
    MPI_Type_free(&vec);
    /* MPI errors returned, not raised: the same codes as without tracing */
    int cls = -1, rc = MPI_File_open(MPI_COMM_SELF, "does/not/exist", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_Error_class(rc, &cls);
    fprintf(logf, "MPI_File_open of a missing file: %s, class %s\n", rc == MPI_SUCCESS ? "success" : "error",
            cls == MPI_ERR_NO_SUCH_FILE ? "MPI_ERR_NO_SUCH_FILE" : cls == MPI_ERR_IO ? "MPI_ERR_IO" : "other");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Send(buf, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    fprintf(logf, "MPI_Send to a rank that does not exist: %s, class %s\n", rc == MPI_SUCCESS ? "success" : "error",
            cls == MPI_ERR_RANK ? "MPI_ERR_RANK" : "other");
    fclose(logf);
    MPI_Finalize();
    return 0;
}
