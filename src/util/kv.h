/*
 * Key/value pairs: the public weir_kv (configuration, table properties,
 * sink and source options) as every module holds them, and looking a key
 * up among them.
 */
#ifndef WEIR_UTIL_KV_H
#define WEIR_UTIL_KV_H

#include <stddef.h>

#include "weir.h"

/* The value of key (ASCII case-insensitive) among the n pairs kv, the
 * first that matches; NULL when none does. Borrowed from kv. */
const char *weir__kv_get(const weir_kv *kv, size_t n, const char *key);

#endif
