/*
 * One Spark SQL statement of any kind `weir query` accepts, translated to
 * DuckDB: queries, CREATE/DROP TABLE and VIEW, INSERT INTO/OVERWRITE,
 * DELETE, UPDATE, TRUNCATE, ALTER TABLE ADD COLUMNS, CREATE/DROP
 * SCHEMA|DATABASE, SHOW TABLES/DATABASES, DESCRIBE, USE and SET. Target
 * tables are rendered as written (quoted) and shown to the resolver with
 * what the statement does to them; reads inside queries go through the
 * resolver. A statement may become several DuckDB statements (INSERT
 * OVERWRITE, ALTER TABLE ADD COLUMNS): the caller runs them in one
 * transaction. DuckDB's own statements that reach past the catalogs
 * (ATTACH, COPY, PRAGMA, ...) are refused by name.
 */
#include "internal.h"

#include <string.h>

#include "util/str.h"

typedef struct st {
    sql_parser p;
    sql_tx t;
    weir_buf *out;
} st;

static int unsupported(st *s, const char *what)
{
    return weir__sql_error_tok(&s->p, weir__sql_peek(&s->p, 0), WEIR_ESQL,
                               "UNSUPPORTED_SPARK_SQL",
                               "%s is not supported by weir query", what);
}

/* DuckDB statements that reach past the pipeline's catalogs: other database
 * files, extensions, engine settings, files on disk, the storage's own
 * checkpointing. weir attaches the storage itself; these are refused by
 * name so that the user learns why, not only that. */
static int outside(st *s)
{
    static const char *const kinds[] = {
        "ATTACH", "DETACH", "INSTALL", "LOAD",   "FORCE",      "PRAGMA",
        "COPY",   "EXPORT", "IMPORT",  "CALL",   "CHECKPOINT", "VACUUM",
        "RESET",  "PREPARE", "EXECUTE", "DEALLOCATE", "COMMENT", "BEGIN",
        "START",  "COMMIT", "ROLLBACK", "ABORT", "END"
    };
    const sql_token *t = weir__sql_peek(&s->p, 0);
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (weir__sql_is_kw(&s->p, 0, kinds[i]))
            return weir__sql_error_tok(
                &s->p, t, WEIR_ESQL, "PIPELINE_STATEMENT_NOT_ALLOWED",
                "%s is not allowed in weir query: weir query runs Spark SQL "
                "on the pipeline's catalogs, one atomic statement at a time, "
                "and this statement would reach past them (database files, "
                "extensions, engine settings, files, transactions). Use a "
                "stock DuckDB shell on a copy of the storage "
                "(duckdb -init <storage>/open.sql) instead",
                kinds[i]);
    return unsupported(s, "This statement");
}

static int at_end(st *s)
{
    if (weir__sql_peek(&s->p, 0)->kind != TK_EOF)
        return weir__sql_syntax_error(&s->p);
    return 0;
}

static int name(st *s, weir_sql_name *n)
{
    int rc = weir__sql_parse_name(n, &s->p);
    if (!rc)
        weir__sql_strip_live(n);
    return rc;
}

/* A name the statement writes (or USE switches to): the resolver may
 * refuse it. */
static int target(st *s, weir_sql_action action, weir_sql_name *n)
{
    const sql_token *at = weir__sql_peek(&s->p, 0);
    int rc = name(s, n);
    const weir_sql_resolver *r = s->t.resolver;
    if (rc || !r || !r->target)
        return rc;
    rc = r->target(r->payload, action, n, s->p.err);
    if (rc)
        weir__sql_error_at(s->p.err, s->p.src, weir__sql_tok_pos(at));
    return rc;
}

static bool accept2(st *s, const char *a, const char *b)
{
    if (weir__sql_is_kw(&s->p, 0, a) && weir__sql_is_kw(&s->p, 1, b)) {
        s->p.i += 2;
        return true;
    }
    return false;
}

static int query(st *s)
{
    weir_sql_query *q = weir__sql_query(&s->p);
    if (!q)
        return WEIR_ESQL;
    int rc = at_end(s);
    if (!rc)
        rc = weir__sql_tx_query(&s->t, s->out, q);
    return rc;
}

static bool at_query(st *s)
{
    size_t k = 0;
    while (weir__sql_is_op(&s->p, k, "("))
        k++;
    return weir__sql_is_kw(&s->p, k, "SELECT") || weir__sql_is_kw(&s->p, k, "WITH") ||
           weir__sql_is_kw(&s->p, k, "VALUES") || weir__sql_is_kw(&s->p, k, "TABLE");
}

