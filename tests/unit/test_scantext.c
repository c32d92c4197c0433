/* test_scantext: text that a scan format reads as the traced scan did. The
 * oracle is the C library: each original input below is scanned record by
 * record (items assigned, bytes consumed, as a trace records them), the text
 * is built from those numbers alone, and scanning the built text must give
 * the same items and bytes, record after record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/scantext.h"
#include "tests/unit/unit.h"

enum { MAXREC = 16 };

/* Scans text with fmt until EOF: items and bytes per record. */
static int scan_all(const char *text, const char *fmt, int *items, long *bytes)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    char sink[256];
    int n = 0;
    long at = 0;
    while (n < MAXREC) {
        int r = fscanf(f, fmt, sink, sink, sink, sink);
        long now = ftell(f);
        if (r == EOF && now == at)
            break;
        items[n] = r;
        bytes[n++] = now - at;
        at = now;
        if (r == 0)
            break;
    }
    fclose(f);
    return n;
}

static void same_as_run(const char *fmt, const char *orig)
{
    int items[MAXREC], items2[MAXREC];
    long bytes[MAXREC], bytes2[MAXREC];
    int n = scan_all(orig, fmt, items, bytes);
    char built[4096] = "";
    for (int i = 0; i < n; i++) {
        char *t = siot_scan_text(fmt, bytes[i], items[i]);
        CHECK(t != NULL);
        if (!t)
            return;
        CHECK((long)strlen(t) == bytes[i]);
        strcat(built, t);
        free(t);
    }
    int m = scan_all(built, fmt, items2, bytes2);
    CHECK_EQ_I64(m, n);
    for (int i = 0; i < n && i < m; i++) {
        CHECK_EQ_I64(items2[i], items[i]);
        CHECK_EQ_I64(bytes2[i], bytes[i]);
    }
}

int main(void)
{
    /* an input deck of numbers, one record per line */
    same_as_run("%d %lf\n", "12 3.5\n130 -4.25e3\n7 0\n");
    /* words, with the blanks before them */
    same_as_run("%63s", "alpha  beta\n\ngamma delta\n");
    same_as_run("%d", "  12 -3\n4 50000\n");
    same_as_run("%d,%d;", "12,34;5,6;");
    same_as_run("%3c", "abcdefghi");
    same_as_run(" %s = %d", "nx = 128\nny = 64\n");
    same_as_run("%*s %d", "steps 100\nout 5\n");
    same_as_run("%lx %u", "ff 7\n1a2b 99\n");
    /* formats it cannot meet: NULL */
    CHECK(siot_scan_text("%[a-z]", 3, 1) == NULL);
    CHECK(siot_scan_text("%ms", 3, 1) == NULL);
    CHECK(siot_scan_text("%d,%d", 2, 2) == NULL); /* shorter than "0,0" */
    CHECK(siot_scan_text("%2c", 5, 1) == NULL);   /* wider than its field allows */
    CHECK(siot_scan_text("%d", 3, 0) == NULL);    /* a failed match: what it met is unknown */
    CHECK(siot_scan_text("%d", -1, 1) == NULL);
    return unit_done("scantext");
}
