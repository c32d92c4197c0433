/* config: the SIOT_* environment, read once at start-up (docs/recording.md's table),
 * and the rank an MPI launcher gave the process.
 * Read-only after siot_config_load(): no lock, safe anywhere. *
 * Errors: a bad value is said on stderr in one line, and its default kept.
 */
#ifndef SIOT_CONFIG_H
#define SIOT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef struct siot_config {
    const char *trace_path;  /* SIOT_TRACE */
    int compress;            /* SIOT_COMPRESS */
    int pack;                /* SIOT_PACK: the job's file packed (core/pack.h) */
    int rank_times;          /* SIOT_RANK_TIMES: keep the rank's own time totals (default 1) */
    uint32_t rank_keep;      /* SIOT_RANK_TIMES=N: fastest and slowest ranks kept beside a summary; 0 all */
    int verbose;             /* SIOT_VERBOSE */
    uint32_t layers;         /* SIOT_LAYERS */
    uint32_t window;         /* SIOT_WINDOW: how far back loop folding looks */
    uint32_t stack_depth;    /* SIOT_STACK_DEPTH: frames in a call-site signature, 0 = none */
    int unwind_always;       /* SIOT_UNWIND=always: every call site walked by libunwind (docs/hotpath.md) */
    double tolerance;        /* SIOT_TOLERANCE: percent by which folded loop counts may differ */
    const char *rank_traces; /* SIOT_RANK_TRACES: also write each rank's own trace in this directory */
    size_t max_memory;       /* SIOT_MAX_MEMORY: recorder memory before nodes are spilled to disk */
    const char *spill_dir;   /* SIOT_SPILL_DIR, else TMPDIR, else /tmp */
    uint64_t checkpoint_ns;  /* SIOT_CHECKPOINT: seconds between a rank's checkpoints (0: none) */
    /* The launcher's rank environment (MPICH's hydra: PMI_RANK, PMI_SIZE;
     * Open MPI: OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE); size 0 when the
     * process was not started by an MPI launcher. */
    int32_t launch_rank;
    uint32_t launch_size;
    /* SIOT_SIM_RANK, SIOT_SIM_SIZE: a single process plays rank sim_rank of
     * a job of sim_size ranks (pmpi/sim.h); sim_size 0 when not asked. */
    int32_t sim_rank;
    uint32_t sim_size;
} siot_config;
extern siot_config siot_cfg;

/* Reads the environment into siot_cfg; a bad value is said on stderr and
 * its default kept. */
void siot_config_load(void);

#endif
