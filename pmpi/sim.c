/* sim: a simulated rank (pmpi/sim.h). */
#include "pmpi/sim.h"

#include "src/config.h"

int siot_sim_active(void)
{
    int n = 0;
    return siot_cfg.sim_size && PMPI_Comm_size(MPI_COMM_WORLD, &n) == MPI_SUCCESS && n == 1;
}

int siot_sim_comm_rank(MPI_Comm comm, int *rank)
{
    int rc = PMPI_Comm_rank(comm, rank);
    if (rc == MPI_SUCCESS && comm == MPI_COMM_WORLD && siot_sim_active())
        *rank = siot_cfg.sim_rank;
    return rc;
}

int siot_sim_comm_size(MPI_Comm comm, int *size)
{
    int rc = PMPI_Comm_size(comm, size);
    if (rc == MPI_SUCCESS && comm == MPI_COMM_WORLD && siot_sim_active())
        *size = (int)siot_cfg.sim_size;
    return rc;
}
