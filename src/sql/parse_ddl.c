/*
 * Pipeline statements of a .sql file (spark-sdp.md §4.2): CREATE
 * MATERIALIZED VIEW / STREAMING TABLE (and the Databricks LIVE TABLE
 * spellings), CREATE VIEW, CREATE TEMPORARY VIEW, CREATE FLOW ... INSERT
 * INTO ... BY NAME, AUTO CDC flows (CREATE FLOW ... AS AUTO CDC INTO,
 * CREATE STREAMING TABLE ... FLOW AUTO CDC, APPLY CHANGES INTO), CREATE
 * SINK, SET, USE. Each statement is parsed on its
 * own; a bad one adds one error (Spark's class and wording) and the file
 * goes on with the next.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include "util/str.h"

#define REG_ERROR "PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR"
#define NOT_ALLOWED "_LEGACY_ERROR_TEMP_0035"

typedef struct ddl {
    sql_parser p;
    weir_sql_stmt *s;
    const char *what; /* "MATERIALIZED VIEW", ... for messages */
} ddl;

static int oom(ddl *d)
{
    return WEIR_ERR(d->p.err, WEIR_ENOMEM, NULL, "out of memory");
}

static int not_allowed(ddl *d, const sql_token *at, const char *msg)
{
    return weir__sql_error_tok(&d->p, at, WEIR_ESQL, NOT_ALLOWED,
                               "Operation not allowed: %s", msg);
}

static int name_text(ddl *d, const weir_sql_name *n, const char **out)
{
    weir_buf b = WEIR_BUF_INIT;
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            weir__buf_putc(&b, '.');
        weir__buf_puts(&b, n->parts[i]);
    }
    *out = weir__arena_strdup(d->p.arena, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return *out ? 0 : oom(d);
}

/* Any number of parts: how many a dataset, sink or flow target may have is
 * a rule of the graph (src/graph), the same for every front end. */
static int dataset_name(ddl *d, weir_sql_name *out)
{
    int rc = weir__sql_parse_name(out, &d->p);
    if (!rc)
        weir__sql_strip_live(out);
    return rc;
}

/*
 * Property lists, as Spark's propertyList (TBLPROPERTIES, OPTIONS):
 * key [= | ==] [value], key a string literal or a dotted name of words
 * (any keyword, `quoted` parts), value a string (adjacent literals
 * concatenate), an unsigned integer or decimal, TRUE or FALSE. What
 * Spark's AST builder refuses once the statement parsed is deferred:
 * a repeated key (DUPLICATE_KEY, keys compared as written) and a key
 * without a value. A hyphenated key part (k-a) is INVALID_IDENTIFIER.
 */
static int prop_key(ddl *d, const char **out)
{
    sql_parser *p = &d->p;
    const sql_token *t = weir__sql_peek(p, 0);
    if (t->kind == TK_STRING) {
        /* One literal: in ('k' 'v') the value follows. */
        p->i++;
        *out = t->text;
        return 0;
    }
    weir_buf b = WEIR_BUF_INIT;
    for (;;) {
        const sql_token *w = weir__sql_peek(p, 0);
        const char *part = weir__sql_name_part(p);
        if (!part) {
            weir__buf_free(&b);
            return WEIR_ESQL;
        }
        weir__buf_puts(&b, part);
        /* k-a: Spark parses it, then refuses the unquoted identifier as
         * soon as the name ends (before a later syntax error). */
        if (weir__sql_is_op(p, 0, "-")) {
            while (weir__sql_accept_op(p, "-"))
                if (!weir__sql_name_part(p)) {
                    weir__buf_free(&b);
                    return WEIR_ESQL;
                }
            weir__buf_free(&b);
            int n = (int)(weir__sql_prev_end(p) - w->off);
            return weir__sql_error_tok(
                p, w, WEIR_ESQL, "INVALID_IDENTIFIER",
                "The unquoted identifier %.*s is invalid and must be back "
                "quoted as: `%.*s`. Unquoted identifiers can only contain "
                "ASCII letters ('a' - 'z', 'A' - 'Z'), digits ('0' - '9'), "
                "and underbar ('_'). Unquoted identifiers must also not start "
                "with a digit. Different data sources and meta stores may "
                "impose additional restrictions on unquoted identifiers.",
                n, p->src->text + w->off, n, p->src->text + w->off);
        }
        if (!weir__sql_accept_op(p, "."))
            break;
        weir__buf_putc(&b, '.');
    }
    *out = weir__arena_strdup(p->arena, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return *out ? 0 : oom(d);
}

/* An unsigned integer or decimal (Spark's INTEGER_VALUE, DECIMAL_VALUE). */
static bool plain_number(const char *s)
{
    bool digit = false, dot = false;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9')
            digit = true;
        else if (*s == '.' && !dot)
            dot = true;
        else
            return false;
    }
    return digit;
}

