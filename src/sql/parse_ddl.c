/*
 * Pipeline statements of a .sql file (spark-sdp.md §4.2): CREATE
 * MATERIALIZED VIEW / STREAMING TABLE (and the Databricks LIVE TABLE
 * spellings), CREATE VIEW, CREATE TEMPORARY VIEW, CREATE FLOW ... INSERT
 * INTO ... BY NAME, AUTO CDC flows (CREATE FLOW ... AS AUTO CDC INTO,
 * CREATE STREAMING TABLE ... FLOW AUTO CDC, APPLY CHANGES INTO), CREATE
 * SINK, SET, USE. Each statement is parsed on its
 * own; a bad one adds one error (Spark's class and wording) and the file
 * goes on with the next. Their clauses are parse_ddl_clauses.c, AUTO CDC
 * parse_cdc.c (parse_ddl.h).
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include "parse_ddl.h"
#include "util/str.h"

#define REG_ERROR "PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR"

int weir__sql_ddl_oom(sql_ddl *d)
{
    return WEIR_ERR(d->p.err, WEIR_ENOMEM, NULL, "out of memory");
}

static int name_text(sql_ddl *d, const weir_sql_name *n, const char **out)
{
    weir_buf b = WEIR_BUF_INIT;
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            weir__buf_putc(&b, '.');
        weir__buf_puts(&b, n->parts[i]);
    }
    *out = weir__arena_strdup(d->p.arena, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return *out ? 0 : weir__sql_ddl_oom(d);
}

/* Any number of parts: how many a dataset, sink or flow target may have is
 * a rule of the graph (src/graph), the same for every front end. */
static int dataset_name(sql_ddl *d, weir_sql_name *out)
{
    int rc = weir__sql_parse_name(out, &d->p);
    if (!rc)
        weir__sql_strip_live(out);
    return rc;
}

static int query_tail(sql_ddl *d)
{
    sql_parser *p = &d->p;
    d->s->query = weir__sql_query(p);
    if (!d->s->query)
        return WEIR_ESQL;
    if (weir__sql_peek(p, 0)->kind != TK_EOF)
        return weir__sql_syntax_error(p);
    return 0;
}

static int create_dataset(sql_ddl *d, weir_sql_stmt_kind kind)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    s->kind = kind;
    d->what = kind == WEIR_SQL_CREATE_MATERIALIZED_VIEW ? "MATERIALIZED VIEW"
                                                        : "STREAMING TABLE";
    int rc;
    if (weir__sql_is_kw(p, 0, "IF") && weir__sql_is_kw(p, 1, "NOT") &&
        weir__sql_is_kw(p, 2, "EXISTS")) {
        p->i += 3;
        s->if_not_exists = true;
    }
    if ((rc = dataset_name(d, &s->name)))
        return rc;
    if (weir__sql_is_op(p, 0, "(") && (rc = weir__sql_ddl_column_list(d, true)))
        return rc;
    if ((rc = weir__sql_ddl_clauses(d, false)))
        return rc;
    if (kind == WEIR_SQL_CREATE_STREAMING_TABLE && weir__sql_is_kw(p, 0, "FLOW") &&
        weir__sql_is_kw(p, 1, "AUTO") && weir__sql_is_kw(p, 2, "CDC")) {
        const sql_token *at = weir__sql_peek(p, 1);
        if (s->n_columns)
            return weir__sql_error_tok(p, at, WEIR_ESQL, REG_ERROR,
                                       "Explicit column lists are not "
                                       "supported for AUTO CDC");
        p->i += 3;
        return weir__sql_ddl_cdc(d, at);
    }
    if (weir__sql_accept_kw(p, "AS"))
        return query_tail(d);
    if (weir__sql_peek(p, 0)->kind != TK_EOF ||
        kind == WEIR_SQL_CREATE_MATERIALIZED_VIEW)
        return weir__sql_syntax_error(p);
    return 0;
}

