/*
 * Expression translation to DuckDB SQL: literals (with Spark's literal
 * types made explicit), operators (== <=> div ^ and friends), CASE, casts
 * (integral targets truncate like Spark), predicates, intervals, EXTRACT,
 * TRIM, lambdas (with Spark's 0-based index parameter), subscripts
 * (0-based arrays, maps by key) and struct fields. Function calls go to
 * functions.c.
 */
#include "internal.h"

#include <ctype.h>
#include <string.h>

#include "util/str.h"

static int sub(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    return weir__sql_tx_expr(t, out, e);
}

/* Does a timestamp literal carry a zone (Z, +hh:mm, -hh:mm, a region)? */
static bool has_zone(const char *s)
{
    size_t n = strlen(s);
    if (n <= 10)
        return false;
    for (size_t i = 10; i < n; i++) {
        char c = s[i];
        if (c == '+' || c == '-' || c == 'Z' || c == 'z')
            return true;
        if (isalpha((unsigned char)c) && c != 'T' && c != 't')
            return true;
    }
    return false;
}

static void decimal_type(weir_buf *out, const char *text)
{
    int digits = 0, scale = 0;
    bool frac = false;
    for (const char *s = text; *s; s++) {
        if (*s == '.') {
            frac = true;
        } else if (isdigit((unsigned char)*s)) {
            digits++;
            if (frac)
                scale++;
        }
    }
    if (digits > 38)
        digits = 38;
    if (scale > digits)
        scale = digits;
    if (digits < 1)
        digits = 1;
    weir__buf_printf(out, "DECIMAL(%d,%d)", digits, scale);
}

static int tx_lit(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    switch (e->lit) {
    case LIT_NULL: weir__buf_puts(out, "NULL"); break;
    case LIT_BOOL: weir__buf_puts(out, e->text); break;
    case LIT_INT:
        /* DuckDB reads -2147483648 as -(2147483648), a BIGINT. */
        if (strcmp(e->text, "-2147483648") == 0)
            weir__buf_printf(out, "CAST(%s AS INTEGER)", e->text);
        else
            weir__buf_puts(out, e->text);
        break;
    case LIT_BIGINT: weir__buf_printf(out, "CAST(%s AS BIGINT)", e->text); break;
    case LIT_SMALLINT:
        weir__buf_printf(out, "CAST(%s AS SMALLINT)", e->text);
        break;
    case LIT_TINYINT: weir__buf_printf(out, "CAST(%s AS TINYINT)", e->text); break;
    case LIT_DOUBLE: weir__buf_printf(out, "CAST(%s AS DOUBLE)", e->text); break;
    case LIT_FLOAT: weir__buf_printf(out, "CAST(%s AS FLOAT)", e->text); break;
    case LIT_DECIMAL:
    case LIT_BIGDECIMAL:
        weir__buf_puts(out, "CAST(");
        weir__buf_put_sql_string(out, e->text);
        weir__buf_puts(out, " AS ");
        decimal_type(out, e->text);
        weir__buf_putc(out, ')');
        break;
    case LIT_STRING: weir__buf_put_sql_string(out, e->text); break;
    case LIT_BINARY:
        weir__buf_puts(out, "from_hex(");
        weir__buf_put_sql_string(out, e->text);
        weir__buf_putc(out, ')');
        break;
    case LIT_DATE:
        weir__buf_puts(out, "DATE ");
        weir__buf_put_sql_string(out, e->text);
        break;
    case LIT_TIMESTAMP:
        if (has_zone(e->text)) {
            weir__buf_puts(out, "CAST(TIMESTAMPTZ ");
            weir__buf_put_sql_string(out, e->text);
            weir__buf_puts(out, " AS TIMESTAMP)");
        } else {
            /* a wall clock of the session zone */
            weir_buf lit = WEIR_BUF_INIT;
            weir__buf_puts(&lit, "TIMESTAMP ");
            weir__buf_put_sql_string(&lit, e->text);
            weir__sql_tz_utc(t, out, weir__buf_cstr(&lit));
            weir__buf_free(&lit);
        }
        break;
    case LIT_TIMESTAMP_NTZ:
        weir__buf_puts(out, "TIMESTAMP ");
        weir__buf_put_sql_string(out, e->text);
        return weir__sql_tz_refuse_ntz(t, e->pos, e->src, "A TIMESTAMP_NTZ literal");
    }
    return 0;
}

/* A string or date literal x compared with other (=, <, BETWEEN, IN ..):
 * Spark casts it to a timestamp in the session zone when other is one. */
static int compared(sql_tx *t, weir_buf *out, const weir_sql_expr *x,
                    const weir_sql_expr *other)
{
    if (!t->zone || x->kind != EX_LIT ||
        (x->lit != LIT_STRING && x->lit != LIT_DATE) || other->kind == EX_LIT)
        return sub(t, out, x);
    weir_buf lit = WEIR_BUF_INIT, o = WEIR_BUF_INIT;
    int rc = sub(t, &lit, x);
    if (!rc)
        rc = sub(t, &o, other);
    if (!rc)
        weir__sql_tz_compared(t, out, other, weir__buf_cstr(&o), x,
                              weir__buf_cstr(&lit));
    weir__buf_free(&lit);
    weir__buf_free(&o);
    return rc;
}

static const sql_lambda_scope *lambda_param(const sql_tx *t, const char *name,
                                            size_t *index)
{
    for (const sql_lambda_scope *l = t->lambdas; l; l = l->up)
        for (size_t i = 0; i < l->n; i++)
            if (weir__str_ieq(l->params[i], name)) {
                *index = i;
                return l;
            }
    return NULL;
}

