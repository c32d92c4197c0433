/* evnum: each rank makes a fixed run of calls, one of which a replay does
 * not reissue and one whose result a replay cannot reproduce, so that a test
 * knows their event numbers from this source alone (test
 * 98-replay-event-numbers). Each rank's events, numbered from 0 as `siot
 * dump --jsonl` numbers them (its "seq"):
 *   0 MPI_Init
 *   1 MPI_Comm_rank
 *   2 open      evnum-RANK.dat, made
 *   3 mknod     evnum-RANK.sock, a socket: not reissued (a replay makes no socket)
 *   4 pwrite    COUNT bytes at OFFSET under a file-size limit of LIMIT: short
 *               (LIMIT - OFFSET bytes), where the replay, without the limit,
 *               writes them all
 *   5 close
 *   6 MPI_Finalize
 * No other traced call (setrlimit and signal are not traced). */
#define _GNU_SOURCE /* mknod under -std=c11 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/progs/mpi_check.h"

#define SEQ_MKNOD 3
#define SEQ_PWRITE 4
#define LIMIT 3000
#define OFFSET 2500
#define COUNT 1000

int main(int argc, char **argv)
{
    int rank;
    char name[64], buf[COUNT];
    memset(buf, 'e', sizeof buf);
    CHECK(MPI_Init(&argc, &argv));
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    snprintf(name, sizeof name, "evnum-%d.dat", rank);
    int fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0640);
    snprintf(name, sizeof name, "evnum-%d.sock", rank);
    int made = mknod(name, S_IFSOCK | 0600, 0);
    struct rlimit old, small;
    getrlimit(RLIMIT_FSIZE, &old);
    small = old;
    small.rlim_cur = LIMIT; /* the hard limit stays: the soft one comes back */
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    ssize_t wrote = pwrite(fd, buf, COUNT, OFFSET);
    setrlimit(RLIMIT_FSIZE, &old);
    int closed = close(fd);
    if (fd < 0 || made != 0 || wrote != LIMIT - OFFSET || closed != 0) {
        fprintf(stderr, "evnum: rank %d: open %d, mknod %d, pwrite %zd (want %d), close %d\n", rank, fd, made, wrote,
                LIMIT - OFFSET, closed);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CHECK(MPI_Finalize());
    return 0;
}
