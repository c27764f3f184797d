/*
 * Reading Arrow IPC streams a client sent (createDataFrame's local rows,
 * a statement's result sent back), with nanoarrow. Apart from the rest of
 * the endpoint, so that the plan translator (plan_local.c) links alone, as
 * its fuzz target does.
 */
#include "connect/internal.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "nanoarrow/ipc/flatcc_generated.h"
#include "nanoarrow/nanoarrow.h"
#include "nanoarrow/nanoarrow_ipc.h"

/* Every buffer of a decoded batch lies inside its body and starts 8-byte
 * aligned within it, as the Arrow format requires of a writer. nanoarrow
 * checks the first only as offset + length <= body size, which a negative
 * or overflowing length passes; and the readers after us load offsets and
 * values through typed pointers, which a misaligned buffer would make
 * undefined. */
static bool buffers_sound(const struct ArrowArrayView *v, const uint8_t *body,
                          int64_t n)
{
    for (int i = 0; i < NANOARROW_MAX_FIXED_BUFFERS; i++) {
        const struct ArrowBufferView *b = &v->buffer_views[i];
        if (b->size_bytes < 0)
            return false;
        if (!b->data.data || b->size_bytes == 0)
            continue;
        uintptr_t at = (uintptr_t)b->data.data, lo = (uintptr_t)body;
        if (at < lo || at - lo > (uintptr_t)n ||
            (uint64_t)b->size_bytes > (uint64_t)n - (at - lo) || (at - lo) % 8)
            return false;
    }
    for (int64_t i = 0; i < v->n_children; i++)
        if (!buffers_sound(v->children[i], body, n))
            return false;
    return !v->dictionary || buffers_sound(v->dictionary, body, n);
}

/* A record batch's body decodes against the schema seen before it and
 * has every buffer inside it and aligned within it. Decoding a view only
 * places the buffers (nothing is read through them), so the client's
 * bytes are checked where they lie: the reader copies the body to memory
 * as aligned as malloc's, so an offset aligned here is aligned there. */
static int check_batch(struct ArrowIpcDecoder *dec, const uint8_t *body,
                       int64_t n)
{
    struct ArrowBufferView v;
    v.data.as_uint8 = body;
    v.size_bytes = n;
    struct ArrowArrayView *view = NULL;
    int rc = ArrowIpcDecoderDecodeArrayView(dec, v, -1, &view, NULL);
    if (!rc && !buffers_sound(view, body, n))
        rc = EINVAL;
    return rc;
}

#define ns(x) FLATBUFFERS_WRAP_NAMESPACE(org_apache_arrow_flatbuf, x)

/* Every field, its children's too, has the table of its type when its
 * type is not NONE. */
static bool fields_typed(ns(Field_vec_t) fields, int depth)
{
    if (depth > WEIR_CONNECT_MAX_WIRE_DEPTH)
        return false;
    size_t n = ns(Field_vec_len(fields));
    for (size_t i = 0; i < n; i++) {
        ns(Field_table_t) f = ns(Field_vec_at(fields, i));
        if (!f || (ns(Field_type_type(f)) != ns(Type_NONE) &&
                   !ns(Field_type_get(f))))
            return false;
        if (!fields_typed(ns(Field_children(f)), depth + 1))
            return false;
    }
    return true;
}

/* The union values nanoarrow's decoder reads without looking: the
 * message's header (the schema or batch table) and each field's type.
 * The flatbuffer verifier lets an absent union value through, and the
 * decoder then reads through the null table (an assertion in debug
 * builds, a null read in release). m is a message (prefix and
 * flatbuffer, n bytes) nanoarrow has verified. */
static bool unions_present(const uint8_t *m, size_t n)
{
    size_t pre = n >= 4 && m[0] == 0xff && m[1] == 0xff && m[2] == 0xff &&
                         m[3] == 0xff ? 8 : 4;
    if (n < pre + 4)
        return false;
    ns(Message_table_t) msg = ns(Message_as_root(m + pre));
    if (!msg)
        return false;
    if (ns(Message_header_type(msg)) == ns(MessageHeader_NONE))
        return true; /* nanoarrow refuses it by its type */
    flatbuffers_generic_t h = ns(Message_header_get(msg));
    if (!h)
        return false;
    if (ns(Message_header_type(msg)) == ns(MessageHeader_Schema))
        return fields_typed(ns(Schema_fields((ns(Schema_table_t))h)), 0);
    return true;
}

