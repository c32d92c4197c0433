/* mpierr: the names of MPI error classes (names.h). A trace's `ret` for an
 * MPI call is the class the call returned, as a number, and the numbers
 * differ between flavours (MPI_ERR_NO_SUCH_FILE is 37 in MPICH, 42 in Open
 * MPI), so a reader names it with the table of the flavour the trace header
 * records. The tables are each flavour's mpi.h (MPICH 4.0, Open MPI 4.1),
 * printed by tools/mpierr.py and kept here so that the readers need no MPI
 * installation. */
#include "core/names.h"

#include <string.h>

typedef struct mpi_class {
    int64_t value;
    const char *name;
} mpi_class;

static const mpi_class MPICH_CLASSES[] = {
    {0, "MPI_SUCCESS"}, {1, "MPI_ERR_BUFFER"}, {2, "MPI_ERR_COUNT"}, {3, "MPI_ERR_TYPE"}, {4, "MPI_ERR_TAG"},
    {5, "MPI_ERR_COMM"}, {6, "MPI_ERR_RANK"}, {7, "MPI_ERR_ROOT"}, {8, "MPI_ERR_GROUP"}, {9, "MPI_ERR_OP"},
    {10, "MPI_ERR_TOPOLOGY"}, {11, "MPI_ERR_DIMS"}, {12, "MPI_ERR_ARG"}, {13, "MPI_ERR_UNKNOWN"},
    {14, "MPI_ERR_TRUNCATE"}, {15, "MPI_ERR_OTHER"}, {16, "MPI_ERR_INTERN"}, {17, "MPI_ERR_IN_STATUS"},
    {18, "MPI_ERR_PENDING"}, {19, "MPI_ERR_REQUEST"}, {20, "MPI_ERR_ACCESS"}, {21, "MPI_ERR_AMODE"},
    {22, "MPI_ERR_BAD_FILE"}, {23, "MPI_ERR_CONVERSION"}, {24, "MPI_ERR_DUP_DATAREP"},
    {25, "MPI_ERR_FILE_EXISTS"}, {26, "MPI_ERR_FILE_IN_USE"}, {27, "MPI_ERR_FILE"}, {28, "MPI_ERR_INFO"},
    {29, "MPI_ERR_INFO_KEY"}, {30, "MPI_ERR_INFO_VALUE"}, {31, "MPI_ERR_INFO_NOKEY"}, {32, "MPI_ERR_IO"},
    {33, "MPI_ERR_NAME"}, {34, "MPI_ERR_NO_MEM"}, {35, "MPI_ERR_NOT_SAME"}, {36, "MPI_ERR_NO_SPACE"},
    {37, "MPI_ERR_NO_SUCH_FILE"}, {38, "MPI_ERR_PORT"}, {39, "MPI_ERR_QUOTA"}, {40, "MPI_ERR_READ_ONLY"},
    {41, "MPI_ERR_SERVICE"}, {42, "MPI_ERR_SPAWN"}, {43, "MPI_ERR_UNSUPPORTED_DATAREP"},
    {44, "MPI_ERR_UNSUPPORTED_OPERATION"}, {45, "MPI_ERR_WIN"}, {46, "MPI_ERR_BASE"},
    {47, "MPI_ERR_LOCKTYPE"}, {48, "MPI_ERR_KEYVAL"}, {49, "MPI_ERR_RMA_CONFLICT"}, {50, "MPI_ERR_RMA_SYNC"},
    {51, "MPI_ERR_SIZE"}, {52, "MPI_ERR_DISP"}, {53, "MPI_ERR_ASSERT"}, {55, "MPI_ERR_RMA_RANGE"},
    {56, "MPI_ERR_RMA_ATTACH"}, {57, "MPI_ERR_RMA_SHARED"}, {58, "MPI_ERR_RMA_FLAVOR"},
    {59, "MPI_T_ERR_MEMORY"}, {60, "MPI_T_ERR_NOT_INITIALIZED"}, {61, "MPI_T_ERR_CANNOT_INIT"},
    {62, "MPI_T_ERR_INVALID_INDEX"}, {63, "MPI_T_ERR_INVALID_ITEM"}, {64, "MPI_T_ERR_INVALID_HANDLE"},
    {65, "MPI_T_ERR_OUT_OF_HANDLES"}, {66, "MPI_T_ERR_OUT_OF_SESSIONS"}, {67, "MPI_T_ERR_INVALID_SESSION"},
    {68, "MPI_T_ERR_CVAR_SET_NOT_NOW"}, {69, "MPI_T_ERR_CVAR_SET_NEVER"}, {70, "MPI_T_ERR_PVAR_NO_STARTSTOP"},
    {71, "MPI_T_ERR_PVAR_NO_WRITE"}, {72, "MPI_T_ERR_PVAR_NO_ATOMIC"}, {73, "MPI_T_ERR_INVALID_NAME"},
    {74, "MPI_T_ERR_INVALID"}, {75, "MPI_ERR_SESSION"}, {76, "MPI_ERR_PROC_ABORTED"},
    {77, "MPI_ERR_VALUE_TOO_LARGE"}, {78, "MPI_T_ERR_NOT_SUPPORTED"},
};
static const mpi_class OPENMPI_CLASSES[] = {
    {0, "MPI_SUCCESS"}, {1, "MPI_ERR_BUFFER"}, {2, "MPI_ERR_COUNT"}, {3, "MPI_ERR_TYPE"}, {4, "MPI_ERR_TAG"},
    {5, "MPI_ERR_COMM"}, {6, "MPI_ERR_RANK"}, {7, "MPI_ERR_REQUEST"}, {8, "MPI_ERR_ROOT"},
    {9, "MPI_ERR_GROUP"}, {10, "MPI_ERR_OP"}, {11, "MPI_ERR_TOPOLOGY"}, {12, "MPI_ERR_DIMS"},
    {13, "MPI_ERR_ARG"}, {14, "MPI_ERR_UNKNOWN"}, {15, "MPI_ERR_TRUNCATE"}, {16, "MPI_ERR_OTHER"},
    {17, "MPI_ERR_INTERN"}, {18, "MPI_ERR_IN_STATUS"}, {19, "MPI_ERR_PENDING"}, {20, "MPI_ERR_ACCESS"},
    {21, "MPI_ERR_AMODE"}, {22, "MPI_ERR_ASSERT"}, {23, "MPI_ERR_BAD_FILE"}, {24, "MPI_ERR_BASE"},
    {25, "MPI_ERR_CONVERSION"}, {26, "MPI_ERR_DISP"}, {27, "MPI_ERR_DUP_DATAREP"},
    {28, "MPI_ERR_FILE_EXISTS"}, {29, "MPI_ERR_FILE_IN_USE"}, {30, "MPI_ERR_FILE"}, {31, "MPI_ERR_INFO_KEY"},
    {32, "MPI_ERR_INFO_NOKEY"}, {33, "MPI_ERR_INFO_VALUE"}, {34, "MPI_ERR_INFO"}, {35, "MPI_ERR_IO"},
    {36, "MPI_ERR_KEYVAL"}, {37, "MPI_ERR_LOCKTYPE"}, {38, "MPI_ERR_NAME"}, {39, "MPI_ERR_NO_MEM"},
    {40, "MPI_ERR_NOT_SAME"}, {41, "MPI_ERR_NO_SPACE"}, {42, "MPI_ERR_NO_SUCH_FILE"}, {43, "MPI_ERR_PORT"},
    {44, "MPI_ERR_QUOTA"}, {45, "MPI_ERR_READ_ONLY"}, {46, "MPI_ERR_RMA_CONFLICT"}, {47, "MPI_ERR_RMA_SYNC"},
    {48, "MPI_ERR_SERVICE"}, {49, "MPI_ERR_SIZE"}, {50, "MPI_ERR_SPAWN"}, {51, "MPI_ERR_UNSUPPORTED_DATAREP"},
    {52, "MPI_ERR_UNSUPPORTED_OPERATION"}, {53, "MPI_ERR_WIN"}, {54, "MPI_T_ERR_MEMORY"},
    {55, "MPI_T_ERR_NOT_INITIALIZED"}, {56, "MPI_T_ERR_CANNOT_INIT"}, {57, "MPI_T_ERR_INVALID_INDEX"},
    {58, "MPI_T_ERR_INVALID_ITEM"}, {59, "MPI_T_ERR_INVALID_HANDLE"}, {60, "MPI_T_ERR_OUT_OF_HANDLES"},
    {61, "MPI_T_ERR_OUT_OF_SESSIONS"}, {62, "MPI_T_ERR_INVALID_SESSION"}, {63, "MPI_T_ERR_CVAR_SET_NOT_NOW"},
    {64, "MPI_T_ERR_CVAR_SET_NEVER"}, {65, "MPI_T_ERR_PVAR_NO_STARTSTOP"}, {66, "MPI_T_ERR_PVAR_NO_WRITE"},
    {67, "MPI_T_ERR_PVAR_NO_ATOMIC"}, {68, "MPI_ERR_RMA_RANGE"}, {69, "MPI_ERR_RMA_ATTACH"},
    {70, "MPI_ERR_RMA_FLAVOR"}, {71, "MPI_ERR_RMA_SHARED"}, {72, "MPI_T_ERR_INVALID"},
    {73, "MPI_T_ERR_INVALID_NAME"},
};

const char *siot_mpi_error_name(const char *flavour, int64_t cls)
{
    const mpi_class *t = NULL;
    size_t n = 0;
    if (flavour && strcmp(flavour, "mpich") == 0) {
        t = MPICH_CLASSES;
        n = sizeof MPICH_CLASSES / sizeof *MPICH_CLASSES;
    } else if (flavour && strcmp(flavour, "openmpi") == 0) {
        t = OPENMPI_CLASSES;
        n = sizeof OPENMPI_CLASSES / sizeof *OPENMPI_CLASSES;
    }
    for (size_t i = 0; i < n; i++)
        if (t[i].value == cls)
            return t[i].name;
    return NULL;
}
