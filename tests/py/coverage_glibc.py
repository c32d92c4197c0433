"""Holds the POSIX and stdio spec against glibc's exported file I/O functions.

usage: coverage_glibc.py SPECDIR [LIBC]

The file I/O functions of glibc are the exported functions (nm -D, T/W) of
LIBC (default /lib/x86_64-linux-gnu/libc.so.6) whose names match one of the
reviewed patterns below: opening, closing, reading and writing descriptors
and streams, positions, synchronisation, sizes and space, metadata of files
and directories by path or descriptor, directories, temporary files,
descriptor duplication and control, locks, mappings, asynchronous I/O,
transfers between descriptors, process images replaced or ended (the trace
is written first). What the patterns leave out is not file I/O: string
formatting (sprintf, sscanf), memory, processes, sockets, terminals, time.

Each such name must be in SPECDIR/posix.spec or SPECDIR/stdio.spec, or be
matched by a `posix` or `stdio` line of SPECDIR/not-traced.txt (LAYER
PATTERN REASON). Prints every uncovered name, and every posix/stdio
exclusion that matches no exported name, and exits 1 if there is any."""
import fnmatch
import os
import re
import subprocess
import sys

# The reviewed patterns: layer, fnmatch pattern.
FILE_IO = {
    "posix": [
        # descriptors: open, close, data, position, sync, size, space
        "open", "open64", "__open*", "openat*", "__openat*", "openat2", "creat", "creat64",
        "open_by_handle_at", "name_to_handle_at", "close", "__close", "close_range", "closefrom",
        "read", "__read", "__read_chk", "readv", "pread", "pread64", "__pread*", "preadv*",
        "write", "__write", "writev", "pwrite", "pwrite64", "__pwrite*", "pwritev*",
        "lseek", "lseek64", "__lseek", "llseek",
        "fsync", "fdatasync", "sync", "syncfs", "sync_file_range",
        "truncate", "truncate64", "ftruncate", "ftruncate64",
        "fallocate", "fallocate64", "posix_fallocate*", "posix_fadvise*", "readahead",
        # metadata by path or descriptor
        "stat", "stat64", "lstat", "lstat64", "fstat", "fstat64", "fstatat", "fstatat64", "__xstat*",
        "__lxstat*", "__fxstat*", "statx", "statfs", "statfs64", "fstatfs", "fstatfs64", "statvfs*", "fstatvfs*",
        "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir",
        "access", "faccessat", "euidaccess", "eaccess", "link", "linkat", "symlink", "symlinkat",
        "readlink", "readlinkat", "__readlink*", "chmod", "fchmod", "fchmodat", "lchmod", "chown", "fchown",
        "fchownat", "lchown", "utime", "utimes", "futimes", "futimesat", "lutimes", "futimens", "utimensat",
        "mknod", "mknodat", "__xmknod*", "mkfifo", "mkfifoat", "*xattr",
        # directories
        "opendir", "fdopendir", "closedir", "readdir", "readdir64", "readdir_r", "readdir64_r", "rewinddir",
        "seekdir", "telldir", "scandir*", "dirfd", "getdents64", "getdirentries*",
        # temporary files and names
        "mkstemp*", "mkostemp*", "mkdtemp", "mktemp",
        # descriptors duplicated and controlled, locks, mappings
        "dup", "dup2", "__dup2", "dup3", "fcntl", "fcntl64", "__fcntl", "flock", "lockf", "lockf64",
        "mmap", "mmap64", "__mmap", "munmap", "__munmap", "msync", "mremap",
        # asynchronous I/O, transfers between descriptors
        "aio_*", "lio_*", "copy_file_range", "sendfile", "sendfile64", "splice", "tee", "vmsplice",
        # the process image replaced or ended: the trace is written first
        "execve", "execv", "execvp", "execvpe", "fexecve", "execl", "execle", "execlp", "_exit", "_Exit",
    ],
    "stdio": [
        # streams opened and closed
        "fopen", "fopen64", "fdopen", "freopen", "freopen64", "fclose", "fcloseall", "tmpfile", "tmpfile64",
        "fmemopen", "open_memstream", "open_wmemstream", "fopencookie", "popen", "pclose", "_IO_fopen",
        "_IO_fdopen", "_IO_fclose", "_IO_popen", "_IO_proc_*",
        # data
        "fread", "fread_unlocked", "__fread*", "fwrite", "fwrite_unlocked", "_IO_fread", "_IO_fwrite",
        "fgets", "fgets_unlocked", "__fgets*", "fputs", "fputs_unlocked", "_IO_fgets", "_IO_fputs", "puts",
        "_IO_puts", "gets", "fgetc", "fgetc_unlocked", "getc", "getc_unlocked", "_IO_getc", "getchar",
        "getchar_unlocked", "fputc", "fputc_unlocked", "putc", "putc_unlocked", "_IO_putc", "putchar",
        "putchar_unlocked", "ungetc", "getw", "putw", "getline", "getdelim", "__getdelim", "_IO_getline*",
        # formatted, on streams and descriptors (not strings)
        "fprintf", "vfprintf", "printf", "vprintf", "dprintf", "vdprintf", "__fprintf_chk", "__vfprintf_chk",
        "__printf_chk", "__vprintf_chk", "__dprintf_chk", "__vdprintf_chk", "_IO_fprintf", "_IO_printf",
        "_IO_vfprintf", "fscanf", "vfscanf", "scanf", "vscanf", "__isoc99_fscanf", "__isoc99_vfscanf",
        "__isoc99_scanf", "__isoc99_vscanf", "__vfscanf", "_IO_vfscanf", "perror",
        # wide-character streams
        "fgetwc*", "fgetws*", "fputwc*", "fputws*", "getwc*", "putwc*", "getwchar*", "putwchar*", "ungetwc",
        "fwprintf", "vfwprintf", "wprintf", "vwprintf", "__fwprintf_chk", "__vfwprintf_chk", "__wprintf_chk",
        "__vwprintf_chk", "fwscanf", "vfwscanf", "wscanf", "vwscanf", "__isoc99_fwscanf", "__isoc99_vfwscanf",
        "__isoc99_wscanf", "__isoc99_vwscanf", "fwide", "__fgetws*",
        # positions, buffers, state
        "fseek", "fseeko", "fseeko64", "ftell", "ftello", "ftello64", "rewind", "fgetpos", "fgetpos64",
        "fsetpos", "fsetpos64", "_IO_fgetpos*", "_IO_fsetpos*", "_IO_ftell", "_IO_seekoff", "_IO_seekpos",
        "fflush", "fflush_unlocked", "_IO_fflush", "fpurge", "__fpurge", "setvbuf", "setbuf", "setbuffer",
        "setlinebuf", "_IO_setvbuf", "_IO_setbuffer", "feof", "feof_unlocked", "ferror", "ferror_unlocked",
        "clearerr", "clearerr_unlocked", "fileno", "fileno_unlocked", "flockfile", "funlockfile", "ftrylockfile",
        "__fsetlocking", "__fbufsize", "__freading", "__fwriting", "__freadable", "__fwritable", "__flbf",
        "__fpending", "_flushlbf",
    ],
}


