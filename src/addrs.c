/* addrs: displacements that are absolute addresses (src/addrs.h). */
#include "src/addrs.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint64_t rebased;

/* Below 4 GiB nothing is taken for an address (nor is a negative value).
 * Rebasing a value that is not one would misreport it (a file type's byte
 * displacements of 16 MiB, which a non-PIE program's 48 MB of text and data
 * could hold mapped), while leaving an address as it is only costs folding.
 * x86-64 PIE programs, their heap, shared libraries, mappings and stacks
 * lie far above (0x55..., 0x7f...); a non-PIE program's static data and brk
 * heap below stay exact, per rank. */
#define LOWEST_ADDRESS ((int64_t)1 << 32)

/* Whether the page holding a is mapped: mincore fails with ENOMEM on
 * memory the process has not mapped (and on values beyond user space). A
 * raw system call: the tracer's own calls are never the program's. */
static int mapped_page(uintptr_t page, unsigned char *vec)
{
    return syscall(SYS_mincore, (void *)page, 1, vec) == 0;
}

static int all_mapped(const int64_t *a, int64_t n)
{
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t mask = ~(uintptr_t)((ps > 0 ? ps : 4096) - 1), last = 0;
    unsigned char vec[1];
    int saved = errno, ok = 1;
    for (int64_t i = 0; ok && i < n; i++) {
        uintptr_t page = (uintptr_t)a[i] & mask;
        if (a[i] < LOWEST_ADDRESS)
            ok = 0;
        else if (page != last) /* consecutive entries are mostly on one page: one call for them */
            ok = mapped_page(page, vec);
        last = page;
    }
    errno = saved;
    return ok;
}

int siot_addr_rebase(int64_t *a, int64_t n)
{
    if (!a || n <= 0 || !all_mapped(a, n))
        return 0;
    int64_t low = a[0];
    for (int64_t i = 1; i < n; i++)
        low = a[i] < low ? a[i] : low;
    for (int64_t i = 0; i < n; i++)
        a[i] -= low;
    __atomic_fetch_add(&rebased, 1, __ATOMIC_RELAXED);
    return 1;
}

uint64_t siot_addr_rebased(void) { return __atomic_load_n(&rebased, __ATOMIC_RELAXED); }
