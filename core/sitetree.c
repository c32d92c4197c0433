#include "core/sitetree.h"

#include <string.h>

#include "core/salloc.h"

/* ------------------------------------------------------------------ encode */

typedef struct tree {
    uint64_t *frames; /* distinct frames, sorted (module, then offset) */
    uint32_t nframes;
    uint32_t *parent; /* node index + 1, 0 at a root */
    uint32_t *frame;  /* index into frames */
    uint32_t nnodes;
    uint32_t *slot; /* open addressing on (parent, frame): node index + 1 */
    size_t mask;
} tree;

/* Heapsort, in place: the encoder runs in a signal handler when a run ends
 * abnormally (format.h), where qsort may not (glibc's allocates a buffer
 * for arrays past 1 KiB). */
static void sift_down(uint64_t *v, size_t i, size_t n)
{
    for (size_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && v[c + 1] > v[c])
            c++;
        if (v[i] >= v[c])
            return;
        uint64_t x = v[i];
        v[i] = v[c];
        v[c] = x;
    }
}

static void sort_u64(uint64_t *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (size_t end = n; end > 1; end--) {
        uint64_t x = v[0];
        v[0] = v[end - 1];
        v[end - 1] = x;
        sift_down(v, 0, end - 1);
    }
}

static uint32_t frame_id(const tree *t, uint64_t addr)
{
    uint32_t lo = 0, hi = t->nframes;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->frames[mid] <= addr)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The node (parent, frame), added when new: returns its index + 1. */
static uint32_t node_of(tree *t, uint32_t parent, uint32_t frame)
{
    size_t h = ((size_t)parent * 0x9E3779B1u ^ (size_t)frame * 0x85EBCA77u) & t->mask;
    for (;; h = (h + 1) & t->mask) {
        uint32_t n = t->slot[h];
        if (n == 0)
            break;
        if (t->parent[n - 1] == parent && t->frame[n - 1] == frame)
            return n;
    }
    t->parent[t->nnodes] = parent;
    t->frame[t->nnodes] = frame;
    t->slot[h] = ++t->nnodes;
    return t->nnodes;
}

static void tree_free(tree *t)
{
    siot_free(t->frames);
    siot_free(t->parent);
    siot_free(t->frame);
    siot_free(t->slot);
}

static int tree_alloc(tree *t, size_t nframes)
{
    memset(t, 0, sizeof *t);
    size_t cap = 16;
    while (cap < 2 * nframes)
        cap *= 2;
    t->mask = cap - 1;
    t->frames = siot_malloc((nframes ? nframes : 1) * sizeof *t->frames);
    t->parent = siot_malloc((nframes ? nframes : 1) * sizeof *t->parent);
    t->frame = siot_malloc((nframes ? nframes : 1) * sizeof *t->frame);
    t->slot = siot_calloc(cap, sizeof *t->slot);
    return t->frames && t->parent && t->frame && t->slot ? 0 : -1;
}

/* The distinct frames, sorted so that the table is written as deltas. */
static void collect_frames(tree *t, const siot_site *sites, uint32_t nsites)
{
    size_t n = 0;
    for (uint32_t i = 0; i < nsites; i++)
        for (uint32_t k = 0; k < sites[i].depth; k++)
            t->frames[n++] = sites[i].addrs[k];
    sort_u64(t->frames, n);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || t->frames[i] != t->frames[u - 1])
            t->frames[u++] = t->frames[i];
    t->nframes = (uint32_t)u;
}

/* A site is the node of its innermost frame (addrs[0]), reached from the
 * outermost one. */
static uint32_t site_node(tree *t, const siot_site *s)
{
    uint32_t n = 0;
    for (uint32_t k = s->depth; k-- > 0;)
        n = node_of(t, n, frame_id(t, s->addrs[k]));
    return n;
}

static void put_frames(const tree *t, siot_vbuf *out)
{
    siot_vbuf_uvar(out, t->nframes);
    uint64_t pm = 0, po = 0;
    for (uint32_t i = 0; i < t->nframes; i++) {
        uint64_t m = SIOT_ADDR_MODULE(t->frames[i]), o = SIOT_ADDR_OFFSET(t->frames[i]);
        siot_vbuf_uvar(out, m - pm);
        siot_vbuf_uvar(out, m == pm ? o - po : o);
        pm = m, po = o;
    }
}

int siot_sitetree_encode(const siot_site *sites, uint32_t nsites, siot_vbuf *out)
{
    size_t total = 0;
    for (uint32_t i = 0; i < nsites; i++)
        total += sites[i].depth;
    tree t;
    if (tree_alloc(&t, total) != 0) {
        tree_free(&t);
        return -1;
    }
    collect_frames(&t, sites, nsites);
    put_frames(&t, out);
    uint32_t *of = siot_malloc((nsites ? nsites : 1) * sizeof *of);
    if (!of) {
        tree_free(&t);
        return -1;
    }
    for (uint32_t i = 0; i < nsites; i++)
        of[i] = site_node(&t, &sites[i]);
    /* Parents come first: a node's parent as the distance back to it. */
    siot_vbuf_uvar(out, t.nnodes);
    for (uint32_t i = 0; i < t.nnodes; i++) {
        siot_vbuf_uvar(out, t.parent[i] ? i + 1 - t.parent[i] : 0);
        siot_vbuf_uvar(out, t.frame[i]);
    }
    siot_vbuf_uvar(out, nsites);
    for (uint32_t i = 0; i < nsites; i++)
        siot_vbuf_uvar(out, of[i]);
    siot_free(of);
    tree_free(&t);
    return 0;
}

