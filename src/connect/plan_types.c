/*
 * Spark Connect data types as Spark DDL ("BIGINT", "DECIMAL(10,2)",
 * "STRUCT<a: INT>", ...), or a top-level struct as a column list. Literals
 * are plan_literal.c, JSON schemas plan_schema.c.
 */
#include <stdio.h>
#include <string.h>

#include "connect/plan_internal.h"

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
