/*
 * weir_map: open-addressing string map with linear probing (see map.h).
 */
#include "map.h"

#include <stdlib.h>
#include <string.h>

#include "str.h"
#include "weir.h"

static size_t hash_key(const char *s, bool nocase)
{
    size_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (nocase && c >= 'A' && c <= 'Z')
            c = (unsigned char)(c + 32);
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

static bool key_eq(const char *a, const char *b, bool nocase)
{
    return nocase ? weir__str_ieq(a, b) : strcmp(a, b) == 0;
}

void weir__map_init(weir_map *m, bool nocase)
{
    m->slots = NULL;
    m->cap = m->len = 0;
    m->nocase = nocase;
}

void weir__map_free(weir_map *m)
{
    if (!m)
        return;
    free(m->slots);
    m->slots = NULL;
    m->cap = m->len = 0;
}

static weir_map_slot *find(const weir_map *m, const char *key, size_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        weir_map_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && key_eq(s->key, key, m->nocase)))
            return s;
    }
}

static int grow(weir_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    weir_map_slot *slots = calloc(cap, sizeof(*slots));
    if (!slots)
        return WEIR_ENOMEM;
    weir_map old = *m;
    m->slots = slots;
    m->cap = cap;
    for (size_t i = 0; i < old.cap; i++) {
        if (old.slots[i].key)
            *find(m, old.slots[i].key, old.slots[i].hash) = old.slots[i];
    }
    free(old.slots);
    return 0;
}

int weir__map_put(weir_map *m, const char *key, void *value)
{
    if ((m->len + 1) * 4 > m->cap * 3 && grow(m))
        return WEIR_ENOMEM;
    size_t h = hash_key(key, m->nocase);
    weir_map_slot *s = find(m, key, h);
    if (!s->key) {
        s->key = key;
        s->hash = h;
        m->len++;
    }
    s->value = value;
    return 0;
}

void *weir__map_get(const weir_map *m, const char *key)
{
    if (!m->cap)
        return NULL;
    weir_map_slot *s = find(m, key, hash_key(key, m->nocase));
    return s->key ? s->value : NULL;
}

bool weir__map_has(const weir_map *m, const char *key)
{
    if (!m->cap)
        return false;
    return find(m, key, hash_key(key, m->nocase))->key != NULL;
}

bool weir__map_next(const weir_map *m, size_t *iter, const char **key,
                    void **value)
{
    while (*iter < m->cap) {
        weir_map_slot *s = &m->slots[(*iter)++];
        if (s->key) {
            if (key)
                *key = s->key;
            if (value)
                *value = s->value;
            return true;
        }
    }
    return false;
}
