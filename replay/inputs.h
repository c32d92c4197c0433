/* inputs: the files a traced program read without making them (an input
 * deck, a mesh, a restart file), staged under the replay root before the
 * replay starts, so that their opens succeed and their reads return what
 * they returned in the run. From the trace alone: a file of the size the
 * reads reached (the end where a read met it), the bytes that fgetc
 * returned, lines of the lengths that fgets returned (filler and a
 * newline), text that each fscanf format reads in the bytes it consumed
 * (replay/scantext.h); binary data is zeros. With --inputs DIR the real files are
 * copied from DIR instead (DIR/PATH for a recorded path, leading / dropped).
 * An old output the run wrote over without removing it (MPI_MODE_CREATE
 * over last run's file) is staged too, at the size the run saw it have
 * (an lseek to its end, MPI_File_get_size) before it wrote to it, when
 * that is beyond anything the run wrote or set, or when the rank then cut
 * it shorter before writing (HDF5's H5F_ACC_TRUNC: get_size, set_size 0).
 * Rank 0 only, before any replayed call; written with raw system calls so
 * that a traced replay (--verify) does not record them. A file already in
 * the root is left as it is. The directories that the run's paths went
 * through and that it did not make itself are made too.
 *
 * Errors: nothing is returned. res->err says why staging stopped before any
 * file was written (out of memory, a trace that cannot be walked). A file
 * that cannot be staged (its path leads out of the root, it cannot be
 * created, or its writing fails part way: it is left as it is) is counted
 * in res->unstaged, the first one named with the reason. */
#ifndef SIOT_INPUTS_H
#define SIOT_INPUTS_H

#include <stdint.h>

#include "core/model.h"
#include "replay/rp.h"

typedef struct rp_inputs_result {
    uint32_t staged, copied, kept; /* files made from the trace, copied from DIR, already there */
    uint32_t dirs;                 /* directories the run's paths went through, made (the run did not) */
    uint64_t bytes;
    const char *err; /* why staging stopped (out of memory, a damaged trace), or NULL */
    uint32_t unstaged;       /* files that could not be staged */
    char unstaged_path[512]; /* the first of them, as the trace names it */
    char unstaged_why[128];  /* and why */
} rp_inputs_result;

void rp_stage_inputs(const siot_trace *t, rp_state *c, const char *inputs_dir, rp_inputs_result *res);

#endif
