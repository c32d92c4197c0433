/* roles: the vocabulary shared by the spec generator, the recorder and every
 * reader: layers, call classes and parameter roles (docs/spec-format.md).
 * Codes are stored in trace files: append new entries, never renumber.
 *
 * Errors: the name functions answer "unknown" for a code not in the lists,
 * siot_layer_from_name -1 for an unknown name; nothing else can fail. */
#ifndef SIOT_ROLES_H
#define SIOT_ROLES_H

#define SIOT_LAYER_LIST(X) X(posix, 0) X(stdio, 1) X(mpi, 2) X(mpiio, 3) X(hdf5, 4) X(pnetcdf, 5)
enum siot_layer {
#define X(n, v) SIOT_LAYER_##n = v,
    SIOT_LAYER_LIST(X)
#undef X
    SIOT_NLAYERS
};

/* Base class of a call; modifiers are or-ed bits above the low byte. */
#define SIOT_CLASS_LIST(X)                                                                   \
    X(open, 1) X(close, 2) X(read, 3) X(write, 4) X(seek, 5) X(sync, 6) X(meta, 7) X(dir, 8) \
    X(map, 9) X(dup, 10) X(lock, 11) X(init, 12) X(finalize, 13) X(send, 14) X(recv, 15)     \
    X(sendrecv, 16) X(coll, 17) X(wait, 18) X(test, 19) X(probe, 20) X(start, 21)           \
    X(cancel, 22) X(comm, 23) X(group, 24) X(type, 25) X(view, 26) X(info, 27) X(query, 28) \
    X(req, 29) X(attr, 30) X(space, 31) X(prop, 32) X(define, 33) X(mode, 34)  \
    X(abort, 35) X(exit, 36) X(exec, 37)
enum siot_class {
#define X(n, v) SIOT_CLASS_##n = v,
    SIOT_CLASS_LIST(X)
#undef X
};
#define SIOT_CLASS_BASE(c) ((c) & 0xff)
/* A call after which the process does not go on: MPI_Abort, _exit and the
 * like (the run ended there; the replay names it and finalizes instead). */
#define SIOT_CLASS_ENDS_RUN(c) (SIOT_CLASS_BASE(c) == SIOT_CLASS_abort || SIOT_CLASS_BASE(c) == SIOT_CLASS_exit)
#define SIOT_CLS_NB 0x100u    /* non-blocking: returns a request */
#define SIOT_CLS_COLL 0x200u  /* collective over a communicator */
#define SIOT_CLS_BEGIN 0x400u /* split collective, first half */
#define SIOT_CLS_END 0x800u   /* split collective, second half */

/* Parameter and return roles. */
#define SIOT_ROLE_IS_RETURN(r) ((r) >= 100 && (r) <= 117)
#define SIOT_ROLE_LIST(X)                                                                          \
    X(ignore, 0) X(buf, 1) X(path, 2) X(str, 3) X(int, 4) X(count, 5) X(size, 6) X(offset, 7)     \
    X(whence, 8) X(oflags, 9) X(mode, 10) X(omode, 11) X(fcntlarg, 12) X(fd, 13) X(fdnew, 14)    \
    X(stream, 15) X(dir, 16) X(outint, 17) X(outoff, 18) X(iov, 19) X(strlen, 20) X(comm, 21)     \
    X(newcomm, 22) X(freecomm, 23) X(group, 24) X(newgroup, 25) X(freegroup, 26) X(dtype, 27)    \
    X(newdtype, 28) X(freedtype, 29) X(commitdtype, 30) X(dtypearr, 31) X(op, 32) X(file, 33)     \
    X(newfile, 34) X(closefile, 35) X(info, 36) X(newinfo, 37) X(req, 38) X(newreq, 39)           \
    X(waitreq, 40) X(reqarr, 41) X(peer, 42) X(root, 43) X(tag, 44) X(status, 45)                \
    X(iostatus, 46) X(statusarr, 47) X(outflag, 48) X(intarr, 49) X(aintarr, 50)                 \
    X(outintarr, 51) X(intarr3, 52) X(reqptr, 53) X(outdtype, 54) X(hid, 55) X(newhid, 56)       \
    X(closehid, 57) X(dims, 58) X(outhid, 59) X(ncid, 60) X(outncid, 61) X(varid, 62)            \
    X(outvarid, 63) X(offarr, 64) X(outreqarr, 65) X(message, 66) X(newmessage, 67)              \
    X(outint64, 68) X(newop, 69) X(freeop, 70) X(outgroup, 71) X(dtypeptr, 72) X(fmt, 73)       \
    X(vargs, 74) X(vlist, 75) X(ncreq, 76) X(ncreqarr, 77) X(weights, 78) X(cmdline, 79) X(countarr, 80)    \
    X(fpos, 81) X(offptr, 82) X(aiocb, 83) X(aiolist, 84) X(outaddr, 85) X(userfn, 86)      \
    X(win, 87) X(newwin, 88) X(freewin, 89) X(winbase, 90) X(winaddr, 91) X(amode, 92)       \
    X(fdrange, 93) X(wcslen, 94) X(wbuf, 95) X(wfmt, 96) X(arglist, 97) X(outdtypearr, 98) X(dirfd, 99) \
    X(h5facc, 118) X(nccmode, 119) X(ncomode, 120) X(addrarr, 121) /* parameter roles after the return roles */         \
    /* return roles */                                                                          \
    X(r_int, 100) X(r_bytes, 101) X(r_items, 102) X(r_off, 103) X(r_newfd, 104)                  \
    X(r_newstream, 105) X(r_newdir, 106) X(r_ptr, 107) X(r_mpi, 108) X(r_void, 109)             \
    X(r_herr, 110) X(r_newhid, 111) X(r_nc, 112) X(r_line, 113) X(r_hid, 114) X(r_int64, 115)  \
    X(r_wchar, 116) X(r_wline, 117)
enum siot_role {
#define X(n, v) SIOT_ROLE_##n = v,
    SIOT_ROLE_LIST(X)
#undef X
};

const char *siot_layer_name(unsigned layer);
int siot_layer_from_name(const char *s); /* -1 if unknown */
const char *siot_class_name(unsigned cls); /* base word only */
const char *siot_role_name(unsigned role);
int siot_role_is_array(unsigned role);
int siot_role_is_string(unsigned role);

/* One step of a lookup by name over one of the lists above, in a function
 * whose argument is the name s (with <string.h>):
 *     SIOT_ROLE_LIST(SIOT_NAME_TEST)
 *     return -1;
 * the readers' layer names and the generator's roles and classes alike. */
#define SIOT_NAME_TEST(n, v)    \
    if (strcmp(s, #n) == 0)     \
        return v;

#endif
