/* emit_fort: the Fortran wrappers of the Open MPI flavour (fort_mpi.c).
 *
 * Open MPI's Fortran bindings call PMPI_* directly, so Fortran programs need
 * wrappers of their own (mpi_file_write_at_all_ and the rest). Each one
 * calls Open MPI's own binding (pmpi_..._) with the caller's arguments
 * untouched, which keeps every Fortran convention (MPI_IN_PLACE, MPI_BOTTOM,
 * blank-padded strings, status arrays) exactly as without tracing; the
 * handles and values are converted to C only to be recorded (roles.c). */
#include <ctype.h>
#include <string.h>

#include "tools/gen/gen.h"

static int is_string_param(const param *p)
{
    return strstr(p->type, "char") && strchr(p->type, '*') && !strstr(p->type, "**");
}

/* Why a function gets no Fortran wrapper, or NULL. */
static const char *not_fortran(const func *f)
{
    size_t n = strlen(f->name);
    if (f->wrap)
        return "a PMPI_ name: the Fortran wrappers call Open MPI's pmpi_ bindings themselves";
    if (n > 2 && strcmp(f->name + n - 2, "_c") == 0)
        return "the large-count forms have no mpif.h binding";
    for (int i = 0; i < f->np; i++)
        if (!role_fortran_ok(f->p[i].role))
            return "a parameter form the Fortran bindings do not share";
    return NULL;
}

static void lower(char *dst, size_t n, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = 0;
}

/* Declarations of the C locals that the recording code reads (named as the
 * C parameters), converted from the Fortran arguments before the call. */
static void emit_fort_pre(const func *f)
{
    /* scalars first: array lengths may name them (commsize needs comm) */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < f->np; i++) {
            const param *p = &f->p[i];
            if (p->role == SIOT_ROLE_cmdline || p->rec < 0 ||
                (siot_role_is_array(p->role) && p->role != SIOT_ROLE_status) != pass)
                continue;
            role_fort_pre(f, p, NULL);
        }
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (p->role == SIOT_ROLE_status || p->role == SIOT_ROLE_iostatus)
            o("    MPI_Fint siot_fs_%s[SIOT_F_STATUS_SIZE];\n    void *%s_fs = %s_f;\n"
              "    if ((MPI_Fint *)%s_f == MPI_F_STATUS_IGNORE) {\n        siot_fstatus_empty(siot_fs_%s);\n"
              "        %s_fs = siot_fs_%s;\n    }\n",
              p->name, p->name, p->name, p->name, p->name, p->name, p->name);
        /* the statuses of MPI_Waitall and the like, ours for MPI_F_STATUSES_IGNORE (as the C wrappers) */
        const param *arr = find_role(f, SIOT_ROLE_reqarr);
        if (p->role == SIOT_ROLE_statusarr && arr)
            o("    MPI_Fint siot_fss_%s[SIOT_MPI_STATUSES * SIOT_F_STATUS_SIZE];\n    void *%s_fs = %s_f;\n"
              "    if ((MPI_Fint *)%s_f == MPI_F_STATUSES_IGNORE && %s_n <= SIOT_MPI_STATUSES)\n"
              "        %s_fs = siot_fss_%s;\n",
              p->name, p->name, p->name, p->name, arr->name, p->name, p->name);
    }
}

/* After the call: out values and in/out handles as the binding left them. */
static void emit_fort_post(const func *f)
{
    for (int i = 0; i < f->np; i++)
        if (f->p[i].role != SIOT_ROLE_cmdline)
            role_fort_post(f, &f->p[i]);
    /* output index arrays (after outcount is known) */
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (p->role != SIOT_ROLE_outintarr)
            continue;
        char L[256];
        len_expr(f, p, L, sizeof L);
        o("    %s = siot_f2c_indices(%s_f, %s, %s_s, 256);\n", p->name, p->name, L, p->name);
    }
}

typedef struct fort_sig {
    char params[4096], args[4096], pargs[4096], lens[1024], lensd[1024];
} fort_sig;

/* the prototype: every argument by reference, then ierr, then the hidden string lengths */
static void fort_signature(const func *f, fort_sig *s)
{
    size_t pl = 0, al = 0, ql = 0, ll = 0, ld = 0;
    memset(s, 0, sizeof *s);
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (p->role == SIOT_ROLE_cmdline)
            continue;
        int str = is_string_param(p);
        pl += (size_t)snprintf(s->params + pl, sizeof s->params - pl, "%s%s%s_f", pl ? ", " : "",
                               str ? "char *" : "void *", p->name);
        al += (size_t)snprintf(s->args + al, sizeof s->args - al, "%s%s_f", al ? ", " : "", p->name);
        if (p->role == SIOT_ROLE_status || p->role == SIOT_ROLE_iostatus ||
            (p->role == SIOT_ROLE_statusarr && find_role(f, SIOT_ROLE_reqarr)))
            ql += (size_t)snprintf(s->pargs + ql, sizeof s->pargs - ql, "%s%s_fs", ql ? ", " : "", p->name);
        else
            ql += (size_t)snprintf(s->pargs + ql, sizeof s->pargs - ql, "%s%s_f", ql ? ", " : "", p->name);
        if (str) {
            ll += (size_t)snprintf(s->lens + ll, sizeof s->lens - ll, ", %s_len", p->name);
            ld += (size_t)snprintf(s->lensd + ld, sizeof s->lensd - ld, ", size_t %s_len", p->name);
        }
    }
}

