/* modules: the loaded objects by address (modules.h). */
#include "src/modules.h"

#include <link.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/salloc.h"

typedef struct mrange {
    uintptr_t lo, hi, base;
    uint32_t module;
    uint8_t cls;
} mrange;

typedef struct msnap {
    uint32_t n;
    mrange r[];
} msnap;

static msnap *_Atomic snap;   /* the current snapshot; old ones are kept (readers may hold them) */
static _Atomic uint32_t rebuilds;
#define MAX_REBUILDS 256

/* The registry of module paths: ids in order of discovery. Fixed arrays:
 * readers index them without a lock while a new module is added. */
#define MAX_MODULES 4096
static atomic_flag reg_lock = ATOMIC_FLAG_INIT;
static char *paths[MAX_MODULES];
static uint8_t classes[MAX_MODULES];
static _Atomic uint32_t npaths;

static void reg_take(void)
{
    while (atomic_flag_test_and_set_explicit(&reg_lock, memory_order_acquire))
        ;
}
static void reg_give(void) { atomic_flag_clear_explicit(&reg_lock, memory_order_release); }

/* Libraries whose calls are never the program's I/O, and those of the MPI
 * library, whose I/O is the program's only inside a traced I/O call (their
 * transports and start-up read /proc, /sys and shared-memory files). */
static const char *const NEVER[] = {"libc.so", "ld-linux", "libunwind", "libsiotrace", "libucp", "libuct", "libucs",
                                    "libucm", "libhwloc", "libevent", "libpmix", "libfabric", "libibverbs",
                                    "librdmacm", "libpsm", "libnuma", "libudev", "libltdl", "libgcc_s", "libm.so",
                                    "libdl.so", "libpthread", "librt.so", "libmunge", "libnl-", "libcuda", "libxpmem", "libopen-pal", "libopen-rte",
                                    NULL};
/* Open MPI's MPI-IO plugins: OMPIO's io, fs, fbtl, fcoll and sharedfp
 * components and their common library, and its ROMIO component; their POSIX
 * calls are the file I/O of an MPI-IO call. */
static const char *const MPIIO_LIBS[] = {"mca_io_", "mca_fs_", "mca_fbtl_", "mca_fcoll_", "mca_sharedfp_",
                                         "libmca_common_ompio", NULL};
static const char *const MPI_LIBS[] = {"libmpi", "libmpich", "mca_", "libmca_",
                                       "libmpl", "libhcoll", NULL};

static int has_prefix_in(const char *base, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strncmp(base, list[i], strlen(list[i])) == 0)
            return 1;
    return 0;
}

static uint8_t class_of(const char *path, int is_exe)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (is_exe)
        return SIOT_MC_RECORD;
    if (has_prefix_in(base, NEVER) || strstr(path, "/ld-linux") || strstr(path, "linux-vdso"))
        return SIOT_MC_NEVER;
    if (has_prefix_in(base, MPIIO_LIBS))
        return SIOT_MC_MPIIO;
    if (has_prefix_in(base, MPI_LIBS))
        return SIOT_MC_INSIDE_IO;
    return SIOT_MC_RECORD;
}

/* The id of path, registered when new (under the registry lock). */
static uint32_t path_id(const char *path, int is_exe)
{
    uint32_t n = atomic_load(&npaths);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(paths[i], path) == 0)
            return i;
    size_t len = strlen(path);
    char *copy = n < MAX_MODULES ? siot_malloc(len + 1) : NULL;
    if (!copy)
        return UINT32_MAX;
    memcpy(copy, path, len + 1);
    paths[n] = copy;
    classes[n] = class_of(path, is_exe);
    atomic_store(&npaths, n + 1);
    return n;
}

/* What dl_iterate_phdr reports, gathered before anything is registered
 * (its callback runs under the loader's lock). */
typedef struct seen {
    mrange *r;
    char **name;
    uint8_t *exe;
    uint32_t n, cap;
} seen;

