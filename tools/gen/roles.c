/* roles: the table of parameter roles. Each entry says, for one role, how
 * the generated code records it, replays it, converts it from Fortran, and
 * how docs/spec-format.md describes it. Most entries are templates of C
 * text; a role whose code depends on the rest of the function has a hook
 * function beside the table.
 *
 * Template placeholders: $n the parameter's name, $k its index among the
 * recorded arguments, $i its index among all parameters, $T its C type, $P
 * the type it points to, $a the role's argument (ROLE(ARG)), $L the array
 * length expression, $ok the call's success expression; for MPI handle roles
 * $H the C handle type, $h the handle's key (comm, file...), $E its handle
 * table (SIOT_H_COMM), $N its null handle, $F the prefix of its f2c
 * conversion (MPI_Comm), $K its kind for the replay (RP_K_COMM, replay/handles.h); $FI the Fortran integer
 * kind of an integer. */
#include <ctype.h>
#include <string.h>

#include "tools/gen/gen.h"

/* MPI handle kinds */
typedef struct hkind {
    const char *key, *ctype, *f2c, *null, *table, *rpkind; /* rpkind: replay/handles.h */
} hkind;
static const hkind HK_COMM = {"comm", "MPI_Comm", "MPI_Comm", "MPI_COMM_NULL", "SIOT_H_COMM", "RP_K_COMM"};
static const hkind HK_GROUP = {"group", "MPI_Group", "MPI_Group", "MPI_GROUP_NULL", "SIOT_H_GROUP", "RP_K_GROUP"};
static const hkind HK_DTYPE = {"dtype", "MPI_Datatype", "MPI_Type", "MPI_DATATYPE_NULL", "SIOT_H_DTYPE", "RP_K_DTYPE"};
static const hkind HK_OP = {"op", "MPI_Op", "MPI_Op", "MPI_OP_NULL", "SIOT_H_OP", "RP_K_OP"};
static const hkind HK_FILE = {"file", "MPI_File", "MPI_File", "MPI_FILE_NULL", "SIOT_H_FILE", "RP_K_FILE"};
static const hkind HK_REQ = {"req", "MPI_Request", "MPI_Request", "MPI_REQUEST_NULL", "SIOT_H_REQ", "RP_K_REQ"};
static const hkind HK_WIN = {"win", "MPI_Win", "MPI_Win", "MPI_WIN_NULL", "SIOT_H_WIN", "RP_K_WIN"};
static const hkind HK_INFO = {"info", "MPI_Info", "MPI_Info", "MPI_INFO_NULL", NULL, NULL};

typedef void hook_fn(const func *f, const param *p);

enum {
    UNREC = 1,    /* not recorded */
    NOFORT = 2,   /* no Fortran wrapper can pass it */
    OWN = 4,      /* recorded from the call's own values into the thread's staging area: no shared
                     table is read or changed, so the wrapper need not take the recorder lock */
};

struct role_def {
    int role;
    unsigned flags;
    const hkind *h;
    const char *pre;       /* before the real call */
    const char *rec;       /* into the event */
    const char *rp;        /* replay: the argument, from the recorded value (or an unrecorded one) */
    const char *rp_post;   /* replay: after the call */
    const char *fpre;      /* Fortran: the C local, before the call */
    const char *fpost;     /* Fortran: after the call */
    hook_fn *pre_hook, *rec_hook, *rp_hook, *post_hook, *fpost_hook;
    const char *doc_type, *doc;
};

/* ------------------------------------------------------------------ templates */

/* The Fortran integer kind of an integer parameter. The removed MPI-1 calls
 * (MPI_TYPE_STRUCT, MPI_ADDRESS...) take plain INTEGER where their C
 * bindings take MPI_Aint: that is why they were replaced. */
static const char *fort_int_type(const func *f, const param *p)
{
    if (f->removed && strstr(p->type, "MPI_Aint"))
        return "MPI_Fint";
    if (strstr(p->type, "MPI_Offset"))
        return "MPI_Offset";
    if (strstr(p->type, "MPI_Aint"))
        return "MPI_Aint";
    if (strstr(p->type, "MPI_Count"))
        return "MPI_Count";
    return "MPI_Fint";
}

static int starts(const char *s, const char *w)
{
    size_t n = strlen(w);
    return strncmp(s, w, n) == 0 && !isalpha((unsigned char)s[n]);
}

/* Expands one placeholder at *t (after the '$') into out; returns its length. */
static size_t expand_one(const char *t, const func *f, const param *p, const hkind *h, char *out, size_t n)
{
    char L[256] = "", P[192] = "";
    if (starts(t, "ok")) {
        snprintf(out, n, "%s", success_expr(f));
        return 2;
    }
    if (starts(t, "FI")) {
        snprintf(out, n, "%s", fort_int_type(f, p));
        return 2;
    }
    switch (*t) {
    case 'n': snprintf(out, n, "%s", p->name); break;
    case 'k': snprintf(out, n, "%d", p->rec); break;
    case 'i': snprintf(out, n, "%d", (int)(p - f->p)); break;
    case 'T': snprintf(out, n, "%s", p->type); break;
    case 'a': snprintf(out, n, "%s", p->arg); break;
    case 'P': pointee(p, P, sizeof P); snprintf(out, n, "%s", P); break;
    case 'L': len_expr(f, p, L, sizeof L); snprintf(out, n, "%s", L); break;
    case 'H': snprintf(out, n, "%s", h->ctype); break;
    case 'h': snprintf(out, n, "%s", h->key); break;
    case 'K':
        if (!h->rpkind)
            die(f->file, f->line, "$K of a handle kind the replay does not track");
        snprintf(out, n, "%s", h->rpkind);
        break;
    case 'E': snprintf(out, n, "%s", h->table); break;
    case 'N': snprintf(out, n, "%s", h->null); break;
    case 'F': snprintf(out, n, "%s", h->f2c); break;
    default: die(f->file, f->line, "bad template placeholder $%c", *t);
    }
    return 1;
}

static void emit_tpl(const char *tpl, const func *f, const param *p, const hkind *h)
{
    char buf[8192];
    size_t o_ = 0;
    for (const char *t = tpl; *t && o_ + 1 < sizeof buf;) {
        if (*t != '$') {
            buf[o_++] = *t++;
            continue;
        }
        char v[1024];
        t += 1 + expand_one(t + 1, f, p, h, v, sizeof v);
        o_ += (size_t)snprintf(buf + o_, sizeof buf - o_, "%s", v);
    }
    buf[o_ < sizeof buf ? o_ : sizeof buf - 1] = 0;
    o("%s", buf);
}

/* ------------------------------------------------------------------ hooks */

/* A descriptor, FILE* or DIR* the call closes: its tracing ends and its id
 * is released before the real call (siot_fd_closing), because once the
 * kernel or libc frees it another thread may get the same number or
 * address, and its open must keep the id it is given. The event records
 * the id released (siot_cid_NAME). */
static const char *closed_table(const func *f, const param *p)
{
    int closes = SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_close || f->closes;
    if (!closes)
        return NULL;
    if (p->role == SIOT_ROLE_fd)
        return "fd";
    if (p->role == SIOT_ROLE_stream)
        return "SIOT_H_STREAM";
    if (p->role == SIOT_ROLE_dir)
        return "SIOT_H_DIR";
    return NULL;
}

static void closing_pre(const func *f, const param *p)
{
    if (f->layer == SIOT_LAYER_stdio && SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_close && p->role == SIOT_ROLE_stream)
        o("    siot_fd_closing(%s ? fileno(%s) : -1);\n", p->name, p->name);
    const char *closed = closed_table(f, p);
    if (closed && strcmp(closed, "fd") == 0)
        o("    int64_t siot_cid_%s = siot_fd_closing(%s);\n", p->name, p->name);
    else if (p->role == SIOT_ROLE_dir && closed) /* with the descriptor it shares its id with */
        o("    int64_t siot_cid_%s = siot_dir_closing(%s);\n", p->name, p->name);
    else if (closed)
        o("    int64_t siot_cid_%s = siot_h_closing(%s, %s);\n", p->name, closed, p->name);
}

static void status_pre(const func *f, const param *p)
{
    if (fortran_mode)
        return;
    o("    MPI_Status siot_st_%s;\n", p->name);
    o("    MPI_Status *siot_sp_%s = %s;\n", p->name, p->name);
    o("    if (%s == MPI_STATUS_IGNORE) {\n        siot_mpi_status_empty(&siot_st_%s);\n"
      "        siot_sp_%s = &siot_st_%s;\n    }\n", p->name, p->name, p->name, p->name);
}

static void reqarr_pre(const func *f, const param *p)
{
    char L[256];
    len_expr(f, p, L, sizeof L);
    o("    int64_t siot_n_%s = %s;\n", p->name, L);
    o("    uint32_t siot_o_%s = siot_%s_save_reqs(%s, siot_n_%s);\n", p->name,
      p->role == SIOT_ROLE_reqarr ? "mpi" : "nc", p->name, p->name);
}

static void closed_or_rec(const func *f, const param *p, const char *fn)
{
    if (closed_table(f, p))
        o("    siot_put_int(ev, %d, siot_cid_%s);\n", p->rec, p->name);
    else
        o("    siot_put_int(ev, %d, %s);\n", p->rec, fn);
}

