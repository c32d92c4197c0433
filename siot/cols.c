/* cols: events as columns (cols.h). */
#include "siot/cols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/roles.h"
#include "replay/json.h"
#include "siot/measures.h"

/* The column of an argument name, adding it when new (a linear search: a
 * trace's functions have a few dozen distinct argument names). */
static uint32_t column_of(siot_cols *c, const char *name)
{
    for (uint32_t i = 0; i < c->ncols; i++)
        if (strcmp(c->names[i], name) == 0)
            return i;
    c->names[c->ncols] = name;
    return c->ncols++;
}

int siot_cols_init(siot_cols *c, const siot_trace *t, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    size_t nargs = 0;
    for (uint32_t f = 0; f < t->nfuncs; f++)
        nargs += t->funcs[f].nargs;
    c->names = calloc(nargs + 1, sizeof *c->names);
    c->map = calloc(nargs + 1, sizeof *c->map);
    c->first = calloc(t->nfuncs + 1, sizeof *c->first);
    c->next_code = calloc(nargs + 1, sizeof *c->next_code);
    c->fcode = malloc((t->nfuncs + 1) * sizeof *c->fcode);
    c->fby = calloc(t->nfuncs + 1, sizeof *c->fby);
    c->count = calloc(nargs + 1, sizeof *c->count);
    c->first_row = calloc(nargs + 1, sizeof *c->first_row);
    c->kinds = calloc(nargs + 1, 1);
    siot_vbuf_init(&c->texts);
    siot_vbuf_init(&c->scratch);
    siot_vbuf_init(&c->json);
    if (!c->names || !c->map || !c->first || !c->next_code || !c->fcode || !c->fby || !c->count ||
        !c->first_row || !c->kinds) {
        siot_cols_free(c);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memset(c->fcode, 0xff, (t->nfuncs + 1) * sizeof *c->fcode);
    memset(c->lcode, 0xff, sizeof c->lcode);
    uint32_t at = 0;
    for (uint32_t f = 0; f < t->nfuncs; f++) {
        c->first[f] = at;
        for (uint32_t k = 0; k < t->funcs[f].nargs; k++)
            c->map[at++] = column_of(c, t->funcs[f].argnames[k]);
    }
    return 0;
}

void siot_cols_free(siot_cols *c)
{
    free(c->names);
    free(c->map);
    free(c->first);
    free(c->next_code);
    free(c->fcode);
    free(c->fby);
    free(c->count);
    free(c->first_row);
    free(c->kinds);
    free(c->tab);
    free(c->order);
    siot_vbuf_free(&c->texts);
    siot_vbuf_free(&c->scratch);
    siot_vbuf_free(&c->json);
    memset(c, 0, sizeof *c);
}

static void put_names(siot_vbuf *o, const char *key, const char *const *names, uint32_t n, int last)
{
    siot_vbuf_put(o, "\"", 1);
    siot_vbuf_put(o, key, strlen(key));
    siot_vbuf_put(o, "\":[", 3);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            siot_vbuf_u8(o, ',');
        siot_json_str(o, names[i], strlen(names[i]));
    }
    siot_vbuf_put(o, last ? "]}" : "],", 2);
}

/* "func_layer":[...],"func_args":[[...],...]} */
static void put_func_columns(siot_vbuf *o, const siot_cols *c, const siot_trace *t)
{
    char n[24];
    siot_vbuf_put(o, "\"func_layer\":[", 14);
    for (uint32_t f = 0; f < t->nfuncs; f++)
        siot_vbuf_put(o, n, (size_t)snprintf(n, sizeof n, "%s%u", f ? "," : "", t->funcs[f].layer));
    siot_vbuf_put(o, "],\"func_args\":[", 15);
    for (uint32_t f = 0; f < t->nfuncs; f++) {
        siot_vbuf_put(o, f ? ",[" : "[", f ? 2 : 1);
        for (uint32_t k = 0; k < t->funcs[f].nargs; k++)
            siot_vbuf_put(o, n, (size_t)snprintf(n, sizeof n, "%s%u", k ? "," : "", c->map[c->first[f] + k]));
        siot_vbuf_u8(o, ']');
    }
    siot_vbuf_put(o, "]}", 2);
}

