/*
 * Spark data types: parsing Spark's type syntax (INT, DECIMAL(10,2),
 * ARRAY<STRUCT<a: INT>>, "a INT, b STRING" schemas), printing them in
 * DuckDB's and Spark's spelling, the JSON structure DuckDB's from_json
 * wants, and naming a DuckDB result type the way Spark would.
 */
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

static weir_sql_type *new_type(sql_parser *p, sql_type_kind k)
{
    weir_sql_type *t = weir__arena_alloc(p->arena, sizeof(*t));
    if (!t)
        WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
    else
        t->kind = k;
    return t;
}

static int int_arg(sql_parser *p, int *out)
{
    const sql_token *t = weir__sql_peek(p, 0);
    if (t->kind != TK_NUMBER)
        return weir__sql_syntax_error(p);
    char *end;
    long v = strtol(t->text, &end, 10);
    if (*end || v < 0 || v > 100000)
        return weir__sql_syntax_error(p);
    *out = (int)v;
    p->i++;
    return 0;
}

static const struct {
    const char *name;
    sql_type_kind kind;
} SIMPLE[] = {
    { "STRING", TY_STRING },       { "BIGINT", TY_BIGINT },
    { "LONG", TY_BIGINT },         { "INT", TY_INT },
    { "INTEGER", TY_INT },         { "SMALLINT", TY_SMALLINT },
    { "SHORT", TY_SMALLINT },      { "TINYINT", TY_TINYINT },
    { "BYTE", TY_TINYINT },        { "DOUBLE", TY_DOUBLE },
    { "FLOAT", TY_FLOAT },         { "REAL", TY_FLOAT },
    { "BOOLEAN", TY_BOOLEAN },     { "DATE", TY_DATE },
    { "TIMESTAMP", TY_TIMESTAMP }, { "TIMESTAMP_LTZ", TY_TIMESTAMP },
    { "TIMESTAMP_NTZ", TY_TIMESTAMP_NTZ },
    { "BINARY", TY_BINARY },       { "VOID", TY_VOID },
    { "VARIANT", TY_VARIANT },     { NULL, 0 }
};

static const char *const INTERVAL_UNITS[] = {
    "YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", NULL
};

static bool is_interval_unit(const sql_parser *p)
{
    for (int i = 0; INTERVAL_UNITS[i]; i++)
        if (weir__sql_is_kw(p, 0, INTERVAL_UNITS[i]))
            return true;
    return false;
}

int weir__sql_field_list(sql_field **out, size_t *n, sql_parser *p, bool colon)
{
    sql_field *items = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        const sql_token *t = weir__sql_peek(p, 0);
        if (!weir__sql_at_name(p, 0) && t->kind != TK_STRING)
            return weir__sql_syntax_error(p);
        items = weir__sql_grow(p->arena, items, &cap, len, sizeof(*items));
        if (!items)
            return WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
        sql_field *f = &items[len++];
        memset(f, 0, sizeof(*f));
        f->name = t->text;
        p->i++;
        if (colon)
            weir__sql_accept_op(p, ":");
        int rc = weir__sql_type(&f->type, p);
        if (rc)
            return rc;
        if (weir__sql_is_kw(p, 0, "NOT") && weir__sql_is_kw(p, 1, "NULL")) {
            p->i += 2;
            f->not_null = true;
        }
        if (weir__sql_accept_kw(p, "COMMENT")) {
            f->comment = weir__sql_string(p);
            if (!f->comment)
                return WEIR_ESQL;
        }
        if (!weir__sql_accept_op(p, ","))
            break;
    }
    *out = items;
    *n = len;
    return 0;
}

