#define _GNU_SOURCE
/* fortify: built with -O2 -D_FORTIFY_SOURCE=2 -D_FILE_OFFSET_BITS=64, so the
 * compiler emits the fortified and 64-bit names (__open64_2, __read_chk,
 * __pread64_chk, __fread_chk, __fgets_chk, open64, lseek64, ...). Every I/O
 * symbol it references must show up in its trace. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    (void)argv;
    int flags = argc > 5 ? O_RDONLY : O_RDWR; /* not a constant: __open64_2 */
    size_t n = (size_t)argc * 64;              /* not a constant: __read_chk */
    char buf[512];
    int fd = open("f.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
    for (int i = 0; i < 512; i++)
        buf[i] = (char)i;
    if (pwrite(fd, buf, 512, 0) != 512)
        return 1;
    close(fd);
    fd = open("f.dat", flags);
    if (read(fd, buf, n) < 0 || pread(fd, buf, n, 8) < 0)
        return 1;
    lseek(fd, 0, SEEK_SET);
    struct stat st;
    fstat(fd, &st);
    stat("f.dat", &st);
    lstat("f.dat", &st);
    struct statfs sf;
    statfs(".", &sf);
    ftruncate(fd, 400);
    void *p = mmap(NULL, 400, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED)
        munmap(p, 400);
    struct iovec iov = {buf, 16};
    if (preadv(fd, &iov, 1, 0) < 0 || pwritev(fd, &iov, 1, 0) < 0)
        return 1;
    close(fd);
    int fd2 = openat(AT_FDCWD, "f.dat", flags);
    close(fd2);
    FILE *f = fopen("f.dat", "r");
    if (fread(buf, 1, n, f) == 0 || !fgets(buf, (int)n, f))
        return 1;
    fseeko(f, 0, SEEK_SET);
    ftello(f);
    fclose(f);
    truncate("f.dat", 100);
    DIR *d = opendir(".");
    while (readdir(d))
        ;
    closedir(d);
    return 0;
}
