/*
 * Session windows (Spark's session_window(ts, gap)): the translation of
 * the function and of the rows a SELECT grouped by one reads. A row's own
 * window is [ts, ts + gap) (gap a string or interval, per row when it is
 * not a literal); a row without a time or whose window is empty (gap <=
 * 0) is dropped. Grouped, the rows of a group (the other GROUP BY keys)
 * ordered by time form one session while each starts at or before the
 * latest end so far (Spark's MergingSessionsIterator): the session is
 * [its first start, its latest end). The FROM of such a SELECT becomes a
 * derived table under the relation's own name that adds the row's session
 * as __weir_session, which the session_window() calls of the SELECT read.
 */
#include "internal.h"
#include "functions.h"

#include <stdlib.h>
#include <string.h>

#include "util/str.h"

static bool is_call(const weir_sql_expr *e, const char *name)
{
    return e && e->kind == EX_FUNC && !e->over && e->name &&
           weir__str_ieq(e->name, name);
}

static bool is_session_call(const weir_sql_expr *e)
{
    return is_call(e, "session_window");
}

/* The GROUP BY key at k: an ordinal or a select item's alias stand for
 * the item. */
static const weir_sql_expr *group_key(const sql_select *s, const weir_sql_expr *k)
{
    if (k->kind == EX_LIT && k->lit == LIT_INT && k->text) {
        long n = strtol(k->text, NULL, 10);
        if (n >= 1 && (size_t)n <= s->n_items)
            return s->items[n - 1].e;
    }
    if (k->kind == EX_COLUMN && k->n_names == 1)
        for (size_t i = 0; i < s->n_items; i++)
            if (s->items[i].alias && weir__str_ieq(s->items[i].alias, k->names[0]) &&
                is_session_call(s->items[i].e))
                return s->items[i].e;
    return k;
}

const weir_sql_expr *weir__sql_grouped_session(const sql_select *s)
{
    if (s->group != GB_EXPRS)
        return NULL;
    for (size_t i = 0; i < s->n_group_by; i++) {
        const weir_sql_expr *k = group_key(s, s->group_by[i]);
        if (is_session_call(k))
            return k;
    }
    return NULL;
}

/* The call of function name in e outside subqueries, if any. */
static const weir_sql_expr *call_in(const weir_sql_expr *e, const char *name,
                                    int depth)
{
    if (!e || depth > 4 * SQL_MAX_DEPTH || e->kind == EX_SUBQUERY ||
        e->kind == EX_EXISTS)
        return NULL;
    if (is_call(e, name))
        return e;
    const weir_sql_expr *sub[] = { e->a, e->b, e->c, e->filter };
    for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
        const weir_sql_expr *f = call_in(sub[i], name, depth + 1);
        if (f)
            return f;
    }
    for (size_t i = 0; i < e->n; i++) {
        const weir_sql_expr *f = call_in(e->list[i], name, depth + 1);
        if (f)
            return f;
    }
    return NULL;
}

const weir_sql_expr *weir__sql_row_call(const sql_select *s, const char *name)
{
    for (size_t i = 0; i < s->n_items; i++) {
        const weir_sql_expr *f = call_in(s->items[i].e, name, 0);
        if (f)
            return f;
    }
    return NULL;
}

/* The field of an ANSI interval's unit: DAY 0 .. SECOND 3 (day-time),
 * YEAR 0, MONTH 1 (year-month, *ym set); -1 for none. */
static int ansi_field(const char *u, bool *ym)
{
    static const char *const units[] = { "DAY", "HOUR", "MINUTE", "SECOND" };
    *ym = weir__str_ieq(u, "YEAR") || weir__str_ieq(u, "MONTH");
    if (*ym)
        return weir__str_ieq(u, "MONTH");
    if (weir__str_ieq(u, "WEEK"))
        return 0;
    if (weir__str_ieq(u, "MILLISECOND") || weir__str_ieq(u, "MICROSECOND"))
        return 3;
    for (int i = 0; i < 4; i++)
        if (weir__str_ieq(u, units[i]))
            return i;
    return -1;
}

/* Spark 4.1 takes a gap that is a string or a calendar interval, and
 * refuses an ANSI interval literal (INTERVAL 5 MINUTES is a
 * DayTimeIntervalType(2,2)) with its type. */
