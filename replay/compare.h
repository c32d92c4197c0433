/* compare: are two traces the same events (function, arguments, return
 * value, errno, bytes, parent, per-rank order), timing aside? What `siot
 * diff` and `ioreplay --verify` answer. No global state; allocates its
 * iterators' stacks.
 *
 * Errors: -1 with a one-line reason in err (out of memory, a walk or a value
 * that fails on a damaged trace): what was found until then is counted in
 * res and printed. Running out of memory while rendering an event is not
 * detected: the event is compared as far as it was rendered. */
#ifndef SIOT_COMPARE_H
#define SIOT_COMPARE_H

#include <stdio.h>

#include "core/model.h"
#include "core/vbuf.h"

/* Which events take part: layers (bit per layer; 0 = all) and, with
 * outermost, only those without a taking-part ancestor (the calls a replay
 * reissues itself). Parents are the nearest taking-part ancestors. */
enum { SIOT_BY_ORDER_IN_MPIIO = 1, SIOT_BY_ORDER_IN_LIBRARY = 2 };

typedef struct siot_diff_filter {
    uint32_t layers;
    int outermost;
    int sandbox_paths; /* compare paths as ioreplay maps them under its root */
    int no_mpi_in_mpiio; /* leave out MPI calls made by MPI-IO calls (the library's own), and those on
                          * objects MPI-IO calls made (MPI_Wait on MPI_File_iwrite's request) */
    /* MPI object ids compared by creation order: shown as #N, the Nth object
     * of its kind created in the rank's compared events (a library's own
     * objects, left out, shift the recorder's ids but not these) */
    int creation_order;
    /* reads made by an I/O library: the size they returned is not compared
     * (it depends on the order of other ranks' writes, which the library's
     * messages and locks gave); those that differ are counted apart. At the
     * POSIX level the reads inside MPI-IO calls (SIOT_BY_ORDER_IN_MPIIO), at
     * the default level the MPI-IO reads inside HDF5 and PnetCDF calls
     * (SIOT_BY_ORDER_IN_LIBRARY: HDF5's sieve buffer reading past the end
     * that other ranks' independent writes had or had not reached yet); at
     * the POSIX level also whether a removal inside an MPI-IO call found
     * its file or found it gone (every rank making and removing the same
     * file: Open MPI's FILE.locktest.N in MPI_File_open); and at that
     * level the result of a seek to the end inside an MPI-IO call (the
     * file's size then: ROMIO's MPI_File_get_size on Open MPI's OMPIO) */
    int reads_by_order;
    /* MPI_File_delete (a job of several ranks): whether it deleted the file
     * or found it gone (MPI_ERR_NO_SUCH_FILE) is not compared, as when every
     * rank deletes the same file the first one to come deletes it; nor
     * whether the calls it made (ROMIO's statfs, lstat, unlink) found the
     * file or not (0 or ENOENT). Counted with the results by order */
    int deletes_by_order;
    /* the size an aio_return of a read request (aio_read, a LIO_READ entry
     * of lio_listio) returned is not compared: it is what the file held
     * when the transfer ran, at a moment between the request's start and
     * its completion that the trace does not fix (other calls of the rank
     * and other ranks' writes run meanwhile); counted apart, as aio_by_order */
    int aio_reads_by_order;
    /* per rank, the seqs (ascending) of the first trace's events to leave
     * out with what they called: the calls a replay did not reissue, so the
     * comparison stays in step after them (NULL: none) */
    const int64_t *const *left_out;
    const uint64_t *n_left_out;
} siot_diff_filter;

typedef struct siot_compare_result {
    uint64_t compared;    /* event pairs compared */
    uint64_t differences; /* event pairs that differ, and ranks whose traces end apart */
    uint64_t order_results; /* reads_by_order, deletes_by_order: equal but for a read's or a seek's size or a removal's outcome */
    uint64_t aio_by_order;      /* aio_reads_by_order: aio reads' results compared so, when not errors */
    uint64_t aio_order_results; /* ... of which the sizes differed */
} siot_compare_result;

/* Every rank's events in pairs: each difference counted, the first
 * max_shown written to out (both sides and the first trace's call site; a
 * rank whose traces end apart stops there). Events are named by their seq
 * in their own trace, as `siot dump --jsonl` numbers them, not by their
 * place among the events compared. With max_shown <= 1 it stops at
 * the first. 0 same, 1 different, -1 error (err). */
int siot_compare(const siot_trace *a, const siot_trace *b, const siot_diff_filter *flt, uint64_t max_shown, FILE *out,
                 siot_compare_result *res, char *err, size_t errlen);

/* The events of rank r that a comparison with flt takes part in, in order,
 * each handed to fn with its function and its bytes (ioreplay --verify's
 * totals of an approximate trace, replay/totals.h). 0, or -1 with a reason
 * in err. */
typedef void (*siot_kept_fn)(void *user, const siot_funcdesc *f, int64_t bytes);
int siot_compare_each(const siot_trace *t, uint32_t r, const siot_diff_filter *flt, siot_kept_fn fn, void *user,
                      char *err, size_t errlen);

/* A path as ioreplay uses it under its root: relative to the run's working
 * directory cwd when inside it, leading "/" dropped, "." and ".." resolved
 * without climbing above the root; appended to o. */
void siot_sandbox_path(const char *cwd, const char *s, size_t n, siot_vbuf *o);

/* siot_compare up to the first difference. */
int siot_diff(const siot_trace *a, const siot_trace *b, const siot_diff_filter *flt, FILE *out, char *err,
              size_t errlen);

#endif