int weir__sql_type(const weir_sql_type **out, sql_parser *p)
{
    if (++p->depth > SQL_MAX_DEPTH) {
        p->depth--;
        return weir__sql_error_tok(p, weir__sql_peek(p, 0), WEIR_ESQL,
                                   "PARSE_SYNTAX_ERROR",
                                   "Type nested too deeply");
    }
    int rc = 0;
    const sql_token *t = weir__sql_peek(p, 0);
    weir_sql_type *ty = NULL;
    if (t->kind != TK_IDENT) {
        rc = weir__sql_syntax_error(p);
        goto out;
    }
    for (int i = 0; SIMPLE[i].name; i++) {
        if (weir__str_ieq(t->text, SIMPLE[i].name)) {
            p->i++;
            ty = new_type(p, SIMPLE[i].kind);
            if (!ty)
                rc = WEIR_ENOMEM;
            else if (ty->kind == TY_DOUBLE)
                weir__sql_accept_kw(p, "PRECISION");
            else if (ty->kind == TY_TIMESTAMP && weir__sql_is_kw(p, 0, "WITH") &&
                     weir__sql_is_kw(p, 1, "LOCAL")) {
                /* TIMESTAMP WITH LOCAL TIME ZONE */
                p->i += 2;
                if (!weir__sql_accept_kw(p, "TIME") ||
                    !weir__sql_accept_kw(p, "ZONE"))
                    rc = weir__sql_syntax_error(p);
            } else if (ty->kind == TY_TIMESTAMP &&
                       weir__sql_is_kw(p, 0, "WITHOUT")) {
                p->i++;
                if (!weir__sql_accept_kw(p, "TIME") ||
                    !weir__sql_accept_kw(p, "ZONE"))
                    rc = weir__sql_syntax_error(p);
                ty->kind = TY_TIMESTAMP_NTZ;
            }
            goto out;
        }
    }
    if (weir__str_ieq(t->text, "VARCHAR") || weir__str_ieq(t->text, "CHAR") ||
        weir__str_ieq(t->text, "CHARACTER")) {
        p->i++;
        ty = new_type(p, TY_STRING);
        if (!ty) {
            rc = WEIR_ENOMEM;
            goto out;
        }
        if (weir__sql_accept_op(p, "(")) {
            if ((rc = int_arg(p, &ty->length)) ||
                (rc = weir__sql_expect_op(p, ")")))
                goto out;
        }
        goto out;
    }
    if (weir__str_ieq(t->text, "DECIMAL") || weir__str_ieq(t->text, "DEC") ||
        weir__str_ieq(t->text, "NUMERIC")) {
        p->i++;
        ty = new_type(p, TY_DECIMAL);
        if (!ty) {
            rc = WEIR_ENOMEM;
            goto out;
        }
        ty->precision = 10;
        ty->scale = 0;
        if (weir__sql_accept_op(p, "(")) {
            if ((rc = int_arg(p, &ty->precision)))
                goto out;
            if (weir__sql_accept_op(p, ",") && (rc = int_arg(p, &ty->scale)))
                goto out;
            if ((rc = weir__sql_expect_op(p, ")")))
                goto out;
            if (ty->precision < 1 || ty->precision > 38 ||
                ty->scale > ty->precision) {
                rc = weir__sql_error_tok(
                    p, t, WEIR_ESQL, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                    "Decimal precision %d exceeds max precision 38 or scale "
                    "%d is larger than the precision",
                    ty->precision, ty->scale);
                goto out;
            }
        }
        goto out;
    }
    if (weir__str_ieq(t->text, "INTERVAL")) {
        p->i++;
        ty = new_type(p, TY_INTERVAL);
        if (!ty) {
            rc = WEIR_ENOMEM;
            goto out;
        }
        if (is_interval_unit(p)) {
            p->i++;
            if (weir__sql_accept_kw(p, "TO")) {
                if (!is_interval_unit(p)) {
                    rc = weir__sql_syntax_error(p);
                    goto out;
                }
                p->i++;
            }
        }
        goto out;
    }
    if (weir__str_ieq(t->text, "ARRAY")) {
        p->i++;
        ty = new_type(p, TY_ARRAY);
        if (!ty) {
            rc = WEIR_ENOMEM;
            goto out;
        }
        if ((rc = weir__sql_expect_op(p, "<")) ||
            (rc = weir__sql_type(&ty->elem, p)))
            goto out;
        if (!weir__sql_accept_close_angle(p))
            rc = weir__sql_syntax_error(p);
        goto out;
    }
    if (weir__str_ieq(t->text, "MAP")) {
        p->i++;
        ty = new_type(p, TY_MAP);
        if (!ty) {
            rc = WEIR_ENOMEM;
            goto out;
        }
        if ((rc = weir__sql_expect_op(p, "<")) ||
            (rc = weir__sql_type(&ty->elem, p)) ||
            (rc = weir__sql_expect_op(p, ",")) ||
            (rc = weir__sql_type(&ty->value, p)))
            goto out;
        if (!weir__sql_accept_close_angle(p))
            rc = weir__sql_syntax_error(p);
        goto out;
    }
    if (weir__str_ieq(t->text, "STRUCT")) {
        p->i++;
        ty = new_type(p, TY_STRUCT);
        if (!ty) {
            rc = WEIR_ENOMEM;
            goto out;
        }
        if ((rc = weir__sql_expect_op(p, "<")))
            goto out;
        if (weir__sql_accept_close_angle(p))
            goto out;
        if ((rc = weir__sql_field_list(&ty->fields, &ty->n_fields, p, true)))
            goto out;
        if (!weir__sql_accept_close_angle(p))
            rc = weir__sql_syntax_error(p);
        goto out;
    }
    rc = weir__sql_error_tok(p, t, WEIR_ESQL, "UNSUPPORTED_DATATYPE",
                             "Unsupported data type \"%s\"", t->text);
out:
    p->depth--;
    if (!rc)
        *out = ty;
    return rc;
}

