/*
 * Databases as sources: read_jdbc(...) (docs/databases.md). A read is the
 * database's table or query through DuckDB's scanner for it, attached
 * read-only (store/jdbc.h), with its columns cast to the types Spark's JDBC
 * dialects give them (uuid, json, enums and intervals as strings, time
 * zones folded into Spark's timestamp, unsigned integers widened,
 * PostgreSQL's numeric without precision as decimal(38,18), CHAR(n)
 * padded, MySQL's time and year as timestamp and date: the Spark tier's
 * tests/spark/jdbc_types.py compares them with Spark's reads). Messages
 * name the database and the table, never the password.
 */
#include "sources/jdbc.h"

#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/source.h"
#include "state/checkpoint.h"
#include "store/jdbc.h"
#include "store/storage.h"
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

/* Identifiers in the server's dialect (MySQL quotes with backquotes). */
static void server_ident(weir_buf *out, const weir_jdbc_opts *o, const char *name)
{
    if (o->kind != WEIR_JDBC_MYSQL) {
        weir__buf_put_sql_ident(out, name);
        return;
    }
    weir__buf_putc(out, '`');
    for (const char *p = name; *p; p++) {
        if (*p == '`')
            weir__buf_putc(out, '`');
        weir__buf_putc(out, *p);
    }
    weir__buf_putc(out, '`');
}

static const char *default_schema(const weir_jdbc_opts *o)
{
    return o->schema ? o->schema
           : o->kind == WEIR_JDBC_POSTGRES ? "public"
           : o->kind == WEIR_JDBC_MYSQL    ? o->database
                                           : "main";
}

/* What a read takes from the server: the select list (NULL: *) and, for
 * a pull by cursor, the rows whose cursor is at or past `from` (NULL:
 * the first pull, every row with a cursor). */
typedef struct server_read {
    const char *select;
    bool pull;
    const char *from;
} server_read;

/* The query the server runs for a read: the table or, as Spark runs a
 * query option, the query as a subquery of its own (which also keeps a
 * statement that is not a query from running). */
static void server_sql(weir_buf *out, const weir_jdbc_opts *o,
                       const server_read *sr)
{
    weir__buf_printf(out, "SELECT %s FROM ", sr->select ? sr->select : "*");
    if (o->table) {
        server_ident(out, o, default_schema(o));
        weir__buf_putc(out, '.');
        server_ident(out, o, o->table);
    } else {
        weir__buf_printf(out, "(%s) AS weir_jdbc_query", o->query);
    }
    if (!sr->pull)
        return;
    weir__buf_puts(out, " WHERE ");
    server_ident(out, o, o->cursor);
    if (!sr->from) {
        weir__buf_puts(out, " IS NOT NULL");
        return;
    }
    /* The value as a string literal the server casts to the column's
     * type (MySQL also reads backslashes as escapes). */
    weir__buf_puts(out, " >= '");
    for (const char *p = sr->from; *p; p++) {
        if (*p == '\'' || (*p == '\\' && o->kind == WEIR_JDBC_MYSQL))
            weir__buf_putc(out, *p);
        weir__buf_putc(out, *p);
    }
    weir__buf_putc(out, '\'');
}

/* The scanner's relation of a read, in DuckDB SQL: a plain scan of the
 * table when the server need do nothing, else the server's query. */
