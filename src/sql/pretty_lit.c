/*
 * Literals in Spark's generated column names (pretty.c): numbers as the JVM
 * prints their values (1L is 1, 01.50BD is 1.50, 1e10 is 1.0E10, 0.001 stays),
 * binary as upper-case hex, and interval literals as Spark normalises them
 * (INTERVAL 90 MINUTES is INTERVAL '90' MINUTE, INTERVAL 1 DAY 2 HOURS is
 * INTERVAL '1 02' DAY TO HOUR).
 */
#include "internal.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

/* The literal's digits without a type suffix (L, S, Y, D, F, BD). */
static size_t number_len(const char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isalpha((unsigned char)s[n - 1]) &&
           !(n >= 2 && (s[n - 1] == 'e' || s[n - 1] == 'E')))
        n--;
    return n;
}

/* Java's Double.toString (float: Float.toString) of v: the shortest digits
 * that read back as v, plain between 1e-3 and 1e7, else d.dddE[-]n. */
static void java_double(weir_buf *out, double v, bool is_float)
{
    if (isnan(v)) {
        weir__buf_puts(out, "NaN");
        return;
    }
    if (isinf(v)) {
        weir__buf_puts(out, v < 0 ? "-Infinity" : "Infinity");
        return;
    }
    if (v == 0) {
        weir__buf_puts(out, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    char sci[64];
    for (int p = 0; p < 17; p++) {
        snprintf(sci, sizeof sci, "%.*e", p, v);
        if (is_float ? strtof(sci, NULL) == (float)v : strtod(sci, NULL) == v)
            break;
    }
    /* sci: [-]d[.ddd]e[+-]xx -> sign, digits, exponent */
    const char *s = sci;
    bool neg = *s == '-';
    if (neg)
        s++;
    char digits[32];
    size_t nd = 0;
    for (; *s && *s != 'e'; s++)
        if (isdigit((unsigned char)*s) && nd < sizeof digits - 1)
            digits[nd++] = *s;
    digits[nd] = '\0';
    while (nd > 1 && digits[nd - 1] == '0')
        digits[--nd] = '\0';
    int exp = *s == 'e' ? atoi(s + 1) : 0;
    if (neg)
        weir__buf_putc(out, '-');
    double mag = fabs(v);
    if (mag >= 1e-3 && mag < 1e7) {
        if (exp < 0) {
            weir__buf_puts(out, "0.");
            for (int i = -1; i > exp; i--)
                weir__buf_putc(out, '0');
            weir__buf_puts(out, digits);
        } else {
            for (int i = 0; i <= exp; i++)
                weir__buf_putc(out, (size_t)i < nd ? digits[i] : '0');
            weir__buf_putc(out, '.');
            weir__buf_puts(out, (size_t)exp + 1 < nd ? digits + exp + 1 : "0");
        }
        return;
    }
    weir__buf_putc(out, digits[0]);
    weir__buf_putc(out, '.');
    weir__buf_puts(out, nd > 1 ? digits + 1 : "0");
    weir__buf_printf(out, "E%d", exp);
}

/* A decimal literal as BigDecimal prints it: 01.50 -> 1.50, .5 -> 0.5. */
static void decimal(weir_buf *out, const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) {
        if (s[i] == '-')
            weir__buf_putc(out, '-');
        i++;
    }
    while (i + 1 < n && s[i] == '0' && s[i + 1] != '.')
        i++;
    if (i < n && s[i] == '.')
        weir__buf_putc(out, '0');
    weir__buf_put(out, s + i, n - i);
}

void weir__sql_pretty_lit(weir_buf *out, const weir_sql_expr *e)
{
    const char *s = e->text ? e->text : "";
    switch (e->lit) {
    case LIT_NULL: weir__buf_puts(out, "NULL"); break;
    case LIT_STRING: weir__buf_puts(out, s); break;
    case LIT_DATE: weir__buf_printf(out, "DATE '%s'", s); break;
    case LIT_TIMESTAMP: weir__buf_printf(out, "TIMESTAMP '%s'", s); break;
    case LIT_TIMESTAMP_NTZ: weir__buf_printf(out, "TIMESTAMP_NTZ '%s'", s); break;
    case LIT_BINARY:
        weir__buf_puts(out, "X'");
        for (; *s; s++)
            weir__buf_putc(out, (char)toupper((unsigned char)*s));
        weir__buf_putc(out, '\'');
        break;
    case LIT_DOUBLE:
    case LIT_FLOAT: {
        char tmp[128];
        snprintf(tmp, sizeof tmp, "%.*s", (int)number_len(s), s);
        java_double(out, strtod(tmp, NULL), e->lit == LIT_FLOAT);
        break;
    }
    case LIT_DECIMAL:
    case LIT_BIGDECIMAL: decimal(out, s, number_len(s)); break;
    case LIT_INT:
    case LIT_BIGINT:
    case LIT_SMALLINT:
    case LIT_TINYINT: weir__buf_put(out, s, number_len(s)); break;
    default: weir__buf_puts(out, s); break;
    }
}

/* ---- intervals ---- */

enum { U_YEAR, U_MONTH, U_DAY, U_HOUR, U_MINUTE, U_SECOND, U_N };
static const char *const UNIT_NAME[U_N] = { "YEAR", "MONTH", "DAY",
                                            "HOUR", "MINUTE", "SECOND" };

static int unit_of(const char *u, int64_t *micros)
{
    static const struct {
        const char *name;
        int unit;
        int64_t micros;
    } U[] = { { "YEAR", U_YEAR, 12 },           { "MONTH", U_MONTH, 1 },
              { "WEEK", U_DAY, 7 * 86400000000LL }, { "DAY", U_DAY, 86400000000LL },
              { "HOUR", U_HOUR, 3600000000LL },  { "MINUTE", U_MINUTE, 60000000LL },
              { "SECOND", U_SECOND, 1000000 },   { "MILLISECOND", U_SECOND, 1000 },
              { "MICROSECOND", U_SECOND, 1 },    { NULL, 0, 0 } };
    for (int i = 0; U[i].name; i++)
        if (weir__str_ieq(u, U[i].name)) {
            *micros = U[i].micros;
            return U[i].unit;
        }
    return -1;
}

/* Seconds of micros as Spark prints them: 2 digits, the fraction without
 * trailing zeros. */
static void seconds(weir_buf *out, int64_t micros)
{
    weir__buf_printf(out, "%02" PRId64, micros / 1000000);
    int64_t frac = micros % 1000000;
    if (frac) {
        char f[8];
        snprintf(f, sizeof f, "%06" PRId64, frac);
        size_t n = strlen(f);
        while (n > 0 && f[n - 1] == '0')
            n--;
        weir__buf_printf(out, ".%.*s", (int)n, f);
    }
}

static void day_time(weir_buf *out, int64_t micros, int start, int end)
{
    if (micros < 0) {
        weir__buf_putc(out, '-');
        micros = -micros;
    }
    static const int64_t PER[U_N] = { 0, 0, 86400000000LL, 3600000000LL,
                                      60000000LL, 1000000 };
    for (int u = start; u <= end; u++) {
        if (u > start)
            weir__buf_putc(out, u == U_HOUR ? ' ' : ':');
        if (u == U_SECOND) {
            seconds(out, micros);
            break;
        }
        int64_t v = micros / PER[u];
        micros %= PER[u];
        weir__buf_printf(out, u == U_DAY ? "%" PRId64 : "%02" PRId64, v);
    }
}

/* Spark's form of an interval literal whose parts are numbers with units:
 * the value over the units from the largest to the smallest written.
 * Returns false (nothing written) for other forms. */
static bool normalised(weir_buf *out, const weir_sql_expr *e)
{
    int64_t months = 0, micros = 0;
    int lo = U_N, hi = -1;
    for (size_t i = 0; i < e->n; i++) {
        int64_t per = 0;
        int u = e->names[i] ? unit_of(e->names[i], &per) : -1;
        const char *t = e->list[i]->text;
        char *end = NULL;
        double v = t ? strtod(t, &end) : 0;
        if (u < 0 || !t || end == t || *end || fabs(v) > 1e15)
            return false;
        if (u <= U_MONTH)
            months += (int64_t)v * per;
        else
            micros += (int64_t)llround(v * (double)per);
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    if (hi < 0 || (lo <= U_MONTH && hi > U_MONTH))
        return false;
    weir__buf_puts(out, "INTERVAL '");
    if (hi <= U_MONTH) {
        const char *sign = months < 0 ? "-" : "";
        int64_t m = months < 0 ? -months : months;
        if (lo == U_YEAR && hi == U_MONTH)
            weir__buf_printf(out, "%s%" PRId64 "-%" PRId64, sign, m / 12, m % 12);
        else
            weir__buf_printf(out, "%s%" PRId64, sign, lo == U_YEAR ? m / 12 : m);
    } else {
        day_time(out, micros, lo, hi);
    }
    weir__buf_printf(out, "' %s", UNIT_NAME[lo]);
    if (hi != lo)
        weir__buf_printf(out, " TO %s", UNIT_NAME[hi]);
    return true;
}

void weir__sql_pretty_interval(weir_buf *out, const weir_sql_expr *e)
{
    if (e->op && e->n == 1) { /* INTERVAL '1-2' YEAR TO MONTH */
        weir__buf_printf(out, "INTERVAL '%s' %s", e->list[0]->text, e->op);
        return;
    }
    if (normalised(out, e))
        return;
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
}
