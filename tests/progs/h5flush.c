/* h5flush: an HDF5 particle kernel for siot findings' hdf5-metadata-flush
 * rule and its remedies (tests/integ/56-findings-hdf5.sh, which reads the
 * constants). NSTEP steps; in each, every rank writes its NPART particles
 * (doubles) into a dataset of its own for the step, made with H5Dcreate2
 * and closed with H5Dclose (independent H5Dwrite, the MPI-IO driver). Modes:
 *   flush   H5Fflush after each step (the metadata written NSTEP times);
 *   once    no flush in the loop: the metadata cache writes at H5Fclose;
 *   collmd  flush as in flush, with collective metadata writes
 *           (H5Pset_coll_metadata_write, H5Pset_all_coll_metadata_ops);
 *   metablk flush as in flush, the metadata gathered in blocks of
 *           META_BLOCK bytes (H5Pset_meta_block_size);
 *   align   flush as in flush, objects of ALIGN_MIN bytes or more aligned
 *           to ALIGN bytes (H5Pset_alignment);
 *   collmb  collmd with metablk's blocks; collal: collmd with align's. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NSTEP 20
#define NPART 64
#define META_BLOCK 1048576
#define ALIGN_MIN 512
#define ALIGN 4096

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *mode = argc > 1 ? argv[1] : "flush";
    int flush = strcmp(mode, "once") != 0, coll = strncmp(mode, "coll", 4) == 0;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    if (strcmp(mode, "metablk") == 0 || strcmp(mode, "collmb") == 0)
        H5Pset_meta_block_size(fapl, META_BLOCK);
    if (strcmp(mode, "align") == 0 || strcmp(mode, "collal") == 0)
        H5Pset_alignment(fapl, ALIGN_MIN, ALIGN);
    if (coll) {
        H5Pset_coll_metadata_write(fapl, 1);
        H5Pset_all_coll_metadata_ops(fapl, 1);
    }
    hid_t file = H5Fcreate("h5flush.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t total = (hsize_t)np * NPART, count = NPART;
    hid_t space = H5Screate_simple(1, &total, NULL), mem = H5Screate_simple(1, &count, NULL);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_INDEPENDENT);
    double x[NPART];
    for (int step = 0; step < NSTEP; step++) {
        char name[32];
        snprintf(name, sizeof name, "x%d", step);
        hid_t dset = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        for (int i = 0; i < NPART; i++)
            x[i] = step + rank + 0.001 * i;
        hsize_t start = (hsize_t)rank * NPART;
        H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL);
        H5Dwrite(dset, H5T_NATIVE_DOUBLE, mem, space, xfer, x); /* SITE:write */
        H5Dclose(dset);
        if (flush)
            H5Fflush(file, H5F_SCOPE_LOCAL); /* SITE:flush */
    }
    H5Pclose(xfer);
    H5Sclose(mem);
    H5Sclose(space);
    H5Pclose(fapl);
    H5Fclose(file);
    MPI_Finalize();
    return 0;
}
