/* clock: see clock.h. */
#include "src/clock.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

siot_clock siot_clk;

/* The kernel's own choice: it keeps time by the TSC only when it found the
 * TSC constant-rate and synchronised across CPUs. Read with raw syscalls:
 * this runs in the constructor, where the program's wrapped open/read would
 * be the tracer's own. */
static int kernel_uses_tsc(void)
{
    char buf[32] = {0};
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
                          O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = syscall(SYS_read, fd, buf, sizeof buf - 1);
    syscall(SYS_close, fd);
    return n >= 3 && strncmp(buf, "tsc", 3) == 0 && (buf[3] == '\n' || buf[3] == 0);
}

#if SIOT_HAVE_TSC
/* A TSC reading and the monotonic time at that moment: the middle of two
 * clock reads around it, from the narrowest of a few tries. A try that the
 * scheduler interrupted (a process among many on few cores) would put the
 * middle milliseconds off: such tries are thrown away. 0 when none was
 * within PAIR_WIDTH_NS. */
#define PAIR_TRIES 64
#define PAIR_WIDTH_NS 250u
static int pair(uint64_t *c, uint64_t *t)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < PAIR_TRIES && best > PAIR_WIDTH_NS / 4; i++) {
        uint64_t a = siot_monotonic_ns(), x = __rdtsc(), b = siot_monotonic_ns();
        if (b >= a && b - a < best) {
            best = b - a;
            *c = x;
            *t = a + (b - a) / 2;
        }
    }
    return best <= PAIR_WIDTH_NS;
}

/* The scale from two pairs SIOT_CLOCK_CALIBRATION_NS apart: its error is
 * at most half the two pairs' widths over that span: 1.25e-4 at the
 * widest accepted, about 2e-5 at the usual 40 ns. */
static int calibrate(void)
{
    uint64_t c1, t1, c2, t2;
    if (!pair(&c1, &t1))
        return 0;
    do
        if (!pair(&c2, &t2))
            return 0;
    while (t2 - t1 < SIOT_CLOCK_CALIBRATION_NS);
    if (c2 <= c1)
        return 0;
    siot_clk.mult = (uint64_t)((((unsigned __int128)(t2 - t1)) << 32) / (c2 - c1));
    siot_clk.c0 = c2;
    siot_clk.t0 = t2;
    return siot_clk.mult != 0;
}
#endif

void siot_clock_init(void)
{
    const char *v = getenv("SIOT_CLOCK");
    int want_tsc = 1;
    if (v && *v) {
        if (strcmp(v, "monotonic") == 0)
            want_tsc = 0;
        else if (strcmp(v, "tsc") != 0)
            fprintf(stderr, "siotrace: SIOT_CLOCK=%s is neither 'tsc' nor 'monotonic'; the default kept\n", v);
    }
    siot_clk.tsc = 0;
#if SIOT_HAVE_TSC
    if (want_tsc && kernel_uses_tsc() && calibrate())
        siot_clk.tsc = 1;
#else
    (void)want_tsc;
    (void)kernel_uses_tsc;
#endif
}

const char *siot_clock_name(void) { return siot_clk.tsc ? "tsc" : "CLOCK_MONOTONIC"; }