static void put_names(weir_buf *out, const weir_sql_expr *e, size_t from,
                      size_t to)
{
    for (size_t i = from; i < to; i++) {
        if (i > from)
            weir__buf_putc(out, '.');
        weir__buf_put_sql_ident(out, e->names[i]);
    }
}

static bool probe_binds(sql_tx *t, const char *sql, weir_buf *type)
{
    weir__buf_clear(type);
    return weir__sql_tx_types(t, &sql, 1, type);
}

/* a.b.c where a prefix is an array of structs: Spark extracts the field
 * of every element (weather.main of array<struct<main ...>> is an
 * array<string>), DuckDB refuses. When the name as written does not bind,
 * the longest prefix that is a list gets its remaining fields through
 * list_transform. *done false: render the name as written. */
static int array_fields(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                        bool *done)
{
    *done = false;
    if (e->n_names < 2 || !t->resolver || !t->resolver->expr_type ||
        t->lambdas || t->unqualify ||
        (e->n_names == 2 && t->scope &&
         weir__sql_tx_is_relation(t->scope->rel, e->names[0])))
        return 0;
    weir_buf name = WEIR_BUF_INIT, type = WEIR_BUF_INIT;
    put_names(&name, e, 0, e->n_names);
    bool whole = probe_binds(t, weir__buf_cstr(&name), &type);
    for (size_t k = e->n_names - 1; !whole && !*done && k >= 1; k--) {
        weir__buf_clear(&name);
        put_names(&name, e, 0, k);
        if (!probe_binds(t, weir__buf_cstr(&name), &type) ||
            !weir__str_ends(weir__buf_cstr(&type), "[]"))
            continue;
        weir__buf_printf(out, "list_transform(%s, lambda \"__weir_elem\": "
                              "\"__weir_elem\".",
                         weir__buf_cstr(&name));
        put_names(out, e, k, e->n_names);
        weir__buf_putc(out, ')');
        *done = true;
    }
    weir__buf_free(&name);
    weir__buf_free(&type);
    return 0;
}

static int tx_column(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    size_t idx = 0;
    const sql_lambda_scope *l = lambda_param(t, e->names[0], &idx);
    size_t from = 0;
    if (l) {
        if (l->subst) {
            weir__buf_puts(out, l->subst[idx]);
        } else if (l->indexed && idx == 1) {
            /* Spark's index is a 0-based INT */
            weir__buf_puts(out, "CAST(");
            weir__buf_put_sql_ident(out, e->names[0]);
            weir__buf_puts(out, " - 1 AS INTEGER)");
        } else {
            weir__buf_put_sql_ident(out, e->names[0]);
        }
        from = 1;
    } else if (t->session && weir__str_ieq(e->names[0], "session_window")) {
        /* the session of the GROUP BY, by Spark's name for its column */
        int rc = weir__sql_tx_func(t, out, t->session);
        if (rc)
            return rc;
        from = 1;
    } else if (t->time_window && weir__str_ieq(e->names[0], "window")) {
        weir__buf_putc(out, '(');
        int rc = weir__sql_tx_func(t, out, t->time_window);
        if (rc)
            return rc;
        weir__buf_putc(out, ')');
        from = 1;
    } else {
        bool done;
        int rc = array_fields(t, out, e, &done);
        if (rc || done)
            return rc;
    }
    for (size_t i = from; i < e->n_names; i++) {
        if (i)
            weir__buf_putc(out, '.');
        weir__buf_put_sql_ident(out, e->names[i]);
    }
    return 0;
}

/* An interval literal with only YEAR/MONTH/WEEK/DAY units. */
static bool day_interval(const weir_sql_expr *e)
{
    if (!e || e->kind != EX_INTERVAL || e->op || e->n == 0)
        return false;
    for (size_t i = 0; i < e->n; i++) {
        const char *u = e->names[i];
        if (!u || !(weir__str_istarts(u, "YEAR") || weir__str_istarts(u, "MONTH") ||
                    weir__str_istarts(u, "WEEK") || weir__str_istarts(u, "DAY")))
            return false;
    }
    return true;
}

static bool is_lit(const weir_sql_expr *e, sql_lit_kind lo, sql_lit_kind hi)
{
    return e && e->kind == EX_LIT && e->lit >= lo && e->lit <= hi;
}

/* An operand of + - * / %: a string literal is cast the ANSI way (an
 * integer string to BIGINT, strictly; others to DOUBLE) instead of
 * DuckDB's lenient literal cast ('1.5' would become the integer 2). */
static int operand(sql_tx *t, weir_buf *out, const weir_sql_expr *x,
                   const weir_sql_expr *other, bool arith)
{
    if (!arith || !is_lit(x, LIT_STRING, LIT_STRING))
        return sub(t, out, x);
    bool integral = is_lit(other, LIT_INT, LIT_TINYINT);
    bool fractional = is_lit(other, LIT_DECIMAL, LIT_BIGDECIMAL);
    const char *s = x->text;
    size_t i = (*s == '+' || *s == '-') ? 1 : 0;
    bool digits = s[i] != '\0';
    for (; s[i]; i++)
        if (s[i] < '0' || s[i] > '9')
            digits = false;
    if (integral || (digits && !fractional)) {
        weir__buf_puts(out, "CAST(weir_trunc_for_int(");
        weir__buf_put_sql_string(out, s);
        weir__buf_puts(out, ") AS BIGINT)");
    } else {
        weir__buf_puts(out, "CAST(");
        weir__buf_put_sql_string(out, s);
        weir__buf_puts(out, " AS DOUBLE)");
    }
    return 0;
}