/* The value after a key; *out NULL when there is none. */
static int prop_value(ddl *d, const char **out)
{
    sql_parser *p = &d->p;
    const sql_token *t = weir__sql_peek(p, 0);
    bool eq = weir__sql_accept_op(p, "=") || weir__sql_accept_op(p, "==");
    t = weir__sql_peek(p, 0);
    *out = NULL;
    if (t->kind == TK_STRING) {
        *out = weir__sql_string(p);
        return *out ? 0 : WEIR_ESQL;
    }
    if (t->kind == TK_NUMBER && plain_number(t->text)) {
        p->i++;
        *out = t->text;
        return 0;
    }
    if (weir__sql_is_kw(p, 0, "TRUE") || weir__sql_is_kw(p, 0, "FALSE")) {
        p->i++;
        *out = weir__str_ieq(t->text, "TRUE") ? "true" : "false";
        return 0;
    }
    if (!eq && (weir__sql_is_op(p, 0, ",") || weir__sql_is_op(p, 0, ")")))
        return 0;
    return weir__sql_syntax_error(p);
}

/* `a`.`b` for the key a.b, as Spark prints a duplicate key. */
static void put_key_id(weir_buf *b, const char *key)
{
    weir__buf_putc(b, '`');
    for (const char *k = key; *k; k++) {
        if (*k == '.')
            weir__buf_puts(b, "`.`");
        else
            weir__buf_putc(b, *k);
    }
    weir__buf_putc(b, '`');
}

/* Spark's checks after parsing a list: repeated keys, missing values. */
static int prop_checks(ddl *d, const weir_sql_property *items, size_t n,
                       const sql_token *at, bool tblproperties)
{
    sql_parser *p = &d->p;
    weir_buf b = WEIR_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(items[i].key, items[j].key) == 0) {
                weir__buf_clear(&b);
                put_key_id(&b, items[i].key);
                weir__sql_defer_error(p, at, "DUPLICATE_KEY",
                                      "Found duplicate keys %s.",
                                      weir__buf_cstr(&b));
                i = j = n;
                break;
            }
    weir__buf_clear(&b);
    size_t missing = 0;
    for (size_t i = 0; i < n; i++)
        if (!items[i].value) {
            weir__buf_puts(&b, missing++ ? ", " : "");
            weir__buf_puts(&b, items[i].key);
            if (!tblproperties)
                break;
        }
    if (missing && tblproperties)
        weir__sql_defer_error(p, at, "_LEGACY_ERROR_TEMP_0035",
                              "Operation not allowed: Values must be "
                              "specified for key(s): [%s].",
                              weir__buf_cstr(&b));
    else if (missing)
        weir__sql_defer_error(p, at, "_LEGACY_ERROR_TEMP_0035",
                              "Operation not allowed: A value must be "
                              "specified for the key: %s.",
                              weir__buf_cstr(&b));
    weir__buf_free(&b);
    return weir__arena_failed(p->arena) ? oom(d) : 0;
}

