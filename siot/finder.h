/* finder: the state `siot findings` (findings.h) gathers in its one pass,
 * shared by its two halves: siot/findings.c (the first rules, the ranking
 * and the output) and siot/findmore.c (the rules that follow each call's
 * chain of traced calls: read-modify-write beneath MPI-IO, HDF5 metadata
 * flushes, small collective buffers, collective stragglers, opens in loops,
 * stdio for bulk data, redundant reads, files per process). Internal to
 * those two files.
 *
 * Costs: a rule's seconds are the time of the calls it is about, each
 * record's calls times its node's mean duration (the node's histogram
 * covers all its executions: core/model.h); extra bytes are bytes moved
 * beyond what the program asked for. Findings are ranked by seconds, then
 * by extra bytes.
 *
 * Errors: running out of memory sets oom. No locks. */
#ifndef SIOT_FINDER_H
#define SIOT_FINDER_H

#include <stdint.h>

#include "core/vbuf.h"
#include "replay/analyze.h"
#include "replay/files.h"
#include "replay/hmap.h"
#include "siot/origin.h"

enum {
    F_SMALL,
    F_MISALIGNED,
    F_IMBALANCE,
    F_REOPEN,
    F_SYNC,
    F_INDEPENDENT,
    F_METADATA,
    F_MANYFILES,
    F_RANDOM,
    F_READBACK,
    F_WAIT,
    F_RMW,
    F_H5FLUSH,
    F_COLLBUF,
    F_STRAGGLER,
    F_OPENLOOP,
    F_STDIO,
    F_REDUNDANT,
    F_FPP,
    NFIND
};

/* One file (by its name in siot_files, whose pointer is stable). */
typedef struct ftrack {
    const char *name;
    uint64_t calls, backward; /* the program's positioned data calls; those not sequential */
    double pos_ns;            /* their time */
    uint64_t readback;        /* bytes read by a rank after it wrote to the file */
    uint64_t indep;           /* independent MPI-IO data calls the program's chains made on it */
    double indep_ns;          /* their time */
    uint32_t indep_ranks;     /* the ranks that made them */
} ftrack;

/* Calls a per-file rule counted at an origin on one file. */
typedef struct filehit {
    int rule;
    const char *file; /* the name, as in ftrack */
    uint32_t origin;
    uint64_t n;
} filehit;

typedef struct prevcall {
    int32_t rank;
    int64_t off, bytes;
} prevcall;

/* Per origin, for read-modify-write: bytes the MPI-IO write calls of that
 * origin asked for, and what the POSIX writes beneath them wrote. */
typedef struct owrite {
    uint64_t mpi_bytes, posix_bytes;
    double posix_ns;
} owrite;

/* What findmore.c gathers. */
typedef struct more {
    owrite *ow; /* per origin */
    uint32_t capow;
    uint64_t rmw_reads, rmw_rbytes, mpiio_wbytes;
    double rmw_ns;
    int rmw_coll, rmw_indep, rmw_h5; /* the MPI-IO writes the reads were in; under HDF5 */
    uint64_t h5_flush_calls, h5_flush_bytes, h5_data_calls;
    int h5_flush_coll; /* some of those writes were collective */
    double h5_flush_ns, h5_data_ns;
    uint64_t cb_posix_calls, cb_posix_bytes;
    double cb_posix_ns, cb_instances; /* collective MPI-IO data calls, as calls of the job */
    double strag_wait_ns, strag_coll_ns, strag_worst;
    int32_t strag_rank;
    double strag_most; /* the largest wait of one call site, and its function */
    const char *strag_most_fn;
    /* (rank, request id) of the non-blocking collective MPI-IO calls'
     * requests not yet waited for; strag_in_waits: some of the wait was in
     * the MPI waits that completed them */
    rp_hmap io_reqs;
    int strag_in_waits;
    uint64_t loop_opens, loop_closes, loop_new_opens; /* new: in loops walked, whose names change */
    double loop_ns;
    uint64_t stdio_calls, stdio_bytes, own_bytes;
    double stdio_ns;
    uint64_t red_calls, red_bytes;
    uint32_t red_ranks;
    double red_ns;
    uint64_t red_ptr_reads; /* the program's reads at a file pointer (findptr.c walks them) */
    uint64_t red_ptr_bytes; /* of red_bytes, those read at a file pointer */
    int red_walk_truncated; /* the walk stopped at SIOT_ACCESS_MAX_EVENTS */
    /* read-after-write judged by the walk (rb_walked), over byte ranges
     * where the offsets are known: */
    int rb_walked;
    uint64_t rb_bytes, rb_overlap, rb_assumed; /* read back: in all, of known ranges, of unknown offsets */
    uint32_t rb_files;
    double rb_ns;
    double open_ns; /* the program's opens and closes */
} more;

typedef struct finder {
    const siot_trace *t;
    siot_origins origins;
    uint64_t *hits; /* per origin x NFIND: the calls each rule counted there */
    uint32_t caphits;
    filehit *fhits;
    uint32_t nfhits, capfhits;
    uint64_t own_calls, small_calls, small_bytes, posix_calls, misaligned, *rank_bytes;
    double *rank_ns; /* per rank: the program's own data calls' time */
    double small_ns, misaligned_ns, reopen_ns, sync_ns, readback_ns;
    uint64_t meta_calls, fs_data_calls;
    double meta_ns, fs_data_ns;
    siot_files files;
    ftrack *ft;
    uint32_t nft, capft;
    /* (rank, RANK_WROTE or RANK_INDEP, the file's name as its id): which
     * rank wrote to which file, which made independent calls on it. A set
     * of the pairs met, not an array of the ranks per file: files x ranks
     * bytes would be 4 GB for a file per process at 65,536 ranks (and a
     * damaged trace's 53,908 files of 144,000 ranks took 7.7 GB under the
     * fuzzer). */
    rp_hmap rank_file;
    prevcall *prev;
    siot_vbuf scratch;
    more m;
    int oom;
} finder;

typedef struct verdict {
    int rule;
    const char *severity;
    double seconds;       /* cost: time of the calls it is about */
    uint64_t extra_bytes; /* cost: bytes moved beyond the program's */
    char summary[800];
    char evidence[1400]; /* JSON members */
    char remedy[700];
} verdict;

/* findings.c: counts n calls of the record being handled for a rule. */
void siot_finder_hit(finder *f, int rule, uint64_t n);
/* The time of a record's calls (its calls x ranks x the node's mean). */
double siot_finder_rec_ns(const siot_agg_event *e);

#define RED_RANKS 3     /* redundant-reads: ranks reading the same bytes, */
#define RED_MIN 1048576 /* bytes read again */

/* findptr.c: notes a record of reads at a file pointer (in the pass); after
 * the pass, walks the trace to find their offsets when there were some, or
 * when read-after-write counted reads (to compare their ranges with the
 * rank's writes): 0, or -1 with a reason in err. */
void siot_findptr_event(finder *f, const siot_agg_event *e);
int siot_findptr_walk(finder *f, char *err, size_t errlen);

/* findmore.c: its part of each record, and its verdicts (at most
 * NFIND - F_RMW of them into v); how many. */
void siot_findmore_event(finder *f, const siot_agg_event *e, int outermost);
int siot_findmore_verdicts(const finder *f, verdict *v);
void siot_findmore_free(finder *f);

#endif
