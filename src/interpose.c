/* interpose: the real functions and the callers of exported entries (interpose.h). */
#include "src/interpose.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/modules.h"

void *siot_real_lookup(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        /* The first definition in the process may be this module's own
         * exported interposer: calling it would recurse without end. */
        f = dlsym(RTLD_DEFAULT, name);
        Dl_info found, self;
        if (f && dladdr(f, &found) && dladdr((void *)siot_real_lookup, &self) &&
            found.dli_fbase == self.dli_fbase)
            f = NULL;
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

/* The innermost traced call in flight is an I/O library's or MPI-IO's. */
static int inside_io_call(void)
{
    if (!siot_t.depth || siot_t.top < 0)
        return 0;
    unsigned l = siot_functab[siot_t.stage[siot_t.top].func].layer;
    return l == SIOT_LAYER_mpiio || l == SIOT_LAYER_hdf5 || l == SIOT_LAYER_pnetcdf;
}

int siot_caller_records(const void *ra)
{
    switch (siot_module_class((uintptr_t)ra)) {
    case SIOT_MC_RECORD:
        return 1;
    case SIOT_MC_INSIDE_IO:
        return inside_io_call();
    default:
        return 0;
    }
}
