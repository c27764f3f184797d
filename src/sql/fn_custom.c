/*
 * Custom translations of Spark functions a template cannot express: those
 * whose literal arguments must be rewritten (datetime patterns, regex
 * replacements, JSON schemas, date units), collection constructors,
 * aggregates with Spark's null rules and time windows. Higher-order
 * functions are in fn_lambda.c, generators in fn_generators.c.
 */
#include "internal.h"
#include "functions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

static const weir_sql_expr *arg(const weir_sql_expr *e, size_t i)
{
    return i < e->n ? e->list[i] : NULL;
}

/* An identifier-like or string argument (date units): upper-cased. */
static bool unit_arg(const weir_sql_expr *a, char *out, size_t size)
{
    const char *s = NULL;
    if (!a)
        return false;
    if (a->kind == EX_COLUMN && a->n_names == 1)
        s = a->names[0];
    else if (a->kind == EX_LIT && a->lit == LIT_STRING)
        s = a->text;
    if (!s)
        return false;
    size_t i = 0;
    for (; s[i] && i + 1 < size; i++)
        out[i] = (char)((s[i] >= 'a' && s[i] <= 'z') ? s[i] - 32 : s[i]);
    out[i] = '\0';
    return true;
}

static int put_arg(sql_tx *t, weir_buf *out, const weir_sql_expr *e, size_t i)
{
    return weir__fn_arg(t, out, e, i);
}

int weir__fn_decode(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir__buf_puts(out, "CASE");
    size_t i = 1;
    int rc = 0;
    for (; !rc && i + 1 < e->n; i += 2) {
        weir__buf_puts(out, " WHEN (");
        rc = put_arg(t, out, e, 0);
        weir__buf_puts(out, ") IS NOT DISTINCT FROM (");
        if (!rc)
            rc = put_arg(t, out, e, i);
        weir__buf_puts(out, ") THEN ");
        if (!rc)
            rc = put_arg(t, out, e, i + 1);
    }
    if (!rc && i < e->n) {
        weir__buf_puts(out, " ELSE ");
        rc = put_arg(t, out, e, i);
    }
    weir__buf_puts(out, " END");
    return rc;
}

/* Argument i of a function that casts it to a string (a timestamp as the
 * session zone's wall clock). */
static int put_text_arg(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                        size_t i)
{
    if (!t->zone)
        return put_arg(t, out, e, i);
    weir_buf x = WEIR_BUF_INIT;
    int rc = put_arg(t, &x, e, i);
    if (!rc)
        weir__sql_tz_text(t, out, e->list[i], weir__buf_cstr(&x));
    weir__buf_free(&x);
    return rc;
}

int weir__fn_concat(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    if (e->n == 0) {
        weir__buf_puts(out, "''");
        return 0;
    }
    weir__buf_putc(out, '(');
    for (size_t i = 0; i < e->n; i++) {
        if (i)
            weir__buf_puts(out, " || ");
        int rc = put_text_arg(t, out, e, i);
        if (rc)
            return rc;
    }
    weir__buf_putc(out, ')');
    return 0;
}

/* split(s, re [, limit]): a positive literal limit keeps the text after the
 * (limit-1)th match whole as the last element: what remains once a regex
 * of limit-1 lazily found matches is removed from the front. */
int weir__fn_split(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    long limit = -1;
    if (e->n == 3) {
        const weir_sql_expr *l = e->list[2];
        bool neg = l->kind == EX_UNARY && l->op && strcmp(l->op, "-") == 0;
        const weir_sql_expr *v = neg ? l->a : l;
        if (!v || v->kind != EX_LIT || v->lit != LIT_INT)
            return weir__fn_need_literal(t, e, 2, "limit");
        limit = neg ? -1 : strtol(v->text, NULL, 10);
        if (limit > 1000)
            return weir__sql_tx_error(t, l->pos, e->src,
                                      "split() with a limit above 1000 is not "
                                      "supported");
    }
    weir_buf s = WEIR_BUF_INIT, re = WEIR_BUF_INIT;
    int rc = put_arg(t, &s, e, 0);
    if (!rc)
        rc = put_arg(t, &re, e, 1);
    if (!rc && limit <= 0)
        weir__buf_printf(out, "regexp_split_to_array(%s, %s)", weir__buf_cstr(&s),
                         weir__buf_cstr(&re));
    else if (!rc)
        weir__buf_printf(out,
                         "CASE WHEN len(regexp_split_to_array(%s, %s)) <= %ld "
                         "THEN regexp_split_to_array(%s, %s) ELSE list_concat("
                         "regexp_split_to_array(%s, %s)[1:%ld], [regexp_replace("
                         "%s, '(?s)^(?:.*?(?:' || (%s) || ')){%ld}', '')]) END",
                         weir__buf_cstr(&s), weir__buf_cstr(&re), limit,
                         weir__buf_cstr(&s), weir__buf_cstr(&re),
                         weir__buf_cstr(&s), weir__buf_cstr(&re), limit - 1,
                         weir__buf_cstr(&s), weir__buf_cstr(&re), limit - 1);
    weir__buf_free(&s);
    weir__buf_free(&re);
    return rc;
}

