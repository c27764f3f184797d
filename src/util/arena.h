/*
 * Bump allocator for trees that die together (a parsed spec, a SQL file's
 * statements, a resolved graph). Allocation failure is sticky: check
 * weir__arena_failed once. Build with WEIR_DEBUG_ARENA to give every block its
 * own malloc so AddressSanitizer sees overruns.
 */
#ifndef WEIR_UTIL_ARENA_H
#define WEIR_UTIL_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct weir_arena_chunk;

typedef struct weir_arena {
    struct weir_arena_chunk *head;
    size_t used; /* bytes used in head */
    bool failed;
} weir_arena;

#define WEIR_ARENA_INIT { NULL, 0, false }

void weir__arena_init(weir_arena *a);
/* Free every block. The arena can be reused afterwards. */
void weir__arena_free(weir_arena *a);
/* Zeroed, 16-byte aligned memory, or NULL (and a->failed) on OOM. */
void *weir__arena_alloc(weir_arena *a, size_t size);
/* n * size bytes, checked for overflow. */
void *weir__arena_array(weir_arena *a, size_t n, size_t size);
char *weir__arena_strdup(weir_arena *a, const char *s); /* NULL -> NULL */
char *weir__arena_strndup(weir_arena *a, const char *s, size_t n);
char *weir__arena_printf(weir_arena *a, const char *fmt, ...)
    WEIR_PRINTF(2, 3);
static inline bool weir__arena_failed(const weir_arena *a)
{
    return a->failed;
}

#endif