/* Spark's DecimalPrecision.adjustPrecisionScale: a result wider than 38
 * digits keeps its integral digits and gives up scale, down to 6. */
static void adjust_decimal(int *p, int *s)
{
    if (*p <= 38)
        return;
    int int_digits = *p - *s;
    int min_scale = *s < 6 ? *s : 6;
    int scale = 38 - int_digits;
    *s = scale > min_scale ? scale : min_scale;
    *p = 38;
}

/* A numeric literal in decimal arithmetic is as wide as its digits in
 * Spark (DecimalType.fromLiteral: 3 is DECIMAL(1,0), not DECIMAL(10,0);
 * 0.1 is DECIMAL(1,1)). */
static void literal_digits(const weir_sql_expr *x, int *p, int *s)
{
    if (x && x->kind == EX_UNARY && strcmp(x->op, "-") == 0)
        x = x->a;
    bool integral = is_lit(x, LIT_INT, LIT_TINYINT);
    if ((!integral && !is_lit(x, LIT_DECIMAL, LIT_DECIMAL)) || !x->text)
        return;
    int digits = 0, scale = 0;
    bool frac = false, lead = true;
    for (const char *c = x->text; *c; c++) {
        if (*c == '.') {
            frac = true;
            continue;
        }
        if (*c < '0' || *c > '9') {
            if (integral && strchr("LlSsYy", *c))
                continue;
            return; /* an exponent or a suffix: leave DuckDB's type */
        }
        scale += frac;
        if (lead && *c == '0')
            continue;
        lead = false;
        digits++;
    }
    if (digits < 1)
        digits = 1;
    if (digits < scale)
        digits = scale;
    if (digits > 38)
        return;
    *p = digits;
    *s = scale;
}

/* Spark's result type of a op b when one is a DECIMAL and the other a
 * DECIMAL or integral (DecimalPrecision, spark.sql.decimalOperations.
 * allowPrecisionLoss on): false when the operands are not both known. */
static bool decimal_result(sql_tx *t, const weir_sql_expr *e, const char *a,
                           const char *b, int *p, int *s, int operands[4])
{
    const char *op = e->op;
    if (is_lit(e->a, LIT_DOUBLE, LIT_FLOAT) || is_lit(e->b, LIT_DOUBLE, LIT_FLOAT) ||
        is_lit(e->a, LIT_STRING, LIT_STRING) || is_lit(e->b, LIT_STRING, LIT_STRING) ||
        e->a->kind == EX_INTERVAL || e->b->kind == EX_INTERVAL)
        return false;
    const char *x[2] = { a, b };
    int pp[2], ss[2];
    bool integral[2];
    if (!weir__sql_tx_decimal_of(t, x, 2, pp, ss, integral) || pp[0] < 0 ||
        pp[1] < 0 || (integral[0] && integral[1]))
        return false;
    literal_digits(e->a, &pp[0], &ss[0]);
    literal_digits(e->b, &pp[1], &ss[1]);
    int p1 = pp[0], s1 = ss[0], p2 = pp[1], s2 = ss[1];
    operands[0] = p1, operands[1] = s1, operands[2] = p2, operands[3] = s2;
    int smax = s1 > s2 ? s1 : s2;
    int i1 = p1 - s1, i2 = p2 - s2;
    if (strcmp(op, "+") == 0 || strcmp(op, "-") == 0) {
        *s = smax;
        *p = (i1 > i2 ? i1 : i2) + smax + 1;
    } else if (strcmp(op, "*") == 0) {
        *p = p1 + p2 + 1;
        *s = s1 + s2;
    } else if (strcmp(op, "/") == 0) {
        *s = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
        *p = i1 + s2 + *s;
    } else {
        *s = smax;
        *p = (i1 < i2 ? i1 : i2) + smax;
    }
    adjust_decimal(p, s);
    return true;
}

/* a op b, its operands translated already. */
static void put_binary(weir_buf *out, const weir_sql_expr *e, const char *a,
                       const char *b)
{
    const char *op = e->op;
    /* ANSI: a zero divisor raises; DATE +/- a day/month interval is a
     * DATE (DuckDB would give a TIMESTAMP). */
    const char *fn = strcmp(op, "div") == 0   ? "weir_div("
                     : strcmp(op, "^") == 0   ? "xor("
                     : strcmp(op, "/") == 0   ? "weir_divide("
                     : strcmp(op, "%") == 0   ? "weir_mod("
                     : day_interval(e->b) && strcmp(op, "+") == 0
                         ? "weir_date_plus("
                     : day_interval(e->b) && strcmp(op, "-") == 0
                         ? "weir_date_minus("
                         : NULL;
    if (fn) {
        weir__buf_printf(out, "%s%s, %s)", fn, a, b);
        return;
    }
    if (strcmp(op, "<=>") == 0)
        weir__buf_printf(out, "(%s IS NOT DISTINCT FROM %s)", a, b);
    else
        weir__buf_printf(out, "(%s %s %s)", a, op, b);
}

/* 10^k (k >= 0) or 10^-k as a DuckDB literal: HUGEINT or exact decimal. */
static void put_pow10(weir_buf *out, int k, bool hugeint)
{
    if (hugeint)
        weir__buf_puts(out, "CAST(");
    if (k < 0)
        weir__buf_puts(out, "0.");
    for (int i = 1; i < (k < 0 ? -k : 0); i++)
        weir__buf_putc(out, '0');
    weir__buf_putc(out, '1');
    for (int i = 0; i < k; i++)
        weir__buf_putc(out, '0');
    if (hugeint)
        weir__buf_puts(out, " AS HUGEINT)");
}

