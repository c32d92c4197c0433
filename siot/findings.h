/* findings: `siot findings`: known I/O problems found on the compressed
 * trace in one siot_analyze pass, each with its evidence numbers, the call
 * sites responsible, its cost (the time of the calls it is about; the bytes
 * moved beyond the program's, where that applies) and a remedy in the
 * program's terms (the hint, the HDF5 property call, the API to use),
 * ranked by cost: seconds, then bytes (siot/finder.h; docs/findings.md).
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
 *   read-after-write    ranks read back 4 KiB or more of what they wrote
 *                       themselves: a walk of each rank's calls in program
 *                       order (siot/findptr.c) counts the bytes of the
 *                       rank's own reads that its own earlier writes to the
 *                       file covered, all of a read's bytes where its offset
 *                       or an earlier write's is not known (HDF5, PnetCDF,
 *                       views of other types); the walk runs when the pass
 *                       counts reads after the rank's first write to the
 *                       file, and beyond 10^7 events the pass's count (every
 *                       such read, ranges not compared) stands;
 * and, following each call's chain of traced calls (siot/findmore.c):
 *   read-modify-write   POSIX reads inside MPI-IO write calls; the bytes
 *                       read and written beyond the MPI-IO calls' own reach
 *                       64 KiB (data sieving, holes filled by collective
 *                       buffering);
 *   hdf5-metadata-flush the writes HDF5 makes in H5Fflush, H5Fclose,
 *                       H5Dclose... number 16 or more and at least those in
 *                       H5Dwrite;
 *   small-collective-buffer 32 or more POSIX data calls inside collective
 *                       MPI-IO calls, 8 or more per collective call, under
 *                       1 MiB on average;
 *   collective-straggler the waits in collective MPI-IO calls and in the
 *                       MPI waits that complete a non-blocking one (count x
 *                       (mean - min) per site) reach 50 ms and a quarter of
 *                       their time, with a rank computing 10 ms longer
 *                       before one of them, or over the run;
 *   open-in-loop        the program's opens in loops run more than once, 2
 *                       per rank or more;
 *   stdio-bulk          stdio moves 1 MiB or more, a tenth of the program's
 *                       data or more;
 *   redundant-reads     the same bytes of the same file read by 3 ranks or
 *                       more, 1 MiB or more again: positioned reads at the
 *                       same offset in one record, and reads at a file
 *                       pointer (read, fread, MPI_File_read...) of the same
 *                       offset and size, the pointer followed by a walk of
 *                       the trace in program order (siot/findptr.c: lseek,
 *                       fseek, MPI_File_seek, views of bytes);
 *   file-per-process    at 4 ranks or more, half the ranks or more each use
 *                       files of their own, with data moved through them.
 *
 * Errors: siot_findings returns 0, or -1 with a one-line reason in err
 * (the pass's, or out of memory). No locks. */
#ifndef SIOT_FINDINGS_H
#define SIOT_FINDINGS_H

#include <stdio.h>

#include "core/model.h"

int siot_findings(const siot_trace *t, const char *path, int json, FILE *out, char *err, size_t errlen);

#endif
