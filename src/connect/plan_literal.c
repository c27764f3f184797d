/*
 * Spark Connect literals as Spark SQL literals: numbers (exact decimals,
 * special floating values), strings and binaries, dates and timestamps
 * from their epoch counts, intervals, and arrays, maps and structs of
 * literals, each typed so that Spark and weir read back the client's type.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "util/str.h"

/* Older clients still send the deprecated literal element types: read them
 * too. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Civil date from days since 1970-01-01 (proleptic Gregorian). */
static void civil(int64_t days, int64_t *y, unsigned *mo, unsigned *d)
{
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *mo = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*mo <= 2);
}

static int put_date(plan_ctx *c, weir_buf *b, int64_t days)
{
    int64_t y;
    unsigned mo, d;
    civil(days, &y, &mo, &d);
    if (y < 1 || y > 9999)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "Date literal out of range (year %" PRId64 ").", y);
    weir__buf_printf(b, "%04" PRId64 "-%02u-%02u", y, mo, d);
    return 0;
}

static int put_timestamp(plan_ctx *c, weir_buf *b, const char *kw, int64_t us)
{
    int64_t days = us / 86400000000LL, rem = us % 86400000000LL;
    if (rem < 0) {
        rem += 86400000000LL;
        days--;
    }
    weir__buf_printf(b, "%s '", kw);
    if (put_date(c, b, days) < 0)
        return -1;
    int64_t s = rem / 1000000, frac = rem % 1000000;
    weir__buf_printf(b, " %02d:%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60),
                     (int)(s % 60));
    if (frac)
        weir__buf_printf(b, ".%06d", (int)frac);
    weir__buf_putc(b, '\'');
    return 0;
}

/* Shortest %g form that reads back as the same value. */
static void put_real(weir_buf *b, double v, bool is_float)
{
    char tmp[64];
    for (int prec = is_float ? 6 : 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        double back = strtod(tmp, NULL);
        if (is_float ? (float)back == (float)v : back == v)
            break;
    }
    const char *ty = is_float ? "FLOAT" : "DOUBLE";
    if (strpbrk(tmp, "eE")) {
        weir__buf_printf(b, "CAST('%s' AS %s)", tmp, ty);
        return;
    }
    weir__buf_puts(b, tmp);
    if (!strchr(tmp, '.'))
        weir__buf_puts(b, ".0");
    weir__buf_putc(b, is_float ? 'F' : 'D');
}

static int put_double(weir_buf *b, double v, bool is_float)
{
    const char *ty = is_float ? "FLOAT" : "DOUBLE";
    if (isnan(v))
        weir__buf_printf(b, "CAST('NaN' AS %s)", ty);
    else if (isinf(v))
        weir__buf_printf(b, "CAST('%sInfinity' AS %s)", v < 0 ? "-" : "", ty);
    else
        put_real(b, v, is_float);
    return 0;
}

static void put_day_time(weir_buf *b, int64_t us)
{
    uint64_t a = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
    uint64_t days = a / 86400000000ULL, rem = a % 86400000000ULL;
    uint64_t s = rem / 1000000, frac = rem % 1000000;
    /* A negative interval is negated as a whole: the sign inside the
     * string would apply to the day count only in DuckDB. */
    weir__buf_printf(b, "%sINTERVAL '%" PRIu64 " %02u:%02u:%02u", us < 0 ? "(- " : "",
                     days, (unsigned)(s / 3600), (unsigned)(s / 60 % 60),
                     (unsigned)(s % 60));
    if (frac)
        weir__buf_printf(b, ".%06u", (unsigned)frac);
    weir__buf_puts(b, us < 0 ? "' DAY TO SECOND)" : "' DAY TO SECOND");
}

static bool decimal_text_ok(const char *s)
{
    if (!s || !*s)
        return false;
    bool digit = false;
    for (const char *p = s; *p; p++) {
        if (*p >= '0' && *p <= '9')
            digit = true;
        else if (!strchr("+-.eE", *p))
            return false;
    }
    return digit;
}

/* Precision and scale of a plain decimal text ("-012.50" -> 4, 2). */
static void decimal_digits(const char *v, int *prec, int *scale)
{
    int intd = 0, frac = 0;
    bool lead = true, after = false;
    for (const char *p = v; *p; p++) {
        if (*p == '.') {
            after = true;
        } else if (*p >= '0' && *p <= '9') {
            if (after)
                frac++;
            else if (!(lead && *p == '0'))
                intd++, lead = false;
        }
    }
    *prec = intd + frac > 0 ? intd + frac : 1;
    *scale = frac;
}

static int literal_list(plan_ctx *c, weir_buf *b,
                        Spark__Connect__Expression__Literal *const *items,
                        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (weir__plan_literal(c, b, items[i]) < 0)
            return -1;
    }
    return 0;
}

