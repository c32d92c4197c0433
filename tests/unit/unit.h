/* unit: a minimal test harness. CHECK records a failure and goes on;
 * unit_done() prints the tally and gives the exit status. */
#ifndef SIOT_UNIT_H
#define SIOT_UNIT_H

#include <inttypes.h>
#include <stdio.h>

static int unit_failures, unit_checks;

#define CHECK(cond)                                                              \
    do {                                                                         \
        unit_checks++;                                                           \
        if (!(cond)) {                                                           \
            unit_failures++;                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                                            \
    do {                                                                                              \
        int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                                 \
        unit_checks++;                                                                                \
        if (a_ != b_) {                                                                               \
            unit_failures++;                                                                          \
            fprintf(stderr, "%s:%d: %s == %" PRId64 ", expected %" PRId64 "\n", __FILE__, __LINE__, #a, a_, b_); \
        }                                                                                             \
    } while (0)

/* xorshift32: a repeatable sequence from *state (non-zero) */
static inline uint32_t unit_rng(uint32_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

static inline int unit_done(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
    return unit_failures ? 1 : 0;
}

#endif