static int parse_text(sql_parser *p, weir_arena *arena, const char *text,
                      weir_sql_source *src, weir_error *err)
{
    src->path = "";
    src->text = text;
    src->len = strlen(text);
    return weir__sql_parser_init(p, arena, src, 0, src->len, err);
}

int weir__sql_parse_type(weir_sql_type **out, weir_arena *arena,
                         const char *text, weir_error *err)
{
    weir_sql_source *src = weir__arena_alloc(arena, sizeof(*src));
    if (!src)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    sql_parser p;
    int rc = parse_text(&p, arena, text, src, err);
    if (rc)
        return rc;
    const weir_sql_type *t;
    rc = weir__sql_type(&t, &p);
    if (!rc && weir__sql_peek(&p, 0)->kind != TK_EOF)
        rc = weir__sql_syntax_error(&p);
    if (!rc)
        *out = (weir_sql_type *)t;
    return rc;
}

int weir__sql_parse_schema(const weir_sql_type **out, weir_arena *arena,
                           const char *text, weir_error *err)
{
    weir_sql_source *src = weir__arena_alloc(arena, sizeof(*src));
    if (!src)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    sql_parser p;
    int rc = parse_text(&p, arena, text, src, err);
    if (rc)
        return rc;
    /* A type ("STRUCT<..>", "ARRAY<..>") or a field list ("a INT, b INT"). */
    const sql_token *t0 = weir__sql_peek(&p, 0);
    bool is_type = (weir__sql_is_kw(&p, 0, "STRUCT") ||
                    weir__sql_is_kw(&p, 0, "ARRAY") ||
                    weir__sql_is_kw(&p, 0, "MAP")) &&
                   weir__sql_is_op(&p, 1, "<");
    (void)t0;
    if (is_type) {
        rc = weir__sql_type(out, &p);
    } else {
        weir_sql_type *st = new_type(&p, TY_STRUCT);
        if (!st)
            return WEIR_ENOMEM;
        rc = weir__sql_field_list(&st->fields, &st->n_fields, &p, true);
        *out = st;
    }
    if (!rc && weir__sql_peek(&p, 0)->kind != TK_EOF)
        rc = weir__sql_syntax_error(&p);
    return rc;
}