def exported(lib):
    """The functions a program can link against: default versions (NAME@@V),
    not compatibility ones (NAME@V, for binaries linked long ago) nor
    GLIBC_PRIVATE ones (for glibc's own libraries)."""
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) != 3 or f[1] not in "TW":
            continue
        name, _, version = f[2].partition("@")
        if version and (not version.startswith("@") or version == "@GLIBC_PRIVATE"):
            continue
        names.add(name)
    return names


def spec_names(path):
    """The function names of a spec file: the word before '(' after '|'."""
    names = set()
    for line in open(path):
        if line.startswith("#") or "|" not in line:
            continue
        m = re.search(r"(\w+)\s*\(", line.split("|", 1)[1])
        if m:
            names.add(m.group(1))
    return names


def exclusions(path):
    rules, bad = [], []
    if not os.path.exists(path):
        return rules, bad
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        f = line.split(None, 2)
        if f[0] not in FILE_IO:
            continue
        if len(f) < 3 or len(f[2]) < 10:
            bad.append("%s:%d: LAYER PATTERN REASON, with a reason" % (path, n))
            continue
        rules.append((f[0], f[1], n))
    return rules, bad


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    specdir = argv[0]
    lib = argv[1] if len(argv) > 1 else "/lib/x86_64-linux-gnu/libc.so.6"
    traced = {lay: spec_names(os.path.join(specdir, lay + ".spec")) for lay in FILE_IO}
    alltraced = traced["posix"] | traced["stdio"]
    rules, problems = exclusions(os.path.join(specdir, "not-traced.txt"))
    libc = exported(lib)
    used, checked, nexcl = set(), 0, 0
    for lay, pats in FILE_IO.items():
        for name in sorted(n for n in libc if any(fnmatch.fnmatchcase(n, p) for p in pats)):
            checked += 1
            if name in alltraced:
                continue
            hit = [r for r in rules if r[0] == lay and fnmatch.fnmatchcase(name, r[1])]
            if hit:
                used.update(r[2] for r in hit)
                nexcl += 1
            else:
                problems.append("%s %s: neither traced nor excluded" % (lay, name))
    for lay, pat, n in rules:
        if n not in used:
            problems.append("not-traced.txt:%d: %s %s matches no exported file I/O function" % (n, lay, pat))
    for lay in FILE_IO:
        for name in sorted(traced[lay] - libc):
            print("note: %s %s is traced but %s does not export it" % (lay, name, os.path.basename(lib)))
    for p in problems:
        print(p)
    print("%d glibc file I/O functions: %d traced, %d excluded, %d problems" %
          (checked, checked - nexcl - len([p for p in problems if "neither" in p]), nexcl, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
