/* interpose: how a wrapper of a --wrap layer (POSIX, stdio, HDF5, PnetCDF)
 * reaches the real function, and is reached from shared libraries.
 *
 * Each such wrapper has two entries: __wrap_NAME, which the linker's --wrap
 * gives the objects linked into the program (the application, and static
 * libraries such as MPICH's libmpich.a), and NAME itself, exported from the
 * program (or from the preloaded libsiotrace.so), which the dynamic linker
 * gives every shared library and run-time plugin that calls NAME (Open MPI's
 * MPI-IO plugins, a shared HDF5, libgfortran, PnetCDF's Fortran binding). A
 * call through NAME is the program's I/O when the object that made it is
 * (modules.h: the program, its libraries, the I/O libraries; the MPI
 * library only inside a traced MPI-IO, HDF5 or PnetCDF call, or for the
 * completion of an aio request it started in one; never the C library, the
 * loader, the MPI transports or the tracer). The real function
 * is found once with dlsym(RTLD_NEXT): the next definition after the
 * program (or after libsiotrace.so).
 *
 * A library linked into the program statically (MPICH's libhdf5_mpich.a)
 * defines NAME itself: its layer is compiled with SIOT_STATIC_LIBRARY, and
 * its wrappers call __real_NAME and have no exported entry.
 *
 * Locks: none on the way to the real function (a relaxed atomic pointer);
 * the first call of a name looks it up. Signals: not used from handlers.
 *
 * Errors: siot_real_lookup never returns NULL: a name found nowhere is said
 * on stderr (raw write) and the process aborts. siot_caller_records cannot
 * fail. */
#ifndef SIOT_INTERPOSE_H
#define SIOT_INTERPOSE_H

#include <stdint.h>

#include "src/thread.h"

/* The real NAME (dlsym(RTLD_NEXT)), looked up the first time; a name found
 * nowhere ends the process with a message (nothing can stand for it).
 * siot_real_get is always inlined: in the large generated units the
 * compiler otherwise calls one out-of-line copy for a load and a test. */
void *siot_real_lookup(const char *name);
static inline __attribute__((always_inline)) void *siot_real_get(void **p, const char *name)
{
    void *f = __atomic_load_n(p, __ATOMIC_RELAXED);
    if (SIOT_LIKELY(f != 0))
        return f;
    f = siot_real_lookup(name);
    __atomic_store_n(p, f, __ATOMIC_RELAXED);
    return f;
}
#define SIOT_REAL_FN(ptr, name) ((__typeof__(ptr))siot_real_get((void **)&(ptr), name))

/* Whether a call of layer that reached an exported entry from the code at
 * return address ra is recorded. */
int siot_caller_records(const void *ra);
static inline int siot_interposed_records(unsigned layer, const void *ra)
{
    return siot_recording(layer) && siot_caller_records(ra);
}
/* Calls of the MPI library's MPI-IO plugins (modules.h, SIOT_MC_MPIIO)
 * that siot_caller_records did not record because no traced MPI-IO call
 * was in flight (the trace's note mpiio_unseen). */
uint64_t siot_unseen_mpiio_calls(void);
/* The same for an aio call, a start or a completion (aio_read, aio_write,
 * lio_listio, aio_error, aio_return, aio_suspend...: tools/gen/emit_wrap.c):
 * from the MPI library also inside a traced call that is not an I/O call,
 * as OMPIO completes the requests MPI_File_iwrite started inside MPI_Wait
 * and MPI_Test, and starts there the later pieces of a strided request; the
 * event's parent is that MPI call. The wrapper's filter keeps requests on
 * traced descriptors, which the MPI library has only from a traced MPI-IO
 * open. (MPICH's libmpich.a reaches __wrap_NAME, which has no caller test:
 * ROMIO's aio calls were recorded already.) */
int siot_aio_caller_records(const void *ra);
static inline int siot_interposed_aio_records(unsigned layer, const void *ra)
{
    return siot_recording(layer) && siot_aio_caller_records(ra);
}
/* The MPI library's call outside any traced I/O call (an aio poll inside
 * MPI_Wait): generated aio_error entries record it only when it does not
 * answer EINPROGRESS (tools/gen/emit_wrap.c, is_aio_poll). */
int siot_library_poll(const void *ra);
/* The same for a poll reaching a --wrap entry, whose caller's module is the
 * program's own (MPICH's ROMIO is linked into it): inside a traced call
 * that is not an I/O call (MPI_Wait, MPI_Test), as a program's own poll
 * never is. */
int siot_wrapped_library_poll(void);

#define SIOT_INTERPOSER SIOT_TEXT __attribute__((visibility("default")))
#define SIOT_INLINE static inline __attribute__((always_inline))

#endif
