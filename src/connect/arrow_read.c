/*
 * Reading Arrow IPC streams a client sent (createDataFrame's local rows,
 * a statement's result sent back), with nanoarrow. Apart from the rest of
 * the endpoint, so that the plan translator (plan_local.c) links alone, as
 * its fuzz target does.
 */
#include "connect/internal.h"

#include <errno.h>
#include <string.h>

#include "nanoarrow/nanoarrow.h"
#include "nanoarrow/nanoarrow_ipc.h"

/* Every message of the stream, header and body, lies inside the n bytes:
 * nanoarrow's reader sizes its buffers from the lengths a message
 * declares, so a stream claiming a terabyte-long body would have it
 * allocate that much before it finds the bytes missing. */
static int check_lengths(const uint8_t *data, size_t n)
{
    struct ArrowIpcDecoder dec;
    if (ArrowIpcDecoderInit(&dec))
        return ENOMEM;
    int rc = 0;
    size_t at = 0;
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
        at += (size_t)dec.header_size_bytes + (size_t)dec.body_size_bytes;
    }
    ArrowIpcDecoderReset(&dec);
    return rc;
}

int weir__arrow_ipc_open(struct ArrowArrayStream *out, const uint8_t *data,
                         size_t n)
{
    memset(out, 0, sizeof *out);
    int rc0 = check_lengths(data, n);
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
