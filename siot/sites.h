/* sites: where a call site is in the program's own code, for siot stats,
 * siot findings and siot report.
 *
 * A call is shown at the program frame of the outermost traced call it was
 * made in (siot/origin.h): a pwrite ROMIO made for the program's H5Dwrite is
 * shown at the H5Dwrite's line, file.c:LINE (function), and the chain of
 * traced calls down to it ("H5Dwrite > MPI_File_write_at > pwrite in
 * ADIOI_GEN_WriteContig") is the detail.
 *
 * The rule for a program frame (the call stacks are innermost first):
 *  - a frame in a shared object is the program's unless the object is one
 *    of the I/O stack's or the runtime's libraries, by file name: libc and
 *    the loader, MPI (libmpi*, libmpich*, libpmpi, libopen-pal/rte, PMIx,
 *    hwloc, libevent, UCX, libfabric...), Open MPI's plug-ins (mca_*.so),
 *    HDF5 (libhdf5*), PnetCDF and netCDF, the Fortran and C++ runtimes
 *    (libgfortran, libquadmath, libgcc_s, libstdc++), zlib, szip, libunwind
 *    and the tracer's own;
 *  - a frame in the executable (MPICH, HDF5 and libgfortran are linked into
 *    it statically, so being in it says nothing) is the program's unless
 *    its function is in a namespace of those libraries: MPI_ PMPI_ MPIR_
 *    MPID MPII_ MPIU_ MPL_ MPIO_ MPIOI_ ADIO ADIOI_ (ROMIO) H5 (HDF5) ncmpi
 *    nfmpi nf90mpi (PnetCDF) mpi_ pmpi_ (Fortran MPI) _gfortran __libc _IO_
 *    yaksa/yaksi hwloc_ PMI, or of their Fortran modules (__h5*_MOD_,
 *    __mpi*_MOD_, __pnetcdf_MOD_); a function addr2line cannot name is not;
 *  - of the program's frames in a stack, the innermost one with a source
 *    line wins, else the innermost one (a program built without -g:
 *    module+offset (function)).
 * The stacks looked at are those of the outermost traced call first, then
 * of each call inside it down to the call itself. When none holds a program
 * frame (a stack cut short by SIOT_STACK_DEPTH inside a library), the
 * outermost call's site is shown as before the rule: its innermost frame in
 * the executable with a source line, else with a function, else
 * module+offset; `program` says which.
 *
 * Errors: none; a site that cannot be resolved keeps its module+offset. */
#ifndef SIOT_SITES_H
#define SIOT_SITES_H

#include <stdint.h>

#include "core/model.h"
#include "siot/origin.h"

/* Call sites are resolved to file:line with addr2line on the traced
 * executable unless this is 0 (set by the fuzzer). */
extern int siot_stats_resolve_sites;

typedef struct siot_siteloc {
    uint32_t site;   /* site index + 1, as in siot_event.site */
    uint32_t origin; /* 0, or the chain of traced calls the site's calls were made in */
    char where[512];
    char chain[512]; /* the traced calls from the outermost down and the frame beneath, "" for an outermost call */
    int no_line;     /* the frame shown has no source line (built without -g) */
    int program;     /* where is a frame of the program by the rule above */
} siot_siteloc;

/* Resolves loc[0..n): each by its origin when o is given and the origin is
 * not 0, else by its own site's stack. */
void siot_resolve_origins(const siot_trace *t, const siot_origins *o, siot_siteloc *loc, uint32_t n);
void siot_resolve_sites(const siot_trace *t, siot_siteloc *loc, uint32_t n);
/* What siot stats and siot report say under call sites some of which are
 * module+offset for want of line information. */
extern const char siot_no_line_hint[];

#endif