static int prop_list(ddl *d, weir_sql_property **out, size_t *n,
                     bool tblproperties)
{
    sql_parser *p = &d->p;
    const sql_token *at = weir__sql_peek(p, 0);
    int rc = weir__sql_expect_op(p, "(");
    if (rc)
        return rc;
    size_t cap = 0;
    do {
        *out = weir__sql_grow(p->arena, *out, &cap, *n, sizeof(**out));
        if (!*out)
            return oom(d);
        weir_sql_property *pr = &(*out)[(*n)++];
        memset(pr, 0, sizeof(*pr));
        pr->pos = weir__sql_tok_pos(weir__sql_peek(p, 0));
        if ((rc = prop_key(d, &pr->key)) || (rc = prop_value(d, &pr->value)))
            return rc;
    } while (weir__sql_accept_op(p, ","));
    if ((rc = weir__sql_expect_op(p, ")")))
        return rc;
    return prop_checks(d, *out, *n, at, tblproperties);
}

static const char *const COLUMN_CONSTRAINTS[] = {
    "CHECK", "UNIQUE", "PRIMARY", "FOREIGN", "REFERENCES", NULL
};

static bool at_column_constraint(const sql_parser *p)
{
    for (int i = 0; COLUMN_CONSTRAINTS[i]; i++)
        if (weir__sql_is_kw(p, 0, COLUMN_CONSTRAINTS[i]))
            return true;
    return false;
}

/* The token at k ends a column definition's type (constraint INT, ..). */
static bool at_type_end(const sql_parser *p, size_t k)
{
    return weir__sql_is_op(p, k, ",") || weir__sql_is_op(p, k, ")") ||
           (weir__sql_is_op(p, k, "(") && /* DECIMAL(10, 2) */
            weir__sql_peek(p, k + 1)->kind == TK_NUMBER) ||
           weir__sql_is_op(p, k, "<") ||
           weir__sql_is_kw(p, k, "NOT") || weir__sql_is_kw(p, k, "COMMENT");
}

static const char *const CONSTRAINT_MSG =
    "Pipeline datasets do not currently support column constraints. Please "
    "remove any CHECK, UNIQUE, PK, and FK constraints specified on the "
    "pipeline dataset.";

static int expectation(ddl *d, const sql_token *at)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    const char *name = weir__sql_name_part(p);
    if (!name)
        return WEIR_ESQL;
    if (at_column_constraint(p))
        return not_allowed(d, weir__sql_peek(p, 0), CONSTRAINT_MSG);
    int rc;
    if ((rc = weir__sql_expect_kw(p, "EXPECT")) ||
        (rc = weir__sql_expect_op(p, "(")))
        return rc;
    weir_sql_expr *cond = weir__sql_expr(p);
    if (!cond)
        return WEIR_ESQL;
    unsigned cend = weir__sql_prev_end(p);
    if ((rc = weir__sql_expect_op(p, ")")))
        return rc;
    size_t cap = s->n_constraints; /* grow from the current size */
    weir_sql_constraint *arr = weir__arena_array(p->arena, s->n_constraints + 1,
                                                 sizeof(*arr));
    if (!arr)
        return oom(d);
    if (s->n_constraints)
        memcpy(arr, s->constraints, s->n_constraints * sizeof(*arr));
    (void)cap;
    weir_sql_constraint *c = &arr[s->n_constraints];
    memset(c, 0, sizeof(*c));
    c->name = name;
    c->condition = cond;
    c->condition_text = weir__arena_strndup(p->arena, p->src->text + cond->pos.offset,
                                            cend - cond->pos.offset);
    if (!c->condition_text)
        return oom(d);
    c->pos = weir__sql_tok_pos(at);
    if (weir__sql_is_kw(p, 0, "ON") && weir__sql_is_kw(p, 1, "VIOLATION")) {
        p->i += 2;
        if (weir__sql_is_kw(p, 0, "DROP") && weir__sql_is_kw(p, 1, "ROW")) {
            p->i += 2;
            c->action = WEIR_SQL_VIOLATION_DROP;
        } else if (weir__sql_is_kw(p, 0, "FAIL") &&
                   weir__sql_is_kw(p, 1, "UPDATE")) {
            p->i += 2;
            c->action = WEIR_SQL_VIOLATION_FAIL;
        } else if (weir__sql_accept_kw(p, "QUARANTINE")) {
            c->action = WEIR_SQL_VIOLATION_QUARANTINE;
        } else {
            return weir__sql_syntax_error(p);
        }
    }
    s->constraints = arr;
    s->n_constraints++;
    return 0;
}

