/* iosites: MPI-IO for the site rule and the file identity of siot findings
 * (tests/integ/69-findings-sites.sh).
 *   indep  every rank writes NW records of REC bytes, each with an
 *          independent MPI_File_write_at through a helper of the program,
 *          interleaved with the other ranks' in one shared file (INDEP_NAME)
 *   reuse  NFILE files in turn (REUSE_NAME with the file's number), each
 *          opened by all ranks, NWR independent writes per rank, closed: the
 *          MPI library gives the next file the handle id of the last
 * The calls MPI-IO and POSIX make beneath are the program's calls at the
 * lines marked SITE: below. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NW 60
#define REC 100
#define NFILE 3
#define NWR 2
#define INDEP_NAME "indep.dat"
#define REUSE_NAME "reuse-%d.dat"

static void put(MPI_File fh, MPI_Offset off, const char *buf)
{
    MPI_File_write_at(fh, off, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE); /* SITE:write */
}

static void shared_file(const char *name, int nw, int rank, int np)
{
    char buf[REC];
    memset(buf, 'a' + rank, sizeof buf);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh); /* SITE:open */
    for (int i = 0; i < nw; i++)
        put(fh, ((MPI_Offset)i * np + rank) * REC, buf);
    MPI_File_close(&fh); /* SITE:close */
}

/* The same main as tests/progs/ncsites.c's (MPI-IO here, PnetCDF there), on
 * purpose: each test program is one source file, read beside its test as
 * the statement of what it calls. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv); /* SITE:init */
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 1 && strcmp(argv[1], "reuse") == 0) {
        for (int f = 0; f < NFILE; f++) {
            char name[64];
            snprintf(name, sizeof name, REUSE_NAME, f);
            shared_file(name, NWR, rank, np);
        }
    } else {
        shared_file(INDEP_NAME, NW, rank, np);
    }
    MPI_Finalize(); /* SITE:fini */
    return 0;
}
