/* CHECK(call): a test program's MPI call that must succeed; any other
 * return ends the job with the call, its code and its place, so that a
 * test fails on the program's error and not on a trace it left short. */
#ifndef TESTS_PROGS_MPI_CHECK_H
#define TESTS_PROGS_MPI_CHECK_H
#include <mpi.h>
#include <stdio.h>

#define CHECK(call)                                                                               \
    do {                                                                                          \
        int rc_ = (call);                                                                         \
        if (rc_ != MPI_SUCCESS) {                                                                 \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, rc_);           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                         \
        }                                                                                         \
    } while (0)

#endif
