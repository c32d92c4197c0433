/* scantext: input text that a scanf format reads in exactly a given number
 * of bytes, assigning every conversion: "0" for numbers, "x" for strings
 * and characters, the format's own literal characters, one blank or newline
 * for a run of white space; the length beyond that goes into the first
 * numbers and strings (more zeros, more x), within their widths. So that a
 * staged input file makes a replayed fscanf consume what the traced one did
 * (the values it read are not in the trace). No global state.
 *
 * Errors: siot_scan_text returns NULL when the format cannot be met so or
 * without memory; siot_scan_shape -1 for a conversion it does not know. */
#ifndef SIOT_SCANTEXT_H
#define SIOT_SCANTEXT_H

#include <stddef.h>
#include <stdint.h>

/* The text (n bytes and a NUL, malloc'd) for a scan that assigned items
 * (EOF: it met the end after consuming n bytes of blanks), or NULL when the
 * format cannot be met so (a %[ set, fields too wide or too narrow, a scan
 * that failed to match: what it met is not known) or without memory. */
char *siot_scan_text(const char *fmt, int64_t n, int items);

/* The widest field of fmt that writes into an argument (%c, %s, %[ with a
 * width), 0 without one; how many arguments it assigns (-1: a conversion
 * this does not know, or an allocating %m). */
int siot_scan_shape(const char *fmt, int64_t *widest);

#endif