int weir__fn_regexp_replace(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const char *rep = weir__fn_string_literal(arg(e, 2));
    if (!rep)
        return weir__fn_need_literal(t, e, 2, "replacement string");
    /* Java replacement syntax ($1, \x) -> RE2 (\1, \\). */
    weir_buf r = WEIR_BUF_INIT;
    for (const char *p = rep; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            if (*p == '\\')
                weir__buf_puts(&r, "\\\\");
            else
                weir__buf_putc(&r, *p);
        } else if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
            weir__buf_putc(&r, '\\');
            weir__buf_putc(&r, *++p);
            if (p[1] >= '0' && p[1] <= '9') {
                weir__buf_free(&r);
                return weir__sql_tx_error(t, e->list[2]->pos, e->src,
                                          "regexp_replace(): group references "
                                          "above $9 are not supported");
            }
        } else if (*p == '$') {
            weir__buf_free(&r);
            return weir__sql_tx_error(t, e->list[2]->pos, e->src,
                                      "regexp_replace(): named group "
                                      "references are not supported");
        } else {
            weir__buf_putc(&r, *p);
        }
    }
    /* A position (4th argument) keeps the text before it as it is: Java's
     * matcher region starts there, anchors included. */
    weir_buf s = WEIR_BUF_INIT, pos = WEIR_BUF_INIT;
    int rc = put_arg(t, &s, e, 0);
    if (!rc && e->n == 4)
        rc = put_arg(t, &pos, e, 3);
    const char *src = weir__buf_cstr(&s), *at = weir__buf_cstr(&pos);
    if (!rc && e->n == 4)
        weir__buf_printf(out,
                         "CASE WHEN (%s) < 1 THEN error('[INVALID_PARAMETER_VALUE."
                         "REGEX_POSITION] regexp_replace(): the position must be "
                         "positive') WHEN (%s) > length(%s) THEN %s ELSE "
                         "substr(%s, 1, (%s) - 1) || regexp_replace(substr(%s, %s), ",
                         at, at, src, src, src, at, src, at);
    else
        weir__buf_printf(out, "regexp_replace(%s, ", src);
    if (!rc)
        rc = put_arg(t, out, e, 1);
    weir__buf_puts(out, ", ");
    weir__buf_put_sql_string(out, weir__buf_cstr(&r));
    weir__buf_puts(out, e->n == 4 ? ", 'g') END" : ", 'g')");
    weir__buf_free(&r);
    weir__buf_free(&s);
    weir__buf_free(&pos);
    return rc;
}

int weir__fn_sha2(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const weir_sql_expr *b = e->list[1];
    if (b->kind != EX_LIT || b->lit != LIT_INT ||
        (strcmp(b->text, "256") != 0 && strcmp(b->text, "0") != 0))
        return weir__sql_tx_error(t, b->pos, e->src,
                                  "sha2() supports only 256 (or 0) bits");
    weir__buf_puts(out, "sha256(");
    int rc = put_arg(t, out, e, 0);
    weir__buf_putc(out, ')');
    return rc;
}

int weir__fn_array(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir__buf_putc(out, '[');
    for (size_t i = 0; i < e->n; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        int rc = put_arg(t, out, e, i);
        if (rc)
            return rc;
    }
    weir__buf_putc(out, ']');
    return 0;
}

int weir__fn_map(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    if (e->n % 2)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "map() expects a positive even number of "
                                  "arguments");
    if (e->n == 0) {
        weir__buf_puts(out, "map()");
        return 0;
    }
    int rc = 0;
    weir__buf_puts(out, "map([");
    for (size_t i = 0; !rc && i < e->n; i += 2) {
        if (i)
            weir__buf_puts(out, ", ");
        rc = put_arg(t, out, e, i);
    }
    weir__buf_puts(out, "], [");
    for (size_t i = 1; !rc && i < e->n; i += 2) {
        if (i > 1)
            weir__buf_puts(out, ", ");
        rc = put_arg(t, out, e, i);
    }
    weir__buf_puts(out, "])");
    return rc;
}

int weir__fn_named_struct(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    if (e->n == 0 || e->n % 2)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "named_struct() expects name, value pairs");
    weir__buf_puts(out, "struct_pack(");
    for (size_t i = 0; i < e->n; i += 2) {
        const char *name = weir__fn_string_literal(e->list[i]);
        if (!name)
            return weir__fn_need_literal(t, e, i, "field name");
        if (i)
            weir__buf_puts(out, ", ");
        weir__buf_put_sql_ident(out, name);
        weir__buf_puts(out, " := ");
        int rc = put_arg(t, out, e, i + 1);
        if (rc)
            return rc;
    }
    weir__buf_putc(out, ')');
    return 0;
}

int weir__fn_struct(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir__buf_puts(out, "struct_pack(");
    for (size_t i = 0; i < e->n; i++) {
        const weir_sql_expr *a = e->list[i];
        if (a->kind == EX_STAR) {
            /* struct(*), struct(t.*): DuckDB unpacks the columns a select
             * list's star would give into fields named after them. */
            weir__buf_puts(out, i ? ", *COLUMNS(" : "*COLUMNS(");
            for (size_t k = 0; k < a->n_names; k++) {
                weir__buf_put_sql_ident(out, a->names[k]);
                weir__buf_putc(out, '.');
            }
            weir__buf_putc(out, '*');
            for (size_t k = 0; k < a->n; k++) {
                const weir_sql_expr *c = a->list[k];
                weir__buf_puts(out, k ? ", " : " EXCLUDE (");
                weir__buf_put_sql_ident(out, c->names[c->n_names - 1]);
            }
            weir__buf_puts(out, a->n ? "))" : ")");
            continue;
        }
        char name[32];
        const char *fname = name;
        if (i < e->n_names && e->names[i])
            fname = e->names[i]; /* struct(x AS a) */
        else if (a->kind == EX_COLUMN)
            fname = a->names[a->n_names - 1];
        else if (a->kind == EX_FIELD)
            fname = a->name;
        else
            snprintf(name, sizeof(name), "col%zu", i + 1);
        if (i)
            weir__buf_puts(out, ", ");
        weir__buf_put_sql_ident(out, fname);
        weir__buf_puts(out, " := ");
        int rc = put_arg(t, out, e, i);
        if (rc)
            return rc;
    }
    weir__buf_putc(out, ')');
    return 0;
}

int weir__fn_sort_array(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    bool asc = true;
    if (e->n == 2) {
        const weir_sql_expr *a = e->list[1];
        if (a->kind != EX_LIT || a->lit != LIT_BOOL)
            return weir__fn_need_literal(t, e, 1, "boolean");
        asc = strcmp(a->text, "true") == 0;
    }
    weir__buf_puts(out, "list_sort(");
    int rc = put_arg(t, out, e, 0);
    weir__buf_puts(out, asc ? ", 'ASC', 'NULLS FIRST')" : ", 'DESC', 'NULLS LAST')");
    return rc;
}


