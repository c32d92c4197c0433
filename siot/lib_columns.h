/* lib_columns: where the columnar reader of libsiot.so writes, the caller's
 * arrays (siot_lib_columns: numpy's, one per field) and the kinds of an
 * argument's value in them. Shared by the library's entry points
 * (siot/lib.h, siot_lib_fill) and the code that fills a row (siot/cols.h),
 * and below both: neither includes the other for it. Python's reader
 * (python/siotrace/columns.py) lays out the same struct.
 *
 * Locks: none. Errors: none (declarations only). */
#ifndef SIOT_LIB_COLUMNS_H
#define SIOT_LIB_COLUMNS_H

#include <stdint.h>

enum { SIOT_LIB_ABSENT = 0, SIOT_LIB_INT = 1, SIOT_LIB_STR = 2, SIOT_LIB_JSON = 3, SIOT_LIB_NULL = 4 };
typedef struct siot_lib_columns {
    int32_t *rank;
    int32_t *thread, *err;        /* written only where not 0: arrays that start zeroed */
    void *seq, *parent;           /* int32_t when narrow (siot_lib_count's most < 2^31), else int64_t */
    int64_t *ret, *bytes;
    uint8_t *has_bytes; /* 0 where the function moves no data (no "bytes" in siot dump) */
    double *start, *dur;
    int8_t *layer;
    int16_t *func;
    int64_t **arg;
    uint8_t **arg_kind;
    int32_t narrow;
} siot_lib_columns;

#endif
