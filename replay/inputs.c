#include "replay/inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/expr.h"
#include "core/names.h"
#include "core/roles.h"
#include "replay/hmap.h"
#include "replay/scantext.h"
#include "replay/walk.h"

/* What the file must hold at pos: len filler bytes, one given byte, or
 * the text (owned, len bytes). */
typedef struct patch {
    int64_t pos, len;
    char byte;
    char *text;
} patch;

typedef struct infile {
    char *path;      /* as recorded */
    int input;       /* its first access opened it without creating it (1),
                      * or removed it (2: staged empty, its data is the run's) */
    int64_t end, eof; /* the furthest byte read; where a read met the end (-1) */
    /* Was it there before the run? A size the run saw (lseek to the end,
     * MPI_File_get_size) on a rank before that rank wrote to it, beyond
     * anything the whole run wrote or set, was the file's own: a run over
     * an old output (a benchmark run twice, MPI_MODE_CREATE without a
     * delete). Appends leave it unknown (their offsets are not followed). */
    int64_t seen_size, made_end;
    int wrote_rank; /* the last rank + 1 that wrote to it (the walk goes rank by rank) */
    int appends;
    /* a rank that saw it have seen_size bytes then cut it shorter before
     * writing to it (HDF5's H5F_ACC_TRUNC over an old file: get_size, then
     * set_size 0): the old content was there, whatever the run wrote after */
    int cut_old;
    patch *p;
    size_t np, cap;
} infile;

/* A handle (kind: 0 a descriptor, 1 a stream, MPIFILE) names the file of
 * index file in the stager's files; pos is where its next read or write
 * starts (replay/hmap.h). */
typedef rp_handle handle;

/* Paths (as recorded), deduplicated. */
typedef struct pathset {
    char **p;
    size_t n, cap;
} pathset;

#define MAX_DIRS 4096 /* directories staged; a trace naming more is rare and keeps the rest to rp_path */

typedef struct stager {
    infile *f;
    size_t nf, cap;
    pathset dirs; /* directories the run's paths went through */
    pathset made; /* ... that the run made itself (mkdir) */
    rp_hmap h; /* the walked rank's handles */
    int oom;
    int rank; /* the rank being walked */
    const rp_state *c; /* the run's working directory (rp_from_cwd) */
    char joined[2 * PATH_MAX]; /* a path under an *at call's directory (path_arg) */
} stager;

/* path, len in lexical form in buf (PATH_MAX), or as it is when longer */
static const char *lexical_name(const char *path, size_t *len, char *buf)
{
    if (*len >= PATH_MAX)
        return path;
    memcpy(buf, path, *len);
    *len = siot_path_lexical(buf, *len);
    return buf;
}

/* The first len bytes of path (a directory's name may be the prefix of a
 * longer path) relative to the run's directory (rp_from_cwd, which reads
 * to the NUL: hence the copy), in buf; as it is when longer than PATH_MAX. */
static const char *cwd_relative(const stager *s, const char *path, size_t *len, char *buf)
{
    if (*len >= PATH_MAX)
        return path;
    memcpy(buf, path, *len);
    buf[*len] = 0;
    const char *rel = rp_from_cwd(s->c, buf);
    *len = strlen(rel);
    return rel;
}

static size_t file_of(stager *s, const char *path, size_t len)
{
    char whole[PATH_MAX], buf[PATH_MAX];
    path = lexical_name(cwd_relative(s, path, &len, whole), &len, buf);
    for (size_t i = 0; i < s->nf; i++)
        if (strlen(s->f[i].path) == len && memcmp(s->f[i].path, path, len) == 0)
            return i;
    if (siot_array_reserve((void **)&s->f, &s->cap, s->nf + 1, sizeof *s->f) != 0)
        return (size_t)-1;
    infile *f = &s->f[s->nf];
    memset(f, 0, sizeof *f);
    f->path = strndup(path, len);
    f->input = -1; /* not yet accessed */
    f->eof = -1;
    return f->path ? s->nf++ : (size_t)-1;
}