/* Table clauses accepted and ignored: USING, PARTITIONED BY, ... */
static int skip_table_clauses(st *s)
{
    sql_parser *p = &s->p;
    for (;;) {
        if (weir__sql_accept_kw(p, "USING")) {
            p->i++;
        } else if (accept2(s, "PARTITIONED", "BY") || accept2(s, "CLUSTER", "BY")) {
            const char **cols;
            size_t n;
            int rc = weir__sql_ident_list(&cols, &n, p);
            if (rc)
                return rc;
        } else if (weir__sql_accept_kw(p, "COMMENT")) {
            if (!weir__sql_string(p))
                return WEIR_ESQL;
        } else if (weir__sql_accept_kw(p, "TBLPROPERTIES") ||
                   weir__sql_accept_kw(p, "OPTIONS")) {
            int depth = 0;
            do {
                if (weir__sql_peek(p, 0)->kind == TK_EOF)
                    return weir__sql_syntax_error(p);
                if (weir__sql_is_op(p, 0, "("))
                    depth++;
                else if (weir__sql_is_op(p, 0, ")"))
                    depth--;
                p->i++;
            } while (depth > 0);
        } else if (weir__sql_is_kw(p, 0, "LOCATION")) {
            return unsupported(s, "LOCATION");
        } else {
            return 0;
        }
    }
}

static int column_defs(st *s)
{
    sql_parser *p = &s->p;
    weir_buf *out = s->out;
    int rc = weir__sql_expect_op(p, "(");
    if (rc)
        return rc;
    weir__buf_puts(out, " (");
    bool first = true;
    do {
        const char *col = weir__sql_ident(p);
        const weir_sql_type *ty;
        if (!col)
            return WEIR_ESQL;
        if ((rc = weir__sql_type(&ty, p)))
            return rc;
        if (!first)
            weir__buf_puts(out, ", ");
        first = false;
        weir__buf_put_sql_ident(out, col);
        weir__buf_putc(out, ' ');
        weir__sql_type_to_duckdb(out, ty);
        for (;;) {
            if (accept2(s, "NOT", "NULL")) {
                weir__buf_puts(out, " NOT NULL");
            } else if (weir__sql_accept_kw(p, "COMMENT")) {
                if (!weir__sql_string(p))
                    return WEIR_ESQL;
            } else {
                break;
            }
        }
    } while (weir__sql_accept_op(p, ","));
    weir__buf_putc(out, ')');
    return weir__sql_expect_op(p, ")");
}

static int create(st *s)
{
    sql_parser *p = &s->p;
    weir_buf *out = s->out;
    bool replace = accept2(s, "OR", "REPLACE");
    bool temp = weir__sql_accept_kw(p, "TEMPORARY") || weir__sql_accept_kw(p, "TEMP");
    weir_sql_name n;
    int rc;
    if (weir__sql_accept_kw(p, "SCHEMA") || weir__sql_accept_kw(p, "DATABASE") ||
        weir__sql_accept_kw(p, "NAMESPACE")) {
        bool ine = weir__sql_is_kw(p, 0, "IF") && (p->i += 3, true);
        if ((rc = target(s, WEIR_SQL_CREATE_SCHEMA, &n)))
            return rc;
        const weir_sql_resolver *r = s->t.resolver;
        if (r && r->own_schema && n.n == 1 && weir__str_ieq(n.parts[0], r->own_schema))
            ine = true;
        for (;;) {
            if (weir__sql_accept_kw(p, "COMMENT")) {
                if (!weir__sql_string(p))
                    return WEIR_ESQL;
            } else if (weir__sql_is_kw(p, 0, "LOCATION")) {
                return unsupported(s, "LOCATION");
            } else {
                break;
            }
        }
        if ((rc = at_end(s)))
            return rc;
        weir__buf_puts(out, ine ? "CREATE SCHEMA IF NOT EXISTS " : "CREATE SCHEMA ");
        weir__sql_put_name(out, &n);
        return 0;
    }
    bool view = weir__sql_accept_kw(p, "VIEW");
    if (!view && !weir__sql_accept_kw(p, "TABLE"))
        return unsupported(s, "This CREATE statement");
    bool ine = false;
    if (weir__sql_is_kw(p, 0, "IF") && weir__sql_is_kw(p, 1, "NOT")) {
        p->i += 3;
        ine = true;
    }
    if ((rc = target(s, replace ? WEIR_SQL_REPLACE : WEIR_SQL_CREATE, &n)))
        return rc;
    weir__buf_printf(out, "CREATE %s%s%s", replace ? "OR REPLACE " : "",
                     temp ? "TEMPORARY " : "", view ? "VIEW " : "TABLE ");
    if (ine)
        weir__buf_puts(out, "IF NOT EXISTS ");
    weir__sql_put_name(out, &n);
    if (view) {
        if (weir__sql_is_op(p, 0, "(")) {
            const char **cols;
            size_t nc;
            if ((rc = weir__sql_ident_list(&cols, &nc, p)))
                return rc;
            weir__buf_puts(out, " (");
            for (size_t i = 0; i < nc; i++) {
                if (i)
                    weir__buf_puts(out, ", ");
                weir__buf_put_sql_ident(out, cols[i]);
            }
            weir__buf_putc(out, ')');
        }
        if ((rc = skip_table_clauses(s)) || (rc = weir__sql_expect_kw(p, "AS")))
            return rc;
        weir__buf_puts(out, " AS ");
        return query(s);
    }
    bool cols = weir__sql_is_op(p, 0, "(") && !at_query(s);
    if (cols && (rc = column_defs(s)))
        return rc;
    if ((rc = skip_table_clauses(s)))
        return rc;
    if (weir__sql_accept_kw(p, "AS") || at_query(s)) {
        if (cols)
            return unsupported(s, "CREATE TABLE with both columns and AS");
        weir__buf_puts(out, " AS ");
        return query(s);
    }
    if (!cols)
        return weir__sql_syntax_error(p);
    return at_end(s);
}