static int ansi_gap(sql_tx *t, const weir_sql_expr *gap)
{
    if (!gap || gap->kind != EX_INTERVAL || !gap->n_names)
        return 0;
    int lo = 9, hi = -1, ym = 0;
    for (size_t i = 0; i < gap->n_names; i++) {
        const char *u = gap->names[i];
        const char *text = u ? u : gap->list[i]->text; /* '1 hour 5 min' */
        while (text && *text) {
            size_t n = strcspn(text, " \t");
            char word[16];
            if (n && (text[0] < '0' || text[0] > '9') && text[0] != '-' &&
                text[0] != '+' && text[0] != '.') {
                if (n >= sizeof(word))
                    return 0;
                memcpy(word, text, n);
                word[n] = '\0';
                if (n > 1 && (word[n - 1] == 's' || word[n - 1] == 'S'))
                    word[n - 1] = '\0';
                bool y = false;
                int f = ansi_field(word, &y);
                if (f < 0)
                    return 0; /* not a unit Spark's type is known of */
                ym |= y ? 1 : 2;
                lo = f < lo ? f : lo;
                hi = f > hi ? f : hi;
            }
            text += n;
            text += strspn(text, " \t");
        }
    }
    if (hi < 0)
        return 0;
    if (gap->op) { /* INTERVAL '1:2' HOUR TO MINUTE */
        const char *to = strstr(gap->op, " TO ");
        bool y = false;
        int f = to ? ansi_field(to + 4, &y) : -1;
        if (f < 0)
            return 0;
        hi = f > hi ? f : hi;
    }
    if (ym == 3)
        return 0; /* Spark refuses the literal itself */
    weir__error_set(t->err, WEIR_ESQL, "_LEGACY_ERROR_TEMP_1040", __FILE__,
                    __LINE__,
                    "Gap duration expression used in session window must be "
                    "CalendarIntervalType, but got %s(%d,%d).",
                    ym == 1 ? "YearMonthIntervalType" : "DayTimeIntervalType",
                    lo, hi);
    if (gap->src)
        weir__sql_error_at(t->err, gap->src, gap->pos);
    return WEIR_ESQL;
}

/* The row's start and end: CAST(ts AS TIMESTAMP) and that plus the gap. */
static int bounds(sql_tx *t, const weir_sql_expr *e, weir_buf *start, weir_buf *end)
{
    weir_buf ts = WEIR_BUF_INIT;
    int rc = ansi_gap(t, e->n > 1 ? e->list[1] : NULL);
    if (!rc)
        rc = weir__fn_arg(t, &ts, e, 0);
    const char *gap = weir__fn_string_literal(e->list[1]);
    weir__buf_printf(start, "CAST(%s AS TIMESTAMP)", weir__buf_cstr(&ts));
    weir__buf_printf(end, "CAST(%s AS TIMESTAMP) + CAST(", weir__buf_cstr(&ts));
    if (gap) {
        weir__buf_put_sql_string(end, gap);
    } else if (!rc) {
        weir__buf_putc(end, '(');
        rc = weir__fn_arg(t, end, e, 1);
        weir__buf_putc(end, ')');
    }
    weir__buf_puts(end, " AS INTERVAL)");
    weir__buf_free(&ts);
    return rc;
}

int weir__sql_session_filter(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir_buf start = WEIR_BUF_INIT, end = WEIR_BUF_INIT;
    int rc = bounds(t, e, &start, &end);
    if (!rc)
        weir__buf_printf(out, "(%s) IS NOT NULL AND (%s) > (%s)",
                         weir__buf_cstr(&start), weir__buf_cstr(&end),
                         weir__buf_cstr(&start));
    weir__buf_free(&start);
    weir__buf_free(&end);
    return rc;
}

int weir__fn_session_window(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    if (t->session) {
        /* Grouped by sessions: the row's session, which the FROM adds. */
        weir__buf_put_sql_ident(out, weir__sql_rel_name(t->sel->from,
                                                        "__weir_session_rows"));
        weir__buf_puts(out, ".\"__weir_session\"");
        return 0;
    }
    weir_buf start = WEIR_BUF_INIT, end = WEIR_BUF_INIT;
    int rc = bounds(t, e, &start, &end);
    if (!rc)
        weir__buf_printf(out, "struct_pack(\"start\" := %s, \"end\" := %s)",
                         weir__buf_cstr(&start), weir__buf_cstr(&end));
    weir__buf_free(&start);
    weir__buf_free(&end);
    return rc;
}

