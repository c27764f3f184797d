/*
 * Query results for Spark Connect clients: Arrow C streams (from
 * weir_pipeline_query_arrow) encoded as Arrow IPC streams with nanoarrow,
 * one self-contained stream (schema, one record batch, end) per
 * ExecutePlanResponse.arrow_batch, as Spark's server sends them; and
 * Arrow schemas described as Spark Connect DataTypes for AnalyzePlan.
 *
 * Timestamps: weir stores Spark TIMESTAMP values as DuckDB TIMESTAMP in
 * UTC, which Arrow calls a timestamp without time zone; clients would
 * read those as TIMESTAMP_NTZ. They are sent as timestamps in UTC, the
 * way a Spark server sends TIMESTAMP columns.
 */
#include "connect/internal.h"

#include "connect/grpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanoarrow/nanoarrow.h"
#include "nanoarrow/nanoarrow_ipc.h"

/* Rewrite tz-less timestamp formats of s (a deep copy) to UTC ones. */
static int utc_timestamps(struct ArrowSchema *s, unsigned depth)
{
    if (depth > 64)
        return EINVAL;
    const char *f = s->format;
    if (f && f[0] == 't' && f[1] == 's' && f[2] && f[3] == ':' && !f[4]) {
        char fmt[16];
        snprintf(fmt, sizeof fmt, "ts%c:UTC", f[2]);
        int rc = ArrowSchemaSetFormat(s, fmt);
        if (rc)
            return rc;
    }
    for (int64_t i = 0; i < s->n_children; i++) {
        int rc = utc_timestamps(s->children[i], depth + 1);
        if (rc)
            return rc;
    }
    return 0;
}

/* Encode one batch (released here) as an IPC stream into out and emit it. */
static int emit_batch(const struct ArrowSchema *schema, struct ArrowArrayView *view,
                      struct ArrowArray *batch, struct ArrowBuffer *out,
                      weir__arrow_emit emit, void *ctx, weir__cstatus *st)
{
    struct ArrowError aerr;
    memset(&aerr, 0, sizeof aerr);
    int64_t rows = batch->length;
    out->size_bytes = 0;
    struct ArrowIpcOutputStream os;
    struct ArrowIpcWriter w;
    memset(&w, 0, sizeof w);
    int rc = ArrowIpcOutputStreamInitBuffer(&os, out);
    if (!rc)
        rc = ArrowIpcWriterInit(&w, &os);
    if (!rc)
        rc = ArrowIpcWriterWriteSchema(&w, schema, &aerr);
    if (!rc)
        rc = ArrowArrayViewSetArray(view, batch, &aerr);
    if (!rc)
        rc = ArrowIpcWriterWriteArrayView(&w, view, &aerr);
    if (!rc)
        rc = ArrowIpcWriterWriteArrayView(&w, NULL, &aerr);
    if (w.private_data)
        ArrowIpcWriterReset(&w);
    batch->release(batch);
    if (rc)
        return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "INTERNAL_ERROR",
                                 "XX000", "encoding the result as Arrow IPC: %s",
                                 aerr.message);
    return emit(ctx, out->data, (size_t)out->size_bytes, rows);
}

