/* test_job_piece: the piece size the ranks agree on at MPI_Finalize
 * (pmpi/job_piece.h), from the values each rank offers reduced by MPI_MAX
 * as the Allreduce does, and on a rank whose Allreduce failed (it keeps its
 * own offer). Run under UBSan: a negation that overflows fails the test. */
#include <limits.h>
#include <stddef.h>

#include "pmpi/job_piece.h"
#include "tests/unit/unit.h"

#define FALLBACK ((size_t)64 << 10)

static long long max_over_ranks(int nranks, size_t cap0)
{
    long long m = siot_piece_offer(0, cap0);
    for (int r = 1; r < nranks; r++)
        if (siot_piece_offer(r, 1) > m)
            m = siot_piece_offer(r, 1);
    return m;
}

int main(void)
{
    /* the Allreduce succeeded: every rank has rank 0's size */
    CHECK_EQ_I64(siot_piece_agreed(max_over_ranks(1, 65536), FALLBACK), 65536);
    CHECK_EQ_I64(siot_piece_agreed(max_over_ranks(8, (size_t)64 << 20), FALLBACK), (int64_t)64 << 20);
    CHECK_EQ_I64(siot_piece_agreed(max_over_ranks(3, 4096), FALLBACK), 4096);
    /* it failed: rank 0 keeps its own size; another rank, whose offer was
     * the least long long, takes the fallback (a size rank 0 always takes) */
    CHECK_EQ_I64(siot_piece_agreed(siot_piece_offer(0, 1 << 20), FALLBACK), 1 << 20);
    CHECK_EQ_I64(siot_piece_agreed(siot_piece_offer(5, 1 << 20), FALLBACK), FALLBACK);
    CHECK_EQ_I64(siot_piece_agreed(LLONG_MIN, FALLBACK), FALLBACK);
    /* no value a reduction of offers can give is taken for a size of 0 or beyond */
    CHECK_EQ_I64(siot_piece_agreed(0, FALLBACK), FALLBACK);
    CHECK_EQ_I64(siot_piece_agreed(7, FALLBACK), FALLBACK);
    return unit_done("test_job_piece");
}