static void add_patch(stager *s, infile *f, int64_t pos, int64_t len, char byte)
{
    if (len <= 0 || f->input != 1)
        return;
    if (siot_array_reserve((void **)&f->p, &f->cap, f->np + 1, sizeof *f->p) != 0) {
        s->oom = 1;
        return;
    }
    f->p[f->np++] = (patch){pos, len, byte, NULL};
}

/* Text the scan format reads in len bytes (replay/scantext.h), or filler. */
static void add_scan_patch(stager *s, infile *f, int64_t pos, int64_t len, const char *fmt, int items)
{
    char *text = fmt ? siot_scan_text(fmt, len, items) : NULL;
    size_t before = f->np;
    add_patch(s, f, pos, len, 'x');
    if (f->np > before)
        f->p[f->np - 1].text = text;
    else
        free(text);
}

static handle *find_handle(stager *s, int stream, int64_t id)
{
    return rp_hmap_find(&s->h, s->rank, (uint8_t)stream, id);
}

static void bind(stager *s, int stream, int64_t id, size_t file)
{
    if (!rp_hmap_set(&s->h, s->rank, (uint8_t)stream, id, (int32_t)file))
        s->oom = 1;
}

static void unbind(stager *s, int stream, int64_t id)
{
    handle *h = find_handle(s, stream, id);
    if (h)
        rp_hmap_remove(&s->h, h);
}


static void pathset_add(stager *s, pathset *ps, const char *p, size_t len);

/* Path argument k of e as the run meant it: a relative path under an *at
 * call's traced directory descriptor is joined to that directory's name
 * (the replay opens it under its own descriptor of the same directory, so
 * an input must be staged there). -1 when there is no string. */
static int path_arg(stager *s, const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, int k,
                    siot_vbuf *scratch, siot_value *v)
{
    if (k < 0 || (uint32_t)k >= e->nargs || siot_eval(e->args[k], c, scratch, v) != 0 || v->kind != SIOT_V_STR)
        return -1;
    int64_t dir = v->slen && v->s[0] != '/' ? siot_arg_dirfd(e, f, c, k) : -100;
    const handle *h = dir >= 0 ? find_handle(s, 0, dir) : NULL;
    if (h) {
        int n = snprintf(s->joined, sizeof s->joined, "%s/%.*s", s->f[h->file].path, (int)v->slen, v->s);
        if (n > 0 && (size_t)n < sizeof s->joined) {
            v->s = s->joined;
            v->slen = (size_t)n;
        }
    }
    return 0;
}

/* Whether an open means to: its flags hold one of bits, or its fopen mode
 * starts with one of modes; dflt for a call with neither (creat, mkstemp). */
static int open_means(const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, siot_vbuf *scratch, int bits,
                      const char *modes, int dflt)
{
    if (siot_arg_index(f, SIOT_ROLE_oflags) >= 0)
        return (siot_arg_int(e, f, c, SIOT_ROLE_oflags, 0) & bits) != 0;
    int k = siot_arg_index(f, SIOT_ROLE_str);
    siot_value v;
    if (k >= 0 && (uint32_t)k < e->nargs && siot_eval(e->args[k], c, scratch, &v) == 0 && v.kind == SIOT_V_STR &&
        v.slen > 0)
        return v.s[0] && strchr(modes, v.s[0]) != NULL;
    return dflt;
}

/* An open that can create or empty the file: its data then comes from the program. */
static int creates(const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, siot_vbuf *scratch)
{
    return open_means(e, f, c, scratch, O_CREAT | O_TRUNC, "wa", 1);
}

/* An open for appending: O_APPEND, or an fopen mode "a". */
static int appends(const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, siot_vbuf *scratch)
{
    return open_means(e, f, c, scratch, O_APPEND, "a", 0);
}

