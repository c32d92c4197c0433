/* modules: the loaded objects (the executable and its shared libraries) by
 * address, for call-site signatures (stack.c) and for deciding whether a
 * call that reached an interposer from another object is the program's I/O.
 *
 * Module ids are stable for the life of the process (sites refer to them).
 * The address map is an immutable snapshot, replaced when an address is not
 * found (a library loaded with dlopen since): readers never lock. The
 * snapshot is built outside every lock of the tracer, because the loader
 * holds its own lock around dl_iterate_phdr and may itself call an
 * interposer (a new library's constructor doing I/O).
 *
 * Signals: none of this is used from a signal handler. Errors: an address
 * outside every module, or no memory, gives "unknown" (0, -1). */
#ifndef SIOT_MODULES_H
#define SIOT_MODULES_H

#include <stddef.h>
#include <stdint.h>

/* What an interposer does with a call made from a module. */
enum siot_mclass {
    SIOT_MC_RECORD,    /* the program, its libraries, I/O libraries (HDF5, PnetCDF, libgfortran...) */
    SIOT_MC_INSIDE_IO, /* the MPI library: its I/O only inside a traced MPI-IO, HDF5 or PnetCDF call */
    SIOT_MC_NEVER,     /* the C library, the loader, MPI transports, the tracer and its unwinder */
    SIOT_MC_MPIIO,     /* the MPI library's MPI-IO plugins (OMPIO's, ROMIO's): as INSIDE_IO, but a call of
                        * theirs outside every traced MPI-IO call is MPI-IO the tracer did not see (counted) */
};

/* The module holding address a, and its load base; 0 when none does. */
int siot_module_of(uintptr_t a, uint32_t *module, uintptr_t *base);
/* The path of module m (valid for the life of the process), NULL if unknown. */
const char *siot_module_path(uint32_t m);
uint32_t siot_module_count(void);
/* The class of the module that holds address a (SIOT_MC_RECORD when unknown). */
int siot_module_class(uintptr_t a);
/* Builds the first snapshot (at start-up). */
void siot_modules_init(void);

#endif