static void fd_rec(const func *f, const param *p)
{
    char fn[300];
    snprintf(fn, sizeof fn, "siot_fd_id(%s)", p->name);
    closed_or_rec(f, p, fn);
}

static void stream_rec(const func *f, const param *p)
{
    char fn[300];
    snprintf(fn, sizeof fn, "siot_h_find(%s, (uintptr_t)%s)", p->role == SIOT_ROLE_stream ? "SIOT_H_STREAM" : "SIOT_H_DIR",
             p->name);
    closed_or_rec(f, p, fn);
}

static void fdnew_rec(const func *f, const param *p)
{
    /* dup2's target: the id of the traced file it now refers to, or the
     * one it lost when the source is not traced (the return value's) */
    const param *old = find_role(f, SIOT_ROLE_fd);
    o("    int64_t siot_nid = siot_fd_dup_to(siot_old_traced, %s, %s, ret >= 0);\n", old->name, p->name);
    o("    siot_put_int(ev, %d, siot_nid);\n", p->rec);
}

static void newcomm_rec(const func *f, const param *p)
{
    if (agreed_handle(f) == p)
        o("    siot_put_int(ev, %d, (%s && %s && *%s != MPI_COMM_NULL) ? siot_h_new_at(SIOT_H_COMM, "
          "siot_hkey_comm(*%s), siot_agreed) : -1);\n",
          p->rec, p->name, success_expr(f), p->name, p->name);
    else
        o("    siot_put_int(ev, %d, (%s && %s) ? siot_mpi_comm_new(*%s) : -1);\n", p->rec, p->name, success_expr(f),
          p->name);
}

static void newfile_rec(const func *f, const param *p)
{
    o("    siot_put_int(ev, %d, (%s && %s) ? siot_h_new_at(SIOT_H_FILE, siot_hkey_file(*%s), %s) : -1);\n", p->rec,
      p->name, success_expr(f), p->name, agreed_handle(f) == p ? "siot_agreed" : "-1");
}

static void newwin_rec(const func *f, const param *p)
{
    o("    siot_put_int(ev, %d, (%s && %s) ? siot_h_new_at(SIOT_H_WIN, siot_hkey_win(*%s), %s) : -1);\n", p->rec,
      p->name, success_expr(f), p->name, agreed_handle(f) == p ? "siot_agreed" : "-1");
}

/* MPI_Type_get_contents' datatypes: as many as the envelope of the type
 * it decodes (the call's datatype) counts, each one more reference to a
 * live type's id or a new one (siot_mpi_put_dtype_refs). */
static void outdtypearr_rec(const func *f, const param *p)
{
    const param *decoded = find_role(f, SIOT_ROLE_dtype);
    if (!decoded)
        die(f->file, f->line, "outdtypearr needs the decoded type: a dtype parameter");
    char L[256];
    len_expr(f, p, L, sizeof L);
    o("    siot_mpi_put_dtype_refs(ev, %d, %s, %s, %s, %s);\n", p->rec, decoded->name, p->name, L, success_expr(f));
}

/* The stand-in of the form the function takes (MPI_User_function_c: MPI-4 large counts). */
static void userfn_rp(const func *f, const param *p)
{
    (void)f;
    o("    %s %s = rp_user_op%s;\n", p->type, p->name, strstr(p->type, "_c") ? "_c" : "");
}

/* The request a completion's status is of: MPI_Wait's (its id, kept by the
 * waitreq recording), MPI_Waitany's entry index of the recorded ids; -1
 * for a call's own status (a receive or a probe). */
static void status_req(const func *f, char *out, size_t n)
{
    const param *w = find_role(f, SIOT_ROLE_waitreq), *arr = find_role(f, SIOT_ROLE_reqarr);
    const param *idx = find_role(f, SIOT_ROLE_outint);
    if (w)
        snprintf(out, n, "siot_id_%s", w->name);
    else if (arr && idx)
        snprintf(out, n, "(%s ? siot_mpi_req_at(ev, %d, *%s) : -1)", idx->name, arr->rec, idx->name);
    else
        snprintf(out, n, "-1");
}

static void status_rec(const func *f, const param *p)
{
    const param *flag = find_role(f, SIOT_ROLE_outflag);
    char req[1024];
    status_req(f, req, sizeof req);
    if (flag)
        o("    siot_mpi_put_status(ev, %d, siot_sp_%s, %s && %s && *%s, %s);\n", p->rec, p->name, success_expr(f),
          flag->name, flag->name, req);
    else
        o("    siot_mpi_put_status(ev, %d, siot_sp_%s, %s, %s);\n", p->rec, p->name, success_expr(f), req);
}

/* MPI_Waitall/Testall/Waitsome/Testsome: the program's statuses, or ours
 * on the stack when it passed MPI_STATUSES_IGNORE for at most
 * SIOT_MPI_STATUSES requests (more: none, and none recorded). */
static void statusarr_pre(const func *f, const param *p)
{
    const param *arr = find_role(f, SIOT_ROLE_reqarr);
    if (fortran_mode || !arr)
        return;
    o("    MPI_Status siot_sts_%s[SIOT_MPI_STATUSES];\n", p->name);
    o("    MPI_Status *siot_sp_%s = siot_mpi_statuses(%s, siot_sts_%s, siot_n_%s);\n", p->name, p->name, p->name,
      arr->name);
}

static void statusarr_rec(const func *f, const param *p)
{
    const param *arr = find_role(f, SIOT_ROLE_reqarr), *flag = find_role(f, SIOT_ROLE_outflag);
    const param *outcount = find_role(f, SIOT_ROLE_outint), *idx = find_role(f, SIOT_ROLE_outintarr);
    if (!arr) {
        o("    ev->args[%d].kind = SIOT_RV_NONE;\n", p->rec);
        return;
    }
    const char *sp = "siot_sp_";
    if (idx && outcount) /* MPI_Waitsome, MPI_Testsome: outcount statuses, of the requests at the indices */
        o("    siot_mpi_put_statuses(ev, %d, %s%s == MPI_STATUSES_IGNORE ? NULL : %s%s, %d, "
          "(%s && *%s != MPI_UNDEFINED) ? *%s : 0, %s, %s);\n",
          p->rec, sp, p->name, sp, p->name, arr->rec, outcount->name, outcount->name, outcount->name, idx->name,
          success_expr(f));
    else
        o("    siot_mpi_put_statuses(ev, %d, %s%s == MPI_STATUSES_IGNORE ? NULL : %s%s, %d, siot_n_%s, NULL, %s%s%s%s);\n",
          p->rec, sp, p->name, sp, p->name, arr->rec, arr->name, success_expr(f), flag ? " && *" : "",
          flag ? flag->name : "", "");
}

/* Fortran (Open MPI): the statuses the binding wrote, in C (NULL: none;
 * emit_fort.c supplies them for MPI_F_STATUSES_IGNORE as the C wrapper does). */
static void statusarr_fpost(const func *f, const param *p)
{
    const param *arr = find_role(f, SIOT_ROLE_reqarr);
    const param *outcount = find_role(f, SIOT_ROLE_outint), *idx = find_role(f, SIOT_ROLE_outintarr);
    if (!arr)
        return;
    o("    MPI_Status siot_sts_%s[SIOT_MPI_STATUSES];\n", p->name);
    if (idx && outcount)
        o("    MPI_Status *siot_sp_%s = siot_fstatuses(%s_fs, (%s && *%s != MPI_UNDEFINED) ? *%s : 0, siot_sts_%s, "
          "ret == MPI_SUCCESS);\n",
          p->name, p->name, outcount->name, outcount->name, outcount->name, p->name);
    else
        o("    MPI_Status *siot_sp_%s = siot_fstatuses(%s_fs, siot_n_%s, siot_sts_%s, ret == MPI_SUCCESS);\n", p->name,
          p->name, arr->name, p->name);
}

/* A new request: its id, and what its completion's status will define
 * (pmpi/mpi_record.h, SIOT_ST_*). */
static void newreq_rec(const func *f, const param *p)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    const char *shape = f->layer == SIOT_LAYER_mpiio ? "SIOT_ST_BYTES"
                        : base == SIOT_CLASS_recv || strcmp(f->name, "MPI_Grequest_start") == 0 ? "SIOT_ST_FULL"
                                                                                                 : "SIOT_ST_UNDEF";
    o("    siot_put_int(ev, %d, (%s && %s) ? siot_mpi_req_new(*%s, %s) : -1);\n", p->rec, p->name, success_expr(f),
      p->name, shape);
}

static void ncid_rec(const func *f, const param *p)
{
    if (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_close)
        o("    siot_put_int(ev, %d, siot_nc_close(%s, %s));\n", p->rec, p->name, success_expr(f));
    else
        o("    siot_put_int(ev, %d, siot_nc_id(%s));\n", p->rec, p->name);
}

static void fd_rp(const func *f, const param *p)
{
    if (find_role(f, SIOT_ROLE_fdnew)) /* dup2 from a descriptor that was not traced: one that is not */
        o("    int siot_untraced = rp_i(&a[%d]) == -1;\n"
          "    int %s = siot_untraced ? rp_untraced_fd(c) : rp_fd(c, rp_i(&a[%d]));\n", p->rec, p->name, p->rec);
    else
        o("    int %s = rp_fd(c, rp_i(&a[%d]));\n", p->name, p->rec);
    o("    if (%s < 0)\n        return rp_skip(c, rp_kind_missing(RP_K_FD));\n", p->name);
}

