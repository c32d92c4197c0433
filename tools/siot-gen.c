/* siot-gen: turns the specification of traced functions (the spec files,
 * docs/spec-format.md) into
 *   functab.h / functab.c   the table of traced functions (ids, names, roles)
 *   wrap_<layer>.c          --wrap wrappers (posix, stdio, hdf5, pnetcdf)
 *   pmpi_<layer>.c          PMPI wrappers (mpi, mpiio)
 *   wrap-<layer>.syms       the --wrap=NAME lines of each --wrap layer
 *
 * usage: siot-gen OUTDIR SPEC...
 *
 * Every wrapper has the same shape (src/runtime.h): decide whether to record,
 * reserve the event slot, call the real function, then fill the event from
 * the parameters according to their roles. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "../src/roles.h"

#define MAXP 24
#define MAXF 1024

typedef struct param {
    char decl[256];   /* as written, e.g. "const int sendcounts[]" */
    char type[192];   /* decl without the name */
    char name[256];
    int role;
    char len[64];     /* N of array roles */
    int rootonly;
    int variadic;
    int rec;          /* index among recorded parameters, -1 if not recorded */
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
    int cond_none;
    char real[96];
    char bytes[512]; /* bytes=EXPR: C expression of the event's bytes */
} func;

static func F[MAXF];
static int NF;

