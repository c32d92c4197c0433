/* emit_wrap: the C wrappers, --wrap (wrap_<layer>.c) and PMPI
 * (pmpi_<layer>.c), and the --wrap lines of each layer (wrap-<layer>.syms).
 * Every wrapper has the same shape (src/runtime.h): decide whether to
 * record, reserve the event slot, call the real function, then fill the
 * event from the parameters according to their roles (roles.c). */
#include <stdlib.h>
#include <string.h>

#include "tools/gen/gen.h"

int fortran_mode;

static const char *real_name(const func *f, char *buf, size_t n)
{
    if (f->real[0])
        snprintf(buf, n, "%s", f->real);
    else if (is_wrap_layer(f->layer))
        snprintf(buf, n, "__real_%s", f->name);
    else
        snprintf(buf, n, "P%s", f->name);
    return buf;
}

static int has_variadic(const func *f) { return f->np && f->p[f->np - 1].variadic; }
/* execl, execle, execlp: the list (role arglist) becomes an array for the
 * array form of the call (real=execv...), in place of its first element. */
static const param *arglist_of(const func *f)
{
    return has_variadic(f) && f->p[f->np - 1].role == SIOT_ROLE_arglist ? &f->p[f->np - 1] : NULL;
}
static int is_printf_like(const func *f) { return has_variadic(f) && f->p[f->np - 1].role == SIOT_ROLE_vargs; }

/* The argument list of the real call; status parameters may be substituted. */
static void emit_args(const func *f, int substituted)
{
    const param *al = arglist_of(f);
    if (al) {
        /* the array form: the parameters before the list's first element, the array, the environment */
        for (int i = 0; i < f->np - 2; i++)
            o("%s, ", f->p[i].name);
        o("%s%s%s", al->name, al->arg[0] ? ", " : "", al->arg);
        return;
    }
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (i)
            o(", ");
        if (substituted && (p->role == SIOT_ROLE_status || p->role == SIOT_ROLE_iostatus ||
                            (p->role == SIOT_ROLE_statusarr && find_role(f, SIOT_ROLE_reqarr))))
            o("siot_sp_%s", p->name);
        else
            o("%s", p->name);
    }
}

/* The stream of a call: its stream parameter, or stream=NAME's. */
static const char *stream_of(const func *f)
{
    const param *st = find_role(f, SIOT_ROLE_stream);
    return st ? st->name : f->stdstream[0] ? f->stdstream : NULL;
}

void emit_pre(const func *f)
{
    if (f->consumed) {
        if (!stream_of(f))
            die(f->file, f->line, "consumed needs a stream");
        o("    int64_t siot_pos0 = siot_stream_pos(%s);\n", stream_of(f));
    }
    if (find_role(f, SIOT_ROLE_fdnew))
        o("    int siot_old_traced = siot_fd_traced(%s);\n", find_role(f, SIOT_ROLE_fd)->name);
    for (int i = 0; i < f->np; i++)
        role_pre(f, &f->p[i]);
}

void emit_record_param(const func *f, const param *p)
{
    const param *comm = find_role(f, SIOT_ROLE_comm);
    const param *root = find_role(f, SIOT_ROLE_root);
    if (p->rootonly) {
        if (!comm || !root)
            die(f->file, f->line, "%s: @root needs comm and root parameters", f->name);
        o("    if (siot_mpi_is_root(%s, %s)) {\n", comm->name, root->name);
    }
    role_record(f, p);
    if (p->rootonly)
        o("    }\n");
}

static void emit_mpi_bytes(const func *f)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    const param *count = find_role(f, SIOT_ROLE_count), *dt = find_role(f, SIOT_ROLE_dtype);
    const param *st = find_role(f, SIOT_ROLE_status), *iost = find_role(f, SIOT_ROLE_iostatus);
    int data = base == SIOT_CLASS_send || base == SIOT_CLASS_recv || base == SIOT_CLASS_sendrecv ||
               base == SIOT_CLASS_read || base == SIOT_CLASS_write;
    if (!data)
        return;
    /* A message to or from MPI_PROC_NULL moves no data (the call returns at
     * once): its bytes stay 0. The first peer is the one the first count
     * goes with (MPI_Sendrecv: dest, with sendcount). */
    const param *peer = find_role(f, SIOT_ROLE_peer);
    if (peer)
        o("    if (%s != MPI_PROC_NULL) {\n", peer->name);
    if (iost)
        o("    if (ret == MPI_SUCCESS) ev->bytes = siot_mpi_status_bytes(siot_sp_%s);\n", iost->name);
    else if (base == SIOT_CLASS_recv && st && !(f->cls & SIOT_CLS_NB))
        o("    if (ret == MPI_SUCCESS) ev->bytes = siot_mpi_status_bytes(siot_sp_%s);\n", st->name);
    else if (count && dt)
        o("    if (ret == MPI_SUCCESS) ev->bytes = siot_mpi_bytes(%s, %s);\n", count->name, dt->name);
    else if (dt) /* one element (MPI_Fetch_and_op, MPI_Compare_and_swap) */
        o("    if (ret == MPI_SUCCESS) ev->bytes = siot_mpi_bytes(1, %s);\n", dt->name);
    if (peer)
        o("    }\n");
}

