/* report_io: the sections of `siot report` about files and program order
 * (internal to siot report): each file's time and bandwidth, the top files
 * by bytes and by time, the access pattern per file and the layers'
 * amplification (siot/access.h), and a heat map of I/O over time per rank
 * from the synthesised times. The heat map is fed by the access walk
 * (siot_report_heat_event as its on_event), so the trace is walked once.
 * Nothing here fails but memory: a heat map without it is left out. */
#ifndef SIOT_REPORT_IO_H
#define SIOT_REPORT_IO_H

#include <stdio.h>

#include "siot/access.h"
#include "replay/files.h"

/* report.c's helpers, shared with this file */
void siot_report_esc(FILE *o, const char *s);
const char *siot_report_bytes(char *b, size_t n, double v);
void siot_report_fig_open(FILE *o, int w, int h, const char *cls);
void siot_report_fig_close(FILE *o, int n, const int *concepts);

#define SIOT_HEAT_BINS 50 /* even: bins are merged in pairs when the span grows */
#define SIOT_HEAT_ROWS 64 /* more ranks are grouped */

typedef struct siot_heat {
    uint32_t nranks, rows, group; /* group: ranks per row */
    double w;                     /* bin width, ns */
    double end;                   /* the latest end seen */
    double *v;                    /* rows x SIOT_HEAT_BINS: ns in outermost I/O calls */
} siot_heat;

int siot_report_heat_init(siot_heat *h, const siot_trace *t);
void siot_report_heat_event(void *heat, const siot_synth_ev *ev, const siot_funcdesc *f);
void siot_report_heat_free(siot_heat *h);

/* Cells of the files table after its own: time in data calls, bandwidth. */
void siot_report_file_time_cells(FILE *o, const siot_filerow *f);
void siot_report_top_files(FILE *o, const siot_files *fs);
void siot_report_access(FILE *o, const siot_access *a);
void siot_report_amplification(FILE *o, const siot_access *a);
void siot_report_heat(FILE *o, const siot_heat *h, const siot_access *a);

#endif