void siot_cols_tables(const siot_cols *c, const siot_trace *t, siot_vbuf *o)
{
    const char *layers[SIOT_NLAYERS];
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        layers[l] = siot_layer_name(l);
    siot_vbuf_u8(o, '{');
    put_names(o, "layers", layers, SIOT_NLAYERS, 0);
    const char **funcs = malloc((t->nfuncs + 1) * sizeof *funcs);
    if (!funcs) {
        o->oom = 1;
        return;
    }
    for (uint32_t f = 0; f < t->nfuncs; f++)
        funcs[f] = t->funcs[f].name;
    put_names(o, "funcs", funcs, t->nfuncs, 0);
    free(funcs);
    put_names(o, "args", c->names, c->ncols, 0);
    put_func_columns(o, c, t);
    siot_vbuf_u8(o, 0);
}

static void put_indices(siot_vbuf *o, const uint32_t *v, uint32_t n)
{
    char b[24];
    siot_vbuf_u8(o, '[');
    for (uint32_t i = 0; i < n; i++)
        siot_vbuf_put(o, b, (size_t)snprintf(b, sizeof b, "%s%u", i ? "," : "", v[i]));
    siot_vbuf_u8(o, ']');
}

void siot_cols_codes(siot_cols *c, siot_vbuf *o)
{
    siot_vbuf_put(o, "{\"funcs\":", 9);
    put_indices(o, c->fby, c->nf);
    siot_vbuf_put(o, ",\"layers\":", 10);
    put_indices(o, c->lby, c->nl);
    siot_vbuf_put(o, ",\"args\":[", 9);
    int any = 0;
    for (uint32_t j = 0; j < c->ncols; j++) {
        char b[96];
        if (!c->count[j])
            continue;
        siot_vbuf_put(o, b, (size_t)snprintf(b, sizeof b, "%s[%u,%" PRIu64 ",%" PRIu64 ",%u]", any ? "," : "", j,
                                             c->count[j], c->first_row[j], c->kinds[j]));
        any = 1;
        c->count[j] = 0;
        c->kinds[j] = 0;
    }
    siot_vbuf_put(o, "]}", 3); /* with the NUL */
}

/* ------------------------------------------------------------ texts */

static uint64_t text_hash(uint32_t col, uint8_t kind, const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ ((uint64_t)col << 8 | kind);
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h ? h : 1; /* 0 marks a free slot */
}

/* Doubles the table (rehashing every text); -1 without memory. */
static int grow_table(siot_cols *c)
{
    uint32_t cap = c->cap ? c->cap * 2 : 256;
    siot_cols_text *tab = calloc(cap, sizeof *tab);
    uint32_t *order = realloc(c->order, cap * sizeof *order);
    if (!tab || !order) {
        free(tab);
        if (order)
            c->order = order;
        return -1;
    }
    c->order = order;
    for (uint32_t i = 0; i < c->used; i++) {
        siot_cols_text *x = &c->tab[order[i]];
        uint32_t j = (uint32_t)x->hash & (cap - 1);
        while (tab[j].hash)
            j = (j + 1) & (cap - 1);
        tab[j] = *x;
        order[i] = j;
    }
    free(c->tab);
    c->tab = tab;
    c->cap = cap;
    return 0;
}

/* The column's code of a text, made when new; -1 without memory. */
static int64_t text_code(siot_cols *c, uint32_t col, uint8_t kind, const char *s, size_t n)
{
    if ((c->used + 1) * 2 > c->cap && grow_table(c) != 0)
        return -1;
    uint64_t h = text_hash(col, kind, s, n);
    uint32_t j = (uint32_t)h & (c->cap - 1);
    for (; c->tab[j].hash; j = (j + 1) & (c->cap - 1)) {
        const siot_cols_text *x = &c->tab[j];
        if (x->hash == h && x->col == col && x->kind == kind && x->len == n &&
            memcmp(c->texts.data + x->off, s, n) == 0)
            return x->code;
    }
    if (c->texts.len + n > UINT32_MAX)
        return -1;
    siot_cols_text *x = &c->tab[j];
    *x = (siot_cols_text){h, col, c->next_code[col]++, (uint32_t)c->texts.len, (uint32_t)n, kind};
    siot_vbuf_put(&c->texts, s, n);
    c->order[c->used++] = j;
    return c->texts.oom ? -1 : (int64_t)x->code;
}

