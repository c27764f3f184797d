/*
 * Databases as sources: read_jdbc(...) (docs/databases.md). A read is the
 * database's table or query through DuckDB's scanner for it, attached
 * read-only (store/jdbc.h), with its columns cast to the types Spark's JDBC
 * dialects give them (uuid, json, enums and intervals as strings, time
 * zones folded into Spark's timestamp, unsigned integers widened,
 * PostgreSQL's numeric without precision as decimal(38,18)). Messages
 * name the database and the table, never the password.
 */
#include "sources/jdbc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/jdbc.h"
#include "util/str.h"

/* The Spark-typed DuckDB type for a scanner's column type t into out:
 * 0 when it is t itself, 1 when a cast to out is needed, 2 when the
 * value needs an expression (TIME: a timestamp on 1970-01-01), -1 when
 * Spark's dialects have no type for it. */
static int spark_type(const char *t, weir_buf *out)
{
    static const struct {
        const char *from, *to;
    } CASTS[] = {
        { "UUID", "VARCHAR" },        { "JSON", "VARCHAR" },
        { "INTERVAL", "VARCHAR" },    { "TIMESTAMP WITH TIME ZONE", "TIMESTAMP" },
        { "TIMESTAMP_NS", "TIMESTAMP" }, { "TIMESTAMP_MS", "TIMESTAMP" },
        { "TIMESTAMP_S", "TIMESTAMP" }, { "UTINYINT", "SMALLINT" },
        { "USMALLINT", "INTEGER" },   { "UINTEGER", "BIGINT" },
        { "UBIGINT", "DECIMAL(20,0)" }, { "HUGEINT", "DECIMAL(38,0)" },
        { "UHUGEINT", "DECIMAL(38,0)" }, { "BIT", "VARCHAR" },
    };
    size_t n = strlen(t);
    if (n > 2 && strcmp(t + n - 2, "[]") == 0) {
        char *elem = strndup(t, n - 2);
        if (!elem)
            return -1;
        weir_buf e = WEIR_BUF_INIT;
        int k = spark_type(elem, &e);
        if (k == 2) { /* TIME[]: strings */
            weir__buf_puts(out, "VARCHAR[]");
            k = 1;
        } else if (k == 1) {
            weir__buf_printf(out, "%s[]", weir__buf_cstr(&e));
        }
        weir__buf_free(&e);
        free(elem);
        return k;
    }
    for (size_t i = 0; i < sizeof(CASTS) / sizeof(CASTS[0]); i++)
        if (strcmp(t, CASTS[i].from) == 0) {
            weir__buf_puts(out, CASTS[i].to);
            return 1;
        }
    if (weir__str_istarts(t, "ENUM(")) {
        weir__buf_puts(out, "VARCHAR");
        return 1;
    }
    if (strcmp(t, "TIME") == 0 || strcmp(t, "TIME WITH TIME ZONE") == 0)
        return 2;
    if (weir__str_istarts(t, "STRUCT(") || weir__str_istarts(t, "MAP(") ||
        weir__str_istarts(t, "UNION(") || strchr(t, '[') )
        return -1;
    return 0;
}

/* The scanner's relation of the table or query, in DuckDB SQL. */
static void base_relation(weir_buf *out, const weir_jdbc_opts *o,
                          const char *alias, const char *numeric_sql)
{
    if (numeric_sql) {
        weir__buf_printf(out, "postgres_query('%s', ", alias);
        weir__buf_put_sql_string(out, numeric_sql);
        weir__buf_putc(out, ')');
        return;
    }
    if (o->table) {
        const char *schema = o->schema ? o->schema
                             : o->kind == WEIR_JDBC_POSTGRES ? "public"
                             : o->kind == WEIR_JDBC_MYSQL    ? o->database
                                                             : "main";
        weir__buf_printf(out, "%s.", alias);
        weir__buf_put_sql_ident(out, schema);
        weir__buf_putc(out, '.');
        weir__buf_put_sql_ident(out, o->table);
        return;
    }
    /* As Spark runs a query option: a subquery of its own, which also
     * keeps a statement that is not a query from running. */
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_printf(&q, "SELECT * FROM (%s) %s", o->query,
                     o->kind == WEIR_JDBC_POSTGRES ? "AS weir_jdbc_query"
                                                   : "weir_jdbc_query");
    weir__buf_printf(out, "%s_query('%s', ",
                     o->kind == WEIR_JDBC_POSTGRES ? "postgres"
                     : o->kind == WEIR_JDBC_MYSQL  ? "mysql"
                                                   : "sqlite",
                     alias);
    weir__buf_put_sql_string(out, weir__buf_cstr(&q));
    weir__buf_putc(out, ')');
    weir__buf_free(&q);
}

