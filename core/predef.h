/* predef: the predefined MPI objects and their fixed ids in traces
 * (docs/handles.md). Append only: the ids are stored in trace files.
 * The lists expand to names in MPI-free code (siot) and to handles in the
 * MPI layer, so both sides always agree. Names that alias another handle in
 * an implementation (MPI_LONG_LONG in MPICH) take the id of the first.
 *
 * Errors: siot_predef_name returns NULL for an id that is not predefined;
 * the rest is macros. */
#ifndef SIOT_PREDEF_H
#define SIOT_PREDEF_H

#define SIOT_PREDEF_COMMS(X) X(0, MPI_COMM_WORLD) X(1, MPI_COMM_SELF)
#define SIOT_COMM_BASE 2

#define SIOT_PREDEF_GROUPS(X) X(0, MPI_GROUP_EMPTY)
#define SIOT_GROUP_BASE 1

#define SIOT_PREDEF_DTYPES(X)                                                                                   \
    X(0, MPI_CHAR) X(1, MPI_SIGNED_CHAR) X(2, MPI_UNSIGNED_CHAR) X(3, MPI_BYTE) X(4, MPI_WCHAR) X(5, MPI_SHORT)  \
    X(6, MPI_UNSIGNED_SHORT) X(7, MPI_INT) X(8, MPI_UNSIGNED) X(9, MPI_LONG) X(10, MPI_UNSIGNED_LONG)           \
    X(11, MPI_LONG_LONG_INT) X(12, MPI_LONG_LONG) X(13, MPI_UNSIGNED_LONG_LONG) X(14, MPI_FLOAT)                \
    X(15, MPI_DOUBLE) X(16, MPI_LONG_DOUBLE) X(17, MPI_C_BOOL) X(18, MPI_INT8_T) X(19, MPI_INT16_T)            \
    X(20, MPI_INT32_T) X(21, MPI_INT64_T) X(22, MPI_UINT8_T) X(23, MPI_UINT16_T) X(24, MPI_UINT32_T)           \
    X(25, MPI_UINT64_T) X(26, MPI_AINT) X(27, MPI_COUNT) X(28, MPI_OFFSET) X(29, MPI_C_COMPLEX)                \
    X(30, MPI_C_FLOAT_COMPLEX) X(31, MPI_C_DOUBLE_COMPLEX) X(32, MPI_C_LONG_DOUBLE_COMPLEX) X(33, MPI_FLOAT_INT) \
    X(34, MPI_DOUBLE_INT) X(35, MPI_LONG_INT) X(36, MPI_2INT) X(37, MPI_SHORT_INT) X(38, MPI_LONG_DOUBLE_INT)  \
    X(39, MPI_PACKED) X(40, MPI_CHARACTER) X(41, MPI_INTEGER) X(42, MPI_REAL) X(43, MPI_DOUBLE_PRECISION)      \
    X(44, MPI_COMPLEX) X(45, MPI_DOUBLE_COMPLEX) X(46, MPI_LOGICAL) X(47, MPI_2INTEGER) X(48, MPI_2REAL)       \
    X(49, MPI_2DOUBLE_PRECISION) X(50, MPI_INTEGER1) X(51, MPI_INTEGER2) X(52, MPI_INTEGER4)                   \
    X(53, MPI_INTEGER8) X(54, MPI_REAL4) X(55, MPI_REAL8) X(56, MPI_REAL16) X(57, MPI_COMPLEX8)                \
    X(58, MPI_COMPLEX16) X(59, MPI_COMPLEX32) X(60, MPI_CXX_BOOL) X(61, MPI_CXX_FLOAT_COMPLEX)                 \
    X(62, MPI_CXX_DOUBLE_COMPLEX) X(63, MPI_CXX_LONG_DOUBLE_COMPLEX)
#define SIOT_DTYPE_BASE 256

#define SIOT_PREDEF_OPS(X)                                                                                   \
    X(0, MPI_MAX) X(1, MPI_MIN) X(2, MPI_SUM) X(3, MPI_PROD) X(4, MPI_LAND) X(5, MPI_BAND) X(6, MPI_LOR)     \
    X(7, MPI_BOR) X(8, MPI_LXOR) X(9, MPI_BXOR) X(10, MPI_MINLOC) X(11, MPI_MAXLOC) X(12, MPI_REPLACE)      \
    X(13, MPI_NO_OP)
#define SIOT_OP_BASE 64

/* Portable encodings of MPI's special ranks and tags. */
#define SIOT_ANY_SOURCE (-1)
#define SIOT_PROC_NULL (-2)
#define SIOT_ROOT (-3)
#define SIOT_ANY_TAG (-1)

/* A request the recorder did not see made (by a call it does not record),
 * never written as the null handle's id -1: a replay cannot reissue a call
 * on it. Counted in the trace's note unknown_handles. */
#define SIOT_ID_UNKNOWN (-2)

/* Name of a predefined id (NULL when id is not predefined). kind: 'c' comm,
 * 'g' group, 'd' datatype, 'o' op. */
const char *siot_predef_name(char kind, int64_t id);

#endif
