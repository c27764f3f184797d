/*
 * Spark's auto-generated column names (toPrettySQL over usePrettyExpression):
 * what an unaliased select item is called, e.g. count(1), sum(amount),
 * (a + 1), upper(name), CAST(x + 1 AS INT), `a LIKE b%`. Literals print as
 * their values (a string literal by its text), attributes by their names,
 * and a cast of a column keeps the column's name.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

static void pretty(weir_buf *out, const weir_sql_expr *e, int depth);

static void lower_name(weir_buf *out, const char *s)
{
    for (; *s; s++)
        weir__buf_putc(out, (char)tolower((unsigned char)*s));
}

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

static void lit(weir_buf *out, const weir_sql_expr *e)
{
    switch (e->lit) {
    case LIT_NULL: weir__buf_puts(out, "NULL"); break;
    case LIT_STRING: weir__buf_puts(out, e->text); break;
    case LIT_DATE: weir__buf_printf(out, "DATE '%s'", e->text); break;
    case LIT_TIMESTAMP: weir__buf_printf(out, "TIMESTAMP '%s'", e->text); break;
    case LIT_TIMESTAMP_NTZ:
        weir__buf_printf(out, "TIMESTAMP_NTZ '%s'", e->text);
        break;
    case LIT_BINARY: weir__buf_printf(out, "X'%s'", e->text); break;
    case LIT_DOUBLE:
    case LIT_FLOAT: {
        /* Java prints doubles with a fraction: 1.0, 1000.0, 1.5. */
        const char *s = e->text;
        bool expo = strpbrk(s, "eE") != NULL;
        if (expo) {
            char *end;
            double v = strtod(s, &end);
            char tmp[64];
            if (v < 1e7 && v > -1e7 && v == (double)(long long)v)
                snprintf(tmp, sizeof(tmp), "%.1f", v);
            else
                snprintf(tmp, sizeof(tmp), "%g", v);
            weir__buf_puts(out, tmp);
        } else if (!strchr(s, '.')) {
            weir__buf_printf(out, "%s.0", s);
        } else {
            weir__buf_puts(out, s);
            if (s[strlen(s) - 1] == '.')
                weir__buf_putc(out, '0');
        }
        break;
    }
    default: weir__buf_puts(out, e->text); break;
    }
}

static void args(weir_buf *out, const weir_sql_expr *e, int depth)
{
    for (size_t i = 0; i < e->n; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        pretty(out, e->list[i], depth);
    }
}

