/* names: the symbolic form of recorded integers, one vocabulary for every
 * reader that shows events to a person (siot dump, dump --jsonl, export,
 * stats): open flags, file modes, whence, MPI-IO access modes, HDF5's file
 * access flags, netCDF's create and open modes, errno and the predefined
 * MPI handles. Traces are made on Linux x86-64, so flags
 * and errno are this platform's numbers; MPI-IO's access modes are ROMIO's
 * (MPI_MODE_CREATE 1 ... MPI_MODE_SEQUENTIAL 256), the same in MPICH and
 * Open MPI. MPI error classes are named by the flavour's own numbers
 * (core/mpierr.c). And the lexical form of a path: one name for its
 * spellings. Pure functions; no locks.
 *
 * Errors: NULL when the value has no name for that role (the caller shows
 * the number); a name that does not fit in buf is cut. */
#ifndef SIOT_NAMES_H
#define SIOT_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* The name of v as the argument of a parameter of this role (roles.h), in
 * buf or a constant string: "O_WRONLY|O_CREAT|O_TRUNC", "0644", "SEEK_END",
 * "MPI_MODE_CREATE|MPI_MODE_WRONLY", "MPI_COMM_WORLD". */
const char *siot_value_name(unsigned role, int64_t v, char *buf, size_t n);
/* "ENOENT" for 2; NULL for 0 or a number with no name. */
const char *siot_errno_name(int64_t e);
/* "MPI_ERR_NO_SUCH_FILE" for the class an MPI call of a trace made with
 * this flavour ("mpich", "openmpi": the trace header's) returned; NULL for
 * an unknown flavour or number. */
const char *siot_mpi_error_name(const char *flavour, int64_t cls);

/* A path's lexical form, in place: repeated slashes as one, "."
 * components and a trailing slash dropped ("d//f", "d/./f/" -> "d/f"), so
 * that two spellings of one name are one file or directory (mdtest joins
 * its paths with "/" onto names that end in one). ".." is kept: it may
 * cross a symbolic link. Returns the new length (at least 1 for n >= 1). */
size_t siot_path_lexical(char *p, size_t n);

/* How much of the path s (n bytes) to skip to make it relative to the
 * absolute directory dir (the run's working directory, the trace's note
 * cwd): strlen(dir) when s is dir itself, one more (the slash) when s is
 * inside it, 0 when it is neither or dir is unknown or "/". */
size_t siot_path_under(const char *dir, const char *s, size_t n);

#endif
