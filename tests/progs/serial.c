#define _GNU_SOURCE
/* serial: a program that never calls MPI. Its events are known in advance
 * (tests/integ/21-serial-events.sh); it prints return values and errno to stdout and
 * exits with status 3. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
    char buf[256];
    memset(buf, 'x', sizeof buf);
    FILE *f = fopen("s-out.txt", "w");
    size_t n = fwrite(buf, 1, 200, f);
    fclose(f);
    int fd = open("s-out.txt", O_RDONLY);
    ssize_t r = read(fd, buf, 150);
    close(fd);
    struct stat st;
    int s = stat("s-out.txt", &st);
    int rn = rename("s-out.txt", "s-renamed.txt");
    int m = mkdir("s-dir", 0700);
    DIR *d = opendir("s-dir");
    int ents = 0;
    while (readdir(d))
        ents++;
    closedir(d);
    int rm = rmdir("s-dir");
    errno = 0;
    int bad = open("s-missing", O_RDONLY);
    int e = errno;
    printf("fwrite=%zu read=%zd stat=%d size=%lld rename=%d mkdir=%d entries=%d rmdir=%d bad=%d errno=%d\n", n, r, s,
           (long long)st.st_size, rn, m, ents, rm, bad, e);
    return 3;
}
