/*
 * Spark Connect data types as Spark DDL, literals as Spark SQL literals,
 * and read schemas (DDL text or StructType JSON) as DDL column lists.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "util/str.h"

/* Older clients still send the deprecated fields (SQL.args, pos_args,
 * rename_columns_map, literal element types): read them too. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* ---- data types ---------------------------------------------------------- */

static const char *const DT_FIELDS[] = { "DAY", "HOUR", "MINUTE", "SECOND" };
static const char *const YM_FIELDS[] = { "YEAR", "MONTH" };

static int interval_type(plan_ctx *c, weir_buf *b, const char *const *names,
                         int n, bool has_start, int start, bool has_end,
                         int end)
{
    int s = has_start ? start : 0;
    int e = has_end ? end : n - 1;
    if (s < 0 || s >= n || e < 0 || e >= n || e < s)
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "Invalid interval type fields (%d, %d).", s, e);
    weir__buf_printf(b, "INTERVAL %s", names[s]);
    if (e != s)
        weir__buf_printf(b, " TO %s", names[e]);
    return 0;
}

static int check_type_text(plan_ctx *c, const char *s)
{
    if (!s || !*s)
        return weir__plan_fail(c, PLAN_E_INVALID, "A data type is empty.");
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr("_ ,<>():`", *p)))
            return weir__plan_fail(c, PLAN_E_SYNTAX,
                                   "Invalid data type '%.200s'.", s);
    return weir__plan_check_text(c, s, "data type");
}

static int struct_fields(plan_ctx *c, weir_buf *b,
                         const Spark__Connect__DataType__Struct *st,
                         bool as_columns)
{
    for (size_t i = 0; i < st->n_fields; i++) {
        const Spark__Connect__DataType__StructField *f = st->fields[i];
        if (i)
            weir__buf_puts(b, ", ");
        if (!f || !f->name || !f->data_type)
            return weir__plan_fail(c, PLAN_E_INVALID,
                                   "A struct field has no name or type.");
        weir__plan_put_ident(b, f->name);
        weir__buf_puts(b, as_columns ? " " : ": ");
        if (weir__plan_type(c, b, f->data_type, false) < 0)
            return -1;
        if (!f->nullable)
            weir__buf_puts(b, " NOT NULL");
    }
    return 0;
}

