/*
 * Read schemas and from_json types: DDL text as written, or Spark's
 * StructType JSON (DataType.json()), read with util/json.h and rendered as
 * DDL. Types nest at most 64 levels, like the rest of the translator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "util/json.h"
#include "util/str.h"

#define MAX_DEPTH 64

static int fail(plan_ctx *c, const char *what)
{
    return weir__plan_fail(c, PLAN_E_INVALID, "Invalid JSON schema (%s).", what);
}

/* A string member without NUL characters, or NULL. */
static const char *text_of(const weir_json *v)
{
    return v && v->type == WEIR_JSON_STRING && strlen(v->text) == v->text_len
               ? v->text : NULL;
}

/* Is member key absent or a boolean (into *out)? */
static bool flag(const weir_json *o, const char *key, bool *out)
{
    const weir_json *v = weir__json_get(o, key);
    if (v && v->type != WEIR_JSON_BOOL)
        return false;
    if (v)
        *out = v->boolean;
    return true;
}

static int render_type(plan_ctx *c, const weir_json *t, weir_buf *out,
                       unsigned depth);

/* A primitive type name as the JSON form writes it ("long",
 * "decimal(10,2)", ...). */
static int primitive(plan_ctx *c, weir_buf *out, const char *name)
{
    static const struct {
        const char *json, *ddl;
    } P[] = {
        { "long", "BIGINT" },       { "integer", "INT" },
        { "short", "SMALLINT" },    { "byte", "TINYINT" },
        { "float", "FLOAT" },       { "double", "DOUBLE" },
        { "string", "STRING" },     { "boolean", "BOOLEAN" },
        { "binary", "BINARY" },     { "date", "DATE" },
        { "timestamp", "TIMESTAMP" }, { "timestamp_ntz", "TIMESTAMP_NTZ" },
        { "null", "VOID" },         { "void", "VOID" },
        { "variant", "VARIANT" },   { "calendarinterval", "INTERVAL" },
        { "decimal", "DECIMAL(10,0)" }, { NULL, NULL }
    };
    for (int i = 0; P[i].json; i++)
        if (weir__str_ieq(name, P[i].json)) {
            weir__buf_puts(out, P[i].ddl);
            return 0;
        }
    /* decimal(p,s), char(n), varchar(n), interval day to second, ... */
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr(" ,()", *p)))
            return fail(c, "unknown type name");
    if (weir__str_istarts(name, "decimal(") || weir__str_istarts(name, "char(") ||
        weir__str_istarts(name, "varchar(") || weir__str_istarts(name, "interval")) {
        for (const char *p = name; *p; p++)
            weir__buf_putc(out, (*p >= 'a' && *p <= 'z') ? (char)(*p - 32) : *p);
        return 0;
    }
    return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                           "Unsupported type '%.100s' in a JSON schema.", name);
}

/* One struct field object: {"name":..,"type":..,"nullable":..,..}. */
static int render_field(plan_ctx *c, const weir_json *f, weir_buf *out,
                        bool as_columns, unsigned depth)
{
    bool nullable = true;
    if (!f || f->type != WEIR_JSON_OBJECT)
        return fail(c, "expected a field object");
    const char *name = text_of(weir__json_get(f, "name"));
    const weir_json *type = weir__json_get(f, "type");
    if (!name || !type)
        return fail(c, "a field needs a name and a type");
    if (!flag(f, "nullable", &nullable))
        return fail(c, "expected a boolean");
    weir_buf t = WEIR_BUF_INIT;
    int rc = render_type(c, type, &t, depth);
    if (rc == 0) {
        weir__plan_put_ident(out, name);
        weir__buf_puts(out, as_columns ? " " : ": ");
        weir__buf_puts(out, weir__buf_cstr(&t));
        if (!nullable)
            weir__buf_puts(out, " NOT NULL");
    }
    weir__buf_free(&t);
    return rc;
}

static int render_fields(plan_ctx *c, const weir_json *fields, weir_buf *out,
                         bool as_columns, unsigned depth)
{
    for (size_t i = 0; i < fields->len; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        if (render_field(c, fields->items[i], out, as_columns, depth) < 0)
            return -1;
    }
    return 0;
}