/* "PARTITION BY k0, k1[, extra]", or "" without keys nor extra. */
static void partition(weir_buf *out, size_t n_keys, const char *extra)
{
    if (!n_keys && !extra)
        return;
    weir__buf_puts(out, "PARTITION BY ");
    for (size_t i = 0; i < n_keys; i++)
        weir__buf_printf(out, "%s\"__weir_k%zu\"", i ? ", " : "", i);
    if (extra)
        weir__buf_printf(out, "%s%s", n_keys ? ", " : "", extra);
    weir__buf_putc(out, ' ');
}

int weir__sql_session_from(sql_tx *t, weir_buf *out, const sql_select *s,
                           const weir_buf *from)
{
    const sql_rel *rel = s->from;
    if (rel->kind == R_JOIN || rel->kind == R_LATERAL_VIEW)
        return weir__sql_tx_error(t, rel->pos, t->session->src,
                                  "session_window() over a join or a LATERAL "
                                  "VIEW is not supported: group a subquery "
                                  "that does the join by the session instead");
    /* The rows with their bounds and the other keys. */
    weir_buf start = WEIR_BUF_INIT, end = WEIR_BUF_INIT, rows = WEIR_BUF_INIT;
    int rc = bounds(t, t->session, &start, &end);
    weir__buf_printf(&rows, "SELECT *, %s AS \"__weir_ss\", %s AS \"__weir_se\"",
                     weir__buf_cstr(&start), weir__buf_cstr(&end));
    size_t n_keys = 0;
    for (size_t i = 0; !rc && i < s->n_group_by; i++) {
        const weir_sql_expr *k = group_key(s, s->group_by[i]);
        if (is_session_call(k))
            continue;
        weir__buf_puts(&rows, ", ");
        rc = weir__sql_tx_expr(t, &rows, k);
        weir__buf_printf(&rows, " AS \"__weir_k%zu\"", n_keys++);
    }
    weir__buf_puts(&rows, " FROM ");
    weir__buf_put(&rows, from->ptr, from->len);
    if (!rc && s->where) {
        weir__buf_puts(&rows, " WHERE ");
        rc = weir__sql_tx_expr(t, &rows, s->where);
    }
    /* A row starts a session when it starts after every earlier row of
     * its group ended; a session is the rows from one start to the next. */
    weir__buf_puts(out, "(SELECT * EXCLUDE (\"__weir_ss\", \"__weir_se\", "
                        "\"__weir_new\", \"__weir_sid\"");
    for (size_t i = 0; i < n_keys; i++)
        weir__buf_printf(out, ", \"__weir_k%zu\"", i);
    weir__buf_puts(out, "), struct_pack(\"start\" := min(\"__weir_ss\") OVER "
                        "\"__weir_sw\", \"end\" := max(\"__weir_se\") OVER "
                        "\"__weir_sw\") AS \"__weir_session\" FROM (SELECT *, "
                        "sum(\"__weir_new\") OVER (");
    partition(out, n_keys, NULL);
    weir__buf_puts(out, "ORDER BY \"__weir_ss\") AS \"__weir_sid\" FROM (SELECT "
                        "*, CASE WHEN \"__weir_ss\" <= max(\"__weir_se\") OVER (");
    partition(out, n_keys, NULL);
    weir__buf_puts(out, "ORDER BY \"__weir_ss\" ROWS BETWEEN UNBOUNDED PRECEDING "
                        "AND 1 PRECEDING) THEN 0 ELSE 1 END AS \"__weir_new\" "
                        "FROM (");
    weir__buf_put(out, rows.ptr, rows.len);
    weir__buf_puts(out, ") WHERE \"__weir_ss\" IS NOT NULL AND \"__weir_se\" > "
                        "\"__weir_ss\")) WINDOW \"__weir_sw\" AS (");
    partition(out, n_keys, "\"__weir_sid\"");
    weir__buf_puts(out, ")) AS ");
    weir__buf_put_sql_ident(out, weir__sql_rel_name(rel, "__weir_session_rows"));
    weir__buf_free(&start);
    weir__buf_free(&end);
    weir__buf_free(&rows);
    return rc;
}
