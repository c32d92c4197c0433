/* posixmore: the POSIX and stdio calls traced after the surface of
 * surface.c: extended attributes, hard and symbolic links, scandir,
 * close_range and closefrom, splice, file handles, fcloseall and the
 * wide-character stream calls, each made a known number of times with known
 * results (the constants below, which tests/integ/19-posix-more.sh reads
 * from this file). Every rank works on its own files (name-R.*) in the
 * current directory. Any call that does not do what it should ends the
 * program with a message and status 1.
 *
 * posixmore execl|execle|execlp (no MPI): replaces itself by a shell that
 * writes "$0:$1:$FOO" to exec-out.txt, through that list form of exec. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <wchar.h>

#define N_XATTR 2 /* each of the twelve xattr calls */
#define XATTR_BYTES 16
#define N_LINK 1 /* each of link, linkat, symlink, symlinkat */
#define SYMW_BYTES 100 /* written through the relative symbolic link */
#define N_SCANDIR 1 /* each of scandir, scandirat */
#define SCAN_FILES 3
#define N_CLOSE_RANGE 2 /* one closes RANGE_FDS descriptors, one marks one close-on-exec */
#define RANGE_FDS 3
#define N_CLOSEFROM 1
#define CR_BYTES 300 /* written to each descriptor closed by a range */
#define N_SPLICE 1
#define SPLICE_BYTES 700
#define N_NAME_TO_HANDLE 1
#define N_OPEN_BY_HANDLE 1
#define HANDLE_READ 50
#define N_FPUTWC 4 /* and as many putwc, fputwc_unlocked, putwc_unlocked */
#define N_FPUTWS 2 /* and as many fputws_unlocked */
#define WS_CHARS 10 /* L"wide line\n" */
#define N_FWPRINTF 3 /* and as many vfwprintf */
#define FWPRINTF_CHARS 6 /* L"%05d\n" of a number below 100000 */
#define N_FGETWC 4 /* and as many getwc, fgetwc_unlocked, getwc_unlocked: all N_FPUTWC */
#define N_UNGETWC 1 /* each followed by one more fgetwc */
#define N_FGETWS 2 /* and as many fgetws_unlocked */
#define N_FWSCANF 1 /* and as many vfwscanf */
#define N_FCLOSEALL 1
#define N_PUTWCHAR 4 /* on standard output reopened on a file */
#define N_WPRINTF 2
#define WPRINTF_CHARS 5 /* L"%04d\n" */
#define N_GETWCHAR 3 /* on standard input reopened on a file */
#define N_WSCANF 1

static char data[4096];
static int rank;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "posixmore: rank %d: %s failed: %s\n", rank, what, strerror(errno));
        exit(1);
    }
}

static void name(char *buf, size_t n, const char *base) { snprintf(buf, n, "%s-%d.dat", base, rank); }

static void attributes(void)
{
    char p[64], an[32], v[XATTR_BYTES], list[1024];
    name(p, sizeof p, "xattr");
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
    check(fd >= 0, "open xattr");
    for (int i = 0; i < N_XATTR; i++) {
        snprintf(an, sizeof an, "user.p%d", i);
        check(setxattr(p, an, data, XATTR_BYTES, 0) == 0, "setxattr");
        snprintf(an, sizeof an, "user.l%d", i);
        check(lsetxattr(p, an, data, XATTR_BYTES, 0) == 0, "lsetxattr");
        snprintf(an, sizeof an, "user.f%d", i);
        check(fsetxattr(fd, an, data, XATTR_BYTES, 0) == 0, "fsetxattr");
    }
    for (int i = 0; i < N_XATTR; i++) {
        snprintf(an, sizeof an, "user.p%d", i);
        check(getxattr(p, an, v, sizeof v) == XATTR_BYTES, "getxattr");
        check(lgetxattr(p, an, v, sizeof v) == XATTR_BYTES, "lgetxattr");
        check(fgetxattr(fd, an, v, sizeof v) == XATTR_BYTES, "fgetxattr");
        check(listxattr(p, list, sizeof list) > 0, "listxattr");
        check(llistxattr(p, list, sizeof list) > 0, "llistxattr");
        check(flistxattr(fd, list, sizeof list) > 0, "flistxattr");
    }
    for (int i = 0; i < N_XATTR; i++) {
        snprintf(an, sizeof an, "user.p%d", i);
        check(removexattr(p, an) == 0, "removexattr");
        snprintf(an, sizeof an, "user.l%d", i);
        check(lremovexattr(p, an) == 0, "lremovexattr");
        snprintf(an, sizeof an, "user.f%d", i);
        check(fremovexattr(fd, an) == 0, "fremovexattr");
    }
    close(fd);
}

