/*
 * spark.createDataFrame(local rows): the client sends the rows as an Arrow
 * IPC stream in a LocalRelation; weir decodes it with nanoarrow and writes
 * the rows as Spark SQL, `SELECT * FROM VALUES (...), ... AS t(a, b)` with
 * every value a typed literal, so that the result has the client's column
 * names and types. Lists, maps and structs become typed array(..),
 * map(..) and named_struct(..) values, nested as deep as MAX_NESTING.
 *
 * Bounded by the request size the endpoint accepts and by
 * WEIR_PLAN_MAX_SQL for the generated text.
 */
#include "connect/plan_internal.h"
#include "connect/internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nanoarrow/nanoarrow.h"

#define MAX_NESTING 32 /* nested types in local data */

/* The Spark SQL type of a scalar column, or NULL (unsupported or nested). */
static const char *scalar_type(const struct ArrowSchemaView *v, char *buf, size_t size)
{
    switch (v->type) {
    case NANOARROW_TYPE_NA: return "VOID";
    case NANOARROW_TYPE_BOOL: return "BOOLEAN";
    case NANOARROW_TYPE_INT8: return "TINYINT";
    case NANOARROW_TYPE_INT16: case NANOARROW_TYPE_UINT8: return "SMALLINT";
    case NANOARROW_TYPE_INT32: case NANOARROW_TYPE_UINT16: return "INT";
    case NANOARROW_TYPE_INT64: case NANOARROW_TYPE_UINT32: return "BIGINT";
    case NANOARROW_TYPE_FLOAT: case NANOARROW_TYPE_HALF_FLOAT: return "FLOAT";
    case NANOARROW_TYPE_DOUBLE: return "DOUBLE";
    case NANOARROW_TYPE_STRING: case NANOARROW_TYPE_LARGE_STRING:
    case NANOARROW_TYPE_STRING_VIEW: return "STRING";
    case NANOARROW_TYPE_BINARY: case NANOARROW_TYPE_LARGE_BINARY:
    case NANOARROW_TYPE_BINARY_VIEW: return "BINARY";
    case NANOARROW_TYPE_DATE32: return "DATE";
    case NANOARROW_TYPE_TIMESTAMP:
        return v->timezone && *v->timezone ? "TIMESTAMP" : "TIMESTAMP_NTZ";
    case NANOARROW_TYPE_DECIMAL128:
        /* Spark's and DuckDB's decimals: precision 1 to 38, scale 0 to
         * the precision (a negative or huge scale would also have the
         * literal padded with that many zeros). */
        if (v->decimal_precision < 1 || v->decimal_precision > 38 ||
            v->decimal_scale < 0 || v->decimal_scale > v->decimal_precision)
            return NULL;
        snprintf(buf, size, "DECIMAL(%d, %d)", v->decimal_precision,
                 v->decimal_scale);
        return buf;
    default: return NULL;
    }
}

/* The Spark SQL type of a column of schema s into b (ARRAY<..>, MAP<..>,
 * STRUCT<..> for lists, maps and structs); false when weir cannot take it. */
static bool sql_type(weir_buf *b, const struct ArrowSchema *s, unsigned depth)
{
    struct ArrowSchemaView v;
    struct ArrowError aerr;
    if (depth > MAX_NESTING || ArrowSchemaViewInit(&v, s, &aerr))
        return false;
    char buf[48];
    const char *t = scalar_type(&v, buf, sizeof buf);
    if (t) {
        weir__buf_puts(b, t);
        return true;
    }
    switch (v.type) {
    case NANOARROW_TYPE_LIST: case NANOARROW_TYPE_LARGE_LIST:
        if (s->n_children != 1)
            return false;
        weir__buf_puts(b, "ARRAY<");
        if (!sql_type(b, s->children[0], depth + 1))
            return false;
        weir__buf_putc(b, '>');
        return true;
    case NANOARROW_TYPE_MAP: {
        const struct ArrowSchema *kv = s->n_children == 1 ? s->children[0] : NULL;
        if (!kv || kv->n_children != 2)
            return false;
        weir__buf_puts(b, "MAP<");
        if (!sql_type(b, kv->children[0], depth + 1))
            return false;
        weir__buf_puts(b, ", ");
        if (!sql_type(b, kv->children[1], depth + 1))
            return false;
        weir__buf_putc(b, '>');
        return true;
    }
    case NANOARROW_TYPE_STRUCT:
        if (s->n_children == 0)
            return false;
        weir__buf_puts(b, "STRUCT<");
        for (int64_t k = 0; k < s->n_children; k++) {
            if (k)
                weir__buf_puts(b, ", ");
            weir__plan_put_ident(b, s->children[k]->name ? s->children[k]->name : "");
            weir__buf_puts(b, ": ");
            if (!sql_type(b, s->children[k], depth + 1))
                return false;
        }
        weir__buf_putc(b, '>');
        return true;
    default: return false;
    }
}

