/*
 * Private to src/spec (and src/testing, which reads test definitions with
 * the same YAML reader): the YAML node tree the spec is validated from, and
 * the problem reporter the reader, the validator and the glob expansion
 * share (one diagnostic per problem, with the line's text, capped).
 */
#ifndef WEIR_SPEC_INTERNAL_H
#define WEIR_SPEC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "spec/spec.h"
#include "util/arena.h"
#include "util/error.h"

/* --- Reporting problems ------------------------------------------------- */

typedef struct weir_spec_report {
    const char *path; /* shown in every diagnostic */
    const char *text; /* the spec text, for line snippets (may be NULL) */
    size_t len;
    weir__diags *diags; /* may be NULL */
    weir_error *err;    /* receives the first problem; may be NULL */
    size_t n;           /* problems reported so far */
} weir_spec_report;

/* Record one problem (code WEIR_ESPEC) at pos; pos.line 0 = no position. */
void weir__spec_report(weir_spec_report *r, const char *src_file,
                       int src_line, const char *cls, weir_spec_pos pos,
                       const char *fmt, ...) WEIR_PRINTF(6, 7);
#define SPEC_REPORT(r, cls, pos, ...)                                         \
    weir__spec_report((r), __FILE__, __LINE__, (cls), (pos), __VA_ARGS__)

/* The position of a byte offset, counting lines the way libyaml does
 * (\n, \r\n, \r, U+0085, U+2028, U+2029) and columns in characters. */
weir_spec_pos weir__spec_pos_at(const char *text, size_t len, size_t offset);

/* A precision for "%.*s" that shows at most ~160 bytes of s without
 * cutting a UTF-8 character (long values are shortened in messages). */
int weir__spec_clip(const char *s);

/* --- The YAML tree -------------------------------------------------------- */

typedef enum weir_spec_ykind {
    WEIR_SPEC_YSCALAR,
    WEIR_SPEC_YSEQ,
    WEIR_SPEC_YMAP
} weir_spec_ykind;

typedef struct weir_spec_ynode weir_spec_ynode;
struct weir_spec_ynode {
    weir_spec_ykind kind;
    /* The Python type yaml.safe_load builds for the node: "str", "int",
     * "float", "bool", "NoneType", "date", "datetime", "bytes", "list",
     * "dict", "set", "omap", "pairs"; "merge" for a `<<` key. */
    const char *type;
    const char *text; /* scalars: the value, NUL-terminated */
    size_t len;       /* scalars: bytes in text (may hold NULs) */
    /* Sequences: n items. Mappings: n = 2 * pairs, key then value, merge
     * keys already applied, duplicates removed. */
    weir_spec_ynode **items;
    size_t n;
    weir_spec_pos pos; /* where the node (or the alias naming it) starts */
};

/*
 * Read one YAML document into a tree in arena. *out is NULL for a stream
 * with no document. YAML errors (syntax, several documents, unknown tags,
 * undefined or recursive aliases, nesting deeper than 256, merge
 * expansion over budget) are reported as PIPELINE_SPEC_YAML_ERROR and end
 * the read; duplicate keys are reported as PIPELINE_SPEC_DUPLICATE_KEY and
 * the read goes on. Returns 0, WEIR_ESPEC or WEIR_ENOMEM.
 */
int weir__spec_yaml_parse(weir_spec_ynode **out, weir_arena *arena,
                          const char *text, size_t len, weir_spec_report *r);

/* --- Checking the tree ---------------------------------------------------- */

/* `"%.*s", CLIP(s)` prints s shortened for a message. */
#define CLIP(s) weir__spec_clip(s), (s)

static inline bool is_type(const weir_spec_ynode *n, const char *type)
{
    return strcmp(n->type, type) == 0;
}
static inline bool is_str(const weir_spec_ynode *n)
{
    return n->kind == WEIR_SPEC_YSCALAR && is_type(n, "str");
}
static inline bool is_null(const weir_spec_ynode *n)
{
    return n->kind == WEIR_SPEC_YSCALAR && is_type(n, "NoneType");
}
static inline bool is_dict(const weir_spec_ynode *n)
{
    return n->kind == WEIR_SPEC_YMAP && is_type(n, "dict");
}
static inline bool is_list(const weir_spec_ynode *n)
{
    return n->kind == WEIR_SPEC_YSEQ && is_type(n, "list");
}
/* A string with no NUL inside (usable as a C string). */
static inline bool is_cstr(const weir_spec_ynode *n)
{
    return is_str(n) && strlen(n->text) == n->len;
}
/* A key as Python's str(key) would show it. */
static inline const char *key_text(const weir_spec_ynode *k)
{
    if (is_null(k))
        return "None";
    return k->kind == WEIR_SPEC_YSCALAR ? k->text : "?";
}

/* The value of string key `name` in mapping m, or NULL. */
const weir_spec_ynode *weir__spec_get(const weir_spec_ynode *m,
                                      const char *name);
/* Report (with class cls) every key of m not in `allowed` (NULL-ended);
 * `where` completes "Unexpected key `k` in ...". */
void weir__spec_extra_keys(weir_spec_report *r, const weir_spec_ynode *m,
                           const char *const *allowed, const char *cls,
                           const char *where);

/* The weir `expectations` field (expectations.c): fills spec->expectations
 * or reports problems. */
void weir__spec_load_expectations(weir_spec *spec, weir_spec_report *r,
                                  const weir_spec_ynode *v);

#endif