/* The directory an *at call's path is relative to: the first path after
 * it (renameat and linkat have two pairs). The replay needs the path to
 * know whether the descriptor matters: an absolute one ignores it. */
static void dirfd_rp(const func *f, const param *p)
{
    const param *path = NULL;
    for (const param *q = p + 1; q < f->p + f->np && !path; q++)
        if (q->role == SIOT_ROLE_path && q->rec >= 0)
            path = q;
    if (!path)
        die(f->file, f->line, "dirfd without a recorded path after it");
    o("    int %s = rp_dirfd(c, rp_i(&a[%d]), &a[%d]);\n"
      "    if (%s == -1)\n        return rp_skip(c, \"a directory descriptor whose opening is not in the trace\");\n",
      p->name, p->rec, path->rec, p->name);
}

static void fdnew_rp(const func *f, const param *p)
{
    const param *old = find_role(f, SIOT_ROLE_fd);
    o("    int %s = siot_untraced ? rp_fd(c, rp_i(&a[%d])) : rp_dup_target(c, rp_i(&a[%d]), %s);\n"
      "    if (%s < 0)\n        return rp_skip(c, \"no descriptor to duplicate onto\");\n", p->name, p->rec, p->rec, old->name, p->name);
}

static void outintarr_rp(const func *f, const param *p)
{
    const param *n = find_role(f, SIOT_ROLE_reqarr);
    /* NULL where the program gave none (recorded as null: MPI_Testsome of 0 requests) */
    o("    int *%s = a[%d].kind == SIOT_V_NONE ? NULL : rp_int_scratch(c, %d, %s ? a[%d].n : 0);\n", p->name, p->rec,
      (int)(p - f->p), n ? "1" : "0", n ? n->rec : 0);
}

/* None recorded: the program ignored the statuses of more requests than the
 * tracer keeps for it (MPI_STATUSES_IGNORE, as MPICH's pt2pt/sendrecv3 over
 * 100), or passed a null pointer with no requests (pt2pt/waittestnull); the
 * replay passes the same, as an array of ours would be recorded. */
static void statusarr_rp(const func *f, const param *p)
{
    const param *n = find_role(f, SIOT_ROLE_reqarr);
    if (!n) {
        o("    MPI_Status *%s = rp_statuses(c, %d, 1);\n", p->name, (int)(p - f->p));
        return;
    }
    o("    MPI_Status *%s = a[%d].kind != SIOT_V_NONE ? rp_statuses(c, %d, a[%d].n)\n", p->name, p->rec,
      (int)(p - f->p), n->rec);
    o("        : a[%d].kind == SIOT_V_ARR && a[%d].n > 0 ? MPI_STATUSES_IGNORE : NULL;\n", n->rec, n->rec);
}

/* Fortran MPI_Aint arrays (INTEGER in the removed MPI-1 names), read again
 * after the call into the same array: an output (get_contents' addresses)
 * is the call's. */
#define AINTS_FPRE                                                                                          \
    "    MPI_Aint $n_s[64];\n    int64_t $n_n = $L;\n    MPI_Aint *$n = siot_f2c_aints($n_f, sizeof($FI), $n_n, " \
    "$n_s, 64);\n"
#define AINTS_FPOST "    if ($n && ret == MPI_SUCCESS) siot_f2c_aints($n_f, sizeof($FI), $n_n, $n, (int)$n_n);\n"

/* Displacements that may be addresses: MPI_Aint ones, or MPI_Count ones
 * in the large-count forms. */
static int is_count_type(const param *p) { return strstr(p->type, "MPI_Count") != NULL; }

static void addrarr_rec(const func *f, const param *p)
{
    emit_tpl(is_count_type(p) ? "    siot_mpi_put_addr_counts(ev, $k, $n, $L);\n"
                              : "    siot_mpi_put_addrs(ev, $k, $n, $L);\n",
             f, p, NULL);
}

static void addrarr_rp(const func *f, const param *p)
{
    emit_tpl(is_count_type(p) ? "    MPI_Count *$n = rp_counts(c, &a[$k], $i);\n"
                              : "    MPI_Aint *$n = rp_aints(c, &a[$k], $i);\n",
             f, p, NULL);
}

/* The size of the buffer a replayed call needs: from the count and the
 * datatype (or the size) that follow it, times buf(N)'s multiplier. */
/* Counts and displacements of the v/w collectives: int, MPI_Aint or MPI_Count. */
static int is_count_array(int role)
{
    return role == SIOT_ROLE_intarr || role == SIOT_ROLE_aintarr || role == SIOT_ROLE_countarr;
}

static void buf_rp(const func *f, const param *p)
{
    int i = (int)(p - f->p);
    const param *count = NULL, *size = NULL, *counts = NULL, *displs = NULL, *dt = NULL, *dts = NULL;
    int mpi = f->layer != SIOT_LAYER_posix && f->layer != SIOT_LAYER_stdio;
    for (int j = i + 1; j < f->np; j++) {
        const param *q = &f->p[j];
        /* A buffer's count and datatype follow it, up to the next buffer;
         * in MPI's reductions (sendbuf, recvbuf, count, datatype) both
         * buffers share those after the second: the send side is not the
         * 1-byte area it would otherwise be, which MPI reads count
         * elements from. */
        if (q->role == SIOT_ROLE_buf && (!mpi || count || counts))
            break;
        if (q->role == SIOT_ROLE_count && !count)
            count = q;
        else if (q->role == SIOT_ROLE_size && !size)
            size = q;
        else if (is_count_array(q->role) && !counts)
            counts = q;
        else if (is_count_array(q->role) && !displs)
            displs = q;
        else if (q->role == SIOT_ROLE_dtype && !dt)
            dt = q;
        else if (q->role == SIOT_ROLE_dtypearr && !dts)
            dts = q;
    }
    /* what the call fills (not const) in the other bank than what it sends */
    const char *bank = strstr(p->decl, "const") ? "" : "RP_READ_BANK + ";
    char e[2048], dv[32] = "NULL";
    if (displs)
        snprintf(dv, sizeof dv, "&a[%d]", displs->rec);
    const param *comm = find_role(f, SIOT_ROLE_comm);
    if (f->layer == SIOT_LAYER_posix || f->layer == SIOT_LAYER_stdio) {
        if (count && size)
            snprintf(e, sizeof e, "rp_buf(c, %s%d, (int64_t)%s * (int64_t)%s)", bank, i, count->name, size->name);
        else if (count)
            snprintf(e, sizeof e, "rp_buf(c, %s%d, (int64_t)%s)", bank, i, count->name);
        else
            snprintf(e, sizeof e, "rp_buf(c, %s%d, 4096)", bank, i);
    } else if (counts && dts) {
        snprintf(e, sizeof e, "rp_mpibuf_w(c, %s%d, &a[%d], %s, %s)", bank, i, counts->rec, dv, dts->name);
    } else if (counts && dt) {
        snprintf(e, sizeof e, "rp_mpibuf_v%s(c, %s%d, &a[%d], %s, %s)", counts->rootonly ? "_root" : "", bank, i,
                 counts->rec, dv, dt->name);
    } else if (count && dt && (strcmp(p->arg, "commsize") == 0 || strcmp(p->arg, "localsize") == 0) && comm) {
        /* gathered or scattered: one count per rank (of the remote group of
         * an intercommunicator, or of the local one: reduce-scatter) */
        snprintf(e, sizeof e, "rp_mpibuf(c, %s%d, %s, %s, rp_%s(%s))", bank, i, count->name, dt->name, p->arg,
                 comm->name);
    } else if (count && dt) {
        snprintf(e, sizeof e, "rp_mpibuf(c, %s%d, %s, %s, 1)", bank, i, count->name, dt->name);
    } else if (dt) { /* one element (MPI_Fetch_and_op, MPI_Compare_and_swap) */
        snprintf(e, sizeof e, "rp_mpibuf(c, %s%d, 1, %s, 1)", bank, i, dt->name);
    } else {
        snprintf(e, sizeof e, "rp_buf(c, %s%d, 0)", bank, i);
    }
    /* A collective's side recorded with the null datatype was MPI_IN_PLACE
     * (a send side: Allgather, Alltoall; a receive side: Scatter's root): MPI
     * reads neither count nor type then, nor a buffer it does not use (a
     * non-root's receive side of Gather); any other use of the null type is
     * an error anyway. */
    if (dt && SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_coll)
        o("    void *%s = rp_i(&a[%d]) == -1 ? MPI_IN_PLACE : %s;\n", p->name, dt->rec, e);
    else
        o("    void *%s = %s;\n", p->name, e);
}

/* An argument that is not recorded: a pointer is passed as NULL (as a
 * scratch area of ignore(BYTES) bytes when the call writes there: some MPI
 * calls fill no output at all when one is NULL), a number as ignore(VALUE)
 * says, else as -1 (a fortified call's buffer length: no check can fail). */