/* Microseconds since the epoch as a timestamp literal's text; false when
 * the year does not fit a struct tm. */
static bool put_micros(weir_buf *b, const char *kw, int64_t us)
{
    int64_t secs = us / 1000000, frac = us % 1000000;
    if (frac < 0) {
        frac += 1000000;
        secs--;
    }
    time_t t = (time_t)secs;
    struct tm tm;
    if (!gmtime_r(&t, &tm))
        return false;
    weir__buf_printf(b, "%s'%04d-%02d-%02d %02d:%02d:%02d.%06" PRId64 "'", kw,
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, frac);
    return true;
}

/* A timestamp of the column's unit in microseconds; false on overflow. */
static bool to_micros(const struct ArrowSchemaView *v, int64_t x, int64_t *us)
{
    switch (v->time_unit) {
    case NANOARROW_TIME_UNIT_SECOND: return !__builtin_mul_overflow(x, 1000000, us);
    case NANOARROW_TIME_UNIT_MILLI: return !__builtin_mul_overflow(x, 1000, us);
    case NANOARROW_TIME_UNIT_NANO: *us = x / 1000; return true;
    default: *us = x; return true;
    }
}

static int put_value(plan_ctx *c, weir_buf *b, const struct ArrowSchemaView *v,
                     const struct ArrowArrayView *a, int64_t i, const char *type);

static int child_value(plan_ctx *c, weir_buf *b, const struct ArrowSchema *s,
                       const struct ArrowArrayView *a, int64_t i);

/* Element offsets [*from, *to) of list or map row i into the child; false
 * when they do not lie inside it. */
static bool list_range(const struct ArrowArrayView *a, int64_t i, int64_t *from, int64_t *to)
{
    if (a->n_children != 1 || !a->children[0])
        return false;
    int64_t k = a->offset + i;
    if (a->storage_type == NANOARROW_TYPE_LARGE_LIST) {
        *from = a->buffer_views[1].data.as_int64[k];
        *to = a->buffer_views[1].data.as_int64[k + 1];
    } else {
        *from = a->buffer_views[1].data.as_int32[k];
        *to = a->buffer_views[1].data.as_int32[k + 1];
    }
    return *from >= 0 && *from <= *to && *to <= a->children[0]->length;
}

/* A list, map or struct value as a typed Spark SQL expression:
 * CAST(array(..) AS ARRAY<..>), CAST(map(k, v, ..) AS MAP<..>),
 * CAST(named_struct('f', v, ..) AS STRUCT<..>). */
static int put_nested(plan_ctx *c, weir_buf *b, const struct ArrowSchemaView *v,
                      const struct ArrowArrayView *a, int64_t i, const char *type)
{
    const struct ArrowSchema *s = v->schema;
    plan_mark m;
    if (weir__plan_enter(c, b, NULL, &m) < 0)
        return -1;
    int rc = 0;
    weir__buf_puts(b, "CAST(");
    bool is_map = v->type == NANOARROW_TYPE_MAP;
    if (v->type == NANOARROW_TYPE_STRUCT) {
        weir__buf_puts(b, "named_struct(");
        for (int64_t k = 0; rc == 0 && k < s->n_children; k++) {
            if (k)
                weir__buf_puts(b, ", ");
            weir__plan_put_string(b, s->children[k]->name ? s->children[k]->name : "");
            weir__buf_puts(b, ", ");
            rc = child_value(c, b, s->children[k], a->children[k], a->offset + i);
        }
    } else {
        int64_t from, to;
        if (!list_range(a, i, &from, &to)) {
            weir__plan_leave(c, &m);
            return weir__plan_fail(c, PLAN_E_INVALID,
                                   "createDataFrame: a list's offsets are damaged.");
        }
        const struct ArrowArrayView *e = a->children[0];
        const struct ArrowSchema *es = s->children[0];
        weir__buf_puts(b, is_map ? "map(" : "array(");
        for (int64_t j = from; rc == 0 && j < to; j++) {
            if (j > from)
                weir__buf_puts(b, ", ");
            if (!is_map) {
                rc = child_value(c, b, es, e, j);
                continue;
            }
            if (e->n_children != 2 || es->n_children != 2) {
                rc = weir__plan_fail(c, PLAN_E_INVALID, "createDataFrame: a bad map.");
                break;
            }
            rc = child_value(c, b, es->children[0], e->children[0], e->offset + j);
            weir__buf_puts(b, ", ");
            if (rc == 0)
                rc = child_value(c, b, es->children[1], e->children[1], e->offset + j);
        }
    }
    weir__buf_printf(b, ") AS %s)", type);
    weir__plan_leave(c, &m);
    return rc;
}

