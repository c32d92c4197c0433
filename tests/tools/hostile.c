/* hostile: rewrites every path argument of a trace into an attack on the
 * replay sandbox, and writes the result as a new trace.
 *
 *   hostile IN OUT OUTSIDE TMPTAG
 *
 * Event k's paths become, in turn: a climb out of the root
 * ("../../OUTSIDE-relative"), the absolute OUTSIDE directory, ".." hidden
 * behind a subdirectory, a symbolic link the test plants in the root,
 * /tmp/TMPTAG-..., a very deep climb, the root itself, and a name with a NUL
 * byte in it. A replay must keep every one of them inside its root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/format.h"
#include "core/roles.h"

static char *attack(int k, const char *outside, const char *tag, size_t *len)
{
    static char buf[4200];
    int n = 0;
    switch (k % 9) {
    case 0: n = snprintf(buf, sizeof buf, "../../outside/rel-%d", k); break;
    case 1: n = snprintf(buf, sizeof buf, "%s/abs-%d", outside, k); break;
    case 2: n = snprintf(buf, sizeof buf, "sub/../../../../outside/dots-%d", k); break;
    case 3: n = snprintf(buf, sizeof buf, "link/victim-%d", k); break;
    case 4: n = snprintf(buf, sizeof buf, "/tmp/%s-%d", tag, k); break;
    case 5:
        for (int i = 0; i < 40; i++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "../");
        n += snprintf(buf + n, sizeof buf - (size_t)n, "tmp/%s-deep-%d", tag, k);
        break;
    case 6: n = snprintf(buf, sizeof buf, "%s", k % 2 ? "/" : ".."); break;
    case 7: n = snprintf(buf, sizeof buf, "link"); break;
    case 8:
        n = snprintf(buf, sizeof buf, "ok%c../../outside/nul-%d", 0, k); /* a NUL inside the name */
        break;
    }
    *len = (size_t)n;
    return buf;
}

static int counter;

static void rewrite(siot_trace *t, siot_node *n, const char *outside, const char *tag)
{
    if (n->kind == SIOT_N_LOOP) {
        for (uint32_t i = 0; i < n->u.loop.nbody; i++)
            rewrite(t, n->u.loop.body[i], outside, tag);
        return;
    }
    siot_event *e = &n->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    for (uint32_t a = 0; a < e->nargs && a < f->nargs; a++) {
        if (f->argroles[a] != SIOT_ROLE_path)
            continue;
        size_t len;
        char *p = attack(counter++, outside, tag, &len);
        siot_expr *x = siot_x_str(&t->arena, p, len);
        if (x)
            e->args[a] = x;
    }
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: hostile IN OUT OUTSIDE TMPTAG\n");
        return 2;
    }
    siot_trace t;
    char err[256];
    if (siot_trace_load(argv[1], &t, err, sizeof err) != 0) {
        fprintf(stderr, "hostile: %s: %s\n", argv[1], err);
        return 2;
    }
    for (uint32_t i = 0; i < t.ntop; i++)
        rewrite(&t, t.top[i], argv[3], argv[4]);
    siot_vbuf b;
    siot_vbuf_init(&b);
    FILE *f = fopen(argv[2], "wb");
    int rc = siot_trace_encode(&t, &b) != 0 || !f || fwrite(b.data, 1, b.len, f) != b.len;
    if (f)
        fclose(f);
    siot_vbuf_free(&b);
    siot_trace_free(&t);
    fprintf(stderr, "hostile: %d paths rewritten\n", counter);
    return rc ? 2 : 0;
}