static void ignore_rp(const func *f, const param *p)
{
    if (strchr(p->type, '*') && p->arg[0])
        o("    %s %s = rp_buf(c, RP_READ_BANK + %d, (int64_t)(%s));\n", p->type, p->name, (int)(p - f->p), p->arg);
    else if (strchr(p->type, '*'))
        o("    %s %s = NULL;\n", p->type, p->name);
    else if (p->arg[0])
        o("    %s %s = %s;\n", p->type, p->name, p->arg);
    else
        o("    %s %s = (%s)-1; /* a fortified call's buffer length: no check can fail */\n", p->type, p->name,
          p->type);
}

static void fdnew_post(const func *f, const param *p)
{
    o("    if (ret >= 0 && siot_untraced)\n        rp_drop_fd(c, rp_i(&a[%d]));\n"
      "    else if (ret >= 0)\n        rp_set_fd(c, rp_i(&a[%d]), ret);\n", p->rec, p->rec);
}

static void closed_post(const func *f, const param *p)
{
    const char *t = closed_table(f, p);
    if (!t)
        return;
    const char *table = p->role == SIOT_ROLE_fd ? "fd" : p->role == SIOT_ROLE_stream ? "stream" : "dir";
    o("    rp_drop_%s(c, rp_i(&a[%d]));\n", table, p->rec);
}

/* The struct of an aiocb parameter: its type without the pointer, the
 * array brackets and the qualifiers ("struct aiocb", "struct aiocb64"). */
static void aio_struct(const param *p, char *buf, size_t n)
{
    char t[192];
    snprintf(t, sizeof t, "%s", p->type);
    char *cut = strchr(t, '*');
    if (cut)
        *cut = 0;
    const char *s = t;
    if (strncmp(s, "const ", 6) == 0)
        s += 6;
    snprintf(buf, n, "%s", s);
    size_t l = strlen(buf);
    while (l && buf[l - 1] == ' ')
        buf[--l] = 0;
}

/* A recorded request made again on the mapped descriptor (RP_AIO_FILL
 * says whether it is known); the replay's aio (rp_aio.c) starts or finds
 * its own request like it. */
static void aiocb_rp(const func *f, const param *p)
{
    char st[192];
    aio_struct(p, st, sizeof st);
    o("    %s %s_v;\n    memset(&%s_v, 0, sizeof %s_v);\n    %s *%s = &%s_v;\n", st, p->name, p->name, p->name, st,
      p->name, p->name);
    /* a NULL request (-2) is passed as NULL: aio_cancel's all requests of its descriptor */
    o("    int %s_k = RP_AIO_FILL(c, &a[%d], 0, %s);\n", p->name, p->rec, p->name);
    o("    if (%s_k == -2)\n        %s = NULL;\n", p->name, p->name);
    o("    else if (%s_k < 0)\n        return rp_skip(c, \"an aio request whose descriptor's opening is not in the trace\");\n", p->name);
}

static void aiolist_rp(const func *f, const param *p)
{
    char st[192];
    aio_struct(p, st, sizeof st);
    o("    int64_t %s_n = a[%d].kind == SIOT_V_ARR ? a[%d].n / 4 : 0;\n", p->name, p->rec, p->rec);
    o("    %s *%s_v = rp_buf(c, %d, (int64_t)sizeof(%s) * (%s_n + 1));\n", st, p->name, (int)(p - f->p), st, p->name);
    o("    %s **%s = rp_buf(c, %d, (int64_t)sizeof(%s *) * (%s_n + 1));\n", st, p->name, f->np + 1, st, p->name);
    o("    for (int64_t i = 0; i < %s_n; i++) {\n        memset(&%s_v[i], 0, sizeof %s_v[i]);\n", p->name, p->name,
      p->name);
    o("        %s[i] = RP_AIO_FILL(c, &a[%d], i, &%s_v[i]) < 0 ? NULL : &%s_v[i];\n    }\n", p->name, p->rec,
      p->name, p->name);
}

/* close_range, closefrom: the traced descriptors of the range are released
 * before the call, as close's are (not with CLOSE_RANGE_CLOEXEC in the
 * parameter named flags: they stay open), and their ids kept for the event.
 * The range ends at the parameter fdrange(LAST) names, else at the last
 * descriptor. */
static void fdrange_pre(const func *f, const param *p)
{
    const param *fl = NULL;
    for (int i = 0; i < f->np; i++)
        if (strcmp(f->p[i].name, "flags") == 0)
            fl = &f->p[i];
    o("    int64_t siot_ids_%s[SIOT_RANGE_IDS];\n", p->name);
    o("    int siot_nids_%s = siot_fd_closing_range((int64_t)%s, %s%s, %s, siot_ids_%s);\n", p->name, p->name,
      p->arg[0] ? "(int64_t)" : "", p->arg[0] ? p->arg : "INT64_MAX", fl ? fl->name : "0", p->name);
}

/* Fortran indices count from 1 (@index1). */
static void outint_fpost(const func *f, const param *p)
{
    if (p->index1)
        o("    if (ret == MPI_SUCCESS) { %s_v = *(MPI_Fint *)%s_f; if (%s_v > 0) %s_v--; }\n", p->name, p->name,
          p->name, p->name);
    else
        o("    if (ret == MPI_SUCCESS) %s_v = *(MPI_Fint *)%s_f;\n", p->name, p->name);
}

/* ------------------------------------------------------------------ the table */

#define R(name) SIOT_ROLE_##name
/* recorded as its integer value */
#define SCALAR_REC "    siot_put_int(ev, $k, (int64_t)($n));\n"
#define SCALAR_RP "    $T $n = ($T)rp_i(&a[$k]);\n"
/* an out value the call writes */
#define OUT_REC "    siot_put_int(ev, $k, ($n && $ok) ? (int64_t)(*$n) : -1);\n"
#define OUT_RP "    $P $n_v = 0;\n    $P *$n = &$n_v;\n"
/* MPI handles: in, created, freed, in/out */
#define H_IN_RP "    $H $n = rp_$h(c, rp_i(&a[$k]));\n    if ($n == $N && rp_i(&a[$k]) != -1)\n        return rp_skip(c, rp_missing(c, $K, rp_i(&a[$k])));\n"
#define H_IN_FPRE "    $H $n = P$F_f2c(*(MPI_Fint *)$n_f);\n"
#define H_NEW_RP "    $P $n_v;\n    memset(&$n_v, 0, sizeof $n_v);\n    $P *$n = &$n_v;\n"
#define H_NEW_POST "    if ($ok) rp_set_$h(c, rp_i(&a[$k]), $n_v);\n"
#define H_NEW_FPRE "    $H $n_v = $N;\n    $H *$n = &$n_v;\n"
#define H_NEW_FPOST "    if (ret == MPI_SUCCESS) $n_v = P$F_f2c(*(MPI_Fint *)$n_f);\n"
/* A request the replay does not have (made by a call the trace lacks or the
 * replay did not reissue) is never passed as MPI_REQUEST_NULL. */
#define REQ_INOUT_RP                                                                                          \
    "    MPI_Request $n_v = rp_req(c, rp_i(&a[$k]));\n    if ($n_v == MPI_REQUEST_NULL && rp_i(&a[$k]) != -1)\n" \
    "        return rp_skip(c, rp_missing(c, RP_K_REQ, rp_i(&a[$k])));\n    MPI_Request *$n = &$n_v;\n"
#define H_KEY_PRE "    uintptr_t siot_k_$n = $n ? siot_hkey_$h(*$n) : 0;\n"
#define H_INOUT_FPRE "    $H $n_v = P$F_f2c(*(MPI_Fint *)$n_f);\n    $H *$n = &$n_v;\n"
#define H_INOUT_FPOST "    $n_v = P$F_f2c(*(MPI_Fint *)$n_f);\n"
#define H_FREE_REC "    siot_put_int(ev, $k, siot_h_release($E, siot_k_$n));\n"
#define H_FREE_POST "    rp_drop_$h(c, rp_i(&a[$k]));\n"
#define H_NONNULL_RP                                                                                        \
    "    $H $n_v = rp_$h(c, rp_i(&a[$k]));\n    if ($n_v == $N)\n        return rp_skip(c, rp_missing(c, $K, rp_i(&a[$k])));\n    $H *$n = &$n_v;\n"
#define STATUS_FPRE ""
/* The replay asks for no status: MPI leaves a completed send's status
 * untouched (its fields are undefined), and a status of the replay's own
 * would record stack garbage in a traced replay; with MPI_STATUS_IGNORE the
 * wrapper supplies an empty one, as it did for the original program. */
#define RP_STATUS "    MPI_Status *$n = MPI_STATUS_IGNORE;\n"

