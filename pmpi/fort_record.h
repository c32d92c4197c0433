/* fort_record: conversions the generated Fortran wrappers (Open MPI) use to
 * record what a Fortran caller passed: blank-padded strings, and arrays of
 * Fortran handles.
 *
 * Errors: the conversions return NULL for a NULL Fortran array, a count out
 * of range (n <= 0, over 2^24, or for indices over cap) or when malloc fails:
 * that argument then goes unrecorded. siot_fstr returns NULL for a NULL
 * string or cap 0, and cuts a string longer than cap - 1. */
#ifndef SIOT_FORT_RECORD_H
#define SIOT_FORT_RECORD_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Room for a Fortran status (MPI_STATUS_SIZE is 6 in Open MPI 4). */
#define SIOT_F_STATUS_SIZE 16
/* The integers of one Fortran status in an array of them: Open MPI's
 * MPI_STATUS_SIZE is its C status's size in integers (mpif-config.h: 6). */
#define SIOT_F_STATUS_INTS ((int64_t)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "the wrappers read Fortran integer arrays as int arrays");

/* A Fortran string (len bytes, blank padded) as a C string in buf. */
const char *siot_fstr(const char *s, size_t len, char *buf, size_t cap);
/* Fortran request / datatype handles as C handles: into stack (cap entries)
 * when they fit, else into malloc'ed memory (the caller frees what is not
 * stack); NULL when n is out of range. */
MPI_Request *siot_f2c_reqs(const void *f, int64_t n, MPI_Request *stack, int cap);
MPI_Datatype *siot_f2c_dtypes(const void *f, int64_t n, MPI_Datatype *stack, int cap);
/* Fortran address-sized integers (width bytes each: INTEGER in the removed
 * MPI-1 calls, INTEGER(KIND=MPI_ADDRESS_KIND) elsewhere) as MPI_Aint, into
 * stack or malloc'ed memory as above. */
MPI_Aint *siot_f2c_aints(const void *f, size_t width, int64_t n, MPI_Aint *stack, int cap);
/* An empty Fortran status (see siot_mpi_status_empty). */
void siot_fstatus_empty(MPI_Fint *f);
/* The n Fortran statuses fs (MPI_F_STATUS_SIZE integers each) in C, into
 * c (SIOT_MPI_STATUSES of them): c, or NULL when !ok, fs is
 * MPI_F_STATUSES_IGNORE or n is out of 0..SIOT_MPI_STATUSES. */
MPI_Status *siot_fstatuses(const void *fs, int64_t n, MPI_Status *c, int ok);
/* Re-reads the request array after the call completed some of them. */
void siot_f2c_reqs_again(const void *f, int64_t n, MPI_Request *c);
/* Fortran indices (from 1) as C indices (from 0), up to cap of them. */
int *siot_f2c_indices(const void *f, int64_t n, int *stack, int cap);

#endif