/* a / b with decimal (or integral) operands of precision and scale ops
 * (p1, s1, p2, s2) and Spark's result DECIMAL(p,s), computed exactly on the
 * unscaled values in HUGEINT arithmetic (DuckDB divides decimals as
 * DOUBLEs), when the scaled dividend fits: false otherwise. */
static bool exact_quotient(weir_buf *out, const char *a, const char *b,
                           const int ops[4], int p, int s)
{
    int k = ops[3] + s - ops[1]; /* result unscaled = A * 10^k / B */
    if (k < 0 || ops[0] + k > 38)
        return false;
    weir__buf_printf(out, "CAST(CAST(weir_decimal_divide(CAST((%s) * ", a);
    put_pow10(out, ops[1], false);
    weir__buf_printf(out, " AS HUGEINT), CAST((%s) * ", b);
    put_pow10(out, ops[3], false);
    weir__buf_puts(out, " AS HUGEINT), ");
    put_pow10(out, k, true);
    weir__buf_puts(out, ") AS DECIMAL(38,0)) * ");
    put_pow10(out, -s, false);
    weir__buf_printf(out, " AS DECIMAL(%d,%d))", p, s);
    return true;
}

/* Both operands are DATEs (their translations a and b over the current
 * FROM, typed by the resolver). */
static bool dates(sql_tx *t, const weir_buf *a, const weir_buf *b)
{
    const char *x[2] = { weir__buf_cstr(a), weir__buf_cstr(b) };
    weir_buf types = WEIR_BUF_INIT;
    weir_error saved = *t->err;
    bool ok = weir__sql_tx_types(t, x, 2, &types) &&
              strncmp(weir__buf_cstr(&types), "DATE\nDATE", 9) == 0 &&
              strspn(weir__buf_cstr(&types) + 9, "\n") == types.len - 9;
    *t->err = saved;
    weir__buf_free(&types);
    return ok;
}

/* The translation of an INT literal x as an INTEGER. */
static void int_literal(weir_buf *sql, const weir_sql_expr *x)
{
    if (x && x->kind == EX_UNARY && strcmp(x->op, "-") == 0)
        x = x->a; /* -2 too */
    if (!is_lit(x, LIT_INT, LIT_INT) || sql->failed)
        return;
    weir_buf c = WEIR_BUF_INIT;
    weir__buf_printf(&c, "CAST(%s AS INTEGER)", weir__buf_cstr(sql));
    weir__buf_free(sql);
    *sql = c;
}

static bool comparison(const char *op)
{
    static const char *const OPS[] = { "=", "<>", "<", "<=", ">", ">=", "<=>" };
    for (size_t i = 0; i < sizeof(OPS) / sizeof(OPS[0]); i++)
        if (strcmp(op, OPS[i]) == 0)
            return true;
    return false;
}

/* A binary operator where the session zone (not UTC) matters: a
 * comparison of a timestamp with a string or date literal, ||, and a
 * timestamp plus or minus an interval literal (days and months are added
 * to the zone's wall clock, as Spark does: across a DST change a day is
 * 23 or 25 hours). */
static int tx_zoned_binary(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const char *op = e->op;
    weir_buf a = WEIR_BUF_INIT, b = WEIR_BUF_INIT, x = WEIR_BUF_INIT;
    int rc = 0;
    if (comparison(op)) {
        rc = compared(t, &a, e->a, e->b);
        if (!rc)
            rc = compared(t, &b, e->b, e->a);
        if (!rc)
            put_binary(out, e, weir__buf_cstr(&a), weir__buf_cstr(&b));
    } else if (strcmp(op, "||") == 0) {
        rc = sub(t, &x, e->a);
        if (!rc)
            weir__sql_tz_text(t, &a, e->a, weir__buf_cstr(&x));
        weir__buf_clear(&x);
        if (!rc)
            rc = sub(t, &x, e->b);
        if (!rc) {
            weir__sql_tz_text(t, &b, e->b, weir__buf_cstr(&x));
            weir__buf_printf(out, "(%s || %s)", weir__buf_cstr(&a),
                             weir__buf_cstr(&b));
        }
    } else {
        rc = sub(t, &a, e->a);
        if (!rc)
            rc = sub(t, &b, e->b);
        char k = rc ? 'O' : weir__sql_tz_kind(t, e->a, weir__buf_cstr(&a));
        if (!rc && k == 'T') {
            weir__buf_printf(out, "weir_ts_add_z(%s, %s(%s), ", weir__buf_cstr(&a),
                             op[0] == '-' ? "-" : "", weir__buf_cstr(&b));
            weir__sql_tz_put_zone(t, out);
            weir__buf_putc(out, ')');
        } else if (!rc && k == '?') {
            weir__buf_printf(out, "weir_ts_add_any_z(%s, %s(%s), ", weir__buf_cstr(&a),
                             op[0] == '-' ? "-" : "", weir__buf_cstr(&b));
            weir__sql_tz_put_zone(t, out);
            weir__buf_putc(out, ')');
        } else if (!rc) {
            put_binary(out, e, weir__buf_cstr(&a), weir__buf_cstr(&b));
        }
    }
    weir__buf_free(&a);
    weir__buf_free(&b);
    weir__buf_free(&x);
    return rc;
}

/* Arithmetic with a decimal is cast to Spark's result type when the
 * operands' types are known (DuckDB's differ: DECIMAL(p1+p2,s1+s2) for *,
 * DOUBLE for /). */