static int column_def(ddl *d, bool typed)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    const sql_token *at = weir__sql_peek(p, 0);
    const char *name = weir__sql_name_part(p);
    if (!name)
        return WEIR_ESQL;
    weir_sql_column *arr = weir__arena_array(p->arena, s->n_columns + 1,
                                             sizeof(*arr));
    if (!arr)
        return oom(d);
    if (s->n_columns)
        memcpy(arr, s->columns, s->n_columns * sizeof(*arr));
    weir_sql_column *c = &arr[s->n_columns];
    memset(c, 0, sizeof(*c));
    c->name = name;
    c->pos = weir__sql_tok_pos(at);
    if (typed) {
        unsigned ts = weir__sql_peek(p, 0)->off;
        int rc = weir__sql_type(&c->type, p);
        if (rc)
            return rc;
        c->type_text = weir__arena_strndup(p->arena, p->src->text + ts,
                                           weir__sql_prev_end(p) - ts);
        if (!c->type_text)
            return oom(d);
    }
    for (;;) {
        if (weir__sql_is_kw(p, 0, "NOT") && weir__sql_is_kw(p, 1, "NULL")) {
            p->i += 2;
            c->not_null = true;
        } else if (weir__sql_accept_kw(p, "COMMENT")) {
            if (!(c->comment = weir__sql_string(p)))
                return WEIR_ESQL;
        } else if (at_column_constraint(p) ||
                   (weir__sql_is_kw(p, 0, "CONSTRAINT"))) {
            return not_allowed(d, weir__sql_peek(p, 0), CONSTRAINT_MSG);
        } else if (weir__sql_is_kw(p, 0, "GENERATED") ||
                   weir__sql_is_kw(p, 0, "DEFAULT") ||
                   weir__sql_is_kw(p, 0, "MASK")) {
            return weir__sql_error_tok(p, weir__sql_peek(p, 0), WEIR_ESQL,
                                       "UNSUPPORTED_SPARK_SQL",
                                       "Column %s clauses are not supported",
                                       weir__sql_peek(p, 0)->text);
        } else {
            break;
        }
    }
    s->columns = arr;
    s->n_columns++;
    return 0;
}

/* ( col defs and CONSTRAINTs ) */
static int column_list(ddl *d, bool typed)
{
    sql_parser *p = &d->p;
    int rc = weir__sql_expect_op(p, "(");
    if (rc)
        return rc;
    do {
        const sql_token *at = weir__sql_peek(p, 0);
        /* A keyword that names a column (constraint INT, check STRING)
         * is a column: a constraint has its name and EXPECT or CHECK ..
         * after CONSTRAINT, and ( or KEY after CHECK, PRIMARY, .. */
        if (weir__sql_is_kw(p, 0, "CONSTRAINT") && weir__sql_at_name(p, 1) &&
            !at_type_end(p, 2)) {
            p->i++;
            rc = expectation(d, at);
        } else if (at_column_constraint(p) &&
                   (weir__sql_is_op(p, 1, "(") || weir__sql_is_kw(p, 1, "KEY"))) {
            rc = not_allowed(d, at, CONSTRAINT_MSG);
        } else {
            rc = column_def(d, typed);
        }
        if (rc)
            return rc;
    } while (weir__sql_accept_op(p, ","));
    return weir__sql_expect_op(p, ")");
}

