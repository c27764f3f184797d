/*
 * Delta Lake data types and schemas: parsing DuckDB type text (as weir's
 * store renders it) and Delta's schemaString JSON into one tree, rendering
 * it back as Delta JSON or as DuckDB types, and merging a batch's schema
 * into a table's (new columns are added at the end; a column of another
 * type is an error). See delta.h.
 */
#include "sinks/delta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/internal.h"
#include "util/str.h"

#define MAX_DEPTH 64

/* ---- DuckDB type text ------------------------------------------------------ */

typedef struct tparser {
    const char *s;
    size_t i;
    weir_arena *a;
    weir_error *err;
    int depth;
} tparser;

/* DuckDB type name -> Delta primitive (NULL: unsupported). */
static const struct {
    const char *duck, *delta;
} DUCK_TO_DELTA[] = {
    { "BOOLEAN", "boolean" },     { "TINYINT", "byte" },
    { "SMALLINT", "short" },      { "INTEGER", "integer" },
    { "BIGINT", "long" },         { "UTINYINT", "short" },
    { "USMALLINT", "integer" },   { "UINTEGER", "long" },
    { "FLOAT", "float" },         { "DOUBLE", "double" },
    { "VARCHAR", "string" },      { "UUID", "string" },
    { "JSON", "string" },         { "BLOB", "binary" },
    { "DATE", "date" },           { "TIMESTAMP", "timestamp" },
    { "TIMESTAMP_S", "timestamp" }, { "TIMESTAMP_MS", "timestamp" },
    { "TIMESTAMP_NS", "timestamp" }, { "TIMESTAMP_US", "timestamp" },
    { "TIMESTAMP WITH TIME ZONE", "timestamp" },
    { NULL, NULL }
};

static void tskip(tparser *p)
{
    while (p->s[p->i] == ' ')
        p->i++;
}

static weir_dtype *new_type(tparser *p, weir_dtype_kind kind)
{
    weir_dtype *t = weir__arena_alloc(p->a, sizeof(*t));
    if (t) {
        t->kind = kind;
        t->contains_null = true;
    }
    return t;
}

static int tfail(tparser *p, const char *what)
{
    return WEIR_ERR(p->err, WEIR_EINVAL, "DELTA_UNSUPPORTED_DATA_TYPE",
                    "%s in type %s", what, p->s);
}

