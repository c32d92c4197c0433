/* emit_replay: the replayers of ioreplay (replay_all.c): for each traced
 * function of a replayed layer, rp_NAME rebuilds the arguments from the
 * recorded values (roles.c), calls the function, keeps the handles it made
 * and compares its result with the recorded one. */
#include <string.h>

#include "tools/gen/gen.h"

/* s as a C string literal. */
static void emit_c_string(const char *s)
{
    o("\"");
    for (const char *q = s; *q; q++)
        o(*q == '"' || *q == '\\' ? "\\%c" : "%c", *q);
    o("\"");
}

/* Why a function is not replayed, or NULL. */
const char *not_replayable(const func *f)
{
    unsigned b = SIOT_CLASS_BASE(f->cls);
    if (f->noreplay[0])
        return f->noreplay;
    if (f->covered[0])
        return f->covered;
    if (b == SIOT_CLASS_init || b == SIOT_CLASS_finalize)
        return "ioreplay initialises and finalises MPI itself";
    if (b == SIOT_CLASS_abort || b == SIOT_CLASS_exit)
        return "ending the replay early helps nobody: the end is in the report";
    if (b == SIOT_CLASS_exec)
        return "the replay does not start other programs";
    if (b == SIOT_CLASS_map)
        return "memory mappings are not replayed";
    if (f->layer != SIOT_LAYER_posix && f->layer != SIOT_LAYER_stdio && !is_mpi_layer(f->layer))
        return "replayed through the MPI-IO and POSIX calls it issued";
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        if (p->role == SIOT_ROLE_ignore && strchr(p->decl, '['))
            return "an argument that is not recorded";
    }
    return NULL;
}

/* Formatted output (fmtrole SIOT_ROLE_fmt) or wide formatted output
 * (SIOT_ROLE_wfmt): as many bytes or wide characters as were written,
 * through the same function, the text as the one argument of a "%s"
 * (L"%ls") format. 0 when f is not such a call. */
static int emit_formatted_call(const func *f, int fmtrole, int wide)
{
    if (!find_role(f, fmtrole))
        return 0;
    const char *fmt = wide ? "L\"%ls\"" : "\"%s\"";
    const param *st = find_role(f, SIOT_ROLE_stream);
    o("    const %s *text = %s(c, rec_ret, %d);\n", wide ? "wchar_t" : "char", wide ? "rp_wtext" : "rp_text", f->np);
    if (find_role(f, SIOT_ROLE_vlist)) {
        o("    %s ret = %s(%s, %s, text);\n", f->rettype, wide ? "call_vfwprintf" : "call_vfprintf", st->name, fmt);
        return 1;
    }
    o("    %s ret = %s(", f->rettype, f->name);
    for (int i = 0; i < f->np; i++)
        o("%s%s", i ? ", " : "",
          f->p[i].role == fmtrole ? fmt : f->p[i].role == SIOT_ROLE_vargs ? "text" : f->p[i].name);
    o(");\n");
    return 1;
}

/* The call itself, and what it returns compared with the recorded value. */
static void emit_replay_call(const func *f)
{
    if (emit_formatted_call(f, SIOT_ROLE_fmt, 0) || emit_formatted_call(f, SIOT_ROLE_wfmt, 1))
        return;
    if (f->replay[0]) {
        /* made another way (replay/rp.h): a temporary file at its recorded name, aio on the replay's aiocbs */
        if (f->retrole == SIOT_ROLE_r_void)
            o("    %s(c", f->replay);
        else
            o("    %s ret = %s(c", f->rettype, f->replay);
        /* a completion's replayer makes the recorded outcome: it is given it */
        unsigned base = SIOT_CLASS_BASE(f->cls);
        if (base == SIOT_CLASS_wait || base == SIOT_CLASS_test || base == SIOT_CLASS_cancel)
            o(", rec_ret");
        for (int i = 0; i < f->np; i++)
            if (f->p[i].role == SIOT_ROLE_aiolist) /* and how many requests the record holds */
                o(", %s, %s_n", f->p[i].name, f->p[i].name);
            else if (f->p[i].role != SIOT_ROLE_vargs && f->p[i].role != SIOT_ROLE_vlist) /* not recorded */
                o(", %s", f->p[i].name);
        o(");\n%s", f->retrole == SIOT_ROLE_r_void ? "    int ret = 0;\n" : "");
        return;
    }
    if (f->retrole == SIOT_ROLE_r_void)
        o("    %s(", f->name);
    else
        o("    %s ret = %s(", f->rettype, f->name);
    for (int i = 0; i < f->np; i++)
        o("%s%s", i ? ", " : "", f->p[i].name);
    o(");\n%s", f->retrole == SIOT_ROLE_r_void ? "    int ret = 0;\n" : "");
}

