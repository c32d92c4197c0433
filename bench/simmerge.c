/* simmerge: the merge of a P-rank job's traces at MPI_Finalize, done in one
 * process with the job's own code, for rank counts beyond this machine.
 *
 * usage: simmerge -P SIZE [-w WINDOW] [-o OUT] DIR
 *
 * DIR holds per-rank traces of some ranks of a SIZE-rank job, named
 * rank-NNNNNN.siot as SIOT_RANK_TRACES writes them (made by running the
 * program once per rank as a simulated rank, SIOT_SIM_RANK and
 * SIOT_SIM_SIZE: pmpi/sim.h), rank 0 among them. A rank without a file is
 * made from the two lowest recorded ranks above 0 (bench/rerank.h); before
 * that, every other recorded rank above 0 is held against that rule, and a
 * rank that breaks it stops the run. The traces then merge over the job's
 * reduction tree (docs/merge.md: in round k the rank with bit k set hands
 * its subtree's trace to rank - 2^k), each hand-over as at MPI_Finalize:
 * the sender's exact encoding, decoded by the receiver, merged with
 * siot_trace_merge and rewritten into a fresh arena (siot_trace_compact,
 * compress/merge.h); at the end rank 0's last pass (siot_rank_periodic) and
 * the packed file. Subtrees are built depth first, so one process holds at
 * most one trace per tree level.
 *
 * Prints one line per tree level (the pairs merged, rank 0's time decoding
 * and merging the trace it receives, the time of every merge of that level
 * with the senders' encoding, the size of the message rank 0 receives and
 * rank 0's memory at that merge), then the final file's size and the
 * process's peak memory. Exit status 0, 1 when the traces cannot be made or
 * merged (with the reason), 2 for bad usage. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench/rerank.h"
#include "compress/merge.h"
#include "compress/rankfold.h"
#include "core/format.h"

#define MAXLEVEL 32

typedef struct level {
    uint64_t pairs;
    double root_s, all_s;
    uint64_t root_msg, root_mem;
} level;

typedef struct sim {
    uint32_t P;
    unsigned window;
    int32_t *idx;       /* idx[r]: r's recorded trace in blob[], or -1 */
    siot_vbuf *blob;    /* the recorded traces, exact encodings */
    uint32_t nrec;
    int32_t ra, rb;     /* the ranks the others are made from */
    siot_trace a, b;
    uint64_t made;      /* ranks made rather than recorded */
    level lv[MAXLEVEL];
} sim;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int decode(const siot_vbuf *v, siot_trace *t)
{
    char why[256];
    if (siot_trace_decode(v->data, v->len, t, why, sizeof why) != 0) {
        fprintf(stderr, "simmerge: cannot decode a trace: %s\n", why);
        return -1;
    }
    return 0;
}

/* Rank r's trace as it stands at MPI_Finalize, before any merge. */
static int gen(sim *s, uint32_t r, siot_trace *t)
{
    if (s->idx[r] >= 0)
        return decode(&s->blob[s->idx[r]], t);
    char why[512];
    if (decode(&s->blob[s->idx[s->ra]], t) != 0)
        return -1;
    if (siot_rerank(t, &s->a, s->ra, &s->b, s->rb, (int32_t)r, why, sizeof why) != 0) {
        fprintf(stderr, "simmerge: rank %u cannot be made from ranks %d and %d: %s\n", r, s->ra, s->rb, why);
        siot_trace_free(t);
        return -1;
    }
    s->made++;
    return 0;
}

/* theirs (the subtree of a rank that hands it over at level k) goes to
 * mine's holder as at MPI_Finalize: encoded exactly, decoded, merged. */