static void base_relation(weir_buf *out, const weir_jdbc_opts *o,
                          const char *alias, const server_read *sr)
{
    if (o->table && !sr->select && !sr->pull) {
        weir__buf_put_sql_ident(out, alias);
        weir__buf_putc(out, '.');
        weir__buf_put_sql_ident(out, default_schema(o));
        weir__buf_putc(out, '.');
        weir__buf_put_sql_ident(out, o->table);
        return;
    }
    weir_buf q = WEIR_BUF_INIT;
    server_sql(&q, o, sr);
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

/* How the server converts a column for Spark's reading of it, appended
 * to the select list s as `<expression> AS name`; false when the column is
 * read as the scanner reads it. typ is the catalog's type name, len its
 * length (PostgreSQL's atttypmod, MySQL's character_maximum_length; -1
 * when none), typtype PostgreSQL's kind of type (enums: "e") or MySQL's
 * collation. */
static bool server_convert(weir_buf *s, const weir_jdbc_opts *o,
                           const char *name, const char *typ, long len,
                           const char *typtype)
{
    enum { AS_IS, NUMERIC, PAD, BIT1, BITS, TEXT, MY_PAD, MY_TIME, MY_YEAR,
           MY_TEXT } k = AS_IS;
    if (o->kind == WEIR_JDBC_POSTGRES) {
        if (strcmp(typ, "numeric") == 0 && len == -1)
            k = NUMERIC; /* Spark: decimal(38,18), not double */
        else if (strcmp(typ, "bpchar") == 0 && len > 4)
            k = PAD; /* Spark pads CHAR(n): atttypmod is n + 4 */
        else if (strcmp(typ, "bit") == 0)
            k = len == 1 ? BIT1 : BITS; /* Spark: boolean; the text's bytes */
        else if (text_on_server(typ, typtype))
            k = TEXT;
    } else if (o->kind == WEIR_JDBC_MYSQL) {
        if (strcmp(typ, "char") == 0 && len > 0)
            k = MY_PAD; /* Spark pads CHAR(n) */
        else if (strcmp(typ, "time") == 0)
            k = MY_TIME; /* Spark: a timestamp on 1970-01-01 */
        else if (strcmp(typ, "year") == 0)
            k = MY_YEAR; /* Spark: a date, January 1st */
        else if (strcmp(typ, "json") == 0 ||
                 (strstr(typ, "text") && typtype && weir__str_ends(typtype, "_bin")))
            k = MY_TEXT; /* JSON (MariaDB: longtext, utf8mb4_bin), which a
                            query's result gives as bytes */
    }
    weir_buf id = WEIR_BUF_INIT;
    server_ident(&id, o, name);
    const char *q = weir__buf_cstr(&id);
    switch (k) {
    case AS_IS: weir__buf_puts(s, q); break;
    case NUMERIC: weir__buf_printf(s, "%s::numeric(38,18)", q); break;
    case PAD: weir__buf_printf(s, "rpad(%s::text, %ld)", q, len - 4); break;
    case BIT1: weir__buf_printf(s, "(%s = B'1')", q); break;
    case BITS: weir__buf_printf(s, "convert_to(%s::text, 'UTF8')", q); break;
    case TEXT:
        /* The type's output function, as the driver's getString (a cast
         * to text differs: inet keeps its /32). */
        weir__buf_printf(s, "CASE WHEN %s IS NOT NULL THEN format('%%s', %s) END", q, q);
        break;
    case MY_PAD: weir__buf_printf(s, "RPAD(%s, %ld, ' ')", q, len); break;
    case MY_TIME: weir__buf_printf(s, "TIMESTAMP('1970-01-01', %s)", q); break;
    case MY_YEAR: weir__buf_printf(s, "MAKEDATE(%s, 1)", q); break;
    case MY_TEXT: weir__buf_printf(s, "CONVERT(%s USING utf8mb4)", q); break;
    }
    if (k != AS_IS)
        weir__buf_printf(s, " AS %s", q);
    weir__buf_free(&id);
    return k != AS_IS;
}

/* A table some of whose columns need the server's conversion
 * (server_convert: PostgreSQL's numeric without a precision, which the
 * scanner reads as double and Spark as decimal(38,18), CHAR(n), bit and
 * the types of text_on_server; MySQL's CHAR(n), time and year) is read
 * through a query doing it: its select list, malloc'd. NULL when no
 * column needs it (or the catalog could not be read: the plain scan then
 * reports the problem). */
static char *server_columns(weir_conn *c, const weir_jdbc_opts *o,
                            const char *alias)
{
    if (!o->table || o->kind == WEIR_JDBC_SQLITE)
        return NULL;
    weir_buf in = WEIR_BUF_INIT, q = WEIR_BUF_INIT;
    if (o->kind == WEIR_JDBC_POSTGRES) {
        weir__buf_puts(&in, "SELECT a.attname::text, y.typname::text, a.atttypmod::text, "
                            "y.typtype::text FROM pg_attribute a "
                            "JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace s "
                            "ON s.oid = t.relnamespace JOIN pg_type y ON y.oid = "
                            "a.atttypid WHERE a.attnum > 0 AND NOT a.attisdropped AND "
                            "t.relname = ");
        weir__buf_put_sql_string(&in, o->table);
        weir__buf_puts(&in, " AND s.nspname = ");
        weir__buf_put_sql_string(&in, default_schema(o));
        weir__buf_puts(&in, " ORDER BY a.attnum");
    } else {
        weir__buf_puts(&in, "SELECT column_name, data_type, "
                            "CAST(character_maximum_length AS CHAR), collation_name FROM "
                            "information_schema.columns WHERE table_schema = ");
        weir__buf_put_sql_string(&in, default_schema(o) ? default_schema(o) : "");
        weir__buf_puts(&in, " AND table_name = ");
        weir__buf_put_sql_string(&in, o->table);
        weir__buf_puts(&in, " ORDER BY ordinal_position");
    }
    weir__buf_printf(&q, "SELECT * FROM %s_query('%s', ",
                     o->kind == WEIR_JDBC_POSTGRES ? "postgres" : "mysql", alias);
    weir__buf_put_sql_string(&q, weir__buf_cstr(&in));
    weir__buf_putc(&q, ')');
    weir_rows *r = NULL;
    weir_error ignore;
    char *sql = NULL;
    if (!weir__conn_query(c, weir__buf_cstr(&q), &r, &ignore)) {
        bool any = false;
        weir_buf s = WEIR_BUF_INIT;
        for (size_t i = 0; i < r->n_rows; i++) {
            const char *name = weir__rows_get(r, i, 0);
            const char *typ = weir__rows_get(r, i, 1);
            const char *len = weir__rows_get(r, i, 2);
            weir__buf_puts(&s, i ? ", " : "");
            any |= server_convert(&s, o, name ? name : "", typ ? typ : "",
                                  len ? strtol(len, NULL, 10) : -1,
                                  weir__rows_get(r, i, 3));
        }
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

/* The read of o (attached as alias) with Spark's column types, as a
 * parenthesised DuckDB query; a pull (sr) also carries the cursor's
 * value as DuckDB reads it (__weir_cursor) and as text
 * (__weir_cursor_text). Errors name the database and the table. */
#define CURSOR_COLS "__weir_cursor_text, __weir_cursor"
static int relation(weir_buf *out, weir_conn *c, const weir_jdbc_opts *o,
                    const char *alias, server_read *sr, weir_arena *a,
                    weir_error *err)
{
    char *select = server_columns(c, o, alias);
    sr->select = select;
    weir_buf base = WEIR_BUF_INIT, probe = WEIR_BUF_INIT;
    base_relation(&base, o, alias, sr);
    sr->select = NULL;
    free(select);
    weir__buf_printf(&probe, "SELECT * FROM %s", weir__buf_cstr(&base));
    weir_db_column *cols = NULL;
    size_t n = 0;
    weir_error why;
    memset(&why, 0, sizeof(why));
    int rc = 0;
    if (weir__conn_describe(c, weir__buf_cstr(&probe), &cols, &n, a, &why))
        rc = read_failed(err, o, &why);
    bool cursor_found = false;
    weir__buf_puts(out, "(SELECT ");
    for (size_t i = 0; !rc && i < n; i++) {
        weir_buf t = WEIR_BUF_INIT;
        int k = spark_type(cols[i].type, &t);
        weir__buf_puts(out, i ? ", " : "");
        if (k < 0) {
            weir_buf d = WEIR_BUF_INIT;
            weir__sql_jdbc_describe(o, &d);
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
        if (sr->pull && strcmp(cols[i].name, o->cursor) == 0) {
            cursor_found = true;
            weir__buf_puts(out, ", CAST(");
            weir__buf_put_sql_ident(out, cols[i].name);
            weir__buf_puts(out, " AS VARCHAR) AS __weir_cursor_text, ");
            weir__buf_put_sql_ident(out, cols[i].name);
            weir__buf_puts(out, " AS __weir_cursor");
        }
    }
    if (!rc && sr->pull && !cursor_found) {
        weir_buf d = WEIR_BUF_INIT;
        weir__sql_jdbc_describe(o, &d);
        rc = WEIR_ERR(err, WEIR_EGRAPH, "JDBC_CURSOR_COLUMN_NOT_FOUND",
                      "cursorColumn %s is not a column of the %s (names are "
                      "matched exactly)",
                      o->cursor, weir__buf_cstr(&d));
        weir__buf_free(&d);
    }
    weir__buf_printf(out, " FROM %s)", weir__buf_cstr(&base));
    weir__buf_free(&base);
    weir__buf_free(&probe);
    return rc;
}

/* o's options from call, and its database attached on c. */
static int open_read(weir_jdbc_opts *o, weir_arena *a, weir_conn *c,
                     const weir_sql_tvf *call, const char *root_dir,
                     char *alias, size_t size, weir_error *err)
{
    int rc = weir__sql_jdbc_opts(o, a, call, err);
    if (!rc && !c)
        rc = WEIR_ERR(err, WEIR_ERROR, NULL, "internal error: read_jdbc without a connection");
    if (!rc)
        rc = weir__jdbc_attach(c, o, root_dir, alias, size, err);
    return rc;
}

int weir__jdbc_render(weir_buf *out, weir_conn *c, const weir_sql_tvf *call,
                      const char *root_dir, const weir_sql_source *src,
                      weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_jdbc_opts o;
    char alias[64];
    server_read sr = { NULL, false, NULL };
    int rc = open_read(&o, &a, c, call, root_dir, alias, sizeof(alias), err);
    if (!rc)
        rc = relation(out, c, &o, alias, &sr, &a, err);
    if (rc)
        locate(err, src, call, o.password);
    weir__arena_free(&a);
    return rc;
}

int weir__jdbc_render_catalog(weir_buf *out, weir_conn *c, const weir_kv *conf,
                              size_t n_conf, const char *catalog,
                              const char *schema, const char *table,
                              const char *root_dir, weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_jdbc_opts o;
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    int rc = weir__sql_jdbc_catalog(&o, &a, catalog, conf, n_conf, err);
    if (!rc) {
        o.schema = schema;
        o.table = table;
        rc = c ? weir__jdbc_attach_as(c, &o, root_dir, alias, err)
               : WEIR_ERR(err, WEIR_ERROR, NULL, "internal error: no connection");
    }
    server_read sr = { NULL, false, NULL };
    if (!rc)
        rc = relation(out, c, &o, alias, &sr, &a, err);
    if (rc && rc != WEIR_ENOTFOUND) {
        weir__sql_jdbc_mask(o.password, err->message, sizeof(err->message));
        weir__sql_jdbc_mask(o.password, err->line_text, sizeof(err->line_text));
    }
    weir__arena_free(&a);
    return rc;
}

/* ---- STREAM read_jdbc(..., cursorColumn => c): pulls by cursor ----------
 *
 * Each batch pulls the rows whose cursor is at or past the value the last
 * committed batch ended at (inclusive: rows that arrived later with that
 * same value are not lost), minus the rows read before at exactly that
 * value (their hashes are recorded with it: no duplicates). The pull is
 * copied into a temporary table of the flow's connection inside the
 * batch's transaction, so that what the batch writes, the value it ended
 * at (the largest cursor it read) and the hashes of the rows it read at
 * that value are one consistent set, committed together
 * (_weir.jdbc_cursors). A row whose cursor is NULL, or moves backwards
 * past the committed value, is not pulled; a deleted row is not seen. */

typedef struct pulled {
    char table[96];      /* the temporary table of the batch's rows */
    const char *from;    /* the committed value it pulled from, or NULL */
    const char *to;      /* the largest value it read */
} pulled;

static bool accepts(const weir_input *in)
{
    return in->source == WEIR_INPUT_JDBC;
}

static uint64_t fnv64(const char *s)
{
    uint64_t h = 14695981039346656037ULL;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* jdbc:<kind>/<database or file>/<schema.table or query:hash>#<cursor>:
 * neither the server's address (a moved server keeps its position) nor
 * any secret. */
static const char *key(weir_arena *a, const weir_graph *g, const weir_input *in,
                       const char *root_dir)
{
    (void)g;
    (void)root_dir;
    weir_jdbc_opts o;
    weir_error ignore;
    if (!in->tvf || weir__sql_jdbc_opts(&o, a, in->tvf, &ignore))
        return in->external;
    const char *kind = o.kind == WEIR_JDBC_POSTGRES ? "postgresql"
                       : o.kind == WEIR_JDBC_MYSQL  ? "mysql"
                                                    : "sqlite";
    const char *db = o.kind == WEIR_JDBC_SQLITE ? o.path : o.database;
    if (o.table)
        return weir__arena_printf(a, "jdbc:%s/%s/%s.%s#%s", kind, db ? db : "",
                                  default_schema(&o) ? default_schema(&o) : "",
                                  o.table, o.cursor ? o.cursor : "");
    return weir__arena_printf(a, "jdbc:%s/%s/query:%016llx#%s", kind, db ? db : "",
                              (unsigned long long)fnv64(o.query),
                              o.cursor ? o.cursor : "");
}

static int plan(const weir_source_ctx *c, const weir_input *in,
                weir_source_batch *b)
{
    weir_jdbc_opts o;
    char alias[64];
    int rc = open_read(&o, c->arena, c->conn, in->tvf, c->root_dir, alias,
                       sizeof(alias), c->err);
    pulled *p = rc ? NULL : weir__arena_alloc(c->arena, sizeof(*p));
    if (!rc && !p)
        rc = WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    bool none = true;
    int64_t epoch;
    if (!rc)
        rc = weir__checkpoint_source_end(c->cp, c->gen, b->key, &b->start,
                                         &epoch, &none);
    if (rc)
        return rc;
    if (none)
        b->start = 0;
    memset(p, 0, sizeof(*p));
    snprintf(p->table, sizeof(p->table), "__weir_jdbc_%016llx_%lld",
             (unsigned long long)fnv64(b->key), (long long)c->batch_id);
    if ((rc = weir__checkpoint_cursor_read(c->cp, c->gen, b->key, c->arena,
                                           &p->from)))
        return rc;
    server_read sr = { NULL, true, p->from };
    weir_buf rel = WEIR_BUF_INIT, q = WEIR_BUF_INIT;
    rc = relation(&rel, c->conn, &o, alias, &sr, c->arena, c->err);
    if (!rc) {
        weir__buf_printf(&q, "DROP TABLE IF EXISTS temp.main.%s; CREATE TEMP TABLE %s AS "
                             "SELECT * FROM (SELECT *, hash(*COLUMNS(* EXCLUDE ("
                             CURSOR_COLS "))) AS __weir_hash FROM %s) AS r",
                         p->table, p->table, weir__buf_cstr(&rel));
        if (p->from) { /* the rows read before at the value: not again */
            weir__buf_puts(&q, " WHERE NOT (r.__weir_cursor_text = ");
            weir__buf_put_sql_string(&q, p->from);
            weir__buf_puts(&q, " AND r.__weir_hash IN ");
            weir__checkpoint_put_cursor_hashes(&q, c->cp, c->gen, b->key);
            weir__buf_putc(&q, ')');
        }
        weir_error why;
        memset(&why, 0, sizeof(why));
        if (weir__exec_buf(c->conn, &q, &why))
            rc = read_failed(c->err, &o, &why);
    }
    int64_t n = 0;
    if (!rc) {
        weir__buf_clear(&q);
        weir__buf_printf(&q, "SELECT count(*) FROM %s", p->table);
        rc = weir__scalar_buf(c->conn, &q, &n, NULL, c->err);
    }
    if (!rc && n > 0) {
        weir__buf_clear(&q);
        weir__buf_printf(&q, "SELECT __weir_cursor_text FROM %s ORDER BY "
                             "__weir_cursor DESC LIMIT 1", p->table);
        char *to = NULL;
        rc = weir__conn_scalar_text(c->conn, weir__buf_cstr(&q), &to, c->err);
        p->to = to ? weir__arena_strdup(c->arena, to) : NULL;
        free(to);
    }
    weir__buf_free(&rel);
    weir__buf_free(&q);
    if (rc) {
        weir__sql_jdbc_mask(o.password, c->err->message, sizeof(c->err->message));
        return rc;
    }
    b->end = b->start + n;
    b->impl = p;
    return 0;
}

static int render(weir_buf *out, const weir_source_read *r,
                  const weir_source_batch *b, weir_error *err)
{
    (void)r;
    (void)err;
    const pulled *p = b->impl;
    weir__buf_printf(out, "(SELECT * EXCLUDE (" CURSOR_COLS ", __weir_hash) FROM %s)",
                     p->table);
    return 0;
}

/* The value the batch ended at, and the hashes of the rows it read at it
 * (with those recorded before when the value did not move). */
static int commit(const weir_source_ctx *c, const weir_source_batch *b)
{
    const pulled *p = b->impl;
    if (!p || !p->to)
        return 0;
    weir_buf h = WEIR_BUF_INIT;
    weir__buf_printf(&h, "SELECT __weir_hash AS hash FROM %s WHERE __weir_cursor_text = ",
                     p->table);
    weir__buf_put_sql_string(&h, p->to);
    if (p->from && strcmp(p->from, p->to) == 0) {
        weir__buf_puts(&h, " UNION ALL SELECT hash FROM ");
        weir__checkpoint_put_cursor_hashes(&h, c->cp, c->gen, b->key);
    }
    int rc = h.failed ? WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__checkpoint_cursor_add(c->cp, c->gen, c->batch_id, b->key,
                                                    p->to, weir__buf_cstr(&h));
    weir__buf_free(&h);
    return rc;
}

static void release(const weir_source_ctx *c, weir_source_batch *b)
{
    const pulled *p = b->impl;
    if (!p)
        return;
    char sql[160];
    snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS temp.main.%s", p->table);
    weir_error ignore;
    weir__conn_exec(c->conn, sql, NULL, &ignore);
}

/* The schema for resolution: the read's, without its rows. */
static int analyze(weir_buf *out, const weir_source_analysis *a, weir_error *err)
{
    if (!a->conn)
        return WEIR_ENOTFOUND;
    weir_buf rel = WEIR_BUF_INIT;
    int rc = weir__jdbc_render(&rel, a->conn, a->in->tvf, a->root_dir, NULL, err);
    if (!rc)
        weir__buf_printf(out, "(SELECT * FROM %s WHERE false)", weir__buf_cstr(&rel));
    weir__buf_free(&rel);
    return rc;
}

const weir_source_kind weir__source_jdbc = {
    .name = "jdbc",
    .accepts = accepts,
    .key = key,
    .plan = plan,
    .render = render,
    .commit = commit,
    .progress = weir__source_progress_offsets,
    .analyze = analyze,
    .release = release,
};