/* The PostgreSQL types Spark reads as their text (PostgresDialect:
 * StringType, read with getString), converted on the server where the
 * scanner's own conversion would differ (inet as 10.0.0.1/32, money as a
 * number) or where it has none. */
static bool text_on_server(const char *typname, const char *typtype)
{
    static const char *const names[] = {
        "inet", "cidr", "macaddr", "macaddr8", "money", "interval", "xml",
        "tsvector", "tsquery", "txid_snapshot", "pg_snapshot", "point", "line",
        "lseg", "box", "path", "polygon", "circle", "pg_lsn", "varbit"
    };
    if (typtype && strcmp(typtype, "e") == 0) /* enums */
        return true;
    for (size_t i = 0; typname && i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(typname, names[i]) == 0)
            return true;
    return false;
}

/* A PostgreSQL table whose columns need the server's conversion (numeric
 * without a precision, which the scanner reads as double and Spark as
 * decimal(38,18); the types of text_on_server) is read through a query
 * doing it: its text, malloc'd. NULL when no column needs it (or the
 * catalog could not be read: the plain scan then reports the problem). */
static char *server_query(weir_conn *c, const weir_jdbc_opts *o,
                          const char *alias)
{
    if (o->kind != WEIR_JDBC_POSTGRES || !o->table)
        return NULL;
    weir_buf in = WEIR_BUF_INIT, q = WEIR_BUF_INIT;
    weir__buf_puts(&in, "SELECT a.attname::text, y.typname::text, (a.atttypid = 1700 "
                        "AND a.atttypmod = -1)::text, y.typtype::text FROM pg_attribute a "
                        "JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace s "
                        "ON s.oid = t.relnamespace JOIN pg_type y ON y.oid = "
                        "a.atttypid WHERE a.attnum > 0 AND NOT a.attisdropped AND "
                        "t.relname = ");
    weir__buf_put_sql_string(&in, o->table);
    weir__buf_puts(&in, " AND s.nspname = ");
    weir__buf_put_sql_string(&in, o->schema ? o->schema : "public");
    weir__buf_puts(&in, " ORDER BY a.attnum");
    weir__buf_printf(&q, "SELECT * FROM postgres_query('%s', ", alias);
    weir__buf_put_sql_string(&q, weir__buf_cstr(&in));
    weir__buf_putc(&q, ')');
    weir_rows *r = NULL;
    weir_error ignore;
    char *sql = NULL;
    if (!weir__conn_query(c, weir__buf_cstr(&q), &r, &ignore)) {
        bool any = false;
        weir_buf s = WEIR_BUF_INIT;
        weir__buf_puts(&s, "SELECT ");
        for (size_t i = 0; i < r->n_rows; i++) {
            const char *name = weir__rows_get(r, i, 0);
            const char *wide = weir__rows_get(r, i, 2);
            bool numeric = wide && strcmp(wide, "true") == 0;
            bool text = text_on_server(weir__rows_get(r, i, 1),
                                       weir__rows_get(r, i, 3));
            any = any || numeric || text;
            weir__buf_puts(&s, i ? ", " : "");
            /* The type's output function, as the driver's getString
             * (a cast to text differs: inet keeps its /32). */
            if (text) {
                weir__buf_puts(&s, "CASE WHEN ");
                weir__buf_put_sql_ident(&s, name ? name : "");
                weir__buf_puts(&s, " IS NOT NULL THEN format('%s', ");
            }
            weir__buf_put_sql_ident(&s, name ? name : "");
            if (numeric || text) {
                weir__buf_puts(&s, numeric ? "::numeric(38,18) AS " : ") END AS ");
                weir__buf_put_sql_ident(&s, name ? name : "");
            }
        }
        weir__buf_puts(&s, " FROM ");
        weir__buf_put_sql_ident(&s, o->schema ? o->schema : "public");
        weir__buf_putc(&s, '.');
        weir__buf_put_sql_ident(&s, o->table);
        if (any && !s.failed)
            sql = strdup(weir__buf_cstr(&s));
        weir__buf_free(&s);
    }
    weir__rows_free(r);
    weir__buf_free(&in);
    weir__buf_free(&q);
    return sql;
}

