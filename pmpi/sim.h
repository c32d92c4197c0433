/* sim: a simulated rank. With SIOT_SIM_RANK=r and SIOT_SIM_SIZE=P, a program
 * run as a single MPI process is told that it is rank r of P on
 * MPI_COMM_WORLD, and the tracer records it as that rank: its trace (and the
 * one SIOT_RANK_TRACES writes) is rank r's of a job of P ranks. For programs
 * whose I/O depends only on the rank and the size and that exchange nothing
 * with their peers: bench/simmerge.sh merges such traces at rank counts no
 * machine here can run (docs/scale.md).
 *
 * The program's MPI_Comm_rank and MPI_Comm_size on MPI_COMM_WORLD go through
 * these (spec/mpi.spec, real=); every other communicator is MPI's. Not
 * simulated: the Fortran bindings of Open MPI (their wrappers call Open MPI's
 * own), and any collective's real partners (there are none: MPI's world is
 * this process). Without the variables, or when MPI's world has more than
 * one process, both are MPI's own calls. No locks, no failures of their
 * own: MPI's error codes are returned. */
#ifndef SIOT_SIM_H
#define SIOT_SIM_H

#include <mpi.h>

/* 1 when this process plays a simulated rank (variables set, MPI's world a
 * single process). */
int siot_sim_active(void);
int siot_sim_comm_rank(MPI_Comm comm, int *rank);
int siot_sim_comm_size(MPI_Comm comm, int *size);

#endif