/* A quoted name "a""b" at p->i. */
static char *tquoted(tparser *p)
{
    weir_buf b = WEIR_BUF_INIT;
    p->i++;
    while (p->s[p->i]) {
        if (p->s[p->i] == '"') {
            if (p->s[p->i + 1] != '"')
                break;
            p->i++;
        }
        weir__buf_putc(&b, p->s[p->i++]);
    }
    if (p->s[p->i] == '"')
        p->i++;
    char *s = weir__arena_strdup(p->a, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return s;
}

static int ttype(tparser *p, weir_dtype **out);

static int tstruct(tparser *p, weir_dtype *t)
{
    size_t cap = 0;
    for (;;) {
        tskip(p);
        if (p->s[p->i] == ')') {
            p->i++;
            return 0;
        }
        if (!p->s[p->i])
            return tfail(p, "unterminated STRUCT");
        if (t->n_fields == cap) {
            size_t nc = cap ? cap * 2 : 8;
            weir_dfield *f = weir__arena_array(p->a, nc, sizeof(*f));
            if (!f)
                return WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
            if (t->n_fields)
                memcpy(f, t->fields, t->n_fields * sizeof(*f));
            t->fields = f;
            cap = nc;
        }
        weir_dfield *f = &t->fields[t->n_fields++];
        if (p->s[p->i] == '"') {
            f->name = tquoted(p);
        } else {
            size_t st = p->i;
            while (p->s[p->i] && p->s[p->i] != ' ')
                p->i++;
            f->name = weir__arena_strndup(p->a, p->s + st, p->i - st);
        }
        f->nullable = true;
        f->metadata = "{}";
        int rc = ttype(p, &f->type);
        if (rc)
            return rc;
        if (f->type->kind == WEIR_DT_VOID) {
            f->type->kind = WEIR_DT_PRIM;
            f->type->name = "string";
        }
        tskip(p);
        if (p->s[p->i] == ',')
            p->i++;
    }
}

static int tbase(tparser *p, weir_dtype **out)
{
    tskip(p);
    const char *s = p->s + p->i;
    weir_dtype *t = NULL;
    int rc = 0;
    if (weir__str_istarts(s, "STRUCT(")) {
        p->i += 7;
        t = new_type(p, WEIR_DT_STRUCT);
        rc = t ? tstruct(p, t) : WEIR_ENOMEM;
    } else if (weir__str_istarts(s, "MAP(")) {
        p->i += 4;
        t = new_type(p, WEIR_DT_MAP);
        rc = t ? ttype(p, &t->key) : WEIR_ENOMEM;
        tskip(p);
        if (!rc && p->s[p->i++] != ',')
            rc = tfail(p, "malformed MAP");
        if (!rc)
            rc = ttype(p, &t->value);
        tskip(p);
        if (!rc && p->s[p->i++] != ')')
            rc = tfail(p, "malformed MAP");
    } else if (weir__str_istarts(s, "DECIMAL(")) {
        int w = 0, sc = 0;
        int used = 0;
        if (sscanf(s, "DECIMAL(%d,%d)%n", &w, &sc, &used) < 2 || !used)
            return tfail(p, "malformed DECIMAL");
        p->i += (size_t)used;
        t = new_type(p, WEIR_DT_DECIMAL);
        if (t) {
            t->precision = w;
            t->scale = sc;
        }
    } else if (weir__str_istarts(s, "\"NULL\"") || weir__str_istarts(s, "NULL")) {
        p->i += s[0] == '"' ? 6 : 4;
        t = new_type(p, WEIR_DT_VOID);
    } else {
        size_t n = 0;
        while (s[n] && s[n] != ',' && s[n] != ')' && s[n] != '[' &&
               s[n] != '(')
            n++;
        while (n && s[n - 1] == ' ')
            n--;
        char name[64];
        weir__str_copy(name, sizeof(name) < n + 1 ? sizeof(name) : n + 1, s);
        const char *delta = NULL;
        for (size_t k = 0; !delta && DUCK_TO_DELTA[k].duck; k++)
            if (weir__str_ieq(name, DUCK_TO_DELTA[k].duck))
                delta = DUCK_TO_DELTA[k].delta;
        if (weir__str_ieq(name, "UBIGINT") || weir__str_ieq(name, "HUGEINT") ||
            weir__str_ieq(name, "UHUGEINT")) {
            t = new_type(p, WEIR_DT_DECIMAL);
            if (t) {
                t->precision = weir__str_ieq(name, "UBIGINT") ? 20 : 38;
                t->scale = 0;
            }
        } else if (delta) {
            t = new_type(p, WEIR_DT_PRIM);
            if (t)
                t->name = delta;
        } else {
            return WEIR_ERR(p->err, WEIR_EINVAL, "DELTA_UNSUPPORTED_DATA_TYPE",
                            "Delta Lake has no type for DuckDB's %s; cast the "
                            "column to a supported type",
                            name);
        }
        p->i += n;
    }
    if (!rc && !t)
        rc = WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc == WEIR_ENOMEM)
        rc = WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
    *out = t;
    return rc;
}

