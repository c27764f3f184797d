/*
 * Read schemas and from_json types: DDL text as written, or Spark's
 * StructType JSON (DataType.json()) parsed and rendered as DDL. The JSON
 * reader is bounded in depth like the rest of the translator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "util/str.h"

typedef struct json {
    plan_ctx *c;
    const char *s;
    size_t i;
    unsigned depth;
} json;

static int jfail(json *j, const char *what)
{
    return weir__plan_fail(j->c, PLAN_E_INVALID,
                           "Invalid JSON schema (%s at offset %zu).", what, j->i);
}

static void jws(json *j)
{
    while (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' ||
           j->s[j->i] == '\r')
        j->i++;
}

static bool jeat(json *j, char ch)
{
    jws(j);
    if (j->s[j->i] != ch)
        return false;
    j->i++;
    return true;
}

/* A JSON string into out (NULL: skip); \u escapes become UTF-8. */
static int jstring(json *j, weir_buf *out)
{
    jws(j);
    if (j->s[j->i] != '"')
        return jfail(j, "expected a string");
    j->i++;
    for (;;) {
        char ch = j->s[j->i];
        if (!ch)
            return jfail(j, "unterminated string");
        j->i++;
        if (ch == '"')
            return 0;
        if (ch != '\\') {
            if (out)
                weir__buf_putc(out, ch);
            continue;
        }
        char e = j->s[j->i];
        if (!e)
            return jfail(j, "unterminated string");
        j->i++;
        const char *map = "\"\"\\\\//b\bf\fn\nr\rt\t";
        const char *hit = NULL;
        for (const char *p = map; *p; p += 2)
            if (*p == e) {
                hit = p;
                break;
            }
        if (hit) {
            if (out)
                weir__buf_putc(out, hit[1]);
            continue;
        }
        if (e != 'u')
            return jfail(j, "bad escape");
        unsigned cp = 0;
        for (int k = 0; k < 4; k++) {
            char h = j->s[j->i++];
            int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            if (v < 0)
                return jfail(j, "bad \\u escape");
            cp = cp * 16 + (unsigned)v;
        }
        if (!out)
            continue;
        if (cp == 0)
            return jfail(j, "NUL in string");
        if (cp < 0x80) {
            weir__buf_putc(out, (char)cp);
        } else if (cp < 0x800) {
            weir__buf_putc(out, (char)(0xC0 | (cp >> 6)));
            weir__buf_putc(out, (char)(0x80 | (cp & 0x3F)));
        } else {
            weir__buf_putc(out, (char)(0xE0 | (cp >> 12)));
            weir__buf_putc(out, (char)(0x80 | ((cp >> 6) & 0x3F)));
            weir__buf_putc(out, (char)(0x80 | (cp & 0x3F)));
        }
    }
}

static int jskip(json *j)
{
    jws(j);
    char ch = j->s[j->i];
    if (ch == '"')
        return jstring(j, NULL);
    if (ch == '{' || ch == '[') {
        if (++j->depth > 64)
            return jfail(j, "nested too deeply");
        char close = ch == '{' ? '}' : ']';
        j->i++;
        if (jeat(j, close)) {
            j->depth--;
            return 0;
        }
        do {
            if (ch == '{') {
                if (jstring(j, NULL) < 0)
                    return -1;
                if (!jeat(j, ':'))
                    return jfail(j, "expected ':'");
            }
            if (jskip(j) < 0)
                return -1;
        } while (jeat(j, ','));
        if (!jeat(j, close))
            return jfail(j, "expected a closing bracket");
        j->depth--;
        return 0;
    }
    size_t start = j->i;
    while (j->s[j->i] && strchr("0123456789+-.eEtruefalsn", j->s[j->i]))
        j->i++;
    return j->i > start ? 0 : jfail(j, "unexpected character");
}

static int jbool(json *j, bool *out)
{
    jws(j);
    if (strncmp(j->s + j->i, "true", 4) == 0) {
        *out = true;
        j->i += 4;
        return 0;
    }
    if (strncmp(j->s + j->i, "false", 5) == 0) {
        *out = false;
        j->i += 5;
        return 0;
    }
    return jfail(j, "expected a boolean");
}

static int jtype(json *j, weir_buf *out);

/* A primitive type name as the JSON form writes it ("long",
 * "decimal(10,2)", ...). */
