/* test_timefold: timing histograms kept within SIOT_TOLERANCE
 * (compress/timefold.h), against hand values and, on random histograms,
 * against what "within p percent" means: counts exact, at most p% of the
 * samples moved to another bin and only the least filled bins moved, the
 * extremes widened and the moments moved by at most p%, no maximum's rank. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "compress/timefold.h"
#include "core/hist.h"
#include "tests/unit/unit.h"

static uint32_t rng_state = 0x2545f491u;
static uint64_t rng(void) { return unit_rng(&rng_state); }

static void fill(siot_arena *a, siot_hist *h, const uint64_t *ns, unsigned n)
{
    memset(h, 0, sizeof *h);
    siot_hist_init1(h, ns[0], 3, 0);
    for (unsigned i = 1; i < n; i++)
        CHECK(siot_hist_add(a, h, ns[i], (int32_t)(i % 7), i));
}

/* 50 samples in bin 9 (512-1023 ns: 1000), 2 in bin 11 (2047), 48 in bin
 * 19 (600,000): at 5% the budget is 5 samples; bin 11's 2 move to bin 9,
 * the nearer kept bin; bin 19's 48 stay. The minimum 1000 truncated to 6
 * bits is 992, the maximum 600,000 rounded up is 37 x 2^14 = 606,208. */
static void test_hand(siot_arena *a)
{
    uint64_t ns[100];
    for (unsigned i = 0; i < 100; i++)
        ns[i] = i < 50 ? 1000 : i < 52 ? 2047 : 600000;
    siot_hist h;
    fill(a, &h, ns, 100);
    CHECK(h.bins[9] == 50 && h.bins[10] == 2 && h.bins[19] == 48);
    CHECK(siot_timefold_hist(&h, 5) == 1);
    CHECK_EQ_I64(h.count, 100);
    CHECK(h.bins[9] == 52 && h.bins[10] == 0 && h.bins[19] == 48);
    CHECK_EQ_I64(h.min, 992);
    CHECK_EQ_I64(h.max, 606208);
    CHECK(h.max_rank == -1 && h.max_occ == 0);
    /* a flat spread: 48 samples over 30 bins (1 << i % 30), 1 or 2 each;
     * 5% is 2.4 samples: two bins of one sample move, the others stay */
    uint64_t flat[48];
    for (unsigned i = 0; i < 48; i++)
        flat[i] = UINT64_C(1) << (i % 30);
    fill(a, &h, flat, 48);
    siot_timefold_hist(&h, 5);
    unsigned nonzero = 0;
    for (unsigned b = 0; b < SIOT_HBINS; b++)
        nonzero += h.bins[b] != 0;
    CHECK(nonzero == 28);
    /* one sample: rounded down within 5%, min = max = mean */
    siot_hist one;
    memset(&one, 0, sizeof one);
    siot_hist_init1(&one, 123457, 9, 4);
    CHECK(siot_timefold_hist(&one, 5) == 1);
    CHECK(one.min == one.max && one.min <= 123457 && one.min >= 123457 * 0.95 && one.mean == (double)one.min);
    CHECK(one.max_rank == -1);
    /* no tolerance: nothing changes */
    fill(a, &h, ns, 100);
    siot_hist before = h;
    CHECK(siot_timefold_hist(&h, 0) == 0 && siot_timefold_hist(&h, 101) == 0);
    CHECK(h.min == before.min && h.max == before.max && h.max_rank == before.max_rank && h.bins[10] == 2);
}

static int within(double got, double want, double pct) { return fabs(got - want) <= pct / 100 * fabs(want) + 1e-9; }

/* One random histogram of n samples spread over `spread` bins from 2^lo. */
static void check_random(siot_arena *a, double pct)
{
    unsigned n = 1 + (unsigned)(rng() % 600), lo = (unsigned)(rng() % 20), spread = 1 + (unsigned)(rng() % 16);
    uint64_t ns[600];
    for (unsigned i = 0; i < n; i++) {
        unsigned b = lo + (unsigned)(rng() % spread) * (unsigned)(rng() % 3 == 0 ? 1 : rng() % 2);
        ns[i] = (UINT64_C(1) << b) + rng() % (UINT64_C(1) << b);
    }
    siot_hist h;
    fill(a, &h, ns, n);
    uint32_t before[SIOT_HBINS] = {0};
    if (h.bins)
        memcpy(before, h.bins, sizeof before);
    uint64_t min = h.min, max = h.max;
    double mean = h.mean, sd = siot_hist_stddev(&h);
    siot_timefold_hist(&h, pct);
    CHECK_EQ_I64(h.count, n);
    CHECK(h.max_rank == -1 && h.max_occ == 0);
    CHECK(h.min <= min && (double)h.min >= (double)min * (1 - pct / 100));
    if (n == 1) { /* one sample: one value, min = max = mean */
        CHECK(h.max == h.min && h.mean == (double)h.min);
        return;
    }
    CHECK(h.max >= max && (double)h.max <= (double)max * (1 + pct / 100));
    CHECK(h.min <= h.max && h.mean >= (double)h.min && h.mean <= (double)h.max);
    if (!h.bins)
        return;
    CHECK(within(h.mean, mean, pct) || h.mean == (double)h.min || h.mean == (double)h.max);
    CHECK(within(siot_hist_stddev(&h), sd, pct));
    uint64_t sum = 0, moved = 0, least_kept = UINT64_MAX, most_moved = 0;
    for (unsigned b = 0; b < SIOT_HBINS; b++) {
        sum += h.bins[b];
        CHECK(h.bins[b] == 0 || h.bins[b] >= before[b]); /* a bin keeps its samples or gives them all */
        if (before[b] && !h.bins[b]) {
            moved += before[b];
            most_moved = before[b] > most_moved ? before[b] : most_moved;
        } else if (before[b] && before[b] < least_kept) {
            least_kept = before[b];
        }
    }
    CHECK_EQ_I64(sum, n);
    CHECK((double)moved <= pct / 100 * (double)n);
    CHECK(least_kept != UINT64_MAX && most_moved <= least_kept); /* the least filled first */
}

int main(void)
{
    siot_arena a;
    siot_arena_init(&a);
    test_hand(&a);
    static const double PCT[] = {1, 5, 10, 30, 100};
    for (unsigned i = 0; i < 5000; i++)
        check_random(&a, PCT[i % 5]);
    siot_arena_free(&a);
    return unit_done("test_timefold");
}