static void emit_replay_result(const func *f)
{
    switch (f->retrole) {
    case SIOT_ROLE_r_newfd:
        if (!find_role(f, SIOT_ROLE_fdnew))
            o("    if (ret >= 0) rp_set_fd(c, rec_ret, ret);\n");
        o("    return rp_result(c, rec_ret, ret >= 0 ? rec_ret : (int64_t)ret);\n");
        break;
    case SIOT_ROLE_r_newstream:
        o("    if (ret) rp_set_stream(c, rec_ret, ret);\n    return rp_result(c, rec_ret, ret ? rec_ret : -1);\n");
        break;
    case SIOT_ROLE_r_newdir:
        o("    if (ret) rp_set_dir(c, rec_ret, ret);\n    return rp_result(c, rec_ret, ret ? rec_ret : -1);\n");
        break;
    case SIOT_ROLE_r_ptr:
    case SIOT_ROLE_r_line:
        o("    return rp_result(c, rec_ret, ret != NULL);\n");
        break;
    case SIOT_ROLE_r_wchar:
        o("    return rp_result(c, rec_ret, ret == WEOF ? -1 : (int64_t)ret);\n");
        break;
    case SIOT_ROLE_r_wline:
        /* the line's length is the replay's text's, not the program's: whether one was read */
        o("    return rp_result(c, rec_ret > 0, ret != NULL);\n");
        break;
    default:
        if (find_role(f, SIOT_ROLE_fcntlarg))
            o("    if (ret >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) rp_set_fd(c, rec_ret, ret);\n"
              "    return rp_result(c, rec_ret, (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && ret >= 0 ? rec_ret : ret);\n");
        else if (is_mpi_ret(f))
            o("    return rp_result(c, rec_ret, rp_mpi_err_class(ret));\n");
        else
            o("    return rp_result(c, rec_ret, (int64_t)ret);\n");
    }
}

/* The completion that tells whether a test or probe found something: its
 * flag, else its first count (MPI_Testsome's outcount); as
 * replay/handles.c rp_poll_found_nothing reads it. */
static const param *completion_flag(const func *f)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    if (base != SIOT_CLASS_test && base != SIOT_CLASS_probe)
        return NULL;
    const param *flag = find_role(f, SIOT_ROLE_outflag);
    return flag ? flag : find_role(f, SIOT_ROLE_outint);
}

/* MPI_Waitany/Waitsome/Testany/Testsome: a request array and the index or
 * indices of the requests completed. */
static const param *completed_indices(const func *f)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    if (!find_role(f, SIOT_ROLE_reqarr) || (base != SIOT_CLASS_wait && base != SIOT_CLASS_test))
        return NULL;
    const param *idxs = find_role(f, SIOT_ROLE_outintarr);
    return idxs ? idxs : find_role(f, SIOT_ROLE_outint);
}

/* Which requests a completion call completes, and whether a test finds
 * anything, depend on timing; the replay makes the recorded outcome happen:
 * a poll that found nothing is not reissued, the requests the call
 * completed are awaited first (tests) and are the only ones it is given
 * (any/some: the others are held back and put back after; replay/rp.h). */