/* The value at row i of a nested column's child (schema s, view a). */
static int child_value(plan_ctx *c, weir_buf *b, const struct ArrowSchema *s,
                       const struct ArrowArrayView *a, int64_t i)
{
    struct ArrowSchemaView v;
    struct ArrowError aerr;
    weir_buf type = WEIR_BUF_INIT;
    int rc = 0;
    if (ArrowSchemaViewInit(&v, s, &aerr) || !sql_type(&type, s, 0))
        rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                             "createDataFrame: a nested type weir cannot take from local data.");
    else if (weir__buf_failed(&type))
        rc = weir__plan_fail(c, "OUT_OF_MEMORY", "Out of memory.");
    else
        rc = put_value(c, b, &v, a, i, weir__buf_cstr(&type));
    weir__buf_free(&type);
    return rc;
}

static int put_value(plan_ctx *c, weir_buf *b, const struct ArrowSchemaView *v,
                     const struct ArrowArrayView *a, int64_t i, const char *type)
{
    if (ArrowArrayViewIsNull(a, i) || v->type == NANOARROW_TYPE_NA) {
        weir__buf_printf(b, "CAST(NULL AS %s)", type);
        return 0;
    }
    switch (v->type) {
    case NANOARROW_TYPE_LIST: case NANOARROW_TYPE_LARGE_LIST: case NANOARROW_TYPE_MAP:
    case NANOARROW_TYPE_STRUCT:
        return put_nested(c, b, v, a, i, type);
    case NANOARROW_TYPE_BOOL:
        weir__buf_puts(b, ArrowArrayViewGetIntUnsafe(a, i) ? "true" : "false");
        return 0;
    case NANOARROW_TYPE_INT8: case NANOARROW_TYPE_INT16: case NANOARROW_TYPE_INT32:
    case NANOARROW_TYPE_INT64: case NANOARROW_TYPE_UINT8: case NANOARROW_TYPE_UINT16:
    case NANOARROW_TYPE_UINT32:
        weir__buf_printf(b, "CAST(%" PRId64 " AS %s)", ArrowArrayViewGetIntUnsafe(a, i),
                         type);
        return 0;
    case NANOARROW_TYPE_FLOAT: case NANOARROW_TYPE_HALF_FLOAT:
    case NANOARROW_TYPE_DOUBLE: {
        double d = ArrowArrayViewGetDoubleUnsafe(a, i);
        if (isnan(d))
            weir__buf_printf(b, "CAST('NaN' AS %s)", type);
        else if (isinf(d))
            weir__buf_printf(b, "CAST('%sInfinity' AS %s)", d < 0 ? "-" : "", type);
        else
            weir__buf_printf(b, "CAST('%.17g' AS %s)", d, type);
        return 0;
    }
    case NANOARROW_TYPE_STRING: case NANOARROW_TYPE_LARGE_STRING:
    case NANOARROW_TYPE_STRING_VIEW: {
        struct ArrowStringView s = ArrowArrayViewGetStringUnsafe(a, i);
        if (memchr(s.data, '\0', (size_t)s.size_bytes))
            return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                   "createDataFrame: a string holds a NUL character.");
        weir__plan_put_stringn(b, s.data, (size_t)s.size_bytes);
        return 0;
    }
    case NANOARROW_TYPE_BINARY: case NANOARROW_TYPE_LARGE_BINARY:
    case NANOARROW_TYPE_BINARY_VIEW: {
        struct ArrowBufferView bv = ArrowArrayViewGetBytesUnsafe(a, i);
        weir__buf_puts(b, "X'");
        for (int64_t k = 0; k < bv.size_bytes; k++)
            weir__buf_printf(b, "%02X", bv.data.as_uint8[k]);
        weir__buf_putc(b, '\'');
        return 0;
    }
    case NANOARROW_TYPE_DATE32: {
        int64_t days = ArrowArrayViewGetIntUnsafe(a, i);
        time_t t = (time_t)(days * 86400);
        struct tm tm;
        gmtime_r(&t, &tm);
        weir__buf_printf(b, "DATE'%04d-%02d-%02d'", tm.tm_year + 1900,
                         tm.tm_mon + 1, tm.tm_mday);
        return 0;
    }
    case NANOARROW_TYPE_TIMESTAMP: {
        int64_t us;
        if (!to_micros(v, ArrowArrayViewGetIntUnsafe(a, i), &us) ||
            !put_micros(b, strcmp(type, "TIMESTAMP") == 0 ? "TIMESTAMP" : "TIMESTAMP_NTZ",
                        us))
            return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                   "createDataFrame: a timestamp is out of range.");
        return 0;
    }
    case NANOARROW_TYPE_DECIMAL128: {
        struct ArrowDecimal dec;
        ArrowDecimalInit(&dec, 128, v->decimal_precision, v->decimal_scale);
        ArrowArrayViewGetDecimalUnsafe(a, i, &dec);
        struct ArrowBuffer digits;
        ArrowBufferInit(&digits);
        if (ArrowDecimalAppendDigitsToBuffer(&dec, &digits)) {
            ArrowBufferReset(&digits);
            return weir__plan_fail(c, PLAN_E_INVALID, "createDataFrame: a bad decimal.");
        }
        /* digits of the unscaled value, then the scale's point */
        const char *d = (const char *)digits.data;
        size_t n = (size_t)digits.size_bytes;
        bool neg = n && d[0] == '-';
        if (neg) {
            d++;
            n--;
        }
        weir__buf_printf(b, "CAST('%s", neg ? "-" : "");
        int scale = v->decimal_scale;
        if (scale == 0) { /* sql_type admits scales 0..precision only */
            weir__buf_put(b, d, n);
        } else if (n > (size_t)scale) {
            weir__buf_put(b, d, n - (size_t)scale);
            weir__buf_putc(b, '.');
            weir__buf_put(b, d + n - (size_t)scale, (size_t)scale);
        } else {
            weir__buf_puts(b, "0.");
            for (size_t k = n; k < (size_t)scale; k++)
                weir__buf_putc(b, '0');
            weir__buf_put(b, d, n);
        }
        weir__buf_printf(b, "' AS %s)", type);
        ArrowBufferReset(&digits);
        return 0;
    }
    default:
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED, "createDataFrame: a column "
                               "type weir cannot read from local data.");
    }
}

