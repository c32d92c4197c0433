/* The *at calls on real directory descriptors, as modern codes and libraries
 * use them: a directory opened with O_DIRECTORY, files made, written,
 * renamed, examined and removed relative to it, an input read through a
 * descriptor of a directory the program did not make, AT_FDCWD, and an
 * absolute path (which ignores the descriptor), and the same through the
 * descriptor of a DIR* (dirfd of an opendir, of an fdopendir), as directory
 * walkers do. Each rank works in its own directory.
 * Usage: atcalls INPUTDIR (holding deck.txt and deck2.txt) */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* bytes written: DIR/f1 (renamed f1b), DIR/sub/f2 (removed), plain.RANK
 * through AT_FDCWD, DIR/abs.dat by its absolute path, DIR/f3 through an
 * opendir's descriptor (removed); read: the deck, deck2 through an
 * opendir's descriptor */
#define N1 3000
#define N2 700
#define N3 50
#define N4 123
#define N5 456
#define DECK 40
#define DECK2 25

static void die(const char *what)
{
    perror(what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void put(int fd, size_t n, const char *what)
{
    char buf[4096];
    memset(buf, 'a', sizeof buf);
    if (write(fd, buf, n) != (ssize_t)n || close(fd) != 0)
        die(what);
}

/* A file made, examined and removed through the descriptor of an opendir
 * of dir; then, through an fdopendir's, one examined. */
static void through_dir_streams(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        die("opendir");
    put(openat(dirfd(d), "f3", O_CREAT | O_WRONLY | O_TRUNC, 0644), N5, "f3");
    struct stat st;
    if (fstatat(dirfd(d), "f3", &st, 0) != 0 || st.st_size != N5)
        die("fstatat f3");
    if (unlinkat(dirfd(d), "f3", 0) != 0 || closedir(d) != 0)
        die("unlinkat f3");
    DIR *fd_d = fdopendir(open(dir, O_RDONLY | O_DIRECTORY));
    if (!fd_d || faccessat(dirfd(fd_d), "f1b", R_OK, 0) != 0 || closedir(fd_d) != 0)
        die("fdopendir");
}

/* An input read through the descriptor of an opendir of the input directory. */
static void deck_through_dir_stream(const char *indir)
{
    DIR *d = opendir(indir);
    int fd = d ? openat(dirfd(d), "deck2.txt", O_RDONLY) : -1;
    char deck[DECK2];
    if (fd < 0 || read(fd, deck, DECK2) != DECK2 || close(fd) != 0 || closedir(d) != 0)
        die("deck2");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char dir[64], plain[64], cwd[PATH_MAX], abs[PATH_MAX + 80];
    snprintf(dir, sizeof dir, "atdir.%d", rank);
    snprintf(plain, sizeof plain, "plain.%d", rank);
    if (argc < 2 || !getcwd(cwd, sizeof cwd) || mkdir(dir, 0755) != 0)
        die("start");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd < 0)
        die("open dir");
    put(openat(dfd, "f1", O_CREAT | O_WRONLY | O_TRUNC, 0644), N1, "f1");
    if (mkdirat(dfd, "sub", 0755) != 0)
        die("mkdirat");
    put(openat(dfd, "sub/f2", O_CREAT | O_WRONLY | O_TRUNC, 0644), N2, "f2");
    if (renameat(dfd, "f1", dfd, "f1b") != 0)
        die("renameat");
    struct stat st;
    if (fstatat(dfd, "f1b", &st, 0) != 0 || st.st_size != N1)
        die("fstatat");
    if (faccessat(dfd, "sub/f2", R_OK, 0) != 0)
        die("faccessat");
    if (unlinkat(dfd, "sub/f2", 0) != 0 || unlinkat(dfd, "sub", AT_REMOVEDIR) != 0)
        die("unlinkat");
    through_dir_streams(dir);
    put(openat(AT_FDCWD, plain, O_CREAT | O_WRONLY | O_TRUNC, 0644), N3, "plain");
    snprintf(abs, sizeof abs, "%s/%s/abs.dat", cwd, dir);
    put(openat(dfd, abs, O_CREAT | O_WRONLY | O_TRUNC, 0644), N4, "abs");
    int ifd = open(argv[1], O_RDONLY | O_DIRECTORY);
    int fd = ifd < 0 ? -1 : openat(ifd, "deck.txt", O_RDONLY);
    char deck[DECK];
    if (fd < 0 || read(fd, deck, DECK) != DECK || close(fd) != 0 || close(ifd) != 0)
        die("deck");
    deck_through_dir_stream(argv[1]);
    if (close(dfd) != 0)
        die("close dir");
    MPI_Finalize();
    return 0;
}