static void die(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

static int role_code(const char *s)
{
#define X(n, v)             \
    if (strcmp(s, #n) == 0) \
        return v;
    SIOT_ROLE_LIST(X)
#undef X
    return -1;
}

static int class_code(const char *s)
{
#define X(n, v)             \
    if (strcmp(s, #n) == 0) \
        return v;
    SIOT_CLASS_LIST(X)
#undef X
    return -1;
}

static int is_wrap_layer(int layer) { return layer != SIOT_LAYER_mpi && layer != SIOT_LAYER_mpiio; }

static int is_recorded(int role)
{
    switch (role) {
    case SIOT_ROLE_buf:
    case SIOT_ROLE_ignore:
    case SIOT_ROLE_statusarr:
    case SIOT_ROLE_newinfo:
    case SIOT_ROLE_iostatus:
    case SIOT_ROLE_outreqarr:
    case SIOT_ROLE_fmt:
    case SIOT_ROLE_vargs:
    case SIOT_ROLE_vlist:
        return 0;
    }
    return 1;
}

/* Splits "TYPE NAME" (NAME possibly followed by [] or [][3]) */
static void split_decl(param *p, const char *file, int line)
{
    char d[256];
    snprintf(d, sizeof d, "%s", p->decl);
    char *br = strchr(d, '[');
    char suffix[32] = "";
    if (br) {
        snprintf(suffix, sizeof suffix, "%s", br);
        *br = 0;
    }
    char *e = d + strlen(d);
    while (e > d && isspace((unsigned char)e[-1]))
        *--e = 0;
    char *s = e;
    while (s > d && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
        s--;
    if (s == e)
        die(file, line, "parameter without a name: '%s'", p->decl);
    snprintf(p->name, sizeof p->name, "%s", s);
    *s = 0;
    char *t = trim(d);
    if (strcmp(suffix, "[]") == 0)
        snprintf(p->type, sizeof p->type, "%s *", t);
    else if (strcmp(suffix, "[][3]") == 0)
        snprintf(p->type, sizeof p->type, "%s (*)[3]", t);
    else if (suffix[0])
        die(file, line, "unsupported array form '%s'", suffix);
    else
        snprintf(p->type, sizeof p->type, "%s", t);
}

static void parse_line(char *line, const char *file, int lineno)
{
    char *bar = strchr(line, '|');
    if (!bar)
        die(file, lineno, "missing '|'");
    *bar = 0;
    char *head = trim(line), *proto = trim(bar + 1);
    if (NF >= MAXF)
        die(file, lineno, "too many functions");
    func *f = &F[NF++];
    memset(f, 0, sizeof *f);
    snprintf(f->file, sizeof f->file, "%s", file);
    f->line = lineno;
    /* bytes=EXPR is the last option and may contain spaces */
    char *be = strstr(head, "bytes=");
    if (be) {
        snprintf(f->bytes, sizeof f->bytes, "%s", trim(be + 6));
        *be = 0;
    }

    char *save = NULL;
    char *tok = strtok_r(head, " \t", &save);
    if (!tok || (f->layer = siot_layer_from_name(tok)) < 0)
        die(file, lineno, "unknown layer '%s'", tok ? tok : "");
    tok = strtok_r(NULL, " \t", &save);
    if (!tok)
        die(file, lineno, "missing class");
    {
        char cls[64];
        snprintf(cls, sizeof cls, "%s", tok);
        char *s2 = NULL;
        char *w = strtok_r(cls, "+", &s2);
        int base = class_code(w);
        if (base < 0)
            die(file, lineno, "unknown class '%s'", w);
        f->cls = (unsigned)base;
        while ((w = strtok_r(NULL, "+", &s2))) {
            if (strcmp(w, "nb") == 0)
                f->cls |= SIOT_CLS_NB;
            else if (strcmp(w, "coll") == 0)
                f->cls |= SIOT_CLS_COLL;
            else if (strcmp(w, "begin") == 0)
                f->cls |= SIOT_CLS_BEGIN;
            else if (strcmp(w, "end") == 0)
                f->cls |= SIOT_CLS_END;
            else
                die(file, lineno, "unknown class modifier '%s'", w);
        }
    }
    tok = strtok_r(NULL, " \t", &save);
    if (!tok || strncmp(tok, "ret:", 4) != 0)
        die(file, lineno, "missing ret:ROLE");
    {
        char r[64];
        snprintf(r, sizeof r, "r_%s", tok + 4);
        if ((f->retrole = role_code(r)) < 0)
            die(file, lineno, "unknown return role '%s'", tok);
    }
    while ((tok = strtok_r(NULL, " \t", &save))) {
        if (strcmp(tok, "cond=none") == 0)
            f->cond_none = 1;
        else if (strncmp(tok, "real=", 5) == 0)
            snprintf(f->real, sizeof f->real, "%s", tok + 5);
        else if (strcmp(tok, "fort") == 0)
            ;
        else
            die(file, lineno, "unknown option '%s'", tok);
    }

    char *lp = strchr(proto, '('), *rp = strrchr(proto, ')');
    if (!lp || !rp || rp < lp)
        die(file, lineno, "malformed prototype");
    *lp = 0;
    *rp = 0;
    {
        char *pre = trim(proto);
        char *e = pre + strlen(pre);
        char *s = e;
        while (s > pre && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
            s--;
        snprintf(f->name, sizeof f->name, "%s", s);
        *s = 0;
        snprintf(f->rettype, sizeof f->rettype, "%s", trim(pre));
    }
    char *plist = trim(lp + 1);
    if (strcmp(plist, "void") == 0 || !*plist)
        return;
    /* split on top-level commas */
    int depth = 0;
    char *start = plist;
    for (char *c = plist;; c++) {
        if (*c == '(' || *c == '[')
            depth++;
        if (*c == ')' || *c == ']')
            depth--;
        if ((*c == ',' && depth == 0) || *c == 0) {
            int end = *c == 0;
            *c = 0;
            if (f->np >= MAXP)
                die(file, lineno, "too many parameters");
            param *p = &f->p[f->np++];
            char *ps = trim(start);
            if (strncmp(ps, "...", 3) == 0) {
                p->variadic = 1;
                ps = trim(ps + 3);
            }
            char *colon = strrchr(ps, ':');
            if (!colon)
                die(file, lineno, "parameter '%s' has no role", ps);
            *colon = 0;
            char *role = trim(colon + 1);
            char *at = strchr(role, '@');
            if (at) {
                if (strcmp(at, "@root") != 0)
                    die(file, lineno, "unknown role suffix '%s'", at);
                p->rootonly = 1;
                *at = 0;
            }
            char *paren = strchr(role, '(');
            if (paren) {
                char *close = strchr(paren, ')');
                if (!close)
                    die(file, lineno, "unclosed role argument");
                *close = 0;
                snprintf(p->len, sizeof p->len, "%s", paren + 1);
                *paren = 0;
            }
            if ((p->role = role_code(role)) < 0 || p->role >= 100)
                die(file, lineno, "unknown role '%s'", role);
            if (siot_role_is_array(p->role) && p->role != SIOT_ROLE_status && !p->len[0])
                die(file, lineno, "array role '%s' needs a length", role);
            snprintf(p->decl, sizeof p->decl, "%s", trim(ps));
            split_decl(p, file, lineno);
            if (end)
                break;
            start = c + 1;
        }
    }
    for (int i = 0; i < f->np; i++)
        f->p[i].rec = is_recorded(f->p[i].role) ? f->nrec++ : -1;
    if (f->nrec > 16)
        die(file, lineno, "more than 16 recorded parameters");
}

/* Type families: `%family T name:ctype; name:ctype; ...` declares T; a line
 * using ${T} (the name) or ${T.c} (the C type) stands for one line per
 * member (the typed put/get functions of PnetCDF). */
#define MAXFAM 8
#define MAXMEM 24
static struct family {
    char name[32];
    int n;
    char mname[MAXMEM][32], ctype[MAXMEM][64];
} FAM[MAXFAM];
static int NFAM;

static void add_family(char *t, const char *file, int line)
{
    if (NFAM >= MAXFAM)
        die(file, line, "too many families");
    struct family *fa = &FAM[NFAM++];
    char *sp = strchr(t, ' ');
    if (!sp)
        die(file, line, "%%family NAME members...");
    *sp = 0;
    snprintf(fa->name, sizeof fa->name, "%s", t);
    char *save = NULL;
    for (char *m = strtok_r(sp + 1, ";", &save); m; m = strtok_r(NULL, ";", &save)) {
        char *c = strchr(m, ':');
        if (!c || fa->n >= MAXMEM)
            die(file, line, "bad family member '%s'", m);
        *c = 0;
        snprintf(fa->mname[fa->n], 32, "%s", trim(m));
        snprintf(fa->ctype[fa->n], 64, "%s", trim(c + 1));
        fa->n++;
    }
}

/* Replaces every ${key} of src by val into dst. */
static void subst(char *dst, size_t n, const char *src, const char *key, const char *val)
{
    char pat[64];
    snprintf(pat, sizeof pat, "${%s}", key);
    size_t o = 0, pl = strlen(pat), vl = strlen(val);
    while (*src && o + 1 < n) {
        if (strncmp(src, pat, pl) == 0) {
            if (o + vl >= n)
                break;
            memcpy(dst + o, val, vl);
            o += vl;
            src += pl;
        } else {
            dst[o++] = *src++;
        }
    }
    dst[o] = 0;
}

static void read_spec(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        perror(path);
        exit(1);
    }
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, fp)) {
        n++;
        char *h = strchr(line, '#');
        if (h)
            *h = 0;
        char *t = trim(line);
        if (!*t)
            continue;
        if (strncmp(t, "%family ", 8) == 0) {
            add_family(trim(t + 8), path, n);
            continue;
        }
        int expanded = 0;
        for (int fi = 0; fi < NFAM && !expanded; fi++) {
            char key[48];
            snprintf(key, sizeof key, "${%.31s}", FAM[fi].name);
            char keyc[48];
            snprintf(keyc, sizeof keyc, "${%.31s.c}", FAM[fi].name);
            if (!strstr(t, key) && !strstr(t, keyc))
                continue;
            expanded = 1;
            for (int m = 0; m < FAM[fi].n; m++) {
                char a[4096], b[4096], kc[40];
                snprintf(kc, sizeof kc, "%.31s.c", FAM[fi].name);
                subst(a, sizeof a, t, FAM[fi].name, FAM[fi].mname[m]);
                subst(b, sizeof b, a, kc, FAM[fi].ctype[m]);
                parse_line(b, path, n);
            }
        }
        if (!expanded)
            parse_line(t, path, n);
    }
    fclose(fp);
}

/* ------------------------------------------------------------------ output */

static FILE *out;
static void o(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void o(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
}

static FILE *open_out(const char *dir, const char *name)
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

static const param *find_role(const func *f, int role)
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

static const char *real_name(const func *f, char *buf, size_t n)
{
    if (f->real[0])
        snprintf(buf, n, "%s", f->real);
    else if (is_wrap_layer(f->layer))
        snprintf(buf, n, "__real_%s", f->name);
    else
        snprintf(buf, n, "P%s", f->name);
    return buf;
}

static int has_variadic(const func *f) { return f->np && f->p[f->np - 1].variadic; }
static int is_printf_like(const func *f) { return has_variadic(f) && f->p[f->np - 1].role == SIOT_ROLE_vargs; }

static void emit_params(const func *f)
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

/* The argument list of the real call; status parameters may be substituted. */
static void emit_args(const func *f, int substituted)
{
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (i)
            o(", ");
        if (substituted && (p->role == SIOT_ROLE_status || p->role == SIOT_ROLE_iostatus))
            o("siot_sp_%s", p->name);
        else
            o("%s", p->name);
    }
}

static const char *success_expr(const func *f)
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

/* C expression for an array length N. */
static void len_expr(const func *f, const param *p, char *buf, size_t n)
{
    const param *comm = find_role(f, SIOT_ROLE_comm);
    const param *lp = find_name(f, p->len);
    if (lp) {
        if (lp->role == SIOT_ROLE_outint)
            snprintf(buf, n, "((%s && %s && *%s > 0) ? (int64_t)*%s : 0)", lp->name, success_expr(f), lp->name,
                     lp->name);
        else
            snprintf(buf, n, "((int64_t)(%s))", lp->name);
    } else if (strcmp(p->len, "commsize") == 0 || strcmp(p->len, "indegree") == 0 ||
               strcmp(p->len, "outdegree") == 0 || strcmp(p->len, "cartdim") == 0) {
        if (!comm)
            die(f->file, f->line, "%s: length '%s' needs a comm parameter", f->name, p->len);
        snprintf(buf, n, "siot_mpi_%s(%s)", p->len, comm->name);
    } else if (isdigit((unsigned char)p->len[0])) {
        snprintf(buf, n, "%s", p->len);
    } else if (strcmp(p->len, "spacerank") == 0) {
        const param *sp = find_name(f, "space_id");
        if (!sp)
            die(f->file, f->line, "%s: length 'spacerank' needs a space_id parameter", f->name);
        snprintf(buf, n, "siot_h5_space_rank(space_id)");
    } else if (strcmp(p->len, "dsetrank") == 0) {
        if (!find_name(f, "dset_id"))
            die(f->file, f->line, "%s: length 'dsetrank' needs a dset_id parameter", f->name);
        snprintf(buf, n, "siot_h5_dset_rank(dset_id)");
    } else if (strcmp(p->len, "varndims") == 0) {
        if (!find_name(f, "ncid") || !find_name(f, "varid"))
            die(f->file, f->line, "%s: length 'varndims' needs ncid and varid parameters", f->name);
        snprintf(buf, n, "siot_nc_varndims(ncid, varid)");
    } else {
        die(f->file, f->line, "%s: unknown array length '%s'", f->name, p->len);
    }
}

/* A collective creation whose ranks agree on the new handle's id. */
static const param *agreed_handle(const func *f)
{
    if (f->layer != SIOT_LAYER_mpi && f->layer != SIOT_LAYER_mpiio)
        return NULL;
    if ((f->cls & SIOT_CLS_NB) || strstr(f->name, "Intercomm") || strstr(f->name, "create_group") ||
        !find_role(f, SIOT_ROLE_comm))
        return NULL;
    const param *p = find_role(f, SIOT_ROLE_newfile);
    return p ? p : find_role(f, SIOT_ROLE_newcomm);
}

static int fortran_mode; /* emitting Fortran wrappers: statuses are converted elsewhere */

/* The descriptor, FILE* or DIR* a call closes: its tracing ends and its id
 * is released before the real call (siot_fd_closing), because once the
 * kernel or libc frees it another thread may get the same number or
 * address, and its open must keep the id it is given. The event records
 * the id released (siot_cid_NAME). */
static const char *closed_handle(const func *f, const param *p)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    if (base == SIOT_CLASS_close && p->role == SIOT_ROLE_fd)
        return "fd";
    if (base == SIOT_CLASS_close && p->role == SIOT_ROLE_stream)
        return "SIOT_H_STREAM";
    if (p->role == SIOT_ROLE_dir && (base == SIOT_CLASS_close || strcmp(f->name, "closedir") == 0))
        return "SIOT_H_DIR";
    return NULL;
}

static void emit_pre(const func *f)
{
    if (find_role(f, SIOT_ROLE_fdnew))
        o("    int siot_old_traced = siot_fd_traced(%s);\n", find_role(f, SIOT_ROLE_fd)->name);
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        const char *hk = NULL;
        switch (p->role) {
        case SIOT_ROLE_status:
        case SIOT_ROLE_iostatus:
            if (fortran_mode)
                break;
            o("    MPI_Status siot_st_%s;\n", p->name);
            o("    MPI_Status *siot_sp_%s = %s;\n", p->name, p->name);
            o("    if (%s == MPI_STATUS_IGNORE) {\n        siot_mpi_status_empty(&siot_st_%s);\n"
              "        siot_sp_%s = &siot_st_%s;\n    }\n", p->name, p->name, p->name, p->name);
            break;
        case SIOT_ROLE_closefile:
            hk = "file";
            break;
        case SIOT_ROLE_freecomm:
            hk = "comm";
            break;
        case SIOT_ROLE_freegroup:
            hk = "group";
            break;
        case SIOT_ROLE_freedtype:
            hk = "dtype";
            break;
        case SIOT_ROLE_waitreq:
        case SIOT_ROLE_reqptr:
            hk = "req";
            break;
        case SIOT_ROLE_reqarr:
        case SIOT_ROLE_ncreqarr: {
            char L[256];
            len_expr(f, p, L, sizeof L);
            o("    int64_t siot_n_%s = %s;\n", p->name, L);
            o("    uint32_t siot_o_%s = siot_%s_save_reqs(%s, siot_n_%s);\n", p->name,
              p->role == SIOT_ROLE_reqarr ? "mpi" : "nc", p->name, p->name);
            break;
        }
        default:
            break;
        }
        if (hk)
            o("    uintptr_t siot_k_%s = %s ? siot_hkey_%s(*%s) : 0;\n", p->name, p->name, hk, p->name);
        if (f->layer == SIOT_LAYER_stdio && SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_close && p->role == SIOT_ROLE_stream)
            o("    siot_fd_closing(%s ? fileno(%s) : -1);\n", p->name, p->name);
        const char *closed = closed_handle(f, p);
        if (closed && strcmp(closed, "fd") == 0)
            o("    int64_t siot_cid_%s = siot_fd_closing(%s);\n", p->name, p->name);
        else if (closed)
            o("    int64_t siot_cid_%s = siot_h_closing(%s, %s);\n", p->name, closed, p->name);
    }
}

/* Arguments recorded by one function of the argument: an id read from it
 * (REC_ID: fn(arg)), a handle it returns when the call succeeds (REC_NEW:
 * fn(*arg), -1 on failure), or a handle the call frees (REC_RELEASE: the
 * table named fn releases the id noted before the call). */
enum { REC_ID, REC_NEW, REC_RELEASE };
typedef struct record_form {
    uint8_t role, kind;
    const char *fn;
} record_form;
static const record_form RECORD_FORMS[] = {
    {SIOT_ROLE_int, REC_ID, "(int64_t)"},
    {SIOT_ROLE_count, REC_ID, "(int64_t)"},
    {SIOT_ROLE_size, REC_ID, "(int64_t)"},
    {SIOT_ROLE_offset, REC_ID, "(int64_t)"},
    {SIOT_ROLE_whence, REC_ID, "(int64_t)"},
    {SIOT_ROLE_oflags, REC_ID, "(int64_t)"},
    {SIOT_ROLE_mode, REC_ID, "(int64_t)"},
    {SIOT_ROLE_omode, REC_ID, "(int64_t)"},
    {SIOT_ROLE_varid, REC_ID, "(int64_t)"},
    {SIOT_ROLE_fd, REC_ID, "siot_fd_id"},
    {SIOT_ROLE_comm, REC_ID, "siot_mpi_comm_id"},
    {SIOT_ROLE_group, REC_ID, "siot_mpi_group_id"},
    {SIOT_ROLE_dtype, REC_ID, "siot_mpi_dtype_id"},
    {SIOT_ROLE_op, REC_ID, "siot_mpi_op_id"},
    {SIOT_ROLE_file, REC_ID, "siot_mpi_file_id"},
    {SIOT_ROLE_req, REC_ID, "siot_mpi_req_id"},
    {SIOT_ROLE_hid, REC_ID, "siot_h5_id"},
    {SIOT_ROLE_outint, REC_NEW, "(int64_t)"},
    {SIOT_ROLE_outoff, REC_NEW, "(int64_t)"},
    {SIOT_ROLE_outflag, REC_NEW, "(int64_t)"},
    {SIOT_ROLE_outvarid, REC_NEW, "(int64_t)"},
    {SIOT_ROLE_newgroup, REC_NEW, "siot_mpi_group_new"},
    {SIOT_ROLE_newdtype, REC_NEW, "siot_mpi_dtype_new"},
    {SIOT_ROLE_outdtype, REC_NEW, "siot_mpi_dtype_new"},
    {SIOT_ROLE_outncid, REC_NEW, "siot_nc_new"},
    {SIOT_ROLE_ncreq, REC_NEW, "siot_nc_req_new"},
    {SIOT_ROLE_freecomm, REC_RELEASE, "SIOT_H_COMM"},
    {SIOT_ROLE_freegroup, REC_RELEASE, "SIOT_H_GROUP"},
    {SIOT_ROLE_freedtype, REC_RELEASE, "SIOT_H_DTYPE"},
};

static const record_form *record_form_of(unsigned role)
{
    for (size_t i = 0; i < sizeof RECORD_FORMS / sizeof *RECORD_FORMS; i++)
        if (RECORD_FORMS[i].role == role)
            return &RECORD_FORMS[i];
    return NULL;
}

/* The arguments whose recording is not one of the RECORD_FORMS. */
static void emit_record_special(const func *f, const param *p, int k, const char *ok, const char *L)
{
    switch (p->role) {
    case SIOT_ROLE_path:
    case SIOT_ROLE_str:
        o("    siot_put_str(ev, %d, %s);\n", k, p->name);
        break;
    case SIOT_ROLE_fdnew: {
        /* dup2's target: the id of the traced file it now refers to, or the
         * one it lost when the source is not traced (the return value's) */
        const param *old = find_role(f, SIOT_ROLE_fd);
        o("    int64_t siot_nid = siot_fd_dup_to(siot_old_traced, %s, %s, ret >= 0);\n", old->name, p->name);
        o("    siot_put_int(ev, %d, siot_nid);\n", k);
        break;
    }
    case SIOT_ROLE_peer:
    case SIOT_ROLE_root:
    case SIOT_ROLE_tag:
        /* MPICH and Open MPI give MPI_ANY_SOURCE & co different values: store portable ones. */
        o("    siot_put_int(ev, %d, siot_mpi_%s(%s));\n", k, siot_role_name((unsigned)p->role), p->name);
        break;
    case SIOT_ROLE_fcntlarg: {
        const param *cmd = find_name(f, "cmd");
        if (!cmd)
            die(f->file, f->line, "fcntlarg needs a 'cmd' parameter");
        o("    siot_put_int(ev, %d, siot_fcntl_arg(%s, %s, (int64_t)ret));\n", k, cmd->name, p->name);
        break;
    }
    case SIOT_ROLE_stream:
        o("    siot_put_int(ev, %d, siot_h_find(SIOT_H_STREAM, (uintptr_t)%s));\n", k, p->name);
        break;
    case SIOT_ROLE_dir:
        o("    siot_put_int(ev, %d, siot_h_find(SIOT_H_DIR, (uintptr_t)%s));\n", k, p->name);
        break;
    case SIOT_ROLE_iov:
        o("    siot_put_iov(ev, %d, %s, %s);\n", k, p->name, L);
        break;
    case SIOT_ROLE_strlen:
        o("    siot_put_int(ev, %d, %s ? (int64_t)strlen(%s) : 0);\n", k, p->name, p->name);
        o("    if (ret >= 0 && %s) ev->bytes = (int64_t)strlen(%s);\n", p->name, p->name);
        break;
    case SIOT_ROLE_newcomm:
        if (agreed_handle(f) == p)
            o("    siot_put_int(ev, %d, (%s && %s && *%s != MPI_COMM_NULL) ? siot_h_new_at(SIOT_H_COMM, "
              "siot_hkey_comm(*%s), siot_agreed) : -1);\n",
              k, p->name, ok, p->name, p->name);
        else
            o("    siot_put_int(ev, %d, (%s && %s) ? siot_mpi_comm_new(*%s) : -1);\n", k, p->name, ok, p->name);
        break;
    case SIOT_ROLE_commitdtype:
        o("    siot_put_int(ev, %d, %s ? siot_mpi_dtype_id(*%s) : -1);\n", k, p->name, p->name);
        break;
    case SIOT_ROLE_dtypearr:
        o("    siot_mpi_put_dtypes(ev, %d, %s, %s);\n", k, p->name, L);
        break;
    case SIOT_ROLE_newfile:
        o("    siot_put_int(ev, %d, (%s && %s) ? siot_h_new_at(SIOT_H_FILE, siot_hkey_file(*%s), %s) : -1);\n", k,
          p->name, ok, p->name, agreed_handle(f) == p ? "siot_agreed" : "-1");
        break;
    case SIOT_ROLE_closefile:
        o("    siot_put_int(ev, %d, %s ? siot_h_release(SIOT_H_FILE, siot_k_%s) : siot_h_find(SIOT_H_FILE, siot_k_%s));\n",
          k, ok, p->name, p->name);
        break;
    case SIOT_ROLE_info:
        o("    siot_mpi_put_info(ev, %d, %s);\n", k, p->name);
        break;
    case SIOT_ROLE_newreq:
        o("    siot_put_int(ev, %d, (%s && %s) ? siot_h_new(SIOT_H_REQ, siot_hkey_req(*%s)) : -1);\n", k, p->name, ok,
          p->name);
        break;
    case SIOT_ROLE_waitreq:
        o("    siot_put_int(ev, %d, siot_h_find(SIOT_H_REQ, siot_k_%s));\n", k, p->name);
        o("    if (%s && %s && *%s == MPI_REQUEST_NULL) siot_h_release(SIOT_H_REQ, siot_k_%s);\n", ok, p->name, p->name,
          p->name);
        break;
    case SIOT_ROLE_reqptr:
        o("    siot_put_int(ev, %d, siot_h_find(SIOT_H_REQ, siot_k_%s));\n", k, p->name);
        break;
    case SIOT_ROLE_reqarr:
        o("    siot_mpi_put_reqs(ev, %d, %s, siot_n_%s, siot_o_%s, %s);\n", k, p->name, p->name, p->name, ok);
        break;
    case SIOT_ROLE_status: {
        const param *flag = find_role(f, SIOT_ROLE_outflag);
        if (flag)
            o("    siot_mpi_put_status(ev, %d, siot_sp_%s, %s && %s && *%s);\n", k, p->name, ok, flag->name, flag->name);
        else
            o("    siot_mpi_put_status(ev, %d, siot_sp_%s, %s);\n", k, p->name, ok);
        break;
    }
    case SIOT_ROLE_intarr:
    case SIOT_ROLE_outintarr:
        o("    siot_put_ints(ev, %d, %s, %s);\n", k, p->name, L);
        break;
    case SIOT_ROLE_aintarr:
        o("    siot_mpi_put_aints(ev, %d, %s, %s);\n", k, p->name, L);
        break;
    case SIOT_ROLE_intarr3:
        o("    siot_put_ints(ev, %d, %s ? &%s[0][0] : NULL, 3 * (%s));\n", k, p->name, p->name, L);
        break;
    case SIOT_ROLE_closehid:
        o("    siot_put_int(ev, %d, siot_h5_close(%s, %s));\n", k, p->name, ok);
        break;
    case SIOT_ROLE_dims:
    case SIOT_ROLE_offarr:
        o("    siot_put_i64s(ev, %d, %s, %s);\n", k, p->name, L);
        break;
    case SIOT_ROLE_ncid:
        if (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_close)
            o("    siot_put_int(ev, %d, siot_nc_close(%s, %s));\n", k, p->name, ok);
        else
            o("    siot_put_int(ev, %d, siot_nc_id(%s));\n", k, p->name);
        break;
    case SIOT_ROLE_ncreqarr:
        o("    siot_nc_put_reqs(ev, %d, siot_n_%s, siot_o_%s, %s);\n", k, p->name, p->name, ok);
        break;
    default:
        die(f->file, f->line, "%s: role %s is not supported by the generator", f->name, siot_role_name(p->role));
    }
}

static void emit_record_param(const func *f, const param *p)
{
    const char *ok = success_expr(f);
    int k = p->rec;
    char L[256] = "";
    if (siot_role_is_array(p->role) && p->role != SIOT_ROLE_status)
        len_expr(f, p, L, sizeof L);
    const param *comm = find_role(f, SIOT_ROLE_comm);
    const param *root = find_role(f, SIOT_ROLE_root);
    if (p->rootonly) {
        if (!comm || !root)
            die(f->file, f->line, "%s: @root needs comm and root parameters", f->name);
        o("    if (siot_mpi_is_root(%s, %s)) {\n", comm->name, root->name);
    }
    const record_form *rf = record_form_of(p->role);
    if (closed_handle(f, p))
        o("    siot_put_int(ev, %d, siot_cid_%s);\n", k, p->name);
    else if (rf && rf->kind == REC_ID)
        o("    siot_put_int(ev, %d, %s(%s));\n", k, rf->fn, p->name);
    else if (rf && rf->kind == REC_NEW)
        o("    siot_put_int(ev, %d, (%s && %s) ? %s(*%s) : -1);\n", k, p->name, ok, rf->fn, p->name);
    else if (rf)
        o("    siot_put_int(ev, %d, siot_h_release(%s, siot_k_%s));\n", k, rf->fn, p->name);
    else
        emit_record_special(f, p, k, ok, L);
    if (p->rootonly)
        o("    }\n");
}

static void emit_bytes(const func *f)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    const param *count = find_role(f, SIOT_ROLE_count), *dt = find_role(f, SIOT_ROLE_dtype);
    const param *st = find_role(f, SIOT_ROLE_status), *iost = find_role(f, SIOT_ROLE_iostatus);
    if (f->layer == SIOT_LAYER_mpi || f->layer == SIOT_LAYER_mpiio) {
        int data = base == SIOT_CLASS_send || base == SIOT_CLASS_recv || base == SIOT_CLASS_sendrecv ||
                   base == SIOT_CLASS_read || base == SIOT_CLASS_write;
        if (!data)
            return;
        if (iost)
            o("    if (ret == MPI_SUCCESS) ev->bytes = siot_mpi_status_bytes(siot_sp_%s);\n", iost->name);
        else if (base == SIOT_CLASS_recv && st && !(f->cls & SIOT_CLS_NB))
            o("    if (ret == MPI_SUCCESS) ev->bytes = siot_mpi_status_bytes(siot_sp_%s);\n", st->name);
        else if (count && dt)
            o("    if (ret == MPI_SUCCESS) ev->bytes = siot_mpi_bytes(%s, %s);\n", count->name, dt->name);
        return;
    }
    if (f->bytes[0]) {
        o("    if (%s) ev->bytes = (int64_t)(%s);\n", success_expr(f), f->bytes);
        return;
    }
    switch (f->retrole) {
    case SIOT_ROLE_r_bytes:
        o("    ev->bytes = ret > 0 ? (int64_t)ret : 0;\n");
        break;
    case SIOT_ROLE_r_items: {
        const param *size = find_role(f, SIOT_ROLE_size);
        if (!size)
            die(f->file, f->line, "ret:items needs a size parameter");
        o("    ev->bytes = (int64_t)(ret * %s);\n", size->name);
        break;
    }
    case SIOT_ROLE_r_line:
        o("    ev->bytes = ret ? (int64_t)strlen(ret) : 0;\n");
        break;
    }
}

/* An MPI error code names one error instance (MPICH makes a new one each
 * time): the class is what a trace keeps, so that runs and replays compare. */
static int is_mpi_ret(const func *f)
{
    return (f->layer == SIOT_LAYER_mpi || f->layer == SIOT_LAYER_mpiio) && strcmp(f->rettype, "int") == 0;
}

static void emit_ret(const func *f)
{
    int posix = f->layer == SIOT_LAYER_posix || f->layer == SIOT_LAYER_stdio;
    switch (f->retrole) {
    case SIOT_ROLE_r_newfd:
        if (find_role(f, SIOT_ROLE_fdnew))
            o("    ev->ret = ret >= 0 ? siot_nid : (int64_t)ret;\n");
        else
            o("    ev->ret = ret >= 0 ? siot_fd_new(ret) : (int64_t)ret;\n");
        break;
    case SIOT_ROLE_r_newstream:
        o("    ev->ret = ret ? siot_h_new(SIOT_H_STREAM, (uintptr_t)ret) : -1;\n");
        break;
    case SIOT_ROLE_r_newdir:
        o("    ev->ret = ret ? siot_h_new(SIOT_H_DIR, (uintptr_t)ret) : -1;\n");
        break;
    case SIOT_ROLE_r_ptr:
        o("    ev->ret = siot_ptr_ok((const void *)ret);\n");
        break;
    case SIOT_ROLE_r_line:
        o("    ev->ret = ret != NULL;\n");
        break;
    case SIOT_ROLE_r_void:
        break;
    case SIOT_ROLE_r_newhid:
        o("    ev->ret = ret >= 0 ? siot_h5_new(ret) : -1;\n");
        break;
    default:
        if (find_role(f, SIOT_ROLE_fcntlarg))
            o("    ev->ret = siot_fcntl_ret(cmd, ret);\n");
        else if (is_mpi_ret(f))
            o("    ev->ret = siot_mpi_err_class(ret);\n");
        else
            o("    ev->ret = (int64_t)ret;\n");
    }
    if (posix) {
        switch (f->retrole) {
        case SIOT_ROLE_r_ptr:
            o("    ev->err = siot_ptr_ok((const void *)ret) ? 0 : siot_e;\n");
            break;
        case SIOT_ROLE_r_newstream:
        case SIOT_ROLE_r_newdir:
        case SIOT_ROLE_r_line:
            o("    ev->err = ret ? 0 : siot_e;\n");
            break;
        case SIOT_ROLE_r_items: {
            const param *count = find_role(f, SIOT_ROLE_count), *st = find_role(f, SIOT_ROLE_stream);
            if (!count || !st)
                die(f->file, f->line, "ret:items needs count and stream parameters");
            o("    ev->err = (ret < %s && ferror(%s)) ? siot_e : 0;\n", count->name, st->name);
            break;
        }
        default:
            o("    ev->err = ret < 0 ? siot_e : 0;\n");
        }
    }
}

/* The filter deciding, before the call, whether it is recorded at all. */
static void filter_expr(const func *f, char *buf, size_t n)
{
    snprintf(buf, n, "1");
    if (f->layer == SIOT_LAYER_hdf5 || f->layer == SIOT_LAYER_pnetcdf) {
        snprintf(buf, n, "!siot_inside_layer(SIOT_LAYER_%s)", siot_layer_name((unsigned)f->layer));
        return;
    }
    if (f->cond_none)
        return;
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (p->role == SIOT_ROLE_fd) {
            /* dup2 onto a traced descriptor changes what it refers to, whatever the source */
            const param *nw = find_role(f, SIOT_ROLE_fdnew);
            if (nw)
                snprintf(buf, n, "(siot_fd_traced(%s) || siot_fd_traced(%s))", p->name, nw->name);
            else
                snprintf(buf, n, "siot_fd_traced(%s)", p->name);
            return;
        }
        if (p->role == SIOT_ROLE_stream) {
            snprintf(buf, n, "siot_stream_traced(%s)", p->name);
            return;
        }
        if (p->role == SIOT_ROLE_dir) {
            snprintf(buf, n, "siot_dir_traced(%s)", p->name);
            return;
        }
    }
}