int weir__plan_local_relation(plan_ctx *c, const Spark__Connect__LocalRelation *lr,
                              weir_buf *out)
{
    if (!lr)
        return weir__plan_fail(c, PLAN_E_INVALID, "A local relation is empty.");
    if (!lr->_data_case) {
        /* createDataFrame([], schema): the schema alone, no rows. */
        if (!lr->_schema_case || !lr->schema)
            return weir__plan_fail(c, PLAN_E_INVALID,
                                   "A local relation has neither rows nor a schema.");
        weir_buf ddl = WEIR_BUF_INIT;
        int rc = weir__plan_schema_ddl(c, &ddl, lr->schema);
        if (!rc) {
            char alias[32];
            snprintf(alias, sizeof alias, "_empty%u", c->next_alias++);
            weir__buf_printf(out, "(SELECT %s.* FROM (SELECT CAST(NULL AS STRUCT<%s>) AS %s) "
                             "WHERE false)", alias, weir__buf_cstr(&ddl), alias);
        }
        weir__buf_free(&ddl);
        return rc;
    }
    struct ArrowArrayStream stream;
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    int rc = weir__arrow_ipc_open(&stream, lr->data.data, lr->data.len);
    if (!rc)
        rc = stream.get_schema(&stream, &schema);
    if (rc) {
        if (stream.release)
            stream.release(&stream);
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "createDataFrame: the local data is not an Arrow "
                               "IPC stream.");
    }
    int64_t n_cols = schema.n_children;
    if (n_cols == 0) {
        /* No SQL relation has no columns; a batch of such rows could also
         * claim any length without a byte behind it. (A statement's empty
         * result sent back is answered before planning: server_exec.c.) */
        schema.release(&schema);
        stream.release(&stream);
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "createDataFrame: local data without columns "
                               "cannot be queried.");
    }
    struct ArrowSchemaView *views = calloc((size_t)n_cols + 1, sizeof *views);
    weir_buf *types = calloc((size_t)n_cols + 1, sizeof *types);
    const char **tnames = calloc((size_t)n_cols + 1, sizeof *tnames);
    struct ArrowError aerr;
    int result = views && types && tnames ? 0 : -1;
    if (result)
        weir__plan_fail(c, PLAN_E_INVALID, "out of memory");
    for (int64_t k = 0; !result && k < n_cols; k++) {
        if (ArrowSchemaViewInit(&views[k], schema.children[k], &aerr) ||
            !sql_type(&types[k], schema.children[k], 0))
            result = weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                     "createDataFrame: column '%s' has a type "
                                     "weir cannot take from local data yet "
                                     "(unions, fixed-size lists, durations and "
                                     "decimals other than precision 1-38 with "
                                     "scale 0 to the precision are not "
                                     "supported).",
                                     schema.children[k]->name
                                         ? schema.children[k]->name : "?");
        else if (weir__buf_failed(&types[k]))
            result = weir__plan_fail(c, "OUT_OF_MEMORY", "Out of memory.");
        else
            tnames[k] = weir__buf_cstr(&types[k]);
    }
    struct ArrowArrayView view;
    bool have_view = false;
    if (!result) {
        have_view = !ArrowArrayViewInitFromSchema(&view, &schema, &aerr);
        if (!have_view)
            result = weir__plan_fail(c, PLAN_E_INVALID, "createDataFrame: %s",
                                     aerr.message);
    }
    int64_t rows = 0;
    weir_buf vals = WEIR_BUF_INIT;
    while (!result) {
        struct ArrowArray batch;
        memset(&batch, 0, sizeof batch);
        if (stream.get_next(&stream, &batch)) {
            result = weir__plan_fail(c, PLAN_E_INVALID,
                                     "createDataFrame: the local data is damaged.");
            break;
        }
        if (!batch.release)
            break;
        if (ArrowArrayViewSetArray(&view, &batch, &aerr)) {
            batch.release(&batch);
            result = weir__plan_fail(c, PLAN_E_INVALID, "createDataFrame: %s",
                                     aerr.message);
            break;
        }
        for (int64_t i = 0; !result && i < batch.length; i++) {
            weir__buf_puts(&vals, rows++ ? ", (" : "(");
            for (int64_t k = 0; !result && k < n_cols; k++) {
                if (k)
                    weir__buf_puts(&vals, ", ");
                result = put_value(c, &vals, &views[k], view.children[k],
                                   i + batch.offset, tnames[k]);
            }
            weir__buf_putc(&vals, ')');
            if (vals.len > WEIR_PLAN_MAX_SQL)
                result = weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                         "createDataFrame: the local data is "
                                         "too large for a query.");
        }
        batch.release(&batch);
    }
    if (!result) {
        weir__buf_puts(out, "(SELECT ");
        if (rows == 0) {
            /* no rows: typed NULLs, filtered out */
            for (int64_t k = 0; k < n_cols; k++) {
                weir__buf_printf(out, "%sCAST(NULL AS %s) AS ", k ? ", " : "", tnames[k]);
                weir__plan_put_ident(out, schema.children[k]->name ? schema.children[k]->name : "");
            }
            weir__buf_puts(out, " WHERE false)");
        } else {
            weir__buf_puts(out, "* FROM VALUES ");
            weir__buf_puts(out, weir__buf_cstr(&vals));
            weir__buf_puts(out, " AS _local(");
            for (int64_t k = 0; k < n_cols; k++) {
                if (k)
                    weir__buf_puts(out, ", ");
                weir__plan_put_ident(out, schema.children[k]->name ? schema.children[k]->name : "");
            }
            weir__buf_puts(out, "))");
        }
    }
    weir__buf_free(&vals);
    if (have_view)
        ArrowArrayViewReset(&view);
    free(views);
    for (int64_t k = 0; types && k < n_cols; k++)
        weir__buf_free(&types[k]);
    free(types);
    free(tnames);
    schema.release(&schema);
    stream.release(&stream);
    return result;
}