static int col_names(ddl *d, const char ***out, size_t *n)
{
    return weir__sql_ident_list(out, n, &d->p);
}

static int query_tail(ddl *d)
{
    sql_parser *p = &d->p;
    d->s->query = weir__sql_query(p);
    if (!d->s->query)
        return WEIR_ESQL;
    if (weir__sql_peek(p, 0)->kind != TK_EOF)
        return weir__sql_syntax_error(p);
    return 0;
}

/* Clauses of CREATE MATERIALIZED VIEW / STREAMING TABLE, any order. */
static int dataset_clauses(ddl *d, bool view)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    char msg[512];
    int rc;
    for (;;) {
        const sql_token *at = weir__sql_peek(p, 0);
        if (weir__sql_accept_kw(p, "USING") && !view) {
            const sql_token *t = weir__sql_peek(p, 0);
            if (t->kind != TK_IDENT && t->kind != TK_QIDENT && t->kind != TK_STRING)
                return weir__sql_syntax_error(p);
            s->format = t->text;
            p->i++;
        } else if (!view && weir__sql_is_kw(p, 0, "PARTITIONED") &&
                   weir__sql_is_kw(p, 1, "BY")) {
            p->i += 2;
            if ((rc = col_names(d, &s->partition_cols, &s->n_partition_cols)))
                return rc;
        } else if (!view && weir__sql_is_kw(p, 0, "CLUSTER") &&
                   weir__sql_is_kw(p, 1, "BY")) {
            p->i += 2;
            if ((rc = col_names(d, &s->cluster_cols, &s->n_cluster_cols)))
                return rc;
        } else if (weir__sql_accept_kw(p, "COMMENT")) {
            if (!(s->comment = weir__sql_string(p)))
                return WEIR_ESQL;
        } else if (weir__sql_accept_kw(p, "TBLPROPERTIES")) {
            if ((rc = prop_list(d, &s->properties, &s->n_properties, true)))
                return rc;
        } else if (!view && weir__sql_is_kw(p, 0, "DEFAULT") &&
                   weir__sql_is_kw(p, 1, "COLLATION")) {
            p->i += 2;
            if (!weir__sql_ident(p))
                return WEIR_ESQL;
        } else if (weir__sql_is_kw(p, 0, "LOCATION")) {
            snprintf(msg, sizeof(msg),
                     "Specifying location is not supported for CREATE %s "
                     "statements. The storage location for a pipeline dataset "
                     "is managed by the pipeline itself.",
                     d->what);
            return not_allowed(d, at, msg);
        } else if (weir__sql_accept_kw(p, "OPTIONS")) {
            /* Kept for the graph, which rejects options on anything but a
             * sink whatever defined them; a list that does not even parse
             * is rejected here, with the same words. */
            size_t back = p->i;
            bool had = p->has_deferred;
            int bad = prop_list(d, &s->options, &s->n_options, false);
            if (bad || (p->has_deferred && !had)) {
                p->has_deferred = had;
                p->i = back;
                snprintf(msg, sizeof(msg),
                         "Options are not supported for CREATE %s "
                         "statements. Please remove any OPTIONS lists "
                         "specified in the statement.",
                         d->what);
                return not_allowed(d, at, msg);
            }
        } else if (weir__sql_is_kw(p, 0, "CLUSTERED") &&
                   weir__sql_is_kw(p, 1, "BY")) {
            snprintf(msg, sizeof(msg),
                     "Bucketing is not supported for CREATE %s statements. "
                     "Please remove any bucket spec specified in the "
                     "statement.",
                     d->what);
            return not_allowed(d, at, msg);
        } else if (weir__sql_is_kw(p, 0, "STORED") && weir__sql_is_kw(p, 1, "AS")) {
            snprintf(msg, sizeof(msg),
                     "The STORED AS syntax is not supported for CREATE %s "
                     "statements. Consider using the Data Source based USING "
                     "clause instead.",
                     d->what);
            return not_allowed(d, at, msg);
        } else if (weir__sql_is_kw(p, 0, "ROW") && weir__sql_is_kw(p, 1, "FORMAT")) {
            snprintf(msg, sizeof(msg),
                     "Hive SerDe format options are not supported for CREATE "
                     "%s statements. Consider using the Data Source based "
                     "USING clause instead.",
                     d->what);
            return not_allowed(d, at, msg);
        } else {
            return 0;
        }
    }
}