/* ------------------------------------------------------------------ decode */

static uint64_t *get_frames(siot_rd *rd, siot_arena *arena, uint32_t nmodules, uint32_t *nframes)
{
    uint64_t n = siot_rd_count(rd, 2, "call-site frame table longer than the data");
    if (rd->err)
        return NULL;
    if (n && nmodules == 0) {
        siot_rd_fail(rd, "call site without a module table");
        return NULL;
    }
    uint64_t *f = siot_arena_alloc(arena, (n ? n : 1) * sizeof *f);
    if (!f) {
        siot_rd_fail(rd, "out of memory");
        return NULL;
    }
    uint64_t m = 0, o = 0;
    for (uint64_t i = 0; i < n && !rd->err; i++) {
        uint64_t dm = siot_rd_uvar_max(rd, nmodules - 1 - m, "call site in an unknown module");
        uint64_t v = siot_rd_uvar(rd);
        o = dm ? v : o + v;
        m += dm;
        if (!rd->err && (o < v || o > SIOT_ADDR_OFFSET(UINT64_MAX)))
            siot_rd_fail(rd, "call-site offset out of range");
        f[i] = SIOT_ADDR(m, o);
    }
    *nframes = (uint32_t)n;
    return rd->err ? NULL : f;
}

typedef struct dnodes {
    uint32_t n;
    uint32_t *parent; /* index + 1, 0 at a root */
    uint32_t *frame;
    uint16_t *depth;
} dnodes;

static int get_nodes(siot_rd *rd, siot_arena *arena, uint32_t nframes, dnodes *nd)
{
    uint64_t n = siot_rd_count(rd, 2, "call-site tree longer than the data");
    if (rd->err)
        return -1;
    nd->n = (uint32_t)n;
    nd->parent = siot_arena_alloc(arena, (n ? n : 1) * sizeof *nd->parent);
    nd->frame = siot_arena_alloc(arena, (n ? n : 1) * sizeof *nd->frame);
    nd->depth = siot_arena_alloc(arena, (n ? n : 1) * sizeof *nd->depth);
    if (!nd->parent || !nd->frame || !nd->depth) {
        siot_rd_fail(rd, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < n && !rd->err; i++) {
        uint32_t back = (uint32_t)siot_rd_uvar_max(rd, i, "call-site tree node refers to a later one");
        nd->frame[i] = (uint32_t)siot_rd_uvar_max(rd, nframes ? nframes - 1 : 0, "call-site frame out of range");
        if (!rd->err && nframes == 0)
            siot_rd_fail(rd, "call-site frame out of range");
        nd->parent[i] = back ? i + 1 - back : 0;
        nd->depth[i] = (uint16_t)(back ? nd->depth[i - back] + 1 : 1);
        if (!rd->err && nd->depth[i] > SIOT_MAX_SITE_DEPTH)
            siot_rd_fail(rd, "call site too deep");
    }
    return rd->err ? -1 : 0;
}

/* The frames of node k, innermost first. */
static int site_from(siot_rd *rd, siot_arena *arena, const dnodes *nd, const uint64_t *frames, uint32_t k,
                     siot_site *s)
{
    s->depth = k ? nd->depth[k - 1] : 0;
    s->addrs = siot_arena_alloc(arena, (s->depth ? s->depth : 1) * sizeof *s->addrs);
    if (!s->addrs) {
        siot_rd_fail(rd, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; k; i++, k = nd->parent[k - 1])
        s->addrs[i] = frames[nd->frame[k - 1]];
    return 0;
}

int siot_sitetree_decode(siot_rd *rd, siot_arena *arena, uint32_t nmodules, siot_site **sites, uint32_t *nsites)
{
    uint32_t nframes = 0;
    uint64_t *frames = get_frames(rd, arena, nmodules, &nframes);
    dnodes nd;
    if (!frames || get_nodes(rd, arena, nframes, &nd) != 0)
        return -1;
    uint64_t n = siot_rd_count(rd, 1, "call-site table longer than the data");
    if (rd->err)
        return -1;
    siot_site *s = siot_arena_alloc(arena, (n ? n : 1) * sizeof *s);
    if (!s) {
        siot_rd_fail(rd, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < n && !rd->err; i++) {
        uint32_t k = (uint32_t)siot_rd_uvar_max(rd, nd.n, "call site refers to an unknown tree node");
        if (!rd->err && site_from(rd, arena, &nd, frames, k, &s[i]) != 0)
            return -1;
    }
    *sites = s;
    *nsites = (uint32_t)n;
    return rd->err ? -1 : 0;
}
