/*
 * Growth for WEIR_VEC arrays (see vec.h).
 */
#include "vec.h"

#include <stdint.h>

#include "weir.h"

int weir__vec_grow(void **items, size_t *cap, size_t elem, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 4;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return WEIR_ENOMEM;
        n *= 2;
    }
    if (elem && n > SIZE_MAX / elem)
        return WEIR_ENOMEM;
    void *p = realloc(*items, n * elem);
    if (!p)
        return WEIR_ENOMEM;
    *items = p;
    *cap = n;
    return 0;
}