int weir__plan_type(plan_ctx *c, weir_buf *b, const Spark__Connect__DataType *t,
                    bool as_columns)
{
    plan_mark m;
    if (weir__plan_enter(c, b, NULL, &m) < 0)
        return -1;
    int rc = 0;
    if (!t) {
        rc = weir__plan_fail(c, PLAN_E_INVALID, "A data type is missing.");
        goto out;
    }
    if (as_columns && t->kind_case != SPARK__CONNECT__DATA_TYPE__KIND_STRUCT) {
        rc = weir__plan_fail(c, PLAN_E_INVALID,
                             "A schema must be a struct type.");
        goto out;
    }
    switch (t->kind_case) {
    case SPARK__CONNECT__DATA_TYPE__KIND_NULL: weir__buf_puts(b, "VOID"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_BINARY: weir__buf_puts(b, "BINARY"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_BOOLEAN: weir__buf_puts(b, "BOOLEAN"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_BYTE: weir__buf_puts(b, "TINYINT"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_SHORT: weir__buf_puts(b, "SMALLINT"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_INTEGER: weir__buf_puts(b, "INT"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_LONG: weir__buf_puts(b, "BIGINT"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_FLOAT: weir__buf_puts(b, "FLOAT"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_DOUBLE: weir__buf_puts(b, "DOUBLE"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_STRING: weir__buf_puts(b, "STRING"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_DATE: weir__buf_puts(b, "DATE"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP: weir__buf_puts(b, "TIMESTAMP"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP_NTZ:
        weir__buf_puts(b, "TIMESTAMP_NTZ");
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_CALENDAR_INTERVAL:
        weir__buf_puts(b, "INTERVAL");
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_VARIANT: weir__buf_puts(b, "VARIANT"); break;
    case SPARK__CONNECT__DATA_TYPE__KIND_DECIMAL: {
        const Spark__Connect__DataType__Decimal *d = t->decimal;
        int p = 10, s = 0;
        if (d && d->_precision_case)
            p = d->precision;
        if (d && d->_scale_case)
            s = d->scale;
        if (p < 1 || p > 38 || s < 0 || s > p) {
            rc = weir__plan_fail(c, PLAN_E_INVALID,
                                 "Invalid decimal type (%d, %d).", p, s);
            break;
        }
        weir__buf_printf(b, "DECIMAL(%d,%d)", p, s);
        break;
    }
    case SPARK__CONNECT__DATA_TYPE__KIND_CHAR:
    case SPARK__CONNECT__DATA_TYPE__KIND_VAR_CHAR: {
        bool ch = t->kind_case == SPARK__CONNECT__DATA_TYPE__KIND_CHAR;
        int len = ch ? (t->char_ ? t->char_->length : 0)
                     : (t->var_char ? t->var_char->length : 0);
        if (len <= 0) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "Invalid %s length %d.",
                                 ch ? "CHAR" : "VARCHAR", len);
            break;
        }
        weir__buf_printf(b, "%s(%d)", ch ? "CHAR" : "VARCHAR", len);
        break;
    }
    case SPARK__CONNECT__DATA_TYPE__KIND_YEAR_MONTH_INTERVAL: {
        const Spark__Connect__DataType__YearMonthInterval *y = t->year_month_interval;
        rc = interval_type(c, b, YM_FIELDS, 2, y && y->_start_field_case,
                           y ? y->start_field : 0, y && y->_end_field_case,
                           y ? y->end_field : 0);
        break;
    }
    case SPARK__CONNECT__DATA_TYPE__KIND_DAY_TIME_INTERVAL: {
        const Spark__Connect__DataType__DayTimeInterval *d = t->day_time_interval;
        rc = interval_type(c, b, DT_FIELDS, 4, d && d->_start_field_case,
                           d ? d->start_field : 0, d && d->_end_field_case,
                           d ? d->end_field : 0);
        break;
    }
    case SPARK__CONNECT__DATA_TYPE__KIND_ARRAY:
        if (!t->array) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "An array type has no element type.");
            break;
        }
        weir__buf_puts(b, "ARRAY<");
        rc = weir__plan_type(c, b, t->array->element_type, false);
        weir__buf_putc(b, '>');
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_MAP:
        if (!t->map) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "A map type has no key type.");
            break;
        }
        weir__buf_puts(b, "MAP<");
        if ((rc = weir__plan_type(c, b, t->map->key_type, false)) < 0)
            break;
        weir__buf_puts(b, ", ");
        rc = weir__plan_type(c, b, t->map->value_type, false);
        weir__buf_putc(b, '>');
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_STRUCT:
        if (!t->struct_) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "A struct type has no fields.");
            break;
        }
        if (!as_columns)
            weir__buf_puts(b, "STRUCT<");
        rc = struct_fields(c, b, t->struct_, as_columns);
        if (!as_columns)
            weir__buf_putc(b, '>');
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_UDT:
        if (t->udt && t->udt->_sql_type_case)
            rc = weir__plan_type(c, b, t->udt->sql_type, false);
        else
            rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                 "User-defined type '%.200s' is not supported.",
                                 t->udt && t->udt->type ? t->udt->type : "?");
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_UNPARSED:
        if (!t->unparsed || check_type_text(c, t->unparsed->data_type_string) < 0) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "An unparsed data type is empty.");
            break;
        }
        weir__buf_puts(b, t->unparsed->data_type_string);
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_TIME:
        rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED, "The TIME type is not supported.");
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_GEOMETRY:
    case SPARK__CONNECT__DATA_TYPE__KIND_GEOGRAPHY:
        rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                             "GEOMETRY and GEOGRAPHY types are not supported.");
        break;
    default:
        rc = weir__plan_fail(c, PLAN_E_INVALID, "Unknown data type kind %d.",
                             (int)t->kind_case);
        break;
    }
out:
    weir__plan_leave(c, &m);
    return rc;
}

/* ---- literals ------------------------------------------------------------ */

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

/* ---- StructType JSON schemas --------------------------------------------- */

typedef struct json {
    plan_ctx *c;
    const char *s;
    size_t i;
    unsigned depth;
} json;

static int jfail(json *j, const char *what)
{
    return weir__plan_fail(j->c, PLAN_E_INVALID,
                           "Invalid JSON schema (%s at offset %zu).", what, j->i);
}

static void jws(json *j)
{
    while (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' ||
           j->s[j->i] == '\r')
        j->i++;
}

static bool jeat(json *j, char ch)
{
    jws(j);
    if (j->s[j->i] != ch)
        return false;
    j->i++;
    return true;
}

