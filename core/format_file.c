/* format_file: the file as a whole (docs/format.md "The file in brief").
 *
 * Writes and reads the magic and version, the HEADER (rank count, flags,
 * executable, notes), FUNCS (the functions nodes use, in the order of an
 * siot_fmap), SITES (the module table and the call-site tree,
 * core/sitetree.h) and END sections, and puts the sections in order: a
 * whole trace (siot_trace_encode, its packed file form, the sizes of its
 * sections) or a file written piece by piece (siot_file_start, a block's
 * tables, siot_file_end). The reader unpacks a packed file (core/pack.h),
 * takes the sections in order through their frame (core/section.h), hands
 * each payload to the part that reads it, joins each block after the first
 * to the trace (core/format_trace.c) and unites the blocks' rank times.
 * The loading reads the file by raw system calls: a traced ioreplay must
 * not record its own input.
 *
 * Part of the trace format (core/format_int.h); locks, signals and errors
 * as core/format.h says. */
#include "core/format_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/pack.h"
#include "core/salloc.h"
#include "core/sitetree.h"

/* "\x89SIOT\r\n\x1a": detects text-mode mangling */
static const uint8_t MAGIC[8] = {0x89, 'S', 'I', 'O', 'T', '\r', '\n', 0x1a};

/* Decoding a whole file: HEADER, then blocks of FUNCS SITES NODES
 * [NODES...], then END; each block after the first is joined to the trace. */
typedef struct file_dec {
    dec d;
    siot_trace *t;
    siot_trace blk; /* a block after the first, until it is joined to t */
    int blk_live;
    siot_trace *cur; /* the trace the current block decodes into */
    /* Rank times of blocks of merged ranks (core/ranksum.h): the blocks'
     * summaries merged, and the rows of blocks without one summarised
     * too once some block has one. */
    siot_rts sum;
    uint32_t blk_rows_from, sum_keep;
    int blk_has_sum;
    uint64_t again_left; /* dec.again */
    enum { WANT_HEADER, WANT_FUNCS, WANT_SITES, WANT_NODES, IN_NODES } state;
    unsigned nsec, nblocks;
    const char *why;
    char whybuf[200];
} file_dec;

static int fd_fail(file_dec *fd, const char *why)
{
    fd->why = why;
    return -1;
}

/* ---- the sections of the file, each writer beside its reader */

static void file_start(siot_vbuf *out)
{
    siot_vbuf_put(out, MAGIC, sizeof MAGIC);
    uint8_t ver[4] = {SIOT_FORMAT_MAJOR & 0xff, SIOT_FORMAT_MAJOR >> 8, SIOT_FORMAT_MINOR & 0xff, SIOT_FORMAT_MINOR >> 8};
    siot_vbuf_put(out, ver, 4);
}

static int check_magic(file_dec *fd, const void *p, size_t n)
{
    if (n < sizeof MAGIC + 4 || memcmp(p, MAGIC, sizeof MAGIC) != 0)
        return fd_fail(fd, n < sizeof MAGIC ? "file too short to be a siotrace trace"
                                            : "not a siotrace trace (bad magic number)");
    fd->d.rd.p += sizeof MAGIC;
    unsigned major = siot_rd_u8(&fd->d.rd);
    major |= (unsigned)siot_rd_u8(&fd->d.rd) << 8;
    (void)siot_rd_u8(&fd->d.rd);
    (void)siot_rd_u8(&fd->d.rd);
    if (major != SIOT_FORMAT_MAJOR) {
        snprintf(fd->whybuf, sizeof fd->whybuf, "trace format version %u is not supported (this siot reads version %d)",
                 major, SIOT_FORMAT_MAJOR);
        return fd_fail(fd, fd->whybuf);
    }
    return 0;
}