static void emit_variadic_prologue(const func *f)
{
    if (!has_variadic(f))
        return;
    const param *v = &f->p[f->np - 1];
    const param *last = &f->p[f->np - 2];
    if (v->role == SIOT_ROLE_omode) {
        const param *fl = find_role(f, SIOT_ROLE_oflags);
        if (!fl)
            die(f->file, f->line, "omode needs an oflags parameter");
        o("    %s %s = 0;\n", v->type, v->name);
        o("    if (%s & (O_CREAT | O_TMPFILE)) {\n        va_list ap;\n        va_start(ap, %s);\n", fl->name,
          last->name);
        o("        %s = (%s)va_arg(ap, int);\n        va_end(ap);\n    }\n", v->name, v->type);
    } else if (v->role == SIOT_ROLE_vargs) {
        /* printf-like: the arguments go on to the v-version as a va_list */
        o("    va_list %s;\n    va_start(%s, %s);\n", v->name, v->name, last->name);
    } else if (v->role == SIOT_ROLE_fcntlarg) {
        o("    %s %s;\n    va_list ap;\n    va_start(ap, %s);\n    %s = va_arg(ap, %s);\n    va_end(ap);\n", v->type,
          v->name, last->name, v->name, v->type);
    } else {
        die(f->file, f->line, "variadic parameter needs role omode, fcntlarg or vargs");
    }
}