static int create_view(sql_ddl *d, bool temporary)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    s->kind = temporary ? WEIR_SQL_CREATE_TEMPORARY_VIEW : WEIR_SQL_CREATE_VIEW;
    d->what = "VIEW";
    int rc;
    if (weir__sql_is_kw(p, 0, "IF") && weir__sql_is_kw(p, 1, "NOT") &&
        weir__sql_is_kw(p, 2, "EXISTS")) {
        p->i += 3;
        s->if_not_exists = true;
    }
    const sql_token *at = weir__sql_peek(p, 0);
    if ((rc = dataset_name(d, &s->name)))
        return rc;
    if (temporary && s->name.n > 1) {
        const char *t;
        if ((rc = name_text(d, &s->name, &t)))
            return rc;
        return weir__sql_error_tok(p, at, WEIR_ESQL, "INVALID_TEMP_OBJ_QUALIFIER",
                                   "CREATE TEMPORARY VIEW only accepts "
                                   "single-part view names, but got: %s",
                                   t);
    }
    if (weir__sql_is_op(p, 0, "(")) {
        /* (a [COMMENT '..'], b) */
        p->i++;
        do {
            if ((rc = weir__sql_ddl_column_def(d, false)))
                return rc;
        } while (weir__sql_accept_op(p, ","));
        if ((rc = weir__sql_expect_op(p, ")")))
            return rc;
    }
    if ((rc = weir__sql_ddl_clauses(d, true)))
        return rc;
    if ((rc = weir__sql_expect_kw(p, "AS")))
        return rc;
    return query_tail(d);
}

static int flow_error(sql_ddl *d, const sql_token *at, const char *msg)
{
    return weir__sql_error_tok(&d->p, at, WEIR_ESQL, REG_ERROR, "%s", msg);
}

static int create_flow(sql_ddl *d)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    s->kind = WEIR_SQL_CREATE_FLOW;
    int rc = weir__sql_parse_name(&s->name, p);
    if (rc)
        return rc;
    weir__sql_strip_live(&s->name); /* one part: checked by the graph */
    /* COMMENT '..' and OPTIONS (import_checkpoint '..'), in any order (a
     * weir extension: docs/import-checkpoint.md). */
    const sql_token *options_at = NULL;
    for (;;) {
        if (!s->comment && weir__sql_accept_kw(p, "COMMENT")) {
            if (!(s->comment = weir__sql_string(p)))
                return WEIR_ESQL;
        } else if (!options_at && weir__sql_is_kw(p, 0, "OPTIONS")) {
            options_at = weir__sql_peek(p, 0);
            p->i++;
            if ((rc = weir__sql_ddl_prop_list(d, &s->options, &s->n_options, false)))
                return rc;
        } else {
            break;
        }
    }
    for (size_t i = 0; i < s->n_options; i++) {
        const weir_sql_property *o = &s->options[i];
        if (!weir__str_ieq(o->key, "import_checkpoint"))
            return weir__sql_error_tok(p, options_at, WEIR_ESQL, REG_ERROR,
                                      "Unknown flow option '%s': flows take "
                                      "OPTIONS (import_checkpoint '<folder>') "
                                      "only",
                                      o->key);
        if (!o->value || !*o->value)
            return weir__sql_error_tok(p, options_at, WEIR_ESQL, REG_ERROR,
                                      "Flow option import_checkpoint needs "
                                      "the path of a Spark checkpoint folder");
    }
    if ((rc = weir__sql_expect_kw(p, "AS")))
        return rc;
    const sql_token *body = weir__sql_peek(p, 0);
    if (weir__sql_is_kw(p, 0, "AUTO") && weir__sql_is_kw(p, 1, "CDC")) {
        p->i += 2;
        if ((rc = weir__sql_expect_kw(p, "INTO")) ||
            (rc = dataset_name(d, &s->target)))
            return rc;
        if (s->n_options)
            return flow_error(d, options_at, "An AUTO CDC flow cannot import "
                                             "a checkpoint (import_checkpoint "
                                             "is for streaming append flows).");
        return weir__sql_ddl_cdc(d, body);
    }
    if (!weir__sql_accept_kw(p, "INSERT"))
        return flow_error(d, body, "Unable flow type. Only INSERT INTO and "
                                   "AUTO CDC INTO flows are supported.");
    if (weir__sql_is_kw(p, 0, "OVERWRITE"))
        return flow_error(d, body, "INSERT OVERWRITE flows not supported.");
    if ((rc = weir__sql_expect_kw(p, "INTO")))
        return rc;
    if (weir__sql_accept_kw(p, "ONCE"))
        s->once = true;
    weir__sql_accept_kw(p, "TABLE");
    if ((rc = dataset_name(d, &s->target)))
        return rc;
    if (weir__sql_is_kw(p, 0, "PARTITION"))
        return flow_error(d, body, "Partition spec may not be specified for "
                                   "flow target.");
    if (weir__sql_is_kw(p, 0, "IF") && weir__sql_is_kw(p, 1, "NOT"))
        return flow_error(d, body, "IF NOT EXISTS not supported for flows.");
    if (weir__sql_is_op(p, 0, "(") && !(weir__sql_is_kw(p, 1, "SELECT") ||
                                        weir__sql_is_kw(p, 1, "WITH") ||
                                        weir__sql_is_kw(p, 1, "VALUES") ||
                                        weir__sql_is_op(p, 1, "(")))
        return flow_error(d, body, "Column schema may not be specified for "
                                   "flow target.");
    if (!(weir__sql_is_kw(p, 0, "BY") && weir__sql_is_kw(p, 1, "NAME")))
        return flow_error(d, body, "Only INSERT INTO by name flows supported.");
    p->i += 2;
    if (weir__sql_accept_kw(p, "ONCE"))
        s->once = true;
    if (s->once && s->n_options)
        return flow_error(d, options_at, "A once flow cannot import a "
                                         "checkpoint (import_checkpoint is "
                                         "for streaming append flows).");
    return query_tail(d);
}

