/* siot-gen: the generator of everything that is written once per traced
 * function, from the specification (the spec folder, docs/spec-format.md):
 *
 *   functab.h / functab.c   the table of traced functions (ids, names, roles)
 *   wrap_<layer>.c          --wrap wrappers (posix, stdio, hdf5, pnetcdf)
 *   pmpi_<layer>.c          PMPI wrappers (mpi, mpiio)
 *   fort_mpi.c              Fortran wrappers (Open MPI)
 *   replay_all.c            the replayers of ioreplay
 *   wrap-<layer>.syms       the --wrap=NAME lines of each --wrap layer, and
 *                           of the PMPI_ names of a PMPI layer (option wrap)
 *
 * usage: siot-gen OUTDIR SPEC...      siot-gen --roles (the role table, as markdown)
 *        siot-gen --list SPEC...      (the traced functions: layer, name, condition)
 *        siot-gen --table SPEC...     (docs/recording.md's table of them, as markdown)
 *
 * The files: parse.c reads the spec into the model below; roles.c is the
 * table of parameter roles, each with how it is recorded, replayed,
 * converted from Fortran and documented; emit_wrap.c, emit_fort.c,
 * emit_replay.c and emit_tables.c write the outputs from both. A new traced
 * function is a spec line; a new role is an entry of roles.c.
 *
 * Errors: a fault in the spec, or an output that cannot be created, is one
 * line on stderr ("SPEC:LINE: message" from die(), or perror's) and exit
 * status 1; status 2 for a usage error. A spec line longer than
 * SPEC_LINE_MAX bytes, as written or as a %family member makes it, is such
 * a fault. Writes to the outputs are not checked, and spec fields longer
 * than their arrays are cut silently. */
#ifndef SIOT_GEN_H
#define SIOT_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/roles.h"

#define MAXP 24
#define SPEC_LINE_MAX 4095 /* bytes of a spec line, without its newline */
#define MAXF 2048

typedef struct param {
    char decl[256]; /* as written, e.g. "const int sendcounts[]" */
    char type[192]; /* decl without the name */
    char name[256];
    int role;
    char arg[64];   /* the role's argument, ROLE(ARG): an array length, a multiplier, a value */
    int rootonly;   /* @root: recorded on the root rank only */
    int index1;     /* @index1: an index that Fortran counts from 1 */
    int variadic;
    int rec;        /* index among recorded parameters, -1 if not recorded */
} param;

typedef struct func {
    char file[128];
    int line;
    int layer;
    unsigned cls;
    int retrole;
    char rettype[96];
    char name[96];
    int np;
    param p[MAXP];
    int nrec;
    /* options (docs/spec-format.md) */
    int cond_none;       /* cond=none */
    int agree;           /* agree: the ranks agree on the new handle's id */
    int closes;          /* closes: the call closes its stream, directory or descriptor */
    char real[96];       /* real=NAME */
    char replay[96];     /* replay=NAME: ioreplay calls NAME(c, args...) (replay/rp.h) instead; a completion NAME(c, rec_ret, args...) */
    char stdstream[16];  /* stream=stdout|stdin: the stream a call without one uses (printf, scanf) */
    int consumed;        /* consumed: bytes = how far the call moved its stream's position (scanf) */
    char noreplay[160];  /* noreplay="why" */
    char covered[160];   /* covered="how": its effect is made by another replayed call */
    char bytes[512];     /* bytes=EXPR: C expression of the event's bytes */
    char cond[160];      /* if="COND": compiled only where the preprocessor condition holds */
    int removed;         /* removed: a name removed from the standard that the libraries still export */
    int wrap;            /* wrap: a PMPI_ name the program calls itself, reached by the linker's --wrap */
} func;

extern func F[MAXF];
extern int NF;

/* parse.c */
void read_spec(const char *path);
void die(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));

/* output (emit_tables.c) */
extern FILE *out;
void o(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
FILE *open_out(const char *dir, const char *name);
/* The pragmas of a generated file whose calls declare every argument's
 * variable, used or not (the Fortran wrappers, the replay). */
#define GEN_NO_UNUSED_WARNINGS                                  \
    "#pragma GCC diagnostic ignored \"-Wunused-variable\"\n" \
    "#pragma GCC diagnostic ignored \"-Wunused-but-set-variable\"\n"

/* helpers shared by the emitters (emit_tables.c) */
const param *find_role(const func *f, int role);
int is_wrap_layer(int layer);
int is_mpi_layer(int layer);
int is_mpi_ret(const func *f);
const char *success_expr(const func *f);
void len_expr(const func *f, const param *p, char *buf, size_t n);
void pointee(const param *p, char *buf, size_t n);
void emit_params(const func *f);
void emit_cond_begin(const func *f);
void emit_cond_end(const func *f);
void emit_removed_decl(const func *f, const char *prefix);
const param *agreed_handle(const func *f);

/* roles.c: the role table */
typedef struct role_def role_def;
const role_def *role_of(int role);
int role_recorded(int role);
/* Recording: before the real call, and into the event after it. */
void role_pre(const func *f, const param *p);
void role_record(const func *f, const param *p);
/* The role is recorded without the runtime's shared tables (no lock needed). */
int role_own(int role);
/* Replay: the argument from the recorded value, or for an unrecorded one;
 * after the replayed call. */
void role_replay_arg(const func *f, const param *p);
void role_replay_unrecorded(const func *f, const param *p);
void role_replay_post(const func *f, const param *p);
/* Fortran (Open MPI): C locals from the Fortran arguments, before and after the call. */
const char *role_fort_handle(int role); /* the MPI_X of MPI_X_f2c, or NULL */
int role_fortran_ok(int role);           /* the Fortran bindings have the parameter */
void role_fort_pre(const func *f, const param *p, const char *L);
void role_fort_post(const func *f, const param *p);
/* The markdown table of docs/spec-format.md. */
void roles_doc(FILE *fp);

/* the emitters */
void emit_functab(const char *dir);
void emit_layer_file(const char *dir, int layer);
void emit_replay_file(const char *dir);
const char *not_replayable(const func *f); /* why ioreplay does not reissue it, or NULL */
void emit_coverage_table(FILE *fp);
void emit_fortran_file(const char *dir);
extern int fortran_mode; /* emitting Fortran wrappers: statuses are converted elsewhere */
void emit_record_param(const func *f, const param *p);
void emit_record_event(const func *f, const char *init_ret, int fortran);
void emit_pre(const func *f);
void emit_record_before(const func *f, const char *rettype, void (*before_end)(const func *));

#endif
