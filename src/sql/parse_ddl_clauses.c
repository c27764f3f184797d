/*
 * The parts of pipeline statements (parse_ddl.h): property lists
 * (TBLPROPERTIES, OPTIONS) with Spark's checks of their keys, column
 * definitions with their comments and expectations (CONSTRAINT name
 * EXPECT (..) ON VIOLATION ..; other column constraints are refused as
 * Spark refuses them), and the clauses of CREATE MATERIALIZED VIEW /
 * STREAMING TABLE and of views, with Spark's wording for those a pipeline
 * dataset cannot take (LOCATION, bucketing, STORED AS, SerDe).
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include "parse_ddl.h"
#include "util/str.h"

#define NOT_ALLOWED "_LEGACY_ERROR_TEMP_0035"

static int not_allowed(sql_ddl *d, const sql_token *at, const char *msg)
{
    return weir__sql_error_tok(&d->p, at, WEIR_ESQL, NOT_ALLOWED,
                               "Operation not allowed: %s", msg);
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
static int prop_key(sql_ddl *d, const char **out)
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
    return *out ? 0 : weir__sql_ddl_oom(d);
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
static int prop_value(sql_ddl *d, const char **out)
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
static int prop_checks(sql_ddl *d, const weir_sql_property *items, size_t n,
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
    return weir__arena_failed(p->arena) ? weir__sql_ddl_oom(d) : 0;
}

int weir__sql_ddl_prop_list(sql_ddl *d, weir_sql_property **out, size_t *n,
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
            return weir__sql_ddl_oom(d);
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

static int expectation(sql_ddl *d, const sql_token *at)
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
    weir_sql_constraint *arr = weir__arena_array(p->arena, s->n_constraints + 1,
                                                 sizeof(*arr));
    if (!arr)
        return weir__sql_ddl_oom(d);
    if (s->n_constraints)
        memcpy(arr, s->constraints, s->n_constraints * sizeof(*arr));
    weir_sql_constraint *c = &arr[s->n_constraints];
    memset(c, 0, sizeof(*c));
    c->name = name;
    c->condition = cond;
    c->condition_text = weir__arena_strndup(p->arena, p->src->text + cond->pos.offset,
                                            cend - cond->pos.offset);
    if (!c->condition_text)
        return weir__sql_ddl_oom(d);
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

int weir__sql_ddl_column_def(sql_ddl *d, bool typed)
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
        return weir__sql_ddl_oom(d);
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
            return weir__sql_ddl_oom(d);
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
int weir__sql_ddl_column_list(sql_ddl *d, bool typed)
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
            rc = weir__sql_ddl_column_def(d, typed);
        }
        if (rc)
            return rc;
    } while (weir__sql_accept_op(p, ","));
    return weir__sql_expect_op(p, ")");
}

static int col_names(sql_ddl *d, const char ***out, size_t *n)
{
    return weir__sql_ident_list(out, n, &d->p);
}

/* Clauses of CREATE MATERIALIZED VIEW / STREAMING TABLE, any order. */
int weir__sql_ddl_clauses(sql_ddl *d, bool view)
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
            if ((rc = weir__sql_ddl_prop_list(d, &s->properties, &s->n_properties, true)))
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
            int bad = weir__sql_ddl_prop_list(d, &s->options, &s->n_options, false);
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
