/* cols: events as columns, for the columnar reader of libsiot.so
 * (siot/lib.h, siot_lib_fill; the arrays: siot/lib_columns.h): each
 * event's fields are written into row i of arrays the caller owns
 * (Python's numpy arrays), so that a DataFrame is
 * built without one object per event. Functions and layers are codes into
 * the trace's tables; every argument name of the trace's functions is one
 * column; an argument's text (a path, a mode) or other non-integer value (a
 * status) is a code into a table of texts kept here per column, so that a
 * column of 10^6 paths holds each distinct path once.
 *
 * Memory: the table of texts grows with the distinct texts, not with the
 * events. Locks: none; a siot_cols belongs to one cursor.
 * Errors: siot_cols_init and siot_cols_put return -1 with a reason in err
 * (out of memory, an argument that cannot be evaluated). */
#ifndef SIOT_COLS_H
#define SIOT_COLS_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "core/vbuf.h"
#include "replay/synth.h"
#include "siot/lib_columns.h"

typedef struct siot_cols_text {
    uint64_t hash;
    uint32_t col, code, off, len; /* the text is texts.data[off .. off+len) */
    uint8_t kind;                 /* SIOT_LIB_STR or SIOT_LIB_JSON */
} siot_cols_text;

typedef struct siot_cols {
    uint32_t ncols;       /* argument columns */
    const char **names;   /* their names, in order of the trace's functions */
    uint32_t *map;        /* map[first[f] + k]: column of function f's argument k */
    uint32_t *first;      /* per function of the trace */
    uint32_t *next_code;  /* per column: codes given so far */
    /* function and layer codes, in the order the rows first show them */
    int32_t *fcode;       /* per function of the trace: its code, or -1 */
    uint32_t *fby, nf;    /* the function of each code */
    int32_t lcode[SIOT_NLAYERS];
    uint32_t lby[SIOT_NLAYERS], nl;
    /* per column, since the last siot_cols_codes: values written, the
     * first row written, the kinds written (bit per kind) */
    uint64_t *count, *first_row;
    uint8_t *kinds;
    siot_cols_text *tab;  /* open addressing, cap a power of two */
    uint32_t cap, used;
    uint32_t *order;      /* text ids in the order they were made (index into tab) */
    siot_vbuf texts, scratch, json;
    int oom;
} siot_cols;

int siot_cols_init(siot_cols *c, const siot_trace *t, char *err, size_t errlen);
void siot_cols_free(siot_cols *c);
/* The names of the tables the codes refer to, as JSON:
 * {"layers":[...],"funcs":[...],"args":[...],"func_layer":[...],"func_args":
 * [[column, ...] per function]}, NUL-terminated into o. */
void siot_cols_tables(const siot_cols *c, const siot_trace *t, siot_vbuf *o);
/* Row `row` of out from the event. */
int siot_cols_put(siot_cols *c, const siot_trace *t, const siot_synth_ev *ev, const siot_lib_columns *out,
                  uint64_t row, char *err, size_t errlen);
/* {"funcs":[...],"layers":[...],"args":[[column, values, first row,
 * kinds], ...]}: per code of the func and layer columns, the trace's
 * function (index into "funcs" of the tables) and layer; per argument
 * column written since the last call, how many values, its first row and
 * the kinds written (bit 1 << kind); NUL-terminated into o. Starts the
 * argument counts anew. */
void siot_cols_codes(siot_cols *c, siot_vbuf *o);
/* The texts made since the `from`-th, as a JSON array of [column, kind,
 * "text"] in the order their codes were given, NUL-terminated into o. */
void siot_cols_texts(const siot_cols *c, uint32_t from, siot_vbuf *o);

#endif