static int tx_binary(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const char *op = e->op;
    bool arith = strcmp(op, "+") == 0 || strcmp(op, "-") == 0 ||
                 strcmp(op, "*") == 0 || strcmp(op, "/") == 0 ||
                 strcmp(op, "%") == 0;
    bool plain = strcmp(op, "div") == 0 || strcmp(op, "^") == 0;
    if (t->zone && (comparison(op) || strcmp(op, "||") == 0 ||
                    ((!strcmp(op, "+") || !strcmp(op, "-")) &&
                     e->b->kind == EX_INTERVAL)))
        return tx_zoned_binary(t, out, e);
    weir_buf a = WEIR_BUF_INIT, b = WEIR_BUF_INIT;
    int rc = plain ? sub(t, &a, e->a) : operand(t, &a, e->a, e->b, arith);
    if (!rc)
        rc = plain ? sub(t, &b, e->b) : operand(t, &b, e->b, e->a, arith);
    int p, s, ops[4];
    if (!rc && a.failed + b.failed)
        rc = WEIR_ENOMEM;
    if (!rc && arith && !day_interval(e->b) &&
        decimal_result(t, e, weir__buf_cstr(&a), weir__buf_cstr(&b), &p, &s, ops)) {
        if (strcmp(op, "/") != 0 ||
            !exact_quotient(out, weir__buf_cstr(&a), weir__buf_cstr(&b), ops, p, s)) {
            weir__buf_puts(out, "CAST(");
            put_binary(out, e, weir__buf_cstr(&a), weir__buf_cstr(&b));
            weir__buf_printf(out, " AS DECIMAL(%d,%d))", p, s);
        }
    } else if (!rc && strcmp(op, "-") == 0 && !is_lit(e->a, LIT_NULL, LIT_DECIMAL) &&
               !is_lit(e->b, LIT_NULL, LIT_DECIMAL) && dates(t, &a, &b)) {
        /* DATE - DATE is an INTERVAL DAY in Spark (DuckDB: a number) */
        weir__buf_printf(out, "to_days(CAST((%s - %s) AS INTEGER))",
                         weir__buf_cstr(&a), weir__buf_cstr(&b));
    } else if (!rc) {
        /* an INT literal keeps its type: SMALLINT * 2 is an INT in Spark
         * (DuckDB would type the literal SMALLINT, and overflow there) */
        if (arith && strcmp(op, "%") != 0 &&
            !(is_lit(e->a, LIT_INT, LIT_INT) && is_lit(e->b, LIT_INT, LIT_INT)))
            int_literal(&a, e->a), int_literal(&b, e->b);
        put_binary(out, e, weir__buf_cstr(&a), weir__buf_cstr(&b));
    }
    weir__buf_free(&a);
    weir__buf_free(&b);
    return rc == WEIR_ENOMEM ? weir__sql_tx_error(t, e->pos, e->src, "out of memory")
                             : rc;
}

static bool integral_type(const weir_sql_type *ty)
{
    return ty->kind == TY_BIGINT || ty->kind == TY_INT ||
           ty->kind == TY_SMALLINT || ty->kind == TY_TINYINT;
}

/* An aggregate or window call in e (subqueries aside). DuckDB cannot pick
 * an overload of a typed macro for such an argument ("multiple overloads
 * match"), so casts of aggregates avoid weir_trunc_for_int. */
static bool has_aggregate(const weir_sql_expr *e)
{
    if (!e)
        return false;
    if (e->kind == EX_FUNC && (e->over || weir__sql_is_aggregate(e->name)))
        return true;
    if (has_aggregate(e->a) || has_aggregate(e->b) || has_aggregate(e->c) ||
        has_aggregate(e->filter))
        return true;
    for (size_t i = 0; i < e->n; i++)
        if (has_aggregate(e->list[i]))
            return true;
    return false;
}

/* The rest of CAST(x AS type) (after "CAST(") through a weir_* macro
 * taking the session zone: fn(x, zone) AS type). */
static int zoned_cast(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                      const char *fn)
{
    weir__buf_printf(out, "%s(", fn);
    int rc = sub(t, out, e->a);
    weir__buf_puts(out, ", ");
    weir__sql_tz_put_zone(t, out);
    weir__buf_puts(out, ") AS ");
    weir__sql_type_to_duckdb(out, e->type);
    weir__buf_putc(out, ')');
    return rc;
}

static int tx_cast(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir__buf_puts(out, e->flag ? "TRY_CAST(" : "CAST(");
    bool trunc = integral_type(e->type);
    if (trunc && has_aggregate(e->a))
        /* numbers (what aggregates cast to integers give): Spark truncates */
        weir__buf_puts(out, "trunc(");
    else if (trunc)
        weir__buf_puts(out, e->flag ? "weir_try_trunc_for_int("
                                    : "weir_trunc_for_int(");
    else if (e->type->kind == TY_TIMESTAMP && t->zone) {
        return zoned_cast(t, out, e, e->flag ? "weir_try_to_ts_z" : "weir_to_ts_z");
    } else if (e->type->kind == TY_TIMESTAMP) {
        trunc = true; /* the same closing parenthesis */
        weir__buf_puts(out, e->flag ? "weir_try_to_ts(" : "weir_to_ts(");
    } else if (e->type->kind == TY_STRING && t->zone) {
        return zoned_cast(t, out, e, "weir_to_str_z");
    } else if (e->type->kind == TY_DATE && t->zone) {
        return zoned_cast(t, out, e, e->flag ? "weir_tz_try_date" : "weir_tz_date");
    } else if (e->type->kind == TY_TIMESTAMP_NTZ &&
               weir__sql_tz_refuse_ntz(t, e->pos, e->src, "A cast to TIMESTAMP_NTZ")) {
        return WEIR_ESQL;
    } else if (e->type->kind == TY_STRING) {
        trunc = true;
        weir__buf_puts(out, "weir_to_str(");
    } else if (e->type->kind == TY_BINARY) {
        trunc = true;
        weir__buf_puts(out, "weir_to_bin(");
    } else if (e->type->kind == TY_BOOLEAN) {
        trunc = true; /* Spark trims strings first */
        weir__buf_puts(out, "weir_trim_str(");
    }
    int rc = sub(t, out, e->a);
    if (rc)
        return rc;
    if (trunc)
        weir__buf_putc(out, ')');
    weir__buf_puts(out, " AS ");
    weir__sql_type_to_duckdb(out, e->type);
    weir__buf_putc(out, ')');
    return 0;
}

