/* format_trace: the trace in memory that the format writes and reads.
 *
 * Initialising and freeing one, joining a trace's nodes after another's
 * (siot_trace_append: how a file's blocks after the first are read, and
 * how siot merges; function and module tables united, indices remapped,
 * rank times united through core/ranksum.h), renumbering the nodes, and
 * the header's notes. Nothing here reads or writes bytes.
 *
 * Part of the trace format (core/format_int.h); locks, signals and errors
 * as core/format.h says. */
#include "core/format_int.h"

#include "core/salloc.h"

void siot_trace_init(siot_trace *t)
{
    memset(t, 0, sizeof *t);
    siot_arena_init(&t->arena);
}

void siot_trace_free(siot_trace *t)
{
    siot_arena_free(&t->arena);
    memset(t, 0, sizeof *t);
}

static int same_funcdesc(const siot_funcdesc *a, const siot_funcdesc *b)
{
    if (a->layer != b->layer || a->cls != b->cls || a->retrole != b->retrole || a->nargs != b->nargs)
        return 0;
    for (uint32_t k = 0; k < a->nargs; k++)
        if (a->argroles[k] != b->argroles[k] || strcmp(a->argnames[k], b->argnames[k]) != 0)
            return 0;
    return 1;
}

int siot_unite_funcs(siot_funcdesc *funcs, uint32_t *n, const siot_funcdesc *src, uint32_t nsrc, uint32_t *map)
{
    uint32_t nf = *n;
    for (uint32_t i = 0; i < nsrc; i++) {
        uint32_t j = 0;
        while (j < nf && strcmp(funcs[j].name, src[i].name) != 0)
            j++;
        if (j == nf)
            funcs[nf++] = src[i];
        else if (!same_funcdesc(&funcs[j], &src[i]))
            return SIOT_E_CONFLICT;
        map[i] = j;
    }
    *n = nf;
    return 0;
}

void siot_unite_names(const char **names, uint32_t *n, const char *const *src, uint32_t nsrc, uint32_t *map)
{
    uint32_t nn = *n;
    for (uint32_t i = 0; i < nsrc; i++) {
        uint32_t j = 0;
        while (j < nn && strcmp(names[j], src[i]) != 0)
            j++;
        if (j == nn)
            names[nn++] = src[i];
        map[i] = j;
    }
    *n = nn;
}

static void remap_funcs(siot_node *n, const uint32_t *map)
{
    if (n->kind == SIOT_N_EVENT) {
        n->u.ev.func = map[n->u.ev.func];
        return;
    }
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        remap_funcs(n->u.loop.body[i], map);
}

static void remap_sites(siot_node *n, uint32_t add)
{
    if (n->kind == SIOT_N_EVENT) {
        if (n->u.ev.site)
            n->u.ev.site += add;
        return;
    }
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        remap_sites(n->u.loop.body[i], add);
}

int siot_rt_union(siot_trace *dst, const siot_trace *src) { return siot_rts_union(dst, src); }