static void emit_bytes(const func *f)
{
    if (is_mpi_layer(f->layer)) {
        emit_mpi_bytes(f);
        return;
    }
    if (f->bytes[0]) {
        o("    if (%s) ev->bytes = (int64_t)(%s);\n", success_expr(f), f->bytes);
        return;
    }
    if (f->consumed) {
        o("    ev->bytes = siot_stream_moved(siot_pos0, %s);\n", stream_of(f));
        return;
    }
    switch (f->retrole) {
    case SIOT_ROLE_r_bytes:
        o("    ev->bytes = ret > 0 ? (int64_t)ret : 0;\n");
        break;
    case SIOT_ROLE_r_items: {
        const param *size = find_role(f, SIOT_ROLE_size);
        if (!size)
            die(f->file, f->line, "ret:items needs a size parameter");
        o("    ev->bytes = (int64_t)(ret * %s);\n", size->name);
        break;
    }
    case SIOT_ROLE_r_line:
        o("    ev->bytes = ret ? (int64_t)strlen(ret) : 0;\n");
        break;
    }
}

static void emit_ret_value(const func *f)
{
    switch (f->retrole) {
    case SIOT_ROLE_r_newfd:
        if (find_role(f, SIOT_ROLE_fdnew))
            o("    ev->ret = ret >= 0 ? siot_nid : (int64_t)ret;\n");
        else
            o("    ev->ret = ret >= 0 ? siot_fd_new(ret) : (int64_t)ret;\n");
        break;
    case SIOT_ROLE_r_newstream:
        o("    ev->ret = ret ? siot_h_new(SIOT_H_STREAM, (uintptr_t)ret) : -1;\n");
        break;
    case SIOT_ROLE_r_newdir:
        /* the DIR* and its descriptor share an id (src/handles.h siot_dir_new) */
        o("    ev->ret = ret ? siot_dir_new(ret, %d) : -1;\n", find_role(f, SIOT_ROLE_fd) != NULL);
        break;
    case SIOT_ROLE_r_ptr:
        o("    ev->ret = siot_ptr_ok((const void *)ret);\n");
        break;
    case SIOT_ROLE_r_line:
        o("    ev->ret = ret != NULL;\n");
        break;
    case SIOT_ROLE_r_void:
        break;
    case SIOT_ROLE_r_wchar:
        o("    ev->ret = ret == WEOF ? -1 : (int64_t)ret;\n");
        break;
    case SIOT_ROLE_r_wline:
        o("    ev->ret = ret ? (int64_t)wcslen(ret) : 0;\n");
        break;
    case SIOT_ROLE_r_newhid:
        o("    ev->ret = ret >= 0 ? siot_h5_new(ret) : -1;\n");
        break;
    default:
        if (find_role(f, SIOT_ROLE_fcntlarg))
            o("    ev->ret = siot_fcntl_ret(cmd, ret);\n");
        else if (is_mpi_ret(f))
            o("    ev->ret = siot_mpi_err_class(ret);\n");
        else
            o("    ev->ret = (int64_t)ret;\n");
    }
}

/* A directory read (readdir): NULL is the end unless the call set errno. */
static int is_end_by_errno(const func *f)
{
    return f->layer == SIOT_LAYER_posix && SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_dir && f->retrole == SIOT_ROLE_r_ptr;
}

/* errno, POSIX and stdio calls: when the call failed by its own definition. */
static void emit_errno(const func *f)
{
    if (is_end_by_errno(f)) {
        o("    ev->err = !ret ? siot_eset : 0;\n");
        return;
    }
    /* A stream's read or write that returns EOF or NULL failed only when it
     * set the stream's error flag: at the end of the file (fgets, fgetc,
     * getline, fscanf) errno is whatever the program left there. */
    const param *st = find_role(f, SIOT_ROLE_stream);
    unsigned base = SIOT_CLASS_BASE(f->cls);
    if (f->layer == SIOT_LAYER_stdio && st && (base == SIOT_CLASS_read || base == SIOT_CLASS_write)) {
        if (f->retrole == SIOT_ROLE_r_line || f->retrole == SIOT_ROLE_r_wline) {
            o("    ev->err = (!ret && ferror(%s)) ? siot_e : 0;\n", st->name);
            return;
        }
        if (f->retrole == SIOT_ROLE_r_wchar) {
            o("    ev->err = (ret == WEOF && ferror(%s)) ? siot_e : 0;\n", st->name);
            return;
        }
        if (f->retrole == SIOT_ROLE_r_int || f->retrole == SIOT_ROLE_r_bytes) {
            o("    ev->err = (ret < 0 && ferror(%s)) ? siot_e : 0;\n", st->name);
            return;
        }
    }
    switch (f->retrole) {
    case SIOT_ROLE_r_ptr:
        o("    ev->err = siot_ptr_ok((const void *)ret) ? 0 : siot_e;\n");
        break;
    case SIOT_ROLE_r_newstream:
    case SIOT_ROLE_r_newdir:
    case SIOT_ROLE_r_line:
    case SIOT_ROLE_r_wline:
        o("    ev->err = ret ? 0 : siot_e;\n");
        break;
    case SIOT_ROLE_r_wchar:
        o("    ev->err = ret == WEOF ? siot_e : 0;\n");
        break;
    case SIOT_ROLE_r_items: {
        const param *count = find_role(f, SIOT_ROLE_count), *st = find_role(f, SIOT_ROLE_stream);
        if (!count || !st)
            die(f->file, f->line, "ret:items needs count and stream parameters");
        o("    ev->err = (ret < %s && ferror(%s)) ? siot_e : 0;\n", count->name, st->name);
        break;
    }
    case SIOT_ROLE_r_void:
        o("    ev->err = 0;\n");
        break;
    default:
        o("    ev->err = ret < 0 ? siot_e : 0;\n");
    }
}

