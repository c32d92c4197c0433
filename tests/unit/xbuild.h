/* xbuild: expressions the unit tests build by hand, in an arena, to give
 * the code under test values known from the test's own numbers. */
#ifndef SIOT_UNIT_XBUILD_H
#define SIOT_UNIT_XBUILD_H

#include <string.h>

#include "core/model.h"

/* base + rcoef*rank + sum coef[k]*iter[k], over n loop levels */
static inline siot_expr *unit_affine(siot_arena *a, int64_t base, int64_t rcoef, uint32_t n, const int64_t *coef)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    x->tag = SIOT_X_AFFINE;
    x->base = base;
    x->rcoef = rcoef;
    x->n = n;
    x->u.coef = siot_arena_alloc(a, (n ? n : 1) * sizeof(int64_t));
    if (n)
        memcpy(x->u.coef, coef, n * sizeof(int64_t));
    return x;
}

#endif
