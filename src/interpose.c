/* interpose: the real functions and the callers of exported entries (interpose.h). */
#include "src/interpose.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/modules.h"

/* libsiotrace.so or a layer's libsiotrace-LAYER.so: their exported
 * entries are interposers, never the real function. */
static int tracer_module(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libsiotrace", 11) == 0;
}

static int defined_by_tracer(void *f)
{
    Dl_info found, self;
    return dladdr(f, &found) &&
           ((found.dli_fname && tracer_module(found.dli_fname)) ||
            (dladdr((void *)siot_real_lookup, &self) && found.dli_fbase == self.dli_fbase));
}

typedef struct wanted {
    const char *name;
    void *f;
} wanted;

/* One loaded object (and what it depends on) asked for the name, in load
 * order, the program and the tracer's modules left out. */
static int look_in(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    wanted *w = arg;
    if (!info->dlpi_name || !info->dlpi_name[0] || tracer_module(info->dlpi_name))
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *f = dlsym(h, w->name);
    if (f && !defined_by_tracer(f))
        w->f = f;
    dlclose(h);
    return w->f != NULL;
}

/* RTLD_NEXT from this module finds nothing when it was loaded after the
 * library that defines the name: libsiotrace.so as a dependency of a
 * layer's library preloaded alone (LD_PRELOAD=libsiotrace-pnetcdf.so),
 * whose first definition in the process (RTLD_DEFAULT) is that layer's own
 * interposer: calling it would recurse without end. The objects are then
 * asked one by one. */
void *siot_real_lookup(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        f = dlsym(RTLD_DEFAULT, name);
        if (f && defined_by_tracer(f)) {
            wanted w = {name, NULL};
            dl_iterate_phdr(look_in, &w);
            f = w.f;
        }
    }
    if (!f) {
        static const char msg[] = "siotrace: no real function to call for ";
        syscall(SYS_write, 2, msg, sizeof msg - 1);
        syscall(SYS_write, 2, name, strlen(name));
        syscall(SYS_write, 2, "\n", 1);
        abort();
    }
    return f;
}

static int inside_traced_call(void) { return siot_t.depth && siot_t.top >= 0; }

/* The innermost traced call in flight is an I/O library's or MPI-IO's. */
static int inside_io_call(void)
{
    if (!inside_traced_call())
        return 0;
    unsigned l = siot_functab[siot_t.stage[siot_t.top].func].layer;
    return l == SIOT_LAYER_mpiio || l == SIOT_LAYER_hdf5 || l == SIOT_LAYER_pnetcdf;
}

static _Atomic uint64_t unseen_mpiio;

uint64_t siot_unseen_mpiio_calls(void) { return atomic_load_explicit(&unseen_mpiio, memory_order_relaxed); }

int siot_caller_records(const void *ra)
{
    switch (siot_module_class((uintptr_t)ra)) {
    case SIOT_MC_RECORD:
        return 1;
    case SIOT_MC_INSIDE_IO:
        return inside_io_call();
    case SIOT_MC_MPIIO:
        if (inside_io_call())
            return 1;
        /* MPI-IO's file I/O with no traced MPI-IO call above it: the
         * program called PMPI_File_* itself (or a library did) */
        atomic_fetch_add_explicit(&unseen_mpiio, 1, memory_order_relaxed);
        return 0;
    default:
        return 0;
    }
}

/* The MPI library's aio calls only inside a traced call (MPI_Wait): one
 * outside every traced call is made for a caller that is not the program's
 * (ioreplay's own PMPI_Wait before it reissues a test that found its
 * request done), and would have no call to be a child of. */
int siot_aio_caller_records(const void *ra)
{
    int cls = siot_module_class((uintptr_t)ra);
    return cls == SIOT_MC_RECORD || ((cls == SIOT_MC_INSIDE_IO || cls == SIOT_MC_MPIIO) && inside_traced_call());
}

int siot_wrapped_library_poll(void) { return inside_traced_call() && !inside_io_call(); }

int siot_library_poll(const void *ra)
{
    int cls = siot_module_class((uintptr_t)ra);
    return (cls == SIOT_MC_INSIDE_IO || cls == SIOT_MC_MPIIO) && !inside_io_call();
}