static void emit_ret(const func *f)
{
    emit_ret_value(f);
    if (f->layer == SIOT_LAYER_posix || f->layer == SIOT_LAYER_stdio)
        emit_errno(f);
}

/* True when the event is filled from the call's own values only (every
 * recorded parameter's role says so, and the result is not a new handle):
 * the wrapper then records it without the recorder lock (docs/hotpath.md). */
static int fill_is_own(const func *f)
{
    if (f->layer != SIOT_LAYER_posix && f->layer != SIOT_LAYER_stdio)
        return 0;
    switch (f->retrole) {
    case SIOT_ROLE_r_newfd:
    case SIOT_ROLE_r_newstream:
    case SIOT_ROLE_r_newdir:
    case SIOT_ROLE_r_newhid:
        return 0;
    default:
        break;
    }
    for (int i = 0; i < f->np; i++)
        if (f->p[i].rec >= 0 && !role_own(f->p[i].role))
            return 0;
    return 1;
}

/* Calls on descriptors: recorded when one of them is traced (copy_file_range
 * and sendfile have two); dup2 onto a traced descriptor changes what it
 * refers to, whatever the source. Returns 0 when the call has none. */
static int fd_filter(const func *f, char *buf, size_t n)
{
    char e[512];
    size_t len = 0;
    for (int i = 0; i < f->np && len < sizeof e; i++)
        if (f->p[i].role == SIOT_ROLE_fd || f->p[i].role == SIOT_ROLE_fdnew)
            len += (size_t)snprintf(e + len, sizeof e - len, "%ssiot_fd_traced(%s)", len ? " || " : "(", f->p[i].name);
    if (!len)
        return 0;
    snprintf(buf, n, "%.*s)", (int)len, e);
    return 1;
}

/* The filter deciding, before the call, whether it is recorded at all. */
static void filter_expr(const func *f, char *buf, size_t n)
{
    snprintf(buf, n, "1");
    if (f->layer == SIOT_LAYER_hdf5 || f->layer == SIOT_LAYER_pnetcdf) {
        snprintf(buf, n, "!siot_inside_layer(SIOT_LAYER_%s)", siot_layer_name((unsigned)f->layer));
        return;
    }
    if (f->cond_none)
        return;
    const param *path = find_role(f, SIOT_ROLE_path);
    /* a call on a path alone, or one that opens a stream on a path (freopen:
     * the stream it reuses may not have been traced) */
    int on_path = !find_role(f, SIOT_ROLE_fd) && !find_role(f, SIOT_ROLE_stream) && !find_role(f, SIOT_ROLE_dir);
    if (path && (on_path || f->retrole == SIOT_ROLE_r_newstream)) {
        snprintf(buf, n, "!siot_path_private(%s)", path->name);
        return;
    }
    if (f->stdstream[0]) {
        snprintf(buf, n, "siot_stream_traced(%s)", f->stdstream);
        return;
    }
    if (fd_filter(f, buf, n))
        return;
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (p->role == SIOT_ROLE_stream) {
            snprintf(buf, n, "siot_stream_traced(%s)", p->name);
            return;
        }
        if (p->role == SIOT_ROLE_dir) {
            snprintf(buf, n, "siot_dir_traced(%s)", p->name);
            return;
        }
        if (p->role == SIOT_ROLE_fdrange) {
            /* close_range, closefrom: one of the range's descriptors is traced */
            snprintf(buf, n, "siot_fd_range_traced((int64_t)%s, %s%s)", p->name, p->arg[0] ? "(int64_t)" : "",
                     p->arg[0] ? p->arg : "INT64_MAX");
            return;
        }
        if (p->role == SIOT_ROLE_aiocb) {
            snprintf(buf, n, "SIOT_AIOCB_TRACED(%s)", p->name);
            return;
        }
        if (p->role == SIOT_ROLE_aiolist) {
            char L[256];
            len_expr(f, p, L, sizeof L);
            snprintf(buf, n, "SIOT_AIOLIST_TRACED(%s, %s)", p->name, L);
            return;
        }
    }
}