static int ttype(tparser *p, weir_dtype **out)
{
    if (++p->depth > MAX_DEPTH)
        return tfail(p, "nesting too deep");
    int rc = tbase(p, out);
    while (!rc && p->s[p->i] == '[') {
        while (p->s[p->i] && p->s[p->i] != ']')
            p->i++;
        if (p->s[p->i])
            p->i++;
        weir_dtype *arr = new_type(p, WEIR_DT_ARRAY);
        if (!arr)
            return WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
        if ((*out)->kind == WEIR_DT_VOID) {
            (*out)->kind = WEIR_DT_PRIM;
            (*out)->name = "string";
        }
        arr->elem = *out;
        *out = arr;
    }
    if (!rc && (*out)->kind == WEIR_DT_MAP && (*out)->value->kind == WEIR_DT_VOID) {
        (*out)->value->kind = WEIR_DT_PRIM;
        (*out)->value->name = "string";
    }
    p->depth--;
    return rc;
}

int weir__delta_type_from_duckdb(weir_dtype **out, weir_arena *a,
                                 const char *duck, weir_error *err)
{
    tparser p = { duck ? duck : "", 0, a, err, 0 };
    int rc = ttype(&p, out);
    tskip(&p);
    if (!rc && p.s[p.i])
        rc = tfail(&p, "unexpected text");
    return rc;
}

/* ---- Delta JSON types ------------------------------------------------------ */

static const char *const DELTA_PRIMS[] = {
    "boolean", "byte",   "short",  "integer", "long",      "float",
    "double",  "string", "binary", "date",    "timestamp", "timestamp_ntz",
    NULL
};

static int jtype(weir_dtype **out, weir_arena *a, const weir_json *j,
                 int depth, weir_error *err);

static int jfields(weir_dtype *t, weir_arena *a, const weir_json *fields,
                   int depth, weir_error *err)
{
    if (!fields || fields->type != WEIR_JSON_ARRAY)
        return WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_SCHEMA",
                        "a struct type has no fields array");
    t->fields = weir__arena_array(a, fields->len + 1, sizeof(*t->fields));
    if (!t->fields)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    t->n_fields = fields->len;
    for (size_t i = 0; i < fields->len; i++) {
        const weir_json *f = fields->items[i];
        weir_dfield *d = &t->fields[i];
        d->name = weir__json_get_str(f, "name");
        if (!d->name)
            return WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_SCHEMA",
                            "a schema field has no name");
        const weir_json *nl = weir__json_get(f, "nullable");
        d->nullable = !nl || nl->type != WEIR_JSON_BOOL || nl->boolean;
        const weir_json *md = weir__json_get(f, "metadata");
        if (md && md->type == WEIR_JSON_OBJECT && md->len) {
            weir_buf b = WEIR_BUF_INIT;
            weir__sink_json_write(&b, md);
            d->metadata = weir__arena_strdup(a, weir__buf_cstr(&b));
            weir__buf_free(&b);
        } else {
            d->metadata = "{}";
        }
        int rc = jtype(&d->type, a, weir__json_get(f, "type"), depth + 1, err);
        if (rc)
            return rc;
    }
    return 0;
}

