/* names: symbolic forms of recorded integers (names.h). */
#include "core/names.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/predef.h"
#include "core/roles.h"

typedef struct flag_name {
    int64_t bit;
    const char *name;
} flag_name;

/* Linux's O_* bits beyond the access mode; the two-bit forms (O_SYNC
 * includes O_DSYNC, O_TMPFILE includes O_DIRECTORY) come first. */
static const flag_name OPEN_FLAGS[] = {
    {O_SYNC, "O_SYNC"},         {O_TMPFILE, "O_TMPFILE"},   {O_CREAT, "O_CREAT"},
    {O_EXCL, "O_EXCL"},         {O_NOCTTY, "O_NOCTTY"},     {O_TRUNC, "O_TRUNC"},
    {O_APPEND, "O_APPEND"},     {O_NONBLOCK, "O_NONBLOCK"}, {O_DSYNC, "O_DSYNC"},
    {O_ASYNC, "O_ASYNC"},       {O_DIRECT, "O_DIRECT"},     {0100000, "O_LARGEFILE"},
    {O_DIRECTORY, "O_DIRECTORY"}, {O_NOFOLLOW, "O_NOFOLLOW"}, {O_NOATIME, "O_NOATIME"},
    {O_CLOEXEC, "O_CLOEXEC"},   {O_PATH, "O_PATH"},
};

/* MPI-IO access modes (ROMIO's numbers, in both MPI flavours' mpi.h). */
static const flag_name AMODES[] = {
    {2, "MPI_MODE_RDONLY"},          {8, "MPI_MODE_RDWR"},         {4, "MPI_MODE_WRONLY"},
    {1, "MPI_MODE_CREATE"},          {64, "MPI_MODE_EXCL"},        {16, "MPI_MODE_DELETE_ON_CLOSE"},
    {32, "MPI_MODE_UNIQUE_OPEN"},    {128, "MPI_MODE_APPEND"},     {256, "MPI_MODE_SEQUENTIAL"},
};

/* HDF5's H5F_ACC_* flags (H5Fpublic.h, the same in every 1.x); RDONLY is
 * the absence of RDWR, and create flags (TRUNC, EXCL) stand alone. */
static const flag_name H5F_ACC[] = {
    {0x1, "H5F_ACC_RDWR"},       {0x2, "H5F_ACC_TRUNC"},       {0x4, "H5F_ACC_EXCL"},
    {0x10, "H5F_ACC_CREAT"},     {0x20, "H5F_ACC_SWMR_WRITE"}, {0x40, "H5F_ACC_SWMR_READ"},
};

/* netCDF's mode flags (pnetcdf.h and netcdf.h agree): the bits beyond the
 * access bit of an open and the clobber bit of a create. */
static const flag_name NC_MODES[] = {
    {0x8, "NC_DISKLESS"},      {0x10, "NC_MMAP"},    {0x20, "NC_64BIT_DATA"}, {0x100, "NC_CLASSIC_MODEL"},
    {0x200, "NC_64BIT_OFFSET"}, {0x400, "NC_LOCK"},   {0x800, "NC_SHARE"},     {0x1000, "NC_NETCDF4"},
    {0x2000, "NC_MPIIO"},      {0x4000, "NC_PERSIST"}, {0x8000, "NC_INMEMORY"},
};

/* head, then "|NAME" for each table bit set in v, then "|0x..." for bits
 * no entry names. */
static const char *flags(const char *head, int64_t v, const flag_name *t, size_t nt, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "%s", head);
    for (size_t i = 0; i < nt && len < n; i++)
        if ((v & t[i].bit) == t[i].bit) {
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "|" : "", t[i].name);
            v &= ~t[i].bit;
        }
    if (v && len < n)
        snprintf(buf + len, n - len, "%s0x%llx", len ? "|" : "", (unsigned long long)v);
    return buf;
}

static const char *open_flags(int64_t v, char *buf, size_t n)
{
    int64_t acc = v & O_ACCMODE;
    const char *head = acc == O_RDONLY ? "O_RDONLY" : acc == O_WRONLY ? "O_WRONLY" : acc == O_RDWR ? "O_RDWR" : "O_ACCMODE";
    return flags(head, v & ~(int64_t)O_ACCMODE, OPEN_FLAGS, sizeof OPEN_FLAGS / sizeof *OPEN_FLAGS, buf, n);
}