void weir__sql_type_to_duckdb(weir_buf *out, const weir_sql_type *t)
{
    switch (t->kind) {
    case TY_STRING: weir__buf_puts(out, "VARCHAR"); break;
    case TY_BIGINT: weir__buf_puts(out, "BIGINT"); break;
    case TY_INT: weir__buf_puts(out, "INTEGER"); break;
    case TY_SMALLINT: weir__buf_puts(out, "SMALLINT"); break;
    case TY_TINYINT: weir__buf_puts(out, "TINYINT"); break;
    case TY_DOUBLE: weir__buf_puts(out, "DOUBLE"); break;
    case TY_FLOAT: weir__buf_puts(out, "FLOAT"); break;
    case TY_DECIMAL:
        weir__buf_printf(out, "DECIMAL(%d,%d)", t->precision, t->scale);
        break;
    case TY_BOOLEAN: weir__buf_puts(out, "BOOLEAN"); break;
    case TY_DATE: weir__buf_puts(out, "DATE"); break;
    case TY_TIMESTAMP:
    case TY_TIMESTAMP_NTZ: weir__buf_puts(out, "TIMESTAMP"); break;
    case TY_BINARY: weir__buf_puts(out, "BLOB"); break;
    case TY_INTERVAL: weir__buf_puts(out, "INTERVAL"); break;
    case TY_VOID: weir__buf_puts(out, "\"NULL\""); break;
    case TY_VARIANT: weir__buf_puts(out, "JSON"); break;
    case TY_ARRAY:
        weir__sql_type_to_duckdb(out, t->elem);
        weir__buf_puts(out, "[]");
        break;
    case TY_MAP:
        weir__buf_puts(out, "MAP(");
        weir__sql_type_to_duckdb(out, t->elem);
        weir__buf_puts(out, ", ");
        weir__sql_type_to_duckdb(out, t->value);
        weir__buf_putc(out, ')');
        break;
    case TY_STRUCT:
        weir__buf_puts(out, "STRUCT(");
        for (size_t i = 0; i < t->n_fields; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            weir__buf_put_sql_ident(out, t->fields[i].name);
            weir__buf_putc(out, ' ');
            weir__sql_type_to_duckdb(out, t->fields[i].type);
        }
        weir__buf_putc(out, ')');
        break;
    }
}