static int create_sink(sql_ddl *d)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    s->kind = WEIR_SQL_CREATE_SINK;
    int rc = dataset_name(d, &s->name); /* one part: checked by the graph */
    if (rc)
        return rc;
    for (;;) {
        if (weir__sql_accept_kw(p, "USING")) {
            const sql_token *t = weir__sql_peek(p, 0);
            if (t->kind != TK_IDENT && t->kind != TK_QIDENT && t->kind != TK_STRING)
                return weir__sql_syntax_error(p);
            s->format = t->text;
            p->i++;
        } else if (weir__sql_accept_kw(p, "OPTIONS")) {
            if ((rc = weir__sql_ddl_prop_list(d, &s->options, &s->n_options, false)))
                return rc;
        } else if (weir__sql_accept_kw(p, "COMMENT")) {
            if (!(s->comment = weir__sql_string(p)))
                return WEIR_ESQL;
        } else {
            break;
        }
    }
    if (!s->format)
        return weir__sql_syntax_error(p);
    if (weir__sql_peek(p, 0)->kind != TK_EOF)
        return weir__sql_syntax_error(p);
    return 0;
}

static const char *plan_name(const sql_parser *p)
{
    static const struct {
        const char *kw, *kw2, *plan;
    } PLANS[] = {
        { "SELECT", NULL, "Project" },
        { "WITH", NULL, "UnresolvedWith" },
        { "VALUES", NULL, "UnresolvedInlineTable" },
        { "FROM", NULL, "Project" },
        { "TABLE", NULL, "Project" },
        { "INSERT", "DIRECTORY", "InsertIntoDir" },
        { "INSERT", NULL, "InsertIntoStatement" },
        { "DELETE", NULL, "DeleteFromTable" },
        { "UPDATE", NULL, "UpdateTable" },
        { "MERGE", NULL, "MergeIntoTable" },
        { "DROP", "TABLE", "DropTable" },
        { "DROP", "VIEW", "DropView" },
        { "DROP", "SCHEMA", "DropNamespace" },
        { "DROP", "DATABASE", "DropNamespace" },
        { "DROP", "FUNCTION", "DropFunction" },
        { "ALTER", "TABLE", "AlterTableCommand" },
        { "ALTER", "VIEW", "AlterViewAs" },
        { "CREATE", "SCHEMA", "CreateNamespace" },
        { "CREATE", "DATABASE", "CreateNamespace" },
        { "CREATE", "FUNCTION", "CreateFunction" },
        { "CREATE", "TABLE", "CreateTable" },
        { "TRUNCATE", NULL, "TruncateTable" },
        { "SHOW", NULL, "ShowTables" },
        { "DESCRIBE", NULL, "DescribeRelation" },
        { "DESC", NULL, "DescribeRelation" },
        { "EXPLAIN", NULL, "ExplainCommand" },
        { "CACHE", NULL, "CacheTable" },
        { "ANALYZE", NULL, "AnalyzeTable" },
        { "REFRESH", NULL, "RefreshTable" },
        { "RESET", NULL, "ResetCommand" },
        { NULL, NULL, NULL }
    };
    for (int i = 0; PLANS[i].kw; i++) {
        if (!weir__sql_is_kw(p, 0, PLANS[i].kw))
            continue;
        if (!PLANS[i].kw2)
            return PLANS[i].plan;
        for (size_t k = 1; k < 5; k++)
            if (weir__sql_is_kw(p, k, PLANS[i].kw2))
                return PLANS[i].plan;
    }
    return NULL;
}