static int read_failed(weir_error *err, const weir_jdbc_opts *o,
                       const weir_error *why)
{
    weir_buf d = WEIR_BUF_INIT;
    weir__sql_jdbc_describe(o, &d);
    bool missing = strstr(why->message, "does not exist") ||
                   strstr(why->message, "cannot be found");
    int rc = WEIR_ERR(err, missing ? WEIR_EGRAPH : WEIR_EIO,
                      missing ? "JDBC_TABLE_NOT_FOUND" : "JDBC_READ_FAILED",
                      "cannot read the %s: %s", weir__buf_cstr(&d), why->message);
    weir__buf_free(&d);
    return rc;
}

/* err placed at the call, its source line without the password. */
static void locate(weir_error *err, const weir_sql_source *src,
                   const weir_sql_tvf *call, const char *password)
{
    if (src && !err->path[0])
        weir__sql_error_at(err, src, call->pos);
    weir__sql_jdbc_mask(password, err->line_text, sizeof(err->line_text));
    weir__sql_jdbc_mask(password, err->message, sizeof(err->message));
}

int weir__jdbc_render(weir_buf *out, weir_conn *c, const weir_sql_tvf *call,
                      const char *root_dir, const weir_sql_source *src,
                      weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_jdbc_opts o;
    char alias[64];
    int rc = weir__sql_jdbc_opts(&o, &a, call, err);
    if (!rc && !c)
        rc = WEIR_ERR(err, WEIR_ERROR, NULL, "internal error: read_jdbc without a connection");
    if (!rc)
        rc = weir__jdbc_attach(c, &o, root_dir, alias, sizeof(alias), err);
    if (rc) {
        locate(err, src, call, o.password);
        weir__arena_free(&a);
        return rc;
    }
    char *numeric = server_query(c, &o, alias);
    weir_buf base = WEIR_BUF_INIT, probe = WEIR_BUF_INIT;
    base_relation(&base, &o, alias, numeric);
    free(numeric);
    weir__buf_printf(&probe, "SELECT * FROM %s", weir__buf_cstr(&base));
    weir_db_column *cols = NULL;
    size_t n = 0;
    weir_error why;
    memset(&why, 0, sizeof(why));
    if (weir__conn_describe(c, weir__buf_cstr(&probe), &cols, &n, &a, &why))
        rc = read_failed(err, &o, &why);
    weir__buf_puts(out, "(SELECT ");
    for (size_t i = 0; !rc && i < n; i++) {
        weir_buf t = WEIR_BUF_INIT;
        int k = spark_type(cols[i].type, &t);
        weir__buf_puts(out, i ? ", " : "");
        if (k < 0) {
            weir_buf d = WEIR_BUF_INIT;
            weir__sql_jdbc_describe(&o, &d);
            rc = WEIR_ERR(err, WEIR_EINVAL, "JDBC_UNSUPPORTED_TYPE",
                          "column %s of the %s has type %s, which Spark's JDBC "
                          "reads have no type for: cast it in a query option",
                          cols[i].name, weir__buf_cstr(&d), cols[i].type);
            weir__buf_free(&d);
        } else if (k == 2) {
            weir__buf_puts(out, "CAST(DATE '1970-01-01' + CAST(");
            weir__buf_put_sql_ident(out, cols[i].name);
            weir__buf_puts(out, " AS TIME) AS TIMESTAMP)");
        } else if (k == 1) {
            weir__buf_puts(out, "CAST(");
            weir__buf_put_sql_ident(out, cols[i].name);
            weir__buf_printf(out, " AS %s)", weir__buf_cstr(&t));
        } else {
            weir__buf_put_sql_ident(out, cols[i].name);
        }
        if (k > 0) {
            weir__buf_puts(out, " AS ");
            weir__buf_put_sql_ident(out, cols[i].name);
        }
        weir__buf_free(&t);
    }
    weir__buf_printf(out, " FROM %s)", weir__buf_cstr(&base));
    weir__buf_free(&base);
    weir__buf_free(&probe);
    if (rc)
        locate(err, src, call, o.password);
    weir__arena_free(&a);
    return rc;
}