static int literal_struct(plan_ctx *c, weir_buf *b,
                          const Spark__Connect__Expression__Literal *l)
{
    const Spark__Connect__Expression__Literal__Struct *s = l->struct_;
    if (!s)
        return weir__plan_fail(c, PLAN_E_INVALID, "A struct literal is empty.");
    const Spark__Connect__DataType *ty = l->data_type;
    if (!ty || ty->kind_case != SPARK__CONNECT__DATA_TYPE__KIND_STRUCT)
        ty = s->struct_type;
    const Spark__Connect__DataType__Struct *st =
        ty && ty->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_STRUCT ? ty->struct_ : NULL;
    if (st && st->n_fields == s->n_elements) {
        weir__buf_puts(b, "named_struct(");
        for (size_t i = 0; i < s->n_elements; i++) {
            if (i)
                weir__buf_puts(b, ", ");
            weir__plan_put_string(b, st->fields[i] ? st->fields[i]->name : "");
            weir__buf_puts(b, ", ");
            if (weir__plan_literal(c, b, s->elements[i]) < 0)
                return -1;
        }
    } else {
        weir__buf_puts(b, "struct(");
        if (literal_list(c, b, s->elements, s->n_elements) < 0)
            return -1;
    }
    weir__buf_putc(b, ')');
    return 0;
}

static int literal_array(plan_ctx *c, weir_buf *b,
                         const Spark__Connect__Expression__Literal *l)
{
    const Spark__Connect__Expression__Literal__Array *a = l->array;
    if (!a)
        return weir__plan_fail(c, PLAN_E_INVALID, "An array literal is empty.");
    if (a->n_elements == 0) {
        const Spark__Connect__DataType *et = a->element_type;
        if (l->data_type && l->data_type->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_ARRAY &&
            l->data_type->array)
            et = l->data_type->array->element_type;
        if (et) {
            weir__buf_puts(b, "CAST(array() AS ARRAY<");
            if (weir__plan_type(c, b, et, false) < 0)
                return -1;
            weir__buf_puts(b, ">)");
            return 0;
        }
    }
    weir__buf_puts(b, "array(");
    if (literal_list(c, b, a->elements, a->n_elements) < 0)
        return -1;
    weir__buf_putc(b, ')');
    return 0;
}

static int literal_specialized(plan_ctx *c, weir_buf *b,
                               const Spark__Connect__Expression__Literal__SpecializedArray *a)
{
    if (!a)
        return weir__plan_fail(c, PLAN_E_INVALID, "An array literal is empty.");
    weir__buf_puts(b, "array(");
    switch (a->value_type_case) {
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_BOOLS:
        for (size_t i = 0; a->bools && i < a->bools->n_values; i++)
            weir__buf_printf(b, "%s%s", i ? ", " : "", a->bools->values[i] ? "true" : "false");
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_INTS:
        for (size_t i = 0; a->ints && i < a->ints->n_values; i++)
            weir__buf_printf(b, "%s%" PRId32, i ? ", " : "", a->ints->values[i]);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_LONGS:
        for (size_t i = 0; a->longs && i < a->longs->n_values; i++)
            weir__buf_printf(b, "%sCAST(%" PRId64 " AS BIGINT)", i ? ", " : "",
                             a->longs->values[i]);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_FLOATS:
        for (size_t i = 0; a->floats && i < a->floats->n_values; i++) {
            if (i)
                weir__buf_puts(b, ", ");
            put_double(b, a->floats->values[i], true);
        }
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_DOUBLES:
        for (size_t i = 0; a->doubles && i < a->doubles->n_values; i++) {
            if (i)
                weir__buf_puts(b, ", ");
            put_double(b, a->doubles->values[i], false);
        }
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_STRINGS:
        for (size_t i = 0; a->strings && i < a->strings->n_values; i++) {
            if (i)
                weir__buf_puts(b, ", ");
            weir__plan_put_string(b, a->strings->values[i]);
        }
        break;
    default:
        return weir__plan_fail(c, PLAN_E_INVALID, "Unknown array literal kind %d.",
                               (int)a->value_type_case);
    }
    weir__buf_putc(b, ')');
    return 0;
}

