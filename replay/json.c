/* json: JSON text for trace values. */
#include "replay/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/expr.h"
#include "core/names.h"
#include "core/roles.h"

void siot_json_str(siot_vbuf *o, const char *s, size_t n)
{
    siot_vbuf_u8(o, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char t[8];
        if (c == '"' || c == '\\') {
            siot_vbuf_u8(o, '\\');
            siot_vbuf_u8(o, c);
        } else if (c < 0x20 || c == 0x7f || c >= 0x80) {
            /* Non-ASCII bytes are escaped one by one so the output is always valid JSON. */
            snprintf(t, sizeof t, "\\u%04x", c);
            siot_vbuf_put(o, t, 6);
        } else {
            siot_vbuf_u8(o, c);
        }
    }
    siot_vbuf_u8(o, '"');
}

static void put_i64(siot_vbuf *o, int64_t v)
{
    char t[32];
    int n = snprintf(t, sizeof t, "%" PRId64, v);
    siot_vbuf_put(o, t, (size_t)n);
}

void siot_json_value(siot_vbuf *o, unsigned role, const siot_value *v)
{
    switch (v->kind) {
    case SIOT_V_INT:
        put_i64(o, v->i);
        break;
    case SIOT_V_STR:
        siot_json_str(o, v->s, v->slen);
        break;
    case SIOT_V_ARR:
        if (role == SIOT_ROLE_status && v->n == 3) {
            siot_vbuf_put(o, "{\"source\":", 10);
            put_i64(o, v->arr[0]);
            siot_vbuf_put(o, ",\"tag\":", 7);
            put_i64(o, v->arr[1]);
            siot_vbuf_put(o, ",\"bytes\":", 9);
            put_i64(o, v->arr[2]);
            siot_vbuf_u8(o, '}');
            break;
        }
        if (role == SIOT_ROLE_statusarr && v->n % 3 == 0) { /* [source, tag, bytes] each */
            siot_vbuf_u8(o, '[');
            for (uint32_t i = 0; i < v->n; i += 3) {
                siot_vbuf_put(o, i ? ",{\"source\":" : "{\"source\":", i ? 11 : 10);
                put_i64(o, v->arr[i]);
                siot_vbuf_put(o, ",\"tag\":", 7);
                put_i64(o, v->arr[i + 1]);
                siot_vbuf_put(o, ",\"bytes\":", 9);
                put_i64(o, v->arr[i + 2]);
                siot_vbuf_u8(o, '}');
            }
            siot_vbuf_u8(o, ']');
            break;
        }
        siot_vbuf_u8(o, '[');
        for (uint32_t i = 0; i < v->n; i++) {
            if (i)
                siot_vbuf_u8(o, ',');
            put_i64(o, v->arr[i]);
        }
        siot_vbuf_u8(o, ']');
        break;
    default:
        siot_vbuf_put(o, "null", 4);
    }
}

static void name_member(siot_vbuf *names, const char *key, const char *name)
{
    if (names->len)
        siot_vbuf_u8(names, ',');
    siot_json_str(names, key, strlen(key));
    siot_vbuf_u8(names, ':');
    siot_json_str(names, name, strlen(name));
}

void siot_json_name(siot_vbuf *names, const char *key, unsigned role, const siot_value *v)
{
    char buf[160];
    const char *name = v->kind == SIOT_V_INT ? siot_value_name(role, v->i, buf, sizeof buf) : NULL;
    if (name)
        name_member(names, key, name);
}

void siot_json_errno_name(siot_vbuf *names, int64_t e)
{
    const char *name = siot_errno_name(e);
    if (name)
        name_member(names, "errno", name);
}

void siot_json_ret_name(siot_vbuf *names, const char *flavour, unsigned retrole, int64_t ret)
{
    /* MPI_SUCCESS is not named: a name is news, and 0 is the usual. */
    const char *name = retrole == SIOT_ROLE_r_mpi && ret ? siot_mpi_error_name(flavour, ret) : NULL;
    if (name)
        name_member(names, "ret", name);
}

void siot_json_name_str(siot_vbuf *names, const char *key, const char *text)
{
    name_member(names, key, text);
}

void siot_json_put_names(siot_vbuf *o, const siot_vbuf *names)
{
    if (!names->len)
        return;
    siot_vbuf_put(o, ",\"names\":{", 10);
    siot_vbuf_put(o, names->data, names->len);
    siot_vbuf_u8(o, '}');
}

int siot_json_args(siot_vbuf *o, siot_vbuf *names, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c,
                   siot_vbuf *scratch, uint32_t *bad)
{
    for (uint32_t k = 0; k < e->nargs; k++) {
        siot_value v;
        if (siot_eval(e->args[k], c, scratch, &v) != 0) {
            *bad = k;
            return -1;
        }
        if (k)
            siot_vbuf_u8(o, ',');
        siot_json_str(o, f->argnames[k], strlen(f->argnames[k]));
        siot_vbuf_u8(o, ':');
        siot_json_value(o, f->argroles[k], &v);
        siot_json_name(names, f->argnames[k], f->argroles[k], &v);
    }
    return 0;
}
