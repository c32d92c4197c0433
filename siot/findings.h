/* findings: `siot findings`: known I/O problems found on the compressed
 * trace in one siot_analyze pass, each with its evidence numbers and the
 * call sites responsible.
 *
 * Sites: a rule's calls are grouped by the outermost traced call they were
 * made in (siot/origin.h: the H5Dwrite, ncmpi_put_vara_all,
 * MPI_File_write_at_all or write the program made), and each group is shown
 * at the program's frame of that call, file.c:LINE (function), with the
 * chain of traced calls beneath it as detail ("via H5Dwrite >
 * MPI_File_write_at > pwrite in ADIOI_GEN_WriteContig"; JSON "chain"). A
 * program frame is one outside the I/O stack's and the runtime's libraries
 * (MPI, ROMIO/OMPIO and Open MPI's plug-ins, HDF5, PnetCDF, libc, the
 * Fortran runtime), told by the frame's shared object, or in the executable
 * (MPICH and HDF5 are linked in statically) by its function's namespace;
 * the innermost one with a source line wins (the rule in full: siot/sites.h,
 * docs/sites.md). JSON "program" says whether the site is one.
 * Files: the per-file rules (independent-shared, random-access) count per
 * file name, the file the handle's open named on that rank (replay/files.h),
 * never per handle id, which a library reuses for the next file; their
 * sites are those of the calls on the files the rule fires on.
 *
 * The rules and their thresholds (findings.c, FINDING_RULES):
 *   small-requests      at least half of the data calls the program made
 *                       itself (outermost calls), and at least 100, move
 *                       under 4 KiB each;
 *   misaligned-requests at least half of the POSIX data calls, and at
 *                       least 100, are not aligned to 4 KiB (offset or size);
 *   rank-imbalance      the busiest rank moves at least twice the mean bytes
 *                       of the program's own data calls (2 ranks or more, 4
 *                       KiB or more in all);
 *   reopened-file       one call site opens the same file 10 times or more
 *                       per rank (a name that changes per iteration is not
 *                       this);
 *   sync-in-loop        one call site syncs a file 10 times or more per rank;
 *   independent-shared  independent MPI-IO data calls (whoever made them:
 *                       HDF5's and PnetCDF's too) from 2 ranks or more, 8 or
 *                       more, on one file (by name): collective calls could
 *                       aggregate them; the file with the most is named;
 *   metadata-heavy      the POSIX and stdio metadata calls (classes open,
 *                       close, meta, seek, sync, dir: open, close, stat,
 *                       access, lseek, fsync, mkdir...; the libraries' too,
 *                       as they reach the file system; HDF5's H5Sclose does
 *                       not) number at least 100 and more than 2 per POSIX
 *                       and stdio data call;
 *   many-files-per-rank some rank uses more than 64 distinct file names
 *                       (opened, or data moved through them; replay/files.c);
 *   random-access       a file on which the program's own positioned data
 *                       calls (pread, pwrite, MPI_File_*_at...; at least 100)
 *                       mostly (more than half) go backwards: a call goes
 *                       backwards when its offset is below the end of the same
 *                       call site's previous call on that rank. In a
 *                       multiplied loop that is the previous iteration of the
 *                       innermost multiplied loop, evaluated for up to 1,024
 *                       iterations (affine offsets and run tables alike) and
 *                       the share applied to all; the first call of each run
 *                       of the loop is not judged. Calls at the file pointer
 *                       (read, write) count as sequential and are not counted;
 *   read-after-write    ranks read, from files they wrote to earlier in trace
 *                       order, 4 KiB or more in all: the bytes of every own
 *                       read after the rank's first own write to the file
 *                       (whether the ranges overlap is not checked; in a
 *                       multiplied loop a read before the write in the body
 *                       is missed).
 *
 * Errors: siot_findings returns 0, or -1 with a one-line reason in err
 * (the pass's, or out of memory). No locks. */
#ifndef SIOT_FINDINGS_H
#define SIOT_FINDINGS_H

#include <stdio.h>

#include "core/model.h"

int siot_findings(const siot_trace *t, const char *path, int json, FILE *out, char *err, size_t errlen);

#endif