static void header_section(const siot_trace *t, int exact, siot_vbuf *s, siot_vbuf *out)
{
    s->len = 0;
    siot_vbuf_uvar(s, t->nranks);
    const uint32_t file_form = SIOT_TF_QBINS | SIOT_TF_MOMENTS24 | SIOT_TF_SD16;
    uint32_t flags = (t->flags | SIOT_TF_COMPACT | SIOT_TF_PCOUNT) & ~file_form;
    siot_vbuf_uvar(s, exact ? flags : flags | file_form);
    siot_vbuf_uvar(s, t->start_ns);
    put_cstr(s, t->exe);
    put_cstr(s, t->flavour);
    put_cstr(s, t->host);
    put_cstr(s, t->version);
    siot_vbuf_uvar(s, t->nkv);
    for (uint32_t i = 0; i < t->nkv; i++) {
        put_cstr(s, t->kv[i].key);
        put_cstr(s, t->kv[i].val);
    }
    end_section(out, SEC_HEADER, s);
}

/* A string of at most max bytes, copied into the trace's arena. */
static const char *dstr(dec *d, size_t max)
{
    size_t n;
    const uint8_t *p = siot_rd_bytes(&d->rd, &n, max);
    if (d->rd.err)
        return "";
    char *s = siot_arena_strdup(&d->t->arena, (const char *)p, n);
    if (!s) {
        dfail(d, "out of memory");
        return "";
    }
    return s;
}

static int dec_header(dec *d)
{
    siot_trace *t = d->t;
    t->nranks = (uint32_t)siot_rd_uvar_max(&d->rd, SIOT_MAX_RANKS, "rank count out of range");
    if (!d->rd.err && t->nranks == 0)
        return dfail(d, "rank count is zero");
    t->flags = (uint32_t)siot_rd_uvar_max(&d->rd, UINT32_MAX, "header flags out of range");
    t->start_ns = siot_rd_uvar(&d->rd);
    t->exe = dstr(d, 4096);
    t->flavour = dstr(d, 64);
    t->host = dstr(d, 256);
    t->version = dstr(d, 64);
    t->nkv = (uint32_t)siot_rd_count(&d->rd, 2, "header notes longer than the data");
    if (d->rd.err)
        return -1;
    t->kv = dalloc(d, (t->nkv ? t->nkv : 1) * sizeof *t->kv);
    for (uint32_t i = 0; t->kv && i < t->nkv && !d->rd.err; i++) {
        t->kv[i].key = dstr(d, 256);
        t->kv[i].val = dstr(d, SIOT_MAX_STRING);
    }
    return d->rd.err ? -1 : 0;
}

static void funcs_section(const siot_funcdesc *funcs, const siot_fmap *m, siot_vbuf *s, siot_vbuf *out)
{
    s->len = 0;
    siot_vbuf_uvar(s, m->n);
    for (uint32_t k = 0; k < m->n; k++) {
        const siot_funcdesc *f = &funcs[m->order[k]];
        put_cstr(s, f->name);
        siot_vbuf_u8(s, f->layer);
        siot_vbuf_uvar(s, f->cls);
        siot_vbuf_u8(s, f->retrole);
        siot_vbuf_uvar(s, f->nargs);
        for (uint32_t a = 0; a < f->nargs; a++) {
            put_cstr(s, f->argnames[a]);
            siot_vbuf_u8(s, f->argroles[a]);
        }
    }
    end_section(out, SEC_FUNCS, s);
}