static void emit_completion_as_recorded(const func *f)
{
    const param *flag = completion_flag(f), *arr = find_role(f, SIOT_ROLE_reqarr), *done = completed_indices(f);
    const param *req = find_role(f, SIOT_ROLE_waitreq), *req_in = find_role(f, SIOT_ROLE_req);
    unsigned base = SIOT_CLASS_BASE(f->cls);
    int test = base == SIOT_CLASS_test;
    if (flag)
        o("    if (rp_i(&a[%d]) == 0)\n        return rp_poll(c);\n", flag->rec);
    if (done)
        o("    rp_hold_others(c, %s, rp_i(&a[%d]), &a[%d], %d);\n", arr->name, find_role(f, SIOT_ROLE_count)->rec,
          done->rec, test);
    else if (arr && test)
        o("    rp_await_all(c, %s, rp_i(&a[%d]));\n", arr->name, find_role(f, SIOT_ROLE_count)->rec);
    else if ((req || req_in) && test)
        o("    rp_await(c, %s%s);\n", req ? "*" : "", (req ? req : req_in)->name);
    else if (base == SIOT_CLASS_probe && flag)
        o("    rp_await_message(c, %s, %s, %s);\n", find_role(f, SIOT_ROLE_peer)->name, find_role(f, SIOT_ROLE_tag)->name,
          find_role(f, SIOT_ROLE_comm)->name);
}

/* A test that found its requests complete in the run is made again until
 * it does in the replay (bounded): MPI-IO's generalized requests complete
 * only when a test polls them, which the wait before it cannot do. The
 * tests that find nothing on the way are polls a comparison leaves out. */
static void emit_retest(const func *f)
{
    const param *flag = completion_flag(f);
    if (!flag || SIOT_CLASS_BASE(f->cls) != SIOT_CLASS_test)
        return;
    o("    while (ret == MPI_SUCCESS && %s_v == 0 && rp_retest(c))\n        ret = %s(", flag->name, f->name);
    for (int i = 0; i < f->np; i++)
        o("%s%s", i ? ", " : "", f->p[i].name);
    o(");\n");
}

/* A close of a descriptor: the replay's aio requests on it complete first
 * (a request the program had completed by then must not fail on a closed
 * descriptor in a replay that is slower). */
static void emit_aio_closing(const func *f)
{
    const param *fd = find_role(f, SIOT_ROLE_fd);
    if (f->layer == SIOT_LAYER_posix && fd && (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_close || f->closes))
        o("    rp_aio_closing(c, %s);\n", fd->name);
}

/* A receive or probe: its source and tag (a receive's are the last peer
 * and tag: MPI_Sendrecv's second ones) are posted as the run matched them
 * when the program gave wildcards (replay/match.h). */
static void emit_wildcard(const func *f)
{
    const param *src = NULL, *tag = NULL;
    for (int i = 0; i < f->np; i++) {
        if (f->p[i].role == SIOT_ROLE_peer && f->p[i].rec >= 0)
            src = &f->p[i];
        if (f->p[i].role == SIOT_ROLE_tag && f->p[i].rec >= 0)
            tag = &f->p[i];
    }
    unsigned base = SIOT_CLASS_BASE(f->cls);
    if (!src || !tag || f->layer != SIOT_LAYER_mpi ||
        (base != SIOT_CLASS_recv && base != SIOT_CLASS_sendrecv && base != SIOT_CLASS_probe))
        return;
    const param *st = find_role(f, SIOT_ROLE_status), *req = find_role(f, SIOT_ROLE_newreq);
    if (st && st->rec >= 0)
        o("    rp_wildcard_status(c, &a[%d], &%s, &%s);\n", st->rec, src->name, tag->name);
    else if (req && req->rec >= 0 && !strstr(f->name, "_init")) /* MPI_Irecv (MPI_Recv_init's MPI_Start: not) */
        o("    rp_wildcard_req(c, rp_i(&a[%d]), &%s, &%s);\n", req->rec, src->name, tag->name);
}

