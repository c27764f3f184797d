/*
 * read_jdbc(...)'s options (docs/databases.md): Spark's JDBC data source
 * options as named arguments, case-insensitive as Spark matches them,
 * checked before anything connects so that a dry run reports them at the
 * argument's file:line:col. The URL is taken apart here
 * (jdbc:postgresql://, jdbc:mysql://, jdbc:mariadb://, jdbc:sqlite:);
 * nothing here connects or renders DuckDB SQL (sources/jdbc.c does).
 * Secrets stay in the options: messages name the database, never the
 * password.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

static int bad(weir_jdbc_opts *o, weir_error *err, weir_sql_pos pos,
               const char *fmt, ...) WEIR_PRINTF(4, 5);

static int bad(weir_jdbc_opts *o, weir_error *err, weir_sql_pos pos,
               const char *fmt, ...)
{
    o->error_pos = pos;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    WEIR_ERR(err, WEIR_ESQL, "INVALID_JDBC_OPTION", "read_jdbc(): %s", msg);
    if (err && pos.line) {
        err->line = pos.line;
        err->column = pos.column;
    }
    return WEIR_ESQL;
}

/* Spark options accepted with no effect: partitioning and fetch tuning
 * (weir reads through one scanner), push-down switches (DuckDB's scanners
 * push filters and projections where they can), the driver class, and
 * the write options Spark too ignores on a read. */
