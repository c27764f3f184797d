/*
 * Spark's auto-generated column names (toPrettySQL over usePrettyExpression):
 * what an unaliased select item is called, e.g. count(1), sum(amount),
 * (a + 1), upper(name), CAST(x + 1 AS INT), `a LIKE b%`. Literals print as
 * their values (a string literal by its text; pretty_lit.c), attributes by
 * their names without the relation that qualifies them, lambda variables as
 * namedlambdavariable(), function calls as the expression Spark builds for
 * them (pretty_fn.c), and a cast of a column keeps the column's name. This
 * is the one rule for generated names, in SQL files and in DataFrames alike
 * (a DataFrame's columns are SQL text by then).
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

#define pretty weir__sql_pretty_expr

/* Spark's DataType.sql: ARRAY<INT>, MAP<STRING, INT>, STRUCT<a: INT>. */
static void upper_type(weir_buf *out, const weir_sql_type *t)
{
    switch (t->kind) {
    case TY_ARRAY:
        weir__buf_puts(out, "ARRAY<");
        upper_type(out, t->elem);
        weir__buf_putc(out, '>');
        return;
    case TY_MAP:
        weir__buf_puts(out, "MAP<");
        upper_type(out, t->elem);
        weir__buf_puts(out, ", ");
        upper_type(out, t->value);
        weir__buf_putc(out, '>');
        return;
    case TY_STRUCT:
        weir__buf_puts(out, "STRUCT<");
        for (size_t i = 0; i < t->n_fields; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            weir__buf_printf(out, "%s: ", t->fields[i].name);
            upper_type(out, t->fields[i].type);
        }
        weir__buf_putc(out, '>');
        return;
    default: {
        weir_buf tmp = WEIR_BUF_INIT;
        weir__sql_type_to_spark(&tmp, t);
        for (const char *p = weir__buf_cstr(&tmp); *p; p++)
            weir__buf_putc(out, (char)toupper((unsigned char)*p));
        weir__buf_free(&tmp);
    }
    }
}

/* Whether column e names a parameter of an enclosing lambda. */
static bool lambda_var(const sql_pretty *c, const weir_sql_expr *e)
{
    if (e->n_names != 1)
        return false;
    for (; c; c = c->up)
        for (size_t i = 0; i < c->n_lambda; i++)
            if (weir__str_ieq(c->lambda[i], e->names[0]))
                return true;
    return false;
}

/* Whether e is a column of a relation (not a struct field, not a lambda
 * variable): Spark names a cast of it after it. */
static bool is_attribute(const sql_pretty *c, const weir_sql_expr *e)
{
    if (e->kind != EX_COLUMN || lambda_var(c, e))
        return false;
    return e->n_names == 1 ||
           (e->n_names == 2 && c && c->from && weir__sql_tx_is_relation(c->from, e->names[0]));
}

static void args(weir_buf *out, const weir_sql_expr *e, int depth,
                 const sql_pretty *c)
{
    for (size_t i = 0; i < e->n; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        pretty(out, e->list[i], depth, c);
    }
}