static const role_def ROLES[] = {
    /* buffers and what is not recorded */
    {R(buf), UNREC, .rp_hook = buf_rp, .doc_type = "any buffer",
     .doc = "not recorded (its size is recorded by another parameter); `buf(commsize)`: the replay's buffer "
            "holds one count per rank of the communicator (`buf(localsize)`: of its local group)"},
    {R(ignore), UNREC, .rp_hook = ignore_rp, .doc_type = "anything",
     .doc = "not recorded; the replay passes NULL for a pointer (`ignore(BYTES)`: a scratch area of that size), "
            "else `ignore(VALUE)`'s value, else -1"},
    {R(cmdline), UNREC, .rp = "    $T $n = NULL;\n", .doc_type = "`int *` / `char ***`",
     .doc = "`MPI_Init`'s `argc` and `argv`: not recorded, absent from the Fortran bindings"},
    {R(weights), UNREC, .rp = "    const int *$n = MPI_UNWEIGHTED;\n", .doc_type = "`const int []`",
     .doc = "graph edge weights: not recorded; the replay passes `MPI_UNWEIGHTED`"},
    {R(message), UNREC, .rp = "    MPI_Message *$n = &c->msg;\n", .doc_type = "`MPI_Message *`",
     .doc = "not recorded; the replay uses the message of its last matched probe"},
    {R(fmt), UNREC, .rp = "    const char *$n = \"%s\";\n", .doc_type = "`const char *`",
     .doc = "a format: not recorded (the replay writes the recorded byte count as text)"},
    {R(vargs), UNREC | NOFORT, .doc_type = "variadic `...`", .doc = "a format's arguments: not recorded"},
    {R(vlist), UNREC | NOFORT, .doc_type = "`va_list`", .doc = "a format's arguments: not recorded"},
    /* POSIX and stdio */
    {R(path), OWN, .rec = "    siot_put_str(ev, $k, $n);\n", .rp = "    const char *$n = rp_path(c, &a[$k], rec_ret);\n    if (!$n)\n        return rp_skip(c, \"a path that cannot be kept inside the replay root\");\n",
     .fpre = "    char $n_b[4096];\n    const char *$n = siot_fstr($n_f, $n_len, $n_b, sizeof $n_b);\n",
     .doc_type = "`const char *`", .doc = "the string; the replay maps it under its root"},
    {R(str), OWN, .rec = "    siot_put_str(ev, $k, $n);\n", .rp = "    const char *$n = rp_str(c, &a[$k], $i);\n",
     .fpre = "    char $n_b[4096];\n    const char *$n = siot_fstr($n_f, $n_len, $n_b, sizeof $n_b);\n",
     .doc_type = "`const char *`", .doc = "the string (non-path text, e.g. a data representation)"},
    {R(strlen), OWN, .rec = "    siot_put_int(ev, $k, $n ? (int64_t)strlen($n) : 0);\n    if (ret >= 0 && $n) ev->bytes = (int64_t)strlen($n);\n",
     .rp = "    const char *$n = rp_text(c, rp_i(&a[$k]), $i);\n", .doc_type = "`const char *`",
     .doc = "its length (the data of `fputs`); also the event's `bytes`"},
    {R(int), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "any integer", .doc = "the value"},
    {R(count), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "integer", .doc = "the value; element or byte count"},
    {R(size), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "integer", .doc = "the value; element size (`fread` size)"},
    {R(offset), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "integer", .doc = "the value; file offset or displacement"},
    {R(whence), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "int", .doc = "the value"},
    {R(oflags), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "int", .doc = "the value (`O_*` flags)"},
    {R(mode), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "`mode_t`", .doc = "the value"},
    {R(h5facc), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "unsigned",
     .doc = "the value (HDF5's `H5F_ACC_*` flags)"},
    {R(nccmode), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "int",
     .doc = "the value (a netCDF create mode: `NC_CLOBBER`, `NC_NOCLOBBER`, format flags)"},
    {R(ncomode), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "int",
     .doc = "the value (a netCDF open mode: `NC_NOWRITE`, `NC_WRITE`, ...)"},
    {R(amode), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "int", .doc = "the value (`MPI_MODE_*` access modes)"},
    {R(omode), OWN, .rec = SCALAR_REC, .rp = SCALAR_RP, .doc_type = "variadic `mode_t`",
     .doc = "read with `va_arg` only when `oflags` has `O_CREAT` or `O_TMPFILE`, else 0"},
    {R(fcntlarg), 0, .rec = "    siot_put_fcntl_arg(ev, $k, $a, $n, (int64_t)ret);\n",
     .rp = "    void *$n = rp_fcntl_arg(c, $a, &a[$k]);\n    if ($n == RP_NO_ARG)\n        return rp_skip(c, \"an fcntl argument that is not recorded\");\n",
     .doc_type = "variadic", .doc = "`fcntlarg(CMD)`: read as a pointer-sized value; recorded as an integer for the integer commands of parameter CMD, as the lock `[type, whence, start, len]` for the record-lock ones, 0 otherwise"},
    {R(fd), OWN, .pre_hook = closing_pre, .rec_hook = fd_rec, .rp_hook = fd_rp, .post_hook = closed_post, .doc_type = "int",
     .doc = "its id (docs/handles.md); the call is recorded only if the descriptor was opened under tracing"},
    {R(dirfd), OWN, .rec = "    siot_put_int(ev, $k, siot_fd_id($n));\n", .rp_hook = dirfd_rp, .doc_type = "int",
     .doc = "an `*at` call's directory: `AT_FDCWD` as -100, a descriptor opened under tracing by its id (the "
            "descriptor of a traced `DIR*`, `dirfd(d)`, by the `DIR*`'s id), any other as -1; the replay passes its "
            "own descriptor of that directory"},
    {R(fdnew), 0, .rec_hook = fdnew_rec, .rp_hook = fdnew_rp, .post_hook = fdnew_post, .doc_type = "int",
     .doc = "`dup2`'s target: the id it has after the call, or the one it lost when the source is not traced"},
    {R(stream), 0, .pre_hook = closing_pre, .rec_hook = stream_rec,
     .rp = "    FILE *$n = rp_stream(c, rp_i(&a[$k]));\n    if (!$n)\n        return rp_skip(c, rp_kind_missing(RP_K_STREAM));\n", .post_hook = closed_post,
     .doc_type = "`FILE *`", .doc = "small id (`stdin`=0, `stdout`=1, `stderr`=2, others from 3)"},
    {R(dir), 0, .pre_hook = closing_pre, .rec_hook = stream_rec,
     .rp = "    DIR *$n = rp_dir(c, rp_i(&a[$k]));\n    if (!$n)\n        return rp_skip(c, rp_kind_missing(RP_K_DIR));\n", .post_hook = closed_post,
     .doc_type = "`DIR *`", .doc = "small id: its descriptor's (docs/handles.md)"},
    {R(outint), OWN, .rec = OUT_REC, .rp = OUT_RP, .fpre = OUT_RP, .fpost_hook = outint_fpost, .doc_type = "`int *` (out)",
     .doc = "the value written by the call, -1 if the pointer was NULL; `@index1`: an index the Fortran bindings count from 1"},
    /* the replay's value against the recorded one: a size (MPI_File_get_size) says the file's state differs */
    {R(outoff), OWN, .rec = OUT_REC, .rp = OUT_RP, .rp_post = "    if ($ok) rp_out_result(c, rp_i(&a[$k]), (int64_t)$n_v);\n",
     .fpre = OUT_RP, .fpost = "    if (ret == MPI_SUCCESS) $n_v = *($FI *)$n_f;\n",
     .doc_type = "`MPI_Offset *` / `MPI_Aint *` / `off_t *` (out)", .doc = "the value written by the call"},
    /* An address in memory differs between runs (ASLR) and ranks, so a recorded
     * one could never match its replay and would keep ranks from merging; the
     * datatype constructors record the displacements made from addresses. */
    {R(outaddr), UNREC, .rp = OUT_RP, .fpre = "",
     .doc_type = "`MPI_Aint *` (out)", .doc = "an absolute address: not recorded"},
    {R(iov), OWN, .rec = "    siot_put_iov(ev, $k, $n, $L);\n", .rp = "    struct iovec *$n = rp_iov(c, &a[$k], $i);\n",
     .doc_type = "`const struct iovec *`", .doc = "`iov(N)`: array of the `iov_len`s; `N` names the count parameter"},
    {R(fpos), OWN, .rec = "    siot_put_int(ev, $k, $n ? (int64_t)$n->__pos : -1);\n",
     .rp = "    $P $n_v;\n    memset(&$n_v, 0, sizeof $n_v);\n    $n_v.__pos = rp_i(&a[$k]);\n    $P *$n = &$n_v;\n",
     .doc_type = "`fpos_t *` (in or out)", .doc = "the byte position it holds after the call (`fgetpos`) or it sets (`fsetpos`); the replay passes a position made from it"},
    {R(offptr), OWN, .pre = "    int64_t siot_o_$n = $n ? (int64_t)*$n : -1;\n", .rec = "    siot_put_int(ev, $k, siot_o_$n);\n",
     .rp = "    $P $n_v = ($P)rp_i(&a[$k]);\n    $P *$n = rp_i(&a[$k]) < 0 ? NULL : &$n_v;\n",
     .doc_type = "`off_t *` (in/out)", .doc = "the offset it held before the call (where the call reads), -1 for NULL (the descriptor's own offset)"},
    {R(aiocb), 0, .rec = "    SIOT_PUT_AIOCB(ev, $k, $n);\n", .rp_hook = aiocb_rp, .doc_type = "`struct aiocb *`",
     .doc = "the request `[fd id, offset, nbytes, lio_opcode]`; the call is recorded only if the descriptor is traced; the replay rebuilds it on its mapped descriptor"},
    {R(aiolist), 0, .rec = "    SIOT_PUT_AIOLIST(ev, $k, $n, $L);\n", .rp_hook = aiolist_rp, .doc_type = "`struct aiocb *const []`",
     .doc = "`aiolist(N)`: the N requests, 4 values each as for `aiocb` (NULL entries: fd id -2); recorded if one of them is traced"},
    {R(fdrange), 0, .pre_hook = fdrange_pre, .rec = "    siot_put_i64s(ev, $k, siot_ids_$n, siot_nids_$n);\n",
     .rp = "    const siot_value *$n = &a[$k];\n", .doc_type = "int",
     .doc = "`fdrange(LAST)`: the first descriptor of a range the call closes, up to parameter `LAST` (without "
            "it, up to the last: `closefrom`); recorded as the array of the ids of the traced descriptors in the "
            "range (the first 256), released before the call as `close`'s are (with "
            "`CLOSE_RANGE_CLOEXEC` in parameter `flags` they stay traced); the call is recorded when one is "
            "traced; its replayer (`replay=`) is given the recorded array and acts on those ids only"},
    {R(wcslen), OWN, .rec = "    siot_put_int(ev, $k, $n ? (int64_t)wcslen($n) : 0);\n",
     .rp = "    const wchar_t *$n = rp_wtext(c, rp_i(&a[$k]), $i);\n", .doc_type = "`const wchar_t *`",
     .doc = "its length in wide characters (the data of `fputws`); not the event's `bytes`, which the locale's "
            "encoding decides: they are left 0 (unknown); the replay writes as many printable characters"},
    {R(wbuf), UNREC, .rp = "    wchar_t *$n = rp_buf(c, RP_READ_BANK + $i, (int64_t)sizeof(wchar_t) * (int64_t)($a));\n",
     .doc_type = "`wchar_t *`", .doc = "a wide-character buffer: not recorded; `wbuf(N)`: the replay's holds `N` "
                                       "wide characters (`N` names the count parameter)"},
    {R(wfmt), UNREC, .rp = "    const wchar_t *$n = L\"%ls\";\n", .doc_type = "`const wchar_t *`",
     .doc = "a wide format: not recorded (the replay writes the recorded number of wide characters as text)"},
    {R(arglist), UNREC | NOFORT, .doc_type = "variadic `const char *` ... `NULL`",
     .doc = "`execl`'s list of arguments, of which the parameter before it is the first: not recorded; read with "
            "`va_arg` into an array up to its `NULL`, which the real function (`real=`, `execv`...) is given in "
            "their place; `arglist(ENVP)`: an environment array follows the `NULL` (`execle`), passed on after it"},
    /* MPI */
    {R(comm), 0, &HK_COMM, .rec = "    siot_put_int(ev, $k, siot_mpi_comm_id($n));\n", .rp = H_IN_RP, .fpre = H_IN_FPRE,
     .doc_type = "`MPI_Comm`", .doc = "id: `MPI_COMM_WORLD`=0, `MPI_COMM_SELF`=1, `MPI_COMM_NULL`=-1, created ones from 2"},
    {R(newcomm), 0, &HK_COMM, .rec_hook = newcomm_rec, .rp = H_NEW_RP, .rp_post = H_NEW_POST, .fpre = H_NEW_FPRE,
     .fpost = H_NEW_FPOST, .doc_type = "`MPI_Comm *` (out)", .doc = "id of the created communicator"},
    {R(freecomm), 0, &HK_COMM, .pre = H_KEY_PRE, .rec = H_FREE_REC,
     .rp = "    MPI_Comm $n_v = rp_comm(c, rp_i(&a[$k]));\n    MPI_Comm *$n = &$n_v;\n", .rp_post = H_FREE_POST,
     .fpre = H_INOUT_FPRE, .fpost = H_INOUT_FPOST, .doc_type = "`MPI_Comm *` (in/out)", .doc = "id of the communicator being freed"},
    {R(group), 0, &HK_GROUP, .rec = "    siot_put_int(ev, $k, siot_mpi_group_id($n));\n", .rp = H_IN_RP, .fpre = H_IN_FPRE,
     .doc_type = "`MPI_Group`", .doc = "id, as for communicators (`MPI_GROUP_EMPTY`=0)"},
    {R(newgroup), 0, &HK_GROUP, .rec = "    siot_put_int(ev, $k, ($n && $ok) ? siot_mpi_group_new(*$n) : -1);\n", .rp = H_NEW_RP,
     .rp_post = H_NEW_POST, .fpre = H_NEW_FPRE, .fpost = H_NEW_FPOST, .doc_type = "`MPI_Group *` (out)", .doc = "id of the created group"},
    {R(freegroup), 0, &HK_GROUP, .pre = H_KEY_PRE, .rec = H_FREE_REC,
     .rp = "    MPI_Group $n_v = rp_group(c, rp_i(&a[$k]));\n    MPI_Group *$n = &$n_v;\n", .rp_post = H_FREE_POST,
     .fpre = H_INOUT_FPRE, .fpost = H_INOUT_FPOST, .doc_type = "`MPI_Group *` (in/out)", .doc = "id of the group being freed"},
    {R(dtype), 0, &HK_DTYPE, .rec = "    siot_put_int(ev, $k, siot_mpi_dtype_in($n, $ok));\n", .rp = H_IN_RP, .fpre = H_IN_FPRE,
     .doc_type = "`MPI_Datatype`", .doc = "id: predefined types have fixed ids (docs/handles.md), created ones from 256"},
    {R(newdtype), 0, &HK_DTYPE, .rec = "    siot_put_int(ev, $k, ($n && $ok) ? siot_mpi_dtype_new(*$n) : -1);\n", .rp = H_NEW_RP,
     .rp_post = H_NEW_POST, .fpre = H_NEW_FPRE, .fpost = H_NEW_FPOST, .doc_type = "`MPI_Datatype *` (out)", .doc = "id of the created type"},
    {R(outdtype), 0, &HK_DTYPE, .rec = "    siot_put_int(ev, $k, ($n && $ok) ? siot_mpi_dtype_new(*$n) : -1);\n", .rp = H_NEW_RP,
     .rp_post = H_NEW_POST, .fpre = H_NEW_FPRE, .fpost = H_NEW_FPOST, .doc_type = "`MPI_Datatype *` (out)",
     .doc = "id of a type the call returns"},
    {R(newop), 0, &HK_OP, .rec = "    siot_put_int(ev, $k, ($n && $ok) ? siot_h_new(SIOT_H_OP, siot_hkey_op(*$n)) : -1);\n",
     .rp = H_NEW_RP, .rp_post = H_NEW_POST, .fpre = H_NEW_FPRE, .fpost = H_NEW_FPOST,
     .doc_type = "`MPI_Op *` (out)", .doc = "id of the created reduction operation"},
    {R(freeop), 0, &HK_OP, .pre = H_KEY_PRE, .rec = H_FREE_REC, .rp = H_NONNULL_RP, .rp_post = H_FREE_POST,
     .fpre = H_INOUT_FPRE, .fpost = H_INOUT_FPOST, .doc_type = "`MPI_Op *` (in/out)",
     .doc = "id of the reduction operation being freed"},
    /* The program's reduction function cannot be recorded; the replay's
     * stand-in leaves the result as it is (values are not replayed). */
    {R(userfn), UNREC, .rp_hook = userfn_rp, .fpre = "",
     .doc_type = "`MPI_User_function *`", .doc = "not recorded; the replay passes a stand-in that changes nothing"},
    {R(freedtype), 0, &HK_DTYPE, .pre = H_KEY_PRE, .rec = H_FREE_REC, .rp = H_NONNULL_RP, .rp_post = H_FREE_POST,
     .fpre = H_INOUT_FPRE, .fpost = H_INOUT_FPOST, .doc_type = "`MPI_Datatype *` (in/out)", .doc = "id of the type being freed"},
    {R(commitdtype), 0, &HK_DTYPE, .rec = "    siot_put_int(ev, $k, $n ? siot_mpi_dtype_in(*$n, $ok) : -1);\n", .rp = H_NONNULL_RP,
     .rp_post = H_NEW_POST, .fpre = H_INOUT_FPRE, .fpost = H_INOUT_FPOST, .doc_type = "`MPI_Datatype *` (in/out)",
     .doc = "id of the type being committed"},
    {R(dtypearr), 0, &HK_DTYPE, .rec = "    siot_mpi_put_dtypes(ev, $k, $n, $L, $ok);\n", .rp = "    MPI_Datatype *$n = rp_dtypes(c, &a[$k], $i);\n",
     .fpre = "    $H $n_s[64];\n    int64_t $n_n = $L;\n    $H *$n = siot_f2c_dtypes($n_f, $n_n, $n_s, 64);\n",
     .doc_type = "`const MPI_Datatype []`", .doc = "`dtypearr(N)`: array of ids"},
    /* Written by the call: the replay passes room for N and maps the
     * recorded ids to the handles its own call returned, one more
     * reference each (rp_dtype_refs), as the free of each drops one. */
    {R(outdtypearr), 0, &HK_DTYPE, .rec_hook = outdtypearr_rec, .rp = "    MPI_Datatype *$n = rp_dtype_outs(c, $i, $L);\n",
     .rp_post = "    if ($ok) rp_dtype_refs(c, &a[$k], $n);\n",
     .fpre = "    $H $n_s[64];\n    int64_t $n_n = $L;\n    $H *$n = NULL;\n",
     .fpost = "    if (ret == MPI_SUCCESS) $n = siot_f2c_dtypes($n_f, $n_n, $n_s, 64);\n",
     .doc_type = "`MPI_Datatype []` (out)",
     .doc = "`outdtypearr(N)`: ids of the datatypes the call returns (`MPI_Type_get_contents`: as many as the "
            "decoded type's envelope counts, at most N); predefined ones their fixed ids, a live type's own "
            "handle one more reference to its id (docs/handles.md)"},
    {R(op), 0, &HK_OP, .rec = "    siot_put_int(ev, $k, siot_mpi_op_id($n));\n", .rp = H_IN_RP, .fpre = H_IN_FPRE,
     .doc_type = "`MPI_Op`", .doc = "id: predefined ops fixed, created ones from 64"},
    {R(file), 0, &HK_FILE, .rec = "    siot_put_int(ev, $k, siot_mpi_file_id($n));\n", .rp = H_IN_RP, .fpre = H_IN_FPRE,
     .doc_type = "`MPI_File`", .doc = "id, from 0"},
    {R(newfile), 0, &HK_FILE, .rec_hook = newfile_rec, .rp = H_NEW_RP, .rp_post = H_NEW_POST, .fpre = H_NEW_FPRE,
     .fpost = H_NEW_FPOST, .doc_type = "`MPI_File *` (out)", .doc = "id of the opened file"},
    {R(closefile), 0, &HK_FILE, .pre = H_KEY_PRE,
     .rec = "    siot_put_int(ev, $k, $ok ? siot_h_release(SIOT_H_FILE, siot_k_$n) : siot_h_find(SIOT_H_FILE, siot_k_$n));\n",
     .rp = H_NONNULL_RP, .rp_post = H_FREE_POST, .fpre = H_INOUT_FPRE, .fpost = H_INOUT_FPOST,
     .doc_type = "`MPI_File *` (in/out)", .doc = "id of the file being closed"},
    /* One-sided communication: windows are ids like files (agreed between
     * the ranks that make them); their memory is not recorded, only its
     * size, and the replay exposes memory of that size. */
    {R(win), 0, &HK_WIN, .rec = "    siot_put_int(ev, $k, $n == MPI_WIN_NULL ? -1 : siot_h_id(SIOT_H_WIN, siot_hkey_win($n)));\n",
     .rp = H_IN_RP, .fpre = H_IN_FPRE, .doc_type = "`MPI_Win`", .doc = "id, from 0"},
    {R(newwin), 0, &HK_WIN, .rec_hook = newwin_rec, .rp = H_NEW_RP, .rp_post = H_NEW_POST, .fpre = H_NEW_FPRE,
     .fpost = H_NEW_FPOST, .doc_type = "`MPI_Win *` (out)", .doc = "id of the created window"},
    {R(freewin), 0, &HK_WIN, .pre = H_KEY_PRE, .rec = H_FREE_REC, .rp = H_NONNULL_RP, .rp_post = H_FREE_POST,
     .fpre = H_INOUT_FPRE, .fpost = H_INOUT_FPOST, .doc_type = "`MPI_Win *` (in/out)", .doc = "id of the window being freed"},
    {R(winbase), UNREC, .rp = "    void *$n = rp_winmem(c, (int64_t)($a));\n    if (!$n)\n        return rp_skip(c, \"out of memory\");\n",
     .doc_type = "`void *`", .doc = "`winbase(SIZE)`: the memory a window exposes: not recorded (its size is); "
     "the replay exposes memory of that size, held until the window is freed"},
    {R(winaddr), UNREC, .rp = "    void *$n_v = NULL;\n    void *$n = &$n_v;\n", .fpre = "",
     .doc_type = "`void *` (out: the address of a pointer)", .doc = "the address of memory MPI allocated: not recorded"},
    {R(info), 0, &HK_INFO, .rec = "    siot_mpi_put_info(ev, $k, $n);\n", .rp = "    MPI_Info $n = rp_info(c, &a[$k]);\n",
     .rp_post = "    rp_info_free(&$n);\n", .fpre = H_IN_FPRE, .doc_type = "`MPI_Info`",
     .doc = "its contents as a string `key=value;key=value` (empty for `MPI_INFO_NULL`)"},
    {R(newinfo), UNREC, .rp = "    MPI_Info $n_v = MPI_INFO_NULL;\n    MPI_Info *$n = &$n_v;\n",
     .rp_post = "    if ($ok && $n_v != MPI_INFO_NULL) PMPI_Info_free(&$n_v);\n", .doc_type = "`MPI_Info *` (out)", .doc = "not recorded"},
    {R(req), 0, &HK_REQ, .rec = "    siot_put_int(ev, $k, siot_mpi_req_id($n));\n", .rp = H_IN_RP, .fpre = H_IN_FPRE,
     .doc_type = "`MPI_Request`", .doc = "id"},
    {R(newreq), 0, &HK_REQ, .rec_hook = newreq_rec,
     .rp = H_NEW_RP, .rp_post = H_NEW_POST, .fpre = H_NEW_FPRE, .fpost = H_NEW_FPOST, .doc_type = "`MPI_Request *` (out)",
     .doc = "id of the new request"},
    {R(waitreq), 0, &HK_REQ, .pre = H_KEY_PRE,
     .rec = "    int64_t siot_id_$n = siot_mpi_req_find(siot_k_$n);\n    siot_put_int(ev, $k, siot_id_$n);\n"
            "    if ($ok && $n && *$n == MPI_REQUEST_NULL) siot_h_release(SIOT_H_REQ, siot_k_$n);\n",
     .rp = REQ_INOUT_RP,
     .rp_post = "    if ($n_v == MPI_REQUEST_NULL) rp_drop_req(c, rp_i(&a[$k]));\n", .fpre = H_INOUT_FPRE, .fpost = H_INOUT_FPOST,
     .doc_type = "`MPI_Request *` (in/out)", .doc = "id of the request; released when the call completes it"},
    {R(reqptr), 0, &HK_REQ, .pre = H_KEY_PRE, .rec = "    siot_put_int(ev, $k, siot_mpi_req_find(siot_k_$n));\n",
     .rp = REQ_INOUT_RP, .fpre = H_INOUT_FPRE,
     .fpost = H_INOUT_FPOST, .doc_type = "`MPI_Request *` (in/out)",
     .doc = "id of a request that is neither created nor released (`MPI_Start`, `MPI_Cancel`)"},
    {R(reqarr), 0, &HK_REQ, .pre_hook = reqarr_pre, .rec = "    siot_mpi_put_reqs(ev, $k, $n, siot_n_$n, siot_o_$n, $ok);\n",
     .rp = "    MPI_Request *$n = rp_reqs(c, &a[$k], $i);\n    if (rp_reqs_unknown(c, &a[$k]))\n        return rp_skip(c, rp_reqs_unknown(c, &a[$k]));\n", .rp_post = "    rp_reqs_post(c, &a[$k], $n);\n",
     .fpre = "    $H $n_s[64];\n    int64_t $n_n = $L;\n    $H *$n = siot_f2c_reqs($n_f, $n_n, $n_s, 64);\n",
     .fpost = "    siot_f2c_reqs_again($n_f, $n_n, $n);\n", .doc_type = "`MPI_Request []` (in/out)",
     .doc = "`reqarr(N)`: array of ids; completed ones released"},
    {R(peer), 0, .rec = "    siot_put_int(ev, $k, siot_mpi_peer($n));\n", .rp = "    int $n = rp_peer(rp_i(&a[$k]));\n",
     .doc_type = "int", .doc = "a peer rank (`dest`/`source`), `MPI_ANY_SOURCE`=-1, `MPI_PROC_NULL`=-2, `MPI_ROOT`=-3"},
    {R(root), 0, .rec = "    siot_put_int(ev, $k, siot_mpi_root($n));\n", .rp = "    int $n = rp_peer(rp_i(&a[$k]));\n",
     .doc_type = "int", .doc = "root rank"},
    {R(tag), 0, .rec = "    siot_put_int(ev, $k, siot_mpi_tag($n));\n", .rp = "    int $n = rp_tag(rp_i(&a[$k]));\n",
     .doc_type = "int", .doc = "the tag, `MPI_ANY_TAG`=-1"},
    {R(status), 0, .pre_hook = status_pre, .rec_hook = status_rec, .rp = RP_STATUS,
     .fpre = STATUS_FPRE,
     .fpost = "    MPI_Status siot_st_$n;\n    memset(&siot_st_$n, 0, sizeof siot_st_$n);\n    if (ret == MPI_SUCCESS) PMPI_Status_f2c((MPI_Fint *)$n_fs, &siot_st_$n);\n    MPI_Status *siot_sp_$n = &siot_st_$n;\n",
     .doc_type = "`MPI_Status *` (out)",
     .doc = "array `[source, tag, bytes]` (the wrapper supplies a status when the program passed `MPI_STATUS_IGNORE`); "
            "of a completed send, collective or one-sided request, whose source, tag and count MPI leaves undefined, "
            "an empty status's `[-1, -1, 0]` (of an MPI-IO request: `[-1, -1, bytes]`)"},
    {R(iostatus), UNREC, .pre_hook = status_pre, .rp = RP_STATUS,
     .fpost = "    MPI_Status siot_st_$n;\n    memset(&siot_st_$n, 0, sizeof siot_st_$n);\n    if (ret == MPI_SUCCESS) PMPI_Status_f2c((MPI_Fint *)$n_fs, &siot_st_$n);\n    MPI_Status *siot_sp_$n = &siot_st_$n;\n",
     .doc_type = "`MPI_Status *` (out, MPI-IO)", .doc = "not an argument value: the bytes it reports become the event's `bytes`"},
    {R(statusarr), 0, .pre_hook = statusarr_pre, .rec_hook = statusarr_rec, .rp_hook = statusarr_rp, .fpre = "",
     .fpost_hook = statusarr_fpost,
     .doc_type = "`MPI_Status []` (out)",
     .doc = "the statuses of the completed requests, `[source, tag, bytes]` each, one after the other (the wrapper "
            "supplies them when the program passed `MPI_STATUSES_IGNORE` for at most 64 requests); the fields a "
            "completed request's status leaves undefined (a send's, a collective's; MPI-IO's source and tag) "
            "recorded as an empty status's, as for `status`"},
    {R(outflag), 0, .rec = OUT_REC, .rp = OUT_RP, .fpre = OUT_RP, .fpost = "    if (ret == MPI_SUCCESS) $n_v = *(MPI_Fint *)$n_f != 0;\n",
     .doc_type = "`int *` (out)", .doc = "the flag the call returned"},
    {R(intarr), 0, .rec = "    siot_put_ints(ev, $k, $n, $L);\n", .rp = "    int *$n_p = rp_ints(c, &a[$k], $i);\n    int *$n = $n_p;\n",
     .fpre = "    const int *$n = (const int *)$n_f;\n", .doc_type = "`const int []`", .doc = "`intarr(N)`: array of N values"},
    {R(intarr3), NOFORT, .rec = "    siot_put_ints(ev, $k, $n ? &$n[0][0] : NULL, 3 * ($L));\n",
     .rp = "    int *$n_p = rp_ints(c, &a[$k], $i);\n    int (*$n)[3] = (int (*)[3])$n_p;\n", .doc_type = "`int [][3]`",
     .doc = "`intarr3(N)`: N triples (first, last, stride), as `MPI_Group_range_incl` takes them"},
    {R(aintarr), 0, .rec = "    siot_mpi_put_aints(ev, $k, $n, $L);\n", .rp = "    MPI_Aint *$n = rp_aints(c, &a[$k], $i);\n",
     .fpre = AINTS_FPRE, .fpost = AINTS_FPOST,
     .doc_type = "`const MPI_Aint []`",
     .doc = "`aintarr(N)`: array of N values"},
    {R(addrarr), 0, .rec_hook = addrarr_rec, .rp_hook = addrarr_rp,
     .fpre = AINTS_FPRE, .fpost = AINTS_FPOST,
     .doc_type = "`const MPI_Aint []` / `const MPI_Count []`",
     .doc = "`addrarr(N)`: N byte displacements that may be absolute addresses (`MPI_Get_address` results, used "
            "with `MPI_BOTTOM`): when every one lies in the process's mapped memory, relative to the lowest (the "
            "same on every rank; `src/addrs.h`), else as they are; the replay builds its datatype from those, and "
            "its buffer starts where the lowest block does"},
    {R(countarr), NOFORT, .rec = "    siot_mpi_put_counts(ev, $k, $n, $L);\n", .rp = "    MPI_Count *$n = rp_counts(c, &a[$k], $i);\n",
     .doc_type = "`const MPI_Count []`", .doc = "`countarr(N)`: array of N values (the MPI-4 large-count forms)"},
    {R(outintarr), 0, .rec = "    siot_put_ints(ev, $k, $n, $L);\n", .rp_hook = outintarr_rp,
     .fpre = "    int $n_s[256];\n    int *$n = NULL;\n", .doc_type = "`int []` (out)",
     .doc = "`outintarr(N)`: array of N values written by the call (`N` may be an out parameter already recorded)"},
    /* HDF5 and PnetCDF */
    {R(hid), 0, .rec = "    siot_put_int(ev, $k, siot_h5_id($n));\n", .doc_type = "`hid_t`",
     .doc = "HDF5 id (docs/handles.md): 0 for `H5P_DEFAULT`/`H5S_ALL`, fixed ids for predefined types and "
            "property-list classes, created ones from 256"},
    {R(closehid), 0, .rec = "    siot_put_int(ev, $k, siot_h5_close($n, $ok));\n", .doc_type = "`hid_t`",
     .doc = "the id of the object being closed (or whose reference `H5Idec_ref` drops); released when the call "
            "succeeds and took its last reference (`H5Iinc_ref` keeps it alive)"},
    {R(dims), 0, .rec = "    siot_put_i64s(ev, $k, $n, $L);\n", .doc_type = "`const hsize_t []`",
     .doc = "`dims(N)`: array of N values (`H5S_UNLIMITED` is -1)"},
    {R(ncid), 0, .rec_hook = ncid_rec, .doc_type = "int", .doc = "netCDF file id as a small id; released by close-class calls"},
    {R(outncid), 0, .rec = "    siot_put_int(ev, $k, ($n && $ok) ? siot_nc_new(*$n) : -1);\n", .doc_type = "`int *` (out)",
     .doc = "id of the created or opened file"},
    {R(varid), 0, .rec = SCALAR_REC, .doc_type = "int", .doc = "variable or dimension id, as it is"},
    {R(outvarid), 0, .rec = OUT_REC, .doc_type = "`int *` (out)", .doc = "variable or dimension id the call returns"},
    {R(offarr), 0, .rec = "    siot_put_i64s(ev, $k, $n, $L);\n", .doc_type = "`const MPI_Offset []`",
     .doc = "`offarr(N)`: array of N values (`start`, `count`, `stride`)"},
    {R(ncreq), 0, .rec = "    siot_put_int(ev, $k, ($n && $ok) ? siot_nc_req_new(*$n) : -1);\n", .doc_type = "`int *` (out)",
     .doc = "id of the new non-blocking request"},
    {R(ncreqarr), 0, .pre_hook = reqarr_pre, .rec = "    siot_nc_put_reqs(ev, $k, siot_n_$n, siot_o_$n, $ok);\n",
     .doc_type = "`int []` (in/out)", .doc = "`ncreqarr(N)`: array of request ids; completed ones released"},
};
#define NROLES (sizeof ROLES / sizeof *ROLES)