/* After the real call (ret and siot_e set): the job-wide handle id, MPI_Init's
 * session start, and the event's fields. init_ret: what an MPI_Init wrapper
 * returns when its start was not recorded ("ret"; "" for a Fortran one). */
static int fort_dropped(const func *f, const param *p);
static void emit_record_event(const func *f, const char *init_ret, int fortran)
{
    const param *agree = agreed_handle(f);
    if (agree)
        o("    int32_t siot_agreed = siot_mpi_agree(%s, %s, %s);\n",
          agree->role == SIOT_ROLE_newfile ? "SIOT_H_FILE" : "SIOT_H_COMM", find_role(f, SIOT_ROLE_comm)->name,
          success_expr(f));
    if (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_init)
        o("    siot_mpi_init_post();\n    if (slot < 0) {\n        errno = siot_e;\n        return%s%s;\n    }\n",
          init_ret[0] ? " " : "", init_ret);
    o("    siot_raw *ev = siot_end(slot);\n");
    for (int i = 0; i < f->np; i++)
        if (f->p[i].rec >= 0 && !(fortran && fort_dropped(f, &f->p[i])))
            emit_record_param(f, &f->p[i]);
    emit_ret(f);
    emit_bytes(f);
}

static void emit_wrapper(const func *f)
{
    char real[128];
    real_name(f, real, sizeof real);
    int wrap = is_wrap_layer(f->layer);
    int isvoid = f->retrole == SIOT_ROLE_r_void;
    unsigned base = SIOT_CLASS_BASE(f->cls);
    const char *layer = siot_layer_name((unsigned)f->layer);

    o("\n/* %s:%d */\n", f->file, f->line);
    if (is_printf_like(f)) {
        /* the real function called is the v-version */
        o("%s %s(", f->rettype, real);
        for (int i = 0; i < f->np - 1; i++)
            o("%s%s", i ? ", " : "", f->p[i].decl);
        o(", va_list);\n");
    } else if (wrap || f->real[0]) {
        o("%s %s(", f->rettype, real);
        emit_params(f);
        o(");\n");
    }
    o("SIOT_TEXT %s %s%s(", f->rettype, wrap ? "__wrap_" : "", f->name);
    emit_params(f);
    o(")\n{\n");
    emit_variadic_prologue(f);

    if (base == SIOT_CLASS_finalize || base == SIOT_CLASS_abort || base == SIOT_CLASS_exit) {
        /* recorded before the call (which ends the session or the process), then the session ends */
        o("    int slot = siot_recording(SIOT_LAYER_%s) ? siot_begin(SIOT_FN_%s) : -1;\n", layer, f->name);
        o("    if (slot >= 0) {\n        %s ret = 0;\n        (void)ret;\n        siot_raw *ev = siot_end(slot);\n",
          isvoid ? "int" : f->rettype);
        for (int i = 0; i < f->np; i++)
            if (f->p[i].rec >= 0)
                emit_record_param(f, &f->p[i]);
        o("        ev->ret = 0;\n        siot_finish(slot);\n    }\n");
        if (base == SIOT_CLASS_finalize)
            o("    siot_mpi_finalize_hook();\n");
        else if (base == SIOT_CLASS_abort)
            o("    siot_mpi_abort_hook(%s);\n", find_name(f, "errorcode") ? "errorcode" : "-1");
        else
            o("    siot_exit_hook(%s);\n", f->np ? f->p[0].name : "0");
        o("    %s%s(", isvoid ? "" : "return ", real);
        emit_args(f, 0);
        o(");\n}\n");
        return;
    }
    if (base == SIOT_CLASS_exec) {
        /* the process image is replaced: the trace is written first; exec
         * returns only when it failed, and the session has ended then */
        const param *path = find_role(f, SIOT_ROLE_path);
        o("    int slot = siot_recording(SIOT_LAYER_%s) ? siot_begin(SIOT_FN_%s) : -1;\n", layer, f->name);
        o("    if (slot >= 0) {\n        int ret = 0;\n        (void)ret;\n        siot_raw *ev = siot_end(slot);\n");
        for (int i = 0; i < f->np; i++)
            if (f->p[i].rec >= 0)
                emit_record_param(f, &f->p[i]);
        o("        ev->ret = 0;\n        siot_finish(slot);\n    }\n");
        o("    siot_exec_hook(\"%s\", %s);\n", f->name, path ? path->name : "NULL");
        o("    %s ret = %s(", f->rettype, real);
        emit_args(f, 0);
        o(");\n    siot_exec_failed(\"%s\");\n    return ret;\n}\n", f->name);
        return;
    }

    char filt[640];
    filter_expr(f, filt, sizeof filt);
    if (base == SIOT_CLASS_init) {
        o("    int slot = siot_recording(SIOT_LAYER_%s) ? siot_begin(SIOT_FN_%s) : -1;\n", layer, f->name);
        o("    siot_mpi_init_pre();\n");
    } else {
        o("    int slot = -1;\n");
        o("    if (siot_recording(SIOT_LAYER_%s) && %s)\n        slot = siot_begin(SIOT_FN_%s);\n", layer, filt, f->name);
        if (is_printf_like(f)) {
            o("    if (SIOT_LIKELY(slot < 0)) {\n        %s ret = %s(", f->rettype, real);
            emit_args(f, 0);
            o(");\n        va_end(%s);\n        return ret;\n    }\n", f->p[f->np - 1].name);
        } else if (agreed_handle(f)) {
            /* not recording here: this rank still takes part in the ranks'
             * agreement on the new handle's id, which the others may make */
            o("    if (SIOT_LIKELY(slot < 0)) {\n        %s ret = %s(", f->rettype, real);
            emit_args(f, 0);
            o(");\n        siot_mpi_agree_absent(%s);\n        return ret;\n    }\n", find_role(f, SIOT_ROLE_comm)->name);
        } else {
            o("    if (SIOT_LIKELY(slot < 0))\n        %s%s(", isvoid ? "" : "return ", real);
            emit_args(f, 0);
            o(");\n");
        }
    }
    emit_pre(f);
    if (isvoid)
        o("    %s(", real);
    else
        o("    %s ret = %s(", f->rettype, real);
    emit_args(f, 1);
    o(");\n    int siot_e = errno;\n");
    if (is_printf_like(f))
        o("    va_end(%s);\n", f->p[f->np - 1].name);
    emit_record_event(f, "ret", 0);
    o("    siot_finish(slot);\n    errno = siot_e;\n");
    if (!isvoid)
        o("    return ret;\n");
    o("}\n");
}