static int jprimitive(json *j, weir_buf *out, const char *name)
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
            return jfail(j, "unknown type name");
    if (weir__str_istarts(name, "decimal(") || weir__str_istarts(name, "char(") ||
        weir__str_istarts(name, "varchar(") || weir__str_istarts(name, "interval")) {
        for (const char *p = name; *p; p++)
            weir__buf_putc(out, (*p >= 'a' && *p <= 'z') ? (char)(*p - 32) : *p);
        return 0;
    }
    return weir__plan_fail(j->c, PLAN_E_UNSUPPORTED,
                           "Unsupported type '%.100s' in a JSON schema.", name);
}

/* One struct field object: {"name":..,"type":..,"nullable":..,..}. */
static int jfield(json *j, weir_buf *out, bool as_columns)
{
    weir_buf name = WEIR_BUF_INIT, type = WEIR_BUF_INIT;
    bool nullable = true, have_name = false, have_type = false;
    int rc = 0;
    if (!jeat(j, '{')) {
        rc = jfail(j, "expected a field object");
        goto out;
    }
    if (!jeat(j, '}')) {
        do {
            weir_buf key = WEIR_BUF_INIT;
            if ((rc = jstring(j, &key)) < 0 || !jeat(j, ':')) {
                weir__buf_free(&key);
                rc = rc < 0 ? rc : jfail(j, "expected ':'");
                goto out;
            }
            const char *k = weir__buf_cstr(&key);
            if (strcmp(k, "name") == 0) {
                weir__buf_clear(&name);
                rc = jstring(j, &name);
                have_name = true;
            } else if (strcmp(k, "type") == 0) {
                weir__buf_clear(&type);
                rc = jtype(j, &type);
                have_type = true;
            } else if (strcmp(k, "nullable") == 0) {
                rc = jbool(j, &nullable);
            } else {
                rc = jskip(j);
            }
            weir__buf_free(&key);
            if (rc < 0)
                goto out;
        } while (jeat(j, ','));
        if (!jeat(j, '}')) {
            rc = jfail(j, "expected '}'");
            goto out;
        }
    }
    if (!have_name || !have_type) {
        rc = jfail(j, "a field needs a name and a type");
        goto out;
    }
    weir__plan_put_ident(out, weir__buf_cstr(&name));
    weir__buf_puts(out, as_columns ? " " : ": ");
    weir__buf_puts(out, weir__buf_cstr(&type));
    if (!nullable)
        weir__buf_puts(out, " NOT NULL");
out:
    weir__buf_free(&name);
    weir__buf_free(&type);
    return rc;
}

static int jfields(json *j, weir_buf *out, bool as_columns)
{
    if (!jeat(j, '['))
        return jfail(j, "expected a fields array");
    if (jeat(j, ']'))
        return 0;
    size_t n = 0;
    do {
        if (n++)
            weir__buf_puts(out, ", ");
        if (jfield(j, out, as_columns) < 0)
            return -1;
    } while (jeat(j, ','));
    return jeat(j, ']') ? 0 : jfail(j, "expected ']'");
}

