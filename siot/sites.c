/* sites: call sites at the program's own frames (sites.h). */
#include "siot/sites.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int siot_stats_resolve_sites = 1;

const char siot_no_line_hint[] = "module+offset: that code has no line information; to see file:line, rebuild "
                                 "the program with -g";

/* Shared objects of the I/O stack and the runtime, by the start of their
 * file name. */
static const char *const LIB_OBJECTS[] = {
    "libc.", "libc-", "ld-linux", "libm.", "libpthread", "libdl.", "librt.", "libmpi", "libpmpi", "libopen-",
    "libpmix", "libprrte", "libhwloc", "libevent", "libuc", "libfabric", "libpsm", "libibverbs", "librdmacm",
    "libxpmem", "libknem", "libnuma", "mca_", "libmca_", "libromio", "libhdf5", "libpnetcdf", "libnetcdf",
    "libgfortran", "libquadmath", "libgcc_s", "libstdc++", "libz.", "libsz", "libaec", "libunwind", "libsiotrace",
};

/* Function namespaces of those libraries when linked statically. */
static const char *const LIB_FUNCS[] = {
    "MPI_", "PMPI_", "MPIR_", "MPID", "MPII_", "MPIU_", "MPL_", "MPIO_", "MPIOI_", "ADIO", "H5", "ncmpi", "nfmpi",
    "nf90mpi", "_gfortran", "__libc", "_IO_", "yaksa", "yaksi", "hwloc_", "PMI", "__h5", "__mpi", "__pnetcdf_MOD_",
};

/* The Fortran MPI bindings' symbols, mpi_file_write_ (MPICH's also with
 * two underscores, Open MPI's mpi_file_write_f): lowercase mpi_ or pmpi_
 * and a Fortran compiler's underscore at the end, or _f, _f08. A C
 * function of the program named mpi_setup is not one of them. */
static int fortran_mpi(const char *fn)
{
    if (strncmp(fn, "mpi_", 4) != 0 && strncmp(fn, "pmpi_", 5) != 0)
        return 0;
    size_t n = strlen(fn);
    return fn[n - 1] == '_' || (n > 2 && strcmp(fn + n - 2, "_f") == 0) || (n > 4 && strcmp(fn + n - 4, "_f08") == 0);
}

static int starts_any(const char *s, const char *const *pre, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(s, pre[i], strlen(pre[i])) == 0)
            return 1;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* One frame of a stack, as resolved. */
typedef struct frame {
    uint64_t addr;
    int exe;        /* in the traced executable */
    int known_line; /* addr2line gave file:line */
    char fn[128];   /* its function, "" when unknown */
    char text[512]; /* "file.c:LINE (function)", "module+0x... (function)" or "module+0x..." */
} frame;

static void frame_plain(const siot_trace *t, frame *f, uint64_t a, int exe_mod)
{
    uint32_t m = SIOT_ADDR_MODULE(a);
    f->addr = a;
    f->exe = (int)m == exe_mod;
    f->known_line = 0;
    f->fn[0] = 0;
    snprintf(f->text, sizeof f->text, "%s+0x%llx", base_name(m < t->nmodules ? t->modules[m] : "?"),
             (unsigned long long)SIOT_ADDR_OFFSET(a));
}

/* addr2line's two lines for a frame into it: "file.c:LINE (function)" when
 * the line is known, "module+0x... (function)" when only the function is. */
static void frame_text(frame *f, char *fn, char *line)
{
    fn[strcspn(fn, "\n")] = 0;
    line[strcspn(line, "\n")] = 0;
    line[strcspn(line, " ")] = 0; /* " (discriminator 3)": addr2line's, not the program's */
    const char *file = base_name(line);
    /* "??:?", ":?" (a directory without a file name), "x.c:?" */
    f->known_line = strncmp(file, "??", 2) != 0 && file[0] != ':' && !strstr(file, ":?");
    if (strcmp(fn, "??") != 0)
        snprintf(f->fn, sizeof f->fn, "%.127s", fn);
    char mod[512];
    snprintf(mod, sizeof mod, "%s", f->text);
    if (f->known_line)
        snprintf(f->text, sizeof f->text, "%.200s (%.200s)", file, fn);
    else if (f->fn[0])
        snprintf(f->text, sizeof f->text, "%.200s (%.200s)", mod, fn);
}