/* ---- AUTO CDC ------------------------------------------------------------ */

/* ( name, ... ) or name, ... : column names, each as written (parts). */
static int cdc_names(ddl *d, weir_sql_name **out, size_t *n, bool allow_empty)
{
    sql_parser *p = &d->p;
    bool paren = weir__sql_accept_op(p, "(");
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    if (paren && allow_empty && weir__sql_accept_op(p, ")"))
        return 0;
    do {
        *out = weir__sql_grow(p->arena, *out, &cap, *n, sizeof(**out));
        if (!*out)
            return oom(d);
        int rc = weir__sql_parse_name(&(*out)[(*n)++], p);
        if (rc)
            return rc;
    } while (weir__sql_accept_op(p, ","));
    return paren ? weir__sql_expect_op(p, ")") : 0;
}

/* COLUMNS / TRACK HISTORY ON: ( list ) | list | * [EXCEPT ( list )] */
static int cdc_columns(ddl *d, weir_sql_cdc_columns *c, const sql_token *at,
                       bool star_alone)
{
    sql_parser *p = &d->p;
    if (c->set)
        return weir__sql_syntax_error(p);
    c->set = true;
    c->pos = weir__sql_tok_pos(at);
    if (weir__sql_accept_op(p, "*")) {
        if (!weir__sql_accept_kw(p, "EXCEPT"))
            return star_alone ? 0 : weir__sql_syntax_error(p);
        c->except = true;
    }
    return cdc_names(d, &c->cols, &c->n, false);
}

static int cdc_expr(ddl *d, const weir_sql_expr **out)
{
    if (*out)
        return weir__sql_syntax_error(&d->p);
    *out = weir__sql_expr(&d->p);
    return *out ? 0 : WEIR_ESQL;
}

/* The clauses after FROM source, in any order (Spark 4.2 and Databricks):
 * KEYS, IGNORE NULL UPDATES, APPLY AS DELETE|TRUNCATE WHEN, SEQUENCE BY,
 * COLUMNS, STORED AS SCD TYPE, TRACK HISTORY ON. What is missing or wrong
 * in them (no SEQUENCE BY, empty keys, ...) is the graph's to report. */
