/* particles: an HDF5 particle kernel in the shape of VPIC-IO (h5bench's
 * write pattern), for bench/growth.sh: every step writes a group "Step#s"
 * of eight 1-D datasets (x, y, z, px, py, pz as floats, id1, id2 as ints)
 * of NPART particles per rank, each rank its own contiguous slice, with
 * collective H5Dwrite through the MPI-IO driver; HDF5 places each new
 * dataset's header and data further into the file, so the offsets of its
 * metadata writes differ from step to step and from rank count to rank
 * count, as in the public kernels it imitates.
 * usage: particles [steps=5] [npart=4096] (writes particles.h5) */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const names[8] = {"x", "y", "z", "px", "py", "pz", "id1", "id2"};

/* One step's group: its eight datasets, each rank's slice written collectively. */
static void write_step(hid_t file, int step, int rank, int np, hsize_t npart, float *f, int *id)
{
    char gname[32];
    snprintf(gname, sizeof gname, "Step#%d", step);
    hid_t g = H5Gcreate2(file, gname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t total = npart * (hsize_t)np, start = npart * (hsize_t)rank;
    hid_t space = H5Screate_simple(1, &total, NULL), mem = H5Screate_simple(1, &npart, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &npart, NULL);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    for (int v = 0; v < 8; v++) {
        int is_id = v >= 6;
        hid_t type = is_id ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT;
        hid_t d = H5Dcreate2(g, names[v], type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, type, mem, space, xfer, is_id ? (const void *)id : (const void *)f);
        H5Dclose(d);
    }
    H5Pclose(xfer);
    H5Sclose(mem);
    H5Sclose(space);
    H5Gclose(g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int steps = argc > 1 ? atoi(argv[1]) : 5;
    hsize_t npart = argc > 2 ? (hsize_t)atoll(argv[2]) : 4096;
    float *f = malloc(npart * sizeof *f);
    int *id = malloc(npart * sizeof *id);
    if (steps < 1 || npart < 1 || !f || !id) {
        fprintf(stderr, "usage: particles [steps>=1] [npart>=1]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (hsize_t i = 0; i < npart; i++) {
        f[i] = (float)(rank * npart + i) * 0.5f;
        id[i] = (int)(rank * npart + i);
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate("particles.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    for (int s = 0; s < steps; s++)
        write_step(file, s, rank, np, npart, f, id);
    H5Fclose(file);
    H5Pclose(fapl);
    free(f);
    free(id);
    MPI_Finalize();
    return 0;
}