/* A JSON string into out (NULL: skip); \u escapes become UTF-8. */
static int jstring(json *j, weir_buf *out)
{
    jws(j);
    if (j->s[j->i] != '"')
        return jfail(j, "expected a string");
    j->i++;
    for (;;) {
        char ch = j->s[j->i];
        if (!ch)
            return jfail(j, "unterminated string");
        j->i++;
        if (ch == '"')
            return 0;
        if (ch != '\\') {
            if (out)
                weir__buf_putc(out, ch);
            continue;
        }
        char e = j->s[j->i];
        if (!e)
            return jfail(j, "unterminated string");
        j->i++;
        const char *map = "\"\"\\\\//b\bf\fn\nr\rt\t";
        const char *hit = NULL;
        for (const char *p = map; *p; p += 2)
            if (*p == e) {
                hit = p;
                break;
            }
        if (hit) {
            if (out)
                weir__buf_putc(out, hit[1]);
            continue;
        }
        if (e != 'u')
            return jfail(j, "bad escape");
        unsigned cp = 0;
        for (int k = 0; k < 4; k++) {
            char h = j->s[j->i++];
            int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            if (v < 0)
                return jfail(j, "bad \\u escape");
            cp = cp * 16 + (unsigned)v;
        }
        if (!out)
            continue;
        if (cp == 0)
            return jfail(j, "NUL in string");
        if (cp < 0x80) {
            weir__buf_putc(out, (char)cp);
        } else if (cp < 0x800) {
            weir__buf_putc(out, (char)(0xC0 | (cp >> 6)));
            weir__buf_putc(out, (char)(0x80 | (cp & 0x3F)));
        } else {
            weir__buf_putc(out, (char)(0xE0 | (cp >> 12)));
            weir__buf_putc(out, (char)(0x80 | ((cp >> 6) & 0x3F)));
            weir__buf_putc(out, (char)(0x80 | (cp & 0x3F)));
        }
    }
}

static int jskip(json *j)
{
    jws(j);
    char ch = j->s[j->i];
    if (ch == '"')
        return jstring(j, NULL);
    if (ch == '{' || ch == '[') {
        if (++j->depth > 64)
            return jfail(j, "nested too deeply");
        char close = ch == '{' ? '}' : ']';
        j->i++;
        if (jeat(j, close)) {
            j->depth--;
            return 0;
        }
        do {
            if (ch == '{') {
                if (jstring(j, NULL) < 0)
                    return -1;
                if (!jeat(j, ':'))
                    return jfail(j, "expected ':'");
            }
            if (jskip(j) < 0)
                return -1;
        } while (jeat(j, ','));
        if (!jeat(j, close))
            return jfail(j, "expected a closing bracket");
        j->depth--;
        return 0;
    }
    size_t start = j->i;
    while (j->s[j->i] && strchr("0123456789+-.eEtruefalsn", j->s[j->i]))
        j->i++;
    return j->i > start ? 0 : jfail(j, "unexpected character");
}

static int jbool(json *j, bool *out)
{
    jws(j);
    if (strncmp(j->s + j->i, "true", 4) == 0) {
        *out = true;
        j->i += 4;
        return 0;
    }
    if (strncmp(j->s + j->i, "false", 5) == 0) {
        *out = false;
        j->i += 5;
        return 0;
    }
    return jfail(j, "expected a boolean");
}

static int jtype(json *j, weir_buf *out);

/* A primitive type name as the JSON form writes it ("long",
 * "decimal(10,2)", ...). */
static int jprimitive(json *j, weir_buf *out, const char *name)
{
    static const struct {
        const char *json, *ddl;
    } P[] = {
        { "long", "BIGINT" },       { "integer", "INT" },
        { "short", "SMALLINT" },    { "byte", "TINYINT" },
        { "float", "FLOAT" },       { "double", "DOUBLE" },
        { "string", "STRING" },     { "boolean", "BOOLEAN" },
        { "binary", "BINARY" },     { "date", "DATE" },
        { "timestamp", "TIMESTAMP" }, { "timestamp_ntz", "TIMESTAMP_NTZ" },
        { "null", "VOID" },         { "void", "VOID" },
        { "variant", "VARIANT" },   { "calendarinterval", "INTERVAL" },
        { "decimal", "DECIMAL(10,0)" }, { NULL, NULL }
    };
    for (int i = 0; P[i].json; i++)
        if (weir__str_ieq(name, P[i].json)) {
            weir__buf_puts(out, P[i].ddl);
            return 0;
        }
    /* decimal(p,s), char(n), varchar(n), interval day to second, ... */
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr(" ,()", *p)))
            return jfail(j, "unknown type name");
    if (weir__str_istarts(name, "decimal(") || weir__str_istarts(name, "char(") ||
        weir__str_istarts(name, "varchar(") || weir__str_istarts(name, "interval")) {
        for (const char *p = name; *p; p++)
            weir__buf_putc(out, (*p >= 'a' && *p <= 'z') ? (char)(*p - 32) : *p);
        return 0;
    }
    return weir__plan_fail(j->c, PLAN_E_UNSUPPORTED,
                           "Unsupported type '%.100s' in a JSON schema.", name);
}

