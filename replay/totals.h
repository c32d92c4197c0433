/* totals: does a replay match an approximate trace (SIOT_TOLERANCE) within
 * its tolerance? An approximate trace holds its folded loop counts as a
 * range and a mean, so the replay reissues the mean count where the run
 * made each instance's own: the two are not the same events, and what
 * `ioreplay --verify` compares instead is what they add up to. Per
 * function, the calls and bytes of the events the event comparison would
 * take (replay/compare.h: the replayed level, polls that found nothing and
 * calls not reissued left out); per file and layer, the bytes read and
 * written (replay/files.h, paths through the replay's root mapping). Each
 * pair must be within tol percent of the larger.
 *
 * Errors: -1 with a reason in err (out of memory, a value a damaged trace
 * cannot evaluate). */
#ifndef SIOT_TOTALS_H
#define SIOT_TOTALS_H

#include <stdio.h>

#include "replay/compare.h"

typedef struct siot_totals_result {
    uint64_t functions, files; /* totals compared */
    uint64_t differences;      /* of them, more than tol apart */
    double widest;             /* the largest gap found, in percent */
    char widest_what[96];      /* what it was: "MPI_Allreduce calls" */
} siot_totals_result;

/* Compares orig's totals with the replay's (rt), printing the first
 * max_shown totals that differ by more than tol percent. 0 all within, 1
 * not, -1 error. */
int siot_compare_totals(const siot_trace *orig, const siot_trace *rt, const siot_diff_filter *flt, double tol,
                        uint64_t max_shown, FILE *out, siot_totals_result *res, char *err, size_t errlen);

#endif