static const struct {
    const char *spark, *duck;
} UNITS[] = {
    { "YEAR", "year" },        { "YEARS", "year" },   { "YYYY", "year" },
    { "YY", "year" },          { "QUARTER", "quarter" },
    { "MONTH", "month" },      { "MONTHS", "month" }, { "MON", "month" },
    { "MM", "month" },         { "WEEK", "week" },    { "WEEKS", "week" },
    { "DAY", "day" },          { "DAYS", "day" },     { "DD", "day" },
    { "HOUR", "hour" },        { "HOURS", "hour" },   { "MINUTE", "minute" },
    { "MINUTES", "minute" },   { "SECOND", "second" },
    { "SECONDS", "second" },   { "MILLISECOND", "millisecond" },
    { "MILLISECONDS", "millisecond" }, { "MICROSECOND", "microsecond" },
    { "MICROSECONDS", "microsecond" }, { NULL, NULL }
};

static const char *duck_unit(const char *u)
{
    for (int i = 0; UNITS[i].spark; i++)
        if (strcmp(u, UNITS[i].spark) == 0)
            return UNITS[i].duck;
    return NULL;
}

/* Units of a day and more are added to the session zone's wall clock by
 * Spark's timestampadd; smaller ones in microseconds. */
static bool calendar_unit(const char *du)
{
    return strcmp(du, "day") == 0 || strcmp(du, "week") == 0 ||
           strcmp(du, "month") == 0 || strcmp(du, "quarter") == 0 ||
           strcmp(du, "year") == 0;
}

/* Argument i as a TIMESTAMP instant (a string or date in the zone), or
 * as the zone's wall clock when wall is set. */
static int put_ts_arg(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                      size_t i, bool wall)
{
    weir_buf x = WEIR_BUF_INIT, ts = WEIR_BUF_INIT;
    int rc = put_arg(t, &x, e, i);
    if (!t->zone)
        weir__buf_printf(&ts, "CAST(%s AS TIMESTAMP)", weir__buf_cstr(&x));
    else
        weir__sql_tz_instant(t, &ts, weir__buf_cstr(&x), false);
    if (wall)
        weir__sql_tz_local(t, out, weir__buf_cstr(&ts));
    else
        weir__buf_puts(out, weir__buf_cstr(&ts));
    weir__buf_free(&x);
    weir__buf_free(&ts);
    return rc;
}

int weir__fn_timestampadd(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    char u[32];
    const char *du = unit_arg(e->list[0], u, sizeof(u)) ? duck_unit(u) : NULL;
    if (!du)
        return weir__fn_need_literal(t, e, 0, "unit");
    bool wall = t->zone && calendar_unit(du);
    weir_buf sum = WEIR_BUF_INIT;
    weir__buf_putc(&sum, '(');
    int rc = put_ts_arg(t, &sum, e, 2, wall);
    weir__buf_puts(&sum, " + CAST(");
    if (!rc)
        rc = put_arg(t, &sum, e, 1);
    if (strcmp(du, "quarter") == 0)
        weir__buf_puts(&sum, " AS BIGINT) * INTERVAL 3 MONTH)");
    else
        weir__buf_printf(&sum, " AS BIGINT) * INTERVAL 1 %s)", du);
    if (wall)
        weir__sql_tz_utc(t, out, weir__buf_cstr(&sum));
    else
        weir__buf_puts(out, weir__buf_cstr(&sum));
    weir__buf_free(&sum);
    return rc;
}

int weir__fn_timestampdiff(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    char u[32];
    const char *du = unit_arg(e->list[0], u, sizeof(u)) ? duck_unit(u) : NULL;
    if (!du)
        return weir__fn_need_literal(t, e, 0, "unit");
    /* Spark counts every unit between the two wall clocks */
    bool wall = t->zone != NULL;
    weir__buf_printf(out, "date_sub('%s', ", du);
    int rc = put_ts_arg(t, out, e, 1, wall);
    weir__buf_puts(out, ", ");
    if (!rc)
        rc = put_ts_arg(t, out, e, 2, wall);
    weir__buf_putc(out, ')');
    return rc;
}

int weir__fn_date_trunc(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    char u[32];
    if (!unit_arg(e->list[0], u, sizeof(u)) || e->list[0]->kind == EX_COLUMN)
        return weir__fn_need_literal(t, e, 0, "format");
    const char *du = duck_unit(u);
    if (!du || strcmp(du, "week") == 0 || strcmp(u, "DAYS") == 0) {
        if (!du) {
            weir__buf_puts(out, "CAST(NULL AS TIMESTAMP)");
            return 0;
        }
    }
    /* truncated on the session zone's wall clock */
    weir_buf x = WEIR_BUF_INIT, w = WEIR_BUF_INIT, tr = WEIR_BUF_INIT;
    int rc = put_arg(t, &x, e, 1);
    if (t->zone)
        weir__sql_tz_wall(t, &w, weir__buf_cstr(&x));
    else
        weir__buf_printf(&w, "CAST(%s AS TIMESTAMP)", weir__buf_cstr(&x));
    weir__buf_printf(&tr, "CAST(date_trunc('%s', %s) AS TIMESTAMP)", du,
                     weir__buf_cstr(&w));
    weir__sql_tz_utc(t, out, weir__buf_cstr(&tr));
    weir__buf_free(&x);
    weir__buf_free(&w);
    weir__buf_free(&tr);
    return rc;
}

/* Argument i as a DATE: a timestamp's date in the session zone. */
static int put_date_arg(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                        size_t i, bool try_cast)
{
    int rc;
    if (!t->zone) {
        weir__buf_puts(out, try_cast ? "TRY_CAST(" : "CAST(");
        rc = put_arg(t, out, e, i);
        weir__buf_puts(out, " AS DATE)");
        return rc;
    }
    weir__buf_puts(out, try_cast ? "weir_tz_try_date(" : "weir_tz_date(");
    rc = put_arg(t, out, e, i);
    weir__buf_puts(out, ", ");
    weir__sql_tz_put_zone(t, out);
    weir__buf_putc(out, ')');
    return rc;
}