static int tx_like(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    int rc;
    if (e->op[0] == 'R' && !e->quant && !(e = weir__sql_tx_regex_arg(t, e, (size_t)-1)))
        return WEIR_ESQL;
    if (e->op[0] == 'R') {
        weir__buf_puts(out, e->negated ? "(NOT regexp_matches(" : "regexp_matches(");
        if ((rc = sub(t, out, e->a)))
            return rc;
        weir__buf_puts(out, ", ");
        if ((rc = sub(t, out, e->b)))
            return rc;
        weir__buf_puts(out, e->negated ? "))" : ")");
        return 0;
    }
    if (e->quant) {
        weir__buf_puts(out, e->negated ? "(NOT (" : "((");
        for (size_t i = 0; i < e->n; i++) {
            if (i)
                weir__buf_puts(out, e->quant[1] == 'L' ? " AND " : " OR ");
            weir__buf_putc(out, '(');
            if ((rc = sub(t, out, e->a)))
                return rc;
            weir__buf_printf(out, " %s ", e->op);
            if ((rc = sub(t, out, e->list[i])))
                return rc;
            weir__buf_puts(out, " ESCAPE '\\')");
        }
        weir__buf_puts(out, "))");
        return 0;
    }
    weir__buf_putc(out, '(');
    if ((rc = sub(t, out, e->a)))
        return rc;
    weir__buf_printf(out, e->negated ? " NOT %s " : " %s ", e->op);
    if ((rc = sub(t, out, e->b)))
        return rc;
    weir__buf_puts(out, " ESCAPE ");
    if (e->c) {
        if (strlen(e->c->text) != 1)
            return weir__sql_tx_error(t, e->c->pos, e->src,
                                      "The ESCAPE string must be one "
                                      "character");
        weir__buf_put_sql_string(out, e->c->text);
    } else {
        weir__buf_puts(out, "'\\'");
    }
    weir__buf_putc(out, ')');
    return 0;
}

static int tx_is(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir__buf_putc(out, '(');
    int rc = sub(t, out, e->a);
    if (rc)
        return rc;
    weir__buf_puts(out, e->negated ? " IS NOT " : " IS ");
    if (strcmp(e->op, "DISTINCT") == 0) {
        weir__buf_puts(out, "DISTINCT FROM ");
        if ((rc = sub(t, out, e->b)))
            return rc;
    } else {
        weir__buf_puts(out, e->op);
    }
    weir__buf_putc(out, ')');
    return 0;
}

int weir__sql_tx_lambda(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                        bool indexed)
{
    if (e->kind != EX_LAMBDA)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "A lambda function (x -> ...) is expected "
                                  "here");
    sql_lambda_scope sc = { e->names, e->n_names, indexed, t->lambdas, NULL };
    weir__buf_puts(out, "lambda ");
    for (size_t i = 0; i < e->n_names; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        weir__buf_put_sql_ident(out, e->names[i]);
    }
    weir__buf_puts(out, ": ");
    t->lambdas = &sc;
    int rc = sub(t, out, e->a);
    t->lambdas = sc.up;
    return rc;
}

int weir__sql_tx_lambda_body(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                             const char *const *subst, size_t n_subst)
{
    if (e->kind != EX_LAMBDA || e->n_names != n_subst)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "A lambda function with %zu parameter(s) is "
                                  "expected here",
                                  n_subst);
    sql_lambda_scope sc = { e->names, e->n_names, false, t->lambdas, subst };
    t->lambdas = &sc;
    weir__buf_putc(out, '(');
    int rc = sub(t, out, e->a);
    weir__buf_putc(out, ')');
    t->lambdas = sc.up;
    return rc;
}

/* Spark interval text forms with TO: '1-2' YEAR TO MONTH, '1 10:00:00' DAY
 * TO SECOND, '10:30' HOUR TO MINUTE ... */
static int tx_interval_to(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const char *v = e->list[0]->text;
    weir_buf s = WEIR_BUF_INIT;
    int rc = 0;
    if (weir__str_istarts(e->op, "YEAR TO MONTH")) {
        const char *dash = strchr(v + (*v == '-' ? 1 : 0), '-');
        if (!dash) {
            rc = weir__sql_tx_error(t, e->pos, e->src,
                                    "Invalid interval value '%s'", v);
        } else {
            bool neg = *v == '-';
            weir__buf_printf(&s, "%.*s years %s%s months",
                             (int)(dash - v), v, neg ? "-" : "", dash + 1);
        }
    } else if (weir__str_istarts(e->op, "DAY")) {
        /* 'd hh:mm[:ss]' */
        const char *sp = strchr(v, ' ');
        if (sp) {
            weir__buf_printf(&s, "%.*s days %s", (int)(sp - v), v, sp + 1);
        } else {
            weir__buf_printf(&s, "%s days", v);
        }
    } else if (weir__str_istarts(e->op, "HOUR")) {
        size_t colons = 0;
        for (const char *c = v; *c; c++)
            colons += *c == ':';
        weir__buf_printf(&s, colons >= 2 ? "%s" : "%s:00", v);
    } else if (weir__str_istarts(e->op, "MINUTE")) {
        weir__buf_printf(&s, "00:%s", v);
    } else {
        rc = weir__sql_tx_error(t, e->pos, e->src,
                                "Interval qualifier %s is not supported", e->op);
    }
    if (!rc) {
        weir__buf_puts(out, "CAST(");
        weir__buf_put_sql_string(out, weir__buf_cstr(&s));
        weir__buf_puts(out, " AS INTERVAL)");
    }
    weir__buf_free(&s);
    return rc;
}