static int dec_funcs(dec *d)
{
    siot_trace *t = d->t;
    uint64_t n = siot_rd_count(&d->rd, 5, "function table longer than the data");
    if (!d->rd.err && n > SIOT_MAX_FUNCS)
        return dfail(d, "function table too large");
    if (d->rd.err)
        return -1;
    t->nfuncs = (uint32_t)n;
    t->funcs = dalloc(d, (n ? n : 1) * sizeof *t->funcs);
    for (uint32_t i = 0; t->funcs && i < n && !d->rd.err; i++) {
        siot_funcdesc *f = &t->funcs[i];
        f->name = dstr(d, 256);
        f->layer = siot_rd_u8(&d->rd);
        f->cls = (uint32_t)siot_rd_uvar_max(&d->rd, UINT32_MAX, "function class out of range");
        f->retrole = siot_rd_u8(&d->rd);
        f->nargs = (uint32_t)siot_rd_uvar_max(&d->rd, SIOT_MAX_ARGS, "function with too many arguments");
        if (!d->rd.err && f->layer >= SIOT_NLAYERS)
            return dfail(d, "function of an unknown layer");
        if (!d->rd.err && f->name[0] == 0)
            return dfail(d, "function without a name");
        const char **names = dalloc(d, (f->nargs ? f->nargs : 1) * sizeof *names);
        uint8_t *roles = dalloc(d, f->nargs ? f->nargs : 1);
        if (!names || !roles)
            return -1;
        for (uint32_t k = 0; k < f->nargs && !d->rd.err; k++) {
            names[k] = dstr(d, 256);
            roles[k] = siot_rd_u8(&d->rd);
        }
        f->argnames = names;
        f->argroles = roles;
    }
    return d->rd.err ? -1 : 0;
}

static void sites_section(const siot_trace *t, siot_vbuf *s, siot_vbuf *out)
{
    s->len = 0;
    siot_vbuf_uvar(s, t->nmodules);
    for (uint32_t i = 0; i < t->nmodules; i++)
        put_cstr(s, t->modules[i]);
    /* Minor 1: the sites as a tree of frames (their shared outer frames once). */
    if (siot_sitetree_encode(t->sites, t->nsites, s) != 0)
        s->oom = 1;
    end_section(out, SEC_SITES, s);
}

static int dec_sites(dec *d)
{
    siot_trace *t = d->t;
    uint64_t nm = siot_rd_count(&d->rd, 1, "module table longer than the data");
    if (!d->rd.err && nm > 65535)
        return dfail(d, "too many modules");
    if (d->rd.err)
        return -1;
    t->nmodules = (uint32_t)nm;
    t->modules = dalloc(d, (nm ? nm : 1) * sizeof *t->modules);
    for (uint32_t i = 0; t->modules && i < nm && !d->rd.err; i++)
        t->modules[i] = dstr(d, 4096);
    if (t->flags & SIOT_TF_COMPACT)
        return d->rd.err ? -1 : siot_sitetree_decode(&d->rd, &t->arena, t->nmodules, &t->sites, &t->nsites);
    uint64_t n = siot_rd_count(&d->rd, 1, "call-site table longer than the data");
    if (d->rd.err)
        return -1;
    t->nsites = (uint32_t)n;
    t->sites = dalloc(d, (n ? n : 1) * sizeof *t->sites);
    for (uint32_t i = 0; t->sites && i < n && !d->rd.err; i++) {
        siot_site *s = &t->sites[i];
        s->depth = (uint32_t)siot_rd_uvar_max(&d->rd, SIOT_MAX_SITE_DEPTH, "call site too deep");
        s->addrs = dalloc(d, (s->depth ? s->depth : 1) * sizeof *s->addrs);
        for (uint32_t k = 0; s->addrs && k < s->depth && !d->rd.err; k++) {
            uint64_t m = siot_rd_uvar_max(&d->rd, t->nmodules ? t->nmodules - 1 : 0, "call site in an unknown module");
            if (!d->rd.err && t->nmodules == 0)
                dfail(d, "call site without a module table");
            uint64_t off = siot_rd_uvar_max(&d->rd, SIOT_ADDR_OFFSET(UINT64_MAX), "call-site offset out of range");
            s->addrs[k] = SIOT_ADDR(m, off);
        }
    }
    return d->rd.err ? -1 : 0;
}

static void end_marker(uint32_t nsec, siot_vbuf *s, siot_vbuf *out)
{
    s->len = 0;
    siot_vbuf_uvar(s, nsec);
    end_section(out, SEC_END, s);
}