static void emit_variadic_prologue(const func *f)
{
    if (!has_variadic(f))
        return;
    const param *v = &f->p[f->np - 1];
    const param *last = &f->p[f->np - 2];
    if (v->role == SIOT_ROLE_omode) {
        const param *fl = find_role(f, SIOT_ROLE_oflags);
        if (!fl)
            die(f->file, f->line, "omode needs an oflags parameter");
        o("    %s %s = 0;\n", v->type, v->name);
        /* O_TMPFILE holds O_DIRECTORY's bit: an open of a directory passes no mode */
        o("    if ((%s & O_CREAT) || (%s & O_TMPFILE) == O_TMPFILE) {\n        va_list ap;\n        va_start(ap, %s);\n",
          fl->name, fl->name, last->name);
        o("        %s = (%s)va_arg(ap, int);\n        va_end(ap);\n    }\n", v->name, v->type);
    } else if (v->role == SIOT_ROLE_vargs) {
        /* printf-like: the arguments go on to the v-version as a va_list */
        o("    va_list %s;\n    va_start(%s, %s);\n", v->name, v->name, last->name);
    } else if (v->role == SIOT_ROLE_arglist) {
        /* the list after its first element (declared non-null, as glibc
         * reads it) up to its NULL, then execle's environment */
        o("    va_list ap;\n    va_start(ap, %s);\n    size_t siot_n = 1;\n    va_list cp;\n    va_copy(cp, ap);\n"
          "    while (va_arg(cp, char *))\n        siot_n++;\n    va_end(cp);\n", last->name);
        o("    char *siot_av[siot_n + 1];\n    siot_av[0] = (char *)%s;\n"
          "    for (size_t i = 1; i <= siot_n; i++)\n        siot_av[i] = va_arg(ap, char *);\n", last->name);
        if (v->arg[0])
            o("    char *const *%s = va_arg(ap, char *const *);\n", v->arg);
        o("    va_end(ap);\n    char *const *%s = siot_av;\n", v->name);
    } else if (v->role == SIOT_ROLE_fcntlarg) {
        o("    %s %s;\n    va_list ap;\n    va_start(ap, %s);\n    %s = va_arg(ap, %s);\n    va_end(ap);\n", v->type,
          v->name, last->name, v->name, v->type);
    } else {
        die(f->file, f->line, "variadic parameter needs role omode, fcntlarg, vargs or arglist");
    }
}

/* The recorded fields of a call whose real call returned (ret, siot_e set);
 * a Fortran entry leaves its command line to the C one. */
static void emit_fill(const func *f, int fortran)
{
    for (int i = 0; i < f->np; i++)
        if (f->p[i].rec >= 0 && !(fortran && f->p[i].role == SIOT_ROLE_cmdline))
            emit_record_param(f, &f->p[i]);
    emit_ret(f);
    emit_bytes(f);
}

/* After the real call (ret and siot_e set): the job-wide handle id, MPI_Init's
 * session start, and the event's fields. init_ret: what an MPI_Init wrapper
 * returns when its start was not recorded ("ret"; "" for a Fortran one). */
void emit_record_event(const func *f, const char *init_ret, int fortran)
{
    const param *agree = agreed_handle(f);
    if (agree)
        o("    int32_t siot_agreed = siot_mpi_agree(%s, %s, %s);\n",
          agree->role == SIOT_ROLE_newfile  ? "SIOT_H_FILE"
          : agree->role == SIOT_ROLE_newwin ? "SIOT_H_WIN"
                                            : "SIOT_H_COMM",
          find_role(f, SIOT_ROLE_comm)->name,
          success_expr(f));
    if (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_init)
        o("    siot_mpi_init_post();\n    if (slot < 0) {\n        errno = siot_e;\n        return%s%s;\n    }\n",
          init_ret[0] ? " " : "", init_ret);
    o("    siot_raw *ev = %s(slot);\n", fill_is_own(f) ? "siot_end" : "siot_end_shared");
    emit_fill(f, fortran);
}

/* A call recorded before it is made (it ends the session or the process):
 * the event, whose result is 0; before_end: the Fortran conversions. */
void emit_record_before(const func *f, const char *rettype, void (*before_end)(const func *))
{
    o("    int slot = siot_recording(SIOT_LAYER_%s) ? siot_begin(SIOT_FN_%s) : -1;\n",
      siot_layer_name((unsigned)f->layer), f->name);
    o("    if (slot >= 0) {\n        %s ret = 0;\n        (void)ret;\n", rettype);
    if (before_end)
        before_end(f);
    o("        siot_raw *ev = %s(slot);\n", fill_is_own(f) ? "siot_end" : "siot_end_shared");
    for (int i = 0; i < f->np; i++)
        if (f->p[i].rec >= 0)
            emit_record_param(f, &f->p[i]);
    o("        ev->ret = 0;\n        siot_finish(slot);\n    }\n");
}

/* Calls that end the session or the process (MPI_Finalize, MPI_Abort,
 * _exit) are recorded before the call, then the session ends. */
static void emit_ending_wrapper(const func *f, const char *real)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    int isvoid = f->retrole == SIOT_ROLE_r_void;
    emit_record_before(f, isvoid ? "int" : f->rettype, NULL);
    if (base == SIOT_CLASS_finalize)
        o("    siot_mpi_finalize_hook();\n");
    else if (base == SIOT_CLASS_abort)
        o("    siot_mpi_abort_hook(%s);\n", f->np ? f->p[f->np - 1].name : "-1");
    else
        o("    siot_exit_hook(%s);\n", f->np ? f->p[0].name : "0");
    o("    %s%s(", isvoid ? "" : "return ", real);
    emit_args(f, 0);
    o(");\n}\n");
}