void weir__sql_pretty_window(weir_buf *out, const weir_sql_expr *e, int depth,
                             const sql_pretty *c)
{
    const sql_window *w = e->over;
    weir__buf_puts(out, " OVER (");
    if (w->ref && !w->n_partition && !w->n_order && !w->frame) {
        weir__buf_puts(out, w->ref);
        weir__buf_putc(out, ')');
        return;
    }
    bool sp = false;
    if (w->n_partition) {
        weir__buf_puts(out, "PARTITION BY ");
        for (size_t i = 0; i < w->n_partition; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            pretty(out, w->partition[i], depth, c);
        }
        sp = true;
    }
    if (w->n_order) {
        weir__buf_puts(out, sp ? " ORDER BY " : "ORDER BY ");
        for (size_t i = 0; i < w->n_order; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            pretty(out, w->order[i].e, depth, c);
            bool desc = w->order[i].dir == 2;
            int nulls = w->order[i].nulls ? w->order[i].nulls : (desc ? 2 : 1);
            weir__buf_puts(out, desc ? " DESC" : " ASC");
            weir__buf_puts(out, nulls == 1 ? " NULLS FIRST" : " NULLS LAST");
        }
        sp = true;
    }
    weir__buf_puts(out, sp ? " " : "");
    static const char *const RANKING[] = { "row_number", "rank", "dense_rank",
                                           "percent_rank", "ntile",
                                           "lag", "lead", NULL };
    bool ranking = false;
    for (int i = 0; RANKING[i]; i++)
        if (weir__str_ieq(e->name, RANKING[i]))
            ranking = true;
    if (w->frame) {
        weir__buf_puts(out, w->frame == 1 ? "ROWS BETWEEN " : "RANGE BETWEEN ");
        const sql_bound *b[2] = { &w->start, &w->end };
        for (int k = 0; k < 2; k++) {
            if (k)
                weir__buf_puts(out, " AND ");
            const sql_bound *bd = b[k];
            int kind = bd->kind ? bd->kind : 3;
            if (kind == 2 || kind == 4) {
                pretty(out, bd->n, depth, c);
                weir__buf_puts(out, kind == 2 ? " PRECEDING" : " FOLLOWING");
            } else {
                weir__buf_puts(out, kind == 1   ? "UNBOUNDED PRECEDING"
                                    : kind == 3 ? "CURRENT ROW"
                                                : "UNBOUNDED FOLLOWING");
            }
        }
    } else if (weir__str_ieq(e->name, "lag") || weir__str_ieq(e->name, "lead")) {
        /* lag/lead print their offset frame. */
        const char *off = e->n >= 2 && e->list[1]->kind == EX_LIT
                              ? e->list[1]->text
                              : "1";
        bool lag = weir__str_ieq(e->name, "lag");
        weir__buf_printf(out, "ROWS BETWEEN %s%s %s AND %s%s %s",
                         lag ? "-" : "", off, lag ? "FOLLOWING" : "FOLLOWING",
                         lag ? "-" : "", off, "FOLLOWING");
    } else if (w->n_order) {
        weir__buf_puts(out, ranking ? "ROWS BETWEEN UNBOUNDED PRECEDING AND "
                                      "CURRENT ROW"
                                    : "RANGE BETWEEN UNBOUNDED PRECEDING AND "
                                      "CURRENT ROW");
    } else {
        weir__buf_puts(out, "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED "
                            "FOLLOWING");
    }
    weir__buf_putc(out, ')');
}

static void binop(weir_buf *out, const weir_sql_expr *e, int depth,
                  const sql_pretty *c)
{
    const char *op = e->op;
    if (strcmp(op, "||") == 0) {
        weir__buf_puts(out, "concat(");
        pretty(out, e->a, depth, c);
        weir__buf_puts(out, ", ");
        pretty(out, e->b, depth, c);
        weir__buf_putc(out, ')');
        return;
    }
    if (strcmp(op, "<>") == 0) {
        weir__buf_puts(out, "(NOT (");
        pretty(out, e->a, depth, c);
        weir__buf_puts(out, " = ");
        pretty(out, e->b, depth, c);
        weir__buf_puts(out, "))");
        return;
    }
    weir__buf_putc(out, '(');
    pretty(out, e->a, depth, c);
    weir__buf_printf(out, " %s ", op);
    pretty(out, e->b, depth, c);
    weir__buf_putc(out, ')');
}