void siot_cols_texts(const siot_cols *c, uint32_t from, siot_vbuf *o)
{
    siot_vbuf_u8(o, '[');
    for (uint32_t i = from; i < c->used; i++) {
        const siot_cols_text *x = &c->tab[c->order[i]];
        char head[40];
        int n = snprintf(head, sizeof head, "%s[%u,%u,", i > from ? "," : "", x->col, x->kind);
        siot_vbuf_put(o, head, (size_t)n);
        siot_json_str(o, (const char *)c->texts.data + x->off, x->len);
        siot_vbuf_u8(o, ']');
    }
    siot_vbuf_put(o, "]", 2); /* with the NUL */
}

/* ------------------------------------------------------------ rows */

/* Argument k's value into its column; -1 when it cannot be evaluated or
 * there is no memory (err says which). */
static int put_arg(siot_cols *c, const siot_funcdesc *f, uint32_t col, uint32_t k, const siot_value *v,
                   const siot_lib_columns *out, uint64_t row)
{
    int64_t code = 0;
    uint8_t kind = SIOT_LIB_NULL;
    if (v->kind == SIOT_V_INT) {
        code = v->i;
        kind = SIOT_LIB_INT;
    } else if (v->kind == SIOT_V_STR) {
        code = text_code(c, col, SIOT_LIB_STR, v->s, v->slen);
        kind = SIOT_LIB_STR;
    } else if (v->kind == SIOT_V_ARR) {
        /* a status or an array: its JSON text, as siot dump writes it */
        c->json.len = 0;
        siot_json_value(&c->json, f->argroles[k], v);
        code = c->json.oom ? -1 : text_code(c, col, SIOT_LIB_JSON, (const char *)c->json.data, c->json.len);
        kind = SIOT_LIB_JSON;
    }
    if (code < 0 && kind != SIOT_LIB_INT)
        return -1;
    out->arg[col][row] = code;
    out->arg_kind[col][row] = kind;
    if (!c->count[col]++)
        c->first_row[col] = row;
    c->kinds[col] |= (uint8_t)(1u << kind);
    return 0;
}

int siot_cols_put(siot_cols *c, const siot_trace *t, const siot_synth_ev *ev, const siot_lib_columns *out,
                  uint64_t row, char *err, size_t errlen)
{
    const siot_event *e = &ev->node->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    out->rank[row] = (int32_t)ev->ctx.rank;
    if (out->narrow) {
        ((int32_t *)out->seq)[row] = (int32_t)ev->seq;
        ((int32_t *)out->parent)[row] = (int32_t)ev->parent;
    } else {
        ((int64_t *)out->seq)[row] = ev->seq;
        ((int64_t *)out->parent)[row] = ev->parent;
    }
    /* thread and errno are 0 in most rows, and their arrays start zeroed in
     * pages the kernel gives memory only when written: zeros are not written */
    int32_t thread = (int32_t)siot_eval_int(e->thread, &ev->ctx, 0), ern = (int32_t)siot_eval_int(e->err, &ev->ctx, 0);
    if (thread)
        out->thread[row] = thread;
    if (ern)
        out->err[row] = ern;
    if (c->lcode[f->layer] < 0) {
        c->lby[c->nl] = f->layer;
        c->lcode[f->layer] = (int32_t)c->nl++;
    }
    if (c->fcode[e->func] < 0) {
        c->fby[c->nf] = e->func;
        c->fcode[e->func] = (int32_t)c->nf++;
    }
    out->layer[row] = (int8_t)c->lcode[f->layer];
    out->func[row] = (int16_t)c->fcode[e->func];
    out->ret[row] = siot_eval_int(e->ret, &ev->ctx, 0);
    out->has_bytes[row] = (uint8_t)siot_is_data_class(f->cls);
    out->bytes[row] = out->has_bytes[row] ? siot_eval_int(e->bytes, &ev->ctx, 0) : 0;
    out->start[row] = ev->start_ns;
    out->dur[row] = ev->dur_ns;
    for (uint32_t k = 0; k < e->nargs && k < f->nargs; k++) {
        siot_value v;
        if (siot_eval(e->args[k], &ev->ctx, &c->scratch, &v) != 0) {
            snprintf(err, errlen, "rank %" PRId64 " event %" PRId64 " (%s): argument %s cannot be evaluated",
                     ev->ctx.rank, ev->seq, f->name, f->argnames[k]);
            return -1;
        }
        if (put_arg(c, f, c->map[c->first[e->func] + k], k, &v, out, row) != 0) {
            snprintf(err, errlen, "out of memory, or past 4 GiB of distinct texts (argument %s)", f->argnames[k]);
            return -1;
        }
    }
    return 0;
}
