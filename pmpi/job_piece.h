/* job_piece: the piece size the ranks agree on at MPI_Finalize (job_trace.c,
 * step 2). Rank 0 offers the negated size of the buffer it receives pieces
 * in, every other rank the least long long, and one MPI_MAX Allreduce gives
 * every rank rank 0's offer; a rank whose Allreduce failed keeps its own
 * value. No MPI here, so that unit test_job_piece checks it. */
#ifndef SIOT_JOB_PIECE_H
#define SIOT_JOB_PIECE_H

#include <limits.h>
#include <stddef.h>

static inline long long siot_piece_offer(int rank, size_t cap) { return rank == 0 ? -(long long)cap : LLONG_MIN; }

/* The agreed size from the reduction's result; fallback when it holds no
 * offer of rank 0's (the least long long, whose negation is undefined: a
 * rank other than 0 whose Allreduce failed). */
static inline size_t siot_piece_agreed(long long max, size_t fallback)
{
    return max < 0 && max != LLONG_MIN ? (size_t)-max : fallback;
}

#endif
