/* test_descriptors: the ids descriptors are recorded with (src/handles.h).
 * A descriptor is recorded as a small id, the lowest free one from 3, never
 * as its number, so that ranks and runs whose descriptors have different
 * numbers record the same values. That holds too for a descriptor beyond
 * the tracer's bitmap (a hard RLIMIT_NOFILE over 4M, or no memory for the
 * bitmap at start-up), which is not followed after its open: here the
 * bitmap is cut to its first word (64 descriptors) after siot_fd_init.
 * The runtime's handle tables are compiled in, with the recorder lock (not
 * needed by one thread) stubbed. */
#include <dirent.h>
#include <stdint.h>

#include "src/descriptors.c"
#include "src/handles.c"
#include "tests/unit/unit.h"

void siot_lock(void) {}
void siot_unlock(void) {}

/* One "rank": descriptors a (in the bitmap), b and c (beyond), opened in that order. */
static void opens(int a, int b, int c, int64_t ids[3])
{
    siot_fd_forget_all();
    siot_h_reset_all();
    ids[0] = siot_fd_new(a);
    ids[1] = siot_fd_new(b);
    ids[2] = siot_fd_new(c);
}

/* Requests that share one handle (MPICH's lightweight completed request,
 * Open MPI's for every request that completed at once) keep an id each; a
 * lookup and a release of that handle take the lowest of them, so that
 * what a wait records depends on the program's requests, not on the
 * table's history (issue 45: Open MPI's dtype_send and nonblocking3
 * replayed with their Waitall labels permuted). Random makes and releases
 * of one shared key among others, checked against the set of its ids. */
static void shared_requests(void)
{
    siot_h_reset_all();
    const uintptr_t shared = 0x5eed;
    uint8_t live[512] = {0};
    uint64_t x = 12345;
    int bad = 0;
    for (int step = 0; step < 20000 && !bad; step++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned r = (unsigned)(x >> 33) % 8;
        int lowest = -1;
        for (int i = 0; i < 512 && lowest < 0; i++)
            if (live[i])
                lowest = i;
        if (r < 3 && lowest >= 0) {
            int32_t id = siot_h_release(SIOT_H_REQ, shared);
            bad |= id != lowest;
            if (id >= 0 && id < 512)
                live[id] = 0;
        } else if (r < 6) {
            int32_t id = siot_h_new(SIOT_H_REQ, shared);
            bad |= id < 0 || id >= 512;
            if (!bad)
                live[id] = 1;
        } else {
            /* another request, made and (later) released: the table's history */
            uintptr_t other = 0x1000 + (uintptr_t)(x >> 40) % 64;
            if (siot_h_find(SIOT_H_REQ, other) >= 0)
                siot_h_release(SIOT_H_REQ, other);
            else
                siot_h_new(SIOT_H_REQ, other);
        }
        bad |= lowest >= 0 && r >= 3 && siot_h_find(SIOT_H_REQ, shared) > lowest;
    }
    CHECK(!bad);
}

int main(void)
{
    shared_requests();
    siot_fd_init();
    CHECK(siot_fdwords >= 1024); /* at least 65536 descriptors */
    siot_fdwords = 1;
    int64_t x[3], y[3];
    opens(5, 100, 7000, x);
    CHECK_EQ_I64(x[0], 3);
    CHECK_EQ_I64(x[1], 4);
    CHECK_EQ_I64(x[2], 5);
    /* other numbers, the same ids */
    opens(9, 4000, 250, y);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_I64(y[i], x[i]);
    /* beyond the bitmap: not followed after its open */
    CHECK(!siot_fd_traced(250));
    CHECK_EQ_I64(siot_fd_id(250), -1);
    CHECK(siot_fd_traced(9));
    CHECK_EQ_I64(siot_fd_id(9), 3);
    /* its number opened again (closed unseen): the same id, as an
     * open/close loop on a followed descriptor has */
    CHECK_EQ_I64(siot_fd_new(4000), 4);
    CHECK_EQ_I64(siot_fd_new(4000), 4);
    /* a DIR* whose descriptor is beyond the bitmap has an id of its own,
     * and takes none from the descriptors */
    DIR *d = opendir(".");
    CHECK(d != NULL);
    if (d) {
        siot_fdwords = 0;
        int32_t next_fd = siot_h_next(SIOT_H_FD);
        int64_t did = siot_dir_new(d, 0);
        CHECK(did >= 0);
        CHECK_EQ_I64(siot_h_next(SIOT_H_FD), next_fd);
        CHECK_EQ_I64(siot_dir_closing(d), did);
        closedir(d);
    }
    return unit_done("test_descriptors");
}
