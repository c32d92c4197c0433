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

int main(void)
{
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
