/*
 * weir's JSON reader: parses text into an arena-owned tree. Used for the
 * event details weir stores, Delta Lake logs, test fixtures and Spark's
 * schema JSON (the CLI, on the public API only, has its own). Writing
 * JSON is done with weir__buf_put_json_string and friends in buf.h.
 */
#ifndef WEIR_UTIL_JSON_H
#define WEIR_UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "error.h"

typedef enum weir_json_type {
    WEIR_JSON_NULL,
    WEIR_JSON_BOOL,
    WEIR_JSON_NUMBER,
    WEIR_JSON_STRING,
    WEIR_JSON_ARRAY,
    WEIR_JSON_OBJECT
} weir_json_type;

typedef struct weir_json weir_json;
struct weir_json {
    weir_json_type type;
    bool boolean;
    double number;
    const char *text; /* STRING: decoded; NUMBER: as written */
    size_t text_len;
    /* ARRAY and OBJECT: children (keys set for OBJECT members). */
    weir_json **items;
    const char **keys;
    size_t len;
};

/* Parse len bytes of text. Nesting deeper than 256 levels is an error. */
int weir__json_parse(weir_json **out, weir_arena *arena, const char *text,
                     size_t len, weir_error *err);
/* The member named key of an object, or NULL. */
const weir_json *weir__json_get(const weir_json *obj, const char *key);
/* The string value of member key, or NULL when absent or not a string. */
const char *weir__json_get_str(const weir_json *obj, const char *key);

#endif