const role_def *role_of(int role)
{
    for (size_t i = 0; i < NROLES; i++)
        if (ROLES[i].role == role)
            return &ROLES[i];
    return NULL;
}

static const role_def *must(const func *f, const param *p)
{
    const role_def *r = role_of(p->role);
    if (!r)
        die(f->file, f->line, "%s: role %s is not supported by the generator", f->name, siot_role_name((unsigned)p->role));
    return r;
}

int role_recorded(int role)
{
    const role_def *r = role_of(role);
    return r && !(r->flags & UNREC);
}

void role_pre(const func *f, const param *p)
{
    const role_def *r = must(f, p);
    if (r->pre)
        emit_tpl(r->pre, f, p, r->h);
    if (r->pre_hook)
        r->pre_hook(f, p);
}

int role_own(int role)
{
    for (size_t i = 0; i < sizeof ROLES / sizeof ROLES[0]; i++)
        if (ROLES[i].role == role)
            return (ROLES[i].flags & (UNREC | OWN)) != 0;
    return 0;
}

void role_record(const func *f, const param *p)
{
    const role_def *r = must(f, p);
    if (r->rec_hook)
        r->rec_hook(f, p);
    else if (r->rec)
        emit_tpl(r->rec, f, p, r->h);
    else
        die(f->file, f->line, "%s: role %s is not recorded", f->name, siot_role_name((unsigned)p->role));
}

