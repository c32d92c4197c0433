/* measures: the measures siot's commands share (measures.h). */
#include "siot/measures.h"

#include <stdio.h>

#include "core/roles.h"

/* wait: the completion that reports an asynchronous request's bytes
 * (aio_return); MPI waits record none (their requests' calls do). */
int siot_is_data_class(unsigned cls)
{
    unsigned b = SIOT_CLASS_BASE(cls);
    return b == SIOT_CLASS_read || b == SIOT_CLASS_write || b == SIOT_CLASS_send || b == SIOT_CLASS_recv ||
           b == SIOT_CLASS_sendrecv || b == SIOT_CLASS_wait;
}

void siot_fmt_ns(char *buf, size_t n, double ns)
{
    if (ns < 1e3)
        snprintf(buf, n, "%.0fns", ns);
    else if (ns < 1e6)
        snprintf(buf, n, "%.2fus", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, n, "%.2fms", ns / 1e6);
    else
        snprintf(buf, n, "%.3fs", ns / 1e9);
}