int weir__fn_trunc(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    char u[32];
    if (!unit_arg(e->list[1], u, sizeof(u)) || e->list[1]->kind == EX_COLUMN)
        return weir__fn_need_literal(t, e, 1, "format");
    const char *du = duck_unit(u);
    if (!du || (strcmp(du, "year") && strcmp(du, "quarter") &&
                strcmp(du, "month") && strcmp(du, "week"))) {
        weir__buf_puts(out, "CAST(NULL AS DATE)");
        return 0;
    }
    weir__buf_printf(out, "CAST(date_trunc('%s', ", du);
    int rc = put_date_arg(t, out, e, 0, false);
    weir__buf_puts(out, ") AS DATE)");
    return rc;
}

/* A literal datetime pattern converted, or an error. */
static int pattern(sql_tx *t, weir_buf *out, const weir_sql_expr *e, size_t i,
                   bool parse)
{
    const char *p = weir__fn_string_literal(arg(e, i));
    if (!p)
        return weir__fn_need_literal(t, e, i, "datetime pattern");
    weir_buf f = WEIR_BUF_INIT;
    char bad[32];
    if (!weir__sql_datetime_format(&f, p, parse, bad, sizeof(bad))) {
        weir__buf_free(&f);
        return weir__sql_tx_error(t, e->list[i]->pos, e->src,
                                  "Datetime pattern '%s' of %s(): '%s' has no "
                                  "DuckDB equivalent",
                                  p, e->name, bad);
    }
    weir__buf_put_sql_string(out, weir__buf_cstr(&f));
    weir__buf_free(&f);
    return 0;
}

static bool is_try(const weir_sql_expr *e)
{
    return weir__str_istarts(e->name, "try_");
}

int weir__fn_to_date(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    int rc;
    if (e->n == 1)
        return put_date_arg(t, out, e, 0, is_try(e));
    weir__buf_puts(out, is_try(e) ? "CAST(try_strptime(" : "CAST(strptime(");
    rc = put_arg(t, out, e, 0);
    weir__buf_puts(out, ", ");
    if (!rc)
        rc = pattern(t, out, e, 1, true);
    weir__buf_puts(out, ") AS DATE)");
    return rc;
}

/* Does a converted strftime/strptime pattern read or write a zone? */
static bool zoned_pattern(const char *f)
{
    for (const char *p = f; (p = strchr(p, '%')) && p[1]; p += 2)
        if (p[1] == 'z' || p[1] == 'Z')
            return true;
    return false;
}

int weir__fn_to_timestamp(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    int rc;
    if (weir__str_ieq(e->name, "to_timestamp_ntz") &&
        (rc = weir__sql_tz_refuse_ntz(t, e->pos, e->src, "to_timestamp_ntz()")))
        return rc;
    weir_buf x = WEIR_BUF_INIT, f = WEIR_BUF_INIT, ts = WEIR_BUF_INIT;
    rc = put_arg(t, &x, e, 0);
    if (!rc && e->n == 1) {
        /* like CAST(s AS TIMESTAMP): a zone offset in s is honoured */
        weir__sql_tz_instant(t, out, weir__buf_cstr(&x), is_try(e));
    } else if (!rc && !(rc = pattern(t, &f, e, 1, true))) {
        /* the text is a wall clock of the session zone, unless the
         * pattern reads its zone */
        weir__buf_printf(&ts, "CAST(%s(%s, %s) AS TIMESTAMP)",
                         is_try(e) ? "try_strptime" : "strptime",
                         weir__buf_cstr(&x), weir__buf_cstr(&f));
        if (zoned_pattern(weir__buf_cstr(&f)))
            weir__buf_puts(out, weir__buf_cstr(&ts));
        else
            weir__sql_tz_utc(t, out, weir__buf_cstr(&ts));
    }
    weir__buf_free(&x);
    weir__buf_free(&f);
    weir__buf_free(&ts);
    return rc;
}

/* strftime of the timestamp SQL ts with pattern argument i of e; quarter
 * letters (markers in the converted pattern, see datetime.c) are replaced
 * after strftime. */
static int format_ts(sql_tx *t, weir_buf *out, const char *ts,
                     const weir_sql_expr *e, size_t i)
{
    weir_buf f = WEIR_BUF_INIT;
    int rc = pattern(t, &f, e, i, false);
    if (!rc && !strchr(weir__buf_cstr(&f), '\x01'))
        weir__buf_printf(out, "strftime(%s, %s)", ts, weir__buf_cstr(&f));
    else if (!rc)
        weir__buf_printf(out,
                         "list_transform([CAST(quarter(%s) AS VARCHAR)], lambda "
                         "__q: replace(replace(replace(replace(strftime(%s, %s), "
                         "chr(1) || '4', __q || CASE __q WHEN '1' THEN 'st' WHEN "
                         "'2' THEN 'nd' WHEN '3' THEN 'rd' ELSE 'th' END || ' "
                         "quarter'), chr(1) || '3', 'Q' || __q), chr(1) || '2', "
                         "'0' || __q), chr(1) || '1', __q))[1]",
                         ts, ts, weir__buf_cstr(&f));
    weir__buf_free(&f);
    return rc;
}

/* A pattern that writes the zone (z, Z, X, x) outside UTC: weir writes
 * only UTC's. */
static int zone_letters(sql_tx *t, const weir_sql_expr *e, size_t i)
{
    weir_buf f = WEIR_BUF_INIT;
    int rc = 0;
    if (t->zone && !pattern(t, &f, e, i, false) &&
        zoned_pattern(weir__buf_cstr(&f)))
        rc = weir__sql_tx_error(t, e->list[i]->pos, e->src,
                                "%s() with a pattern that writes the time "
                                "zone (z, Z, X, x) under the session time zone "
                                "'%s' is not supported by weir",
                                e->name, t->zone_id);
    weir__buf_free(&f);
    return rc;
}

int weir__fn_date_format(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir_buf x = WEIR_BUF_INIT, ts = WEIR_BUF_INIT;
    int rc = put_arg(t, &x, e, 0);
    /* the session zone's wall clock */
    if (t->zone)
        weir__sql_tz_wall(t, &ts, weir__buf_cstr(&x));
    else
        weir__buf_printf(&ts, "CAST(%s AS TIMESTAMP)", weir__buf_cstr(&x));
    if (!rc)
        rc = zone_letters(t, e, 1);
    if (!rc)
        rc = format_ts(t, out, weir__buf_cstr(&ts), e, 1);
    weir__buf_free(&x);
    weir__buf_free(&ts);
    return rc;
}

