/* h5indep: ranks writing one shared contiguous HDF5 dataset independently
 * (the MPI-IO driver, H5FD_MPIO_INDEPENDENT), as h5bench with
 * COLLECTIVE_DATA=NO does: NW rounds in which each rank writes its block of
 * NI ints at (round*P + rank)*NI, then reads its first block back. HDF5's
 * sieve buffer reads ahead of each small write, past what other ranks have
 * written yet: how much those reads return depends on the order of the
 * ranks' writes. See 87-hdf5-more.sh. Exit 3 when a value read back is not
 * the one written. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>

#define NW 8
#define NI 100

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argc > 1 ? argv[1] : "indep.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t total = (hsize_t)NW * np * NI, count = NI;
    hid_t space = H5Screate_simple(1, &total, NULL), mem = H5Screate_simple(1, &count, NULL);
    hid_t dset = H5Dcreate2(file, "v", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_INDEPENDENT);
    int v[NI], back[NI];
    for (int w = 0; w < NW; w++) {
        hsize_t start = ((hsize_t)w * np + rank) * NI;
        for (int i = 0; i < NI; i++)
            v[i] = (int)start + i;
        H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL);
        if (H5Dwrite(dset, H5T_NATIVE_INT, mem, space, xfer, v) < 0)
            bad = 1;
    }
    hsize_t first = (hsize_t)rank * NI;
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &first, NULL, &count, NULL);
    if (H5Dread(dset, H5T_NATIVE_INT, mem, space, xfer, back) < 0 || back[NI - 1] != (int)first + NI - 1)
        bad = 1;
    H5Pclose(xfer), H5Dclose(dset), H5Sclose(mem), H5Sclose(space), H5Fclose(file), H5Pclose(fapl);
    MPI_Finalize();
    return bad ? 3 : 0;
}
