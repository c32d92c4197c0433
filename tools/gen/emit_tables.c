/* emit_tables: output, the helpers every emitter shares, and the table of
 * traced functions (functab.h, functab.c). */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/gen/gen.h"

FILE *out;

void o(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
}

FILE *open_out(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    if (!fp) {
        perror(path);
        exit(1);
    }
    return fp;
}

const param *find_role(const func *f, int role)
{
    for (int i = 0; i < f->np; i++)
        if (f->p[i].role == role)
            return &f->p[i];
    return NULL;
}

static const param *find_name(const func *f, const char *name)
{
    for (int i = 0; i < f->np; i++)
        if (strcmp(f->p[i].name, name) == 0)
            return &f->p[i];
    return NULL;
}

int is_mpi_layer(int layer) { return layer == SIOT_LAYER_mpi || layer == SIOT_LAYER_mpiio; }
int is_wrap_layer(int layer) { return !is_mpi_layer(layer); }

/* An MPI error code names one error instance (MPICH makes a new one each
 * time): the class is what a trace keeps, so that runs and replays compare. */
int is_mpi_ret(const func *f) { return is_mpi_layer(f->layer) && strcmp(f->rettype, "int") == 0; }

const char *success_expr(const func *f)
{
    switch (f->retrole) {
    case SIOT_ROLE_r_mpi:
        return "(ret == MPI_SUCCESS)";
    case SIOT_ROLE_r_ptr:
    case SIOT_ROLE_r_newstream:
    case SIOT_ROLE_r_newdir:
    case SIOT_ROLE_r_line:
        return "(ret != NULL)";
    case SIOT_ROLE_r_items:
    case SIOT_ROLE_r_void:
        return "1";
    case SIOT_ROLE_r_nc:
        return "(ret == 0)";
    default:
        return "(ret >= 0)";
    }
}

/* The lengths an array may have besides another parameter or a number: a
 * property of one of the call's handles, found by its role. */
typedef struct len_fn {
    const char *name;
    int role;        /* the parameter it is computed from */
    const char *fmt; /* C expression, %s = that parameter */
} len_fn;
static const len_fn LEN_FNS[] = {
    {"commsize", SIOT_ROLE_comm, "siot_mpi_commsize(%s)"},
    {"localsize", SIOT_ROLE_comm, "siot_mpi_localsize(%s)"},
    {"indegree", SIOT_ROLE_comm, "siot_mpi_indegree(%s)"},
    {"outdegree", SIOT_ROLE_comm, "siot_mpi_outdegree(%s)"},
    {"cartdim", SIOT_ROLE_comm, "siot_mpi_cartdim(%s)"},
    {"spacerank", SIOT_ROLE_hid, "siot_h5_space_rank(%s)"}, /* the dataspace: the first hid */
    {"dsetrank", SIOT_ROLE_hid, "siot_h5_dset_rank(%s)"},   /* the dataset: the first hid */
};

/* C expression for an array length N; N may be a product A*B of lengths
 * (H5Sselect_elements: num_elem*spacerank coordinates). */
void len_expr(const func *f, const param *p, char *buf, size_t n)
{
    const char *star = strchr(p->arg, '*');
    if (star) {
        param a = *p, b = *p;
        snprintf(a.arg, sizeof a.arg, "%.*s", (int)(star - p->arg), p->arg);
        snprintf(b.arg, sizeof b.arg, "%s", star + 1);
        char ea[256], eb[256];
        len_expr(f, &a, ea, sizeof ea);
        len_expr(f, &b, eb, sizeof eb);
        snprintf(buf, n, "(%s * %s)", ea, eb);
        return;
    }
    const param *lp = find_name(f, p->arg);
    if (lp) {
        if (lp->role == SIOT_ROLE_outint)
            snprintf(buf, n, "((%s && %s && *%s > 0) ? (int64_t)*%s : 0)", lp->name, success_expr(f), lp->name,
                     lp->name);
        else
            snprintf(buf, n, "((int64_t)(%s))", lp->name);
        return;
    }
    if (isdigit((unsigned char)p->arg[0])) {
        snprintf(buf, n, "%s", p->arg);
        return;
    }
    if (strcmp(p->arg, "varndims") == 0) {
        const param *nc = find_role(f, SIOT_ROLE_ncid), *var = find_role(f, SIOT_ROLE_varid);
        if (!nc || !var)
            die(f->file, f->line, "%s: length 'varndims' needs ncid and varid parameters", f->name);
        snprintf(buf, n, "siot_nc_varndims(%s, %s)", nc->name, var->name);
        return;
    }
    for (size_t i = 0; i < sizeof LEN_FNS / sizeof *LEN_FNS; i++) {
        if (strcmp(p->arg, LEN_FNS[i].name) != 0)
            continue;
        const param *h = find_role(f, LEN_FNS[i].role);
        if (!h)
            die(f->file, f->line, "%s: length '%s' needs a %s parameter", f->name, p->arg,
                siot_role_name((unsigned)LEN_FNS[i].role));
        snprintf(buf, n, LEN_FNS[i].fmt, h->name);
        return;
    }
    die(f->file, f->line, "%s: unknown array length '%s'", f->name, p->arg);
}

