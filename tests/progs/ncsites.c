/* ncsites: PnetCDF for the site rule and the file identity of siot findings
 * (tests/integ/69-findings-sites.sh).
 *   indep  every rank writes NW blocks of NI doubles of one variable with an
 *          independent ncmpi_put_vara_double, interleaved with the other
 *          ranks' in one shared file (INDEP_NAME)
 *   reuse  NFILE files in turn (REUSE_NAME with the file's number), each
 *          created by all ranks, NWR independent puts per rank, closed: the
 *          MPI library gives the next file the handle id of the last
 * The calls PnetCDF, MPI-IO and POSIX make beneath are the program's calls
 * at the lines marked SITE: below. */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NW 60
#define NI 16
#define NFILE 3
#define NWR 2
#define INDEP_NAME "ncindep.nc"
#define REUSE_NAME "ncreuse-%d.nc"

static void check(int err, const char *what)
{
    if (err != NC_NOERR) {
        fprintf(stderr, "%s: %s\n", what, ncmpi_strerror(err));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void shared_file(const char *name, int nw, int rank, int np)
{
    int ncid, dim, var;
    double buf[NI];
    check(ncmpi_create(MPI_COMM_WORLD, name, NC_CLOBBER, MPI_INFO_NULL, &ncid), "create"); /* SITE:create */
    check(ncmpi_def_dim(ncid, "x", (MPI_Offset)nw * np * NI, &dim), "def_dim");
    check(ncmpi_def_var(ncid, "v", NC_DOUBLE, 1, &dim, &var), "def_var");
    check(ncmpi_enddef(ncid), "enddef"); /* SITE:enddef */
    check(ncmpi_begin_indep_data(ncid), "begin_indep_data"); /* SITE:begin */
    for (int i = 0; i < nw; i++) {
        MPI_Offset start = ((MPI_Offset)i * np + rank) * NI, count = NI;
        for (int k = 0; k < NI; k++)
            buf[k] = i + rank + 0.01 * k;
        check(ncmpi_put_vara_double(ncid, var, &start, &count, buf), "put_vara_double"); /* SITE:write */
    }
    check(ncmpi_end_indep_data(ncid), "end_indep_data"); /* SITE:end */
    check(ncmpi_close(ncid), "close"); /* SITE:close */
}

/* The same main as tests/progs/iosites.c's (PnetCDF here, MPI-IO there), on
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