static int hand_over(sim *s, siot_trace *mine, siot_trace *theirs, unsigned k, int root)
{
    double t0 = now_s();
    siot_vbuf msg;
    siot_vbuf_init(&msg);
    int rc = siot_trace_encode_exact(theirs, &msg);
    siot_trace_free(theirs);
    if (rc != 0) {
        fprintf(stderr, "simmerge: out of memory encoding a subtree\n");
        return -1;
    }
    double t1 = now_s();
    siot_trace got;
    if (decode(&msg, &got) != 0) {
        siot_vbuf_free(&msg);
        return -1;
    }
    uint64_t mem = mine->arena.used_bytes + msg.len + got.arena.used_bytes;
    rc = siot_trace_merge(mine, &got, s->window);
    if (rc == 0)
        siot_trace_compact(mine); /* as take_subtree does (pmpi/job_trace.c) */
    double t2 = now_s();
    level *l = &s->lv[k];
    l->pairs++;
    l->all_s += t2 - t0;
    if (root) {
        l->root_s = t2 - t1;
        l->root_msg = msg.len;
        l->root_mem = mem;
    }
    siot_vbuf_free(&msg);
    if (rc != 0)
        fprintf(stderr, "simmerge: %s at level %u\n", rc == SIOT_E_CONFLICT ? "function tables differ" : "out of memory", k);
    return rc ? -1 : 0;
}

/* The merged trace of ranks [lo, lo + span) (span a power of two), held by
 * rank lo: its own half, then the other half's, as the tree does. */
static int build(sim *s, uint32_t lo, uint32_t span, unsigned k, siot_trace *out)
{
    if (span == 1)
        return gen(s, lo, out);
    if (build(s, lo, span / 2, k - 1, out) != 0)
        return -1;
    if (lo + span / 2 >= s->P)
        return 0;
    siot_trace theirs;
    if (build(s, lo + span / 2, span / 2, k - 1, &theirs) != 0) {
        siot_trace_free(out);
        return -1;
    }
    if (hand_over(s, out, &theirs, k - 1, lo == 0) != 0) {
        siot_trace_free(out);
        return -1;
    }
    return 0;
}

/* DIR's rank-NNNNNN.siot files of ranks below P, kept as exact encodings. */
static int load_dir(sim *s, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        unsigned r;
        char tail;
        if (sscanf(e->d_name, "rank-%u.sio%c", &r, &tail) != 2 || tail != 't' || r >= s->P)
            continue;
        char path[4096], why[256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        siot_trace t;
        if (siot_trace_load(path, &t, why, sizeof why) != 0) {
            fprintf(stderr, "simmerge: %s: %s\n", path, why);
            rc = -1;
            break;
        }
        siot_vbuf_init(&s->blob[s->nrec]);
        rc = t.nranks == s->P && siot_trace_encode_exact(&t, &s->blob[s->nrec]) == 0 ? 0 : -1;
        if (rc)
            fprintf(stderr, "simmerge: %s: a trace of %u ranks, not %u (or out of memory)\n", path, t.nranks, s->P);
        siot_trace_free(&t);
        s->idx[r] = (int32_t)s->nrec++;
    }
    closedir(d);
    return rc;
}

/* The two lowest recorded ranks above 0, and every other recorded rank
 * above 0 held against the line through them. */
static int pick_models(sim *s)
{
    s->ra = s->rb = -1;
    for (uint32_t r = 1; r < s->P && s->rb < 0; r++)
        if (s->idx[r] >= 0)
            *(s->ra < 0 ? &s->ra : &s->rb) = (int32_t)r;
    if (s->idx[0] < 0) {
        fprintf(stderr, "simmerge: no trace of rank 0\n");
        return -1;
    }
    if (s->nrec == s->P)
        return 0;
    if (s->rb < 0 || decode(&s->blob[s->idx[s->ra]], &s->a) != 0 || decode(&s->blob[s->idx[s->rb]], &s->b) != 0) {
        fprintf(stderr, "simmerge: ranks are missing and fewer than two ranks above 0 are recorded\n");
        return -1;
    }
    for (uint32_t r = (uint32_t)s->rb + 1; r < s->P; r++) {
        if (s->idx[r] < 0)
            continue;
        siot_trace c;
        char why[512];
        int bad = decode(&s->blob[s->idx[r]], &c) != 0 ||
                  siot_rerank_check(&c, (int32_t)r, &s->a, s->ra, &s->b, s->rb, why, sizeof why) != 0;
        siot_trace_free(&c);
        if (bad) {
            fprintf(stderr, "simmerge: recorded rank %u is not what ranks %d and %d give for it: %s\n", r, s->ra, s->rb,
                    why);
            return -1;
        }
    }
    return 0;
}

