/* h5sites: an HDF5 particle kernel for the site rule of siot findings
 * (tests/integ/69-findings-sites.sh): NSTEP steps, in each of which every
 * rank writes its NPART particles (doubles) into one shared dataset with an
 * independent H5Dwrite (the MPI-IO driver), and flushes the file (HDF5's
 * metadata). The calls HDF5, MPI-IO and POSIX make beneath are the
 * program's calls at the lines marked SITE: below. */
#include <hdf5.h>
#include <mpi.h>

#define NSTEP 60
#define NPART 16

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv); /* SITE:init */
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate("particles.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl); /* SITE:create */
    hsize_t total = (hsize_t)NSTEP * np * NPART, count = NPART;
    hid_t space = H5Screate_simple(1, &total, NULL), mem = H5Screate_simple(1, &count, NULL);
    hid_t dset = H5Dcreate2(file, "x", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT); /* SITE:dcreate */
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_INDEPENDENT);
    double x[NPART];
    for (int step = 0; step < NSTEP; step++) {
        for (int i = 0; i < NPART; i++)
            x[i] = step + rank + 0.001 * i;
        hsize_t start = ((hsize_t)step * np + rank) * NPART;
        H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL);
        H5Dwrite(dset, H5T_NATIVE_DOUBLE, mem, space, xfer, x); /* SITE:write */
        H5Fflush(file, H5F_SCOPE_LOCAL); /* SITE:flush */
    }
    H5Pclose(xfer);
    H5Dclose(dset); /* SITE:dclose */
    H5Sclose(mem);
    H5Sclose(space);
    H5Pclose(fapl);
    H5Fclose(file); /* SITE:close */
    MPI_Finalize(); /* SITE:fini */
    return 0;
}