/* One struct field object: {"name":..,"type":..,"nullable":..,..}. */
static int jfield(json *j, weir_buf *out, bool as_columns)
{
    weir_buf name = WEIR_BUF_INIT, type = WEIR_BUF_INIT;
    bool nullable = true, have_name = false, have_type = false;
    int rc = 0;
    if (!jeat(j, '{')) {
        rc = jfail(j, "expected a field object");
        goto out;
    }
    if (!jeat(j, '}')) {
        do {
            weir_buf key = WEIR_BUF_INIT;
            if ((rc = jstring(j, &key)) < 0 || !jeat(j, ':')) {
                weir__buf_free(&key);
                rc = rc < 0 ? rc : jfail(j, "expected ':'");
                goto out;
            }
            const char *k = weir__buf_cstr(&key);
            if (strcmp(k, "name") == 0) {
                weir__buf_clear(&name);
                rc = jstring(j, &name);
                have_name = true;
            } else if (strcmp(k, "type") == 0) {
                weir__buf_clear(&type);
                rc = jtype(j, &type);
                have_type = true;
            } else if (strcmp(k, "nullable") == 0) {
                rc = jbool(j, &nullable);
            } else {
                rc = jskip(j);
            }
            weir__buf_free(&key);
            if (rc < 0)
                goto out;
        } while (jeat(j, ','));
        if (!jeat(j, '}')) {
            rc = jfail(j, "expected '}'");
            goto out;
        }
    }
    if (!have_name || !have_type) {
        rc = jfail(j, "a field needs a name and a type");
        goto out;
    }
    weir__plan_put_ident(out, weir__buf_cstr(&name));
    weir__buf_puts(out, as_columns ? " " : ": ");
    weir__buf_puts(out, weir__buf_cstr(&type));
    if (!nullable)
        weir__buf_puts(out, " NOT NULL");
out:
    weir__buf_free(&name);
    weir__buf_free(&type);
    return rc;
}

static int jfields(json *j, weir_buf *out, bool as_columns)
{
    if (!jeat(j, '['))
        return jfail(j, "expected a fields array");
    if (jeat(j, ']'))
        return 0;
    size_t n = 0;
    do {
        if (n++)
            weir__buf_puts(out, ", ");
        if (jfield(j, out, as_columns) < 0)
            return -1;
    } while (jeat(j, ','));
    return jeat(j, ']') ? 0 : jfail(j, "expected ']'");
}

