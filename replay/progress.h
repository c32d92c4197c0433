/* progress: a one-line progress display for long work (ioreplay, siot
 * export): events done of total, rate, time left. It writes to stderr only
 * when stderr is a terminal, so logs and pipes stay clean. The per-event
 * cost is one compare; the clock is read every 4096 events.
 *
 * Errors: none: nothing here fails, and errors writing to stderr are
 * ignored. */
#ifndef SIOT_PROGRESS_H
#define SIOT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct siot_progress {
    int on;
    const char *what;
    uint64_t total;
    uint64_t next_check;
    double t0, last;
    int shown;
} siot_progress;

/* A count for a person: 950, 12.3k, 4.56M, 1.20G. */
const char *siot_fmt_count(char *buf, size_t n, double v);

/* on: -1 decide by isatty(stderr), 0 never, 1 always, 2 always and the
 * final line even for work too short to show progress (asked for). */
void siot_progress_start(siot_progress *p, const char *what, uint64_t total, int on);
void siot_progress_show(siot_progress *p, uint64_t done);
/* The final line (when anything was shown), ended by a newline. */
void siot_progress_end(siot_progress *p, uint64_t done);

static inline void siot_progress_tick(siot_progress *p, uint64_t done)
{
    if (p->on && done >= p->next_check)
        siot_progress_show(p, done);
}

#endif