int weir__arrow_ipc_each(struct ArrowArrayStream *in, weir__arrow_emit emit,
                         void *ctx, weir__cstatus *st)
{
    struct ArrowSchema raw, schema;
    struct ArrowError aerr;
    memset(&raw, 0, sizeof raw);
    memset(&schema, 0, sizeof schema);
    memset(&aerr, 0, sizeof aerr);
    int rc = in->get_schema(in, &raw);
    if (rc)
        return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "INTERNAL_ERROR", "XX000",
                                 "reading the result's schema: %s",
                                 in->get_last_error(in) ? in->get_last_error(in) : "");
    rc = ArrowSchemaDeepCopy(&raw, &schema);
    raw.release(&raw);
    if (!rc)
        rc = utc_timestamps(&schema, 0);
    if (rc) {
        if (schema.release)
            schema.release(&schema);
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "out of memory encoding a result");
    }
    struct ArrowArrayView view;
    rc = ArrowArrayViewInitFromSchema(&view, &schema, &aerr);
    if (rc) {
        schema.release(&schema);
        return weir__cstatus_set(st, WEIR_GRPC_UNIMPLEMENTED,
                                 "UNSUPPORTED_DATATYPE", "0A000",
                                 "a column's type cannot be sent to Spark "
                                 "clients: %s", aerr.message);
    }
    struct ArrowBuffer out;
    ArrowBufferInit(&out);
    bool sent = false;
    int result = 0;
    for (;;) {
        struct ArrowArray batch;
        memset(&batch, 0, sizeof batch);
        rc = in->get_next(in, &batch);
        if (rc) {
            result = weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "INTERNAL_ERROR",
                                       "XX000", "reading the result: %s",
                                       in->get_last_error(in)
                                           ? in->get_last_error(in) : "");
            break;
        }
        bool last = batch.release == NULL;
        /* An empty result still sends its schema: one batch of 0 rows. */
        if (last && sent)
            break;
        struct ArrowArray empty;
        if (last) {
            memset(&empty, 0, sizeof empty);
            if (ArrowArrayInitFromSchema(&empty, &schema, &aerr) ||
                ArrowArrayStartAppending(&empty) ||
                ArrowArrayFinishBuildingDefault(&empty, &aerr)) {
                if (empty.release)
                    empty.release(&empty);
                result = weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "INTERNAL_ERROR",
                                           "XX000", "encoding an empty result: %s",
                                           aerr.message);
                break;
            }
            batch = empty;
        }
        result = emit_batch(&schema, &view, &batch, &out, emit, ctx, st);
        if (result)
            break;
        sent = true;
        if (last)
            break;
    }
    ArrowBufferReset(&out);
    ArrowArrayViewReset(&view);
    schema.release(&schema);
    return result;
}

/* A result built here: one string column `name` holding value in one row,
 * or (name NULL) no columns and no rows; encoded and emitted. */
static int emit_built(const char *name, const char *value,
                      weir__arrow_emit emit, void *ctx, weir__cstatus *st)
{
    struct ArrowSchema schema;
    struct ArrowArray batch;
    struct ArrowArrayView view;
    struct ArrowError aerr;
    memset(&batch, 0, sizeof batch);
    memset(&aerr, 0, sizeof aerr);
    ArrowSchemaInit(&schema);
    int rc = ArrowSchemaSetTypeStruct(&schema, name ? 1 : 0);
    if (!rc && name)
        rc = ArrowSchemaSetType(schema.children[0], NANOARROW_TYPE_STRING);
    if (!rc && name)
        rc = ArrowSchemaSetName(schema.children[0], name);
    if (!rc)
        rc = ArrowArrayInitFromSchema(&batch, &schema, &aerr);
    if (!rc)
        rc = ArrowArrayStartAppending(&batch);
    if (!rc && name)
        rc = ArrowArrayAppendString(batch.children[0], ArrowCharView(value));
    if (!rc && name)
        rc = ArrowArrayFinishElement(&batch);
    if (!rc)
        rc = ArrowArrayFinishBuildingDefault(&batch, &aerr);
    bool have_view = !rc && !(rc = ArrowArrayViewInitFromSchema(&view, &schema, &aerr));
    int result;
    if (rc) {
        if (batch.release)
            batch.release(&batch);
        result = weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                   "out of memory encoding a result");
    } else {
        struct ArrowBuffer out;
        ArrowBufferInit(&out);
        result = emit_batch(&schema, &view, &batch, &out, emit, ctx, st);
        ArrowBufferReset(&out);
    }
    if (have_view)
        ArrowArrayViewReset(&view);
    schema.release(&schema);
    return result;
}

int weir__arrow_ipc_string(const char *name, const char *value,
                           weir__arrow_emit emit, void *ctx, weir__cstatus *st)
{
    return emit_built(name, value, emit, ctx, st);
}

/* Keep the bytes emit_batch hands over. */
typedef struct bytes_out {
    uint8_t *data;
    size_t n;
} bytes_out;

