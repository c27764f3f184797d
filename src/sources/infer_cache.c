/*
 * The cache of file schemas inferred during one update (see files.h).
 */
#include "sources/files.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

typedef struct infer_entry {
    char *query;
    weir_file_schema schema; /* in the cache's arena */
} infer_entry;

struct weir_infer_cache {
    pthread_mutex_t mu;
    weir_arena arena;
    WEIR_VEC(infer_entry) items;
};

weir_infer_cache *weir__infer_cache_new(void)
{
    weir_infer_cache *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    pthread_mutex_init(&c->mu, NULL);
    weir__arena_init(&c->arena);
    return c;
}

void weir__infer_cache_free(weir_infer_cache *c)
{
    if (!c)
        return;
    WEIR_VEC_FREE(&c->items);
    weir__arena_free(&c->arena);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* Copy a schema's columns into arena a. */
static int copy_schema(weir_file_schema *to, weir_arena *a,
                       const weir_file_schema *from)
{
    to->n = from->n;
    to->odd_keys = from->odd_keys;
    to->cols = weir__arena_array(a, from->n + 1, sizeof(*to->cols));
    for (size_t i = 0; to->cols && i < from->n; i++) {
        to->cols[i].name = weir__arena_strdup(a, from->cols[i].name);
        to->cols[i].type = weir__arena_strdup(a, from->cols[i].type);
    }
    return !to->cols || weir__arena_failed(a) ? WEIR_ENOMEM : 0;
}

bool weir__infer_cache_get(weir_infer_cache *c, const char *query,
                      weir_file_schema *out, weir_arena *a)
{
    if (!c)
        return false;
    bool hit = false;
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->items.len && !hit; i++)
        if (strcmp(c->items.items[i].query, query) == 0)
            hit = copy_schema(out, a, &c->items.items[i].schema) == 0;
    pthread_mutex_unlock(&c->mu);
    return hit;
}

void weir__infer_cache_put(weir_infer_cache *c, const char *query,
                      const weir_file_schema *s)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    infer_entry e;
    e.query = weir__arena_strdup(&c->arena, query);
    if (e.query && copy_schema(&e.schema, &c->arena, s) == 0)
        (void)WEIR_VEC_PUSH(&c->items, e);
    pthread_mutex_unlock(&c->mu);
}