static const char *object_path(const struct dl_phdr_info *info, char exe[PATH_MAX], int *is_exe)
{
    const char *name = info->dlpi_name;
    *is_exe = !(name && *name);
    if (!*is_exe)
        return name;
    ssize_t r = (ssize_t)syscall(SYS_readlink, "/proc/self/exe", exe, PATH_MAX - 1);
    exe[r > 0 ? r : 0] = 0;
    return exe;
}

static int add_segment(seen *s, const struct dl_phdr_info *info, const ElfW(Phdr) *ph, const char *name, int is_exe)
{
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 64;
        if (SIOT_REGROW(s->r, cap) || SIOT_REGROW(s->name, cap) || SIOT_REGROW(s->exe, cap))
            return -1;
        s->cap = cap;
    }
    size_t len = strlen(name);
    char *copy = siot_malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, name, len + 1);
    /* Offsets are taken from the module's load base, as addr2line wants them. */
    s->r[s->n] = (mrange){info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz, info->dlpi_addr,
                          0, 0};
    s->name[s->n] = copy;
    s->exe[s->n] = (uint8_t)is_exe;
    s->n++;
    return 0;
}

static int on_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    char exe[PATH_MAX];
    int is_exe;
    const char *name = object_path(info, exe, &is_exe);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && add_segment(arg, info, ph, name, is_exe) != 0)
            return 1;
    }
    return 0;
}

static int cmp_range(const void *a, const void *b)
{
    const mrange *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* A new snapshot from what the loader says now; published, the old one kept. */
static void rebuild(void)
{
    seen s = {0};
    if (atomic_fetch_add(&rebuilds, 1) >= MAX_REBUILDS)
        return;
    dl_iterate_phdr(on_object, &s);
    msnap *m = s.n ? siot_malloc(sizeof *m + s.n * sizeof *m->r) : NULL;
    reg_take();
    for (uint32_t i = 0; m && i < s.n; i++) {
        m->r[i] = s.r[i];
        m->r[i].module = path_id(s.name[i], s.exe[i]);
        m->r[i].cls = m->r[i].module == UINT32_MAX ? SIOT_MC_RECORD : classes[m->r[i].module];
    }
    reg_give();
    if (m) {
        m->n = s.n;
        qsort(m->r, m->n, sizeof *m->r, cmp_range);
        atomic_store_explicit(&snap, m, memory_order_release);
    }
    for (uint32_t i = 0; i < s.n; i++)
        siot_free(s.name[i]);
    siot_free(s.name);
    siot_free(s.r);
    siot_free(s.exe);
}

static const mrange *lookup(const msnap *m, uintptr_t a)
{
    if (!m)
        return NULL;
    uint32_t lo = 0, hi = m->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (m->r[mid].hi <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->r[lo].lo <= a ? &m->r[lo] : NULL;
}

static const mrange *find(uintptr_t a)
{
    const mrange *r = lookup(atomic_load_explicit(&snap, memory_order_acquire), a);
    if (!r) {
        rebuild(); /* a library loaded since the last look (dlopen) */
        r = lookup(atomic_load_explicit(&snap, memory_order_acquire), a);
    }
    return r;
}

void siot_modules_init(void)
{
    if (!atomic_load(&snap))
        rebuild();
}

int siot_module_of(uintptr_t a, uint32_t *module, uintptr_t *base)
{
    const mrange *r = find(a);
    if (!r || r->module == UINT32_MAX)
        return 0;
    *module = r->module;
    *base = r->base;
    return 1;
}

const char *siot_module_path(uint32_t m) { return m < atomic_load(&npaths) ? paths[m] : NULL; }

uint32_t siot_module_count(void) { return atomic_load(&npaths); }

/* Per thread: the last range asked about (calls come from the same place). */
static __thread struct {
    uintptr_t lo, hi;
    int cls;
} last __attribute__((tls_model("initial-exec")));

int siot_module_class(uintptr_t a)
{
    if (a >= last.lo && a < last.hi)
        return last.cls;
    const mrange *r = find(a);
    if (!r)
        return SIOT_MC_RECORD;
    last.lo = r->lo;
    last.hi = r->hi;
    last.cls = r->cls;
    return r->cls;
}