/* A complex type object; as_columns renders a struct as a column list. */
static int jobject(json *j, weir_buf *out, bool as_columns)
{
    weir_buf kind = WEIR_BUF_INIT, fields = WEIR_BUF_INIT, elem = WEIR_BUF_INIT,
             key = WEIR_BUF_INIT, val = WEIR_BUF_INIT, sql = WEIR_BUF_INIT;
    bool have_fields = false, contains_null = true, value_null = true;
    int rc = 0;
    if (++j->depth > 64) {
        rc = jfail(j, "nested too deeply");
        goto out;
    }
    if (!jeat(j, '{')) {
        rc = jfail(j, "expected a type object");
        goto out;
    }
    if (!jeat(j, '}')) {
        do {
            weir_buf k = WEIR_BUF_INIT;
            if ((rc = jstring(j, &k)) < 0 || !jeat(j, ':')) {
                weir__buf_free(&k);
                rc = rc < 0 ? rc : jfail(j, "expected ':'");
                goto out;
            }
            const char *ks = weir__buf_cstr(&k);
            if (strcmp(ks, "type") == 0) {
                weir__buf_clear(&kind);
                rc = jstring(j, &kind);
            } else if (strcmp(ks, "fields") == 0) {
                weir__buf_clear(&fields);
                rc = jfields(j, &fields, as_columns);
                have_fields = true;
            } else if (strcmp(ks, "elementType") == 0) {
                weir__buf_clear(&elem);
                rc = jtype(j, &elem);
            } else if (strcmp(ks, "keyType") == 0) {
                weir__buf_clear(&key);
                rc = jtype(j, &key);
            } else if (strcmp(ks, "valueType") == 0) {
                weir__buf_clear(&val);
                rc = jtype(j, &val);
            } else if (strcmp(ks, "sqlType") == 0) {
                weir__buf_clear(&sql);
                rc = jtype(j, &sql);
            } else if (strcmp(ks, "containsNull") == 0) {
                rc = jbool(j, &contains_null);
            } else if (strcmp(ks, "valueContainsNull") == 0) {
                rc = jbool(j, &value_null);
            } else {
                rc = jskip(j);
            }
            weir__buf_free(&k);
            if (rc < 0)
                goto out;
        } while (jeat(j, ','));
        if (!jeat(j, '}')) {
            rc = jfail(j, "expected '}'");
            goto out;
        }
    }
    const char *k = weir__buf_cstr(&kind);
    if (as_columns && strcmp(k, "struct") != 0) {
        rc = jfail(j, "a schema must be a struct");
    } else if (strcmp(k, "struct") == 0 && have_fields) {
        weir__buf_printf(out, as_columns ? "%s" : "STRUCT<%s>", weir__buf_cstr(&fields));
    } else if (strcmp(k, "array") == 0 && elem.len) {
        weir__buf_printf(out, "ARRAY<%s>", weir__buf_cstr(&elem));
    } else if (strcmp(k, "map") == 0 && key.len && val.len) {
        weir__buf_printf(out, "MAP<%s, %s>", weir__buf_cstr(&key), weir__buf_cstr(&val));
    } else if (strcmp(k, "udt") == 0 && sql.len) {
        weir__buf_puts(out, weir__buf_cstr(&sql));
    } else {
        rc = jfail(j, "unknown complex type");
    }
out:
    j->depth--;
    weir__buf_free(&kind);
    weir__buf_free(&fields);
    weir__buf_free(&elem);
    weir__buf_free(&key);
    weir__buf_free(&val);
    weir__buf_free(&sql);
    return rc;
}

static int jtype(json *j, weir_buf *out)
{
    jws(j);
    if (j->s[j->i] == '{')
        return jobject(j, out, false);
    weir_buf name = WEIR_BUF_INIT;
    int rc = jstring(j, &name);
    if (rc == 0)
        rc = jprimitive(j, out, weir__buf_cstr(&name));
    weir__buf_free(&name);
    return rc;
}

int weir__plan_schema_ddl(plan_ctx *c, weir_buf *b, const char *schema)
{
    const char *p = schema;
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    if (*p != '{') {
        /* Already DDL: keep it as the user wrote it. */
        return weir__plan_check_text(c, schema, "schema") < 0
                   ? -1 : (weir__buf_puts(b, schema), 0);
    }
    json j = { c, p, 0, 0 };
    if (jobject(&j, b, true) < 0)
        return -1;
    jws(&j);
    if (j.s[j.i])
        return jfail(&j, "trailing text");
    return 0;
}

int weir__plan_json_type_ddl(plan_ctx *c, weir_buf *b, const char *text)
{
    const char *p = text;
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    if (*p != '{')
        return 0;
    weir_buf t = WEIR_BUF_INIT;
    json j = { c, p, 0, 0 };
    int rc = jobject(&j, &t, false);
    if (rc == 0) {
        jws(&j);
        if (j.s[j.i])
            rc = jfail(&j, "trailing text");
    }
    if (rc == 0) {
        /* A struct becomes a column list, as a DDL schema is usually
         * written. */
        const char *ddl = weir__buf_cstr(&t);
        if (strncmp(ddl, "STRUCT<", 7) == 0) {
            weir_buf cols = WEIR_BUF_INIT;
            json j2 = { c, p, 0, 0 };
            rc = jobject(&j2, &cols, true);
            if (rc == 0)
                weir__buf_puts(b, weir__buf_cstr(&cols));
            weir__buf_free(&cols);
        } else {
            weir__buf_puts(b, ddl);
        }
    }
    weir__buf_free(&t);
    return rc < 0 ? -1 : 1;
}
