/*
 * weir_arena: chunked bump allocator (see arena.h).
 */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (32 * 1024)
#define ALIGN      16

struct weir_arena_chunk {
    struct weir_arena_chunk *next;
    size_t size;
    _Alignas(16) unsigned char data[];
};

void weir__arena_init(weir_arena *a)
{
    a->head = NULL;
    a->used = 0;
    a->failed = false;
}

void weir__arena_free(weir_arena *a)
{
    if (!a)
        return;
    struct weir_arena_chunk *c = a->head;
    while (c) {
        struct weir_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    weir__arena_init(a);
}

static struct weir_arena_chunk *new_chunk(weir_arena *a, size_t size)
{
    struct weir_arena_chunk *c = malloc(sizeof(*c) + size);
    if (!c) {
        a->failed = true;
        return NULL;
    }
    c->size = size;
    return c;
}

void *weir__arena_alloc(weir_arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - ALIGN) {
        a->failed = true;
        return NULL;
    }
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
#ifdef WEIR_DEBUG_ARENA
    struct weir_arena_chunk *d = new_chunk(a, size);
    if (!d)
        return NULL;
    d->next = a->head;
    a->head = d;
    a->used = size;
    memset(d->data, 0, size);
    return d->data;
#else
    if (size > CHUNK_SIZE / 4) {
        /* Large block: its own chunk, linked behind the head. */
        struct weir_arena_chunk *big = new_chunk(a, size);
        if (!big)
            return NULL;
        if (a->head) {
            big->next = a->head->next;
            a->head->next = big;
        } else {
            big->next = NULL;
            a->head = big;
            a->used = size;
        }
        memset(big->data, 0, size);
        return big->data;
    }
    if (!a->head || a->used + size > a->head->size) {
        struct weir_arena_chunk *c = new_chunk(a, CHUNK_SIZE);
        if (!c)
            return NULL;
        c->next = a->head;
        a->head = c;
        a->used = 0;
    }
    void *p = a->head->data + a->used;
    a->used += size;
    memset(p, 0, size);
    return p;
#endif
}

void *weir__arena_array(weir_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        a->failed = true;
        return NULL;
    }
    return weir__arena_alloc(a, n * size);
}

char *weir__arena_strndup(weir_arena *a, const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *p = weir__arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *weir__arena_strdup(weir_arena *a, const char *s)
{
    return s ? weir__arena_strndup(a, s, strlen(s)) : NULL;
}

char *weir__arena_printf(weir_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        a->failed = true;
        return NULL;
    }
    char *p = weir__arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
