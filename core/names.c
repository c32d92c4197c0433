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
