/* Conversions for the generated Fortran wrappers (pmpi/fort_record.h). */
#include <stdlib.h>
#include <string.h>

#include "pmpi/fort_record.h"
#include "pmpi/mpi_record.h"

#define SIOT_FORT_MAX (1 << 24)

const char *siot_fstr(const char *s, size_t len, char *buf, size_t cap)
{
    if (!s || !cap)
        return NULL;
    while (len && s[len - 1] == ' ')
        len--;
    size_t start = 0;
    while (start < len && s[start] == ' ')
        start++;
    size_t n = len - start < cap - 1 ? len - start : cap - 1;
    memcpy(buf, s + start, n);
    buf[n] = 0;
    return buf;
}

MPI_Request *siot_f2c_reqs(const void *f, int64_t n, MPI_Request *stack, int cap)
{
    if (!f || n <= 0 || n > SIOT_FORT_MAX)
        return NULL;
    MPI_Request *c = n <= cap ? stack : malloc((size_t)n * sizeof *c);
    if (c)
        siot_f2c_reqs_again(f, n, c);
    return c;
}

void siot_f2c_reqs_again(const void *f, int64_t n, MPI_Request *c)
{
    if (!f || !c)
        return;
    const MPI_Fint *v = f;
    for (int64_t i = 0; i < n; i++)
        c[i] = PMPI_Request_f2c(v[i]);
}

MPI_Datatype *siot_f2c_dtypes(const void *f, int64_t n, MPI_Datatype *stack, int cap)
{
    if (!f || n <= 0 || n > SIOT_FORT_MAX)
        return NULL;
    MPI_Datatype *c = n <= cap ? stack : malloc((size_t)n * sizeof *c);
    if (c) {
        const MPI_Fint *v = f;
        for (int64_t i = 0; i < n; i++)
            c[i] = PMPI_Type_f2c(v[i]);
    }
    return c;
}

MPI_Aint *siot_f2c_aints(const void *f, size_t width, int64_t n, MPI_Aint *stack, int cap)
{
    if (!f || n <= 0 || n > SIOT_FORT_MAX)
        return NULL;
    MPI_Aint *c = n <= cap ? stack : malloc((size_t)n * sizeof *c);
    for (int64_t i = 0; c && i < n; i++)
        c[i] = width == sizeof(MPI_Fint) ? (MPI_Aint)((const MPI_Fint *)f)[i] : ((const MPI_Aint *)f)[i];
    return c;
}

int *siot_f2c_indices(const void *f, int64_t n, int *stack, int cap)
{
    if (!f || n <= 0 || n > cap)
        return NULL;
    const MPI_Fint *v = f;
    for (int64_t i = 0; i < n; i++)
        stack[i] = v[i] > 0 ? v[i] - 1 : v[i];
    return stack;
}

void siot_fstatus_empty(MPI_Fint *f)
{
    MPI_Status st;
    siot_mpi_status_empty(&st);
    memset(f, 0, SIOT_F_STATUS_SIZE * sizeof *f);
    PMPI_Status_c2f(&st, f);
}

MPI_Status *siot_fstatuses(const void *fs, int64_t n, MPI_Status *c, int ok)
{
    if (!ok || (const MPI_Fint *)fs == MPI_F_STATUSES_IGNORE || n < 0 || n > SIOT_MPI_STATUSES)
        return NULL;
    for (int64_t i = 0; i < n; i++)
        if (PMPI_Status_f2c((const MPI_Fint *)fs + i * SIOT_F_STATUS_INTS, &c[i]) != MPI_SUCCESS)
            return NULL;
    return c;
}