static void on_open(stager *s, const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, siot_vbuf *scratch)
{
    siot_value v;
    if (path_arg(s, e, f, c, siot_arg_index(f, SIOT_ROLE_path), scratch, &v) != 0)
        return;
    int opendir = f->retrole == SIOT_ROLE_r_newdir;
    int dir = opendir || (siot_arg_int(e, f, c, SIOT_ROLE_oflags, 0) & O_DIRECTORY) != 0;
    if (dir) /* staged as a directory, never as an input file */
        pathset_add(s, &s->dirs, v.s, v.slen);
    size_t file = file_of(s, v.s, v.slen);
    if (file == (size_t)-1) {
        s->oom = 1;
        return;
    }
    int64_t ret = siot_eval_int(e->ret, c, -1);
    infile *in = &s->f[file];
    in->appends |= appends(e, f, c, scratch);
    if (dir)
        in->input = 0;
    else if (in->input < 0 && ret >= 0)
        in->input = !creates(e, f, c, scratch);
    else if (in->input < 0 && creates(e, f, c, scratch))
        in->input = 0;
    /* an opendir's DIR* has its descriptor's id, bound as a descriptor */
    if (ret >= 0 && (f->retrole == SIOT_ROLE_r_newfd || f->retrole == SIOT_ROLE_r_newstream || opendir))
        bind(s, f->retrole == SIOT_ROLE_r_newstream, ret, file);
}

/* A read on a bound handle: what the file must hold for it to return the same. */
static void on_read(stager *s, handle *h, const siot_event *e, const siot_funcdesc *f, const siot_ctx *c)
{
    infile *in = &s->f[h->file];
    int64_t bytes = siot_eval_int(e->bytes, c, 0), ret = siot_eval_int(e->ret, c, -1);
    int64_t at = siot_arg_index(f, SIOT_ROLE_offset) >= 0 ? siot_arg_int(e, f, c, SIOT_ROLE_offset, 0) : h->pos;
    int64_t asked = siot_arg_int(e, f, c, SIOT_ROLE_count, -1);
    if (asked > 0 && siot_arg_index(f, SIOT_ROLE_size) >= 0) /* fread: items of size bytes */
        asked *= siot_arg_int(e, f, c, SIOT_ROLE_size, 1);
    if (f->retrole == SIOT_ROLE_r_line || (f->retrole == SIOT_ROLE_r_bytes && h->kind && asked < 0)) {
        /* fgets, getline: a line ends with a newline unless it filled the buffer */
        if (ret <= 0 || bytes <= 0) {
            in->eof = at;
            return;
        }
        int full = f->retrole == SIOT_ROLE_r_line && asked > 0 && bytes >= asked - 1;
        add_patch(s, in, at, full ? bytes : bytes - 1, 'x');
        if (!full)
            add_patch(s, in, at + bytes - 1, 1, '\n');
    } else if (strstr(f->name, "scanf")) { /* fscanf: text its format reads in the bytes it consumed */
        if (ret < 0 && bytes <= 0) {
            in->eof = at;
            return;
        }
        siot_value v;
        int k = siot_arg_index(f, SIOT_ROLE_str);
        siot_vbuf fmt;
        siot_vbuf_init(&fmt);
        int have = k >= 0 && siot_eval(e->args[k], c, &fmt, &v) == 0 && v.kind == SIOT_V_STR;
        char *fs = have ? strndup(v.s, v.slen) : NULL;
        add_scan_patch(s, in, at, bytes, fs, (int)ret);
        free(fs);
        siot_vbuf_free(&fmt);
    } else if (f->retrole == SIOT_ROLE_r_int && h->kind) { /* fgetc: the byte itself */
        if (ret < 0) {
            in->eof = at;
            return;
        }
        add_patch(s, in, at, 1, ret == 0 ? 0 : (char)ret);
        bytes = 1;
    } else if (asked >= 0 && bytes < asked && siot_eval_int(e->err, c, 0) == 0) {
        in->eof = at + bytes; /* a short read met the end */
    }
    if (at + bytes > in->end)
        in->end = at + bytes;
    if (siot_arg_index(f, SIOT_ROLE_offset) < 0)
        h->pos = at + bytes;
}

/* A size of the file the rank saw, before it wrote to it itself. */
static void saw_size(stager *s, infile *in, int64_t size)
{
    if (in->wrote_rank != s->rank + 1 && size > in->seen_size)
        in->seen_size = size;
}