/* Field names that need backticks in Spark's DDL spelling. */
static void put_spark_field_name(weir_buf *out, const char *name)
{
    bool plain = *name != '\0';
    for (const char *s = name; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            plain = false;
    if (plain) {
        weir__buf_puts(out, name);
        return;
    }
    weir__buf_putc(out, '`');
    for (const char *s = name; *s; s++) {
        if (*s == '`')
            weir__buf_putc(out, '`');
        weir__buf_putc(out, *s);
    }
    weir__buf_putc(out, '`');
}

void weir__sql_type_to_spark(weir_buf *out, const weir_sql_type *t)
{
    switch (t->kind) {
    case TY_STRING: weir__buf_puts(out, "string"); break;
    case TY_BIGINT: weir__buf_puts(out, "bigint"); break;
    case TY_INT: weir__buf_puts(out, "int"); break;
    case TY_SMALLINT: weir__buf_puts(out, "smallint"); break;
    case TY_TINYINT: weir__buf_puts(out, "tinyint"); break;
    case TY_DOUBLE: weir__buf_puts(out, "double"); break;
    case TY_FLOAT: weir__buf_puts(out, "float"); break;
    case TY_DECIMAL:
        weir__buf_printf(out, "decimal(%d,%d)", t->precision, t->scale);
        break;
    case TY_BOOLEAN: weir__buf_puts(out, "boolean"); break;
    case TY_DATE: weir__buf_puts(out, "date"); break;
    case TY_TIMESTAMP: weir__buf_puts(out, "timestamp"); break;
    case TY_TIMESTAMP_NTZ: weir__buf_puts(out, "timestamp_ntz"); break;
    case TY_BINARY: weir__buf_puts(out, "binary"); break;
    case TY_INTERVAL: weir__buf_puts(out, "interval"); break;
    case TY_VOID: weir__buf_puts(out, "void"); break;
    case TY_VARIANT: weir__buf_puts(out, "variant"); break;
    case TY_ARRAY:
        weir__buf_puts(out, "array<");
        weir__sql_type_to_spark(out, t->elem);
        weir__buf_putc(out, '>');
        break;
    case TY_MAP:
        weir__buf_puts(out, "map<");
        weir__sql_type_to_spark(out, t->elem);
        weir__buf_putc(out, ',');
        weir__sql_type_to_spark(out, t->value);
        weir__buf_putc(out, '>');
        break;
    case TY_STRUCT:
        weir__buf_puts(out, "struct<");
        for (size_t i = 0; i < t->n_fields; i++) {
            if (i)
                weir__buf_putc(out, ',');
            put_spark_field_name(out, t->fields[i].name);
            weir__buf_putc(out, ':');
            weir__sql_type_to_spark(out, t->fields[i].type);
        }
        weir__buf_putc(out, '>');
        break;
    }
}

int weir__sql_json_structure(weir_buf *out, const weir_sql_type *t)
{
    switch (t->kind) {
    case TY_ARRAY:
        weir__buf_putc(out, '[');
        weir__sql_json_structure(out, t->elem);
        weir__buf_putc(out, ']');
        return 0;
    case TY_STRUCT:
        weir__buf_putc(out, '{');
        for (size_t i = 0; i < t->n_fields; i++) {
            if (i)
                weir__buf_putc(out, ',');
            weir__buf_put_json_string(out, t->fields[i].name);
            weir__buf_putc(out, ':');
            weir__sql_json_structure(out, t->fields[i].type);
        }
        weir__buf_putc(out, '}');
        return 0;
    default: {
        weir_buf tmp = WEIR_BUF_INIT;
        weir__sql_type_to_duckdb(&tmp, t);
        weir__buf_put_json_string(out, weir__buf_cstr(&tmp));
        weir__buf_free(&tmp);
        return 0;
    }
    }
}

/* ------------------------------------------------------------------------
 * DuckDB type text -> Spark type name
 * ------------------------------------------------------------------------ */

typedef struct dparser {
    const char *s;
    size_t i;
    int depth;
} dparser;

static void dskip(dparser *d)
{
    while (d->s[d->i] == ' ')
        d->i++;
}

static void dtype(weir_buf *out, dparser *d);

/* A field name: "quoted" or bare up to the next blank. */
static void dname(weir_buf *out, dparser *d)
{
    dskip(d);
    weir_buf name = WEIR_BUF_INIT;
    if (d->s[d->i] == '"') {
        d->i++;
        while (d->s[d->i]) {
            if (d->s[d->i] == '"') {
                if (d->s[d->i + 1] == '"') {
                    weir__buf_putc(&name, '"');
                    d->i += 2;
                    continue;
                }
                d->i++;
                break;
            }
            weir__buf_putc(&name, d->s[d->i++]);
        }
    } else {
        while (d->s[d->i] && d->s[d->i] != ' ' && d->s[d->i] != ',' &&
               d->s[d->i] != ')')
            weir__buf_putc(&name, d->s[d->i++]);
    }
    put_spark_field_name(out, weir__buf_cstr(&name));
    weir__buf_free(&name);
}

static const struct {
    const char *duck, *spark;
} DUCK_NAMES[] = {
    { "BIGINT", "bigint" },       { "INTEGER", "int" },
    { "SMALLINT", "smallint" },   { "TINYINT", "tinyint" },
    { "DOUBLE", "double" },       { "FLOAT", "float" },
    { "VARCHAR", "string" },      { "BOOLEAN", "boolean" },
    { "DATE", "date" },           { "TIMESTAMP", "timestamp" },
    { "TIMESTAMP WITH TIME ZONE", "timestamp" },
    { "TIMESTAMP_S", "timestamp" }, { "TIMESTAMP_MS", "timestamp" },
    { "TIMESTAMP_NS", "timestamp" }, { "TIMESTAMP_US", "timestamp" },
    { "BLOB", "binary" },         { "HUGEINT", "decimal(38,0)" },
    { "UHUGEINT", "decimal(38,0)" }, { "UTINYINT", "smallint" },
    { "USMALLINT", "int" },       { "UINTEGER", "bigint" },
    { "UBIGINT", "decimal(20,0)" }, { "INTERVAL", "interval" },
    { "\"NULL\"", "void" },       { "NULL", "void" },
    { "UUID", "string" },         { "JSON", "string" },
    { "BIT", "binary" },          { NULL, NULL }
};

static void dtype(weir_buf *result, dparser *d)
{
    weir_buf cur = WEIR_BUF_INIT;
    weir_buf *out = &cur;
    dskip(d);
    if (++d->depth > SQL_MAX_DEPTH) {
        d->i += strlen(d->s + d->i);
        d->depth--;
        return;
    }
    size_t st = d->i;
    if (weir__str_istarts(d->s + d->i, "STRUCT(")) {
        d->i += 7;
        weir__buf_puts(out, "struct<");
        bool first = true;
        for (;;) {
            dskip(d);
            if (d->s[d->i] == ')' || !d->s[d->i]) {
                if (d->s[d->i])
                    d->i++;
                break;
            }
            if (!first)
                weir__buf_putc(out, ',');
            first = false;
            dname(out, d);
            weir__buf_putc(out, ':');
            dtype(out, d);
            dskip(d);
            if (d->s[d->i] == ',')
                d->i++;
        }
        weir__buf_putc(out, '>');
    } else if (weir__str_istarts(d->s + d->i, "MAP(")) {
        d->i += 4;
        weir__buf_puts(out, "map<");
        dtype(out, d);
        dskip(d);
        if (d->s[d->i] == ',')
            d->i++;
        weir__buf_putc(out, ',');
        dtype(out, d);
        dskip(d);
        if (d->s[d->i] == ')')
            d->i++;
        weir__buf_putc(out, '>');
    } else if (weir__str_istarts(d->s + d->i, "DECIMAL(")) {
        size_t j = d->i + 8;
        weir__buf_puts(out, "decimal(");
        while (d->s[j] && d->s[j] != ')') {
            if (d->s[j] != ' ')
                weir__buf_putc(out, d->s[j]);
            j++;
        }
        weir__buf_putc(out, ')');
        d->i = d->s[j] ? j + 1 : j;
    } else if (weir__str_istarts(d->s + d->i, "UNION(") ||
               weir__str_istarts(d->s + d->i, "ENUM(")) {
        bool is_enum = weir__str_istarts(d->s + d->i, "ENUM(");
        int depth = 0;
        size_t j = d->i;
        for (; d->s[j]; j++) {
            if (d->s[j] == '(')
                depth++;
            else if (d->s[j] == ')' && --depth == 0) {
                j++;
                break;
            }
        }
        if (is_enum)
            weir__buf_puts(out, "string");
        else
            for (size_t k = d->i; k < j; k++)
                weir__buf_putc(out, (char)tolower((unsigned char)d->s[k]));
        d->i = j;
    } else {
        /* A simple name, possibly with blanks (TIMESTAMP WITH TIME ZONE). */
        size_t j = d->i;
        while (d->s[j] && d->s[j] != ',' && d->s[j] != ')' && d->s[j] != '[')
            j++;
        while (j > st && d->s[j - 1] == ' ')
            j--;
        char name[64];
        size_t n = j - st < sizeof(name) - 1 ? j - st : sizeof(name) - 1;
        memcpy(name, d->s + st, n);
        name[n] = '\0';
        const char *sp = NULL;
        for (int k = 0; DUCK_NAMES[k].duck; k++)
            if (weir__str_ieq(name, DUCK_NAMES[k].duck))
                sp = DUCK_NAMES[k].spark;
        if (sp) {
            weir__buf_puts(out, sp);
        } else {
            for (size_t k = 0; k < n; k++)
                weir__buf_putc(out, (char)tolower((unsigned char)name[k]));
        }
        d->i = j;
    }
    /* Array suffixes: T[] and T[3]. Wrap what was written. */
    while (d->s[d->i] == '[') {
        size_t j = d->i;
        while (d->s[j] && d->s[j] != ']')
            j++;
        d->i = d->s[j] ? j + 1 : j;
        weir_buf tmp = WEIR_BUF_INIT;
        weir__buf_puts(&tmp, "array<");
        weir__buf_puts(&tmp, weir__buf_cstr(out));
        weir__buf_putc(&tmp, '>');
        weir__buf_clear(out);
        weir__buf_puts(out, weir__buf_cstr(&tmp));
        weir__buf_free(&tmp);
    }
    d->depth--;
    weir__buf_puts(result, weir__buf_cstr(&cur));
    weir__buf_free(&cur);
}

void weir__sql_duckdb_type_to_spark(weir_buf *out, const char *duckdb_type)
{
    /* Types are converted into a scratch buffer so array suffixes can wrap
     * exactly the element type. */
    dparser d = { duckdb_type ? duckdb_type : "", 0, 0 };
    weir_buf tmp = WEIR_BUF_INIT;
    dtype(&tmp, &d);
    weir__buf_puts(out, weir__buf_cstr(&tmp));
    weir__buf_free(&tmp);
}