static int cdc_clauses(ddl *d, weir_sql_cdc *c)
{
    sql_parser *p = &d->p;
    bool keys = false;
    int rc = 0;
    while (!rc && weir__sql_peek(p, 0)->kind != TK_EOF) {
        const sql_token *at = weir__sql_peek(p, 0);
        if (!keys && weir__sql_accept_kw(p, "KEYS")) {
            keys = true;
            c->keys_pos = weir__sql_tok_pos(at);
            rc = cdc_names(d, &c->keys, &c->n_keys, true);
        } else if (!c->ignore_null_updates && weir__sql_is_kw(p, 0, "IGNORE") &&
                   weir__sql_is_kw(p, 1, "NULL") &&
                   weir__sql_is_kw(p, 2, "UPDATES")) {
            p->i += 3;
            c->ignore_null_updates = true;
        } else if (weir__sql_is_kw(p, 0, "APPLY") && weir__sql_is_kw(p, 1, "AS") &&
                   weir__sql_is_kw(p, 3, "WHEN") &&
                   (weir__sql_is_kw(p, 2, "DELETE") ||
                    weir__sql_is_kw(p, 2, "TRUNCATE"))) {
            bool del = weir__sql_is_kw(p, 2, "DELETE");
            p->i += 4;
            rc = cdc_expr(d, del ? &c->delete_when : &c->truncate_when);
        } else if (weir__sql_is_kw(p, 0, "SEQUENCE") && weir__sql_is_kw(p, 1, "BY")) {
            p->i += 2;
            rc = cdc_expr(d, &c->sequence_by);
        } else if (weir__sql_accept_kw(p, "COLUMNS")) {
            rc = cdc_columns(d, &c->columns, at, true);
        } else if (!c->scd_set && weir__sql_is_kw(p, 0, "STORED") &&
                   weir__sql_is_kw(p, 1, "AS") && weir__sql_is_kw(p, 2, "SCD") &&
                   weir__sql_is_kw(p, 3, "TYPE")) {
            p->i += 4;
            const sql_token *t = weir__sql_peek(p, 0);
            if (t->kind != TK_NUMBER ||
                (strcmp(t->text, "1") != 0 && strcmp(t->text, "2") != 0))
                return weir__sql_error_tok(p, t, WEIR_ESQL, "PARSE_SYNTAX_ERROR",
                                           "STORED AS SCD TYPE takes 1 or 2");
            p->i++;
            c->scd_type = t->text[0] - '0';
            c->scd_set = true;
        } else if (weir__sql_is_kw(p, 0, "TRACK") &&
                   weir__sql_is_kw(p, 1, "HISTORY") && weir__sql_is_kw(p, 2, "ON")) {
            p->i += 3;
            rc = cdc_columns(d, &c->track_history, at, false);
        } else {
            return weir__sql_syntax_error(p);
        }
    }
    return rc;
}

/* FROM source cdc clauses, to the end of the statement. The source is one
 * relation (STREAM(src), STREAM src, src); KEYS ends it, so that KEYS is
 * never taken for the source's alias. */
static int cdc_spec(ddl *d, const sql_token *at)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    weir_sql_cdc *c = weir__arena_alloc(p->arena, sizeof(*c));
    if (!c)
        return oom(d);
    memset(c, 0, sizeof(*c));
    c->scd_type = 1;
    c->pos = weir__sql_tok_pos(at);
    c->keys_pos = c->pos;
    int rc = weir__sql_expect_kw(p, "FROM");
    if (rc)
        return rc;
    size_t end = p->i, depth = 0;
    for (; end < p->n; end++) {
        const sql_token *t = &p->t[end];
        if (t->kind == TK_OP && !strcmp(t->text, "("))
            depth++;
        else if (t->kind == TK_OP && !strcmp(t->text, ")") && depth)
            depth--;
        else if (!depth && t->kind == TK_IDENT && end > p->i &&
                 weir__str_ieq(t->text, "KEYS"))
            break;
    }
    sql_token saved = p->t[end];
    p->t[end].kind = TK_EOF; /* the relation stops here */
    weir_sql_query *q = weir__sql_relation_query(p, NULL);
    bool at_end = q && p->i == end;
    p->t[end] = saved;
    if (!q)
        return WEIR_ESQL;
    if (!at_end)
        return weir__sql_syntax_error(p);
    s->query = q;
    if ((rc = cdc_clauses(d, c)))
        return rc;
    s->cdc = c;
    return 0;
}