/* What the run wrote or set up to: the size it can account for. */
static void made_up_to(stager *s, infile *in, int64_t end)
{
    in->wrote_rank = s->rank + 1;
    if (end > in->made_end)
        in->made_end = end;
}

/* ftruncate, truncate, MPI_File_set_size to size. */
static void set_to(stager *s, infile *in, int64_t size)
{
    if (in->wrote_rank != s->rank + 1 && in->seen_size > size)
        in->cut_old = 1;
    made_up_to(s, in, size);
}

static void on_seek(stager *s, handle *h, const siot_event *e, const siot_funcdesc *f, const siot_ctx *c)
{
    int64_t ret = siot_eval_int(e->ret, c, -1);
    if (f->retrole == SIOT_ROLE_r_off && ret >= 0) { /* lseek: the new position */
        if (siot_arg_int(e, f, c, SIOT_ROLE_whence, -1) == SEEK_END)
            saw_size(s, &s->f[h->file], ret - siot_arg_int(e, f, c, SIOT_ROLE_offset, 0));
        h->pos = ret;
        return;
    }
    if (siot_arg_index(f, SIOT_ROLE_whence) < 0) { /* rewind */
        h->pos = 0;
        return;
    }
    int64_t off = siot_arg_int(e, f, c, SIOT_ROLE_offset, 0), whence = siot_arg_int(e, f, c, SIOT_ROLE_whence, -1);
    if (ret == 0 && whence == SEEK_SET)
        h->pos = off;
    else if (ret == 0 && whence == SEEK_CUR)
        h->pos += off;
}

static void pathset_add(stager *s, pathset *ps, const char *p, size_t len)
{
    char whole[PATH_MAX], buf[PATH_MAX];
    p = lexical_name(cwd_relative(s, p, &len, whole), &len, buf);
    for (size_t i = ps->n; i-- > 0;)
        if (strlen(ps->p[i]) == len && memcmp(ps->p[i], p, len) == 0)
            return;
    if (ps->n == MAX_DIRS)
        return;
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 16;
        char **a = realloc(ps->p, cap * sizeof *a);
        if (!a) {
            s->oom = 1;
            return;
        }
        ps->p = a;
        ps->cap = cap;
    }
    if (!(ps->p[ps->n] = strndup(p, len)))
        s->oom = 1;
    else
        ps->n++;
}

/* The directories a call that succeeded went through (its path's
 * ancestors), and the names the run made or removed itself (mkdir,
 * symlink, link, rename...: a directory staged there would hide them). */
static void on_paths(stager *s, const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, siot_vbuf *scratch)
{
    int64_t ret = siot_eval_int(e->ret, c, -1);
    int ok = siot_eval_int(e->err, c, 0) == 0 && (f->retrole == SIOT_ROLE_r_mpi ? ret == 0 : ret >= 0);
    /* what makes (or removes) a name: the run's own, never staged */
    int makes = strstr(f->name, "mkdir") || strstr(f->name, "link") || strstr(f->name, "rename") ||
                strstr(f->name, "mknod") || strstr(f->name, "mkfifo");
    if (!ok && !makes)
        return;
    /* a file the run removed before anything else touched it was there
     * before the run (an old output a program deletes first, as ROMIO's
     * tests do): staged, empty, so that the replay's removal finds it */
    int k = siot_arg_index(f, SIOT_ROLE_path);
    siot_value rv;
    if (ok && (strcmp(f->name, "unlink") == 0 || strcmp(f->name, "unlinkat") == 0 ||
               strcmp(f->name, "MPI_File_delete") == 0) && path_arg(s, e, f, c, k, scratch, &rv) == 0) {
        size_t file = file_of(s, rv.s, rv.slen);
        if (file == (size_t)-1)
            s->oom = 1;
        else if (s->f[file].input < 0)
            s->f[file].input = 2;
    }
    int last = -1; /* the name a link, rename, mkdir... made: its last path */
    for (uint32_t a = 0; a < f->nargs && a < e->nargs; a++) {
        siot_value v;
        if (f->argroles[a] != SIOT_ROLE_path || path_arg(s, e, f, c, (int)a, scratch, &v) != 0)
            continue;
        for (size_t i = 1; ok && i < v.slen; i++)
            if (v.s[i] == '/' && v.s[i - 1] != '/')
                pathset_add(s, &s->dirs, v.s, i);
        if (makes)
            pathset_add(s, &s->made, v.s, v.slen);
        last = (int)a;
    }
    /* the name made is no input file when the run opens it later */
    siot_value v;
    if (ok && makes && last >= 0 && path_arg(s, e, f, c, last, scratch, &v) == 0) {
        size_t file = file_of(s, v.s, v.slen);
        if (file == (size_t)-1)
            s->oom = 1;
        else if (s->f[file].input < 0)
            s->f[file].input = 0;
    }
}