static int unsupported(sql_ddl *d)
{
    sql_parser *p = &d->p;
    const sql_token *t = weir__sql_peek(p, 0);
    const char *plan = plan_name(p);
    if (plan && strcmp(plan, "CreateTable") == 0) {
        for (size_t k = 1; k < p->n - p->i; k++)
            if (weir__sql_is_kw(p, k, "AS") || weir__sql_is_kw(p, k, "SELECT")) {
                plan = "CreateTableAsSelect";
                break;
            }
    }
    if (!plan)
        return weir__sql_syntax_error(p);
    return weir__sql_error_tok(p, t, WEIR_ESQL, REG_ERROR,
                               "Unsupported plan %s parsed from SQL query", plan);
}

/* Raw text of tokens [a, b) trimmed; backticks around the whole removed. */
static const char *raw_text(sql_ddl *d, size_t a, size_t b)
{
    sql_parser *p = &d->p;
    if (a >= b)
        return "";
    unsigned s = p->t[a].off, e = p->t[b - 1].off + p->t[b - 1].len;
    if (b - a == 1 && p->t[a].kind == TK_QIDENT)
        return p->t[a].text;
    return weir__arena_strndup(p->arena, p->src->text + s, e - s);
}

static int set_stmt(sql_ddl *d, const sql_token *start)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    if (weir__sql_accept_kw(p, "CATALOG")) {
        s->kind = WEIR_SQL_USE_CATALOG;
        const sql_token *at = weir__sql_peek(p, 0);
        if (at->kind == TK_STRING) {
            p->i++;
            const char **parts = weir__arena_array(p->arena, 1, sizeof(*parts));
            if (!parts)
                return weir__sql_ddl_oom(d);
            parts[0] = at->text;
            s->name.parts = parts;
            s->name.n = 1;
            s->name.pos = weir__sql_tok_pos(at);
        } else {
            int rc = weir__sql_parse_name(&s->name, p);
            if (rc)
                return rc;
        }
        if (s->name.n != 1 || weir__sql_peek(p, 0)->kind != TK_EOF)
            return weir__sql_error_tok(p, at, WEIR_ESQL, REG_ERROR,
                                       "Failed to resolve catalog expression: "
                                       "%s",
                                       raw_text(d, (size_t)(at - p->t), p->n));
        return 0;
    }
    s->kind = WEIR_SQL_SET;
    size_t eq = p->i;
    while (eq < p->n && !(p->t[eq].kind == TK_OP && strcmp(p->t[eq].text, "=") == 0))
        eq++;
    if (p->i == p->n)
        return weir__sql_error_tok(p, start, WEIR_ESQL, NULL,
                                   "Invalid SET command without key-value pair");
    if (eq == p->n)
        return weir__sql_error_tok(p, start, WEIR_ESQL, NULL,
                                   "Invalid SET command without value");
    s->set_key = raw_text(d, p->i, eq);
    s->set_value = raw_text(d, eq + 1, p->n);
    if (!s->set_key || !s->set_value)
        return weir__sql_ddl_oom(d);
    if (!*s->set_key)
        return weir__sql_error_tok(p, start, WEIR_ESQL, NULL,
                                   "Invalid SET command without key-value pair");
    p->i = p->n;
    return 0;
}

static int use_stmt(sql_ddl *d)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    int rc;
    if (weir__sql_accept_kw(p, "CATALOG")) {
        s->kind = WEIR_SQL_USE_CATALOG;
        const sql_token *at = weir__sql_peek(p, 0);
        if ((rc = weir__sql_parse_name(&s->name, p)))
            return rc;
        if (s->name.n != 1)
            return weir__sql_error_tok(p, at, WEIR_ESQL, REG_ERROR,
                                       "Failed to resolve catalog expression: "
                                       "%s",
                                       raw_text(d, (size_t)(at - p->t), p->n));
    } else {
        s->kind = WEIR_SQL_USE_SCHEMA;
        if (!weir__sql_accept_kw(p, "SCHEMA") && !weir__sql_accept_kw(p, "DATABASE"))
            weir__sql_accept_kw(p, "NAMESPACE");
        const sql_token *at = weir__sql_peek(p, 0);
        if ((rc = weir__sql_parse_name(&s->name, p)))
            return rc;
        if (s->name.n > 2)
            return weir__sql_error_tok(p, at, WEIR_ESQL, NULL,
                                       "Invalid schema identifier provided on "
                                       "USE command: %s",
                                       raw_text(d, (size_t)(at - p->t), p->n));
    }
    if (weir__sql_peek(p, 0)->kind != TK_EOF)
        return weir__sql_syntax_error(p);
    return 0;
}

