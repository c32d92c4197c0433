/* test_addrs: which displacement arrays are taken for addresses and made
 * relative to their lowest entry (src/addrs.h). Addresses of a heap block,
 * of the stack and of a static are rebased, to the same values whatever
 * the block's place; arrays holding a value the process has not mapped (0,
 * a small displacement, a byte displacement above 64 KiB, a negative one,
 * an address of memory unmapped since) stay exact. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "src/addrs.c"
#include "tests/unit/unit.h"

static char in_data[64];

/* Addresses of entries 0, 3 and 1 of a block of 40-byte records. */
static void record_addrs(const char *block, int64_t out[3])
{
    out[0] = (int64_t)(uintptr_t)(block + 0 * 40);
    out[1] = (int64_t)(uintptr_t)(block + 3 * 40);
    out[2] = (int64_t)(uintptr_t)(block + 1 * 40);
}

static void rebased_the_same(void)
{
    char *x = malloc(400), *y = malloc(100000); /* a brk block and a mapped one */
    int64_t a[3], b[3];
    record_addrs(x, a);
    record_addrs(y, b);
    CHECK(siot_addr_rebase(a, 3) == 1);
    CHECK(siot_addr_rebase(b, 3) == 1);
    int64_t want[3] = {0, 120, 40};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_I64(a[i], want[i]);
        CHECK_EQ_I64(b[i], want[i]);
    }
    int local;
    int64_t mixed[3] = {(int64_t)(uintptr_t)&local, (int64_t)(uintptr_t)in_data, (int64_t)(uintptr_t)(x + 8)};
    int64_t low = mixed[0] < mixed[1] ? mixed[0] : mixed[1];
    low = mixed[2] < low ? mixed[2] : low;
    int64_t d0 = mixed[0] - low;
    CHECK(siot_addr_rebase(mixed, 3) == 1); /* stack, static data and heap together */
    CHECK_EQ_I64(mixed[0], d0);
    CHECK(mixed[0] == 0 || mixed[1] == 0 || mixed[2] == 0);
    free(x);
    free(y);
}

static void exact(const int64_t *v, int n)
{
    int64_t a[4];
    for (int i = 0; i < n; i++)
        a[i] = v[i];
    CHECK(siot_addr_rebase(a, n) == 0);
    for (int i = 0; i < n; i++)
        CHECK_EQ_I64(a[i], v[i]);
}

static void left_as_they_are(void)
{
    char *x = malloc(64);
    int64_t heap = (int64_t)(uintptr_t)x;
    exact((int64_t[]){0, 40, 80}, 3);
    exact((int64_t[]){70000, 170000}, 2);       /* file offsets over 64 KiB */
    exact((int64_t[]){heap, 16}, 2);            /* one address, one small displacement */
    exact((int64_t[]){heap, -8}, 2);            /* a negative displacement */
    exact((int64_t[]){INT64_MAX, heap}, 2);     /* beyond user space */
    long ps = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    if (m != MAP_FAILED) {
        munmap(m, (size_t)ps);
        exact((int64_t[]){heap, (int64_t)(uintptr_t)m}, 2); /* memory unmapped since */
    }
    /* mapped, but below 4 GiB, where a non-PIE program's data lies beside
     * file displacements of some MiB: left exact (MAP_32BIT: the low 2 GiB) */
    char *low = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    CHECK(low != MAP_FAILED && (uintptr_t)low < ((uintptr_t)1 << 32));
    if (low != MAP_FAILED) {
        low[0] = 1;
        exact((int64_t[]){(int64_t)(uintptr_t)low, (int64_t)(uintptr_t)low + 16}, 2);
        munmap(low, (size_t)ps);
    }
    int64_t none[1] = {0};
    CHECK(siot_addr_rebase(none, 0) == 0);
    CHECK(siot_addr_rebase(NULL, 3) == 0);
    free(x);
}

int main(void)
{
    rebased_the_same();
    uint64_t before = siot_addr_rebased();
    left_as_they_are();
    CHECK_EQ_I64(siot_addr_rebased(), before); /* only rebased arrays are counted */
    CHECK_EQ_I64(before, 3);
    return unit_done("test_addrs");
}