int siot_trace_append(siot_trace *dst, siot_trace *src)
{
    if (siot_rt_union(dst, src) != 0) {
        siot_trace_free(src);
        return -1;
    }
    uint32_t *map = siot_malloc((src->nfuncs + 1) * sizeof *map);
    if (!map) {
        siot_trace_free(src);
        return -1;
    }
    siot_funcdesc *funcs = siot_arena_alloc(&dst->arena, (dst->nfuncs + src->nfuncs + 1) * sizeof *funcs);
    siot_site *sites = siot_arena_alloc(&dst->arena, (dst->nsites + src->nsites + 1) * sizeof *sites);
    siot_node **top = siot_arena_alloc(&dst->arena, ((size_t)dst->ntop + src->ntop + 1) * sizeof *top);
    if (!funcs || !sites || !top) {
        siot_free(map);
        siot_trace_free(src);
        return -1;
    }
    copy_n(funcs, dst->funcs, dst->nfuncs * sizeof *funcs);
    uint32_t nf = dst->nfuncs;
    if (siot_unite_funcs(funcs, &nf, src->funcs, src->nfuncs, map) != 0) {
        siot_free(map);
        siot_trace_free(src);
        return SIOT_E_CONFLICT;
    }
    /* Modules united by path; the source's site addresses renumbered. */
    const char **mods = siot_arena_alloc(&dst->arena, (dst->nmodules + src->nmodules + 1) * sizeof *mods);
    uint32_t *mmap_ = siot_malloc((src->nmodules + 1) * sizeof *mmap_);
    if (!mods || !mmap_) {
        siot_free(map);
        siot_free(mmap_);
        siot_trace_free(src);
        return -1;
    }
    copy_n(mods, dst->modules, dst->nmodules * sizeof *mods);
    uint32_t nm = dst->nmodules;
    siot_unite_names(mods, &nm, src->modules, src->nmodules, mmap_);
    copy_n(sites, dst->sites, dst->nsites * sizeof *sites);
    copy_n(sites + dst->nsites, src->sites, src->nsites * sizeof *sites);
    for (uint32_t i = 0; i < src->nsites; i++)
        for (uint32_t k = 0; k < src->sites[i].depth; k++) {
            uint64_t a = src->sites[i].addrs[k];
            uint32_t m = SIOT_ADDR_MODULE(a);
            src->sites[i].addrs[k] = SIOT_ADDR(m < src->nmodules ? mmap_[m] : m, SIOT_ADDR_OFFSET(a));
        }
    siot_free(mmap_);
    dst->modules = mods;
    dst->nmodules = nm;
    copy_n(top, dst->top, dst->ntop * sizeof *top);
    for (uint32_t i = 0; i < src->ntop; i++) {
        remap_funcs(src->top[i], map);
        remap_sites(src->top[i], dst->nsites);
        top[dst->ntop + i] = src->top[i];
    }
    siot_free(map);
    dst->funcs = funcs;
    dst->nfuncs = nf;
    dst->sites = sites;
    dst->nsites += src->nsites;
    dst->top = top;
    dst->ntop += src->ntop;
    dst->flags |= src->flags & (SIOT_TF_PARTIAL | SIOT_TF_APPROX | SIOT_TF_TRUNCATED);
    siot_arena_take(&dst->arena, &src->arena);
    siot_trace_free(src);
    siot_trace_index(dst);
    return 0;
}

static void index_node(siot_trace *t, siot_node *n, uint32_t depth)
{
    n->id = t->nnodes++;
    if (n->kind != SIOT_N_LOOP)
        return;
    if (depth + 1 > t->max_depth)
        t->max_depth = depth + 1;
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        index_node(t, n->u.loop.body[i], depth + 1);
}

void siot_trace_index(siot_trace *t)
{
    t->nnodes = 0;
    t->max_depth = 0;
    for (uint32_t i = 0; i < t->ntop; i++)
        index_node(t, t->top[i], 0);
}

int siot_trace_set_kv(siot_trace *t, const char *key, const char *val)
{
    for (uint32_t i = 0; i < t->nkv; i++)
        if (strcmp(t->kv[i].key, key) == 0) {
            /* the old value stays when the new one cannot be copied */
            char *v = siot_arena_strdup(&t->arena, val, strlen(val));
            if (!v)
                return -1;
            t->kv[i].val = v;
            return 0;
        }
    siot_kv *kv = siot_arena_alloc(&t->arena, (t->nkv + 1) * sizeof *kv);
    char *k = siot_arena_strdup(&t->arena, key, strlen(key));
    char *v = siot_arena_strdup(&t->arena, val, strlen(val));
    if (!kv || !k || !v)
        return -1; /* the notes as they were: no entry without its strings */
    copy_n(kv, t->kv, t->nkv * sizeof *kv);
    kv[t->nkv].key = k;
    kv[t->nkv].val = v;
    t->kv = kv;
    t->nkv++;
    return 0;
}

const char *siot_trace_get_kv(const siot_trace *t, const char *key)
{
    for (uint32_t i = 0; i < t->nkv; i++)
        if (strcmp(t->kv[i].key, key) == 0)
            return t->kv[i].val;
    return NULL;
}