/* Record a Databricks spelling of the CREATE keywords: written is what
 * follows CREATE (with OR REFRESH / PRIVATE as given), spark what Spark
 * writes for it. */
static void databricks_create(sql_ddl *d, const char *written, const char *spark)
{
    weir_sql_stmt *s = d->s;
    s->create_written = weir__arena_printf(d->p.arena, "CREATE %s%s%s",
                                           s->or_refresh ? "OR REFRESH " : "",
                                           s->is_private ? "PRIVATE " : "",
                                           written);
    s->create_spark = spark;
}

static int create_stmt(sql_ddl *d)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    bool or_replace = false;
    if (weir__sql_is_kw(p, 0, "OR") && weir__sql_is_kw(p, 1, "REFRESH")) {
        p->i += 2;
        s->or_refresh = true;
    } else if (weir__sql_is_kw(p, 0, "OR") && weir__sql_is_kw(p, 1, "REPLACE")) {
        p->i += 2;
        or_replace = true;
    }
    if (weir__sql_accept_kw(p, "PRIVATE"))
        s->is_private = true;
    bool temporary = weir__sql_accept_kw(p, "TEMPORARY") ||
                     weir__sql_accept_kw(p, "TEMP");
    bool databricks = s->or_refresh || s->is_private;
    if (weir__sql_is_kw(p, 0, "MATERIALIZED") && weir__sql_is_kw(p, 1, "VIEW") &&
        !temporary) {
        p->i += 2;
        if (databricks)
            databricks_create(d, "MATERIALIZED VIEW", "CREATE MATERIALIZED VIEW");
        return create_dataset(d, WEIR_SQL_CREATE_MATERIALIZED_VIEW);
    }
    if (weir__sql_is_kw(p, 0, "STREAMING") && weir__sql_is_kw(p, 1, "TABLE") &&
        !temporary) {
        p->i += 2;
        if (databricks)
            databricks_create(d, "STREAMING TABLE", "CREATE STREAMING TABLE");
        return create_dataset(d, WEIR_SQL_CREATE_STREAMING_TABLE);
    }
    if ((weir__sql_is_kw(p, 0, "STREAMING") || weir__sql_is_kw(p, 0, "INCREMENTAL")) &&
        weir__sql_is_kw(p, 1, "LIVE") && weir__sql_is_kw(p, 2, "TABLE") &&
        !temporary) {
        databricks_create(d, weir__sql_is_kw(p, 0, "STREAMING")
                                 ? "STREAMING LIVE TABLE"
                                 : "INCREMENTAL LIVE TABLE",
                          "CREATE STREAMING TABLE");
        p->i += 3;
        return create_dataset(d, WEIR_SQL_CREATE_STREAMING_TABLE);
    }
    if (weir__sql_is_kw(p, 0, "LIVE") && weir__sql_is_kw(p, 1, "TABLE") &&
        !temporary) {
        p->i += 2;
        databricks_create(d, "LIVE TABLE", "CREATE MATERIALIZED VIEW");
        return create_dataset(d, WEIR_SQL_CREATE_MATERIALIZED_VIEW);
    }
    if (weir__sql_is_kw(p, 0, "LIVE") && weir__sql_is_kw(p, 1, "VIEW")) {
        p->i += 2;
        databricks_create(d, "LIVE VIEW", "CREATE TEMPORARY VIEW");
        return create_view(d, true);
    }
    if (weir__sql_accept_kw(p, "VIEW")) {
        (void)or_replace;
        if (databricks)
            databricks_create(d, temporary ? "TEMPORARY VIEW" : "VIEW",
                              temporary ? "CREATE TEMPORARY VIEW" : "CREATE VIEW");
        return create_view(d, temporary);
    }
    if (!temporary && weir__sql_accept_kw(p, "FLOW")) {
        if (databricks)
            databricks_create(d, "FLOW", "CREATE FLOW");
        return create_flow(d);
    }
    if (!temporary && weir__sql_accept_kw(p, "SINK")) {
        if (databricks)
            databricks_create(d, "SINK", "CREATE SINK");
        return create_sink(d);
    }
    p->i = 0;
    return unsupported(d);
}

