/* fcntl_cmd: which fcntl commands take a struct flock, shared by the
 * wrapper that records the lock and the replay that rebuilds it. Pure
 * function of the command: no state, safe anywhere (signal handlers too).
 *
 * Errors: none: the answer is 1 or 0. */
#ifndef SIOT_FCNTL_CMD_H
#define SIOT_FCNTL_CMD_H

#include <fcntl.h>

/* The record-lock commands (F_GETLK, F_SETLK, F_SETLKW and the
 * open-file-description forms where the headers have them). */
static inline int siot_fcntl_lock_cmd(int cmd)
{
    switch (cmd) {
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW:
#ifdef F_OFD_GETLK
    case F_OFD_GETLK:
    case F_OFD_SETLK:
    case F_OFD_SETLKW:
#endif
        return 1;
    }
    return 0;
}

#endif
