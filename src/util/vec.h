/*
 * Typed growable arrays on the heap: WEIR_VEC(T) declares a struct with
 * items/len/cap; weir__vec_grow makes room with overflow checks.
 *
 *     WEIR_VEC(int) v = WEIR_VEC_INIT;
 *     if (WEIR_VEC_PUSH(&v, 42)) return WEIR_ENOMEM;
 *     WEIR_VEC_FREE(&v);
 */
#ifndef WEIR_UTIL_VEC_H
#define WEIR_UTIL_VEC_H

#include <stddef.h>
#include <stdlib.h>

#include "weir.h"

#define WEIR_VEC(T)                                                           \
    struct {                                                                  \
        T *items;                                                             \
        size_t len, cap;                                                      \
    }
#define WEIR_VEC_INIT { NULL, 0, 0 }

/* Ensure room for `need` elements of `elem` bytes. 0 or WEIR_ENOMEM. */
int weir__vec_grow(void **items, size_t *cap, size_t elem, size_t need);

/* Evaluates to 0 on success, WEIR_ENOMEM on failure. */
#define WEIR_VEC_PUSH(v, x)                                                   \
    (weir__vec_grow((void **)&(v)->items, &(v)->cap, sizeof(*(v)->items),     \
                    (v)->len + 1)                                             \
         ? WEIR_ENOMEM                                                                 \
         : ((v)->items[(v)->len++] = (x), 0))
#define WEIR_VEC_FREE(v)                                                      \
    do {                                                                      \
        free((v)->items);                                                     \
        (v)->items = NULL;                                                    \
        (v)->len = (v)->cap = 0;                                              \
    } while (0)

#endif