/* The process's peak resident memory (VmHWM), KiB. */
static long vm_hwm_kib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

static void report(const sim *s, unsigned levels)
{
    double root = 0;
    for (unsigned k = 0; k < levels; k++)
        root += s->lv[k].root_s;
    printf("rank 0's decoding and merging at all levels: %.6f s (the job's merge at MPI_Finalize is about that, "
           "plus the messages' transfer)\n", root);
    printf("%5s %8s %12s %12s %14s %12s\n", "level", "pairs", "rank 0 s", "all pairs s", "rank 0 gets B", "rank 0 MiB");
    for (unsigned k = 0; k < levels; k++)
        printf("%5u %8llu %12.6f %12.6f %14llu %12.2f\n", k, (unsigned long long)s->lv[k].pairs, s->lv[k].root_s,
               s->lv[k].all_s, (unsigned long long)s->lv[k].root_msg, (double)s->lv[k].root_mem / (1 << 20));
}

/* The job's last pass and its file; out NULL: only measured. */
static int finish(siot_trace *t, const char *out, double *pass_s, uint64_t *size)
{
    double t0 = now_s();
    siot_rank_periodic(t);
    siot_vbuf b;
    siot_vbuf_init(&b);
    int rc = siot_trace_encode_file(t, 1, &b);
    *pass_s = now_s() - t0;
    *size = b.len;
    FILE *f = rc == 0 && out ? fopen(out, "wb") : NULL;
    if (out && (!f || fwrite(b.data, 1, b.len, f) != b.len))
        rc = -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc)
        fprintf(stderr, "simmerge: cannot write %s\n", out ? out : "the trace");
    siot_vbuf_free(&b);
    return rc;
}

static void sim_free(sim *s)
{
    for (uint32_t i = 0; s->blob && i < s->nrec; i++)
        siot_vbuf_free(&s->blob[i]);
    if (s->nrec < s->P && s->rb >= 0) {
        siot_trace_free(&s->a);
        siot_trace_free(&s->b);
    }
    free(s->blob);
    free(s->idx);
}

/* The tree, the last pass and the report. */
static int run(sim *s, const char *out)
{
    unsigned levels = 0;
    while ((1u << levels) < s->P)
        levels++;
    siot_trace root;
    double t0 = now_s(), pass_s;
    uint64_t size;
    if (build(s, 0, 1u << levels, levels, &root) != 0)
        return 1;
    double tree_s = now_s() - t0;
    if (finish(&root, out, &pass_s, &size) != 0) {
        siot_trace_free(&root);
        return 1;
    }
    report(s, levels);
    printf("ranks %u (%u recorded, %llu made from ranks %d and %d): tree %.3f s, rank 0's last pass %.3f s, "
           "file %llu B, peak memory %ld KiB\n",
           s->P, s->nrec, (unsigned long long)s->made, s->ra, s->rb, tree_s, pass_s, (unsigned long long)size,
           vm_hwm_kib());
    siot_trace_free(&root);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: simmerge -P SIZE [-w WINDOW] [-o OUT] DIR\n");
    return 2;
}

int main(int argc, char **argv)
{
    sim s = {.window = 256};
    const char *out = NULL, *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-P") == 0 && i + 1 < argc)
            s.P = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
            s.window = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] != '-' && !dir)
            dir = argv[i];
        else
            return usage();
    }
    if (!dir || s.P == 0 || s.P > (1u << 30) || s.window == 0)
        return usage();
    s.idx = malloc(s.P * sizeof *s.idx);
    s.blob = calloc(s.P, sizeof *s.blob);
    s.rb = -1;
    if (!s.idx || !s.blob) {
        sim_free(&s);
        return 1;
    }
    memset(s.idx, 0xff, s.P * sizeof *s.idx);
    int rc = load_dir(&s, dir) != 0 || pick_models(&s) != 0 ? 1 : run(&s, out);
    sim_free(&s);
    return rc;
}