int weir__fn_from_unixtime(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir_buf x = WEIR_BUF_INIT, ts = WEIR_BUF_INIT;
    weir__buf_puts(&x, "make_timestamp(CAST(");
    int rc = put_arg(t, &x, e, 0);
    weir__buf_puts(&x, " AS BIGINT) * 1000000)");
    weir__sql_tz_local(t, &ts, weir__buf_cstr(&x));
    if (!rc && e->n == 2 && !(rc = zone_letters(t, e, 1)))
        rc = format_ts(t, out, weir__buf_cstr(&ts), e, 1);
    else if (!rc && e->n != 2)
        weir__buf_printf(out, "strftime(%s, '%%Y-%%m-%%d %%H:%%M:%%S')",
                         weir__buf_cstr(&ts));
    weir__buf_free(&x);
    weir__buf_free(&ts);
    return rc;
}

int weir__fn_unix_timestamp(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    int rc = 0;
    if (e->n == 0) {
        weir__buf_puts(out, "CAST(floor(epoch(current_timestamp)) AS BIGINT)");
        return 0;
    }
    if (e->n == 1 && t->zone) {
        weir__buf_puts(out, "weir_unix_timestamp_z(");
        rc = put_arg(t, out, e, 0);
        weir__buf_puts(out, ", ");
        weir__sql_tz_put_zone(t, out);
        weir__buf_putc(out, ')');
        return rc;
    }
    if (e->n == 1) {
        weir__buf_puts(out, "weir_unix_timestamp(");
        rc = put_arg(t, out, e, 0);
        weir__buf_putc(out, ')');
        return rc;
    }
    /* The pattern parses strings only: Spark ignores it for a TIMESTAMP or
     * DATE (pyspark's F.unix_timestamp(col) always sends one). A string is
     * a wall clock of the session zone unless the pattern reads a zone. */
    weir_buf f = WEIR_BUF_INIT;
    rc = pattern(t, &f, e, 1, true);
    bool zoned = !rc && t->zone && !zoned_pattern(weir__buf_cstr(&f));
    weir__buf_puts(out, zoned ? "weir_unix_timestamp_fmt_z(" : "weir_unix_timestamp_fmt(");
    if (!rc)
        rc = put_arg(t, out, e, 0);
    weir__buf_printf(out, ", %s", weir__buf_cstr(&f));
    if (zoned) {
        weir__buf_puts(out, ", ");
        weir__sql_tz_put_zone(t, out);
    }
    weir__buf_putc(out, ')');
    weir__buf_free(&f);
    return rc;
}

bool weir__sql_window_slides(const weir_sql_expr *e)
{
    const char *dur = weir__fn_string_literal(arg(e, 1));
    const char *slide = weir__fn_string_literal(arg(e, 2));
    return e->n >= 3 && (!dur || !slide || strcmp(slide, dur) != 0);
}

/* Each window of size dur every slide that holds the row's time (Spark's
 * TimeWindowing: start <= ts < end), the latest starting at the row's
 * time bucket of the slide, aligned to the epoch. */
int weir__fn_sliding_windows(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const char *dur = weir__fn_string_literal(arg(e, 1));
    const char *slide = weir__fn_string_literal(arg(e, 2));
    if (!dur)
        return weir__fn_need_literal(t, e, 1, "window duration");
    if (!slide)
        return weir__fn_need_literal(t, e, 2, "window slide");
    if (e->n == 4)
        return weir__sql_tx_error(t, e->list[3]->pos, e->src,
                                  "window() start offsets are not supported");
    weir_buf ts = WEIR_BUF_INIT, d = WEIR_BUF_INIT, s = WEIR_BUF_INIT,
             last = WEIR_BUF_INIT;
    int rc = put_arg(t, &ts, e, 0);
    weir__buf_puts(&d, "CAST(");
    weir__buf_put_sql_string(&d, dur);
    weir__buf_puts(&d, " AS INTERVAL)");
    weir__buf_puts(&s, "CAST(");
    weir__buf_put_sql_string(&s, slide);
    weir__buf_puts(&s, " AS INTERVAL)");
    weir__buf_printf(&last, "time_bucket(%s, CAST(%s AS TIMESTAMP), TIMESTAMP "
                            "'1970-01-01 00:00:00')",
                     weir__buf_cstr(&s), weir__buf_cstr(&ts));
    if (!rc)
        weir__buf_printf(out,
                         ", LATERAL (SELECT unnest(list_filter(list_transform("
                         "generate_series(%s - %s, %s, %s), __weir_s -> "
                         "struct_pack(\"start\" := __weir_s, \"end\" := "
                         "__weir_s + %s)), __weir_w -> __weir_w.\"start\" <= "
                         "CAST(%s AS TIMESTAMP) AND __weir_w.\"end\" > CAST(%s "
                         "AS TIMESTAMP))) AS \"__weir_window\") AS "
                         "\"__weir_sw\"",
                         weir__buf_cstr(&last), weir__buf_cstr(&d),
                         weir__buf_cstr(&last), weir__buf_cstr(&s),
                         weir__buf_cstr(&d), weir__buf_cstr(&ts),
                         weir__buf_cstr(&ts));
    weir__buf_free(&ts);
    weir__buf_free(&d);
    weir__buf_free(&s);
    weir__buf_free(&last);
    return rc;
}