static void emit_layer_file(const char *dir, int layer)
{
    char name[256];
    int wrap = is_wrap_layer(layer);
    snprintf(name, sizeof name, "%s_%s.c", wrap ? "wrap" : "pmpi", siot_layer_name((unsigned)layer));
    out = open_out(dir, name);
    o("/* Generated by tools/siot-gen from the spec files. Do not edit. */\n");
    o("#define _LARGEFILE64_SOURCE\n");
    o("#include <errno.h>\n#include <fcntl.h>\n#include <stdarg.h>\n#include <stdint.h>\n#include <string.h>\n");
    if (layer == SIOT_LAYER_posix || layer == SIOT_LAYER_stdio)
        o("#include \"wrap/posix_record.h\"\n");
    else if (layer == SIOT_LAYER_mpi || layer == SIOT_LAYER_mpiio)
        o("#include \"pmpi/mpi_record.h\"\n");
    else
        o("#include \"wrap/%s_record.h\"\n", siot_layer_name((unsigned)layer));
    o("#include \"functab.h\"\n");
    for (int i = 0; i < NF; i++)
        if (F[i].layer == layer)
            emit_wrapper(&F[i]);
    fclose(out);

    if (wrap) {
        snprintf(name, sizeof name, "wrap-%s.syms", siot_layer_name((unsigned)layer));
        out = open_out(dir, name);
        for (int i = 0; i < NF; i++)
            if (F[i].layer == layer)
                o("--wrap=%s\n", F[i].name);
        fclose(out);
    }
}


/* ------------------------------------------------------------------ replayers */

/* The pointee type of "T *" (for out parameters). */
static void pointee(const param *p, char *buf, size_t n)
{
    snprintf(buf, n, "%s", p->type);
    char *star = strrchr(buf, '*');
    if (star)
        *star = 0;
    char *t = trim(buf);
    if (strncmp(t, "const ", 6) == 0)
        t += 6;
    memmove(buf, t, strlen(t) + 1);
}

static int name_has(const func *f, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (strstr(f->name, words[i]))
            return 1;
    return 0;
}

/* Why a function is not replayed, or NULL. */
static const char *not_replayable(const func *f)
{
    unsigned b = SIOT_CLASS_BASE(f->cls);
    if (b == SIOT_CLASS_init || b == SIOT_CLASS_finalize)
        return "ioreplay initialises and finalises MPI itself";
    if (b == SIOT_CLASS_abort || b == SIOT_CLASS_exit)
        return "ending the replay early helps nobody: the end is in the report";
    if (b == SIOT_CLASS_exec)
        return "the replay does not start other programs";
    if (b == SIOT_CLASS_map || strcmp(f->name, "msync") == 0)
        return "memory mappings are not replayed";
    if (f->layer != SIOT_LAYER_posix && f->layer != SIOT_LAYER_stdio && f->layer != SIOT_LAYER_mpi &&
        f->layer != SIOT_LAYER_mpiio)
        return "replayed through the MPI-IO and POSIX calls it issued";
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (p->role == SIOT_ROLE_ignore && strchr(p->decl, '[') && !strstr(p->name, "weights"))
            return "an argument that is not recorded";
    }
    return NULL;
}

/* C expression for the size of the buffer at parameter i. */
static void buf_size(const func *f, int i, char *out, size_t n)
{
    const param *count = NULL, *size = NULL, *counts = NULL, *displs = NULL, *dt = NULL, *dts = NULL;
    for (int j = i + 1; j < f->np && f->p[j].role != SIOT_ROLE_buf; j++) {
        const param *q = &f->p[j];
        if (q->role == SIOT_ROLE_count && !count)
            count = q;
        else if (q->role == SIOT_ROLE_size && !size)
            size = q;
        else if (q->role == SIOT_ROLE_intarr && !counts)
            counts = q;
        else if (q->role == SIOT_ROLE_intarr && !displs)
            displs = q;
        else if (q->role == SIOT_ROLE_dtype && !dt)
            dt = q;
        else if (q->role == SIOT_ROLE_dtypearr && !dts)
            dts = q;
    }
    if (f->layer == SIOT_LAYER_posix || f->layer == SIOT_LAYER_stdio) {
        if (count && size)
            snprintf(out, n, "rp_buf(c, %d, (int64_t)%s * (int64_t)%s)", i, count->name, size->name);
        else if (count)
            snprintf(out, n, "rp_buf(c, %d, (int64_t)%s)", i, count->name);
        else
            snprintf(out, n, "rp_buf(c, %d, 4096)", i);
        return;
    }
    static const char *const per_rank[] = {"gather", "Gather", "scatter", "Scatter", "lltoall", "Neighbor",
                                           "Reduce_scatter_block", NULL};
    const param *comm = find_role(f, SIOT_ROLE_comm);
    if (counts && dts)
        snprintf(out, n, "rp_mpibuf_w(c, %d, %s, %s, a[%d].n, %s)", i, counts->name, displs ? displs->name : "NULL",
                 counts->rec, dts->name);
    else if (counts && dt)
        snprintf(out, n, "rp_mpibuf_v(c, %d, %s, %s, a[%d].n, %s)", i, counts->name, displs ? displs->name : "NULL",
                 counts->rec, dt->name);
    else if (count && dt && name_has(f, per_rank) && comm) /* gathered or scattered: one count per rank */
        snprintf(out, n, "rp_mpibuf(c, %d, %s, %s, rp_commsize(%s))", i, count->name, dt->name, comm->name);
    else if (count && dt)
        snprintf(out, n, "rp_mpibuf(c, %d, %s, %s, 1)", i, count->name, dt->name);
    else
        snprintf(out, n, "rp_buf(c, %d, 0)", i);
}

#define HANDLE_ROLE(R, T, KIND, NUL)                                                                          \
    case SIOT_ROLE_##R:                                                                                       \
        o("    " T " %s = rp_" KIND "(c, rp_i(&a[%d]));\n", p->name, k);                                      \
        o("    if (%s == " NUL " && rp_i(&a[%d]) != -1)\n        return RP_SKIP;\n", p->name, k);            \
        break;