/* ---- writing: a file piece by piece, or a whole trace */

int siot_block_tables(const siot_trace *t, const siot_fmap *m, siot_vbuf *out)
{
    siot_vbuf s;
    siot_vbuf_init(&s);
    funcs_section(t->funcs, m, &s, out);
    sites_section(t, &s, out);
    siot_fmt_rank_sections(t, 0, &s, out); /* a block of merged ranks can hold a summary */
    int oom = s.oom || out->oom;
    siot_vbuf_free(&s);
    return oom ? -1 : 0;
}

unsigned siot_block_table_sections(const siot_trace *t)
{
    return SIOT_BLOCK_TABLE_SECTIONS - 1 + siot_fmt_rank_nsections(t); /* RANKTIMES, RANKSUM: either or both */
}

int siot_file_start(const siot_trace *t, siot_vbuf *out)
{
    siot_vbuf s;
    siot_vbuf_init(&s);
    file_start(out);
    header_section(t, 0, &s, out);
    int oom = s.oom || out->oom;
    siot_vbuf_free(&s);
    return oom ? -1 : 0;
}

int siot_file_end(uint32_t nsec, siot_vbuf *out)
{
    siot_vbuf s;
    siot_vbuf_init(&s);
    end_marker(nsec, &s, out);
    int oom = s.oom || out->oom;
    siot_vbuf_free(&s);
    return oom ? -1 : 0;
}

static int encode(const siot_trace *t, siot_vbuf *out, int exact)
{
    siot_vbuf s;
    siot_vbuf_init(&s);
    file_start(out);
    header_section(t, exact, &s, out);
    /* Only the functions in use are written, in table order. */
    siot_fmap m;
    if (siot_fmap_init(&m, t->nfuncs) != 0) {
        siot_fmap_free(&m);
        siot_vbuf_free(&s);
        return -1;
    }
    uint8_t *used = siot_calloc(t->nfuncs + 1, 1);
    if (!used) {
        siot_fmap_free(&m);
        siot_vbuf_free(&s);
        return -1;
    }
    siot_fmt_mark_funcs(t->top, t->ntop, used, t->nfuncs);
    for (uint32_t i = 0; i < t->nfuncs; i++)
        if (used[i]) {
            m.order[m.n] = i;
            m.id[i] = ++m.n;
        }
    siot_free(used);
    funcs_section(t->funcs, &m, &s, out);
    sites_section(t, &s, out);
    unsigned nsec = 4 + siot_fmt_rank_sections(t, exact, &s, out);
    siot_fmt_nodes_section(t->top, t->ntop, &m, t->nranks, exact, out);
    end_marker(nsec, &s, out);
    int oom = s.oom || out->oom;
    siot_fmap_free(&m);
    siot_vbuf_free(&s);
    return oom ? -1 : 0;
}

int siot_trace_encode(const siot_trace *t, siot_vbuf *out) { return encode(t, out, 0); }

int siot_trace_encode_exact(const siot_trace *t, siot_vbuf *out) { return encode(t, out, 1); }

int siot_trace_encode_file(const siot_trace *t, int pack, siot_vbuf *out)
{
    if (encode(t, out, 0) != 0)
        return -1;
    siot_vbuf packed;
    siot_vbuf_init(&packed);
    if (pack && siot_pack(out->data, out->len, &packed) == 0) {
        siot_vbuf tmp = *out;
        *out = packed;
        packed = tmp;
    }
    siot_vbuf_free(&packed);
    return 0;
}

