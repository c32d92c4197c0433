/* test_hmap: the handle-to-file map (replay/hmap.h) against a plain array
 * of every key's binding: random binds, rebinds, removals and clears over
 * a key space small enough to collide and large enough to grow the table,
 * each followed by a lookup of every key. */
#include <stdio.h>
#include <stdlib.h>

#include "replay/hmap.h"
#include "tests/unit/unit.h"

#define RANKS 4
#define KINDS 3
#define IDS 200 /* 2400 keys: the table grows past its first 256 slots */

static uint32_t rng_state = 4242u;
static uint32_t rng(void) { return unit_rng(&rng_state); }

static int32_t bound[RANKS][KINDS][IDS]; /* file + 1; 0: unbound */

/* Every key answers as the array says; returns the number bound. */
static uint32_t check_all(const rp_hmap *m)
{
    uint32_t n = 0, wrong = 0;
    for (int r = 0; r < RANKS; r++)
        for (int k = 0; k < KINDS; k++)
            for (int i = 0; i < IDS; i++) {
                const rp_handle *h = rp_hmap_find(m, r, (uint8_t)k, i);
                int32_t want = bound[r][k][i];
                n += want != 0;
                wrong += want ? !h || h->file != want - 1 || h->rank != r || h->kind != k || h->id != i : h != NULL;
            }
    CHECK_EQ_I64(wrong, 0);
    return n;
}

static void one_step(rp_hmap *m, uint32_t *live)
{
    int r = (int)(rng() % RANKS), k = (int)(rng() % KINDS), i = (int)(rng() % IDS);
    uint32_t what = rng() % 8;
    if (what < 5) { /* bind or rebind: the position starts at 0 again */
        rp_handle *h = rp_hmap_set(m, r, (uint8_t)k, i, (int32_t)(rng() % 1000));
        CHECK(h != NULL);
        if (!h)
            return;
        CHECK_EQ_I64(h->pos, 0);
        *live += bound[r][k][i] == 0;
        bound[r][k][i] = h->file + 1;
        h->pos = 77; /* the user's to move */
    } else {
        rp_handle *h = rp_hmap_find(m, r, (uint8_t)k, i);
        CHECK((h != NULL) == (bound[r][k][i] != 0));
        if (h) {
            CHECK_EQ_I64(h->pos, 77);
            rp_hmap_remove(m, h);
            bound[r][k][i] = 0;
            (*live)--;
        }
    }
}

int main(void)
{
    rp_hmap m = {0};
    CHECK(rp_hmap_find(&m, 0, 0, 0) == NULL); /* an empty map, never allocated */
    for (int round = 0; round < 6; round++) {
        uint32_t live = 0;
        for (int step = 0; step < 6000; step++) {
            one_step(&m, &live);
            if (step % 500 == 499)
                CHECK_EQ_I64(check_all(&m), live);
        }
        CHECK_EQ_I64(m.count, live);
        CHECK(m.cap >= 2 * m.count);
        rp_hmap_clear(&m);
        for (int r = 0; r < RANKS; r++)
            for (int k = 0; k < KINDS; k++)
                for (int i = 0; i < IDS; i++)
                    bound[r][k][i] = 0;
        CHECK_EQ_I64(check_all(&m), 0);
    }
    rp_hmap_free(&m);
    CHECK(m.h == NULL && m.cap == 0);
    return unit_done("test_hmap");
}