static int jtype(weir_dtype **out, weir_arena *a, const weir_json *j,
                 int depth, weir_error *err)
{
    if (depth > MAX_DEPTH || !j)
        return WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_SCHEMA",
                        "a schema type is missing or nested too deep");
    weir_dtype *t = weir__arena_alloc(a, sizeof(*t));
    if (!t)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    t->contains_null = true;
    *out = t;
    if (j->type == WEIR_JSON_STRING) {
        int p = 10, s = 0;
        if (weir__str_istarts(j->text, "decimal")) {
            t->kind = WEIR_DT_DECIMAL;
            if (j->text[7] && sscanf(j->text, "decimal(%d,%d)", &p, &s) != 2 &&
                sscanf(j->text, "decimal(%d, %d)", &p, &s) != 2)
                return WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_SCHEMA",
                                "malformed type %s", j->text);
            t->precision = p;
            t->scale = s;
            return 0;
        }
        t->kind = WEIR_DT_PRIM;
        for (size_t k = 0; DELTA_PRIMS[k]; k++)
            if (strcmp(j->text, DELTA_PRIMS[k]) == 0)
                t->name = DELTA_PRIMS[k];
        if (!t->name)
            return WEIR_ERR(err, WEIR_EINVAL, "DELTA_UNSUPPORTED_DATA_TYPE",
                            "weir does not support the Delta type '%s'",
                            j->text);
        return 0;
    }
    const char *kind = weir__json_get_str(j, "type");
    const weir_json *cn;
    if (kind && strcmp(kind, "array") == 0) {
        t->kind = WEIR_DT_ARRAY;
        cn = weir__json_get(j, "containsNull");
        t->contains_null = !cn || cn->type != WEIR_JSON_BOOL || cn->boolean;
        return jtype(&t->elem, a, weir__json_get(j, "elementType"), depth + 1,
                     err);
    }
    if (kind && strcmp(kind, "map") == 0) {
        t->kind = WEIR_DT_MAP;
        cn = weir__json_get(j, "valueContainsNull");
        t->contains_null = !cn || cn->type != WEIR_JSON_BOOL || cn->boolean;
        int rc = jtype(&t->key, a, weir__json_get(j, "keyType"), depth + 1, err);
        return rc ? rc
                  : jtype(&t->value, a, weir__json_get(j, "valueType"),
                          depth + 1, err);
    }
    if (kind && strcmp(kind, "struct") == 0) {
        t->kind = WEIR_DT_STRUCT;
        return jfields(t, a, weir__json_get(j, "fields"), depth, err);
    }
    return WEIR_ERR(err, WEIR_EINVAL, "DELTA_UNSUPPORTED_DATA_TYPE",
                    "weir does not support the Delta type '%s'",
                    kind ? kind : "?");
}

int weir__delta_schema_parse(weir_dschema *out, weir_arena *a,
                             const char *schema_string, weir_error *err)
{
    out->fields = NULL;
    out->n = 0;
    weir_json *j = NULL;
    int rc = weir__json_parse(&j, a, schema_string, strlen(schema_string), err);
    if (rc)
        return rc;
    weir_dtype *t = NULL;
    rc = jtype(&t, a, j, 0, err);
    if (!rc && t->kind != WEIR_DT_STRUCT)
        rc = WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_SCHEMA",
                      "the table schema is not a struct");
    if (!rc) {
        out->fields = t->fields;
        out->n = t->n_fields;
    }
    return rc;
}

/* ---- rendering ---------------------------------------------------------------- */

static void render_type(weir_buf *out, const weir_dtype *t);

static void render_fields(weir_buf *out, const weir_dfield *f, size_t n)
{
    weir__buf_puts(out, "{\"type\":\"struct\",\"fields\":[");
    for (size_t i = 0; i < n; i++) {
        weir__buf_puts(out, i ? ",{\"name\":" : "{\"name\":");
        weir__buf_put_json_string(out, f[i].name);
        weir__buf_puts(out, ",\"type\":");
        render_type(out, f[i].type);
        weir__buf_printf(out, ",\"nullable\":%s,\"metadata\":%s}",
                         f[i].nullable ? "true" : "false",
                         f[i].metadata ? f[i].metadata : "{}");
    }
    weir__buf_puts(out, "]}");
}

static void render_type(weir_buf *out, const weir_dtype *t)
{
    switch (t->kind) {
    case WEIR_DT_VOID: weir__buf_puts(out, "\"string\""); break;
    case WEIR_DT_PRIM: weir__buf_printf(out, "\"%s\"", t->name); break;
    case WEIR_DT_DECIMAL:
        weir__buf_printf(out, "\"decimal(%d,%d)\"", t->precision, t->scale);
        break;
    case WEIR_DT_ARRAY:
        weir__buf_puts(out, "{\"type\":\"array\",\"elementType\":");
        render_type(out, t->elem);
        weir__buf_printf(out, ",\"containsNull\":%s}",
                         t->contains_null ? "true" : "false");
        break;
    case WEIR_DT_MAP:
        weir__buf_puts(out, "{\"type\":\"map\",\"keyType\":");
        render_type(out, t->key);
        weir__buf_puts(out, ",\"valueType\":");
        render_type(out, t->value);
        weir__buf_printf(out, ",\"valueContainsNull\":%s}",
                         t->contains_null ? "true" : "false");
        break;
    case WEIR_DT_STRUCT: render_fields(out, t->fields, t->n_fields); break;
    }
}