/* A complex type object; as_columns renders a struct as a column list. */
static int jobject(json *j, weir_buf *out, bool as_columns)
{
    weir_buf kind = WEIR_BUF_INIT, fields = WEIR_BUF_INIT, elem = WEIR_BUF_INIT,
             key = WEIR_BUF_INIT, val = WEIR_BUF_INIT, sql = WEIR_BUF_INIT;
    bool have_fields = false, contains_null = true, value_null = true;
    int rc = 0;
    if (++j->depth > 64) {
        rc = jfail(j, "nested too deeply");
        goto out;
    }
    if (!jeat(j, '{')) {
        rc = jfail(j, "expected a type object");
        goto out;
    }
    if (!jeat(j, '}')) {
        do {
            weir_buf k = WEIR_BUF_INIT;
            if ((rc = jstring(j, &k)) < 0 || !jeat(j, ':')) {
                weir__buf_free(&k);
                rc = rc < 0 ? rc : jfail(j, "expected ':'");
                goto out;
            }
            const char *ks = weir__buf_cstr(&k);
            if (strcmp(ks, "type") == 0) {
                weir__buf_clear(&kind);
                rc = jstring(j, &kind);
            } else if (strcmp(ks, "fields") == 0) {
                weir__buf_clear(&fields);
                rc = jfields(j, &fields, as_columns);
                have_fields = true;
            } else if (strcmp(ks, "elementType") == 0) {
                weir__buf_clear(&elem);
                rc = jtype(j, &elem);
            } else if (strcmp(ks, "keyType") == 0) {
                weir__buf_clear(&key);
                rc = jtype(j, &key);
            } else if (strcmp(ks, "valueType") == 0) {
                weir__buf_clear(&val);
                rc = jtype(j, &val);
            } else if (strcmp(ks, "sqlType") == 0) {
                weir__buf_clear(&sql);
                rc = jtype(j, &sql);
            } else if (strcmp(ks, "containsNull") == 0) {
                rc = jbool(j, &contains_null);
            } else if (strcmp(ks, "valueContainsNull") == 0) {
                rc = jbool(j, &value_null);
            } else {
                rc = jskip(j);
            }
            weir__buf_free(&k);
            if (rc < 0)
                goto out;
        } while (jeat(j, ','));
        if (!jeat(j, '}')) {
            rc = jfail(j, "expected '}'");
            goto out;
        }
    }
    const char *k = weir__buf_cstr(&kind);
    if (as_columns && strcmp(k, "struct") != 0) {
        rc = jfail(j, "a schema must be a struct");
    } else if (strcmp(k, "struct") == 0 && have_fields) {
        weir__buf_printf(out, as_columns ? "%s" : "STRUCT<%s>", weir__buf_cstr(&fields));
    } else if (strcmp(k, "array") == 0 && elem.len) {
        weir__buf_printf(out, "ARRAY<%s>", weir__buf_cstr(&elem));
    } else if (strcmp(k, "map") == 0 && key.len && val.len) {
        weir__buf_printf(out, "MAP<%s, %s>", weir__buf_cstr(&key), weir__buf_cstr(&val));
    } else if (strcmp(k, "udt") == 0 && sql.len) {
        weir__buf_puts(out, weir__buf_cstr(&sql));
    } else {
        rc = jfail(j, "unknown complex type");
    }
out:
    j->depth--;
    weir__buf_free(&kind);
    weir__buf_free(&fields);
    weir__buf_free(&elem);
    weir__buf_free(&key);
    weir__buf_free(&val);
    weir__buf_free(&sql);
    return rc;
}

static int jtype(json *j, weir_buf *out)
{
    jws(j);
    if (j->s[j->i] == '{')
        return jobject(j, out, false);
    weir_buf name = WEIR_BUF_INIT;
    int rc = jstring(j, &name);
    if (rc == 0)
        rc = jprimitive(j, out, weir__buf_cstr(&name));
    weir__buf_free(&name);
    return rc;
}

int weir__plan_schema_ddl(plan_ctx *c, weir_buf *b, const char *schema)
{
    const char *p = schema;
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    if (*p != '{') {
        /* Already DDL: keep it as the user wrote it. */
        return weir__plan_check_text(c, schema, "schema") < 0
                   ? -1 : (weir__buf_puts(b, schema), 0);
    }
    json j = { c, p, 0, 0 };
    if (jobject(&j, b, true) < 0)
        return -1;
    jws(&j);
    if (j.s[j.i])
        return jfail(&j, "trailing text");
    return 0;
}

int weir__plan_json_type_ddl(plan_ctx *c, weir_buf *b, const char *text)
{
    const char *p = text;
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    if (*p != '{')
        return 0;
    weir_buf t = WEIR_BUF_INIT;
    json j = { c, p, 0, 0 };
    int rc = jobject(&j, &t, false);
    if (rc == 0) {
        jws(&j);
        if (j.s[j.i])
            rc = jfail(&j, "trailing text");
    }
    if (rc == 0) {
        /* A struct becomes a column list, as a DDL schema is usually
         * written. */
        const char *ddl = weir__buf_cstr(&t);
        if (strncmp(ddl, "STRUCT<", 7) == 0) {
            weir_buf cols = WEIR_BUF_INIT;
            json j2 = { c, p, 0, 0 };
            rc = jobject(&j2, &cols, true);
            if (rc == 0)
                weir__buf_puts(b, weir__buf_cstr(&cols));
            weir__buf_free(&cols);
        } else {
            weir__buf_puts(b, ddl);
        }
    }
    weir__buf_free(&t);
    return rc < 0 ? -1 : 1;
}