/* exec*: the process image is replaced: the trace is written first; exec
 * returns only when it failed, and the session has ended then. */
static void emit_exec_wrapper(const func *f, const char *real)
{
    const param *path = find_role(f, SIOT_ROLE_path);
    emit_record_before(f, "int", NULL);
    o("    siot_exec_hook(\"%s\", %s);\n", f->name, path ? path->name : "NULL");
    o("    %s ret = %s(", f->rettype, real);
    emit_args(f, 0);
    o(");\n    siot_exec_failed(\"%s\");\n    return ret;\n}\n", f->name);
}

/* Not recording: straight to the real function (the fast path). */
static void emit_fast_path(const func *f, const char *real)
{
    int isvoid = f->retrole == SIOT_ROLE_r_void;
    if (agreed_handle(f)) {
        /* not recording here: this rank still takes part in the ranks'
         * agreement on the new handle's id, which the others may make */
        o("    if (SIOT_LIKELY(slot < 0)) {\n        %s ret = %s(", f->rettype, real);
        emit_args(f, 0);
        o(");\n        siot_mpi_agree_absent(%s);\n        return ret;\n    }\n", find_role(f, SIOT_ROLE_comm)->name);
    } else {
        o("    if (SIOT_LIKELY(slot < 0)) {\n        %s%s(", isvoid ? "" : "return ", real);
        emit_args(f, 0);
        o(");%s\n    }\n", isvoid ? "\n        return;" : "");
    }
}

/* The real call, with what goes before it (emit_pre) and errno after it;
 * stamps: the raw clock read right around it (a leaf call). */
static void emit_real_call(const func *f, const char *real, int stamps)
{
    emit_pre(f);
    /* readdir returns NULL at the end and on an error alike, and tells them
     * apart only by setting errno: it is cleared for the call, and the
     * program's value comes back when the call set none */
    int end_by_errno = is_end_by_errno(f);
    if (end_by_errno)
        o("    int siot_e0 = errno;\n    errno = 0;\n");
    if (stamps)
        o("    uint64_t siot_s0 = siot_stamp();\n");
    if (f->retrole == SIOT_ROLE_r_void)
        o("    %s(", real);
    else
        o("    %s ret = %s(", f->rettype, real);
    emit_args(f, 1);
    o(");\n%s    int siot_e = errno;\n", stamps ? "    uint64_t siot_s1 = siot_stamp();\n" : "");
    if (end_by_errno)
        o("    int siot_eset = siot_e;\n    if (!siot_e)\n        siot_e = siot_e0;\n");
}

/* True when the wrapper body fill (a leaf's filling, as text) sets a field
 * on every path: a statement of the body itself (4 spaces in, after a
 * complete statement: not under a braceless if) that begins with stmt, and
 * no return or goto in the filling. */
static int sets_always(const char *fill, const char *stmt)
{
    if (strstr(fill, "return") || strstr(fill, "goto"))
        return 0;
    size_t n = strlen(stmt);
    char prev_end = ';'; /* the last character of the line before */
    for (const char *l = fill; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if ((prev_end == ';' || prev_end == '}') && len >= n && strncmp(l, stmt, n) == 0)
            return 1;
        if (len)
            prev_end = l[len - 1];
        l += len + (nl != NULL);
    }
    return 0;
}

/* A leaf's filling, with the slot's fields cleared first that it may leave
 * unset (runtime.h siot_leaf_slot): an argument is set by siot_put_int,
 * siot_put_str and siot_put_strn whatever its value; any other way (an
 * array, a record that may be left out) is cleared first. */
static void emit_leaf_fill(const func *f)
{
    char *fill = NULL;
    size_t size = 0;
    FILE *saved = out;
    out = open_memstream(&fill, &size);
    if (!out)
        die(f->file, f->line, "no memory for the filling");
    emit_fill(f, 0);
    fclose(out);
    out = saved;
    char stmt[64];
    for (int k = 0; k < f->nrec; k++) {
        static const char *const always[] = {"siot_put_int", "siot_put_str", "siot_put_strn"};
        int set = 0;
        for (unsigned i = 0; i < sizeof always / sizeof *always && !set; i++) {
            snprintf(stmt, sizeof stmt, "    %s(ev, %d, ", always[i], k);
            set = sets_always(fill, stmt);
        }
        if (!set)
            o("    ev->args[%d].kind = SIOT_RV_NONE;\n", k);
    }
    static const char *const fields[] = {"ret", "err", "bytes"};
    for (unsigned i = 0; i < 3; i++) {
        snprintf(stmt, sizeof stmt, "    ev->%s = ", fields[i]);
        if (!sets_always(fill, stmt))
            o("    ev->%s = 0;\n", fields[i]);
    }
    o("%s", fill);
    free(fill);
}

/* A leaf call (fill_is_own: its event takes nothing from the shared
 * tables, and it makes no traced call): the clock read in the wrapper
 * right around the real call, then the next staging slot taken inline and
 * filled, and one call to stage the event and hand it on (runtime.h). */
