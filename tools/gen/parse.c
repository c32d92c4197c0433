/* parse: the spec files into F[] (docs/spec-format.md). */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/gen/gen.h"

func F[MAXF];
int NF;

void die(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

static int role_code(const char *s)
{
    SIOT_ROLE_LIST(SIOT_NAME_TEST)
    return -1;
}

static int class_code(const char *s)
{
    SIOT_CLASS_LIST(SIOT_NAME_TEST)
    return -1;
}

/* Splits "TYPE NAME" (NAME possibly followed by [] or [][3]) */
static void split_decl(param *p, const char *file, int line)
{
    char d[256];
    snprintf(d, sizeof d, "%s", p->decl);
    char *br = strchr(d, '[');
    char suffix[32] = "";
    if (br) {
        snprintf(suffix, sizeof suffix, "%s", br);
        *br = 0;
    }
    char *e = d + strlen(d);
    while (e > d && isspace((unsigned char)e[-1]))
        *--e = 0;
    char *s = e;
    while (s > d && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
        s--;
    if (s == e)
        die(file, line, "parameter without a name: '%s'", p->decl);
    snprintf(p->name, sizeof p->name, "%s", s);
    *s = 0;
    char *t = trim(d);
    if (strcmp(suffix, "[]") == 0)
        snprintf(p->type, sizeof p->type, "%s *", t);
    else if (strcmp(suffix, "[][3]") == 0)
        snprintf(p->type, sizeof p->type, "%s (*)[3]", t);
    else if (suffix[0])
        die(file, line, "unsupported array form '%s'", suffix);
    else
        snprintf(p->type, sizeof p->type, "%s", t);
}

/* CLASS: a base word and +modifiers. */
static unsigned parse_class(char *tok, const char *file, int lineno)
{
    char *s2 = NULL;
    char *w = strtok_r(tok, "+", &s2);
    int base = class_code(w);
    if (base < 0)
        die(file, lineno, "unknown class '%s'", w);
    unsigned cls = (unsigned)base;
    while ((w = strtok_r(NULL, "+", &s2))) {
        if (strcmp(w, "nb") == 0)
            cls |= SIOT_CLS_NB;
        else if (strcmp(w, "coll") == 0)
            cls |= SIOT_CLS_COLL;
        else if (strcmp(w, "begin") == 0)
            cls |= SIOT_CLS_BEGIN;
        else if (strcmp(w, "end") == 0)
            cls |= SIOT_CLS_END;
        else
            die(file, lineno, "unknown class modifier '%s'", w);
    }
    return cls;
}

/* The next option word; a value may be "quoted" (and hold spaces). */
static char *next_option(char **s)
{
    char *p = *s;
    while (isspace((unsigned char)*p))
        p++;
    if (!*p)
        return NULL;
    char *start = p;
    int quoted = 0;
    for (; *p && (quoted || !isspace((unsigned char)*p)); p++)
        if (*p == '"')
            quoted = !quoted;
    if (*p)
        *p++ = 0;
    *s = p;
    return start;
}

static void parse_option(func *f, char *tok, const char *file, int lineno)
{
    if (strcmp(tok, "cond=none") == 0) {
        f->cond_none = 1;
    } else if (strcmp(tok, "agree") == 0) {
        f->agree = 1;
    } else if (strcmp(tok, "closes") == 0) {
        f->closes = 1;
    } else if (strncmp(tok, "replay=", 7) == 0) {
        snprintf(f->replay, sizeof f->replay, "%s", tok + 7);
    } else if (strcmp(tok, "consumed") == 0) {
        f->consumed = 1;
    } else if (strcmp(tok, "stream=stdout") == 0 || strcmp(tok, "stream=stdin") == 0) {
        snprintf(f->stdstream, sizeof f->stdstream, "%s", tok + 7);
    } else if (strncmp(tok, "real=", 5) == 0) {
        snprintf(f->real, sizeof f->real, "%s", tok + 5);
    } else if (strncmp(tok, "noreplay=\"", 10) == 0) {
        size_t n = strlen(tok);
        if (n < 12 || tok[n - 1] != '"')
            die(file, lineno, "noreplay=\"WHY\" needs its reason in quotes");
        snprintf(f->noreplay, sizeof f->noreplay, "%.*s", (int)(n - 11), tok + 10);
    } else if (strncmp(tok, "covered=\"", 9) == 0) {
        size_t n = strlen(tok);
        if (n < 11 || tok[n - 1] != '"')
            die(file, lineno, "covered=\"HOW\" needs its explanation in quotes");
        snprintf(f->covered, sizeof f->covered, "%.*s", (int)(n - 10), tok + 9);
    } else if (strncmp(tok, "if=\"", 4) == 0) {
        size_t n = strlen(tok);
        if (n < 6 || tok[n - 1] != '"')
            die(file, lineno, "if=\"CONDITION\" needs its condition in quotes");
        snprintf(f->cond, sizeof f->cond, "%.*s", (int)(n - 5), tok + 4);
    } else if (strcmp(tok, "removed") == 0) {
        f->removed = 1;
    } else if (strcmp(tok, "wrap") == 0) {
        f->wrap = 1;
    } else if (strcmp(tok, "fort") != 0) {
        die(file, lineno, "unknown option '%s'", tok);
    }
}

/* LAYER CLASS ret:ROLE [OPTIONS] */
static void parse_head(func *f, char *head, const char *file, int lineno)
{
    /* bytes=EXPR is the last option and may contain spaces */
    char *be = strstr(head, "bytes=");
    if (be) {
        snprintf(f->bytes, sizeof f->bytes, "%s", trim(be + 6));
        *be = 0;
    }
    char *rest = head;
    char *tok = next_option(&rest);
    if (!tok || (f->layer = siot_layer_from_name(tok)) < 0)
        die(file, lineno, "unknown layer '%s'", tok ? tok : "");
    if (!(tok = next_option(&rest)))
        die(file, lineno, "missing class");
    f->cls = parse_class(tok, file, lineno);
    tok = next_option(&rest);
    if (!tok || strncmp(tok, "ret:", 4) != 0)
        die(file, lineno, "missing ret:ROLE");
    char r[64];
    snprintf(r, sizeof r, "r_%s", tok + 4);
    if ((f->retrole = role_code(r)) < 0)
        die(file, lineno, "unknown return role '%s'", tok);
    while ((tok = next_option(&rest)))
        parse_option(f, tok, file, lineno);
}

/* TYPE NAME:ROLE[(ARG)][@root|@index1], or ... TYPE NAME:ROLE */
static void parse_param(param *p, char *ps, const char *file, int lineno)
{
    ps = trim(ps);
    if (strncmp(ps, "...", 3) == 0) {
        p->variadic = 1;
        ps = trim(ps + 3);
    }
    char *colon = strrchr(ps, ':');
    if (!colon)
        die(file, lineno, "parameter '%s' has no role", ps);
    *colon = 0;
    char *role = trim(colon + 1);
    char *at = strchr(role, '@');
    if (at) {
        if (strcmp(at, "@root") == 0)
            p->rootonly = 1;
        else if (strcmp(at, "@index1") == 0)
            p->index1 = 1;
        else
            die(file, lineno, "unknown role suffix '%s'", at);
        *at = 0;
    }
    char *paren = strchr(role, '(');
    if (paren) {
        char *close = strrchr(paren, ')');
        if (!close)
            die(file, lineno, "unclosed role argument");
        *close = 0;
        snprintf(p->arg, sizeof p->arg, "%s", paren + 1);
        *paren = 0;
    }
    if ((p->role = role_code(role)) < 0 || SIOT_ROLE_IS_RETURN(p->role) || !role_of(p->role))
        die(file, lineno, "unknown role '%s'", role);
    if (siot_role_is_array(p->role) && p->role != SIOT_ROLE_status && !p->arg[0])
        die(file, lineno, "array role '%s' needs a length", role);
    snprintf(p->decl, sizeof p->decl, "%s", trim(ps));
    split_decl(p, file, lineno);
}

/* The parameter list, split on top-level commas. */
static void parse_params(func *f, char *plist, const char *file, int lineno)
{
    if (strcmp(plist, "void") == 0 || !*plist)
        return;
    int depth = 0;
    char *start = plist;
    for (char *c = plist;; c++) {
        if (*c == '(' || *c == '[')
            depth++;
        if (*c == ')' || *c == ']')
            depth--;
        if ((*c == ',' && depth == 0) || *c == 0) {
            int end = *c == 0;
            *c = 0;
            if (f->np >= MAXP)
                die(file, lineno, "too many parameters");
            parse_param(&f->p[f->np++], start, file, lineno);
            if (end)
                break;
            start = c + 1;
        }
    }
}

static void parse_line(char *line, const char *file, int lineno)
{
    char *bar = strchr(line, '|');
    if (!bar)
        die(file, lineno, "missing '|'");
    *bar = 0;
    char *head = trim(line), *proto = trim(bar + 1);
    if (NF >= MAXF)
        die(file, lineno, "too many functions");
    func *f = &F[NF++];
    memset(f, 0, sizeof *f);
    snprintf(f->file, sizeof f->file, "%s", file);
    f->line = lineno;
    parse_head(f, head, file, lineno);
    char *lp = strchr(proto, '('), *rp = strrchr(proto, ')');
    if (!lp || !rp || rp < lp)
        die(file, lineno, "malformed prototype");
    *lp = 0;
    *rp = 0;
    char *pre = trim(proto);
    char *e = pre + strlen(pre), *s = e;
    while (s > pre && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
        s--;
    snprintf(f->name, sizeof f->name, "%s", s);
    *s = 0;
    snprintf(f->rettype, sizeof f->rettype, "%s", trim(pre));
    parse_params(f, trim(lp + 1), file, lineno);
    for (int i = 0; i < f->np; i++)
        f->p[i].rec = role_recorded(f->p[i].role) ? f->nrec++ : -1;
    if (f->nrec > 16)
        die(file, lineno, "more than 16 recorded parameters");
    if (f->wrap && (!is_mpi_layer(f->layer) || strncmp(f->name, "PMPI_", 5) != 0 || f->cond[0] || f->removed))
        die(file, lineno, "wrap is for a PMPI_ name of an MPI layer (without if= or removed)");
}

/* Type families: `%family T name:ctype; name:ctype; ...` declares T; a line
 * using ${T} (the name) or ${T.c} (the C type) stands for one line per
 * member (the typed put/get functions of PnetCDF). */
#define MAXFAM 8
#define MAXMEM 24
static struct family {
    char name[32];
    int n;
    char mname[MAXMEM][32], ctype[MAXMEM][64];
} FAM[MAXFAM];
static int NFAM;

static void add_family(char *t, const char *file, int line)
{
    if (NFAM >= MAXFAM)
        die(file, line, "too many families");
    struct family *fa = &FAM[NFAM++];
    char *sp = strchr(t, ' ');
    if (!sp)
        die(file, line, "%%family NAME members...");
    *sp = 0;
    snprintf(fa->name, sizeof fa->name, "%s", t);
    char *save = NULL;
    for (char *m = strtok_r(sp + 1, ";", &save); m; m = strtok_r(NULL, ";", &save)) {
        char *c = strchr(m, ':');
        if (!c || fa->n >= MAXMEM)
            die(file, line, "bad family member '%s'", m);
        *c = 0;
        snprintf(fa->mname[fa->n], 32, "%s", trim(m));
        snprintf(fa->ctype[fa->n], 64, "%s", trim(c + 1));
        fa->n++;
    }
}

/* Replaces every ${key} of src by val into dst; -1 when the result does not
 * fit in n bytes. */
static int subst(char *dst, size_t n, const char *src, const char *key, const char *val)
{
    char pat[64];
    snprintf(pat, sizeof pat, "${%s}", key);
    size_t o = 0, pl = strlen(pat), vl = strlen(val);
    while (*src) {
        int hit = strncmp(src, pat, pl) == 0;
        const char *from = hit ? val : src;
        size_t len = hit ? vl : 1;
        if (o + len >= n)
            return -1;
        memcpy(dst + o, from, len);
        o += len;
        src += hit ? pl : 1;
    }
    dst[o] = 0;
    return 0;
}

/* A line that names a family stands for one line per member. */
static int expand_family(const char *t, const char *path, int n)
{
    for (int fi = 0; fi < NFAM; fi++) {
        char key[48], keyc[48];
        snprintf(key, sizeof key, "${%.31s}", FAM[fi].name);
        snprintf(keyc, sizeof keyc, "${%.31s.c}", FAM[fi].name);
        if (!strstr(t, key) && !strstr(t, keyc))
            continue;
        for (int m = 0; m < FAM[fi].n; m++) {
            char a[SPEC_LINE_MAX + 1], b[SPEC_LINE_MAX + 1], kc[40];
            snprintf(kc, sizeof kc, "%.31s.c", FAM[fi].name);
            if (subst(a, sizeof a, t, FAM[fi].name, FAM[fi].mname[m]) != 0 ||
                subst(b, sizeof b, a, kc, FAM[fi].ctype[m]) != 0)
                die(path, n, "the line for %%family %s's member %s is longer than %d bytes", FAM[fi].name,
                    FAM[fi].mname[m], SPEC_LINE_MAX);
            parse_line(b, path, n);
        }
        return 1;
    }
    return 0;
}

void read_spec(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        perror(path);
        exit(1);
    }
    /* read whole, so that a long line is refused rather than parsed in pieces */
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int n = 0;
    while ((len = getline(&line, &cap, fp)) >= 0) {
        n++;
        if (len && line[len - 1] == '\n')
            line[--len] = 0;
        if (len > SPEC_LINE_MAX)
            die(path, n, "a line of %zd bytes: spec lines are at most %d", len, SPEC_LINE_MAX);
        char *h = strchr(line, '#');
        if (h)
            *h = 0;
        char *t = trim(line);
        if (!*t)
            continue;
        if (strncmp(t, "%family ", 8) == 0)
            add_family(trim(t + 8), path, n);
        else if (!expand_family(t, path, n))
            parse_line(t, path, n);
    }
    free(line);
    fclose(fp);
}