static int tx_interval(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    if (e->op)
        return tx_interval_to(t, out, e);
    if (e->n > 1)
        weir__buf_putc(out, '(');
    for (size_t i = 0; i < e->n; i++) {
        if (i)
            weir__buf_puts(out, " + ");
        const char *unit = e->names[i];
        if (!unit) {
            weir__buf_puts(out, "CAST(");
            weir__buf_put_sql_string(out, e->list[i]->text);
            weir__buf_puts(out, " AS INTERVAL)");
            continue;
        }
        /* INTERVAL 'v' UNIT; fractional values go through a cast. */
        const char *v = e->list[i]->text;
        if (strchr(v, '.') || strpbrk(v, " :")) {
            weir__buf_puts(out, "CAST(");
            weir_buf s = WEIR_BUF_INIT;
            weir__buf_printf(&s, "%s %s", v, unit);
            weir__buf_put_sql_string(out, weir__buf_cstr(&s));
            weir__buf_free(&s);
            weir__buf_puts(out, " AS INTERVAL)");
        } else {
            weir__buf_puts(out, "INTERVAL ");
            weir__buf_put_sql_string(out, v);
            weir__buf_printf(out, " %s", unit);
        }
    }
    if (e->n > 1)
        weir__buf_putc(out, ')');
    return 0;
}

static const struct {
    const char *spark, *duck;
} EXTRACT_FIELDS[] = {
    { "YEAR", "year" },     { "Y", "year" },         { "YEARS", "year" },
    { "YR", "year" },       { "YRS", "year" },       { "QUARTER", "quarter" },
    { "QTR", "quarter" },   { "MONTH", "month" },    { "MON", "month" },
    { "MONS", "month" },    { "MONTHS", "month" },   { "WEEK", "week" },
    { "W", "week" },        { "WEEKS", "week" },     { "DAY", "day" },
    { "D", "day" },         { "DAYS", "day" },       { "DAYOFWEEK_ISO", "isodow" },
    { "DOW_ISO", "isodow" }, { "DOY", "doy" },       { "HOUR", "hour" },
    { "H", "hour" },        { "HOURS", "hour" },     { "HR", "hour" },
    { "HRS", "hour" },      { "MINUTE", "minute" },  { "M", "minute" },
    { "MIN", "minute" },    { "MINS", "minute" },    { "MINUTES", "minute" },
    { NULL, NULL }
};

static int tx_extract(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const char *f = e->name;
    weir_buf x = WEIR_BUF_INIT, w = WEIR_BUF_INIT;
    int rc = sub(t, &x, e->a);
    if (rc) {
        weir__buf_free(&x);
        return rc;
    }
    /* the fields of the session zone's wall clock (not an interval's) */
    char k = t->zone ? weir__sql_tz_kind(t, e->a, weir__buf_cstr(&x)) : 'O';
    if (k == 'T' || k == '?')
        weir__sql_tz_wall(t, &w, weir__buf_cstr(&x));
    else
        weir__buf_puts(&w, weir__buf_cstr(&x));
    const char *a = weir__buf_cstr(&w);
    rc = -1;
    if (weir__str_ieq(f, "DAYOFWEEK") || weir__str_ieq(f, "DOW")) {
        weir__buf_printf(out, "CAST(dayofweek(%s) + 1 AS INTEGER)", a);
        rc = 0;
    } else if (weir__str_ieq(f, "SECOND") || weir__str_ieq(f, "S") ||
               weir__str_ieq(f, "SEC") || weir__str_ieq(f, "SECONDS") ||
               weir__str_ieq(f, "SECS")) {
        weir__buf_printf(out,
                         "CAST(date_part('microsecond', %s) / 1000000 AS "
                         "DECIMAL(8,6))",
                         a);
        rc = 0;
    }
    for (int i = 0; rc && EXTRACT_FIELDS[i].spark; i++) {
        if (weir__str_ieq(f, EXTRACT_FIELDS[i].spark)) {
            weir__buf_printf(out, "CAST(date_part('%s', %s) AS INTEGER)",
                             EXTRACT_FIELDS[i].duck, a);
            rc = 0;
        }
    }
    weir__buf_free(&x);
    weir__buf_free(&w);
    if (rc)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "EXTRACT field %s is not supported", f);
    return 0;
}

static int tx_subscript(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    int rc;
    if (e->b->kind == EX_LIT && e->b->lit == LIT_STRING) {
        /* m['key'] can only be a map. */
        weir__buf_putc(out, '(');
        if ((rc = sub(t, out, e->a)))
            return rc;
        weir__buf_puts(out, ")[");
        if ((rc = sub(t, out, e->b)))
            return rc;
        weir__buf_putc(out, ']');
        return 0;
    }
    weir__buf_puts(out, "weir_at(");
    if ((rc = sub(t, out, e->a)))
        return rc;
    weir__buf_puts(out, ", ");
    if ((rc = sub(t, out, e->b)))
        return rc;
    weir__buf_putc(out, ')');
    return 0;
}