void weir__delta_schema_render(weir_buf *out, const weir_dschema *s)
{
    render_fields(out, s->fields, s->n);
}

static const struct {
    const char *delta, *duck;
} DELTA_TO_DUCK[] = {
    { "boolean", "BOOLEAN" }, { "byte", "TINYINT" },   { "short", "SMALLINT" },
    { "integer", "INTEGER" }, { "long", "BIGINT" },    { "float", "FLOAT" },
    { "double", "DOUBLE" },   { "string", "VARCHAR" }, { "binary", "BLOB" },
    { "date", "DATE" },       { "timestamp", "TIMESTAMP" },
    { "timestamp_ntz", "TIMESTAMP" }, { NULL, NULL }
};

void weir__delta_type_duckdb(weir_buf *out, const weir_dtype *t, bool physical)
{
    switch (t->kind) {
    case WEIR_DT_VOID: weir__buf_puts(out, "VARCHAR"); break;
    case WEIR_DT_PRIM:
        if (physical && strcmp(t->name, "timestamp") == 0) {
            weir__buf_puts(out, "TIMESTAMP WITH TIME ZONE");
            break;
        }
        for (size_t k = 0; DELTA_TO_DUCK[k].delta; k++)
            if (strcmp(t->name, DELTA_TO_DUCK[k].delta) == 0)
                weir__buf_puts(out, DELTA_TO_DUCK[k].duck);
        break;
    case WEIR_DT_DECIMAL:
        weir__buf_printf(out, "DECIMAL(%d,%d)", t->precision, t->scale);
        break;
    case WEIR_DT_ARRAY:
        weir__delta_type_duckdb(out, t->elem, physical);
        weir__buf_puts(out, "[]");
        break;
    case WEIR_DT_MAP:
        weir__buf_puts(out, "MAP(");
        weir__delta_type_duckdb(out, t->key, physical);
        weir__buf_puts(out, ", ");
        weir__delta_type_duckdb(out, t->value, physical);
        weir__buf_putc(out, ')');
        break;
    case WEIR_DT_STRUCT:
        weir__buf_puts(out, "STRUCT(");
        for (size_t i = 0; i < t->n_fields; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            weir__buf_put_sql_ident(out, t->fields[i].name);
            weir__buf_putc(out, ' ');
            weir__delta_type_duckdb(out, t->fields[i].type, physical);
        }
        weir__buf_putc(out, ')');
        break;
    }
}

bool weir__delta_type_eq(const weir_dtype *a, const weir_dtype *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case WEIR_DT_VOID: return true;
    case WEIR_DT_PRIM: return strcmp(a->name, b->name) == 0;
    case WEIR_DT_DECIMAL:
        return a->precision == b->precision && a->scale == b->scale;
    case WEIR_DT_ARRAY: return weir__delta_type_eq(a->elem, b->elem);
    case WEIR_DT_MAP:
        return weir__delta_type_eq(a->key, b->key) &&
               weir__delta_type_eq(a->value, b->value);
    case WEIR_DT_STRUCT:
        if (a->n_fields != b->n_fields)
            return false;
        for (size_t i = 0; i < a->n_fields; i++)
            if (!weir__str_ieq(a->fields[i].name, b->fields[i].name) ||
                !weir__delta_type_eq(a->fields[i].type, b->fields[i].type))
                return false;
        return true;
    }
    return false;
}