/* Runs addr2line on the executable for its frames among fr[0..n). 0, or -1
 * when it cannot run. */
static int addr2line_all(const char *exe, frame *fr, uint32_t n)
{
    char tmpl[] = "/tmp/siot-a2l-XXXXXX";
    int fd = mkstemp(tmpl);
    FILE *in = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!in)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (fr[i].exe)
            fprintf(in, "0x%llx\n", (unsigned long long)SIOT_ADDR_OFFSET(fr[i].addr));
    fclose(in);
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "addr2line -f -C -e '%s' < '%s' 2>/dev/null", exe, tmpl);
    FILE *p = strchr(exe, '\'') ? NULL : popen(cmd, "r");
    char fn[512], line[512];
    for (uint32_t i = 0; p && i < n; i++) {
        if (!fr[i].exe)
            continue;
        if (!fgets(fn, sizeof fn, p) || !fgets(line, sizeof line, p))
            break;
        frame_text(&fr[i], fn, line);
    }
    if (p)
        pclose(p);
    unlink(tmpl);
    return p ? 0 : -1;
}

static int is_program(const siot_trace *t, const frame *f)
{
    if (!f->exe) {
        uint32_t m = SIOT_ADDR_MODULE(f->addr);
        return m < t->nmodules &&
               !starts_any(base_name(t->modules[m]), LIB_OBJECTS, sizeof LIB_OBJECTS / sizeof *LIB_OBJECTS);
    }
    return f->fn[0] && !starts_any(f->fn, LIB_FUNCS, sizeof LIB_FUNCS / sizeof *LIB_FUNCS) && !fortran_mpi(f->fn);
}

/* The stacks looked at for a location, outermost call first: up to
 * SIOT_SITES_CHAIN sites. */
#define CHAIN 16
static uint32_t candidates(const siot_origins *o, const siot_siteloc *l, uint32_t *sites)
{
    uint32_t n = 0;
    if (!o || !l->origin || l->origin >= o->n) {
        sites[n++] = l->site;
        return n;
    }
    uint32_t ids[CHAIN], k = 0;
    for (uint32_t id = l->origin; id && k < CHAIN; id = o->v[id].parent)
        ids[k++] = id; /* innermost first; a chain deeper than CHAIN keeps its inner calls */
    while (k)
        sites[n++] = o->v[ids[--k]].site;
    return n;
}

/* The traced calls from the outermost down ("H5Dwrite > MPI_File_write_at >
 * pwrite") and, beneath, the call's innermost frame. */
static void chain_text(const siot_trace *t, const siot_origins *o, siot_siteloc *l, const frame *inner)
{
    l->chain[0] = 0;
    if (!o || !l->origin || l->origin >= o->n || !o->v[l->origin].parent)
        return;
    uint32_t ids[CHAIN], k = 0;
    for (uint32_t id = l->origin; id && k < CHAIN; id = o->v[id].parent)
        ids[k++] = id;
    size_t len = 0;
    while (k-- > 0 && len < sizeof l->chain) {
        uint32_t fn = o->v[ids[k]].func;
        len += (size_t)snprintf(l->chain + len, sizeof l->chain - len, "%s%s", len ? " > " : "",
                                fn < t->nfuncs ? t->funcs[fn].name : "?");
    }
    if (inner && len < sizeof l->chain)
        snprintf(l->chain + len, sizeof l->chain - len, " in %.200s", inner->fn[0] ? inner->fn : inner->text);
}

typedef struct plan {
    uint32_t nc, site[CHAIN], first[CHAIN + 1]; /* the stacks' sites and their frames in the flat array */
} plan;

