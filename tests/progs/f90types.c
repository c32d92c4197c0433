/* Fortran 90 parameterized datatypes made from C (MPICH's
 * datatype/createf90types): MPI_Type_create_f90_real, _complex and
 * _integer, the real one twice with the same precision (MPI may hand back
 * the same handle), each decoded with MPI_Type_get_envelope and used in a
 * ring exchange with MPI_Sendrecv. The sizes follow Fortran's kinds: a
 * real of at least REAL_P digits and exponent range REAL_R is 4 bytes, a
 * complex of CPLX_P digits and range CPLX_R two 8-byte reals, an integer of
 * INT_R digits 2 bytes. */
#include "tests/progs/mpi_check.h"
#include <string.h>

#define REAL_P 3
#define REAL_R 10
#define REAL_BYTES 4
#define CPLX_P 7
#define CPLX_R 30
#define CPLX_BYTES 16
#define INT_R 4
#define INT_BYTES 2
#define TAG 3

static int errs;

/* Sends BYTES bytes of pattern to the next rank as one element of t,
 * receives the previous rank's, checks size, combiner and contents. */
static void use(MPI_Datatype t, int bytes, int combiner, int rank, int size, const char *what)
{
    int got = 0, ni, na, nd, comb;
    unsigned char out[16], in[16];
    CHECK(MPI_Type_size(t, &got));
    CHECK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    for (int i = 0; i < bytes; i++)
        out[i] = (unsigned char)(rank * 16 + i), in[i] = 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    CHECK(MPI_Sendrecv(out, 1, t, next, TAG, in, 1, t, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < bytes; i++)
        out[i] = (unsigned char)(prev * 16 + i);
    if (got != bytes || comb != combiner || memcmp(in, out, (size_t)bytes) != 0) {
        fprintf(stderr, "rank %d %s: size %d (want %d), combiner %d (want %d), %s data\n", rank, what, got, bytes, comb,
                combiner, memcmp(in, out, (size_t)bytes) ? "wrong" : "right");
        errs++;
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Datatype r1, r2, c, i;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(MPI_Type_create_f90_real(REAL_P, REAL_R, &r1));
    CHECK(MPI_Type_create_f90_real(REAL_P, REAL_R, &r2));
    CHECK(MPI_Type_create_f90_complex(CPLX_P, CPLX_R, &c));
    CHECK(MPI_Type_create_f90_integer(INT_R, &i));
    use(r1, REAL_BYTES, MPI_COMBINER_F90_REAL, rank, size, "real");
    use(r2, REAL_BYTES, MPI_COMBINER_F90_REAL, rank, size, "real again");
    use(c, CPLX_BYTES, MPI_COMBINER_F90_COMPLEX, rank, size, "complex");
    use(i, INT_BYTES, MPI_COMBINER_F90_INTEGER, rank, size, "integer");
    /* the types are predefined ones: the program does not free them */
    MPI_Finalize();
    return errs ? 1 : 0;
}
