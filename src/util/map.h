/*
 * String-keyed hash map (open addressing) with optional ASCII
 * case-insensitive keys, as SQL identifiers need. Keys are borrowed: the
 * caller keeps them alive (usually in an arena) as long as the map.
 */
#ifndef WEIR_UTIL_MAP_H
#define WEIR_UTIL_MAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct weir_map_slot {
    const char *key; /* NULL = empty */
    void *value;
    size_t hash;
} weir_map_slot;

typedef struct weir_map {
    weir_map_slot *slots;
    size_t cap; /* power of two or 0 */
    size_t len;
    bool nocase;
} weir_map;

#define WEIR_MAP_INIT(nocase) { NULL, 0, 0, (nocase) }

void weir__map_init(weir_map *m, bool nocase);
void weir__map_free(weir_map *m);
/* Insert or replace. 0 or WEIR_ENOMEM. */
int weir__map_put(weir_map *m, const char *key, void *value);
/* The value for key, or NULL. */
void *weir__map_get(const weir_map *m, const char *key);
bool weir__map_has(const weir_map *m, const char *key);

/* Iterate: for (size_t i = 0; weir__map_next(m, &i, &k, &v);) */
bool weir__map_next(const weir_map *m, size_t *iter, const char **key,
                    void **value);

#endif
