#include "core/roles.h"

#include <string.h>

/* One case of the name switches below, from an X-macro list's (name, value). */
#define NAME_CASE(n, v) \
    case v:             \
        return #n;

const char *siot_layer_name(unsigned layer)
{
    switch (layer) {
        SIOT_LAYER_LIST(NAME_CASE)
    }
    return "unknown";
}

int siot_layer_from_name(const char *s)
{
    SIOT_LAYER_LIST(SIOT_NAME_TEST)
    return -1;
}

const char *siot_class_name(unsigned cls)
{
    switch (SIOT_CLASS_BASE(cls)) {
        SIOT_CLASS_LIST(NAME_CASE)
    }
    return "unknown";
}

const char *siot_role_name(unsigned role)
{
    switch (role) {
        SIOT_ROLE_LIST(NAME_CASE)
    }
    return "unknown";
}

int siot_role_is_array(unsigned role)
{
    switch (role) {
    case SIOT_ROLE_iov:
    case SIOT_ROLE_dtypearr:
    case SIOT_ROLE_outdtypearr:
    case SIOT_ROLE_reqarr:
    case SIOT_ROLE_status:
    case SIOT_ROLE_intarr:
    case SIOT_ROLE_aintarr:
    case SIOT_ROLE_addrarr:
    case SIOT_ROLE_countarr:
    case SIOT_ROLE_outintarr:
    case SIOT_ROLE_intarr3:
    case SIOT_ROLE_dims:
    case SIOT_ROLE_offarr:
    case SIOT_ROLE_outreqarr:
    case SIOT_ROLE_ncreqarr:
    case SIOT_ROLE_aiolist:
        return 1;
    }
    return 0;
}

int siot_role_is_string(unsigned role)
{
    return role == SIOT_ROLE_path || role == SIOT_ROLE_str || role == SIOT_ROLE_info;
}