/* "TAG<a>" or "TAG<a, b>" from the types of members ka and kb (kb NULL: one). */
static int render_nested(plan_ctx *c, const weir_json *o, weir_buf *out,
                         const char *tag, const char *ka, const char *kb,
                         unsigned depth)
{
    const weir_json *a = weir__json_get(o, ka);
    const weir_json *b = kb ? weir__json_get(o, kb) : NULL;
    if (!a || (kb && !b))
        return fail(c, "unknown complex type");
    weir__buf_printf(out, "%s<", tag);
    if (render_type(c, a, out, depth) < 0)
        return -1;
    if (b) {
        weir__buf_puts(out, ", ");
        if (render_type(c, b, out, depth) < 0)
            return -1;
    }
    weir__buf_putc(out, '>');
    return 0;
}

/* A complex type object; as_columns renders a struct as a column list. */
static int render_object(plan_ctx *c, const weir_json *o, weir_buf *out,
                         bool as_columns, unsigned depth)
{
    bool contains_null = true, value_null = true;
    if (depth > MAX_DEPTH)
        return fail(c, "nested too deeply");
    if (!flag(o, "containsNull", &contains_null) ||
        !flag(o, "valueContainsNull", &value_null))
        return fail(c, "expected a boolean");
    const char *kind = text_of(weir__json_get(o, "type"));
    const weir_json *fields = weir__json_get(o, "fields");
    kind = kind ? kind : "";
    if (as_columns && strcmp(kind, "struct") != 0)
        return fail(c, "a schema must be a struct");
    if (strcmp(kind, "struct") == 0 && fields) {
        if (fields->type != WEIR_JSON_ARRAY)
            return fail(c, "expected a fields array");
        if (!as_columns)
            weir__buf_puts(out, "STRUCT<");
        if (render_fields(c, fields, out, as_columns, depth + 1) < 0)
            return -1;
        if (!as_columns)
            weir__buf_putc(out, '>');
        return 0;
    }
    if (strcmp(kind, "array") == 0)
        return render_nested(c, o, out, "ARRAY", "elementType", NULL, depth + 1);
    if (strcmp(kind, "map") == 0)
        return render_nested(c, o, out, "MAP", "keyType", "valueType", depth + 1);
    if (strcmp(kind, "udt") == 0 && weir__json_get(o, "sqlType"))
        return render_type(c, weir__json_get(o, "sqlType"), out, depth + 1);
    return fail(c, "unknown complex type");
}

static int render_type(plan_ctx *c, const weir_json *t, weir_buf *out,
                       unsigned depth)
{
    if (t->type == WEIR_JSON_OBJECT)
        return render_object(c, t, out, false, depth);
    const char *name = text_of(t);
    return name ? primitive(c, out, name) : fail(c, "expected a string");
}

/* Parse text (starting with '{') and render its type: as a column list
 * when as_columns (or when it is a struct and columns_if_struct). */
static int render_json(plan_ctx *c, weir_buf *b, const char *text,
                       bool as_columns, bool columns_if_struct)
{
    weir_arena arena;
    weir_json *j = NULL;
    weir_error e;
    memset(&e, 0, sizeof e);
    weir__arena_init(&arena);
    int rc;
    if (weir__json_parse(&j, &arena, text, strlen(text), &e) != 0) {
        rc = fail(c, e.message);
    } else if (j->type != WEIR_JSON_OBJECT) {
        rc = fail(c, "expected a type object");
    } else {
        const char *kind = text_of(weir__json_get(j, "type"));
        bool columns = as_columns ||
                       (columns_if_struct && kind && strcmp(kind, "struct") == 0 &&
                        weir__json_get(j, "fields"));
        rc = render_object(c, j, b, columns, 1);
    }
    weir__arena_free(&arena);
    return rc < 0 ? -1 : 0;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

int weir__plan_schema_ddl(plan_ctx *c, weir_buf *b, const char *schema)
{
    const char *p = skip_blanks(schema);
    if (*p != '{') {
        /* Already DDL: keep it as the user wrote it. */
        return weir__plan_check_text(c, schema, "schema") < 0
                   ? -1 : (weir__buf_puts(b, schema), 0);
    }
    return render_json(c, b, p, true, false);
}

int weir__plan_json_type_ddl(plan_ctx *c, weir_buf *b, const char *text)
{
    const char *p = skip_blanks(text);
    if (*p != '{')
        return 0;
    /* A struct becomes a column list, as a DDL schema is usually written. */
    return render_json(c, b, p, false, true) < 0 ? -1 : 1;
}