static void emit_replayer(const func *f)
{
    o("\n/* %s:%d */\nstatic int rp_%s(rp_state *c, const siot_value *a, int64_t rec_ret)\n{\n", f->file, f->line, f->name);
    o("    (void)c;\n    (void)a;\n    (void)rec_ret;\n");
    if (f->covered[0]) {
        o("    return RP_DONE; /* %s */\n}\n", f->covered);
        return;
    }
    const char *why = not_replayable(f);
    if (why) {
        o("    return rp_skip(c, ");
        emit_c_string(why);
        o(");\n}\n");
        return;
    }
    if (f->cond[0])
        o("#if !(%s)\n    return rp_skip(c, \"not in the MPI this replay was built with\");\n#else\n", f->cond);
    for (int i = 0; i < f->np; i++)
        if (f->p[i].rec >= 0)
            role_replay_arg(f, &f->p[i]);
    for (int i = 0; i < f->np; i++)
        if (f->p[i].rec < 0)
            role_replay_unrecorded(f, &f->p[i]);
    if (is_mpi_ret(f))
        emit_wildcard(f);
    if (is_mpi_ret(f))
        emit_completion_as_recorded(f);
    emit_aio_closing(f);
    emit_replay_call(f);
    if (is_mpi_ret(f))
        emit_retest(f);
    if (is_mpi_ret(f) && completed_indices(f))
        o("    rp_put_back_others(c, %s);\n", find_role(f, SIOT_ROLE_reqarr)->name);
    for (int i = 0; i < f->np; i++)
        role_replay_post(f, &f->p[i]);
    emit_replay_result(f);
    if (f->cond[0])
        o("#endif\n");
    o("}\n");
}

static void emit_replay_prologue(void)
{
    o("/* Generated by siot-gen (tools/gen) from the spec files. Do not edit. */\n");
    o("#define _LARGEFILE64_SOURCE\n#include <errno.h>\n#include <fcntl.h>\n#include <stdint.h>\n#include <string.h>\n");
    o("#include <dirent.h>\n#include <stdio.h>\n#include <sys/file.h>\n#include <sys/mman.h>\n#include <sys/stat.h>\n"
      "#include <sys/statfs.h>\n#include <sys/types.h>\n#include <sys/uio.h>\n#include <unistd.h>\n");
    o("#include <aio.h>\n#include <sys/sendfile.h>\n#include <sys/statvfs.h>\n#include <sys/xattr.h>\n#include <wchar.h>\n");
    o("#include <stdarg.h>\n#include \"replay/rp.h\"\n");
    o("/* vfprintf needs a va_list: made here, so that the replay calls vfprintf itself. */\n"
      "static int call_vfprintf(FILE *f, const char *fmt, ...)\n{\n    va_list ap;\n    va_start(ap, fmt);\n"
      "    int r = vfprintf(f, fmt, ap);\n    va_end(ap);\n    return r;\n}\n");
    o("static int call_vfwprintf(FILE *f, const wchar_t *fmt, ...)\n{\n    va_list ap;\n    va_start(ap, fmt);\n"
      "    int r = vfwprintf(f, fmt, ap);\n    va_end(ap);\n    return r;\n}\n");
    o(GEN_NO_UNUSED_WARNINGS);
    o("#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n");
    /* MPI_UNWEIGHTED is a sentinel pointer to an empty object in Open MPI */
    o("#pragma GCC diagnostic ignored \"-Wstringop-overread\"\n");
    /* declarations for the fortified and compatibility names (_IO_putc, __read_chk: not in the headers) */
    for (int i = 0; i < NF; i++) {
        const func *f = &F[i];
        if ((f->layer != SIOT_LAYER_posix && f->layer != SIOT_LAYER_stdio) || f->name[0] != '_')
            continue;
        o("extern %s %s(", f->rettype, f->name);
        emit_params(f);
        o(");\n");
    }
}

void emit_replay_file(const char *dir)
{
    out = open_out(dir, "replay_all.c");
    emit_replay_prologue();
    static int emitted[MAXF];
    for (int i = 0; i < NF; i++)
        if (F[i].layer == SIOT_LAYER_posix || F[i].layer == SIOT_LAYER_stdio || is_mpi_layer(F[i].layer)) {
            emit_removed_decl(&F[i], "");
            emit_replayer(&F[i]);
            emitted[i] = 1;
        }
    o("\nconst rp_entry rp_table[] = {\n");
    uint32_t n = 0;
    for (int i = 0; i < NF; i++)
        if (emitted[i]) {
            const char *why = F[i].covered[0] ? NULL : not_replayable(&F[i]);
            o("    {\"%s\", rp_%s, ", F[i].name, F[i].name);
            if (why && !(F[i].cond[0]))
                emit_c_string(why);
            else
                o("NULL");
            o(", %d},\n", F[i].nrec);
            n++;
        }
    o("};\nconst uint32_t rp_table_n = %u;\n", n);
    fclose(out);
}