int siot_section_sizes(const siot_trace *t, uint64_t out[SIOT_NSECTION_SIZES])
{
    siot_vbuf s, o;
    siot_vbuf_init(&s);
    siot_vbuf_init(&o);
    siot_fmap m;
    int rc = siot_fmap_init(&m, t->nfuncs);
    for (uint32_t i = 0; rc == 0 && i < t->ntop; i++)
        siot_fmt_fmap_mark(&m, t->top[i]);
    uint64_t at = 0;
    file_start(&o);
    out[0] = o.len;
    header_section(t, 0, &s, &o);
    out[1] = o.len - out[0];
    at = o.len;
    funcs_section(t->funcs, &m, &s, &o);
    out[2] = o.len - at, at = o.len;
    sites_section(t, &s, &o);
    out[3] = o.len - at, at = o.len;
    unsigned nsec = 4 + siot_fmt_rank_sections(t, 0, &s, &o);
    out[4] = o.len - at, at = o.len;
    siot_fmt_nodes_section(t->top, t->ntop, &m, t->nranks, 0, &o);
    out[5] = o.len - at, at = o.len;
    end_marker(nsec, &s, &o);
    out[6] = o.len - at;
    rc = rc || s.oom || o.oom ? -1 : 0;
    siot_fmap_free(&m);
    siot_vbuf_free(&s);
    siot_vbuf_free(&o);
    return rc;
}

/* ---- reading: the sections in order, the blocks joined */

/* The next section's tag and payload, its framing and checksum checked. */
static int next_section(file_dec *fd, uint8_t *tag, const uint8_t **payload, uint64_t *len)
{
    siot_rd *rd = &fd->d.rd;
    if (siot_rd_left(rd) == 0)
        return fd_fail(fd, "trace is truncated (no end marker)");
    int framed = siot_rd_section(rd, tag, payload, len);
    if (framed == SIOT_SECTION_SHORT)
        return fd_fail(fd, "trace is truncated (a section runs past the end of the file)");
    if (framed == SIOT_SECTION_BAD_CRC) {
        snprintf(fd->whybuf, sizeof fd->whybuf, "trace is corrupt (checksum mismatch in section %u)", *tag);
        return fd_fail(fd, fd->whybuf);
    }
    /* Sections must come in order: each needs the ones before it. */
    int st = fd->state;
    int in_order = *tag > SEC_END || (*tag == SEC_HEADER && st == WANT_HEADER) ||
                   (*tag == SEC_FUNCS && (st == WANT_FUNCS || st == IN_NODES)) ||
                   (*tag == SEC_SITES && st == WANT_SITES) ||
                   (*tag == SEC_NODES && (st == WANT_NODES || st == IN_NODES)) || (*tag == SEC_END && st == IN_NODES);
    if (!in_order)
        return fd_fail(fd, st == WANT_HEADER || *tag == SEC_HEADER
                               ? "trace is corrupt (sections out of order, missing or repeated)"
                               : "trace is corrupt (sections out of order or missing)");
    return 0;
}

/* A block's summary, merged into those of the blocks before (their K
 * the least of the blocks', for which every list is exact). */
static int block_ranksum(file_dec *fd, dec *sub, uint8_t tag)
{
    siot_rts y = {0};
    uint32_t keep;
    if (fd->blk_has_sum++)
        return dfail(sub, "two rank-time summaries in a block");
    if (siot_fmt_dec_ranksum(sub, tag, &y, &keep))
        return -1;
    if (!fd->sum.sum) {
        fd->sum = y;
        fd->sum_keep = keep;
        return 0;
    }
    fd->sum_keep = keep < fd->sum_keep ? keep : fd->sum_keep;
    if (siot_rts_merge(&fd->t->arena, &fd->sum, &y, fd->sum_keep) != 0)
        return dfail(sub, "out of memory");
    return 0;
}

/* The end of a block's rank times: a block with a summary has no rows; at
 * the end, when some block had a summary, the rows of the others join it. */