static const char *h5f_acc(int64_t v, char *buf, size_t n)
{
    if (v == 0xffff) /* H5Pset_elink_acc_flags: the parent file's */
        return "H5F_ACC_DEFAULT";
    const char *head = (v & 0x17) ? "" : "H5F_ACC_RDONLY";
    return flags(head, v, H5F_ACC, sizeof H5F_ACC / sizeof *H5F_ACC, buf, n);
}

/* A netCDF mode: bit `first` (NC_WRITE of an open, NC_NOCLOBBER of a
 * create) named on or off, then the other bits. */
static const char *nc_mode(int64_t v, int64_t first, const char *on, const char *off, char *buf, size_t n)
{
    return flags(v & first ? on : off, v & ~first, NC_MODES, sizeof NC_MODES / sizeof *NC_MODES, buf, n);
}

static const char *whence(int64_t v)
{
    switch (v) {
    case SEEK_SET: return "SEEK_SET";
    case SEEK_CUR: return "SEEK_CUR";
    case SEEK_END: return "SEEK_END";
    case SEEK_DATA: return "SEEK_DATA";
    case SEEK_HOLE: return "SEEK_HOLE";
    }
    return NULL;
}

const char *siot_value_name(unsigned role, int64_t v, char *buf, size_t n)
{
    switch (role) {
    case SIOT_ROLE_oflags:
        return v < 0 ? NULL : open_flags(v, buf, n);
    case SIOT_ROLE_h5facc:
        return v < 0 || v > 0xffff ? NULL : h5f_acc(v, buf, n);
    case SIOT_ROLE_nccmode:
        return v < 0 ? NULL : nc_mode(v, 0x4, "NC_NOCLOBBER", "NC_CLOBBER", buf, n);
    case SIOT_ROLE_ncomode:
        return v < 0 ? NULL : nc_mode(v, 0x1, "NC_WRITE", "NC_NOWRITE", buf, n);
    case SIOT_ROLE_mode:
    case SIOT_ROLE_omode:
        if (v < 0 || v > 0177777) /* permissions, with mknod's file type (0100600: S_IFREG|0600) */
            return NULL;
        snprintf(buf, n, "0%03llo", (unsigned long long)v);
        return buf;
    case SIOT_ROLE_whence:
        return whence(v);
    case SIOT_ROLE_amode:
        return v <= 0 ? NULL : flags("", v, AMODES, sizeof AMODES / sizeof *AMODES, buf, n);
    case SIOT_ROLE_comm:
        return siot_predef_name('c', v);
    case SIOT_ROLE_group:
        return siot_predef_name('g', v);
    case SIOT_ROLE_dtype:
        return siot_predef_name('d', v);
    case SIOT_ROLE_op:
        return siot_predef_name('o', v);
    }
    return NULL;
}

const char *siot_errno_name(int64_t e)
{
    if (e <= 0 || e > 4095)
        return NULL;
    return strerrorname_np((int)e);
}

size_t siot_path_lexical(char *p, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (p[i] == '/' && o > 0 && p[o - 1] == '/') { /* a repeated slash */
            i++;
        } else if (p[i] == '.' && (o == 0 || p[o - 1] == '/') && (i + 1 == n || p[i + 1] == '/') && n > 1) {
            i += i + 1 < n ? 2 : 1; /* "./" or a final "." */
        } else {
            p[o++] = p[i++];
        }
    }
    while (o > 1 && p[o - 1] == '/')
        o--;
    if (o == 0 && n > 0) /* "./" */
        p[o++] = '.';
    return o;
}

size_t siot_path_under(const char *dir, const char *s, size_t n)
{
    size_t nd = dir ? strlen(dir) : 0;
    if (nd < 2 || n < nd || memcmp(s, dir, nd) != 0)
        return 0;
    if (n == nd)
        return nd;
    return s[nd] == '/' ? nd + 1 : 0;
}