static void links(void)
{
    char p[64], l[64], cwd[PATH_MAX], abs[PATH_MAX + 64];
    name(p, sizeof p, "xattr");
    for (int i = 0; i < N_LINK; i++) {
        name(l, sizeof l, "hard");
        check(link(p, l) == 0, "link");
        name(l, sizeof l, "hardat");
        check(linkat(AT_FDCWD, p, AT_FDCWD, l, 0) == 0, "linkat");
        name(l, sizeof l, "sym");
        check(symlink(p, l) == 0, "symlink");
        check(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
        snprintf(abs, sizeof abs, "%s/%s", cwd, p);
        name(l, sizeof l, "symat");
        check(symlinkat(abs, AT_FDCWD, l) == 0, "symlinkat");
    }
    /* through the relative link: the file it names grows (the replay's
     * absolute one names a file under its root that the replay never made) */
    name(l, sizeof l, "sym");
    int fd = open(l, O_WRONLY | O_APPEND);
    check(fd >= 0 && write(fd, data, SYMW_BYTES) == SYMW_BYTES, "write through symlink's link");
    close(fd);
}

static int no_dots(const struct dirent *e) { return e->d_name[0] != '.'; }

static void directories(void)
{
    char d[64], f[128];
    name(d, sizeof d, "dir");
    check(mkdir(d, 0755) == 0, "mkdir");
    for (int i = 0; i < SCAN_FILES; i++) {
        snprintf(f, sizeof f, "%s/f%d", d, i);
        int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        check(fd >= 0, "open in dir");
        close(fd);
    }
    struct dirent **list;
    for (int i = 0; i < N_SCANDIR; i++) {
        int n = scandir(d, &list, no_dots, alphasort);
        check(n == SCAN_FILES, "scandir");
        while (n--)
            free(list[n]);
        free(list);
        n = scandirat(AT_FDCWD, d, &list, no_dots, NULL);
        check(n == SCAN_FILES, "scandirat");
        while (n--)
            free(list[n]);
        free(list);
    }
}

/* Traced descriptors at first.., each on its own file cr-R-first+i.dat with
 * CR_BYTES written; then closed by a range. The pipe's end put at first
 * afterwards is not traced: its write is not recorded, nor attributed to
 * the file the number held before. */
static void traced_at(int first, int n)
{
    char p[64];
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "cr-%d-%d.dat", rank, first + i);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        check(fd >= 0 && dup2(fd, first + i) == first + i, "open and dup2 for a range");
        close(fd);
        check(write(first + i, data, CR_BYTES) == CR_BYTES, "write before the range is closed");
    }
}

static void after_range(int fd)
{
    int pp[2];
    /* F_DUPFD from the pipe (not traced: not recorded) takes the lowest free
     * number from fd on: fd, which would still look traced if the range had
     * not released it */
    check(pipe(pp) == 0 && fcntl(pp[1], F_DUPFD, fd) == fd, "pipe onto a closed number");
    check(write(fd, data, 10) == 10, "write on the pipe");
    close(fd);
    close(pp[0]);
    close(pp[1]);
}

static void ranges(void)
{
    int first = 500;
    traced_at(first, RANGE_FDS);
    check(close_range(first, first + RANGE_FDS - 1, 0) == 0, "close_range");
    after_range(first);
    /* close-on-exec only: the descriptor stays open, and traced */
    first = 550;
    traced_at(first, 1);
    check(close_range(first, first, CLOSE_RANGE_CLOEXEC) == 0, "close_range CLOEXEC");
    check(write(first, data, CR_BYTES) == CR_BYTES, "write after CLOSE_RANGE_CLOEXEC");
    close(first);
    first = 600;
    traced_at(first, RANGE_FDS);
    closefrom(first);
    after_range(first);
}

static void splicing(void)
{
    char p[64];
    name(p, sizeof p, "splice");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int pp[2];
    check(fd >= 0 && pipe(pp) == 0, "open splice, pipe");
    for (int i = 0; i < N_SPLICE; i++) {
        check(write(pp[1], data, SPLICE_BYTES) == SPLICE_BYTES, "write on the pipe");
        check(splice(pp[0], NULL, fd, NULL, SPLICE_BYTES, 0) == SPLICE_BYTES, "splice");
    }
    close(pp[0]);
    close(pp[1]);
    close(fd);
}

static void handles(void)
{
    char p[64];
    name(p, sizeof p, "xattr");
    struct file_handle *fh = malloc(sizeof *fh + MAX_HANDLE_SZ);
    int mount_id;
    check(fh != NULL, "malloc");
    for (int i = 0; i < N_NAME_TO_HANDLE; i++) {
        fh->handle_bytes = MAX_HANDLE_SZ;
        check(name_to_handle_at(AT_FDCWD, p, fh, &mount_id, 0) == 0, "name_to_handle_at");
    }
    int mfd = open(".", O_RDONLY | O_DIRECTORY);
    check(mfd >= 0, "open .");
    char buf[HANDLE_READ];
    for (int i = 0; i < N_OPEN_BY_HANDLE; i++) {
        int fd = open_by_handle_at(mfd, fh, O_RDONLY);
        check(fd >= 0, "open_by_handle_at");
        check(read(fd, buf, HANDLE_READ) == HANDLE_READ, "read by handle");
        close(fd);
    }
    close(mfd);
    free(fh);
}