static int keep_bytes(void *ctx, const uint8_t *data, size_t n, int64_t rows)
{
    (void)rows;
    bytes_out *b = ctx;
    b->data = malloc(n ? n : 1);
    if (!b->data)
        return -1;
    memcpy(b->data, data, n);
    b->n = n;
    return 0;
}

int weir__arrow_ipc_no_columns(uint8_t **out, size_t *n, weir__cstatus *st)
{
    bytes_out b = { NULL, 0 };
    int rc = emit_built(NULL, NULL, keep_bytes, &b, st);
    if (rc && !st->code)
        weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                          "out of memory encoding a result");
    *out = b.data;
    *n = b.n;
    return rc;
}

/* ---- Arrow schema -> Spark Connect DataType -------------------------------- */

static Spark__Connect__DataType *dt_new(weir_arena *a)
{
    Spark__Connect__DataType *t = weir__arena_alloc(a, sizeof *t);
    if (t)
        spark__connect__data_type__init(t);
    return t;
}

/* Each kind's message is an empty struct apart from its header: allocate
 * and init one through its descriptor. */
static void *kind_msg(weir_arena *a, const ProtobufCMessageDescriptor *d)
{
    ProtobufCMessage *m = weir__arena_alloc(a, d->sizeof_message);
    if (m)
        d->message_init(m);
    return m;
}

#define SIMPLE(KIND, field, desc)                                           \
    do {                                                                    \
        t->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_##KIND;              \
        t->field = kind_msg(a, &desc);                                      \
        return t->field ? t : NULL;                                         \
    } while (0)

static Spark__Connect__DataType *to_type(weir_arena *a,
                                         const struct ArrowSchema *s,
                                         unsigned depth, char *why, size_t why_size);

static Spark__Connect__DataType *struct_type(weir_arena *a,
                                             const struct ArrowSchema *s,
                                             unsigned depth, char *why,
                                             size_t why_size)
{
    Spark__Connect__DataType *t = dt_new(a);
    Spark__Connect__DataType__Struct *st =
        kind_msg(a, &spark__connect__data_type__struct__descriptor);
    if (!t || !st)
        return NULL;
    st->n_fields = (size_t)s->n_children;
    st->fields = weir__arena_alloc(a, sizeof *st->fields * (st->n_fields + 1));
    if (!st->fields)
        return NULL;
    for (size_t i = 0; i < st->n_fields; i++) {
        const struct ArrowSchema *c = s->children[i];
        Spark__Connect__DataType__StructField *f =
            kind_msg(a, &spark__connect__data_type__struct_field__descriptor);
        if (!f)
            return NULL;
        f->name = weir__arena_strdup(a, c->name ? c->name : "");
        f->nullable = (c->flags & ARROW_FLAG_NULLABLE) != 0;
        f->data_type = to_type(a, c, depth + 1, why, why_size);
        if (!f->name || !f->data_type)
            return NULL;
        st->fields[i] = f;
    }
    t->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_STRUCT;
    t->struct_ = st;
    return t;
}

