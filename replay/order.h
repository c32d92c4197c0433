/* order: the cross-rank order that a collective MPI-IO call gave the POSIX
 * calls it issued, kept by a replay at the POSIX level, where the
 * collective itself is not reissued. In the run the library ordered them
 * with messages the trace does not hold, and the replay keeps that order
 * with barriers on the collective's communicator (all of whose ranks
 * recorded the call; PMPI, so a traced replay does not record them):
 *  - a collective open that creates the file (MPI_MODE_CREATE): ROMIO
 *    creates it on one rank while the others wait, so every rank's calls
 *    that found no file come before the creating open(O_CREAT), and every
 *    call that found it on the path opened come after (two barriers, which
 *    the creating rank enters around its O_CREAT open and the others before
 *    their first call on the path that succeeded, or at the end);
 *  - a collective close inside which every rank removes one file (ROMIO's
 *    shared file pointer's, OMPIO's MPI_MODE_DELETE_ON_CLOSE): the rank
 *    whose removal succeeded removes first, the others' find nothing (one
 *    barrier, after the winner's unlink, before the others', at the close's
 *    end on a rank that removes nothing);
 *  - every collective: no rank goes on before all ranks' calls inside it
 *    are done (a barrier at its end: the libraries end a collective call
 *    with a reduction of the outcome).
 * Only the outermost collective MPI-IO call of a chain is ordered.
 * One rp_order per rank, one thread.
 *
 * Errors: nothing is returned. A collective whose communicator the replay
 * does not hold, or whose file's communicator could not be remembered (no
 * memory, a file id over 2^20), is left unordered; the barriers' results
 * are not checked. */
#ifndef SIOT_ORDER_H
#define SIOT_ORDER_H

#include <mpi.h>
#include <stdint.h>

#include "replay/plan.h"
#include "replay/rp.h"

typedef struct rp_order {
    int active;         /* inside a collective's calls */
    int64_t seq;        /* the collective's event number */
    int creating;       /* an open with MPI_MODE_CREATE, its ranks not yet past the creation */
    int after_create;   /* the step being replayed is this rank's O_CREAT open */
    int removing;       /* a close, this rank's removal barrier not yet passed */
    int after_remove;   /* the step being replayed is this rank's removal that succeeded */
    char path[4096];    /* the file the collective opens (the trace's string) */
    size_t pathlen;
    MPI_Comm comm;
    int64_t *file_comm; /* MPI file id -> communicator id, from MPI_File_open */
    uint32_t nfiles;
} rp_order;

void rp_order_init(rp_order *o);
/* Before each step of a POSIX-level replay: ends the collective whose
 * calls are over, starts the one this step is, or waits for the creation. */
void rp_order_step(rp_order *o, const rp_plan *plan, const rp_step *st, rp_state *c);
/* After each step. */
void rp_order_after(rp_order *o);
/* After the rank's last step. */
void rp_order_end(rp_order *o);
void rp_order_free(rp_order *o);

#endif