static int my_vfwprintf(FILE *f, const wchar_t *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vfwprintf(f, fmt, ap);
    va_end(ap);
    return r;
}

static int my_vfwscanf(FILE *f, const wchar_t *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vfwscanf(f, fmt, ap);
    va_end(ap);
    return r;
}

static void wide_out(FILE *f)
{
    for (int i = 0; i < N_FPUTWC; i++) {
        check(fputwc(L'a', f) == L'a', "fputwc");
        check(putwc(L'b', f) == L'b', "putwc");
        check(fputwc_unlocked(L'c', f) == L'c', "fputwc_unlocked");
        check(putwc_unlocked(L'd', f) == L'd', "putwc_unlocked");
    }
    for (int i = 0; i < N_FPUTWS; i++) {
        check(fputws(L"wide line\n", f) >= 0, "fputws");
        check(fputws_unlocked(L"wide line\n", f) >= 0, "fputws_unlocked");
    }
    for (int i = 0; i < N_FWPRINTF; i++) {
        check(fwprintf(f, L"%05d\n", i) == FWPRINTF_CHARS, "fwprintf");
        check(my_vfwprintf(f, L"%05d\n", i) == FWPRINTF_CHARS, "vfwprintf");
    }
}

static void wide_in(FILE *f)
{
    wchar_t line[64];
    for (int i = 0; i < N_FGETWC; i++) {
        check(fgetwc(f) == L'a', "fgetwc");
        check(getwc(f) == L'b', "getwc");
        check(fgetwc_unlocked(f) == L'c', "fgetwc_unlocked");
        check(getwc_unlocked(f) == L'd', "getwc_unlocked");
    }
    for (int i = 0; i < N_UNGETWC; i++)
        check(ungetwc(L'z', f) == L'z' && fgetwc(f) == L'z', "ungetwc");
    for (int i = 0; i < N_FGETWS; i++) {
        check(fgetws(line, 64, f) != NULL && wcscmp(line, L"wide line\n") == 0, "fgetws");
        check(fgetws_unlocked(line, 64, f) != NULL && wcscmp(line, L"wide line\n") == 0, "fgetws_unlocked");
    }
    int v = -1;
    for (int i = 0; i < N_FWSCANF; i++) {
        check(fwscanf(f, L"%d", &v) == 1 && v == i, "fwscanf");
        check(my_vfwscanf(f, L"%d", &v) == 1 && v == i, "vfwscanf");
    }
}

static void wide(void)
{
    char p[64];
    name(p, sizeof p, "wide");
    FILE *f = fopen(p, "w+");
    check(f != NULL, "fopen wide");
    wide_out(f);
    rewind(f);
    wide_in(f);

    /* the standard streams reopened on files: their wide calls are traced */
    name(p, sizeof p, "wout");
    check(freopen(p, "w", stdout) == stdout, "freopen of stdout");
    for (int i = 0; i < N_PUTWCHAR; i++)
        check(putwchar(L'x') == L'x', "putwchar");
    for (int i = 0; i < N_WPRINTF; i++)
        check(wprintf(L"%04d\n", i) == WPRINTF_CHARS, "wprintf");
    check(fflush(stdout) == 0, "fflush of stdout");
    name(p, sizeof p, "win");
    FILE *in = fopen(p, "w");
    check(in != NULL && fputs("abc 42\n", in) >= 0 && fclose(in) == 0, "writing the input");
    check(freopen(p, "r", stdin) == stdin, "freopen of stdin");
    for (int i = 0; i < N_GETWCHAR; i++)
        check(getwchar() == (wint_t)(L'a' + i), "getwchar");
    int v = -1;
    for (int i = 0; i < N_WSCANF; i++)
        check(wscanf(L"%d", &v) == 1 && v == 42, "wscanf");
    /* last: glibc's fcloseall flushes every stream and leaves it open but
     * unbuffered and byte-oriented (wide calls on it fail from then on) */
    for (int i = 0; i < N_FCLOSEALL; i++)
        check(fcloseall() == 0, "fcloseall");
    check(fclose(f) == 0, "fclose after fcloseall");
}

static int exec_list(const char *how)
{
    /* the shell is not traced (it would write this program's trace again) */
    unsetenv("LD_PRELOAD");
    const char *script = "echo \"$0:$1:$FOO\" > exec-out.txt";
    if (strcmp(how, "execl") == 0)
        execl("/bin/sh", "sh", "-c", script, "execl", "one", (char *)NULL);
    else if (strcmp(how, "execle") == 0) {
        char *env[] = {"FOO=bar", NULL};
        execle("/bin/sh", "sh", "-c", script, "execle", "two", (char *)NULL, env);
    } else if (strcmp(how, "execlp") == 0)
        execlp("sh", "sh", "-c", script, "execlp", "three", (char *)NULL);
    fprintf(stderr, "posixmore: %s: %s\n", how, strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return exec_list(argv[1]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(data, 'x', sizeof data);
    attributes();
    links();
    directories();
    ranges();
    splicing();
    handles();
    wide();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