static void emit_leaf_body(const func *f, const char *real, const char *filt)
{
    int isvoid = f->retrole == SIOT_ROLE_r_void;
    o("    if (SIOT_LIKELY(!(siot_recording(SIOT_LAYER_%s) && %s))) {\n        %s%s(",
      siot_layer_name((unsigned)f->layer), filt, isvoid ? "" : "return ", real);
    emit_args(f, 0);
    o(");%s\n    }\n", isvoid ? "\n        return;" : "");
    emit_real_call(f, real, 1);
    o("    siot_raw *ev = siot_leaf_slot(%d);\n", f->nrec);
    o("    if (!ev) {\n        errno = siot_e;\n        return%s;\n    }\n", isvoid ? "" : " ret");
    emit_leaf_fill(f);
    o("    siot_leaf_end(ev, SIOT_FN_%s, siot_s0, siot_s1);\n    errno = siot_e;\n", f->name);
    if (!isvoid)
        o("    return ret;\n");
    o("}\n");
}

/* The body every entry shares: decide, call, record. real: the expression
 * that calls the real function. Opened by the caller, closed here. */
static void emit_body(const func *f, const char *real)
{
    int isvoid = f->retrole == SIOT_ROLE_r_void;
    unsigned base = SIOT_CLASS_BASE(f->cls);
    const char *layer = siot_layer_name((unsigned)f->layer);
    if (base == SIOT_CLASS_finalize || base == SIOT_CLASS_abort || base == SIOT_CLASS_exit) {
        emit_ending_wrapper(f, real);
        return;
    }
    if (base == SIOT_CLASS_exec) {
        emit_exec_wrapper(f, real);
        return;
    }
    char filt[640];
    filter_expr(f, filt, sizeof filt);
    if (base != SIOT_CLASS_init && fill_is_own(f)) {
        emit_leaf_body(f, real, filt);
        return;
    }
    if (base == SIOT_CLASS_init) {
        o("    int slot = siot_recording(SIOT_LAYER_%s) ? siot_begin(SIOT_FN_%s) : -1;\n", layer, f->name);
        o("    siot_mpi_init_pre();\n");
    } else {
        o("    int slot = -1;\n");
        o("    if (siot_recording(SIOT_LAYER_%s) && %s)\n        slot = siot_begin(SIOT_FN_%s);\n", layer, filt, f->name);
        emit_fast_path(f, real);
    }
    emit_real_call(f, real, 0);
    emit_record_event(f, "ret", 0);
    o("    siot_finish(slot);\n    errno = siot_e;\n");
    if (!isvoid)
        o("    return ret;\n");
    o("}\n");
}

/* PMPI layers: one entry, MPI_NAME, calling PMPI_NAME. */
static void emit_pmpi_wrapper(const func *f)
{
    char real[128];
    real_name(f, real, sizeof real);
    o("\n/* %s:%d */\n", f->file, f->line);
    emit_removed_decl(f, "");
    emit_removed_decl(f, "P");
    if (f->real[0]) {
        o("%s %s(", f->rettype, real);
        emit_params(f);
        o(");\n");
    }
    o("SIOT_TEXT %s %s(", f->rettype, f->name);
    emit_params(f);
    o(")\n{\n");
    emit_body(f, real);
}

/* A PMPI_ name the program calls itself (option wrap: PMPI_Init,
 * PMPI_Finalize), which the MPI library defines: linked into the program,
 * the entry is __wrap_NAME, which the linker's --wrap gives the program's
 * objects (and the archive's own, as MPI_Init's wrapper calling PMPI_Init),
 * calling __real_NAME, MPI's; in the preload library (SIOT_PRELOAD) it is
 * NAME itself, calling the next definition (src/interpose.h). Neither is
 * exported from a linked program: a shared MPI library's own calls of the
 * name stay its own, and a static one's NAME is the real function. */
static void emit_pmpi_wrap_wrapper(const func *f)
{
    o("\n/* %s:%d */\n#ifdef SIOT_PRELOAD\nstatic %s (*siot_real_%s)(", f->file, f->line, f->rettype, f->name);
    emit_params(f);
    o(");\n#define siot_call_%s SIOT_REAL_FN(siot_real_%s, \"%s\")\nSIOT_INTERPOSER %s %s(", f->name, f->name, f->name,
      f->rettype, f->name);
    emit_params(f);
    o(")\n#else\n%s __real_%s(", f->rettype, f->name);
    emit_params(f);
    o(");\n#define siot_call_%s __real_%s\nSIOT_TEXT %s __wrap_%s(", f->name, f->name, f->rettype, f->name);
    emit_params(f);
    o(")\n#endif\n{\n");
    char real[128];
    snprintf(real, sizeof real, "siot_call_%s", f->name);
    emit_body(f, real);
}

/* The parameters of the shared body: the variadic one as a plain parameter. */
static void emit_body_params(const func *f)
{
    if (f->np == 0)
        o("void");
    for (int i = 0; i < f->np; i++)
        o("%s%s", i ? ", " : "", f->p[i].decl);
    if (arglist_of(f) && arglist_of(f)->arg[0])
        o(", char *const %s[]", arglist_of(f)->arg);
}

