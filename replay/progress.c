#include "replay/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void siot_progress_start(siot_progress *p, const char *what, uint64_t total, int on)
{
    p->on = on < 0 ? isatty(STDERR_FILENO) : on;
    p->what = what;
    p->total = total;
    p->next_check = 4096;
    p->t0 = p->last = now_s();
    p->shown = 0;
}

const char *siot_fmt_count(char *buf, size_t n, double v)
{
    if (v >= 1e9)
        snprintf(buf, n, "%.2fG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, n, "%.2fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(buf, n, "%.1fk", v / 1e3);
    else
        snprintf(buf, n, "%.0f", v);
    return buf;
}

static void line(siot_progress *p, uint64_t done, double now, int final)
{
    double el = now - p->t0, rate = el > 0 ? (double)done / el : 0;
    char d[32], tot[32], r[32], left[48] = "";
    siot_fmt_count(d, sizeof d, (double)done);
    siot_fmt_count(tot, sizeof tot, (double)p->total);
    siot_fmt_count(r, sizeof r, rate);
    if (final)
        snprintf(left, sizeof left, ", %.1f s", el);
    else if (rate > 0 && p->total > done) {
        double s = (double)(p->total - done) / rate;
        snprintf(left, sizeof left, ", %d:%02d left", (int)(s / 60), (int)s % 60);
    }
    double pct = p->total ? 100.0 * (double)done / (double)p->total : 100.0;
    fprintf(stderr, "\r%s: %s of %s events (%.0f%%), %s/s%s\033[K", p->what, d, tot, pct > 100 ? 100 : pct, r, left);
    fflush(stderr);
    p->shown = 1;
}

void siot_progress_show(siot_progress *p, uint64_t done)
{
    p->next_check = done + 4096;
    double now = now_s();
    /* nothing in the first half second: short work shows nothing */
    if (now - p->last < 0.25 || now - p->t0 < 0.5)
        return;
    p->last = now;
    line(p, done, now, 0);
}

void siot_progress_end(siot_progress *p, uint64_t done)
{
    if (p->shown || p->on == 2) {
        line(p, done, now_s(), 1);
        fputc('\n', stderr);
    }
}