void weir__sql_pretty_expr(weir_buf *out, const weir_sql_expr *e, int depth,
                           const sql_pretty *c)
{
    if (!e || depth > 4 * SQL_MAX_DEPTH)
        return;
    depth++;
    switch (e->kind) {
    case EX_COLUMN: {
        /* A resolved column prints as its name: a qualifier naming a
         * relation of the FROM (t.a, or _pN.a from a DataFrame) is not
         * part of it; struct fields are (s.x). */
        if (lambda_var(c, e)) {
            weir__buf_puts(out, "namedlambdavariable()");
            break;
        }
        size_t first = 0;
        if (e->n_names >= 2 && c && c->from &&
            weir__sql_tx_is_relation(c->from, e->names[0]))
            first = 1;
        /* A join side's row a DataFrame carries through a derived table
         * (src/connect: weir__plan_query_wrap_sides) is a qualifier too. */
        while (first + 1 < e->n_names && strncmp(e->names[first], "__weir_s", 8) == 0)
            first++;
        for (size_t i = first; i < e->n_names; i++) {
            if (i > first)
                weir__buf_putc(out, '.');
            weir__buf_puts(out, e->names[i]);
        }
        break;
    }
    case EX_STAR: weir__buf_putc(out, '*'); break;
    case EX_LIT: weir__sql_pretty_lit(out, e); break;
    case EX_UNARY:
        if (strcmp(e->op, "NOT") == 0) {
            weir__buf_puts(out, "(NOT ");
            pretty(out, e->a, depth, c);
            weir__buf_putc(out, ')');
        } else if (strcmp(e->op, "~") == 0) {
            weir__buf_putc(out, '~');
            pretty(out, e->a, depth, c);
        } else {
            weir__buf_printf(out, "(%s ", e->op);
            pretty(out, e->a, depth, c);
            weir__buf_putc(out, ')');
        }
        break;
    case EX_BINARY: binop(out, e, depth, c); break;
    case EX_FUNC: weir__sql_pretty_call(out, e, depth, c); break;
    case EX_CASE:
        /* CASE x WHEN v ...: Spark's CASE WHEN (x = v) ... */
        weir__buf_puts(out, "CASE");
        for (size_t i = 0; i + 1 < e->n; i += 2) {
            weir__buf_puts(out, e->a ? " WHEN (" : " WHEN ");
            if (e->a) {
                pretty(out, e->a, depth, c);
                weir__buf_puts(out, " = ");
            }
            pretty(out, e->list[i], depth, c);
            weir__buf_puts(out, e->a ? ") THEN " : " THEN ");
            pretty(out, e->list[i + 1], depth, c);
        }
        if (e->b) {
            weir__buf_puts(out, " ELSE ");
            pretty(out, e->b, depth, c);
        }
        weir__buf_puts(out, " END");
        break;
    case EX_CAST:
        /* a select item that is a cast of a column is named after the
         * column (Spark's ResolveAliases); inside an expression the cast
         * shows (count(CAST(x AS STRING))) */
        if (depth == 1 && is_attribute(c, e->a)) {
            weir__buf_puts(out, e->a->names[e->a->n_names - 1]);
            break;
        }
        weir__buf_puts(out, e->flag ? "TRY_CAST(" : "CAST(");
        pretty(out, e->a, depth, c);
        weir__buf_puts(out, " AS ");
        upper_type(out, e->type);
        weir__buf_putc(out, ')');
        break;
    case EX_IN:
        if (e->negated)
            weir__buf_puts(out, "(NOT ");
        weir__buf_putc(out, '(');
        pretty(out, e->a, depth, c);
        if (e->query) {
            weir__buf_puts(out, " IN (listquery()))");
        } else {
            weir__buf_puts(out, " IN (");
            args(out, e, depth, c);
            weir__buf_puts(out, "))");
        }
        if (e->negated)
            weir__buf_putc(out, ')');
        break;
    case EX_EXISTS: weir__buf_puts(out, "exists()"); break;
    case EX_SUBQUERY: weir__buf_puts(out, "scalarsubquery()"); break;
    case EX_BETWEEN: /* Spark 4: between(x, lo, hi) */
        if (e->negated)
            weir__buf_puts(out, "(NOT ");
        weir__buf_puts(out, "between(");
        pretty(out, e->a, depth, c);
        weir__buf_puts(out, ", ");
        pretty(out, e->b, depth, c);
        weir__buf_puts(out, ", ");
        pretty(out, e->c, depth, c);
        weir__buf_putc(out, ')');
        if (e->negated)
            weir__buf_putc(out, ')');
        break;
    case EX_LIKE:
        if (e->negated)
            weir__buf_puts(out, "(NOT ");
        if (e->op[0] == 'R' || e->op[0] == 'I') {
            weir__buf_puts(out, e->op[0] == 'R' ? "RLIKE(" : "ilike(");
            pretty(out, e->a, depth, c);
            weir__buf_puts(out, ", ");
            pretty(out, e->b, depth, c);
            weir__buf_putc(out, ')');
        } else if (e->b) {
            pretty(out, e->a, depth, c);
            weir__buf_puts(out, " LIKE ");
            pretty(out, e->b, depth, c);
            if (e->c) {
                weir__buf_puts(out, " ESCAPE '");
                pretty(out, e->c, depth, c);
                weir__buf_putc(out, '\'');
            }
        } else {
            pretty(out, e->a, depth, c);
            weir__buf_printf(out, " LIKE %s (", e->quant);
            args(out, e, depth, c);
            weir__buf_putc(out, ')');
        }
        if (e->negated)
            weir__buf_putc(out, ')');
        break;
    case EX_IS:
        if (strcmp(e->op, "DISTINCT") == 0) {
            weir__buf_puts(out, e->negated ? "(" : "(NOT (");
            pretty(out, e->a, depth, c);
            weir__buf_puts(out, " <=> ");
            pretty(out, e->b, depth, c);
            weir__buf_puts(out, e->negated ? ")" : "))");
        } else if (strcmp(e->op, "TRUE") == 0 || strcmp(e->op, "FALSE") == 0) {
            /* x IS TRUE is (x <=> true) */
            weir__buf_puts(out, e->negated ? "(NOT (" : "(");
            pretty(out, e->a, depth, c);
            weir__buf_printf(out, " <=> %s)", e->op[0] == 'T' ? "true" : "false");
            if (e->negated)
                weir__buf_putc(out, ')');
        } else {
            weir__buf_putc(out, '(');
            pretty(out, e->a, depth, c);
            weir__buf_puts(out, e->negated ? " IS NOT NULL)" : " IS NULL)");
        }
        break;
    case EX_LAMBDA: {
        sql_pretty inner = { 0 };
        if (c)
            inner = *c;
        inner.lambda = (const char *const *)e->names;
        inner.n_lambda = e->n_names;
        inner.up = c;
        weir__buf_puts(out, "lambdafunction(");
        pretty(out, e->a, depth, &inner);
        for (size_t i = 0; i < e->n_names; i++)
            weir__buf_puts(out, ", namedlambdavariable()");
        weir__buf_putc(out, ')');
        break;
    }
    case EX_SUBSCRIPT:
        pretty(out, e->a, depth, c);
        if (e->b->kind == EX_LIT && e->b->lit == LIT_STRING && c && c->is_struct &&
            c->is_struct(c->ctx, e->a)) {
            weir__buf_printf(out, ".%s", e->b->text); /* a struct's field */
            break;
        }
        weir__buf_putc(out, '[');
        pretty(out, e->b, depth, c);
        weir__buf_putc(out, ']');
        break;
    case EX_FIELD:
        pretty(out, e->a, depth, c);
        weir__buf_printf(out, ".%s", e->name);
        break;
    case EX_INTERVAL: weir__sql_pretty_interval(out, e); break;
    case EX_TUPLE:
        weir__buf_puts(out, "named_struct(");
        for (size_t i = 0; i < e->n; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            /* (a, b + 1): a struct whose fields are named after the
             * columns, colN otherwise */
            const weir_sql_expr *f = e->list[i];
            if (f->kind == EX_COLUMN)
                weir__buf_printf(out, "%s, ", f->names[f->n_names - 1]);
            else
                weir__buf_printf(out, "col%zu, ", i + 1);
            pretty(out, f, depth, c);
        }
        weir__buf_putc(out, ')');
        break;
    case EX_EXTRACT:
        weir__buf_printf(out, "extract(%s FROM ", e->name);
        pretty(out, e->a, depth, c);
        weir__buf_putc(out, ')');
        break;
    case EX_TRIM:
        if (e->b) { /* TRIM(BOTH x FROM s) */
            weir__buf_printf(out, "TRIM(%s ", e->op);
            pretty(out, e->b, depth, c);
            weir__buf_puts(out, " FROM ");
            pretty(out, e->a, depth, c);
            weir__buf_putc(out, ')');
            break;
        }
        weir__buf_puts(out, strcmp(e->op, "LEADING") == 0    ? "ltrim("
                            : strcmp(e->op, "TRAILING") == 0 ? "rtrim("
                                                             : "trim(");
        pretty(out, e->a, depth, c);
        weir__buf_putc(out, ')');
        break;
    case EX_POSITION:
        weir__buf_puts(out, "locate(");
        pretty(out, e->a, depth, c);
        weir__buf_puts(out, ", ");
        pretty(out, e->b, depth, c);
        weir__buf_puts(out, ", 1)");
        break;
    }
}

