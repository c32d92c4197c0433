/* A `siot stats --plugin` analysis written against replay/analyze.h: the
 * bytes each rank wrote with MPI_File_write_at_all, computed from the
 * aggregate records (calls per rank x count argument x 1 byte of MPI_BYTE,
 * checked against the record's own byte count), printed per rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/analyze.h"

static unsigned long long *per_rank;
static unsigned nranks;
static int mismatch;

static void on_event(void *user, const siot_agg_event *e)
{
    (void)user;
    if (strcmp(e->fn->name, "MPI_File_write_at_all") != 0)
        return;
    if (!per_rank) {
        nranks = e->trace->nranks;
        per_rank = calloc(nranks, sizeof *per_rank);
    }
    siot_value count;
    siot_vbuf scratch = {0};
    int64_t n = -1;
    for (uint32_t k = 0; k < e->fn->nargs; k++)
        if (strcmp(e->fn->argnames[k], "count") == 0 && siot_agg_arg(e, k, &scratch, &count) == 0)
            n = count.i; /* siot_agg_arg is siot's own: the plug-in calls back into it */
    siot_vbuf_free(&scratch);
    if (n != e->bytes)
        mismatch = 1;
    for (uint32_t i = 0; i < e->nranks; i++)
        per_rank[e->ranks[i]] += e->calls * (unsigned long long)n;
}

static void finish(void *user)
{
    (void)user;
    for (unsigned r = 0; r < nranks; r++)
        printf("rank %u MPI_File_write_at_all bytes %llu\n", r, per_rank[r]);
    printf("consistent %s\n", mismatch ? "no" : "yes");
}

int siot_plugin(siot_handlers *h, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    h->event = on_event;
    h->finish = finish;
    return 0;
}