int weir__delta_schema_find(const weir_dschema *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (weir__str_ieq(s->fields[i].name, name))
            return (int)i;
    return -1;
}

/* ---- merging ------------------------------------------------------------------ */

static int int_rank(const weir_dtype *t)
{
    static const char *const ints[] = { "byte", "short", "integer", "long" };
    for (int i = 0; t->kind == WEIR_DT_PRIM && i < 4; i++)
        if (strcmp(t->name, ints[i]) == 0)
            return i + 1;
    return 0;
}

/* Values of type from fit in type to without loss (a batch of narrower
 * integers, say, appended to a table of longs). */
static bool widens_to(const weir_dtype *from, const weir_dtype *to)
{
    if (from->kind == WEIR_DT_VOID || weir__delta_type_eq(from, to))
        return true;
    static const int digits[] = { 0, 3, 5, 10, 19 };
    int fi = int_rank(from), ti = int_rank(to);
    if (fi && ti)
        return fi <= ti;
    if (fi && to->kind == WEIR_DT_DECIMAL)
        return to->precision - to->scale >= digits[fi];
    if (from->kind == WEIR_DT_DECIMAL && to->kind == WEIR_DT_DECIMAL)
        return to->scale >= from->scale &&
               to->precision - to->scale >= from->precision - from->scale;
    return from->kind == WEIR_DT_PRIM && to->kind == WEIR_DT_PRIM &&
           strcmp(from->name, "float") == 0 && strcmp(to->name, "double") == 0;
}

int weir__delta_schema_merge(weir_dschema *out, size_t *added, weir_arena *a,
                             const weir_dschema *table,
                             const weir_dschema *batch, bool allow_new,
                             weir_error *err)
{
    *added = 0;
    out->n = 0;
    out->fields = weir__arena_array(a, table->n + batch->n + 1,
                                    sizeof(*out->fields));
    if (!out->fields)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < batch->n; i++)
        for (size_t k = 0; k < i; k++)
            if (weir__str_ieq(batch->fields[i].name, batch->fields[k].name))
                return WEIR_ERR(err, WEIR_EINVAL, "DELTA_DUPLICATE_COLUMNS_FOUND",
                                "the batch has two columns named %s",
                                batch->fields[i].name);
    for (size_t i = 0; i < table->n; i++) {
        const weir_dfield *tf = &table->fields[i];
        int k = weir__delta_schema_find(batch, tf->name);
        if (k >= 0 && !widens_to(batch->fields[k].type, tf->type)) {
            weir_buf want = WEIR_BUF_INIT, got = WEIR_BUF_INIT;
            render_type(&want, tf->type);
            render_type(&got, batch->fields[k].type);
            int rc = WEIR_ERR(err, WEIR_EINVAL, "DELTA_FAILED_TO_MERGE_FIELDS",
                              "column %s has type %s in the Delta table but %s "
                              "in the batch; only new columns can be added",
                              tf->name, weir__buf_cstr(&want),
                              weir__buf_cstr(&got));
            weir__buf_free(&want);
            weir__buf_free(&got);
            return rc;
        }
        out->fields[out->n++] = *tf;
    }
    for (size_t i = 0; i < batch->n; i++) {
        if (weir__delta_schema_find(table, batch->fields[i].name) >= 0)
            continue;
        if (!allow_new)
            return WEIR_ERR(err, WEIR_EINVAL, "DELTA_METADATA_MISMATCH",
                            "column %s is not in the Delta table and option "
                            "mergeSchema is false",
                            batch->fields[i].name);
        weir_dfield f = batch->fields[i];
        if (f.type->kind == WEIR_DT_VOID) {
            weir_dtype *s = weir__arena_alloc(a, sizeof(*s));
            if (!s)
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            s->kind = WEIR_DT_PRIM;
            s->name = "string";
            f.type = s;
        }
        f.nullable = true;
        out->fields[out->n++] = f;
        ++*added;
    }
    return 0;
}