static void emit_replay_param(const func *f, const param *p)
{
    int k = p->rec;
    char pt[192];
    switch (p->role) {
    case SIOT_ROLE_path:
        o("    const char *%s = rp_path(c, &a[%d], rec_ret);\n    if (!%s)\n        return RP_SKIP;\n", p->name, k,
          p->name);
        break;
    case SIOT_ROLE_str:
        o("    const char *%s = rp_str(c, &a[%d], %d);\n", p->name, k, (int)(p - f->p));
        break;
    case SIOT_ROLE_strlen:
        o("    const char *%s = rp_text(c, rp_i(&a[%d]), %d);\n", p->name, k, (int)(p - f->p));
        break;
    case SIOT_ROLE_int:
    case SIOT_ROLE_count:
    case SIOT_ROLE_size:
    case SIOT_ROLE_offset:
    case SIOT_ROLE_whence:
    case SIOT_ROLE_oflags:
    case SIOT_ROLE_mode:
    case SIOT_ROLE_omode:
        o("    %s %s = (%s)rp_i(&a[%d]);\n", p->type, p->name, p->type, k);
        break;
    case SIOT_ROLE_peer:
    case SIOT_ROLE_root:
        o("    int %s = rp_peer(rp_i(&a[%d]));\n", p->name, k);
        break;
    case SIOT_ROLE_tag:
        o("    int %s = rp_tag(rp_i(&a[%d]));\n", p->name, k);
        break;
    case SIOT_ROLE_fd:
        if (find_role(f, SIOT_ROLE_fdnew)) /* dup2 from a descriptor that was not traced: one that is not */
            o("    int siot_untraced = rp_i(&a[%d]) == -1;\n"
              "    int %s = siot_untraced ? rp_untraced_fd(c) : rp_fd(c, rp_i(&a[%d]));\n", k, p->name, k);
        else
            o("    int %s = rp_fd(c, rp_i(&a[%d]));\n", p->name, k);
        o("    if (%s < 0)\n        return RP_SKIP;\n", p->name);
        break;
    case SIOT_ROLE_fdnew: {
        const param *old = find_role(f, SIOT_ROLE_fd);
        o("    int %s = siot_untraced ? rp_fd(c, rp_i(&a[%d])) : rp_dup_target(c, rp_i(&a[%d]), %s);\n"
          "    if (%s < 0)\n        return RP_SKIP;\n", p->name, k, k, old->name, p->name);
        break;
    }
    case SIOT_ROLE_fcntlarg: {
        const param *cmd = find_name(f, "cmd");
        o("    if (!rp_fcntl_int_cmd(%s))\n        return RP_SKIP;\n", cmd->name);
        o("    void *%s = (void *)(intptr_t)rp_i(&a[%d]);\n", p->name, k);
        break;
    }
    case SIOT_ROLE_stream:
        o("    FILE *%s = rp_stream(c, rp_i(&a[%d]));\n    if (!%s)\n        return RP_SKIP;\n", p->name, k, p->name);
        break;
    case SIOT_ROLE_dir:
        o("    DIR *%s = rp_dir(c, rp_i(&a[%d]));\n    if (!%s)\n        return RP_SKIP;\n", p->name, k, p->name);
        break;
    case SIOT_ROLE_outint:
    case SIOT_ROLE_outoff:
    case SIOT_ROLE_outflag:
        pointee(p, pt, sizeof pt);
        o("    %s %s_v = 0;\n    %s *%s = &%s_v;\n", pt, p->name, pt, p->name, p->name);
        break;
    case SIOT_ROLE_iov:
        o("    struct iovec *%s = rp_iov(c, &a[%d], %d);\n", p->name, k, (int)(p - f->p));
        break;
    HANDLE_ROLE(comm, "MPI_Comm", "comm", "MPI_COMM_NULL")
    HANDLE_ROLE(group, "MPI_Group", "group", "MPI_GROUP_NULL")
    HANDLE_ROLE(dtype, "MPI_Datatype", "dtype", "MPI_DATATYPE_NULL")
    HANDLE_ROLE(op, "MPI_Op", "op", "MPI_OP_NULL")
    HANDLE_ROLE(file, "MPI_File", "file", "MPI_FILE_NULL")
    HANDLE_ROLE(req, "MPI_Request", "req", "MPI_REQUEST_NULL")
    case SIOT_ROLE_newcomm:
    case SIOT_ROLE_newgroup:
    case SIOT_ROLE_newdtype:
    case SIOT_ROLE_outdtype:
    case SIOT_ROLE_newfile:
    case SIOT_ROLE_newreq:
        pointee(p, pt, sizeof pt);
        o("    %s %s_v;\n    memset(&%s_v, 0, sizeof %s_v);\n    %s *%s = &%s_v;\n", pt, p->name, p->name, p->name, pt,
          p->name, p->name);
        break;
    case SIOT_ROLE_freecomm:
        o("    MPI_Comm %s_v = rp_comm(c, rp_i(&a[%d]));\n    MPI_Comm *%s = &%s_v;\n", p->name, k, p->name, p->name);
        break;
    case SIOT_ROLE_freegroup:
        o("    MPI_Group %s_v = rp_group(c, rp_i(&a[%d]));\n    MPI_Group *%s = &%s_v;\n", p->name, k, p->name, p->name);
        break;
    case SIOT_ROLE_freedtype:
    case SIOT_ROLE_commitdtype:
        o("    MPI_Datatype %s_v = rp_dtype(c, rp_i(&a[%d]));\n    if (%s_v == MPI_DATATYPE_NULL)\n        return RP_SKIP;\n"
          "    MPI_Datatype *%s = &%s_v;\n",
          p->name, k, p->name, p->name, p->name);
        break;
    case SIOT_ROLE_closefile:
        o("    MPI_File %s_v = rp_file(c, rp_i(&a[%d]));\n    if (%s_v == MPI_FILE_NULL)\n        return RP_SKIP;\n"
          "    MPI_File *%s = &%s_v;\n",
          p->name, k, p->name, p->name, p->name);
        break;
    case SIOT_ROLE_waitreq:
    case SIOT_ROLE_reqptr:
        o("    MPI_Request %s_v = rp_req(c, rp_i(&a[%d]));\n    MPI_Request *%s = &%s_v;\n", p->name, k, p->name, p->name);
        break;
    case SIOT_ROLE_reqarr:
        o("    MPI_Request *%s = rp_reqs(c, &a[%d], %d);\n", p->name, k, (int)(p - f->p));
        break;
    case SIOT_ROLE_info:
        o("    MPI_Info %s = rp_info(c, &a[%d]);\n", p->name, k);
        break;
    case SIOT_ROLE_status:
        o("    MPI_Status %s_v;\n    MPI_Status *%s = &%s_v;\n", p->name, p->name, p->name);
        break;
    case SIOT_ROLE_intarr:
    case SIOT_ROLE_intarr3:
        o("    int *%s_p = rp_ints(c, &a[%d], %d);\n", p->name, k, (int)(p - f->p));
        if (p->role == SIOT_ROLE_intarr3)
            o("    int (*%s)[3] = (int (*)[3])%s_p;\n", p->name, p->name);
        else
            o("    int *%s = %s_p;\n", p->name, p->name);
        break;
    case SIOT_ROLE_aintarr:
        o("    MPI_Aint *%s = rp_aints(c, &a[%d], %d);\n", p->name, k, (int)(p - f->p));
        break;
    case SIOT_ROLE_dtypearr:
        o("    MPI_Datatype *%s = rp_dtypes(c, &a[%d], %d);\n", p->name, k, (int)(p - f->p));
        break;
    case SIOT_ROLE_outintarr: {
        const param *n = find_role(f, SIOT_ROLE_reqarr);
        o("    int *%s = rp_int_scratch(c, %d, %s ? a[%d].n : 0);\n", p->name, (int)(p - f->p), n ? "1" : "0",
          n ? n->rec : 0);
        break;
    }
    default:
        o("    /* role %s */\n", siot_role_name(p->role));
    }
}

/* Parameters that are not recorded (buffers, ignored ones, status arrays). */
static void emit_replay_unrecorded(const func *f, const param *p)
{
    int i = (int)(p - f->p);
    char e[2048];
    switch (p->role) {
    case SIOT_ROLE_buf:
        buf_size(f, i, e, sizeof e);
        o("    void *%s = %s;\n", p->name, e);
        break;
    case SIOT_ROLE_iostatus:
        o("    MPI_Status %s_v;\n    MPI_Status *%s = &%s_v;\n", p->name, p->name, p->name);
        break;
    case SIOT_ROLE_statusarr: {
        const param *n = find_role(f, SIOT_ROLE_reqarr);
        o("    MPI_Status *%s = rp_statuses(c, %d, %s ? a[%d].n : 1);\n", p->name, i, n ? "1" : "0", n ? n->rec : 0);
        break;
    }
    case SIOT_ROLE_newinfo:
        o("    MPI_Info %s_v = MPI_INFO_NULL;\n    MPI_Info *%s = &%s_v;\n", p->name, p->name, p->name);
        break;
    case SIOT_ROLE_fmt:
        o("    const char *%s = \"%%s\";\n", p->name);
        break;
    case SIOT_ROLE_ignore:
        if (strstr(p->type, "MPI_Message"))
            o("    MPI_Message *%s = &c->msg;\n", p->name);
        else if (strstr(p->name, "weights"))
            o("    const int *%s = MPI_UNWEIGHTED;\n", p->name);
        else if (strchr(p->type, '*'))
            o("    %s %s = NULL;\n", p->type, p->name);
        else if (strcmp(p->name, "ver") == 0)
            o("    %s %s = 1; /* _STAT_VER_LINUX */\n", p->type, p->name);
        else
            o("    %s %s = (%s)-1; /* a fortified call's buffer length: no check can fail */\n", p->type, p->name,
              p->type);
        break;
    default:
        break;
    }
}

/* Handles a replayed call creates or frees: role -> the table rp_set_* /
 * rp_drop_* keeps them in (the recorded id is the key). */
typedef struct handle_table {
    uint8_t role;
    const char *table;
} handle_table;
static const handle_table HANDLE_SETS[] = {
    {SIOT_ROLE_newcomm, "comm"},      {SIOT_ROLE_newgroup, "group"}, {SIOT_ROLE_newdtype, "dtype"},
    {SIOT_ROLE_outdtype, "dtype"},    {SIOT_ROLE_commitdtype, "dtype"}, {SIOT_ROLE_newfile, "file"},
    {SIOT_ROLE_newreq, "req"},
};
static const handle_table HANDLE_DROPS[] = {
    {SIOT_ROLE_freecomm, "comm"},
    {SIOT_ROLE_freegroup, "group"},
    {SIOT_ROLE_freedtype, "dtype"},
    {SIOT_ROLE_closefile, "file"},
};

static void emit_replay_post(const func *f, const param *p)
{
    int k = p->rec;
    const char *ok = success_expr(f);
    for (size_t i = 0; i < sizeof HANDLE_SETS / sizeof *HANDLE_SETS; i++)
        if (p->role == HANDLE_SETS[i].role)
            o("    if (%s) rp_set_%s(c, rp_i(&a[%d]), %s_v);\n", ok, HANDLE_SETS[i].table, k, p->name);
    for (size_t i = 0; i < sizeof HANDLE_DROPS / sizeof *HANDLE_DROPS; i++)
        if (p->role == HANDLE_DROPS[i].role)
            o("    rp_drop_%s(c, rp_i(&a[%d]));\n", HANDLE_DROPS[i].table, k);
    switch (p->role) {
    case SIOT_ROLE_waitreq:
        o("    if (%s_v == MPI_REQUEST_NULL) rp_drop_req(c, rp_i(&a[%d]));\n", p->name, k);
        break;
    case SIOT_ROLE_reqarr:
        o("    rp_reqs_post(c, &a[%d], %s);\n", k, p->name);
        break;
    case SIOT_ROLE_info:
        o("    rp_info_free(&%s);\n", p->name);
        break;
    case SIOT_ROLE_fdnew:
        o("    if (ret >= 0 && siot_untraced)\n        rp_drop_fd(c, rp_i(&a[%d]));\n"
          "    else if (ret >= 0)\n        rp_set_fd(c, rp_i(&a[%d]), ret);\n", k, k);
        break;
    case SIOT_ROLE_fd:
        if (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_close)
            o("    rp_drop_fd(c, rp_i(&a[%d]));\n", k);
        break;
    case SIOT_ROLE_stream:
        if (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_close)
            o("    rp_drop_stream(c, rp_i(&a[%d]));\n", k);
        break;
    case SIOT_ROLE_dir:
        if (strcmp(f->name, "closedir") == 0)
            o("    rp_drop_dir(c, rp_i(&a[%d]));\n", k);
        break;
    default:
        break;
    }
    if (p->role == SIOT_ROLE_newinfo)
        o("    if (%s && %s_v != MPI_INFO_NULL) PMPI_Info_free(&%s_v);\n", ok, p->name, p->name);
}

