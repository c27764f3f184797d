/*
 * Attaching the databases of read_jdbc(...) (see jdbc.h): a secret with
 * the server's address and credentials, and an ATTACH of it with
 * READ_ONLY; PostgreSQL sessions are also read-only on the server's side
 * (default_transaction_read_only), so not even a query option can write.
 */
#include "store/jdbc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "util/fs.h"
#include "util/str.h"

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (h ^ 0xff) * 1099511628211ULL;
}

/* Where the database is and who connects (never the password: the alias
 * shows in plans and messages). */
static void alias_of(const weir_jdbc_opts *o, const char *path, char *out,
                     size_t size)
{
    char port[16];
    snprintf(port, sizeof(port), "%d", o->port);
    uint64_t h = 14695981039346656037ULL;
    h = fnv(h, weir__sql_jdbc_kind_name(o->kind));
    h = fnv(h, o->host);
    h = fnv(h, port);
    h = fnv(h, o->database);
    h = fnv(h, o->user);
    h = fnv(h, o->sslmode);
    h = fnv(h, path);
    snprintf(out, size, "weir_jdbc_%016llx", (unsigned long long)h);
}

static void secret_sql(weir_buf *q, const weir_jdbc_opts *o, const char *alias)
{
    weir__buf_printf(q, "CREATE OR REPLACE TEMPORARY SECRET \"%s_secret\" (TYPE %s, HOST ",
                     alias, o->kind == WEIR_JDBC_POSTGRES ? "postgres" : "mysql");
    weir__buf_put_sql_string(q, o->host);
    weir__buf_printf(q, ", PORT %d", o->port);
    if (o->database) {
        weir__buf_puts(q, ", DATABASE ");
        weir__buf_put_sql_string(q, o->database);
    }
    weir__buf_puts(q, ", USER ");
    weir__buf_put_sql_string(q, o->user ? o->user : "");
    if (o->password) {
        weir__buf_puts(q, ", PASSWORD ");
        weir__buf_put_sql_string(q, o->password);
    }
    weir__buf_puts(q, ");\n");
}

/* DuckDB's message without its preamble (the scanner's "Unable to
 * connect to Postgres at \"options\": "), on one line, with every
 * occurrence of the password masked. */
static void masked(weir_buf *out, const char *msg, const char *password)
{
    size_t n = password ? strlen(password) : 0;
    const char *q;
    if ((strstr(msg, "Unable to connect to") || strstr(msg, "Failed to connect to")) &&
        (q = strstr(msg, "\": ")) != NULL)
        msg = q + 3;
    size_t len = strlen(msg);
    while (len && (msg[len - 1] == ' ' || msg[len - 1] == '\n' || msg[len - 1] == '\t'))
        len--;
    for (const char *p = msg; p < msg + len;) {
        if (*p == '\n' || *p == '\t') {
            if (out->len && out->ptr[out->len - 1] != ' ')
                weir__buf_putc(out, ' ');
            p++;
            continue;
        }
        if (n && strncmp(p, password, n) == 0) {
            weir__buf_puts(out, "***");
            p += n;
        } else {
            weir__buf_putc(out, *p++);
        }
    }
}

static int attach(weir_conn *c, const weir_jdbc_opts *o, const char *base_dir,
                  const char *as, char *alias, size_t size, weir_error *err);

int weir__jdbc_attach(weir_conn *c, const weir_jdbc_opts *o,
                      const char *base_dir, char *alias, size_t size,
                      weir_error *err)
{
    return attach(c, o, base_dir, NULL, alias, size, err);
}

int weir__jdbc_attach_as(weir_conn *c, const weir_jdbc_opts *o,
                         const char *base_dir, const char *as, weir_error *err)
{
    char alias[300];
    return attach(c, o, base_dir, as, alias, sizeof(alias), err);
}

