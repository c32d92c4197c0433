#include "siot/chart.h"

#include <math.h>

/* Layers: six hues; read and write: two others; I/O time a seventh; MPI
 * init/finalize a dark grey; "other" (compute) a light neutral grey. */
const siot_concept siot_concepts[SIOT_NCONCEPTS] = {
    [SIOT_LAYER_posix] = {"c-posix", "#4e79a7", "POSIX"},
    [SIOT_LAYER_stdio] = {"c-stdio", "#76b7b2", "stdio"},
    [SIOT_LAYER_mpi] = {"c-mpi", "#b07aa1", "MPI"},
    [SIOT_LAYER_mpiio] = {"c-mpiio", "#f28e2b", "MPI-IO"},
    [SIOT_LAYER_hdf5] = {"c-hdf5", "#59a14f", "HDF5"},
    [SIOT_LAYER_pnetcdf] = {"c-pnetcdf", "#edc948", "PnetCDF"},
    [SIOT_C_READ] = {"c-read", "#9c755f", "read"},
    [SIOT_C_WRITE] = {"c-write", "#e15759", "written"},
    [SIOT_C_IO] = {"c-io", "#d37295", "I/O"},
    [SIOT_C_INIT] = {"c-init", "#6b6b6b", "MPI init/finalize"},
    [SIOT_C_OTHER] = {"c-other", "#dcdcdc", "other (compute)"},
};

void siot_chart_rect(FILE *o, int c, double x, double y, double w, double h)
{
    fprintf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" class=\"%s\" fill=\"%s\">", x, y, w, h,
            siot_concepts[c].cls, siot_concepts[c].fill);
}

void siot_chart_legend(FILE *o, int n, const int *c)
{
    fprintf(o, "<div class=\"legend\">");
    for (int i = 0; i < n; i++)
        fprintf(o, "<span><i class=\"%s\" style=\"background:%s\"></i>%s</span>", siot_concepts[c[i]].cls,
                siot_concepts[c[i]].fill, siot_concepts[c[i]].name);
    fprintf(o, "</div>\n");
}

/* ------------------------------------------------------------ axes */

static const char *const BYTE_UNITS[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
static const char *const TIME_UNITS[] = {"ns", "us", "ms", "s"};

/* The unit a value is written in: the largest whose count is at least 1. */
static double pick_unit(siot_axkind kind, double v, const char **name)
{
    double u = 1;
    *name = "";
    if (kind == SIOT_AX_BYTES) {
        int i = 0;
        while (v >= u * 1024 && i < 6) {
            u *= 1024;
            i++;
        }
        *name = BYTE_UNITS[i];
    } else if (kind == SIOT_AX_TIME) {
        int i = 0;
        while (v >= u * 1000 && i < 3) {
            u *= 1000;
            i++;
        }
        *name = TIME_UNITS[i];
    }
    return u;
}

/* The smallest of 1, 2, 5 times a power of ten that is at least v. */
static double nice_up(double v)
{
    if (!(v > 0))
        return 1;
    double p = pow(10, floor(log10(v)));
    for (int i = 0; i < 4; i++) {
        double m = (double[]){1, 2, 5, 10}[i] * p;
        if (m >= v * (1 - 1e-9))
            return m;
    }
    return 10 * p;
}

void siot_axis_linear(siot_axis *a, siot_axkind kind, double max)
{
    a->kind = kind;
    a->log = 0;
    a->unit = pick_unit(kind, max, &a->uname);
    double m = max / a->unit;
    a->step = nice_up(m / 8);
    if (a->step < 1 && a->unit == 1)
        a->step = 1; /* no fraction of a call, a byte or a nanosecond */
    a->nticks = (int)ceil(m / a->step - 1e-9);
    if (a->nticks < 1)
        a->nticks = 1;
    a->top = a->nticks * a->step * a->unit;
}

/* Log ticks: 10^i, except bytes: 1, 10, 100 of each binary unit. */
static double log_tick(siot_axkind kind, int i)
{
    if (kind == SIOT_AX_BYTES)
        return pow(1024, i / 3) * pow(10, i % 3);
    return pow(10, i);
}

void siot_axis_log(siot_axis *a, siot_axkind kind, double max)
{
    a->kind = kind;
    a->log = 1;
    a->step = a->unit = 1;
    a->uname = "";
    a->nticks = 2; /* two decades at least: one alone (1, 10) looks like a linear axis */
    while (log_tick(kind, a->nticks) < max && a->nticks < 60)
        a->nticks++;
    a->top = log_tick(kind, a->nticks);
}

double siot_axis_tick(const siot_axis *a, int i)
{
    return a->log ? log_tick(a->kind, i) : i * a->step * a->unit;
}

double siot_axis_pos(const siot_axis *a, double v)
{
    if (a->log)
        return v <= 1 ? 0 : log(v) / log(a->top);
    return a->top > 0 ? v / a->top : 0;
}

const char *siot_axis_label(const siot_axis *a, int i, char *b, size_t n)
{
    double v = siot_axis_tick(a, i), u = a->unit;
    const char *name = a->uname;
    if (a->log)
        u = pick_unit(a->kind, v, &name);
    if (a->kind == SIOT_AX_COUNT)
        snprintf(b, n, "%.6g", v);
    else
        snprintf(b, n, "%.6g %s", v / u, name);
    return b;
}
