/*
 * Reading Arrow IPC streams a client sent (createDataFrame's local rows,
 * a statement's result sent back), with nanoarrow. Apart from the rest of
 * the endpoint, so that the plan translator (plan_local.c) links alone, as
 * its fuzz target does.
 */
#include "connect/internal.h"

#include <string.h>

#include "nanoarrow/nanoarrow.h"
#include "nanoarrow/nanoarrow_ipc.h"

int weir__arrow_ipc_open(struct ArrowArrayStream *out, const uint8_t *data,
                         size_t n)
{
    memset(out, 0, sizeof *out);
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