static void emit_replayer(const func *f)
{
    o("\n/* %s:%d */\nstatic int rp_%s(rp_state *c, const siot_value *a, int64_t rec_ret)\n{\n", f->file, f->line, f->name);
    o("    (void)c;\n    (void)a;\n    (void)rec_ret;\n");
    const char *why = not_replayable(f);
    if (why) {
        o("    return RP_SKIP; /* %s */\n}\n", why);
        return;
    }
    for (int i = 0; i < f->np; i++)
        if (f->p[i].rec >= 0)
            emit_replay_param(f, &f->p[i]);
    for (int i = 0; i < f->np; i++)
        if (f->p[i].rec < 0)
            emit_replay_unrecorded(f, &f->p[i]);
    if (find_role(f, SIOT_ROLE_fmt)) {
        /* formatted output: as many bytes as were written, through the same function */
        const param *st = find_role(f, SIOT_ROLE_stream);
        o("    const char *text = rp_text(c, rec_ret, %d);\n", f->np);
        if (find_role(f, SIOT_ROLE_vlist))
            o("    %s ret = call_vfprintf(%s, \"%%s\", text);\n", f->rettype, st->name);
        else
            o("    %s ret = %s(%s, \"%%s\", text);\n", f->rettype, f->name, st->name);
    } else {
        o("    %s ret = %s(", f->rettype, f->name);
        for (int i = 0; i < f->np; i++)
            o("%s%s", i ? ", " : "", f->p[i].name);
        o(");\n");
    }
    for (int i = 0; i < f->np; i++)
        emit_replay_post(f, &f->p[i]);
    switch (f->retrole) {
    case SIOT_ROLE_r_newfd:
        if (!find_role(f, SIOT_ROLE_fdnew))
            o("    if (ret >= 0) rp_set_fd(c, rec_ret, ret);\n");
        o("    return rp_result(c, rec_ret, ret >= 0 ? rec_ret : (int64_t)ret);\n");
        break;
    case SIOT_ROLE_r_newstream:
        o("    if (ret) rp_set_stream(c, rec_ret, ret);\n    return rp_result(c, rec_ret, ret ? rec_ret : -1);\n");
        break;
    case SIOT_ROLE_r_newdir:
        o("    if (ret) rp_set_dir(c, rec_ret, ret);\n    return rp_result(c, rec_ret, ret ? rec_ret : -1);\n");
        break;
    case SIOT_ROLE_r_ptr:
    case SIOT_ROLE_r_line:
        o("    return rp_result(c, rec_ret, ret != NULL);\n");
        break;
    default:
        if (find_role(f, SIOT_ROLE_fcntlarg))
            o("    if (ret >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) rp_set_fd(c, rec_ret, ret);\n"
              "    return rp_result(c, rec_ret, (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && ret >= 0 ? rec_ret : ret);\n");
        else if (is_mpi_ret(f))
            o("    return rp_result(c, rec_ret, rp_mpi_err_class(ret));\n");
        else
            o("    return rp_result(c, rec_ret, (int64_t)ret);\n");
    }
    o("}\n");
}

static void emit_replay_file(const char *dir)
{
    out = open_out(dir, "replay_all.c");
    o("/* Generated by tools/siot-gen from the spec files. Do not edit. */\n");
    o("#define _LARGEFILE64_SOURCE\n#include <errno.h>\n#include <fcntl.h>\n#include <stdint.h>\n#include <string.h>\n");
    o("#include <dirent.h>\n#include <stdio.h>\n#include <sys/file.h>\n#include <sys/mman.h>\n#include <sys/stat.h>\n"
      "#include <sys/statfs.h>\n#include <sys/types.h>\n#include <sys/uio.h>\n#include <unistd.h>\n");
    o("#include <stdarg.h>\n#include \"replay/rp.h\"\n");
    o("/* vfprintf needs a va_list: made here, so that the replay calls vfprintf itself. */\n"
      "static int call_vfprintf(FILE *f, const char *fmt, ...)\n{\n    va_list ap;\n    va_start(ap, fmt);\n"
      "    int r = vfprintf(f, fmt, ap);\n    va_end(ap);\n    return r;\n}\n");
    o("#pragma GCC diagnostic ignored \"-Wunused-variable\"\n#pragma GCC diagnostic ignored \"-Wunused-but-set-variable\"\n");
    o("#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n");
    /* MPI_UNWEIGHTED is a sentinel pointer to an empty object in Open MPI */
    o("#pragma GCC diagnostic ignored \"-Wstringop-overread\"\n");
    /* declarations for the fortified and compatibility names (not in the headers without _FORTIFY_SOURCE) */
    for (int i = 0; i < NF; i++) {
        const func *f = &F[i];
        if ((f->layer != SIOT_LAYER_posix && f->layer != SIOT_LAYER_stdio) || strncmp(f->name, "__", 2) != 0)
            continue;
        o("extern %s %s(", f->rettype, f->name);
        emit_params(f);
        o(");\n");
    }
    int emitted[MAXF] = {0};
    for (int i = 0; i < NF; i++)
        if (F[i].layer == SIOT_LAYER_posix || F[i].layer == SIOT_LAYER_stdio || F[i].layer == SIOT_LAYER_mpi ||
            F[i].layer == SIOT_LAYER_mpiio) {
            emit_replayer(&F[i]);
            emitted[i] = 1;
        }
    o("\nconst rp_entry rp_table[] = {\n");
    uint32_t n = 0;
    for (int i = 0; i < NF; i++)
        if (emitted[i]) {
            o("    {\"%s\", rp_%s},\n", F[i].name, F[i].name);
            n++;
        }
    o("};\nconst uint32_t rp_table_n = %u;\n", n);
    fclose(out);
}

/* ------------------------------------------------------------------ Fortran */

/* Open MPI's Fortran bindings call PMPI_* directly, so Fortran programs need
 * wrappers of their own (mpi_file_write_at_all_ and the rest). Each one
 * calls Open MPI's own binding (pmpi_..._) with the caller's arguments
 * untouched, which keeps every Fortran convention (MPI_IN_PLACE, MPI_BOTTOM,
 * blank-padded strings, status arrays) exactly as without tracing; the
 * handles and values are converted to C only to be recorded. */

static int is_string_param(const param *p)
{
    return strstr(p->type, "char") && strchr(p->type, '*') && !strstr(p->type, "**");
}

/* Fortran drops MPI_Init's and MPI_Init_thread's argc and argv. */
static int fort_dropped(const func *f, const param *p)
{
    return SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_init && (strcmp(p->name, "argc") == 0 || strcmp(p->name, "argv") == 0);
}

/* The Fortran integer kind behind a C integer parameter. */
static const char *fort_int_type(const param *p)
{
    if (strstr(p->type, "MPI_Offset"))
        return "MPI_Offset";
    if (strstr(p->type, "MPI_Aint"))
        return "MPI_Aint";
    if (strstr(p->type, "MPI_Count"))
        return "MPI_Count";
    return "MPI_Fint";
}

static const char *f2c_of(int role)
{
    switch (role) {
    case SIOT_ROLE_comm:
    case SIOT_ROLE_newcomm:
    case SIOT_ROLE_freecomm:
        return "MPI_Comm";
    case SIOT_ROLE_group:
    case SIOT_ROLE_newgroup:
    case SIOT_ROLE_freegroup:
        return "MPI_Group";
    case SIOT_ROLE_dtype:
    case SIOT_ROLE_newdtype:
    case SIOT_ROLE_outdtype:
    case SIOT_ROLE_freedtype:
    case SIOT_ROLE_commitdtype:
    case SIOT_ROLE_dtypearr:
        return "MPI_Type";
    case SIOT_ROLE_op:
        return "MPI_Op";
    case SIOT_ROLE_file:
    case SIOT_ROLE_newfile:
    case SIOT_ROLE_closefile:
        return "MPI_File";
    case SIOT_ROLE_info:
        return "MPI_Info";
    case SIOT_ROLE_req:
    case SIOT_ROLE_newreq:
    case SIOT_ROLE_waitreq:
    case SIOT_ROLE_reqptr:
    case SIOT_ROLE_reqarr:
        return "MPI_Request";
    }
    return NULL;
}

static const char *c_handle_type(const char *f2c)
{
    return strcmp(f2c, "MPI_Type") == 0 ? "MPI_Datatype" : f2c;
}

static const char *null_of(const char *f2c)
{
    if (strcmp(f2c, "MPI_Comm") == 0)
        return "MPI_COMM_NULL";
    if (strcmp(f2c, "MPI_Group") == 0)
        return "MPI_GROUP_NULL";
    if (strcmp(f2c, "MPI_Type") == 0)
        return "MPI_DATATYPE_NULL";
    if (strcmp(f2c, "MPI_File") == 0)
        return "MPI_FILE_NULL";
    if (strcmp(f2c, "MPI_Request") == 0)
        return "MPI_REQUEST_NULL";
    return "MPI_INFO_NULL";
}

/* Why a function gets no Fortran wrapper, or NULL. */
static const char *not_fortran(const func *f)
{
    for (int i = 0; i < f->np; i++)
        if (f->p[i].role == SIOT_ROLE_intarr3 || f->p[i].role == SIOT_ROLE_vargs || f->p[i].role == SIOT_ROLE_vlist)
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
        if (fort_dropped(f, p) || p->rec < 0 || (siot_role_is_array(p->role) && p->role != SIOT_ROLE_status) != pass)
            continue;
        const char *h = f2c_of(p->role);
        char L[256] = "";
        if (siot_role_is_array(p->role) && p->role != SIOT_ROLE_status)
            len_expr(f, p, L, sizeof L);
        switch (p->role) {
        case SIOT_ROLE_path:
        case SIOT_ROLE_str:
            o("    char %s_b[4096];\n    const char *%s = siot_fstr(%s_f, %s_len, %s_b, sizeof %s_b);\n", p->name, p->name,
              p->name, p->name, p->name, p->name);
            break;
        case SIOT_ROLE_comm:
        case SIOT_ROLE_group:
        case SIOT_ROLE_dtype:
        case SIOT_ROLE_op:
        case SIOT_ROLE_file:
        case SIOT_ROLE_info:
        case SIOT_ROLE_req:
            o("    %s %s = P%s_f2c(*(MPI_Fint *)%s_f);\n", c_handle_type(h), p->name, h, p->name);
            break;
        case SIOT_ROLE_newcomm:
        case SIOT_ROLE_newgroup:
        case SIOT_ROLE_newdtype:
        case SIOT_ROLE_outdtype:
        case SIOT_ROLE_newfile:
        case SIOT_ROLE_newreq:
            o("    %s %s_v = %s;\n    %s *%s = &%s_v;\n", c_handle_type(h), p->name, null_of(h), c_handle_type(h), p->name,
              p->name);
            break;
        case SIOT_ROLE_freecomm:
        case SIOT_ROLE_freegroup:
        case SIOT_ROLE_freedtype:
        case SIOT_ROLE_commitdtype:
        case SIOT_ROLE_closefile:
        case SIOT_ROLE_waitreq:
        case SIOT_ROLE_reqptr:
            o("    %s %s_v = P%s_f2c(*(MPI_Fint *)%s_f);\n    %s *%s = &%s_v;\n", c_handle_type(h), p->name, h, p->name,
              c_handle_type(h), p->name, p->name);
            break;
        case SIOT_ROLE_reqarr:
        case SIOT_ROLE_dtypearr:
            o("    %s %s_s[64];\n    int64_t %s_n = %s;\n", c_handle_type(h), p->name, p->name, L);
            o("    %s *%s = siot_f2c_%s(%s_f, %s_n, %s_s, 64);\n", c_handle_type(h), p->name,
              p->role == SIOT_ROLE_reqarr ? "reqs" : "dtypes", p->name, p->name, p->name);
            break;
        case SIOT_ROLE_intarr:
            o("    const int *%s = (const int *)%s_f;\n", p->name, p->name);
            break;
        case SIOT_ROLE_aintarr:
            o("    const MPI_Aint *%s = (const MPI_Aint *)%s_f;\n", p->name, p->name);
            break;
        case SIOT_ROLE_outintarr:
            o("    int %s_s[256];\n    int *%s = NULL;\n", p->name, p->name);
            break;
        case SIOT_ROLE_outint:
        case SIOT_ROLE_outflag:
        case SIOT_ROLE_outoff: {
            char pt[192];
            pointee(p, pt, sizeof pt);
            o("    %s %s_v = 0;\n    %s *%s = &%s_v;\n", pt, p->name, pt, p->name, p->name);
            break;
        }
        case SIOT_ROLE_status:
            break;
        default:
            o("    %s %s = (%s)*(%s *)%s_f;\n", p->type, p->name, p->type, fort_int_type(p), p->name);
        }
    }
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (p->role == SIOT_ROLE_status || p->role == SIOT_ROLE_iostatus)
            o("    MPI_Fint siot_fs_%s[SIOT_F_STATUS_SIZE];\n    void *%s_fs = %s_f;\n"
              "    if ((MPI_Fint *)%s_f == MPI_F_STATUS_IGNORE) {\n        siot_fstatus_empty(siot_fs_%s);\n"
              "        %s_fs = siot_fs_%s;\n    }\n",
              p->name, p->name, p->name, p->name, p->name, p->name, p->name);
    }
}

