/* Groups MPI hands out again while they live (test 36-group-references):
 * MPI_Comm_group of one communicator twice gives the same handle on MPICH
 * and Open MPI, MPI_File_get_group of one file twice too, and on Open MPI
 * the file's group is the world's. Each result is a reference the program
 * frees once; the program is correct and every call returns MPI_SUCCESS.
 *   comm:  MPI_Comm_group(MPI_COMM_WORLD) twice, both freed (MPICH's
 *          miscfilef reduced).
 *   file:  MPI_File_get_group twice on an opened file; the first freed
 *          first, then MPI_COMM_SELF's group made (the file's group is still
 *          live: its id must not be given to another group) and a subgroup
 *          of the second reference; the second freed, then the others.
 *   mixed: MPI_File_get_group then MPI_Comm_group(MPI_COMM_WORLD) (one
 *          handle on Open MPI, two on MPICH), freed in the order made.
 * No argument: all three in that order, then MPI_Comm_group once more,
 * which gets the lowest group id again (every reference was freed). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "tests/progs/mpi_check.h"

static void comm_twice(void)
{
    MPI_Group g1, g2;
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &g1));
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &g2));
    CHECK(MPI_Group_free(&g1));
    CHECK(MPI_Group_free(&g2));
}

static void file_twice(MPI_File fh)
{
    MPI_Group f1, f2, self, sub;
    int first = 0;
    CHECK(MPI_File_get_group(fh, &f1));
    CHECK(MPI_File_get_group(fh, &f2));
    CHECK(MPI_Group_free(&f1));
    CHECK(MPI_Comm_group(MPI_COMM_SELF, &self));
    CHECK(MPI_Group_incl(f2, 1, &first, &sub));
    CHECK(MPI_Group_free(&f2));
    CHECK(MPI_Group_free(&self));
    CHECK(MPI_Group_free(&sub));
}

static void mixed(MPI_File fh)
{
    MPI_Group f, w;
    CHECK(MPI_File_get_group(fh, &f));
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    CHECK(MPI_Group_free(&f));
    CHECK(MPI_Group_free(&w));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "all";
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, "groupref.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    if (!strcmp(mode, "comm") || !strcmp(mode, "all"))
        comm_twice();
    if (!strcmp(mode, "file") || !strcmp(mode, "all"))
        file_twice(fh);
    if (!strcmp(mode, "mixed") || !strcmp(mode, "all"))
        mixed(fh);
    if (!strcmp(mode, "all")) {
        MPI_Group g;
        CHECK(MPI_Comm_group(MPI_COMM_WORLD, &g));
        CHECK(MPI_Group_free(&g));
    }
    CHECK(MPI_File_close(&fh));
    MPI_Finalize();
    return 0;
}
