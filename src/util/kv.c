/*
 * Looking a key up among key/value pairs (see kv.h).
 */
#include "util/kv.h"

#include "util/str.h"

const char *weir__kv_get(const weir_kv *kv, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (weir__str_ieq(kv[i].key, key))
            return kv[i].value;
    return NULL;
}