int weir__plan_literal(plan_ctx *c, weir_buf *b,
                       const Spark__Connect__Expression__Literal *l)
{
    plan_mark m;
    if (weir__plan_enter(c, b, NULL, &m) < 0)
        return -1;
    int rc = 0;
    if (!l) {
        rc = weir__plan_fail(c, PLAN_E_INVALID, "A literal is missing.");
        goto out;
    }
    switch (l->literal_type_case) {
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL: {
        const Spark__Connect__DataType *t = l->null ? l->null : l->data_type;
        if (!t || t->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_NULL ||
            t->kind_case == SPARK__CONNECT__DATA_TYPE__KIND__NOT_SET) {
            weir__buf_puts(b, "NULL");
            break;
        }
        weir__buf_puts(b, "CAST(NULL AS ");
        rc = weir__plan_type(c, b, t, false);
        weir__buf_putc(b, ')');
        break;
    }
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BINARY:
        weir__buf_puts(b, "X'");
        for (size_t i = 0; i < l->binary.len; i++)
            weir__buf_printf(b, "%02X", l->binary.data[i]);
        weir__buf_putc(b, '\'');
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN:
        weir__buf_puts(b, l->boolean ? "true" : "false");
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BYTE:
        weir__buf_printf(b, "CAST(%" PRId32 " AS TINYINT)", l->byte);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT:
        weir__buf_printf(b, "CAST(%" PRId32 " AS SMALLINT)", l->short_);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER:
        weir__buf_printf(b, "%" PRId32, l->integer);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG:
        if (l->long_ == INT64_MIN)
            weir__buf_puts(b, "-9223372036854775808");
        else
            weir__buf_printf(b, "%" PRId64 "L", l->long_);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_FLOAT:
        put_double(b, l->float_, true);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE:
        put_double(b, l->double_, false);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL: {
        const Spark__Connect__Expression__Literal__Decimal *d = l->decimal;
        if (!d || !decimal_text_ok(d->value)) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "Invalid decimal literal '%.100s'.",
                                 d && d->value ? d->value : "");
            break;
        }
        if (d->_precision_case && !strpbrk(d->value, "eE")) {
            /* As Spark: the type holds the value whatever the client says
             * (pyspark sends DECIMAL(10,0) for Decimal("1.50")). */
            int vp = 0, vs = 0;
            decimal_digits(d->value, &vp, &vs);
            int p = d->precision, s = d->_scale_case ? d->scale : 0;
            if (vs > s)
                s = vs;
            if (vp - vs > p - s)
                p = vp - vs + s;
            if (p < s)
                p = s;
            if (p < 1 || p > 38 || s < 0 || s > p) {
                rc = weir__plan_fail(c, PLAN_E_INVALID, "Invalid decimal type (%d, %d).",
                                     p, s);
                break;
            }
            weir__buf_printf(b, "CAST('%s' AS DECIMAL(%d,%d))", d->value, p, s);
        } else {
            weir__buf_printf(b, "%sBD", d->value);
        }
        break;
    }
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING:
        weir__plan_put_string(b, l->string);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DATE:
        weir__buf_puts(b, "DATE '");
        rc = put_date(c, b, l->date);
        weir__buf_putc(b, '\'');
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP:
        rc = put_timestamp(c, b, "TIMESTAMP", l->timestamp);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP_NTZ:
        rc = put_timestamp(c, b, "TIMESTAMP_NTZ", l->timestamp_ntz);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_CALENDAR_INTERVAL: {
        const Spark__Connect__Expression__Literal__CalendarInterval *ci = l->calendar_interval;
        if (!ci) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "An interval literal is empty.");
            break;
        }
        weir__buf_puts(b, "INTERVAL");
        if (ci->months)
            weir__buf_printf(b, " %" PRId32 " MONTHS", ci->months);
        if (ci->days)
            weir__buf_printf(b, " %" PRId32 " DAYS", ci->days);
        if (ci->microseconds || (!ci->months && !ci->days))
            weir__buf_printf(b, " %" PRId64 " MICROSECONDS", ci->microseconds);
        break;
    }
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_YEAR_MONTH_INTERVAL: {
        int64_t mo = l->year_month_interval;
        int64_t a = mo < 0 ? -mo : mo;
        weir__buf_printf(b, "%sINTERVAL '%" PRId64 "-%" PRId64 "' YEAR TO MONTH%s",
                         mo < 0 ? "(- " : "", a / 12, a % 12, mo < 0 ? ")" : "");
        break;
    }
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DAY_TIME_INTERVAL:
        put_day_time(b, l->day_time_interval);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_ARRAY:
        rc = literal_array(c, b, l);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_MAP: {
        const Spark__Connect__Expression__Literal__Map *mp = l->map;
        if (!mp || mp->n_keys != mp->n_values) {
            rc = weir__plan_fail(c, PLAN_E_INVALID,
                                 "A map literal has different numbers of keys and values.");
            break;
        }
        weir__buf_puts(b, "map(");
        for (size_t i = 0; i < mp->n_keys && rc == 0; i++) {
            if (i)
                weir__buf_puts(b, ", ");
            if ((rc = weir__plan_literal(c, b, mp->keys[i])) < 0)
                break;
            weir__buf_puts(b, ", ");
            rc = weir__plan_literal(c, b, mp->values[i]);
        }
        weir__buf_putc(b, ')');
        break;
    }
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRUCT:
        rc = literal_struct(c, b, l);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SPECIALIZED_ARRAY:
        rc = literal_specialized(c, b, l->specialized_array);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIME:
        rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED, "TIME literals are not supported.");
        break;
    default:
        rc = weir__plan_fail(c, PLAN_E_INVALID, "Unknown literal kind %d.",
                             (int)l->literal_type_case);
        break;
    }
out:
    weir__plan_leave(c, &m);
    return rc;
}