static Spark__Connect__DataType *to_type(weir_arena *a,
                                         const struct ArrowSchema *s,
                                         unsigned depth, char *why, size_t why_size)
{
    if (depth > 64) {
        snprintf(why, why_size, "nesting too deep");
        return NULL;
    }
    const char *f = s->format ? s->format : "";
    Spark__Connect__DataType *t = dt_new(a);
    if (!t)
        return NULL;
    if (!strcmp(f, "n"))
        SIMPLE(NULL, null, spark__connect__data_type__null__descriptor);
    if (!strcmp(f, "b"))
        SIMPLE(BOOLEAN, boolean, spark__connect__data_type__boolean__descriptor);
    if (!strcmp(f, "c"))
        SIMPLE(BYTE, byte, spark__connect__data_type__byte__descriptor);
    if (!strcmp(f, "s") || !strcmp(f, "C"))
        SIMPLE(SHORT, short_, spark__connect__data_type__short__descriptor);
    if (!strcmp(f, "i") || !strcmp(f, "S"))
        SIMPLE(INTEGER, integer, spark__connect__data_type__integer__descriptor);
    if (!strcmp(f, "l") || !strcmp(f, "I"))
        SIMPLE(LONG, long_, spark__connect__data_type__long__descriptor);
    if (!strcmp(f, "f") || !strcmp(f, "e"))
        SIMPLE(FLOAT, float_, spark__connect__data_type__float__descriptor);
    if (!strcmp(f, "g"))
        SIMPLE(DOUBLE, double_, spark__connect__data_type__double__descriptor);
    if (!strcmp(f, "u") || !strcmp(f, "U") || !strcmp(f, "vu"))
        SIMPLE(STRING, string, spark__connect__data_type__string__descriptor);
    if (!strcmp(f, "z") || !strcmp(f, "Z") || !strcmp(f, "vz"))
        SIMPLE(BINARY, binary, spark__connect__data_type__binary__descriptor);
    if (!strcmp(f, "tdD") || !strcmp(f, "tdm"))
        SIMPLE(DATE, date, spark__connect__data_type__date__descriptor);
    if (f[0] == 't' && f[1] == 's')
        SIMPLE(TIMESTAMP, timestamp, spark__connect__data_type__timestamp__descriptor);
    if (!strcmp(f, "L") || (f[0] == 'd' && f[1] == ':')) {
        int p = 20, sc = 0;
        if (f[0] == 'd' && sscanf(f, "d:%d,%d", &p, &sc) != 2) {
            snprintf(why, why_size, "decimal format '%s'", f);
            return NULL;
        }
        Spark__Connect__DataType__Decimal *d =
            kind_msg(a, &spark__connect__data_type__decimal__descriptor);
        if (!d)
            return NULL;
        d->_precision_case = SPARK__CONNECT__DATA_TYPE__DECIMAL___PRECISION_PRECISION;
        d->precision = p;
        d->_scale_case = SPARK__CONNECT__DATA_TYPE__DECIMAL___SCALE_SCALE;
        d->scale = sc;
        t->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_DECIMAL;
        t->decimal = d;
        return t;
    }
    if ((!strcmp(f, "+l") || !strcmp(f, "+L") || !strcmp(f, "+vl")) &&
        s->n_children == 1) {
        Spark__Connect__DataType__Array *arr =
            kind_msg(a, &spark__connect__data_type__array__descriptor);
        if (!arr)
            return NULL;
        arr->element_type = to_type(a, s->children[0], depth + 1, why, why_size);
        arr->contains_null = (s->children[0]->flags & ARROW_FLAG_NULLABLE) != 0;
        if (!arr->element_type)
            return NULL;
        t->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_ARRAY;
        t->array = arr;
        return t;
    }
    if (!strcmp(f, "+m") && s->n_children == 1 &&
        s->children[0]->n_children == 2) {
        const struct ArrowSchema *e = s->children[0];
        Spark__Connect__DataType__Map *m =
            kind_msg(a, &spark__connect__data_type__map__descriptor);
        if (!m)
            return NULL;
        m->key_type = to_type(a, e->children[0], depth + 1, why, why_size);
        m->value_type = to_type(a, e->children[1], depth + 1, why, why_size);
        m->value_contains_null = (e->children[1]->flags & ARROW_FLAG_NULLABLE) != 0;
        if (!m->key_type || !m->value_type)
            return NULL;
        t->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_MAP;
        t->map = m;
        return t;
    }
    if (!strcmp(f, "+s"))
        return struct_type(a, s, depth, why, why_size);
    snprintf(why, why_size, "Arrow type '%s'", f);
    return NULL;
}

int weir__arrow_spark_schema(weir_arena *a, const struct ArrowSchema *s,
                             Spark__Connect__DataType **out, weir__cstatus *st)
{
    char why[128] = "out of memory";
    *out = to_type(a, s, 0, why, sizeof why);
    if (!*out)
        return weir__cstatus_set(st, WEIR_GRPC_UNIMPLEMENTED,
                                 "UNSUPPORTED_DATATYPE", "0A000",
                                 "a column's type has no Spark equivalent: %s",
                                 why);
    return 0;
}