int weir__fn_window(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const char *dur = weir__fn_string_literal(arg(e, 1));
    if (!dur)
        return weir__fn_need_literal(t, e, 1, "window duration");
    if (weir__sql_window_slides(e)) {
        /* A row's window is the one the FROM yields (see tx_select). */
        if (t->time_window && t->sliding)
            weir__buf_puts(out, "\"__weir_sw\".\"__weir_window\"");
        else
            return weir__sql_tx_error(t, e->list[2]->pos, e->src,
                                      "Sliding windows (a slide different from "
                                      "the duration) are supported in GROUP BY "
                                      "only");
        return 0;
    }
    if (e->n == 4)
        return weir__sql_tx_error(t, e->list[3]->pos, e->src,
                                  "window() start offsets are not supported");
    weir_buf ts = WEIR_BUF_INIT, d = WEIR_BUF_INIT;
    int rc = put_arg(t, &ts, e, 0);
    weir__buf_puts(&d, "CAST(");
    weir__buf_put_sql_string(&d, dur);
    weir__buf_puts(&d, " AS INTERVAL)");
    if (!rc) {
        const char *dv = weir__buf_cstr(&d), *tv = weir__buf_cstr(&ts);
        weir__buf_printf(out,
                         "struct_pack(\"start\" := time_bucket(%s, CAST(%s AS "
                         "TIMESTAMP), TIMESTAMP '1970-01-01 00:00:00'), "
                         "\"end\" := time_bucket(%s, CAST(%s AS TIMESTAMP), "
                         "TIMESTAMP '1970-01-01 00:00:00') + %s)",
                         dv, tv, dv, tv, dv);
    }
    weir__buf_free(&ts);
    weir__buf_free(&d);
    return rc;
}

int weir__fn_from_json(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const char *schema = weir__fn_string_literal(arg(e, 1));
    if (!schema)
        return weir__fn_need_literal(t, e, 1, "schema");
    if (e->n == 3 && !(e->list[2]->kind == EX_FUNC &&
                       weir__str_ieq(e->list[2]->name, "map") &&
                       e->list[2]->n == 0))
        return weir__sql_tx_error(t, e->list[2]->pos, e->src,
                                  "from_json() options are not supported");
    const weir_sql_type *ty;
    weir_error perr;
    if (weir__sql_parse_schema(&ty, t->arena, schema, &perr))
        return weir__sql_tx_error(t, e->list[1]->pos, e->src,
                                  "from_json(): invalid schema '%s': %s", schema,
                                  perr.message);
    weir_buf s = WEIR_BUF_INIT, j = WEIR_BUF_INIT;
    weir__sql_json_structure(&s, ty);
    int rc = put_arg(t, &j, e, 0);
    if (!rc) {
        weir__buf_printf(out, "CASE WHEN json_valid(%s) THEN from_json(%s, ",
                         weir__buf_cstr(&j), weir__buf_cstr(&j));
        weir__buf_put_sql_string(out, weir__buf_cstr(&s));
        weir__buf_putc(out, ')');
        /* PERMISSIVE: a malformed record gives a struct of NULLs. */
        if (ty->kind == TY_STRUCT) {
            weir__buf_printf(out, " WHEN (%s) IS NOT NULL THEN from_json('{}', ",
                             weir__buf_cstr(&j));
            weir__buf_put_sql_string(out, weir__buf_cstr(&s));
            weir__buf_putc(out, ')');
        }
        weir__buf_puts(out, " END");
    }
    weir__buf_free(&s);
    weir__buf_free(&j);
    return rc;
}

int weir__fn_count(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    int rc = 0;
    if (e->n == 0 || (e->n == 1 && e->list[0]->kind == EX_STAR)) {
        weir__buf_puts(out, "count(*)");
        rc = weir__fn_filter_clause(t, out, e, NULL);
    } else if (e->n == 1) {
        weir__buf_puts(out, e->distinct ? "count(DISTINCT " : "count(");
        rc = put_arg(t, out, e, 0);
        weir__buf_putc(out, ')');
        if (!rc)
            rc = weir__fn_filter_clause(t, out, e, NULL);
    } else {
        /* Rows where every argument is non-null (DISTINCT: distinct tuples). */
        weir_buf *a;
        if ((rc = weir__fn_args(t, &a, e)))
            return rc;
        weir_buf cond = WEIR_BUF_INIT;
        weir__buf_puts(out, e->distinct ? "count(DISTINCT (" : "count(*");
        for (size_t i = 0; i < e->n; i++) {
            if (e->distinct) {
                if (i)
                    weir__buf_puts(out, ", ");
                weir__buf_puts(out, weir__buf_cstr(&a[i]));
            }
            if (i)
                weir__buf_puts(&cond, " AND ");
            weir__buf_printf(&cond, "(%s) IS NOT NULL", weir__buf_cstr(&a[i]));
        }
        weir__buf_puts(out, e->distinct ? "))" : ")");
        rc = weir__fn_filter_clause(t, out, e, weir__buf_cstr(&cond));
        weir__buf_free(&cond);
        weir__fn_args_free(a, e->n);
    }
    if (!rc)
        rc = weir__fn_over_clause(t, out, e);
    return rc;
}

int weir__fn_first_last(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    bool first = weir__str_istarts(e->name, "first");
    bool ignore = e->ignore_nulls == 1;
    if (e->n == 2) {
        const weir_sql_expr *b = e->list[1];
        if (b->kind != EX_LIT || b->lit != LIT_BOOL)
            return weir__fn_need_literal(t, e, 1, "boolean ignoreNulls");
        ignore = strcmp(b->text, "true") == 0;
    }
    weir_buf x = WEIR_BUF_INIT;
    int rc = put_arg(t, &x, e, 0);
    if (rc) {
        weir__buf_free(&x);
        return rc;
    }
    if (e->over) {
        weir__buf_printf(out, "%s(%s%s)", first ? "first_value" : "last_value",
                         weir__buf_cstr(&x), ignore ? " IGNORE NULLS" : "");
        rc = weir__fn_filter_clause(t, out, e, NULL);
        if (!rc)
            rc = weir__fn_over_clause(t, out, e);
    } else {
        weir__buf_printf(out, "%s(%s)", first ? "first" : "last",
                         weir__buf_cstr(&x));
        weir_buf cond = WEIR_BUF_INIT;
        if (ignore)
            weir__buf_printf(&cond, "(%s) IS NOT NULL", weir__buf_cstr(&x));
        rc = weir__fn_filter_clause(t, out, e, ignore ? weir__buf_cstr(&cond) : NULL);
        weir__buf_free(&cond);
    }
    weir__buf_free(&x);
    return rc;
}

