/* measures: what siot's commands measure a trace by, so that a number means
 * the same in each of them: which calls move data (a read, a write, a
 * message, a completion that reports bytes), how a time is written for a
 * person, and the file system block a request is called aligned to. It sits
 * below dump, stats, rankstats, access, findings, report and export, which
 * all use it, and uses nothing of siot/ itself.
 *
 * Locks: none. Errors: none. */
#ifndef SIOT_MEASURES_H
#define SIOT_MEASURES_H

#include <stddef.h>

/* The file system block the misaligned-requests finding judges against;
 * siot report's and siot stats --access's access patterns call a request
 * aligned by the same measure. */
#define SIOT_FS_BLOCK 4096

/* 1 for the call classes whose bytes are data moved (core/roles.h's class). */
int siot_is_data_class(unsigned cls);
/* ns as "850ns", "1.20us", "3.45ms" or "1.234s" into buf. */
void siot_fmt_ns(char *buf, size_t n, double ns);

#endif
