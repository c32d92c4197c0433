/* sysio: the tracer's own output, with system calls only, so that it never
 * reaches a wrapper and needs no stdio: all of a buffer to a descriptor,
 * and the tracer's one-line messages on stderr. Below the spill file and
 * the trace files, which write through it.
 *
 * Locks: none taken. Signals: usable in a signal handler (raw writes, a
 * buffer on the stack). Errors: siot_write_fd returns 0, or -1 with errno
 * (EINTR retried); a message that cannot be written is lost. */
#ifndef SIOT_SYSIO_H
#define SIOT_SYSIO_H

#include <stddef.h>

/* All of p[0..n) to fd, with system calls (the tracer's own I/O). */
int siot_write_fd(int fd, const void *p, size_t n);
/* One line on stderr (the format starts with "siotrace: "), with raw writes. */
void siot_sayf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