/* sum(): BIGINT for integers as in Spark (a macro, when no DISTINCT,
 * FILTER or OVER needs the plain aggregate). */
int weir__fn_sum(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir_buf x = WEIR_BUF_INIT;
    int rc = put_arg(t, &x, e, 0);
    if (rc) {
        weir__buf_free(&x);
        return rc;
    }
    if (e->over) {
        /* weir_sum_type(sum, x): BIGINT for integral x, as Spark. */
        weir__buf_printf(out, "weir_sum_type(sum(%s%s)",
                         e->distinct ? "DISTINCT " : "", weir__buf_cstr(&x));
        rc = weir__fn_filter_clause(t, out, e, NULL);
        if (!rc)
            rc = weir__fn_over_clause(t, out, e);
        weir__buf_printf(out, ", %s)", weir__buf_cstr(&x));
    } else {
        /* Macros dispatch on x's type; FILTER becomes a CASE inside. */
        /* try_sum: NULL where sum overflows */
        bool try = weir__str_ieq(e->name, "try_sum");
        weir__buf_puts(out, e->distinct ? (try ? "weir_try_sum_distinct("
                                               : "weir_sum_distinct(")
                                        : (try ? "weir_try_sum(" : "weir_sum("));
        if (e->filter) {
            weir__buf_puts(out, "CASE WHEN ");
            rc = weir__sql_tx_expr(t, out, e->filter);
            weir__buf_printf(out, " THEN %s END", weir__buf_cstr(&x));
        } else {
            weir__buf_puts(out, weir__buf_cstr(&x));
        }
        weir__buf_putc(out, ')');
    }
    weir__buf_free(&x);
    return rc;
}

int weir__fn_collect(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    bool set = weir__str_ieq(e->name, "collect_set") || e->distinct;
    weir_buf x = WEIR_BUF_INIT, cond = WEIR_BUF_INIT;
    int rc = put_arg(t, &x, e, 0);
    if (!rc) {
        weir__buf_printf(&cond, "(%s) IS NOT NULL", weir__buf_cstr(&x));
        weir__buf_printf(out, "coalesce(list(%s%s)", set ? "DISTINCT " : "",
                         weir__buf_cstr(&x));
        rc = weir__fn_filter_clause(t, out, e, weir__buf_cstr(&cond));
        if (!rc)
            rc = weir__fn_over_clause(t, out, e);
        weir__buf_puts(out, ", [])");
    }
    weir__buf_free(&x);
    weir__buf_free(&cond);
    return rc;
}

static bool call_in(const weir_sql_expr *a, const char *const *names)
{
    if (a->kind != EX_FUNC || a->over)
        return false;
    for (int i = 0; names[i]; i++)
        if (weir__str_ieq(a->name, names[i]))
            return true;
    return false;
}

static const char *const LIST_FUNCS[] = {
    "array", "split", "collect_list", "collect_set", "array_agg", "sequence",
    "transform", "filter", "array_distinct", "array_union", "array_intersect",
    "array_except", "array_remove", "slice", "sort_array", "array_sort",
    "flatten", "map_keys", "map_values", "array_repeat", "regexp_extract_all",
    NULL
};

static const char *const MAP_FUNCS[] = {
    "map", "map_from_arrays", "str_to_map", "map_concat", "map_from_entries",
    NULL
};

/* size(): len() or cardinality() when the argument's kind is evident, else
 * the type-dispatching macro. */
int weir__fn_size(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const weir_sql_expr *a = e->list[0];
    const char *fn = call_in(a, LIST_FUNCS)  ? "len("
                     : call_in(a, MAP_FUNCS) ? "cardinality("
                                             : "weir_size(";
    if (a->kind == EX_LIT && a->lit == LIT_NULL) {
        weir__buf_puts(out, "CAST(NULL AS INTEGER)");
        return 0;
    }
    weir__buf_puts(out, "CAST(");
    weir__buf_puts(out, fn);
    int rc = put_arg(t, out, e, 0);
    weir__buf_puts(out, ") AS INTEGER)");
    return rc;
}

/* ------------------------------------------------------------------------
 * Added from the Spark differential tier
 * ------------------------------------------------------------------------ */

/* Capturing groups of a regular expression: '(' not followed by '?',
 * outside character classes and escapes. */
static int regex_groups(const char *re)
{
    int n = 0;
    bool cls = false;
    for (const char *p = re; *p; p++) {
        if (*p == '\\' && p[1])
            p++;
        else if (cls)
            cls = *p != ']';
        else if (*p == '[')
            cls = true;
        else if (*p == '(' && p[1] != '?')
            n++;
        else if (*p == '(' && p[1] == '?' && p[2] == '<' && p[3] != '=' &&
                 p[3] != '!')
            n++; /* (?<name>...) */
        else if (*p == '(' && p[1] == '?' && p[2] == 'P' && p[3] == '<')
            n++; /* (?P<name>...), RE2's spelling of it */
    }
    return n;
}

int weir__fn_regexp_extract(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    bool all = weir__str_ieq(e->name, "regexp_extract_all");
    const char *re = weir__fn_string_literal(arg(e, 1));
    const weir_sql_expr *ix = arg(e, 2);
    long idx = 1;
    bool known = e->n == 2;
    if (ix && ix->kind == EX_LIT && ix->lit == LIT_INT) {
        idx = strtol(ix->text, NULL, 10);
        known = true;
    }
    int groups = re ? regex_groups(re) : 0;
    if (re && known && (idx < 0 || idx > groups)) {
        /* Spark raises for any input row (NULL input gives NULL). */
        weir__buf_puts(out, "CASE WHEN (");
        int rc = put_arg(t, out, e, 0);
        weir__buf_printf(out, ") IS NULL THEN NULL ELSE error('[INVALID_PARAMETER_"
                              "VALUE.REGEX_GROUP_INDEX] %s(): expects group index "
                              "between 0 and %d, but got %ld.') END",
                         all ? "regexp_extract_all" : "regexp_extract",
                         groups, idx);
        return rc;
    }
    weir__buf_puts(out, all ? "regexp_extract_all(" : "regexp_extract(");
    int rc = put_arg(t, out, e, 0);
    weir__buf_puts(out, ", ");
    if (!rc)
        rc = put_arg(t, out, e, 1);
    weir__buf_puts(out, ", ");
    if (!rc && e->n == 3)
        rc = put_arg(t, out, e, 2);
    else
        weir__buf_putc(out, '1');
    weir__buf_putc(out, ')');
    return rc;
}

