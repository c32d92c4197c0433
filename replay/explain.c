#include "replay/explain.h"

#include <inttypes.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static const char *DIFFERS = "returned another result than the recorded one";

void rp_log_init(rp_log *l, int rank, int explain)
{
    memset(l, 0, sizeof *l);
    l->rank = rank;
    l->explain = explain;
    siot_vbuf_init(&l->lines);
    siot_vbuf_init(&l->left_out);
}

void rp_log_free(rp_log *l)
{
    for (int i = 0; i < l->nwhy; i++)
        free((char *)l->why[i]);
    l->nwhy = 0;
    siot_vbuf_free(&l->lines);
    siot_vbuf_free(&l->left_out);
}

/* Reasons are keyed by function and reason text ("MPI_File_write_all: an
 * MPI datatype whose creation is not in the trace"). */
static void count_reason(rp_log *l, const char *func, const char *why)
{
    char key[512];
    snprintf(key, sizeof key, "%s: %s", func, why);
    for (int i = 0; i < l->nwhy; i++)
        if (strcmp(l->why[i], key) == 0) {
            l->count[i]++;
            return;
        }
    char *k = l->nwhy < RP_LOG_REASONS ? strdup(key) : NULL;
    if (!k) {
        l->other++;
        return;
    }
    l->why[l->nwhy] = k;
    l->count[l->nwhy++] = 1;
}

static void add_line(rp_log *l, const char *fmt_line)
{
    size_t n = strlen(fmt_line);
    if (!l->explain)
        return;
    if (l->lines.len + n > RP_LOG_LINES) {
        l->lines_dropped++;
        return;
    }
    siot_vbuf_put(&l->lines, fmt_line, n);
}

void rp_log_skip(rp_log *l, int64_t seq, const char *func, const char *why)
{
    l->skipped++;
    siot_vbuf_put(&l->left_out, &seq, sizeof seq);
    count_reason(l, func, why ? why : "no reason given");
    char line[768];
    snprintf(line, sizeof line, "  rank %d event %" PRId64 " %s: not reissued: %s\n", l->rank, seq, func,
             why ? why : "no reason given");
    add_line(l, line);
}

void rp_log_differs(rp_log *l, int64_t seq, const char *func, int64_t recorded, int64_t got)
{
    l->differed++;
    count_reason(l, func, DIFFERS);
    char line[512];
    snprintf(line, sizeof line, "  rank %d event %" PRId64 " %s: returned %" PRId64 ", recorded %" PRId64 "\n", l->rank,
             seq, func, got, recorded);
    add_line(l, line);
}

/* Every rank's text at rank 0, one after the other (NULL elsewhere). */
static char *gather_text(const char *mine, size_t n, int size, int rank)
{
    int len = (int)n, *lens = rank == 0 ? calloc((size_t)size, sizeof *lens) : NULL;
    int *offs = rank == 0 ? calloc((size_t)size, sizeof *offs) : NULL;
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t total = 0;
    for (int r = 0; rank == 0 && lens && offs && r < size; r++) {
        offs[r] = (int)total;
        total += (size_t)lens[r];
    }
    char *all = rank == 0 ? malloc(total + 1) : NULL;
    PMPI_Gatherv(mine, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (all)
        all[total] = 0;
    free(lens);
    free(offs);
    return all;
}

int64_t *rp_log_gather_left_out(const rp_log *l, int size, uint64_t **counts)
{
    int rank = l->rank;
    uint64_t mine = l->left_out.len / sizeof(int64_t);
    *counts = rank == 0 ? calloc((size_t)size, sizeof **counts) : NULL;
    PMPI_Gather(&mine, 1, MPI_UINT64_T, *counts, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    return (int64_t *)gather_text((const char *)l->left_out.data, l->left_out.len, size, rank);
}

/* Rank 0: "count\tkey\n" lines of every rank summed by key, printed. */
static void print_reasons(char *text, FILE *out)
{
    enum { MAXK = 256 };
    char *key[MAXK];
    uint64_t cnt[MAXK];
    int nk = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        uint64_t c = strtoull(line, NULL, 10);
        int i = 0;
        while (i < nk && strcmp(key[i], tab + 1) != 0)
            i++;
        if (i == nk && nk == MAXK)
            i = MAXK - 1;
        else if (i == nk) {
            key[nk] = tab + 1;
            cnt[nk++] = 0;
        }
        cnt[i] += c;
    }
    if (nk)
        fprintf(out, "  not reissued as recorded, by function and reason (all ranks):\n");
    for (int i = 0; i < nk; i++)
        fprintf(out, "  %10" PRIu64 "  %s\n", cnt[i], key[i]);
}

uint64_t rp_log_report(rp_log *l, int size, FILE *out)
{
    siot_vbuf mine;
    siot_vbuf_init(&mine);
    for (int i = 0; i < l->nwhy; i++) {
        char line[600];
        int n = snprintf(line, sizeof line, "%" PRIu64 "\t%s\n", l->count[i], l->why[i]);
        siot_vbuf_put(&mine, line, (size_t)n);
    }
    if (l->other) {
        char line[96];
        int n = snprintf(line, sizeof line, "%" PRIu64 "\tother functions and reasons\n", l->other);
        siot_vbuf_put(&mine, line, (size_t)n);
    }
    if (l->lines_dropped) {
        char line[160];
        int n = snprintf(line, sizeof line, "  rank %d: %" PRIu64 " more not listed\n", l->rank, l->lines_dropped);
        siot_vbuf_put(&l->lines, line, (size_t)n);
    }
    char *reasons = gather_text((const char *)mine.data, mine.len, size, l->rank);
    char *lines = l->explain ? gather_text((const char *)l->lines.data, l->lines.len, size, l->rank) : NULL;
    if (l->rank == 0 && reasons) {
        print_reasons(reasons, out);
        if (lines && lines[0])
            fprintf(out, "  every call not reissued as recorded (--explain):\n%s", lines);
        fflush(out);
    }
    free(reasons);
    free(lines);
    siot_vbuf_free(&mine);
    uint64_t bad = l->skipped + l->differed, all = 0;
    PMPI_Allreduce(&bad, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return all;
}