static int close_rank_block(file_dec *fd, int last)
{
    siot_trace *t = fd->t;
    if (fd->blk_has_sum && t->nrt > fd->blk_rows_from)
        return fd_fail(fd, "trace is corrupt (rank-time rows beside a summary)");
    fd->blk_has_sum = 0;
    fd->blk_rows_from = t->nrt;
    if (!last || !fd->sum.sum) /* no block has a summary: rows only, as before minor 7 */
        return 0;
    if (siot_rt_settle(t) != 0)
        return fd_fail(fd, "trace is corrupt (a rank has two rows of rank times)");
    if (siot_rts_add_rows(&t->arena, &fd->sum, t->rt, t->nrt, fd->sum_keep) != 0)
        return fd_fail(fd, "out of memory");
    siot_rts_set(t, &fd->sum, fd->sum_keep);
    return 0;
}

/* Block boundaries: the block that ends is joined to the trace (tables
 * united), a FUNCS section after the first starts a new one. */
static int block_boundary(file_dec *fd, uint8_t tag)
{
    if ((tag == SEC_FUNCS || tag == SEC_END) && fd->state == IN_NODES && fd->blk_live) {
        siot_trace_index(&fd->blk);
        fd->blk_live = 0; /* freed below whatever happens */
        int rc = siot_trace_append(fd->t, &fd->blk);
        siot_trace_free(&fd->blk);
        if (rc != 0)
            return fd_fail(fd, rc == SIOT_E_CONFLICT ? "trace is corrupt (blocks describe a function differently)"
                                                     : "out of memory");
    }
    if ((tag == SEC_FUNCS && fd->nblocks > 0) || tag == SEC_END)
        if (close_rank_block(fd, tag == SEC_END) != 0)
            return -1;
    if (tag == SEC_FUNCS && fd->nblocks++ > 0) {
        if (fd->nblocks > SIOT_MAX_RANKS + 1u)
            return fd_fail(fd, "trace is corrupt (too many blocks)");
        siot_trace_init(&fd->blk);
        fd->blk_live = 1;
        fd->blk.nranks = fd->t->nranks;
        fd->blk.flags = fd->t->flags;
        fd->cur = &fd->blk;
    }
    return 0;
}

/* One section's payload, into the current block. */
static int dec_section(file_dec *fd, uint8_t tag, const uint8_t *payload, uint64_t len)
{
    dec sub = fd->d;
    sub.t = fd->cur;
    siot_rd_init(&sub.rd, payload, len);
    int rc = 0;
    switch (tag) {
    case SEC_HEADER:
        rc = dec_header(&sub);
        fd->state = WANT_FUNCS;
        break;
    case SEC_FUNCS:
        rc = dec_funcs(&sub);
        fd->state = WANT_SITES;
        break;
    case SEC_SITES:
        rc = dec_sites(&sub);
        fd->state = WANT_NODES;
        break;
    case SEC_NODES:
        rc = siot_fmt_dec_nodes(&sub);
        fd->state = IN_NODES;
        break;
    case SEC_END: {
        uint64_t cnt = siot_rd_uvar(&sub.rd);
        if (!sub.rd.err && cnt != fd->nsec)
            siot_rd_fail(&sub.rd, "section count does not match");
        break;
    }
    case SEC_RANKTIMES:
        /* into the job's trace whatever the block: rows are not per block */
        sub.t = fd->t;
        rc = fd->state == WANT_HEADER ? dfail(&sub, "rank times before the header") : siot_fmt_dec_ranktimes(&sub);
        break;
    case SEC_RANKSUM:
    case SEC_RANKSUM9:
        sub.t = fd->t;
        rc = fd->state == WANT_HEADER ? dfail(&sub, "rank times before the header") : block_ranksum(fd, &sub, tag);
        break;
    default:
        break; /* unknown optional section from a newer minor version */
    }
    if (rc || sub.rd.err) {
        snprintf(fd->whybuf, sizeof fd->whybuf, "trace is corrupt (%s)", sub.rd.err ? sub.rd.err : "bad section");
        return fd_fail(fd, fd->whybuf);
    }
    if (siot_rd_left(&sub.rd) != 0 && tag <= SEC_RANKSUM9)
        return fd_fail(fd, "trace is corrupt (unexpected bytes at the end of a section)");
    return 0;
}