static void on_write(stager *s, handle *h, const siot_event *e, const siot_funcdesc *f, const siot_ctx *c)
{
    int has_offset = siot_arg_index(f, SIOT_ROLE_offset) >= 0;
    int64_t at = has_offset ? siot_arg_int(e, f, c, SIOT_ROLE_offset, 0) : h->pos;
    int64_t bytes = siot_eval_int(e->bytes, c, 0);
    made_up_to(s, &s->f[h->file], at + (bytes > 0 ? bytes : 0));
    if (!has_offset && bytes > 0)
        h->pos = at + bytes;
}

/* MPI-IO: a file handle's size as MPI_File_get_size gave it, and the sizes
 * MPI_File_set_size and MPI_File_preallocate set (the POSIX calls beneath
 * carry the data written). */
static void on_mpiio(stager *s, const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, siot_vbuf *scratch)
{
    enum { MPIFILE = 2 };
    unsigned base = SIOT_CLASS_BASE(f->cls);
    int64_t ret = siot_eval_int(e->ret, c, -1);
    if (ret != 0)
        return;
    if (base == SIOT_CLASS_open) {
        siot_value v;
        if (path_arg(s, e, f, c, siot_arg_index(f, SIOT_ROLE_path), scratch, &v) != 0)
            return;
        size_t file = file_of(s, v.s, v.slen);
        if (file == (size_t)-1)
            s->oom = 1;
        else
            bind(s, MPIFILE, siot_arg_int(e, f, c, SIOT_ROLE_newfile, -1), file);
        return;
    }
    handle *h = find_handle(s, MPIFILE, siot_arg_int(e, f, c, SIOT_ROLE_file, -1));
    if (!h)
        return;
    if (strcmp(f->name, "MPI_File_get_size") == 0)
        saw_size(s, &s->f[h->file], siot_arg_int(e, f, c, SIOT_ROLE_outoff, -1));
    else if (strcmp(f->name, "MPI_File_set_size") == 0)
        set_to(s, &s->f[h->file], siot_arg_int(e, f, c, SIOT_ROLE_offset, 0));
    else if (strcmp(f->name, "MPI_File_preallocate") == 0)
        made_up_to(s, &s->f[h->file], siot_arg_int(e, f, c, SIOT_ROLE_offset, 0));
}