/* The real function's parameters: the array form of an arglist call. */
static void emit_real_params(const func *f)
{
    const param *al = arglist_of(f);
    if (!al) {
        if (is_printf_like(f))
            emit_body_params(f);
        else
            emit_params(f);
        return;
    }
    for (int i = 0; i < f->np - 2; i++)
        o("%s, ", f->p[i].decl);
    o("%s", al->decl);
    if (al->arg[0])
        o(", char *const %s[]", al->arg);
}

/* The arguments an entry passes on: the variadic one read by its prologue. */
static void emit_entry_args(const func *f)
{
    for (int i = 0; i < f->np; i++)
        o("%s%s", i ? ", " : "", f->p[i].name);
    if (arglist_of(f) && arglist_of(f)->arg[0])
        o(", %s", arglist_of(f)->arg);
}

/* The real function: __real_NAME of a static library, else a pointer found
 * at the first call (src/interpose.h). A printf-like call's is its v-version. */
static void emit_real(const func *f)
{
    const char *rname = f->real[0] ? f->real : f->name;
    o("#ifdef SIOT_STATIC_LIBRARY\n%s __real_%s(", f->rettype, rname);
    emit_real_params(f);
    o(");\n#define siot_call_%s __real_%s\n#else\nstatic %s (*siot_real_%s)(", f->name, rname, f->rettype, f->name);
    emit_real_params(f);
    o(");\n#define siot_call_%s SIOT_REAL_FN(siot_real_%s, \"%s\")\n#endif\n", f->name, f->name, rname);
}

/* An aio call: a start (aio_read, aio_write, aio_fsync, lio_listio) or a
 * completion (aio_error, aio_return, aio_suspend, aio_cancel). */
static int is_aio_call(const func *f) { return find_role(f, SIOT_ROLE_aiocb) || find_role(f, SIOT_ROLE_aiolist); }

static int is_aio_completion(const func *f)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    return is_aio_call(f) && (base == SIOT_CLASS_wait || base == SIOT_CLASS_test || base == SIOT_CLASS_cancel);
}

/* Whether an exported entry records the call of the module that made it
 * (src/interpose.h): the first predicate whose functions include f, else
 * siot_interposed_records. An aio call is recorded from the MPI library
 * outside an I/O call too: OMPIO completes the requests that
 * MPI_File_iwrite started inside MPI_Wait or MPI_Test, and starts there the
 * later pieces of a non-contiguous request (MPICH's test i_noncontig). The
 * wrappers' filter keeps requests on traced descriptors only. The other
 * functions keep the plain test. */
static const struct {
    int (*applies)(const func *f);
    const char *predicate;
} ADMISSIONS[] = {
    {is_aio_call, "siot_interposed_aio_records"},
};

static const char *admission_of(const func *f)
{
    for (size_t i = 0; i < sizeof ADMISSIONS / sizeof ADMISSIONS[0]; i++)
        if (ADMISSIONS[i].applies(f))
            return ADMISSIONS[i].predicate;
    return "siot_interposed_records";
}

/* An aio poll (aio_error): asked again and again by OMPIO's progress inside
 * MPI_Wait until the request is done. The answers EINPROGRESS are timing,
 * not the program's I/O, and how many there are differs from run to run;
 * the exported entry asks first (aio_error only reads the request's state,
 * so asking twice changes nothing) and records only an answer that is not
 * EINPROGRESS. ROMIO, linked into the program on MPICH, reaches the --wrap
 * entry, which cannot tell its caller by module: a poll there inside a
 * traced MPI call that is not an I/O call (MPI_Wait, MPI_Test) is ROMIO's,
 * and is filtered the same way. A program's own polls are recorded as they
 * are. */
static int is_aio_poll(const func *f)
{
    return is_aio_completion(f) && SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_test && f->retrole == SIOT_ROLE_r_int;
}

/* The filter in either entry: the exported one tells the library's poll by
 * its caller's module and follows its admission test (else if); the --wrap
 * one by the traced MPI call it is inside, and comes first. */
static void emit_poll_filter(const func *f, int exported)
{
    if (!is_aio_poll(f))
        return;
    o("    %s(%s && (ret = siot_call_%s(", exported ? "else if " : "if ",
      exported ? "siot_library_poll(__builtin_return_address(0))" : "siot_wrapped_library_poll()", f->name);
    emit_entry_args(f);
    o(")) == EINPROGRESS)\n        ; /* %s: not recorded */\n%s",
      exported ? "the MPI library's poll outside an I/O call" : "ROMIO's poll inside MPI_Wait or MPI_Test",
      exported ? "" : "    else\n    ");
}

/* One entry (__wrap_NAME or the exported NAME): the variadic part read,
 * then the shared body, or the real function for a call made from where
 * nothing is recorded. */