static int parse_statement(sql_ddl *d)
{
    sql_parser *p = &d->p;
    const sql_token *t = weir__sql_peek(p, 0);
    d->s->pos = weir__sql_tok_pos(t);
    if (weir__sql_accept_kw(p, "CREATE"))
        return create_stmt(d);
    if (weir__sql_accept_kw(p, "SET"))
        return set_stmt(d, t);
    if (weir__sql_accept_kw(p, "USE"))
        return use_stmt(d);
    if (weir__sql_is_kw(p, 0, "APPLY") && weir__sql_is_kw(p, 1, "CHANGES") &&
        weir__sql_is_kw(p, 2, "INTO")) {
        /* Databricks' older spelling: a CDC flow named after its target. */
        p->i += 3;
        weir_sql_stmt *s = d->s;
        s->kind = WEIR_SQL_CREATE_FLOW;
        int rc = dataset_name(d, &s->target);
        if (rc)
            return rc;
        s->name = s->target;
        return weir__sql_ddl_cdc(d, t);
    }
    return unsupported(d);
}

int weir__sql_parse_columns(const weir_sql_column **out, size_t *n_out,
                            weir_arena *arena, const weir_sql_source *src,
                            weir_error *err)
{
    *out = NULL;
    *n_out = 0;
    weir_sql_stmt s;
    memset(&s, 0, sizeof(s));
    sql_ddl d;
    memset(&d, 0, sizeof(d));
    d.s = &s;
    d.what = "TABLE";
    int rc = weir__sql_parser_init(&d.p, arena, src, 0, src->len, err);
    do {
        if (!rc)
            rc = weir__sql_ddl_column_def(&d, true);
    } while (!rc && weir__sql_accept_op(&d.p, ","));
    if (!rc && weir__sql_peek(&d.p, 0)->kind != TK_EOF)
        rc = weir__sql_syntax_error(&d.p);
    if (!rc)
        rc = weir__sql_raise_deferred(&d.p);
    if (rc == WEIR_ENOMEM || weir__arena_failed(arena))
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc) {
        if (!err->code)
            WEIR_ERR(err, WEIR_ESQL, "PARSE_SYNTAX_ERROR", "Syntax error");
        return WEIR_ESQL;
    }
    *out = s.columns;
    *n_out = s.n_columns;
    return 0;
}

int weir__sql_parse_file(weir_sql_stmt **out, size_t *n_out, weir_arena *arena,
                         const weir_sql_source *src, weir__diags *diags)
{
    weir_error err;
    weir_sql_span *spans;
    size_t n_spans;
    *out = NULL;
    *n_out = 0;
    weir__error_clear(&err);
    int rc = weir__sql_split(&spans, &n_spans, arena, src, &err);
    if (rc) {
        weir__diags_add(diags, &err);
        return rc == WEIR_ENOMEM ? rc : WEIR_ESQL;
    }
    weir_sql_stmt *stmts = weir__arena_array(arena, n_spans ? n_spans : 1,
                                             sizeof(*stmts));
    if (!stmts)
        return WEIR_ENOMEM;
    size_t n = 0;
    bool failed = false;
    for (size_t i = 0; i < n_spans; i++) {
        sql_ddl d;
        memset(&d, 0, sizeof(d));
        weir__error_clear(&err);
        weir_sql_stmt *s = &stmts[n];
        memset(s, 0, sizeof(*s));
        d.s = s;
        s->offset = spans[i].offset;
        s->len = spans[i].len;
        s->src = src;
        rc = weir__sql_parser_init(&d.p, arena, src, spans[i].offset,
                                   spans[i].len, &err);
        if (!rc)
            rc = parse_statement(&d);
        if (!rc)
            rc = weir__sql_raise_deferred(&d.p);
        if (rc == WEIR_ENOMEM || weir__arena_failed(arena))
            return WEIR_ENOMEM;
        if (rc) {
            if (!err.code)
                WEIR_ERR(&err, WEIR_ESQL, "PARSE_SYNTAX_ERROR", "Syntax error");
            if (weir__diags_add(diags, &err))
                return WEIR_ENOMEM;
            failed = true;
            continue;
        }
        n++;
    }
    *out = n ? stmts : NULL;
    *n_out = n;
    return failed ? WEIR_ESQL : 0;
}