static void emit_fort_ending(const func *f, const char *lname, const fort_sig *s, const char *sep)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    emit_record_before(f, "int", emit_fort_pre);
    if (base == SIOT_CLASS_finalize)
        o("    siot_mpi_finalize_hook();\n");
    else
        o("    siot_mpi_abort_hook((int)*(MPI_Fint *)%s_f);\n", f->p[f->np - 1].name);
    o("    p%s_(%s%sierr%s);\n}\n", lname, s->args, sep, s->lens);
}

static void emit_fortran_wrapper(const func *f)
{
    char lname[128];
    lower(lname, sizeof lname, f->name);
    unsigned base = SIOT_CLASS_BASE(f->cls);
    const char *layer = siot_layer_name((unsigned)f->layer);
    static fort_sig s;
    fort_signature(f, &s);
    const char *sep = s.params[0] ? ", " : "";
    o("\n/* %s:%d */\n", f->file, f->line);
    o("extern void p%s_(%s%sMPI_Fint *ierr%s);\n", lname, s.params, sep, s.lensd);
    o("SIOT_TEXT void %s_(%s%sMPI_Fint *ierr%s)\n{\n", lname, s.params, sep, s.lensd);
    if (base == SIOT_CLASS_finalize || base == SIOT_CLASS_abort) {
        emit_fort_ending(f, lname, &s, sep);
        return;
    }
    if (base == SIOT_CLASS_init) {
        o("    int slot = siot_recording(SIOT_LAYER_%s) ? siot_begin(SIOT_FN_%s) : -1;\n", layer, f->name);
        o("    siot_mpi_init_pre();\n");
    } else {
        o("    int slot = -1;\n    if (siot_recording(SIOT_LAYER_%s))\n        slot = siot_begin(SIOT_FN_%s);\n", layer, f->name);
        o("    if (SIOT_LIKELY(slot < 0)) {\n        p%s_(%s%sierr%s);\n", lname, s.args, sep, s.lens);
        if (agreed_handle(f))
            o("        siot_mpi_agree_absent(PMPI_Comm_f2c(*(MPI_Fint *)%s_f));\n", find_role(f, SIOT_ROLE_comm)->name);
        o("        return;\n    }\n");
    }
    emit_fort_pre(f);
    emit_pre(f);
    /* status arrays substituted for MPI_STATUS_IGNORE, the rest as given */
    o("    p%s_(%s%sierr%s);\n", lname, s.pargs, sep, s.lens);
    o("    int ret = (int)*ierr;\n    int siot_e = errno;\n");
    emit_fort_post(f);
    emit_record_event(f, "", 1);
    o("    siot_finish(slot);\n");
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (p->role == SIOT_ROLE_reqarr || p->role == SIOT_ROLE_dtypearr || p->role == SIOT_ROLE_outdtypearr ||
            p->role == SIOT_ROLE_aintarr || p->role == SIOT_ROLE_addrarr)
            o("    if (%s != %s_s) free(%s);\n", p->name, p->name, p->name);
    }
    o("    errno = siot_e;\n}\n");
}

void emit_fortran_file(const char *dir)
{
    fortran_mode = 1;
    out = open_out(dir, "fort_mpi.c");
    o("/* Generated by siot-gen (tools/gen) from the spec files. Do not edit.\n"
      " * Fortran (mpif.h / use mpi) wrappers for Open MPI. */\n");
    o("#include <errno.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n");
    o("#include \"pmpi/mpi_record.h\"\n#include \"pmpi/fort_record.h\"\n#include \"functab.h\"\n");
    o(GEN_NO_UNUSED_WARNINGS);
    for (int i = 0; i < NF; i++) {
        const func *f = &F[i];
        if (!is_mpi_layer(f->layer))
            continue;
        const char *why = not_fortran(f);
        if (why) {
            o("\n/* %s: no Fortran wrapper (%s) */\n", f->name, why);
        } else {
            emit_cond_begin(f);
            emit_fortran_wrapper(f);
            emit_cond_end(f);
        }
    }
    fclose(out);
}