/* Where INSERT OVERWRITE stages its new rows. */
#define OVERWRITE_STAGE "temp.main.\"__weir_overwrite\""

static int insert(st *s)
{
    sql_parser *p = &s->p;
    weir_buf *out = s->out;
    bool overwrite = weir__sql_accept_kw(p, "OVERWRITE");
    int rc;
    if (!overwrite && (rc = weir__sql_expect_kw(p, "INTO")))
        return rc;
    weir__sql_accept_kw(p, "TABLE");
    weir_sql_name n;
    if ((rc = target(s, overwrite ? WEIR_SQL_OVERWRITE : WEIR_SQL_INSERT, &n)))
        return rc;
    if (weir__sql_is_kw(p, 0, "PARTITION"))
        return unsupported(s, "INSERT with PARTITION");
    /* INSERT OVERWRITE reads the old contents: the new rows are computed
     * into a temporary table before the old ones are deleted. The caller
     * runs the statements in one transaction. */
    weir_buf tail = WEIR_BUF_INIT;
    weir_buf *into = overwrite ? &tail : out;
    weir__buf_puts(into, "INSERT INTO ");
    weir__sql_put_name(into, &n);
    if (weir__sql_is_op(p, 0, "(") && !at_query(s)) {
        const char **cols;
        size_t nc;
        if ((rc = weir__sql_ident_list(&cols, &nc, p))) {
            weir__buf_free(&tail);
            return rc;
        }
        weir__buf_puts(into, " (");
        for (size_t i = 0; i < nc; i++) {
            if (i)
                weir__buf_puts(into, ", ");
            weir__buf_put_sql_ident(into, cols[i]);
        }
        weir__buf_putc(into, ')');
    }
    if (accept2(s, "BY", "NAME"))
        weir__buf_puts(into, " BY NAME");
    if (!overwrite) {
        weir__buf_putc(out, ' ');
        return query(s);
    }
    weir__buf_puts(out, "CREATE OR REPLACE TEMPORARY TABLE " OVERWRITE_STAGE " AS ");
    rc = query(s);
    if (!rc) {
        weir__buf_puts(out, "; DELETE FROM ");
        weir__sql_put_name(out, &n);
        weir__buf_puts(out, "; ");
        weir__buf_put(out, tail.ptr, tail.len);
        weir__buf_puts(out, " SELECT * FROM " OVERWRITE_STAGE "; DROP TABLE " OVERWRITE_STAGE);
        if (tail.failed)
            rc = WEIR_ERR(s->p.err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir__buf_free(&tail);
    return rc;
}

static int where_tail(st *s)
{
    if (weir__sql_accept_kw(&s->p, "WHERE")) {
        weir_sql_expr *e = weir__sql_expr(&s->p);
        if (!e)
            return WEIR_ESQL;
        weir__buf_puts(s->out, " WHERE ");
        int rc = weir__sql_tx_expr(&s->t, s->out, e);
        if (rc)
            return rc;
    }
    return at_end(s);
}

static int table_alias(st *s)
{
    bool as = weir__sql_accept_kw(&s->p, "AS");
    if (weir__sql_at_ident(&s->p, 0) && !weir__sql_is_kw(&s->p, 0, "SET")) {
        weir__buf_puts(s->out, " AS ");
        weir__buf_put_sql_ident(s->out, s->p.t[s->p.i++].text);
    } else if (as) {
        return weir__sql_syntax_error(&s->p);
    }
    return 0;
}

static int delete_stmt(st *s)
{
    weir_sql_name n;
    int rc;
    if ((rc = weir__sql_expect_kw(&s->p, "FROM")) ||
        (rc = target(s, WEIR_SQL_DELETE, &n)))
        return rc;
    weir__buf_puts(s->out, "DELETE FROM ");
    weir__sql_put_name(s->out, &n);
    if ((rc = table_alias(s)))
        return rc;
    return where_tail(s);
}

static int update_stmt(st *s)
{
    weir_sql_name n;
    int rc;
    if ((rc = target(s, WEIR_SQL_UPDATE, &n)))
        return rc;
    weir__buf_puts(s->out, "UPDATE ");
    weir__sql_put_name(s->out, &n);
    if ((rc = table_alias(s)) || (rc = weir__sql_expect_kw(&s->p, "SET")))
        return rc;
    weir__buf_puts(s->out, " SET ");
    do {
        weir_sql_name col;
        if ((rc = weir__sql_parse_name(&col, &s->p)) ||
            (rc = weir__sql_expect_op(&s->p, "=")))
            return rc;
        weir_sql_expr *e = weir__sql_expr(&s->p);
        if (!e)
            return WEIR_ESQL;
        weir__buf_put_sql_ident(s->out, col.parts[col.n - 1]);
        weir__buf_puts(s->out, " = ");
        if ((rc = weir__sql_tx_expr(&s->t, s->out, e)))
            return rc;
        if (weir__sql_is_op(&s->p, 0, ","))
            weir__buf_puts(s->out, ", ");
    } while (weir__sql_accept_op(&s->p, ","));
    return where_tail(s);
}

static int drop(st *s)
{
    sql_parser *p = &s->p;
    const char *what = weir__sql_accept_kw(p, "TABLE")  ? "TABLE"
                       : weir__sql_accept_kw(p, "VIEW") ? "VIEW"
                       : (weir__sql_accept_kw(p, "SCHEMA") ||
                          weir__sql_accept_kw(p, "DATABASE") ||
                          weir__sql_accept_kw(p, "NAMESPACE"))
                           ? "SCHEMA"
                           : NULL;
    if (!what)
        return unsupported(s, "This DROP statement");
    bool ie = accept2(s, "IF", "EXISTS");
    weir_sql_name n;
    int rc = target(s, what[0] == 'S' ? WEIR_SQL_DROP_SCHEMA : WEIR_SQL_DROP, &n);
    if (rc)
        return rc;
    bool cascade = weir__sql_accept_kw(p, "CASCADE");
    if (!cascade)
        weir__sql_accept_kw(p, "RESTRICT");
    weir__sql_accept_kw(p, "PURGE");
    if ((rc = at_end(s)))
        return rc;
    weir__buf_printf(s->out, "DROP %s %s", what, ie ? "IF EXISTS " : "");
    weir__sql_put_name(s->out, &n);
    if (cascade)
        weir__buf_puts(s->out, " CASCADE");
    return 0;
}

static int alter(st *s)
{
    sql_parser *p = &s->p;
    weir_sql_name n;
    int rc;
    if ((rc = weir__sql_expect_kw(p, "TABLE")) ||
        (rc = target(s, WEIR_SQL_ALTER, &n)))
        return rc;
    if (!weir__sql_accept_kw(p, "ADD"))
        return unsupported(s, "This ALTER TABLE statement");
    bool paren;
    if (!weir__sql_accept_kw(p, "COLUMNS"))
        weir__sql_accept_kw(p, "COLUMN");
    paren = weir__sql_accept_op(p, "(");
    bool first = true;
    do {
        const char *col = weir__sql_ident(p);
        const weir_sql_type *ty;
        if (!col || (rc = weir__sql_type(&ty, p)))
            return col ? rc : WEIR_ESQL;
        if (weir__sql_accept_kw(p, "COMMENT") && !weir__sql_string(p))
            return WEIR_ESQL;
        if (!first)
            weir__buf_puts(s->out, "; ");
        first = false;
        weir__buf_puts(s->out, "ALTER TABLE ");
        weir__sql_put_name(s->out, &n);
        weir__buf_puts(s->out, " ADD COLUMN ");
        weir__buf_put_sql_ident(s->out, col);
        weir__buf_putc(s->out, ' ');
        weir__sql_type_to_duckdb(s->out, ty);
    } while (weir__sql_accept_op(p, ","));
    if (paren && (rc = weir__sql_expect_op(p, ")")))
        return rc;
    return at_end(s);
}

static int show(st *s)
{
    sql_parser *p = &s->p;
    weir_buf *out = s->out;
    if (weir__sql_accept_kw(p, "TABLES")) {
        weir_sql_name db = { 0 };
        int rc;
        if ((weir__sql_accept_kw(p, "IN") || weir__sql_accept_kw(p, "FROM")) &&
            (rc = name(s, &db)))
            return rc;
        if ((rc = at_end(s)))
            return rc;
        weir__buf_puts(out, "SELECT schema_name AS \"namespace\", table_name AS "
                            "\"tableName\", temporary AS \"isTemporary\" FROM "
                            "(SELECT schema_name, table_name, temporary FROM "
                            "duckdb_tables() UNION ALL SELECT schema_name, "
                            "view_name, temporary FROM duckdb_views() WHERE NOT "
                            "internal)");
        if (db.n) {
            weir__buf_puts(out, " WHERE schema_name = ");
            weir__buf_put_sql_string(out, db.parts[db.n - 1]);
        }
        weir__buf_puts(out, " ORDER BY 1, 2");
        return 0;
    }
    if (weir__sql_accept_kw(p, "DATABASES") || weir__sql_accept_kw(p, "SCHEMAS") ||
        weir__sql_accept_kw(p, "NAMESPACES")) {
        int rc = at_end(s);
        if (!rc)
            weir__buf_puts(out, "SELECT DISTINCT schema_name AS \"namespace\" FROM "
                                "duckdb_schemas() WHERE NOT internal ORDER BY 1");
        return rc;
    }
    return unsupported(s, "This SHOW statement");
}

/* SET TIME ZONE 'zone' (Spark's spelling of SET
 * spark.sql.session.timeZone = zone); LOCAL and INTERVAL are refused. */
static int set_time_zone(st *s)
{
    sql_parser *p = &s->p;
    p->i += 2;
    const sql_token *at = weir__sql_peek(p, 0);
    if (at->kind != TK_STRING || p->i + 1 != p->n)
        return unsupported(s, "SET TIME ZONE other than a zone id in quotes");
    p->i = p->n;
    if (s->t.resolver && s->t.resolver->set) {
        int rc = s->t.resolver->set(s->t.resolver->payload,
                                    "spark.sql.session.timeZone", at->text, p->err);
        if (rc) {
            if (!p->err->path[0])
                weir__sql_error_at(p->err, p->src, weir__sql_tok_pos(at));
            return rc;
        }
    }
    weir__buf_puts(s->out, "SELECT 'spark.sql.session.timeZone' AS \"key\", ");
    weir__buf_put_sql_string(s->out, at->text);
    weir__buf_puts(s->out, " AS \"value\"");
    return 0;
}

static int statement(st *s)
{
    sql_parser *p = &s->p;
    if (at_query(s))
        return query(s);
    if (weir__sql_accept_kw(p, "CREATE"))
        return create(s);
    if (weir__sql_accept_kw(p, "INSERT"))
        return insert(s);
    if (weir__sql_accept_kw(p, "DELETE"))
        return delete_stmt(s);
    if (weir__sql_accept_kw(p, "UPDATE"))
        return update_stmt(s);
    if (weir__sql_accept_kw(p, "DROP"))
        return drop(s);
    if (weir__sql_accept_kw(p, "ALTER"))
        return alter(s);
    if (weir__sql_accept_kw(p, "SHOW"))
        return show(s);
    if (weir__sql_accept_kw(p, "TRUNCATE")) {
        weir_sql_name n;
        int rc;
        if ((rc = weir__sql_expect_kw(p, "TABLE")) ||
            (rc = target(s, WEIR_SQL_DELETE, &n)) || (rc = at_end(s)))
            return rc;
        weir__buf_puts(s->out, "DELETE FROM ");
        weir__sql_put_name(s->out, &n);
        return 0;
    }
    if (weir__sql_accept_kw(p, "DESCRIBE") || weir__sql_accept_kw(p, "DESC")) {
        weir__sql_accept_kw(p, "TABLE");
        weir__sql_accept_kw(p, "EXTENDED");
        weir_sql_name n;
        int rc;
        if ((rc = name(s, &n)) || (rc = at_end(s)))
            return rc;
        /* Spark's type names (store/spark_type.c) */
        weir__buf_puts(s->out, "SELECT column_name AS \"col_name\", "
                               "__weir_spark_type(column_type) AS \"data_type\", "
                               "NULL::VARCHAR AS \"comment\" FROM (DESCRIBE ");
        weir__sql_put_name(s->out, &n);
        weir__buf_putc(s->out, ')');
        return 0;
    }
    if (weir__sql_accept_kw(p, "USE")) {
        if (!weir__sql_accept_kw(p, "CATALOG") && !weir__sql_accept_kw(p, "SCHEMA") &&
            !weir__sql_accept_kw(p, "DATABASE"))
            weir__sql_accept_kw(p, "NAMESPACE");
        weir_sql_name n;
        int rc;
        if ((rc = target(s, WEIR_SQL_USE, &n)) || (rc = at_end(s)))
            return rc;
        weir__buf_puts(s->out, "USE ");
        weir__sql_put_name(s->out, &n);
        return 0;
    }
    if (weir__sql_accept_kw(p, "SET")) {
        /* Spark's SET k = v answers with the pair; the resolver applies it */
        if (weir__sql_is_kw(p, 0, "TIME") && weir__sql_is_kw(p, 1, "ZONE"))
            return set_time_zone(s);
        size_t eq = p->i;
        while (eq < p->n && !(p->t[eq].kind == TK_OP && strcmp(p->t[eq].text, "=") == 0))
            eq++;
        if (p->i >= p->n || eq >= p->n)
            return unsupported(s, "SET without a value");
        unsigned ks = p->t[p->i].off, ke = p->t[eq - 1].off + p->t[eq - 1].len;
        unsigned vs = eq + 1 < p->n ? p->t[eq + 1].off : p->t[eq].off + 1;
        unsigned ve = p->t[p->n - 1].off + p->t[p->n - 1].len;
        char *k = weir__arena_strndup(p->arena, p->src->text + ks, ke > ks ? ke - ks : 0);
        char *v = weir__arena_strndup(p->arena, p->src->text + vs, ve > vs ? ve - vs : 0);
        if (!k || !v)
            return WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
        if (s->t.resolver && s->t.resolver->set) {
            int rc = s->t.resolver->set(s->t.resolver->payload, k, v, p->err);
            if (rc) {
                if (!p->err->path[0])
                    weir__sql_error_at(p->err, p->src,
                                       weir__sql_tok_pos(&p->t[eq + 1]));
                return rc;
            }
        }
        weir__buf_puts(s->out, "SELECT ");
        weir__buf_put_sql_string(s->out, k);
        weir__buf_puts(s->out, " AS \"key\", ");
        weir__buf_put_sql_string(s->out, v);
        weir__buf_puts(s->out, " AS \"value\"");
        p->i = p->n;
        return 0;
    }
    if (weir__sql_is_kw(p, 0, "MERGE"))
        return unsupported(s, "MERGE INTO");
    return outside(s);
}

int weir__sql_translate_statement(weir_buf *out, weir_arena *arena,
                                  const weir_sql_source *src, size_t offset,
                                  size_t len, const weir_sql_resolver *resolver,
                                  weir_error *err)
{
    st s;
    memset(&s, 0, sizeof(s));
    int rc = weir__sql_parser_init(&s.p, arena, src, offset, len, err);
    if (rc)
        return rc;
    s.t.resolver = resolver;
    s.t.err = err;
    s.t.arena = arena;
    s.out = out;
    size_t start = out->len;
    rc = weir__sql_tx_set_zone(&s.t, resolver ? resolver->time_zone : NULL, err);
    if (rc)
        weir__sql_error_at(err, src, weir__sql_pos_of(src, offset));
    else
        rc = statement(&s);
    if (!rc && weir__buf_failed(out))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc) {
        if (err && !err->code)
            WEIR_ERR(err, rc, "PARSE_SYNTAX_ERROR", "Syntax error");
        weir__buf_truncate(out, start);
    }
    return rc;
}
