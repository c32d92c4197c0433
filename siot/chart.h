/* chart: what the SVG charts of `siot report` share.
 *
 * One colour per concept over the whole page: each layer, read, write, I/O
 * time, MPI init/finalize and the neutral "other" (compute: no traced call).
 * Every coloured element carries the concept as class c-NAME beside its
 * fill, so that a reader of the page (or a test) can tell what a colour
 * means. Axes have ticks at 1-2-5 multiples written with their units
 * (linear), or at powers of ten (logarithmic). Nothing here can fail. */
#ifndef SIOT_CHART_H
#define SIOT_CHART_H

#include <stddef.h>
#include <stdio.h>

#include "core/roles.h"

enum {
    /* 0 .. SIOT_NLAYERS-1: the layers, in the order of core/roles.h */
    SIOT_C_READ = SIOT_NLAYERS,
    SIOT_C_WRITE,
    SIOT_C_IO,    /* time in I/O calls, whatever the layer */
    SIOT_C_INIT,  /* MPI_Init, MPI_Init_thread, MPI_Finalize */
    SIOT_C_OTHER, /* no traced call: compute, or what the tracer does not see */
    SIOT_NCONCEPTS
};

typedef struct siot_concept {
    const char *cls;  /* "c-posix" */
    const char *fill; /* "#4e79a7" */
    const char *name; /* "POSIX" */
} siot_concept;
extern const siot_concept siot_concepts[SIOT_NCONCEPTS];

/* <rect x y width height class fill> left open for a <title>; the caller closes it. */
void siot_chart_rect(FILE *o, int concept, double x, double y, double w, double h);
/* A legend of the concepts listed (a chart's own). */
void siot_chart_legend(FILE *o, int n, const int *concepts);

typedef enum { SIOT_AX_COUNT, SIOT_AX_BYTES, SIOT_AX_TIME } siot_axkind; /* time in ns */

typedef struct siot_axis {
    siot_axkind kind;
    int log;    /* 1: ticks at powers of ten (bytes: 1, 10, 100 of B, KiB, MiB...) from 1 */
    int nticks; /* ticks 0..nticks */
    double step, unit; /* linear: tick i is i * step * unit */
    const char *uname;
    double top; /* the value at the end of the axis */
} siot_axis;

/* An axis from 0 (linear) or 1 (log) to at least max. */
void siot_axis_linear(siot_axis *a, siot_axkind kind, double max);
void siot_axis_log(siot_axis *a, siot_axkind kind, double max);
double siot_axis_tick(const siot_axis *a, int i);
/* Where v is along the axis, 0 to 1 (log: values under 1 at 0). */
double siot_axis_pos(const siot_axis *a, double v);
/* Tick i written with its unit: "200 KiB", "100 ms", "10". */
const char *siot_axis_label(const siot_axis *a, int i, char *buf, size_t n);

#endif