/* Every message of the stream, header and body, lies inside the n bytes:
 * nanoarrow's reader sizes its buffers from the lengths a message
 * declares, so a stream claiming a terabyte-long body would have it
 * allocate that much before it finds the bytes missing. And every record
 * batch's buffers are inside its body and aligned (buffers_sound). */
static int check_messages(const uint8_t *data, size_t n)
{
    struct ArrowIpcDecoder dec;
    if (ArrowIpcDecoderInit(&dec))
        return ENOMEM;
    int rc = 0;
    size_t at = 0;
    bool have_schema = false;
    while (at < n) {
        struct ArrowBufferView v;
        v.data.as_uint8 = data + at;
        v.size_bytes = (int64_t)(n - at);
        rc = ArrowIpcDecoderVerifyHeader(&dec, v, NULL);
        if (rc == ENODATA) { /* the end-of-stream marker */
            rc = 0;
            break;
        }
        if (rc)
            break;
        if (dec.header_size_bytes < 0 || dec.body_size_bytes < 0 ||
            (uint64_t)dec.body_size_bytes > n - at - (size_t)dec.header_size_bytes) {
            rc = EINVAL;
            break;
        }
        if (!unions_present(data + at, (size_t)dec.header_size_bytes)) {
            rc = EINVAL;
            break;
        }
        if ((rc = ArrowIpcDecoderDecodeHeader(&dec, v, NULL)))
            break;
        const uint8_t *body = data + at + dec.header_size_bytes;
        /* A stream has one schema, first (a second one that fails to set
         * would also have nanoarrow free its field table twice). */
        if ((dec.message_type == NANOARROW_IPC_MESSAGE_TYPE_SCHEMA) == have_schema) {
            rc = EINVAL;
            break;
        }
        if (dec.message_type == NANOARROW_IPC_MESSAGE_TYPE_SCHEMA) {
            have_schema = true;
            struct ArrowSchema schema;
            schema.release = NULL;
            rc = ArrowIpcDecoderDecodeSchema(&dec, &schema, NULL);
            if (!rc)
                rc = ArrowIpcDecoderSetSchema(&dec, &schema, NULL);
            if (schema.release)
                schema.release(&schema);
        } else if (dec.message_type == NANOARROW_IPC_MESSAGE_TYPE_RECORD_BATCH) {
            rc = check_batch(&dec, body, dec.body_size_bytes);
        }
        if (rc)
            break;
        at += (size_t)dec.header_size_bytes + (size_t)dec.body_size_bytes;
    }
    ArrowIpcDecoderReset(&dec);
    return rc;
}

int weir__arrow_ipc_open(struct ArrowArrayStream *out, const uint8_t *data,
                         size_t n)
{
    memset(out, 0, sizeof *out);
    int rc0 = check_messages(data, n);
    if (rc0)
        return rc0;
    struct ArrowBuffer in;
    ArrowBufferInit(&in);
    struct ArrowIpcInputStream is;
    memset(&is, 0, sizeof is);
    /* The input stream takes the buffer, the reader the input stream. */
    int rc = ArrowBufferAppend(&in, data, (int64_t)n);
    if (!rc)
        rc = ArrowIpcInputStreamInitBuffer(&is, &in);
    else
        ArrowBufferReset(&in);
    if (!rc && (rc = ArrowIpcArrayStreamReaderInit(out, &is, NULL)) && is.release)
        is.release(&is);
    return rc;
}

bool weir__arrow_ipc_is_no_columns(const uint8_t *data, size_t n)
{
    struct ArrowArrayStream stream;
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    bool none = false;
    if (!weir__arrow_ipc_open(&stream, data, n) &&
        !stream.get_schema(&stream, &schema)) {
        none = schema.n_children == 0;
        schema.release(&schema);
    }
    if (stream.release)
        stream.release(&stream);
    return none;
}