static void window(weir_buf *out, const weir_sql_expr *e, int depth)
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
            pretty(out, w->partition[i], depth);
        }
        sp = true;
    }
    if (w->n_order) {
        weir__buf_puts(out, sp ? " ORDER BY " : "ORDER BY ");
        for (size_t i = 0; i < w->n_order; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            pretty(out, w->order[i].e, depth);
            bool desc = w->order[i].dir == 2;
            int nulls = w->order[i].nulls ? w->order[i].nulls : (desc ? 2 : 1);
            weir__buf_puts(out, desc ? " DESC" : " ASC");
            weir__buf_puts(out, nulls == 1 ? " NULLS FIRST" : " NULLS LAST");
        }
        sp = true;
    }
    weir__buf_puts(out, sp ? " " : "");
    static const char *const RANKING[] = { "row_number", "rank", "dense_rank",
                                           "percent_rank", "cume_dist", "ntile",
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
                pretty(out, bd->n, depth);
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

static void func(weir_buf *out, const weir_sql_expr *e, int depth)
{
    const char *name = e->name;
    if (weir__str_ieq(name, "count") && e->n == 1 && e->list[0]->kind == EX_STAR) {
        weir__buf_puts(out, "count(1)");
    } else if (weir__str_ieq(name, "if") || weir__str_ieq(name, "iff")) {
        weir__buf_puts(out, "(IF(");
        args(out, e, depth);
        weir__buf_puts(out, "))");
    } else if (e->n == 0 && (weir__str_ieq(name, "current_date") ||
                             weir__str_ieq(name, "current_timestamp") ||
                             weir__str_ieq(name, "current_user"))) {
        lower_name(out, name);
        weir__buf_puts(out, "()");
    } else {
        lower_name(out, name);
        weir__buf_putc(out, '(');
        if (e->distinct)
            weir__buf_puts(out, "DISTINCT ");
        args(out, e, depth);
        /* substr(s, p) is substr(s, p, 2147483647) in Spark's name. */
        if (e->n == 2 && (weir__str_ieq(name, "substr") ||
                          weir__str_ieq(name, "substring")))
            weir__buf_puts(out, ", 2147483647");
        weir__buf_putc(out, ')');
        if (e->ignore_nulls == 1)
            weir__buf_puts(out, " IGNORE NULLS");
    }
    if (e->filter) {
        weir__buf_puts(out, " FILTER (WHERE ");
        pretty(out, e->filter, depth);
        weir__buf_putc(out, ')');
    }
    if (e->over)
        window(out, e, depth);
}

static void binop(weir_buf *out, const weir_sql_expr *e, int depth)
{
    const char *op = e->op;
    if (strcmp(op, "||") == 0) {
        weir__buf_puts(out, "concat(");
        pretty(out, e->a, depth);
        weir__buf_puts(out, ", ");
        pretty(out, e->b, depth);
        weir__buf_putc(out, ')');
        return;
    }
    if (strcmp(op, "<>") == 0) {
        weir__buf_puts(out, "(NOT (");
        pretty(out, e->a, depth);
        weir__buf_puts(out, " = ");
        pretty(out, e->b, depth);
        weir__buf_puts(out, "))");
        return;
    }
    weir__buf_putc(out, '(');
    pretty(out, e->a, depth);
    weir__buf_printf(out, " %s ", op);
    pretty(out, e->b, depth);
    weir__buf_putc(out, ')');
}

static void pretty(weir_buf *out, const weir_sql_expr *e, int depth)
{
    if (!e || depth > 4 * SQL_MAX_DEPTH)
        return;
    depth++;
    switch (e->kind) {
    case EX_COLUMN:
        for (size_t i = 0; i < e->n_names; i++) {
            if (i)
                weir__buf_putc(out, '.');
            weir__buf_puts(out, e->names[i]);
        }
        break;
    case EX_STAR: weir__buf_putc(out, '*'); break;
    case EX_LIT: lit(out, e); break;
    case EX_UNARY:
        if (strcmp(e->op, "NOT") == 0) {
            weir__buf_puts(out, "(NOT ");
            pretty(out, e->a, depth);
            weir__buf_putc(out, ')');
        } else if (strcmp(e->op, "~") == 0) {
            weir__buf_putc(out, '~');
            pretty(out, e->a, depth);
        } else {
            weir__buf_printf(out, "(%s ", e->op);
            pretty(out, e->a, depth);
            weir__buf_putc(out, ')');
        }
        break;
    case EX_BINARY: binop(out, e, depth); break;
    case EX_FUNC: func(out, e, depth); break;
    case EX_CASE:
        weir__buf_puts(out, "CASE");
        if (e->a) {
            weir__buf_putc(out, ' ');
            pretty(out, e->a, depth);
        }
        for (size_t i = 0; i + 1 < e->n; i += 2) {
            weir__buf_puts(out, " WHEN ");
            pretty(out, e->list[i], depth);
            weir__buf_puts(out, " THEN ");
            pretty(out, e->list[i + 1], depth);
        }
        if (e->b) {
            weir__buf_puts(out, " ELSE ");
            pretty(out, e->b, depth);
        }
        weir__buf_puts(out, " END");
        break;
    case EX_CAST:
        /* a select item that is a cast of a column is named after the
         * column (Spark's ResolveAliases); inside an expression the cast
         * shows (count(CAST(x AS STRING))) */
        if (depth == 1 && e->a->kind == EX_COLUMN && !e->flag) {
            weir__buf_puts(out, e->a->names[e->a->n_names - 1]);
            break;
        }
        weir__buf_puts(out, e->flag ? "TRY_CAST(" : "CAST(");
        pretty(out, e->a, depth);
        weir__buf_puts(out, " AS ");
        upper_type(out, e->type);
        weir__buf_putc(out, ')');
        break;
    case EX_IN:
        if (e->negated)
            weir__buf_puts(out, "(NOT ");
        weir__buf_putc(out, '(');
        pretty(out, e->a, depth);
        if (e->query) {
            weir__buf_puts(out, " IN (listquery()))");
        } else {
            weir__buf_puts(out, " IN (");
            args(out, e, depth);
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
        pretty(out, e->a, depth);
        weir__buf_puts(out, ", ");
        pretty(out, e->b, depth);
        weir__buf_puts(out, ", ");
        pretty(out, e->c, depth);
        weir__buf_putc(out, ')');
        if (e->negated)
            weir__buf_putc(out, ')');
        break;
    case EX_LIKE:
        if (e->negated)
            weir__buf_puts(out, "(NOT ");
        if (e->op[0] == 'R' || e->op[0] == 'I') {
            weir__buf_puts(out, e->op[0] == 'R' ? "RLIKE(" : "ilike(");
            pretty(out, e->a, depth);
            weir__buf_puts(out, ", ");
            pretty(out, e->b, depth);
            weir__buf_putc(out, ')');
        } else if (e->b) {
            pretty(out, e->a, depth);
            weir__buf_puts(out, " LIKE ");
            pretty(out, e->b, depth);
        } else {
            pretty(out, e->a, depth);
            weir__buf_printf(out, " LIKE %s (", e->quant);
            args(out, e, depth);
            weir__buf_putc(out, ')');
        }
        if (e->negated)
            weir__buf_putc(out, ')');
        break;
    case EX_IS:
        if (strcmp(e->op, "DISTINCT") == 0) {
            weir__buf_puts(out, e->negated ? "(" : "(NOT (");
            pretty(out, e->a, depth);
            weir__buf_puts(out, " <=> ");
            pretty(out, e->b, depth);
            weir__buf_puts(out, e->negated ? ")" : "))");
        } else {
            weir__buf_putc(out, '(');
            pretty(out, e->a, depth);
            weir__buf_printf(out, e->negated ? " IS NOT %s)" : " IS %s)", e->op);
        }
        break;
    case EX_LAMBDA:
        weir__buf_puts(out, "lambdafunction(");
        pretty(out, e->a, depth);
        for (size_t i = 0; i < e->n_names; i++)
            weir__buf_printf(out, ", %s", e->names[i]);
        weir__buf_putc(out, ')');
        break;
    case EX_SUBSCRIPT:
        pretty(out, e->a, depth);
        weir__buf_putc(out, '[');
        pretty(out, e->b, depth);
        weir__buf_putc(out, ']');
        break;
    case EX_FIELD:
        pretty(out, e->a, depth);
        weir__buf_printf(out, ".%s", e->name);
        break;
    case EX_INTERVAL:
        weir__buf_puts(out, "INTERVAL ");
        for (size_t i = 0; i < e->n; i++) {
            if (i)
                weir__buf_putc(out, ' ');
            weir__buf_printf(out, "'%s'", e->list[i]->text);
            if (e->names[i])
                weir__buf_printf(out, " %s", e->names[i]);
        }
        if (e->op)
            weir__buf_printf(out, " %s", e->op);
        break;
    case EX_TUPLE:
        weir__buf_puts(out, "named_struct(");
        for (size_t i = 0; i < e->n; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            weir__buf_printf(out, "col%zu, ", i + 1);
            pretty(out, e->list[i], depth);
        }
        weir__buf_putc(out, ')');
        break;
    case EX_EXTRACT:
        weir__buf_printf(out, "extract(%s FROM ", e->name);
        pretty(out, e->a, depth);
        weir__buf_putc(out, ')');
        break;
    case EX_TRIM:
        weir__buf_puts(out, strcmp(e->op, "LEADING") == 0    ? "ltrim("
                            : strcmp(e->op, "TRAILING") == 0 ? "rtrim("
                                                             : "trim(");
        pretty(out, e->a, depth);
        if (e->b) {
            weir__buf_puts(out, ", ");
            pretty(out, e->b, depth);
        }
        weir__buf_putc(out, ')');
        break;
    case EX_POSITION:
        weir__buf_puts(out, "locate(");
        pretty(out, e->a, depth);
        weir__buf_puts(out, ", ");
        pretty(out, e->b, depth);
        weir__buf_puts(out, ", 1)");
        break;
    }
}

void weir__sql_pretty(weir_buf *out, const weir_sql_expr *e)
{
    pretty(out, e, 0);
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
        weir__sql_pretty(name, e);
        *pos = it->pos;
        return true;
    }
    return false;
}