/* After the call: out values and in/out handles as the binding left them. */
static void emit_fort_post(const func *f)
{
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (fort_dropped(f, p))
            continue;
        const char *h = f2c_of(p->role);
        switch (p->role) {
        case SIOT_ROLE_newcomm:
        case SIOT_ROLE_newgroup:
        case SIOT_ROLE_newdtype:
        case SIOT_ROLE_outdtype:
        case SIOT_ROLE_newfile:
        case SIOT_ROLE_newreq:
            o("    if (ret == MPI_SUCCESS) %s_v = P%s_f2c(*(MPI_Fint *)%s_f);\n", p->name, h, p->name);
            break;
        case SIOT_ROLE_freecomm:
        case SIOT_ROLE_freegroup:
        case SIOT_ROLE_freedtype:
        case SIOT_ROLE_commitdtype:
        case SIOT_ROLE_closefile:
        case SIOT_ROLE_waitreq:
        case SIOT_ROLE_reqptr:
            o("    %s_v = P%s_f2c(*(MPI_Fint *)%s_f);\n", p->name, h, p->name);
            break;
        case SIOT_ROLE_reqarr:
            o("    siot_f2c_reqs_again(%s_f, %s_n, %s);\n", p->name, p->name, p->name);
            break;
        case SIOT_ROLE_outint:
            /* Fortran indices count from 1 */
            if (strcmp(p->name, "index") == 0)
                o("    if (ret == MPI_SUCCESS) { %s_v = *(MPI_Fint *)%s_f; if (%s_v > 0) %s_v--; }\n", p->name, p->name,
                  p->name, p->name);
            else
                o("    if (ret == MPI_SUCCESS) %s_v = *(MPI_Fint *)%s_f;\n", p->name, p->name);
            break;
        case SIOT_ROLE_outflag:
            o("    if (ret == MPI_SUCCESS) %s_v = *(MPI_Fint *)%s_f != 0;\n", p->name, p->name);
            break;
        case SIOT_ROLE_outoff:
            o("    if (ret == MPI_SUCCESS) %s_v = *(%s *)%s_f;\n", p->name, fort_int_type(p), p->name);
            break;
        case SIOT_ROLE_status:
        case SIOT_ROLE_iostatus:
            o("    MPI_Status siot_st_%s;\n    memset(&siot_st_%s, 0, sizeof siot_st_%s);\n", p->name, p->name, p->name);
            o("    if (ret == MPI_SUCCESS) PMPI_Status_f2c((MPI_Fint *)%s_fs, &siot_st_%s);\n", p->name, p->name);
            o("    MPI_Status *siot_sp_%s = &siot_st_%s;\n", p->name, p->name);
            break;
        default:
            break;
        }
    }
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

static void emit_fortran_wrapper(const func *f)
{
    char lname[128];
    lower(lname, sizeof lname, f->name);
    unsigned base = SIOT_CLASS_BASE(f->cls);
    const char *layer = siot_layer_name((unsigned)f->layer);
    /* the prototype: every argument by reference, then ierr, then the hidden string lengths */
    char params[4096] = "", args[4096] = "", pargs[4096] = "", lens[1024] = "", lensd[1024] = "";
    size_t pl = 0, al = 0, ql = 0, ll = 0, ld = 0;
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (fort_dropped(f, p))
            continue;
        int str = is_string_param(p);
        pl += (size_t)snprintf(params + pl, sizeof params - pl, "%s%s%s_f", pl ? ", " : "", str ? "char *" : "void *", p->name);
        al += (size_t)snprintf(args + al, sizeof args - al, "%s%s_f", al ? ", " : "", p->name);
        if (p->role == SIOT_ROLE_status || p->role == SIOT_ROLE_iostatus)
            ql += (size_t)snprintf(pargs + ql, sizeof pargs - ql, "%s%s_fs", ql ? ", " : "", p->name);
        else
            ql += (size_t)snprintf(pargs + ql, sizeof pargs - ql, "%s%s_f", ql ? ", " : "", p->name);
        if (str) {
            ll += (size_t)snprintf(lens + ll, sizeof lens - ll, ", %s_len", p->name);
            ld += (size_t)snprintf(lensd + ld, sizeof lensd - ld, ", size_t %s_len", p->name);
        }
    }
    const char *sep = pl ? ", " : "";
    o("\n/* %s:%d */\n", f->file, f->line);
    o("extern void p%s_(%s%sMPI_Fint *ierr%s);\n", lname, params, sep, lensd);
    o("SIOT_TEXT void %s_(%s%sMPI_Fint *ierr%s)\n{\n", lname, params, sep, lensd);
    if (base == SIOT_CLASS_finalize || base == SIOT_CLASS_abort) {
        o("    int slot = siot_recording(SIOT_LAYER_%s) ? siot_begin(SIOT_FN_%s) : -1;\n", layer, f->name);
        o("    if (slot >= 0) {\n        int ret = 0;\n        (void)ret;\n");
        emit_fort_pre(f);
        o("        siot_raw *ev = siot_end(slot);\n");
        for (int i = 0; i < f->np; i++)
            if (f->p[i].rec >= 0)
                emit_record_param(f, &f->p[i]);
        o("        ev->ret = 0;\n        siot_finish(slot);\n    }\n");
        if (base == SIOT_CLASS_finalize)
            o("    siot_mpi_finalize_hook();\n");
        else
            o("    siot_mpi_abort_hook((int)*(MPI_Fint *)errorcode_f);\n");
        o("    p%s_(%s%sierr%s);\n}\n", lname, args, sep, lens);
        return;
    }
    if (base == SIOT_CLASS_init) {
        o("    int slot = siot_recording(SIOT_LAYER_%s) ? siot_begin(SIOT_FN_%s) : -1;\n", layer, f->name);
        o("    siot_mpi_init_pre();\n");
    } else {
        o("    int slot = -1;\n    if (siot_recording(SIOT_LAYER_%s))\n        slot = siot_begin(SIOT_FN_%s);\n", layer, f->name);
        o("    if (SIOT_LIKELY(slot < 0)) {\n        p%s_(%s%sierr%s);\n", lname, args, sep, lens);
        if (agreed_handle(f))
            o("        siot_mpi_agree_absent(PMPI_Comm_f2c(*(MPI_Fint *)%s_f));\n", find_role(f, SIOT_ROLE_comm)->name);
        o("        return;\n    }\n");
    }
    emit_fort_pre(f);
    emit_pre(f);
    /* status arrays substituted for MPI_STATUS_IGNORE, the rest as given */
    o("    p%s_(%s%sierr%s);\n", lname, pargs, sep, lens);
    o("    int ret = (int)*ierr;\n    int siot_e = errno;\n");
    emit_fort_post(f);
    emit_record_event(f, "", 1);
    o("    siot_finish(slot);\n");
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (p->role == SIOT_ROLE_reqarr || p->role == SIOT_ROLE_dtypearr)
            o("    if (%s != %s_s) free(%s);\n", p->name, p->name, p->name);
    }
    o("    errno = siot_e;\n}\n");
}

static void emit_fortran_file(const char *dir)
{
    fortran_mode = 1;
    out = open_out(dir, "fort_mpi.c");
    o("/* Generated by tools/siot-gen from the spec files. Do not edit.\n"
      " * Fortran (mpif.h / use mpi) wrappers for Open MPI. */\n");
    o("#include <errno.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n");
    o("#include \"pmpi/mpi_record.h\"\n#include \"pmpi/fort_record.h\"\n#include \"functab.h\"\n");
    o("#pragma GCC diagnostic ignored \"-Wunused-variable\"\n#pragma GCC diagnostic ignored \"-Wunused-but-set-variable\"\n");
    for (int i = 0; i < NF; i++) {
        const func *f = &F[i];
        if (f->layer != SIOT_LAYER_mpi && f->layer != SIOT_LAYER_mpiio)
            continue;
        const char *why = not_fortran(f);
        if (why)
            o("\n/* %s: no Fortran wrapper (%s) */\n", f->name, why);
        else
            emit_fortran_wrapper(f);
    }
    fclose(out);
}

static void emit_functab(const char *dir)
{
    out = open_out(dir, "functab.h");
    o("/* Generated by tools/siot-gen. Do not edit. */\n#ifndef SIOT_FUNCTAB_H\n#define SIOT_FUNCTAB_H\n");
    o("enum siot_fn {\n");
    for (int i = 0; i < NF; i++)
        o("    SIOT_FN_%s = %d,\n", F[i].name, i);
    o("    SIOT_NFN = %d\n};\n#endif\n", NF);
    fclose(out);

    out = open_out(dir, "functab.c");
    o("/* Generated by tools/siot-gen. Do not edit. */\n#include \"src/event.h\"\n\n");
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

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: siot-gen OUTDIR SPEC...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++)
        read_spec(argv[i]);
    for (int i = 0; i < NF; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(F[i].name, F[j].name) == 0)
                die(F[i].file, F[i].line, "%s is already specified at %s:%d", F[i].name, F[j].file, F[j].line);
    emit_functab(argv[1]);
    int present[SIOT_NLAYERS] = {0};
    for (int i = 0; i < NF; i++)
        present[F[i].layer] = 1;
    for (int l = 0; l < SIOT_NLAYERS; l++)
        if (present[l])
            emit_layer_file(argv[1], l);
    emit_replay_file(argv[1]);
    emit_fortran_file(argv[1]);
    return 0;
}