static int decode_file(const void *p, size_t n, siot_trace *t, char *err, size_t errlen)
{
    static file_dec zero;
    file_dec fd = zero;
    siot_trace_init(t);
    fd.t = fd.cur = t;
    fd.d.t = t;
    /* values decoded again may take 64 bytes of memory for each byte of
     * the file, and 64 MiB in all for a small one */
    fd.again_left = ((uint64_t)n + (1u << 20)) * 64;
    fd.d.again = &fd.again_left;
    siot_rd_init(&fd.d.rd, p, n);
    fd.state = WANT_HEADER;
    int rc = check_magic(&fd, p, n);
    for (uint8_t tag = 0; rc == 0 && tag != SEC_END;) {
        const uint8_t *payload;
        uint64_t len;
        rc = next_section(&fd, &tag, &payload, &len);
        if (rc == 0)
            rc = block_boundary(&fd, tag);
        if (rc == 0)
            rc = dec_section(&fd, tag, payload, len);
        if (rc == 0 && tag != SEC_END)
            fd.nsec++;
    }
    if (rc == 0 && siot_rd_left(&fd.d.rd) != 0)
        rc = fd_fail(&fd, "trace is corrupt (data after the end marker)");
    if (rc == 0 && siot_rt_settle(t) != 0)
        rc = fd_fail(&fd, "trace is corrupt (a rank has two rows of rank times)");
    if (rc == 0 && siot_rts_check(t))
        rc = fd_fail(&fd, siot_rts_check(t));
    if (rc == 0) {
        siot_trace_index(t);
        return 0;
    }
    if (err && errlen)
        snprintf(err, errlen, "%s", fd.why ? fd.why : "trace is corrupt");
    if (fd.blk_live)
        siot_trace_free(&fd.blk);
    siot_trace_free(t);
    return -1;
}

int siot_trace_load(const char *path, siot_trace *t, char *err, size_t errlen)
{
    /* Raw system calls: a traced ioreplay must not record its own input. */
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (syscall(SYS_fstat, fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", path);
        syscall(SYS_close, fd);
        return -1;
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = siot_malloc(n ? n : 1);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory (%zu bytes)", path, n);
        syscall(SYS_close, fd);
        return -1;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = (ssize_t)syscall(SYS_read, fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    syscall(SYS_close, fd);
    if (got != n) {
        snprintf(err, errlen, "cannot read %s", path);
        siot_free(buf);
        return -1;
    }
    char why[220];
    int rc = siot_trace_decode(buf, n, t, why, sizeof why);
    siot_free(buf);
    if (rc)
        snprintf(err, errlen, "%s: %s", path, why);
    return rc;
}

/* A packed file of this major version (core/pack.h); any other goes to
 * decode_file as it is, which says what is wrong with it. */
static int packed_here(const uint8_t *p, size_t n)
{
    return n > sizeof MAGIC + 4 && memcmp(p, MAGIC, sizeof MAGIC) == 0 &&
           (p[sizeof MAGIC] | p[sizeof MAGIC + 1] << 8) == SIOT_FORMAT_MAJOR && siot_is_packed(p, n);
}

int siot_trace_decode(const void *p, size_t n, siot_trace *t, char *err, size_t errlen)
{
    if (!packed_here(p, n))
        return decode_file(p, n, t, err, errlen);
    siot_vbuf raw;
    siot_vbuf_init(&raw);
    const char *why = NULL;
    int rc = siot_unpack(p, n, &raw, &why);
    if (rc == 0)
        rc = decode_file(raw.data, raw.len, t, err, errlen);
    else {
        siot_trace_init(t);
        if (err && errlen)
            snprintf(err, errlen, "%s", why);
    }
    if (rc == 0)
        t->unpacked_bytes = raw.len;
    siot_vbuf_free(&raw);
    return rc;
}