static void on_event(stager *s, const siot_trace *t, const siot_event *e, const siot_ctx *c, siot_vbuf *scratch)
{
    const siot_funcdesc *f = &t->funcs[e->func];
    on_paths(s, e, f, c, scratch);
    if (f->layer == SIOT_LAYER_mpiio)
        on_mpiio(s, e, f, c, scratch);
    if (f->layer != SIOT_LAYER_posix && f->layer != SIOT_LAYER_stdio)
        return;
    unsigned base = SIOT_CLASS_BASE(f->cls);
    if (base == SIOT_CLASS_open || (f->retrole == SIOT_ROLE_r_newdir && siot_arg_index(f, SIOT_ROLE_path) >= 0)) {
        on_open(s, e, f, c, scratch);
        return;
    }
    int stream = siot_arg_index(f, SIOT_ROLE_stream) >= 0;
    int64_t id = siot_arg_int(e, f, c, stream ? SIOT_ROLE_stream : SIOT_ROLE_fd, -1);
    handle *h = id >= 0 ? find_handle(s, stream, id) : NULL;
    if (!h)
        return;
    if (base == SIOT_CLASS_close)
        unbind(s, stream, id);
    else if (base == SIOT_CLASS_read && s->f[h->file].input == 1)
        on_read(s, h, e, f, c);
    else if (base == SIOT_CLASS_seek)
        on_seek(s, h, e, f, c);
    else if (base == SIOT_CLASS_write)
        on_write(s, h, e, f, c);
    else if (base == SIOT_CLASS_meta && strstr(f->name, "truncate"))
        set_to(s, &s->f[h->file], siot_arg_int(e, f, c, SIOT_ROLE_offset, 0));
    else if (base == SIOT_CLASS_meta && siot_arg_index(f, SIOT_ROLE_offset) >= 0) /* fallocate */
        made_up_to(s, &s->f[h->file],
                   siot_arg_int(e, f, c, SIOT_ROLE_offset, 0) + siot_arg_int(e, f, c, SIOT_ROLE_count, 0));
}

static int walk(stager *s, const siot_trace *t, const char **err)
{
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    for (uint32_t r = 0; r < t->nranks && !s->oom; r++) {
        siot_iter it;
        siot_ctx c;
        const siot_node *n;
        if (siot_iter_init(&it, t, r) != 0) {
            s->oom = 1;
            break;
        }
        rp_hmap_clear(&s->h);
        s->rank = (int)r;
        while (!s->oom && (n = siot_iter_next(&it, &c)))
            on_event(s, t, &n->u.ev, &c, &scratch);
        if (it.err)
            *err = it.err;
        siot_iter_free(&it);
        if (*err)
            break;
    }
    siot_vbuf_free(&scratch);
    if (s->oom)
        *err = "out of memory";
    return *err ? -1 : 0;
}

/* ---------------------------------------------------------------- writing */

static int64_t copy_from(const char *src, int out)
{
    int in = (int)syscall(SYS_openat, AT_FDCWD, src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    char buf[65536];
    int64_t total = 0;
    long n;
    while ((n = syscall(SYS_read, in, buf, sizeof buf)) > 0) {
        if (syscall(SYS_write, out, buf, (size_t)n) != n) {
            total = -1;
            break;
        }
        total += n;
    }
    syscall(SYS_close, in);
    return n < 0 ? -1 : total;
}

/* One byte as the patches so far and p make it: a line's filler only fills
 * what nothing else wrote; a scan's blank keeps a newline that a line read
 * there needs (a newline is a blank to the scan too). */
static char merged(const patch *p, int64_t i, char cur)
{
    if (p->text)
        return p->text[i] == ' ' && cur == '\n' ? cur : p->text[i];
    if (p->byte == 'x')
        return cur ? cur : 'x';
    return p->byte;
}

/* The file was there before the run, with at least seen_size bytes. */
static int was_there(const infile *in)
{
    return in->input != 2 && !in->appends && (in->seen_size > in->made_end || in->cut_old);
}

static int64_t synthesise(const infile *in, int out)
{
    int64_t size = in->eof >= in->end ? in->eof : in->end;
    if (was_there(in) && in->seen_size > size)
        size = in->seen_size;
    if (syscall(SYS_ftruncate, out, size) != 0)
        return -1;
    char buf[4096];
    for (size_t i = 0; i < in->np; i++) {
        const patch *p = &in->p[i];
        for (int64_t done = 0; done < p->len;) {
            size_t n = p->len - done < (int64_t)sizeof buf ? (size_t)(p->len - done) : sizeof buf;
            if (syscall(SYS_pread64, out, buf, n, p->pos + done) != (long)n)
                return -1;
            for (size_t k = 0; k < n; k++)
                buf[k] = merged(p, done + (int64_t)k, buf[k]);
            if (syscall(SYS_pwrite64, out, buf, n, p->pos + done) != (long)n)
                return -1;
            done += (int64_t)n;
        }
    }
    return size;
}

/* A file that could not be staged: counted, the first one named (the run's
 * calls on it are not replayed as recorded: the replay says so). */
static void not_staged(rp_inputs_result *res, const infile *in, const char *why)
{
    if (res->unstaged++ == 0) {
        snprintf(res->unstaged_path, sizeof res->unstaged_path, "%s", in->path);
        snprintf(res->unstaged_why, sizeof res->unstaged_why, "%s", why);
    }
}

static void stage_one(const infile *in, rp_state *c, const char *dir, rp_inputs_result *res)
{
    siot_value v = {.kind = SIOT_V_STR, .s = in->path, .slen = strlen(in->path)};
    uint64_t refused = c->refused_paths; /* staging is no call: the replay's own calls count their refusals */
    const char *path = rp_path(c, &v, 0);
    c->refused_paths = refused;
    struct stat st;
    if (!path) {
        not_staged(res, in, "a path that cannot be kept inside the replay root");
        return;
    }
    if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0) {
        res->kept++;
        return;
    }
    int out = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out < 0) {
        not_staged(res, in, strerror(errno));
        return;
    }
    char src[PATH_MAX + 4200];
    int64_t n = -1;
    if (dir) {
        snprintf(src, sizeof src, "%s/%s", dir, path);
        n = copy_from(src, out);
        res->copied += n >= 0;
    }
    if (n < 0) {
        errno = 0;
        n = synthesise(in, out);
        res->staged += n >= 0;
        if (n < 0) /* a short write sets no errno */
            not_staged(res, in, errno ? strerror(errno) : "a write was cut short");
    }
    res->bytes += n > 0 ? (uint64_t)n : 0;
    syscall(SYS_close, out);
}