int weir__sql_tx_expr(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    if (e == t->done) {
        weir__buf_puts(out, t->done_text);
        return 0;
    }
    if (++t->depth > 4 * SQL_MAX_DEPTH) {
        t->depth--;
        return weir__sql_tx_error(t, e->pos, e->src, "Expression nested too deeply");
    }
    int rc = 0;
    switch (e->kind) {
    case EX_COLUMN: rc = tx_column(t, out, e); break;
    case EX_STAR:
        if (e->n_names || e->n) {
            rc = weir__sql_tx_error(t, e->pos, e->src,
                                    "A qualified * is only allowed in a select "
                                    "list");
            break;
        }
        weir__buf_putc(out, '*');
        break;
    case EX_LIT: rc = tx_lit(t, out, e); break;
    case EX_UNARY:
        if (strcmp(e->op, "+") == 0) {
            rc = sub(t, out, e->a);
            break;
        }
        weir__buf_puts(out, strcmp(e->op, "NOT") == 0 ? "(NOT " :
                            strcmp(e->op, "-") == 0   ? "(- "
                                                      : "(~ ");
        rc = sub(t, out, e->a);
        weir__buf_putc(out, ')');
        break;
    case EX_BINARY: rc = tx_binary(t, out, e); break;
    case EX_FUNC: rc = weir__sql_tx_func(t, out, e); break;
    case EX_CASE:
        weir__buf_puts(out, "CASE");
        if (e->a) {
            weir__buf_putc(out, ' ');
            rc = sub(t, out, e->a);
        }
        for (size_t i = 0; !rc && i + 1 < e->n; i += 2) {
            weir__buf_puts(out, " WHEN ");
            rc = sub(t, out, e->list[i]);
            weir__buf_puts(out, " THEN ");
            if (!rc)
                rc = sub(t, out, e->list[i + 1]);
        }
        if (!rc && e->b) {
            weir__buf_puts(out, " ELSE ");
            rc = sub(t, out, e->b);
        }
        weir__buf_puts(out, " END");
        break;
    case EX_CAST: rc = tx_cast(t, out, e); break;
    case EX_IN:
        weir__buf_putc(out, '(');
        rc = sub(t, out, e->a);
        weir__buf_puts(out, e->negated ? " NOT IN (" : " IN (");
        if (!rc && e->query) {
            t->open++;
            rc = weir__sql_tx_query(t, out, e->query);
            t->open--;
        } else {
            for (size_t i = 0; !rc && i < e->n; i++) {
                if (i)
                    weir__buf_puts(out, ", ");
                rc = compared(t, out, e->list[i], e->a);
            }
        }
        weir__buf_puts(out, "))");
        break;
    case EX_EXISTS:
        weir__buf_puts(out, e->negated ? "(NOT EXISTS (" : "(EXISTS (");
        t->open++;
        rc = weir__sql_tx_query(t, out, e->query);
        t->open--;
        weir__buf_puts(out, "))");
        break;
    case EX_SUBQUERY:
        weir__buf_putc(out, '(');
        t->open++;
        rc = weir__sql_tx_query(t, out, e->query);
        t->open--;
        weir__buf_putc(out, ')');
        break;
    case EX_BETWEEN:
        weir__buf_putc(out, '(');
        rc = sub(t, out, e->a);
        weir__buf_puts(out, e->negated ? " NOT BETWEEN " : " BETWEEN ");
        if (!rc)
            rc = compared(t, out, e->b, e->a);
        weir__buf_puts(out, " AND ");
        if (!rc)
            rc = compared(t, out, e->c, e->a);
        weir__buf_putc(out, ')');
        break;
    case EX_LIKE: rc = tx_like(t, out, e); break;
    case EX_IS: rc = tx_is(t, out, e); break;
    case EX_LAMBDA: rc = weir__sql_tx_lambda(t, out, e, false); break;
    case EX_SUBSCRIPT: rc = tx_subscript(t, out, e); break;
    case EX_FIELD:
        weir__buf_putc(out, '(');
        rc = sub(t, out, e->a);
        weir__buf_puts(out, ").");
        weir__buf_put_sql_ident(out, e->name);
        break;
    case EX_INTERVAL: rc = tx_interval(t, out, e); break;
    case EX_TUPLE:
        weir__buf_puts(out, "(");
        for (size_t i = 0; !rc && i < e->n; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            rc = sub(t, out, e->list[i]);
        }
        weir__buf_putc(out, ')');
        break;
    case EX_EXTRACT: rc = tx_extract(t, out, e); break;
    case EX_TRIM: {
        const char *fn = strcmp(e->op, "LEADING") == 0    ? "ltrim("
                         : strcmp(e->op, "TRAILING") == 0 ? "rtrim("
                                                          : "trim(";
        weir__buf_puts(out, fn);
        rc = sub(t, out, e->a);
        if (!rc && e->b) {
            weir__buf_puts(out, ", ");
            rc = sub(t, out, e->b);
        }
        weir__buf_putc(out, ')');
        break;
    }
    case EX_POSITION:
        weir__buf_puts(out, "CAST(instr(");
        rc = sub(t, out, e->b);
        weir__buf_puts(out, ", ");
        if (!rc)
            rc = sub(t, out, e->a);
        weir__buf_puts(out, ") AS INTEGER)");
        break;
    }
    t->depth--;
    return rc;
}