/* The location by the rule (sites.h): the first stack holding a program
 * frame gives its innermost one with a line, else its innermost one. */
static const frame *program_frame(const siot_trace *t, const plan *p, const frame *fr)
{
    for (uint32_t c = 0; c < p->nc; c++) {
        const frame *any = NULL;
        for (uint32_t k = p->first[c]; k < p->first[c + 1]; k++)
            if (is_program(t, &fr[k])) {
                if (fr[k].known_line)
                    return &fr[k];
                if (!any)
                    any = &fr[k];
            }
        if (any)
            return any;
    }
    return NULL;
}

/* No program frame: the outermost call's innermost frame in the executable
 * with a line, else with a function, else its module+offset. */
static const frame *fallback_frame(const plan *p, const frame *fr)
{
    const frame *named = NULL, *exe = NULL;
    for (uint32_t k = p->first[0]; k < p->first[1]; k++) {
        if (!fr[k].exe)
            continue;
        if (fr[k].known_line)
            return &fr[k];
        if (!named && fr[k].fn[0])
            named = &fr[k];
        if (!exe)
            exe = &fr[k];
    }
    return named ? named : exe ? exe : p->first[0] < p->first[1] ? &fr[p->first[0]] : NULL;
}

static void place(const siot_trace *t, const siot_origins *o, siot_siteloc *l, const plan *p, const frame *fr)
{
    const frame *f = program_frame(t, p, fr);
    l->program = f != NULL;
    if (!f)
        f = fallback_frame(p, fr);
    if (f)
        snprintf(l->where, sizeof l->where, "%s", f->text);
    else
        snprintf(l->where, sizeof l->where, "(no call site recorded)");
    l->no_line = f && !f->known_line;
    uint32_t leaf = p->nc - 1;
    chain_text(t, o, l, p->first[leaf] < p->first[leaf + 1] ? &fr[p->first[leaf]] : NULL);
}

void siot_resolve_origins(const siot_trace *t, const siot_origins *o, siot_siteloc *loc, uint32_t n)
{
    int exe_mod = -1;
    for (uint32_t m = 0; m < t->nmodules; m++)
        if (strcmp(t->modules[m], t->exe) == 0)
            exe_mod = (int)m;
    plan *pl = calloc(n + 1, sizeof *pl);
    uint32_t total = 0;
    for (uint32_t i = 0; pl && i < n; i++) {
        pl[i].nc = candidates(o, &loc[i], pl[i].site);
        for (uint32_t c = 0; c < pl[i].nc; c++) {
            uint32_t s = pl[i].site[c];
            pl[i].first[c] = total;
            total += s && s <= t->nsites ? t->sites[s - 1].depth : 0;
        }
        pl[i].first[pl[i].nc] = total;
    }
    frame *fr = pl ? calloc(total + 1, sizeof *fr) : NULL;
    for (uint32_t i = 0; fr && i < n; i++)
        for (uint32_t c = 0; c < pl[i].nc; c++)
            for (uint32_t k = pl[i].first[c]; k < pl[i].first[c + 1]; k++)
                frame_plain(t, &fr[k], t->sites[pl[i].site[c] - 1].addrs[k - pl[i].first[c]], exe_mod);
    if (fr && total && siot_stats_resolve_sites && access(t->exe, R_OK) == 0 &&
        access("/usr/bin/addr2line", X_OK) == 0)
        addr2line_all(t->exe, fr, total);
    for (uint32_t i = 0; i < n; i++) {
        if (fr)
            place(t, o, &loc[i], &pl[i], fr);
        else
            snprintf(loc[i].where, sizeof loc[i].where, "s%u", loc[i].site); /* out of memory */
    }
    free(fr);
    free(pl);
}

void siot_resolve_sites(const siot_trace *t, siot_siteloc *loc, uint32_t n)
{
    siot_resolve_origins(t, NULL, loc, n);
}