static int attach(weir_conn *c, const weir_jdbc_opts *o, const char *base_dir,
                  const char *as, char *alias, size_t size, weir_error *err)
{
    weir_db *db = weir__conn_db(c);
    const char *ext = o->kind == WEIR_JDBC_POSTGRES ? "postgres"
                      : o->kind == WEIR_JDBC_MYSQL  ? "mysql"
                                                    : "sqlite";
    char what[64];
    snprintf(what, sizeof(what), "%s reads", weir__sql_jdbc_kind_name(o->kind));
    int rc = weir__db_extension(db, ext, what, err);
    if (rc)
        return rc;
    char *path = o->path ? weir__path_absolute(o->path, base_dir) : NULL;
    if (as)
        snprintf(alias, size, "%s", as);
    else
        alias_of(o, path, alias, size);
    weir_buf q = WEIR_BUF_INIT;
    weir_buf where = WEIR_BUF_INIT;
    if (o->kind == WEIR_JDBC_SQLITE) {
        struct stat st;
        weir__buf_printf(&where, "SQLite database %s", path ? path : o->path);
        if (!path || stat(path, &st) != 0) {
            rc = WEIR_ERR(err, WEIR_EIO, "JDBC_CONNECTION_FAILED",
                          "cannot read the %s: no such file",
                          weir__buf_cstr(&where));
            goto out;
        }
        weir__buf_puts(&q, "ATTACH ");
        weir__buf_put_sql_string(&q, path);
        weir__buf_puts(&q, " AS ");
        weir__buf_put_sql_ident(&q, alias);
        weir__buf_puts(&q, " (TYPE sqlite, READ_ONLY)");
    } else {
        weir__buf_printf(&where, "%s database %s at %s:%d as user %s",
                         weir__sql_jdbc_kind_name(o->kind),
                         o->database ? o->database : "(default)", o->host,
                         o->port, o->user ? o->user : "");
        secret_sql(&q, o, alias);
        weir_buf extra = WEIR_BUF_INIT;
        if (o->kind == WEIR_JDBC_POSTGRES) {
            weir__buf_printf(&extra, "connect_timeout=%d options='-c "
                                     "default_transaction_read_only=on'",
                             WEIR_JDBC_CONNECT_TIMEOUT);
            if (o->sslmode)
                weir__buf_printf(&extra, " sslmode=%s", o->sslmode);
        }
        weir__buf_puts(&q, "ATTACH ");
        weir__buf_put_sql_string(&q, weir__buf_cstr(&extra));
        weir__buf_puts(&q, " AS ");
        weir__buf_put_sql_ident(&q, alias);
        weir__buf_printf(&q, " (TYPE %s, SECRET \"%s_secret\", READ_ONLY)",
                         o->kind == WEIR_JDBC_POSTGRES ? "postgres" : "mysql", alias);
        weir__buf_free(&extra);
    }
    if (q.failed || where.failed) {
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (as) { /* a name the storage's own catalogs do not use */
        weir_buf t = WEIR_BUF_INIT;
        weir__buf_puts(&t, "SELECT count(*) FROM duckdb_databases() WHERE "
                           "database_name = ");
        weir__buf_put_sql_string(&t, as);
        weir__buf_puts(&t, " AND type NOT IN ('postgres', 'mysql', 'sqlite')");
        int64_t n = 0;
        rc = weir__scalar_buf(c, &t, &n, NULL, err);
        weir__buf_free(&t);
        if (!rc && n)
            rc = WEIR_ERR(err, WEIR_EINVAL, "JDBC_CATALOG_CONFLICT",
                          "catalog %s is a catalog of the pipeline's storage and "
                          "a database catalog of the configuration "
                          "(weir.catalogs.%s.url): rename one",
                          as, as);
        if (rc)
            goto out;
    }
    char msg[1024];
    rc = weir__db_attach_once(db, alias, weir__buf_cstr(&q), msg, sizeof(msg));
    if (rc) {
        weir_buf m = WEIR_BUF_INIT;
        masked(&m, msg, o->password);
        rc = WEIR_ERR(err, rc, "JDBC_CONNECTION_FAILED", "cannot connect to the %s: %s",
                      weir__buf_cstr(&where), weir__buf_cstr(&m));
        weir__buf_free(&m);
    }
out:
    /* The statements held the password: wipe them before freeing. */
    if (q.cap)
        memset(q.ptr, 0, q.cap);
    weir__buf_free(&q);
    weir__buf_free(&where);
    free(path);
    return rc;
}