/* The type a pointer parameter points to ("MPI_Offset *" -> "MPI_Offset"). */
void pointee(const param *p, char *buf, size_t n)
{
    snprintf(buf, n, "%s", p->type);
    char *star = strrchr(buf, '*');
    if (star)
        *star = 0;
    char *t = buf;
    while (isspace((unsigned char)*t))
        t++;
    size_t l = strlen(t);
    while (l && isspace((unsigned char)t[l - 1]))
        t[--l] = 0;
    if (strncmp(t, "const ", 6) == 0)
        t += 6;
    memmove(buf, t, strlen(t) + 1);
}

void emit_params(const func *f)
{
    if (f->np == 0) {
        o("void");
        return;
    }
    for (int i = 0; i < f->np; i++) {
        if (f->p[i].variadic)
            o(", ...");
        else
            o("%s%s", i ? ", " : "", f->p[i].decl);
    }
}

/* A collective creation whose ranks agree on the new handle's id (agree). */
const param *agreed_handle(const func *f)
{
    if (!f->agree)
        return NULL;
    const param *p = find_role(f, SIOT_ROLE_newfile);
    if (!p)
        p = find_role(f, SIOT_ROLE_newwin);
    return p ? p : find_role(f, SIOT_ROLE_newcomm);
}

void emit_functab(const char *dir)
{
    out = open_out(dir, "functab.h");
    o("/* Generated by siot-gen (tools/gen). Do not edit. */\n#ifndef SIOT_FUNCTAB_H\n#define SIOT_FUNCTAB_H\n");
    o("enum siot_fn {\n");
    for (int i = 0; i < NF; i++)
        o("    SIOT_FN_%s = %d,\n", F[i].name, i);
    o("    SIOT_NFN = %d\n};\n#endif\n", NF);
    fclose(out);

    out = open_out(dir, "functab.c");
    o("/* Generated by siot-gen (tools/gen). Do not edit. */\n#include \"core/event.h\"\n\n");
    for (int i = 0; i < NF; i++) {
        const func *f = &F[i];
        o("static const char *const an_%d[] = {", i);
        for (int k = 0; k < f->np; k++)
            if (f->p[k].rec >= 0)
                o("\"%s\", ", f->p[k].name);
        o("NULL};\nstatic const uint8_t ar_%d[] = {", i);
        for (int k = 0; k < f->np; k++)
            if (f->p[k].rec >= 0)
                o("%d, ", f->p[k].role);
        o("0};\n");
    }
    o("\nconst siot_funcdesc siot_functab[] = {\n");
    for (int i = 0; i < NF; i++) {
        const func *f = &F[i];
        o("    {\"%s\", %d, 0x%x, %d, %d, an_%d, ar_%d},\n", f->name, f->layer, f->cls, f->retrole, f->nrec, i, i);
    }
    o("};\nconst uint32_t siot_nfuncs = %d;\n", NF);
    fclose(out);
}

/* if="COND": the function exists only where COND holds (MPI-4's large-count
 * forms are not in Open MPI 4.1); its code is compiled there only. */
void emit_cond_begin(const func *f)
{
    if (f->cond[0])
        o("#if %s\n", f->cond);
}

void emit_cond_end(const func *f)
{
    if (f->cond[0])
        o("#endif\n");
}

/* removed: MPI-3.0 removed the name, the libraries still export it, and the
 * headers either omit it (MPICH 4) or turn it into a compile-time error
 * (Open MPI 4.1); the generated code declares it itself, with the
 * prototype the libraries define. prefix: "" and "P" for the profiling name. */
void emit_removed_decl(const func *f, const char *prefix)
{
    if (!f->removed)
        return;
    o("#undef %s%s\n%s %s%s(", prefix, f->name, f->rettype, prefix, f->name);
    emit_params(f);
    o(");\n");
}

/* docs/recording.md's "What is recorded": per layer, the traced functions, how many
 * ioreplay reissues itself, and how many exist only in some libraries. */
void emit_coverage_table(FILE *fp)
{
    int n[SIOT_NLAYERS] = {0}, rp[SIOT_NLAYERS] = {0}, cond[SIOT_NLAYERS] = {0}, total = 0;
    for (int i = 0; i < NF; i++) {
        n[F[i].layer]++;
        rp[F[i].layer] += not_replayable(&F[i]) == NULL;
        cond[F[i].layer] += F[i].cond[0] != 0;
        total++;
    }
    fprintf(fp, "| layer | traced functions | reissued by `ioreplay` itself | only in MPI-4 libraries |\n");
    fprintf(fp, "|---|---:|---:|---:|\n");
    for (int l = 0; l < SIOT_NLAYERS; l++)
        if (n[l])
            fprintf(fp, "| %s | %d | %d | %d |\n", siot_layer_name((unsigned)l), n[l], rp[l], cond[l]);
    fprintf(fp, "| all | %d | | |\n", total);
}
