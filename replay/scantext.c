/* scantext: text for a scanf format (replay/scantext.h). */
#include "replay/scantext.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* One piece of the text: fixed characters, or a field that can grow. */
typedef struct piece {
    char fill;       /* the character it repeats ('0', 'x'), or 0: text as is */
    const char *lit; /* fill == 0: the characters */
    int64_t len, max; /* its length, and how long it may grow (max == len: fixed) */
    int blank;        /* white space before it is skipped (numbers, %s, a white-space directive) */
} piece;

enum { MAX_PIECES = 512 };

/* A conversion at *fp (after '%'): its piece, the format advanced past it.
 * 0 when it is one this does not know. */
static int conversion(const char **fp, piece *pc, int *assigns)
{
    const char *f = *fp;
    int suppress = *f == '*';
    f += suppress;
    int64_t width = 0;
    while (isdigit((unsigned char)*f))
        width = width * 10 + (*f++ - '0');
    if (*f == 'm')
        return 0; /* allocates: the replay cannot own what it would return */
    while (strchr("hlLqjzt", *f))
        f++;
    char c = *f++;
    *fp = f;
    *assigns = !suppress && c != 'n' && c != '%';
    if (c == '%') {
        *pc = (piece){0, "%", 1, 1, 0};
    } else if (strchr("diouxXaAeEfFgGp", c)) {
        *pc = (piece){'0', NULL, 1, width ? width : INT64_MAX, 1};
    } else if (c == 's') {
        *pc = (piece){'x', NULL, 1, width ? width : INT64_MAX, 1};
    } else if (c == 'c') {
        *pc = (piece){'x', NULL, width ? width : 1, width ? width : 1, 0};
    } else if (c == 'n') {
        *pc = (piece){0, "", 0, 0, 0};
    } else {
        return 0; /* %[ and the rest */
    }
    return 1;
}

static int pieces_of(const char *f, piece *pc, int *np)
{
    int n = 0, assigns = 0;
    while (*f && n < MAX_PIECES) {
        if (isspace((unsigned char)*f)) {
            int nl = 0;
            for (; isspace((unsigned char)*f); f++)
                nl |= *f == '\n';
            pc[n++] = (piece){0, nl ? "\n" : " ", 1, 1, 1};
        } else if (*f == '%') {
            f++;
            int a;
            if (!conversion(&f, &pc[n++], &a))
                return -1;
            assigns += a;
        } else {
            pc[n++] = (piece){0, f++, 1, 1, 0};
        }
    }
    *np = n;
    return *f ? -1 : assigns;
}

/* n blanks: what a scan that met the end consumed, when it skips blanks first */
static char *blanks(const piece *first, int64_t n)
{
    char *out = n == 0 || (first && first->blank) ? malloc((size_t)n + 1) : NULL;
    if (out) {
        memset(out, ' ', (size_t)n);
        out[n] = 0;
    }
    return out;
}

char *siot_scan_text(const char *fmt, int64_t n, int items)
{
    piece pc[MAX_PIECES];
    int np;
    if (n < 0 || n > (1 << 26) || items == 0 || pieces_of(fmt, pc, &np) < 0)
        return NULL;
    if (items < 0)
        return blanks(np ? &pc[0] : NULL, n);
    int64_t len = 0, lead = 0;
    for (int i = 0; i < np; i++)
        len += pc[i].len;
    /* The length beyond the minimum: as blanks before the first field when
     * it skips them, so that the text of one scan ends where its last field
     * does and the next scan's blanks separate them (in the run, a token is
     * followed by the blanks the next scan consumed); but a format ending in
     * white space would eat the next scan's leading blanks: its fields grow. */
    if (np && pc[0].blank && !(pc[np - 1].blank && !pc[np - 1].fill) && len < n) {
        lead = n - len;
        len = n;
    }
    for (int i = 0; i < np && len < n; i++) { /* grow the first fields that may */
        int64_t room = pc[i].max - pc[i].len, add = n - len < room ? n - len : room;
        pc[i].len += add;
        len += add;
    }
    if (len != n)
        return NULL;
    char *out = malloc((size_t)n + 1), *o = out;
    if (!out)
        return NULL;
    memset(o, ' ', (size_t)lead);
    o += lead;
    for (int i = 0; i < np; i++) {
        if (pc[i].fill)
            memset(o, pc[i].fill, (size_t)pc[i].len);
        else
            memcpy(o, pc[i].lit, (size_t)pc[i].len);
        o += pc[i].len;
    }
    *o = 0;
    return out;
}

int siot_scan_shape(const char *fmt, int64_t *widest)
{
    piece pc[MAX_PIECES];
    int np, assigns = pieces_of(fmt, pc, &np);
    *widest = 0;
    for (int i = 0; assigns >= 0 && i < np; i++)
        if (pc[i].fill == 'x' && pc[i].max != INT64_MAX && pc[i].max > *widest)
            *widest = pc[i].max;
    return assigns;
}