static void emit_entry(const func *f, int exported)
{
    int isvoid = f->retrole == SIOT_ROLE_r_void, pf = is_printf_like(f);
    if (exported && (find_role(f, SIOT_ROLE_vargs) || find_role(f, SIOT_ROLE_vlist))) {
        /* <stdio.h> may give a formatted call another symbol (fscanf is
         * __isoc99_fscanf in C99): this entry is named by its symbol */
        o("#ifndef SIOT_STATIC_LIBRARY\nSIOT_INTERPOSER %s siot_export_%s(", f->rettype, f->name);
        emit_params(f);
        o(") __asm__(\"%s\");\nSIOT_INTERPOSER %s siot_export_%s(", f->name, f->rettype, f->name);
    } else if (exported)
        o("#ifndef SIOT_STATIC_LIBRARY\nSIOT_INTERPOSER %s %s(", f->rettype, f->name);
    else
        o("SIOT_TEXT %s __wrap_%s(", f->rettype, f->name);
    emit_params(f);
    o(")\n{\n");
    emit_variadic_prologue(f);
    if (!isvoid)
        o("    %s ret;\n", f->rettype);
    if (exported) {
        o("    if (SIOT_UNLIKELY(!%s(SIOT_LAYER_%s, __builtin_return_address(0))))\n        %ssiot_call_%s(",
          admission_of(f), siot_layer_name((unsigned)f->layer), isvoid ? "" : "ret = ", f->name);
        if (arglist_of(f))
            emit_args(f, 0);
        else
            emit_entry_args(f);
        o(");\n");
        emit_poll_filter(f, 1);
        o("    else\n    ");
    } else {
        emit_poll_filter(f, 0);
    }
    o("    %ssiot_do_%s(", isvoid ? "" : "ret = ", f->name);
    emit_entry_args(f);
    o(");\n");
    if (pf)
        o("    va_end(%s);\n", f->p[f->np - 1].name);
    if (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_exit)
        o("    __builtin_unreachable(); /* the real _exit does not return */\n");
    else if (!isvoid)
        o("    return ret;\n");
    o("}\n%s", exported ? "#endif\n" : "");
}

/* --wrap layers: the shared body and its two entries (src/interpose.h). */
static void emit_wrap_wrapper(const func *f)
{
    char real[128];
    snprintf(real, sizeof real, "siot_call_%s", f->name);
    o("\n/* %s:%d */\n", f->file, f->line);
    emit_real(f);
    o("SIOT_INLINE %s siot_do_%s(", f->rettype, f->name);
    emit_body_params(f);
    o(")\n{\n");
    emit_body(f, real);
    emit_entry(f, 0);
    emit_entry(f, 1);
}

static void emit_wrapper(const func *f)
{
    emit_cond_begin(f);
    if (is_wrap_layer(f->layer))
        emit_wrap_wrapper(f);
    else if (f->wrap)
        emit_pmpi_wrap_wrapper(f);
    else
        emit_pmpi_wrapper(f);
    emit_cond_end(f);
}

/* The layer's linker options file <what>-<layer>.syms: the option and a
 * function's name a line, for every function of the layer or, for a PMPI
 * layer's --wrap lines, those with option wrap (wrapped_only). */
static void emit_syms(const char *dir, int layer, const char *what, const char *option, int wrapped_only)
{
    char name[256];
    snprintf(name, sizeof name, "%s-%s.syms", what, siot_layer_name((unsigned)layer));
    out = open_out(dir, name);
    for (int i = 0; i < NF; i++)
        if (F[i].layer == layer && (!wrapped_only || F[i].wrap))
            o("%s%s\n", option, F[i].name);
    fclose(out);
}

void emit_layer_file(const char *dir, int layer)
{
    char name[256];
    int wrap = is_wrap_layer(layer);
    snprintf(name, sizeof name, "%s_%s.c", wrap ? "wrap" : "pmpi", siot_layer_name((unsigned)layer));
    out = open_out(dir, name);
    o("/* Generated by siot-gen (tools/gen) from the spec files. Do not edit. */\n");
    o("#define _LARGEFILE64_SOURCE\n");
    if (layer == SIOT_LAYER_stdio)
        /* glibc's optimising <bits/stdio.h> makes getc_unlocked, vprintf...
         * inline functions and fread_unlocked a macro: this file defines them */
        o("#define _BITS_STDIO_H 1\n");
    o("#include <errno.h>\n#include <fcntl.h>\n#include <stdarg.h>\n#include <stdint.h>\n#include <string.h>\n");
    if (layer == SIOT_LAYER_posix || layer == SIOT_LAYER_stdio)
        o("#include \"wrap/posix_record.h\"\n");
    else if (layer == SIOT_LAYER_mpi || layer == SIOT_LAYER_mpiio)
        o("#include \"pmpi/mpi_record.h\"\n#include \"src/interpose.h\"\n");
    else
        o("#include \"wrap/%s_record.h\"\n", siot_layer_name((unsigned)layer));
    o("#include \"functab.h\"\n");
    for (int i = 0; i < NF; i++)
        if (F[i].layer == layer)
            emit_wrapper(&F[i]);
    fclose(out);

    emit_syms(dir, layer, "wrap", "--wrap=", !wrap);
    if (wrap) /* the exported entries, for shared libraries and plug-ins */
        emit_syms(dir, layer, "export", "--export-dynamic-symbol=", 0);
}