static bool ignored(const char *k)
{
    static const char *const names[] = {
        "driver", "fetchsize", "partitionColumn", "lowerBound", "upperBound",
        "numPartitions", "queryTimeout", "pushDownPredicate",
        "pushDownAggregate", "pushDownLimit", "pushDownOffset",
        "pushDownTableSample", "pushDownJoin", "connectionProvider",
        "preferTimestampNTZ", "batchsize", "isolationLevel", "truncate",
        "cascadeTruncate", "createTableOptions", "createTableColumnTypes",
        "tableComment", "hint"
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (weir__str_ieq(k, names[i]))
            return true;
    return false;
}

/* Options Spark has that weir refuses, with why. */
static const char *refused(const char *k)
{
    if (weir__str_ieq(k, "sessionInitStatement"))
        return "runs a statement on the source database, which a pipeline "
               "only reads";
    if (weir__str_ieq(k, "customSchema"))
        return "is not supported yet: cast the columns in the query";
    if (weir__str_ieq(k, "keytab") || weir__str_ieq(k, "principal") ||
        weir__str_ieq(k, "refreshKrb5Config"))
        return "(Kerberos) is not supported: use user and password";
    return NULL;
}

static char *dup_range(weir_arena *a, const char *s, size_t n)
{
    char *p = weir__arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

/* host[:port][/database][?k=v&...] of a server URL. */
static int parse_server(weir_jdbc_opts *o, weir_arena *a, const char *rest,
                        weir_sql_pos pos, weir_error *err)
{
    const char *end = rest + strcspn(rest, "/?");
    const char *colon = memchr(rest, ':', (size_t)(end - rest));
    const char *host_end = colon ? colon : end;
    if (host_end == rest)
        return bad(o, err, pos, "the url names no host (jdbc:%s://HOST[:PORT]/DATABASE)",
                   o->kind == WEIR_JDBC_POSTGRES ? "postgresql" : "mysql");
    o->host = dup_range(a, rest, (size_t)(host_end - rest));
    o->port = o->kind == WEIR_JDBC_POSTGRES ? 5432 : 3306;
    if (colon) {
        char *e;
        long p = strtol(colon + 1, &e, 10);
        if (e != end || p <= 0 || p > 65535)
            return bad(o, err, pos, "the url's port is not a number from 1 to 65535");
        o->port = (int)p;
    }
    const char *q = strchr(end, '?');
    if (*end == '/') {
        const char *d = end + 1;
        size_t n = q ? (size_t)(q - d) : strlen(d);
        if (n)
            o->database = dup_range(a, d, n);
    }
    for (const char *p = q ? q + 1 : NULL; p && *p;) {
        const char *amp = p + strcspn(p, "&");
        const char *eq = memchr(p, '=', (size_t)(amp - p));
        if (eq) {
            char *k = dup_range(a, p, (size_t)(eq - p));
            char *v = dup_range(a, eq + 1, (size_t)(amp - eq - 1));
            if (!k || !v)
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            if (weir__str_ieq(k, "user"))
                o->user = o->user ? o->user : v;
            else if (weir__str_ieq(k, "password"))
                o->password = o->password ? o->password : v;
            else if (weir__str_ieq(k, "sslmode") && o->kind == WEIR_JDBC_POSTGRES)
                o->sslmode = v;
        }
        p = *amp ? amp + 1 : amp;
    }
    if (!o->host || (*end == '/' && end[1] && end[1] != '?' && !o->database))
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return 0;
}

static int parse_url(weir_jdbc_opts *o, weir_arena *a, const char *url,
                     weir_sql_pos pos, weir_error *err)
{
    static const struct {
        const char *prefix;
        weir_jdbc_kind kind;
    } SCHEMES[] = {
        { "jdbc:postgresql://", WEIR_JDBC_POSTGRES },
        { "jdbc:mysql://", WEIR_JDBC_MYSQL },
        { "jdbc:mariadb://", WEIR_JDBC_MYSQL },
    };
    for (size_t i = 0; i < sizeof(SCHEMES) / sizeof(SCHEMES[0]); i++)
        if (weir__str_istarts(url, SCHEMES[i].prefix)) {
            o->kind = SCHEMES[i].kind;
            return parse_server(o, a, url + strlen(SCHEMES[i].prefix), pos, err);
        }
    if (weir__str_istarts(url, "jdbc:sqlite:")) {
        o->kind = WEIR_JDBC_SQLITE;
        const char *p = url + strlen("jdbc:sqlite:");
        if (weir__str_istarts(p, "file:"))
            p += strlen("file:");
        size_t n = strcspn(p, "?");
        if (!n || strncmp(p, ":memory:", 8) == 0)
            return bad(o, err, pos, "jdbc:sqlite: needs the path of a database file");
        o->path = dup_range(a, p, n);
        return o->path ? 0 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    return bad(o, err, pos, "url '%.200s' is not one weir reads: jdbc:postgresql://, "
                         "jdbc:mysql://, jdbc:mariadb:// or jdbc:sqlite:",
               strncmp(url, "jdbc:", 5) == 0 ? url : "(not a jdbc: URL)");
}

/* One identifier of a dbtable name: "a""b", `a``b` or a bare word. */
static const char *ident(weir_arena *a, const char *p, const char **out)
{
    char q = *p == '"' || *p == '`' ? *p : 0;
    weir_buf b = WEIR_BUF_INIT;
    if (q) {
        for (p++; *p; p++) {
            if (*p == q && p[1] == q) {
                weir__buf_putc(&b, q);
                p++;
            } else if (*p == q) {
                p++;
                break;
            } else {
                weir__buf_putc(&b, *p);
            }
        }
    } else {
        while (*p && *p != '.' && *p != ' ')
            weir__buf_putc(&b, *p++);
    }
    *out = weir__arena_strdup(a, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return p;
}

/* dbtable: [schema.]table, or a parenthesised query with an alias (as
 * Spark puts it after FROM). */
static int parse_dbtable(weir_jdbc_opts *o, weir_arena *a, const char *t,
                         weir_sql_pos pos, weir_error *err)
{
    while (*t == ' ')
        t++;
    if (*t == '(') {
        o->query = weir__arena_printf(a, "SELECT * FROM %s", t);
        return o->query ? 0 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    const char *first = NULL, *second = NULL;
    const char *p = ident(a, t, &first);
    if (*p == '.')
        p = ident(a, p + 1, &second);
    if (*p || !first || !*first || (second && !*second))
        return bad(o, err, pos, "dbtable '%.200s' is not a table name ([schema.]table) "
                             "or a parenthesised query",
                   t);
    o->schema = second ? first : NULL;
    o->table = second ? second : first;
    return 0;
}

int weir__sql_jdbc_opts(weir_jdbc_opts *o, weir_arena *a,
                        const weir_sql_tvf *call, weir_error *err)
{
    memset(o, 0, sizeof(*o));
    o->pos = call->pos;
    /* Known first, so that every message can mask it. */
    for (size_t i = 0; i < call->n_args; i++)
        if (call->args[i].name && weir__str_ieq(call->args[i].name, "password"))
            o->password = call->args[i].text;
    const weir_sql_arg *url = NULL, *dbtable = NULL, *part = NULL;
    int n_part = 0;
    for (size_t i = 0; i < call->n_args; i++) {
        const weir_sql_arg *g = &call->args[i];
        if (!g->name)
            return bad(o, err, g->pos, "takes named arguments only (url => '...', "
                                    "dbtable => '...')");
        if (g->kind == WEIR_SQL_ARG_NULL || g->kind == WEIR_SQL_ARG_MAP ||
            g->kind == WEIR_SQL_ARG_OTHER || !g->text)
            return bad(o, err, g->pos, "%s must be a literal", g->name);
        const char *k = g->name, *v = g->text;
        const char *why = refused(k);
        if (why)
            return bad(o, err, g->pos, "option %s %s", k, why);
        if (weir__str_ieq(k, "url"))
            url = g;
        else if (weir__str_ieq(k, "dbtable"))
            dbtable = g;
        else if (weir__str_ieq(k, "query"))
            o->query = v, o->query_pos = g->pos;
        else if (weir__str_ieq(k, "user"))
            o->user = v;
        else if (weir__str_ieq(k, "password"))
            o->password = v;
        else if (weir__str_ieq(k, "cursorColumn"))
            o->cursor = v, o->cursor_pos = g->pos;
        else if (ignored(k)) {
            if (weir__str_ieq(k, "partitionColumn"))
                part = g;
            if (weir__str_ieq(k, "partitionColumn") || weir__str_ieq(k, "lowerBound") ||
                weir__str_ieq(k, "upperBound") || weir__str_ieq(k, "numPartitions"))
                n_part++;
        } else
            return bad(o, err, g->pos, "unknown option %s (docs/databases.md lists "
                                    "the options)",
                       k);
    }
    if (!url)
        return bad(o, err, call->pos, "the option url is required "
                                   "(url => 'jdbc:postgresql://host:port/database')");
    if (dbtable && o->query)
        return bad(o, err, dbtable->pos, "options dbtable and query can not be "
                                      "specified at the same time");
    if (!dbtable && !o->query)
        return bad(o, err, call->pos, "option dbtable or query is required");
    if (o->query && !*o->query)
        return bad(o, err, o->query_pos, "option query can not be empty");
    if (n_part && n_part != 4)
        return bad(o, err, part ? part->pos : call->pos,
                   "specify all or none of partitionColumn, lowerBound, "
                   "upperBound and numPartitions");
    if (part && o->query)
        return bad(o, err, part->pos, "options query and partitionColumn can not "
                                   "be specified together");
    int rc = parse_url(o, a, url->text, url->pos, err);
    if (!rc && dbtable)
        rc = parse_dbtable(o, a, dbtable->text, dbtable->pos, err);
    if (rc)
        return rc;
    if (o->kind != WEIR_JDBC_SQLITE && !o->user)
        return bad(o, err, call->pos, "option user is required for %s",
                   weir__sql_jdbc_kind_name(o->kind));
    if (o->kind != WEIR_JDBC_SQLITE && !o->database)
        o->database = o->kind == WEIR_JDBC_POSTGRES ? o->user : NULL;
    if (o->kind == WEIR_JDBC_MYSQL && !o->database && !o->schema)
        return bad(o, err, url->pos, "the url names no database "
                                  "(jdbc:mysql://host:port/DATABASE)");
    return 0;
}

const char *weir__sql_jdbc_kind_name(weir_jdbc_kind k)
{
    return k == WEIR_JDBC_POSTGRES ? "PostgreSQL"
           : k == WEIR_JDBC_MYSQL  ? "MySQL"
                                   : "SQLite";
}

void weir__sql_jdbc_describe(const weir_jdbc_opts *o, weir_buf *out)
{
    if (o->kind == WEIR_JDBC_SQLITE)
        weir__buf_printf(out, "SQLite database %s", o->path);
    else
        weir__buf_printf(out, "%s database %s at %s:%d",
                         weir__sql_jdbc_kind_name(o->kind),
                         o->database ? o->database : "", o->host, o->port);
    if (o->table)
        weir__buf_printf(out, ", table %s%s%s", o->schema ? o->schema : "",
                         o->schema ? "." : "", o->table);
    else
        weir__buf_puts(out, ", query");
}

void weir__sql_jdbc_mask(const char *password, char *text, size_t size)
{
    size_t n = password ? strlen(password) : 0;
    if (!n || !strstr(text, password))
        return;
    weir_buf m = WEIR_BUF_INIT;
    for (const char *p = text; *p;) {
        if (strncmp(p, password, n) == 0) {
            weir__buf_puts(&m, "***");
            p += n;
        } else {
            weir__buf_putc(&m, *p++);
        }
    }
    snprintf(text, size, "%s", weir__buf_cstr(&m));
    weir__buf_free(&m);
}

int weir__sql_jdbc_catalog(weir_jdbc_opts *o, weir_arena *a, const char *name,
                           const weir_kv *conf, size_t n_conf, weir_error *err)
{
    memset(o, 0, sizeof(*o));
    char key[320];
    snprintf(key, sizeof(key), "weir.catalogs.%s.url", name);
    const char *url = weir__kv_get(conf, n_conf, key);
    if (!url)
        return WEIR_ENOTFOUND;
    snprintf(key, sizeof(key), "weir.catalogs.%s.user", name);
    o->user = weir__kv_get(conf, n_conf, key);
    snprintf(key, sizeof(key), "weir.catalogs.%s.password", name);
    o->password = weir__kv_get(conf, n_conf, key);
    weir_sql_pos none = { 0, 0, 0 };
    int rc = parse_url(o, a, url, none, err);
    if (rc) {
        weir__error_prefix(err, "weir.catalogs.%s.url: ", name);
        return rc;
    }
    snprintf(key, sizeof(key), "weir.catalogs.%s.type", name);
    const char *type = weir__kv_get(conf, n_conf, key);
    if (type && !(o->kind == WEIR_JDBC_POSTGRES ? weir__str_ieq(type, "postgres") ||
                                                    weir__str_ieq(type, "postgresql")
                  : o->kind == WEIR_JDBC_MYSQL ? weir__str_ieq(type, "mysql") ||
                                                   weir__str_ieq(type, "mariadb")
                                               : weir__str_ieq(type, "sqlite")))
        return bad(o, err, none, "%s is '%s', but the catalog's url is a %s URL",
                   key, type, weir__sql_jdbc_kind_name(o->kind));
    if (o->kind != WEIR_JDBC_SQLITE && !o->user)
        return bad(o, err, none, "weir.catalogs.%s.user is required for %s", name,
                   weir__sql_jdbc_kind_name(o->kind));
    if (o->kind != WEIR_JDBC_SQLITE && !o->database)
        o->database = o->kind == WEIR_JDBC_POSTGRES ? o->user : NULL;
    return 0;
}