/* dir is one the run made, or inside one */
static int made_by_run(const stager *s, const char *dir)
{
    for (size_t i = 0; i < s->made.n; i++) {
        size_t n = strlen(s->made.p[i]);
        if (strncmp(dir, s->made.p[i], n) == 0 && (dir[n] == 0 || dir[n] == '/'))
            return 1;
    }
    return 0;
}

/* The directories the run's paths went through that it did not make
 * (a POSIX-level replay's statfs of a file's directory finds it). */
static void stage_dirs(const stager *s, rp_state *c, rp_inputs_result *res)
{
    char buf[4200];
    for (size_t i = 0; i < s->dirs.n; i++) {
        if (made_by_run(s, s->dirs.p[i]) || strlen(s->dirs.p[i]) + 3 > sizeof buf)
            continue;
        snprintf(buf, sizeof buf, "%s/_", s->dirs.p[i]); /* rp_path makes the parents of what it maps */
        siot_value v = {.kind = SIOT_V_STR, .s = buf, .slen = strlen(buf)};
        uint64_t refused = c->refused_paths; /* one that leads out of the root is left alone, not counted: no call */
        res->dirs += rp_path(c, &v, 0) != NULL;
        c->refused_paths = refused;
    }
}

static void pathset_free(pathset *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        free(ps->p[i]);
    free(ps->p);
}

void rp_stage_inputs(const siot_trace *t, rp_state *c, const char *inputs_dir, rp_inputs_result *res)
{
    memset(res, 0, sizeof *res);
    stager s;
    memset(&s, 0, sizeof s);
    s.c = c;
    if (walk(&s, t, &res->err) == 0) {
        stage_dirs(&s, c, res);
        for (size_t i = 0; i < s.nf; i++)
            if (s.f[i].input > 0 || was_there(&s.f[i]))
                stage_one(&s.f[i], c, inputs_dir, res);
    }
    pathset_free(&s.dirs);
    pathset_free(&s.made);
    for (size_t i = 0; i < s.nf; i++) {
        for (size_t k = 0; k < s.f[i].np; k++)
            free(s.f[i].p[k].text);
        free(s.f[i].path);
        free(s.f[i].p);
    }
    free(s.f);
    rp_hmap_free(&s.h);
}