void weir__sql_pretty(weir_buf *out, const weir_sql_expr *e, const sql_rel *from)
{
    sql_pretty c = { from, NULL, 0, NULL, NULL, NULL };
    pretty(out, e, 0, &c);
}

static bool tx_is_struct(void *ctx, const weir_sql_expr *e)
{
    return weir__sql_tx_is_struct(ctx, e);
}

void weir__sql_tx_pretty(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    sql_pretty c = { weir__sql_tx_from(t), NULL, 0, NULL, tx_is_struct, t };
    pretty(out, e, 0, &c);
}

/* The name Spark gives select item it of a SELECT over from. */
static void item_name(weir_buf *out, const sql_item *it, const sql_rel *from)
{
    const weir_sql_expr *e = it->e;
    if (it->alias)
        weir__buf_puts(out, it->alias);
    else if (e->kind == EX_STAR)
        weir__buf_putc(out, '*');
    else if (e->kind == EX_FUNC && !e->over && weir__sql_is_generator(e->name))
        weir__buf_putc(out, '?');
    else if (e->kind == EX_COLUMN)
        weir__buf_puts(out, e->names[e->n_names - 1]);
    else
        weir__sql_pretty(out, e, from);
}

void weir__sql_query_names(const weir_sql_query *q, weir_buf *out)
{
    while (q && q->kind == Q_SETOP)
        q = q->left;
    if (!q || q->kind != Q_SELECT || !q->sel)
        return;
    for (size_t i = 0; i < q->sel->n_items; i++) {
        if (i)
            weir__buf_putc(out, '\n');
        item_name(out, &q->sel->items[i], q->sel->from);
    }
}

bool weir__sql_query_unaliased(const weir_sql_query *q, weir_buf *name,
                               weir_sql_pos *pos)
{
    /* A set operation's columns are its first branch's. */
    while (q && q->kind == Q_SETOP)
        q = q->left;
    if (!q || q->kind != Q_SELECT || !q->sel)
        return false;
    for (size_t i = 0; i < q->sel->n_items; i++) {
        const sql_item *it = &q->sel->items[i];
        const weir_sql_expr *e = it->e;
        if (!e || it->alias || it->n_aliases || e->kind == EX_COLUMN ||
            e->kind == EX_STAR ||
            (e->kind == EX_FUNC && weir__sql_is_generator(e->name)))
            continue;
        weir__sql_pretty(name, e, q->sel->from);
        *pos = it->pos;
        return true;
    }
    return false;
}
