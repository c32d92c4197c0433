/* ranktimes: names of the per-rank quantities and the look-up of a row. */
#include "core/ranktimes.h"

#include <string.h>

static const char *const rt_names[SIOT_RT_N] = {
#define X(n) #n,
    SIOT_RT_LIST(X)
#undef X
};

const char *siot_rt_name(unsigned key) { return key < SIOT_RT_N ? rt_names[key] : "unknown"; }

int siot_rt_from_name(const char *s, uint64_t n)
{
    for (unsigned k = 0; k < SIOT_RT_N; k++)
        if (strlen(rt_names[k]) == n && memcmp(rt_names[k], s, n) == 0)
            return (int)k;
    return -1;
}

const siot_rtrow *siot_rt_find(const siot_rtrow *rows, uint32_t n, int32_t rank)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rows[mid].rank == rank)
            return &rows[mid];
        if (rows[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}