int weir__fn_concat_ws(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir__buf_puts(out, "weir_concat_ws(");
    int rc = put_arg(t, out, e, 0);
    weir__buf_puts(out, ", flatten([");
    for (size_t i = 1; !rc && i < e->n; i++) {
        const weir_sql_expr *a = e->list[i];
        if (i > 1)
            weir__buf_puts(out, ", ");
        if (a->kind == EX_LIT && a->lit == LIT_NULL) {
            weir__buf_puts(out, "CAST([] AS VARCHAR[])");
            continue;
        }
        weir__buf_puts(out, "weir_cws(");
        rc = put_text_arg(t, out, e, i);
        weir__buf_putc(out, ')');
    }
    weir__buf_puts(out, e->n > 1 ? "]))" : "CAST([] AS VARCHAR[])]))");
    return rc;
}

int weir__fn_months_between(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    /* on the session zone's wall clocks */
    weir_buf x = WEIR_BUF_INIT, ts = WEIR_BUF_INIT;
    int rc = 0;
    weir__buf_puts(out, "weir_months_between(");
    for (size_t i = 0; !rc && i < 2; i++) {
        weir__buf_clear(&x);
        weir__buf_clear(&ts);
        rc = put_arg(t, &x, e, i);
        weir__sql_tz_instant(t, &ts, weir__buf_cstr(&x), false);
        weir__sql_tz_local(t, out, weir__buf_cstr(&ts));
        weir__buf_puts(out, ", ");
    }
    weir__buf_free(&x);
    weir__buf_free(&ts);
    if (!rc && e->n == 3)
        rc = put_arg(t, out, e, 2);
    else
        weir__buf_puts(out, "true");
    weir__buf_putc(out, ')');
    return rc;
}

int weir__fn_format_number(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const weir_sql_expr *d = arg(e, 1);
    if (!d || d->kind != EX_LIT || d->lit != LIT_INT || d->text[0] == '-')
        return weir__fn_need_literal(t, e, 1, "non-negative number of decimal places");
    weir__buf_printf(out, "format('{:,.%sf}', CAST(", d->text);
    int rc = put_arg(t, out, e, 0);
    weir__buf_puts(out, " AS DOUBLE))");
    return rc;
}

int weir__fn_elt(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir_buf i = WEIR_BUF_INIT;
    int rc = put_arg(t, &i, e, 0);
    weir__buf_printf(out, "CASE WHEN (%s) IS NULL THEN NULL", weir__buf_cstr(&i));
    for (size_t k = 1; !rc && k < e->n; k++) {
        weir__buf_printf(out, " WHEN (%s) = %zu THEN ", weir__buf_cstr(&i), k);
        rc = put_arg(t, out, e, k);
    }
    weir__buf_puts(out, " ELSE error('[INVALID_ARRAY_INDEX] elt(): the index is "
                        "out of bounds') END");
    weir__buf_free(&i);
    return rc;
}

int weir__fn_date_part(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    char field[32];
    if (!unit_arg(arg(e, 0), field, sizeof(field)))
        return weir__fn_need_literal(t, e, 0, "field");
    weir_sql_expr x = *e;
    x.kind = EX_EXTRACT;
    x.name = field;
    x.a = e->list[1];
    x.n = 0;
    return weir__sql_tx_expr(t, out, &x);
}

int weir__fn_next_day(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    static const char *const DAYS[] = { "SU", "MO", "TU", "WE", "TH", "FR", "SA" };
    static const char *const FULL[] = { "SUNDAY", "MONDAY", "TUESDAY",
                                        "WEDNESDAY", "THURSDAY", "FRIDAY",
                                        "SATURDAY" };
    char day[16];
    const char *lit = weir__fn_string_literal(arg(e, 1));
    if (!lit || !unit_arg(arg(e, 1), day, sizeof(day)))
        return weir__fn_need_literal(t, e, 1, "day of week");
    int k = -1;
    size_t n = strlen(day);
    for (int i = 0; i < 7; i++)
        if (n >= 2 && (strcmp(day, DAYS[i]) == 0 ||
                       (n == 3 && strncmp(day, FULL[i], 3) == 0) ||
                       strcmp(day, FULL[i]) == 0))
            k = i;
    if (k < 0)
        return weir__sql_tx_error(t, e->list[1]->pos, e->src,
                                  "[ILLEGAL_DAY_OF_WEEK] Illegal input for day "
                                  "of week: %s",
                                  lit);
    weir_buf d = WEIR_BUF_INIT;
    int rc = put_date_arg(t, &d, e, 0, false);
    weir__buf_printf(out, "CAST(%s + CAST(((%d - dayofweek(%s) + 6) %% 7) + 1 AS "
                          "INTEGER) AS DATE)",
                     weir__buf_cstr(&d), k, weir__buf_cstr(&d));
    weir__buf_free(&d);
    return rc;
}

int weir__fn_string_agg(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir__buf_puts(out, e->distinct ? "string_agg(DISTINCT " : "string_agg(");
    int rc = put_arg(t, out, e, 0);
    weir__buf_puts(out, ", ");
    if (!rc && e->n == 2)
        rc = put_arg(t, out, e, 1);
    else
        weir__buf_puts(out, "''");
    if (!rc && e->n_within) { /* WITHIN GROUP (ORDER BY ...) */
        weir__buf_puts(out, " ORDER BY ");
        rc = weir__sql_tx_order(t, out, e->within, e->n_within);
    }
    weir__buf_putc(out, ')');
    if (!rc)
        rc = weir__fn_filter_clause(t, out, e, NULL);
    if (!rc)
        rc = weir__fn_over_clause(t, out, e);
    return rc;
}

