/* test_files: the rank sets of per-file rows (random insertions against a
 * membership array), the patterns summing up rows (replay/files.h), and the
 * lexical form of a path that makes two spellings one row (core/names.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "replay/files.h"
#include "tests/unit/unit.h"

#define UNIVERSE 300

static uint32_t rng_state = 777u;
static uint32_t rng(void) { return unit_rng(&rng_state); }

/* "0-3,7" written the plain way from the membership array. */
static void brute_format(const uint8_t *in, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int r = 0; r < UNIVERSE; r++) {
        if (!in[r] || (r > 0 && in[r - 1]))
            continue;
        int hi = r;
        while (hi + 1 < UNIVERSE && in[hi + 1])
            hi++;
        len += (size_t)(hi == r ? snprintf(out + len, n - len, "%s%d", len ? "," : "", r)
                                : snprintf(out + len, n - len, "%s%d-%d", len ? "," : "", r, hi));
    }
}

static void check_random_sets(void)
{
    for (int round = 0; round < 200; round++) {
        uint8_t in[UNIVERSE] = {0};
        siot_rankset s = {0};
        int adds = 1 + (int)(rng() % 400), dense = round % 3;
        for (int i = 0; i < adds; i++) {
            int32_t r = (int32_t)(dense ? rng() % 40 + (uint32_t)round : rng() % UNIVERSE) % UNIVERSE;
            in[r] = 1;
            CHECK(siot_rankset_add(&s, r) == 0);
        }
        uint64_t count = 0;
        for (int r = 0; r < UNIVERSE; r++)
            count += in[r];
        CHECK_EQ_I64(siot_rankset_count(&s), count);
        char want[4096];
        brute_format(in, want, sizeof want);
        siot_vbuf got;
        siot_vbuf_init(&got);
        siot_rankset_format(&s, &got);
        siot_vbuf_u8(&got, 0);
        CHECK(strcmp((const char *)got.data, want) == 0);
        for (uint32_t i = 1; i < s.n; i++) /* ascending, neither overlapping nor adjacent */
            CHECK(s.span[i][0] > s.span[i - 1][1] + 1);
        siot_vbuf_free(&got);
        siot_rankset_free(&s);
    }
}

static void add_row(siot_files *fs, const char *name, uint8_t layer, uint64_t wbytes, int32_t rank)
{
    fs->rows = realloc(fs->rows, (fs->nrows + 1) * sizeof *fs->rows);
    siot_filerow *r = &fs->rows[fs->nrows++];
    memset(r, 0, sizeof *r);
    r->name = strdup(name);
    r->layer = layer;
    r->wbytes = wbytes;
    r->calls = 1;
    siot_rankset_add(&r->ranks, rank);
}

static const siot_filepattern *find_pattern(const siot_files *fs, const char *p, uint8_t layer)
{
    for (uint32_t i = 0; i < fs->npatterns; i++)
        if (fs->patterns[i].layer == layer && strcmp(fs->patterns[i].pattern, p) == 0)
            return &fs->patterns[i];
    return NULL;
}

static void check_patterns(void)
{
    siot_files fs;
    siot_files_init(&fs);
    char name[64];
    for (int s = 10; s <= 50; s += 10)
        for (int r = 0; r < 4; r++) {
            snprintf(name, sizeof name, "ckpt_%04d_r%d.dat", s, r);
            add_row(&fs, name, 0, 100, r);
        }
    add_row(&fs, "ckpt_0010_r0.dat", 3, 7, 0); /* another layer: its own group of one, no pattern */
    add_row(&fs, "out-9.txt", 0, 1, 0);
    add_row(&fs, "out-10.txt", 0, 1, 1); /* widths differ: no zero padding */
    add_row(&fs, "log.txt", 0, 1, 2);    /* no number */
    add_row(&fs, "log.txt.bak", 0, 1, 2);
    CHECK(siot_files_summarise(&fs) == 0);
    CHECK_EQ_I64(fs.npatterns, 2);
    const siot_filepattern *p = find_pattern(&fs, "ckpt_{0010..0050}_r{0..3}.dat", 0);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_I64(p->files, 20);
        CHECK_EQ_I64(p->wbytes, 2000);
        CHECK_EQ_I64(p->calls, 20);
        CHECK_EQ_I64(siot_rankset_count(&p->ranks), 4);
    }
    CHECK(find_pattern(&fs, "out-{9..10}.txt", 0) != NULL);
    siot_files_free(&fs);
}

/* Spellings from POSIX's rules: slashes in a row are one, "." names the
 * directory it is in; ".." is kept (a symbolic link may lead elsewhere). */
static void check_lexical(void)
{
    static const char *const cases[][2] = {
        {"a//b", "a/b"},         {"/x//y///z", "/x/y/z"}, {"d/./f", "d/f"},     {"./f", "f"},
        {"d/", "d"},             {"/", "/"},              {"//", "/"},          {".", "."},
        {"./", "."},             {"a/.", "a"},            {"a/../b", "a/../b"}, {"a/.b", "a/.b"},
        {"a/..", "a/.."},        {"a./b", "a./b"},        {"tree.0.1//tree.0.4//file.0", "tree.0.1/tree.0.4/file.0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[64];
        size_t n = strlen(cases[i][0]);
        memcpy(buf, cases[i][0], n);
        n = siot_path_lexical(buf, n);
        buf[n] = 0;
        if (strcmp(buf, cases[i][1]) != 0)
            fprintf(stderr, "  lexical(%s) = %s, want %s\n", cases[i][0], buf, cases[i][1]);
        CHECK(strcmp(buf, cases[i][1]) == 0);
    }
}

/* A path inside the run's directory, the directory itself, and the near
 * misses: a longer name that shares the prefix, the root, no directory. */
static void check_under(void)
{
    static const struct {
        const char *dir, *path;
        size_t skip;
    } cases[] = {
        {"/run/d", "/run/d/f", 7}, {"/run/d", "/run/d", 6},  {"/run/d", "/run/dd/f", 0}, {"/run/d", "/run", 0},
        {"/run/d", "f", 0},        {"/", "/etc/hosts", 0},   {NULL, "/run/d/f", 0},      {"/run/d", "/run/d/", 7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK_EQ_I64((int64_t)siot_path_under(cases[i].dir, cases[i].path, strlen(cases[i].path)), (int64_t)cases[i].skip);
}

int main(void)
{
    check_lexical();
    check_under();
    check_random_sets();
    check_patterns();
    return unit_done("test_files");
}
