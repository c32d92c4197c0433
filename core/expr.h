/* expr: building, evaluating and printing the value expressions of
 * core/model.h (constants, progressions over loop iterations and ranks,
 * occurrence sequences, per-rank tables, string patterns, arrays).
 *
 * Errors: the builders return NULL when the arena cannot grow. siot_eval
 * returns -1 when x does not cover ctx or the scratch buffer cannot grow
 * (out is then not to be used); the integer forms return def instead, and
 * siot_arg_index -1 for no such role. siot_x_format leaves running out of
 * memory in out->oom. */
#ifndef SIOT_EXPR_H
#define SIOT_EXPR_H

#include "core/model.h"

siot_expr *siot_x_none(siot_arena *a);
siot_expr *siot_x_const(siot_arena *a, int64_t v);
siot_expr *siot_x_str(siot_arena *a, const char *s, size_t n); /* one literal segment */
siot_expr *siot_x_intarray(siot_arena *a, const int64_t *v, uint32_t n);

/* Evaluates x in ctx. Strings and arrays are built in scratch (reset first)
 * and the value points into it. Returns 0, or -1 when the expression does not
 * cover ctx (an occurrence past a sequence, a rank in no table entry). */
int siot_eval(const siot_expr *x, const siot_ctx *ctx, siot_vbuf *scratch, siot_value *out);
/* Integer shortcut: returns def when the value is not an integer. */
int64_t siot_eval_int(const siot_expr *x, const siot_ctx *ctx, int64_t def);
/* An event's arguments by role: the index of f's first argument with that
 * role (-1: none), and its value evaluated as an integer (def: none, or not
 * recorded in e). */
int siot_arg_index(const siot_funcdesc *f, unsigned role);
int64_t siot_arg_int(const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, unsigned role, int64_t def);
/* The directory descriptor a path argument (index kpath) of an *at call is
 * relative to: the id recorded by the dirfd argument just before it (-100
 * for AT_FDCWD, -1 untraced), or -100 when the call has none. */
int64_t siot_arg_dirfd(const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, int kpath);
/* The other way: the index of the path argument the dirfd argument kdirfd
 * applies to (the first path after it), or -1 when none does. */
int siot_dirfd_path_index(const siot_funcdesc *f, int kdirfd);

/* Polls that found nothing (how many a program makes is timing: a replay
 * does not reissue them, a comparison skips them, SIOT_TOLERANCE folds
 * their counts). siot_poll_flag_arg: the argument of a test or probe that
 * says whether it found something (its flag, else its first count: 0 =
 * nothing), -1 for other calls. siot_aio_poll_idle: an aio completion that
 * found nothing by its result (aio_error's EINPROGRESS, aio_suspend's -1). */
int siot_poll_flag_arg(const siot_funcdesc *f);
int siot_aio_poll_idle(const siot_funcdesc *f, int64_t ret);

/* The value an approximate count stands for: its rounded mean. */
int64_t siot_x_approx_mean(const siot_expr *x);
/* The number of decimal digits of v (1 for 0 to 9): an RDIG value's term. */
unsigned siot_decimal_digits(uint64_t v);

/* Human-readable form for `siot dump`. */
void siot_x_format(const siot_expr *x, siot_vbuf *out);

/* True when x is the same value in every context (no rank, loop or occurrence dependence). */
int siot_x_is_const(const siot_expr *x);

#endif
