#include <stdint.h>
#include <stddef.h>

#include "core/predef.h"

const char *siot_predef_name(char kind, int64_t id)
{
#define X(i, n)  \
    if (id == i) \
        return #n;
    switch (kind) {
    case 'c':
        SIOT_PREDEF_COMMS(X)
        break;
    case 'g':
        SIOT_PREDEF_GROUPS(X)
        break;
    case 'd':
        SIOT_PREDEF_DTYPES(X)
        break;
    case 'o':
        SIOT_PREDEF_OPS(X)
        break;
    }
#undef X
    return NULL;
}