void role_replay_arg(const func *f, const param *p)
{
    const role_def *r = must(f, p);
    if (r->rp_hook)
        r->rp_hook(f, p);
    else if (r->rp)
        emit_tpl(r->rp, f, p, r->h);
    else if (p->rec >= 0)
        o("    /* role %s */\n", siot_role_name((unsigned)p->role));
}

void role_replay_unrecorded(const func *f, const param *p) { role_replay_arg(f, p); }

void role_replay_post(const func *f, const param *p)
{
    const role_def *r = must(f, p);
    if (r->rp_post)
        emit_tpl(r->rp_post, f, p, r->h);
    if (r->post_hook)
        r->post_hook(f, p);
}

const char *role_fort_handle(int role)
{
    const role_def *r = role_of(role);
    return r && r->h ? r->h->f2c : NULL;
}

int role_fortran_ok(int role)
{
    const role_def *r = role_of(role);
    return !r || !(r->flags & NOFORT);
}

void role_fort_pre(const func *f, const param *p, const char *L)
{
    const role_def *r = must(f, p);
    (void)L;
    if (r->fpre)
        emit_tpl(r->fpre, f, p, r->h);
    else
        emit_tpl("    $T $n = ($T)*($FI *)$n_f;\n", f, p, r->h);
}

void role_fort_post(const func *f, const param *p)
{
    const role_def *r = must(f, p);
    if (r->fpost_hook)
        r->fpost_hook(f, p);
    else if (r->fpost)
        emit_tpl(r->fpost, f, p, r->h);
}

void roles_doc(FILE *fp)
{
    fprintf(fp, "| role | C type | recorded as |\n|---|---|---|\n");
    for (size_t i = 0; i < NROLES; i++)
        fprintf(fp, "| `%s` | %s | %s |\n", siot_role_name((unsigned)ROLES[i].role), ROLES[i].doc_type, ROLES[i].doc);
}