static int create_dataset(ddl *d, weir_sql_stmt_kind kind)
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
    if (weir__sql_is_op(p, 0, "(") && (rc = column_list(d, true)))
        return rc;
    if ((rc = dataset_clauses(d, false)))
        return rc;
    if (kind == WEIR_SQL_CREATE_STREAMING_TABLE && weir__sql_is_kw(p, 0, "FLOW") &&
        weir__sql_is_kw(p, 1, "AUTO") && weir__sql_is_kw(p, 2, "CDC")) {
        const sql_token *at = weir__sql_peek(p, 1);
        if (s->n_columns)
            return weir__sql_error_tok(p, at, WEIR_ESQL, REG_ERROR,
                                       "Explicit column lists are not "
                                       "supported for AUTO CDC");
        p->i += 3;
        return cdc_spec(d, at);
    }
    if (weir__sql_accept_kw(p, "AS"))
        return query_tail(d);
    if (weir__sql_peek(p, 0)->kind != TK_EOF ||
        kind == WEIR_SQL_CREATE_MATERIALIZED_VIEW)
        return weir__sql_syntax_error(p);
    return 0;
}

static int create_view(ddl *d, bool temporary)
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
            if ((rc = column_def(d, false)))
                return rc;
        } while (weir__sql_accept_op(p, ","));
        if ((rc = weir__sql_expect_op(p, ")")))
            return rc;
    }
    if ((rc = dataset_clauses(d, true)))
        return rc;
    if ((rc = weir__sql_expect_kw(p, "AS")))
        return rc;
    return query_tail(d);
}

static int flow_error(ddl *d, const sql_token *at, const char *msg)
{
    return weir__sql_error_tok(&d->p, at, WEIR_ESQL, REG_ERROR, "%s", msg);
}

static int create_flow(ddl *d)
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
            if ((rc = prop_list(d, &s->options, &s->n_options, false)))
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
        return cdc_spec(d, body);
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

static int create_sink(ddl *d)
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
            if ((rc = prop_list(d, &s->options, &s->n_options, false)))
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

static int unsupported(ddl *d)
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
static const char *raw_text(ddl *d, size_t a, size_t b)
{
    sql_parser *p = &d->p;
    if (a >= b)
        return "";
    unsigned s = p->t[a].off, e = p->t[b - 1].off + p->t[b - 1].len;
    if (b - a == 1 && p->t[a].kind == TK_QIDENT)
        return p->t[a].text;
    return weir__arena_strndup(p->arena, p->src->text + s, e - s);
}

static int set_stmt(ddl *d, const sql_token *start)
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
                return oom(d);
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
        return oom(d);
    if (!*s->set_key)
        return weir__sql_error_tok(p, start, WEIR_ESQL, NULL,
                                   "Invalid SET command without key-value pair");
    p->i = p->n;
    return 0;
}

static int use_stmt(ddl *d)
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
static void databricks_create(ddl *d, const char *written, const char *spark)
{
    weir_sql_stmt *s = d->s;
    s->create_written = weir__arena_printf(d->p.arena, "CREATE %s%s%s",
                                           s->or_refresh ? "OR REFRESH " : "",
                                           s->is_private ? "PRIVATE " : "",
                                           written);
    s->create_spark = spark;
}

static int create_stmt(ddl *d)
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

static int parse_statement(ddl *d)
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
        return cdc_spec(d, t);
    }
    return unsupported(d);
}

int weir__sql_parse_cdc(const weir_sql_cdc **cdc, const weir_sql_query **query,
                        weir_arena *arena, const weir_sql_source *src,
                        size_t offset, size_t len, weir_error *err)
{
    ddl d;
    memset(&d, 0, sizeof(d));
    weir_sql_stmt s;
    memset(&s, 0, sizeof(s));
    d.s = &s;
    weir__error_clear(err);
    int rc = weir__sql_parser_init(&d.p, arena, src, offset, len, err);
    if (!rc)
        rc = cdc_spec(&d, weir__sql_peek(&d.p, 0));
    if (!rc && weir__arena_failed(arena))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc && !err->code)
        WEIR_ERR(err, WEIR_ESQL, "PARSE_SYNTAX_ERROR", "Syntax error");
    *cdc = rc ? NULL : s.cdc;
    *query = rc ? NULL : s.query;
    return rc;
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
        ddl d;
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
