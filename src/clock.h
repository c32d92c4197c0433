/* clock: the tracer's time in nanoseconds, read two or three times on every
 * traced call (its start, its end, the moment the tracer hands the thread
 * back).
 *
 * Where the kernel keeps its own time by the TSC (its clocksource is "tsc",
 * which Linux chooses only for a TSC that runs at a constant rate and in step
 * on every CPU), the tracer reads the TSC itself and scales it: about 9 ns a
 * read against 18-24 ns for clock_gettime's vDSO on the development machine,
 * which reads the same counter and converts it with the kernel's scale.
 * The scale is measured once at load time against CLOCK_MONOTONIC over
 * SIOT_CLOCK_CALIBRATION_NS. Its error is the relative error of every
 * recorded time: at most 1.25e-4 (src/clock.c), about 2e-5 as a rule. A
 * process that cannot measure it closely (too loaded at its start) uses
 * clock_gettime, as it does anywhere else and with SIOT_CLOCK=monotonic.
 * The trace's note "clock" says which was used (tsc, CLOCK_MONOTONIC).
 *
 * Locks: none. The scale is written once by siot_clock_init, before any
 * other thread of the program exists (the runtime's constructor), and only
 * read after. Signals: siot_now is async-signal-safe. */
#ifndef SIOT_CLOCK_H
#define SIOT_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define SIOT_HAVE_TSC 1
#else
#define SIOT_HAVE_TSC 0
#endif

#define SIOT_CLOCK_CALIBRATION_NS 2000000u

typedef struct siot_clock {
    int tsc;       /* 1: siot_now scales the TSC */
    uint64_t c0;   /* the TSC at the anchor */
    uint64_t t0;   /* CLOCK_MONOTONIC at the anchor, ns */
    uint64_t mult; /* ns per TSC tick, times 2^32 */
} siot_clock;
extern siot_clock siot_clk;

/* Always inlined: the generated wrapper units are large enough that the
 * compiler otherwise keeps one out-of-line copy per unit, outside the
 * tracer's section, and each reading pays a call. */
static inline __attribute__((always_inline)) uint64_t siot_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A raw reading (TSC ticks, or ns when the TSC is not used), for the
 * wrappers of leaf calls (runtime.h): nothing of the tracer's between the
 * call and its reading; siot_stamp_ns turns it into the tracer's ns later. */
static inline __attribute__((always_inline)) uint64_t siot_stamp(void)
{
#if SIOT_HAVE_TSC
    if (__builtin_expect(siot_clk.tsc, 1))
        return __rdtsc();
#endif
    return siot_monotonic_ns();
}

static inline __attribute__((always_inline)) uint64_t siot_stamp_ns(uint64_t s)
{
#if SIOT_HAVE_TSC
    if (__builtin_expect(siot_clk.tsc, 1)) {
        int64_t d = (int64_t)(s - siot_clk.c0);
        if (d < 0) /* a CPU a few ticks behind the one that anchored */
            d = 0;
        return siot_clk.t0 + (uint64_t)(((unsigned __int128)(uint64_t)d * siot_clk.mult) >> 32);
    }
#endif
    return s;
}

static inline __attribute__((always_inline)) uint64_t siot_now(void) { return siot_stamp_ns(siot_stamp()); }

/* Chooses the clock (SIOT_CLOCK, the kernel's clocksource) and measures the
 * TSC's scale: spins for SIOT_CLOCK_CALIBRATION_NS when the TSC is used. */
void siot_clock_init(void);
/* The clock in use, in the words of the trace's note "clock": "tsc" or
 * "CLOCK_MONOTONIC". */
const char *siot_clock_name(void);

#endif
