/*
 * Answering one SparkConnectService call (for the handlers of server*.c):
 * decode its request, reply with one message, or end it with a Spark error
 * as the google.rpc.Status (an ErrorInfo in grpc-status-details-bin) the
 * PySpark client turns into its exceptions. Owns nothing beyond the call.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "connect/grpc.h"
#include "connect/internal.h"
#include "google/rpc/error_details.pb-c.h"
#include "google/rpc/status.pb-c.h"

int weir__cstatus_set(weir__cstatus *st, int code, const char *error_class,
                      const char *sql_state, const char *fmt, ...)
{
    va_list ap;
    st->code = code;
    snprintf(st->error_class, sizeof st->error_class, "%s",
             error_class ? error_class : "");
    snprintf(st->sql_state, sizeof st->sql_state, "%s",
             sql_state ? sql_state : "");
    va_start(ap, fmt);
    vsnprintf(st->message, sizeof st->message, fmt, ap);
    va_end(ap);
    st->exception[0] = '\0';
    return -1;
}

void weir__ccall_fail(weir__grpc_call *call, const weir__cstatus *st)
{
    if (!st->error_class[0]) {
        weir__grpc_finish(call, st->code ? st->code : WEIR_GRPC_INTERNAL,
                          st->message, NULL, 0);
        return;
    }
    char text[1800];
    if (st->sql_state[0])
        snprintf(text, sizeof text, "[%s] %s SQLSTATE: %s", st->error_class,
                 st->message, st->sql_state);
    else
        snprintf(text, sizeof text, "[%s] %s", st->error_class, st->message);
    Google__Rpc__ErrorInfo__MetadataEntry md[4], *mdp[4];
    const char *exception = st->exception[0]
                                ? st->exception
                                : "org.apache.spark.sql.AnalysisException";
    char classes[128];
    snprintf(classes, sizeof classes, "[\"%s\"]", exception);
    /* A JVM client formats an errorClass from Spark's message template
     * and the error's messageParameters, which weir does not have: it
     * would show "Undefined error message parameter". Without the class
     * it shows weir's message (which starts with the class). */
    const char *keys[] = { "classes", "errorClass", "sqlState" };
    const char *vals[] = { classes, st->class_in_text ? "" : st->error_class,
                           st->class_in_text ? "" : st->sql_state };
    size_t n_md = 0;
    for (size_t i = 0; i < 3; i++) {
        if (!*vals[i])
            continue;
        google__rpc__error_info__metadata_entry__init(&md[n_md]);
        md[n_md].key = (char *)keys[i];
        md[n_md].value = (char *)vals[i];
        mdp[n_md] = &md[n_md];
        n_md++;
    }
    Google__Rpc__ErrorInfo info = GOOGLE__RPC__ERROR_INFO__INIT;
    info.reason = (char *)exception;
    info.domain = (char *)"org.apache.spark";
    info.n_metadata = n_md;
    info.metadata = mdp;
    size_t ilen = google__rpc__error_info__get_packed_size(&info);
    uint8_t *ibuf = malloc(ilen ? ilen : 1);
    Google__Protobuf__Any any = GOOGLE__PROTOBUF__ANY__INIT, *anyp = &any;
    any.type_url = (char *)"type.googleapis.com/google.rpc.ErrorInfo";
    Google__Rpc__Status status = GOOGLE__RPC__STATUS__INIT;
    status.code = st->code ? st->code : WEIR_GRPC_INTERNAL;
    status.message = text;
    uint8_t *sbuf = NULL;
    size_t slen = 0;
    if (ibuf) {
        google__rpc__error_info__pack(&info, ibuf);
        any.value.data = ibuf;
        any.value.len = ilen;
        status.n_details = 1;
        status.details = &anyp;
        slen = google__rpc__status__get_packed_size(&status);
        sbuf = malloc(slen ? slen : 1);
        if (sbuf)
            google__rpc__status__pack(&status, sbuf);
    }
    weir__grpc_finish(call, status.code, text, sbuf, sbuf ? slen : 0);
    free(ibuf);
    free(sbuf);
}

/* Pack a message and send it; 0 or -1. */
static int send_message(weir__grpc_call *call, const ProtobufCMessage *m)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return -1;
    protobuf_c_message_pack(m, buf);
    int rc = weir__grpc_send(call, buf, len);
    free(buf);
    return rc;
}

void weir__ccall_reply(weir__grpc_call *call, const ProtobufCMessage *m)
{
    if (send_message(call, m) == 0)
        weir__grpc_finish(call, WEIR_GRPC_OK, NULL, NULL, 0);
    else
        weir__grpc_finish(call, WEIR_GRPC_RESOURCE_EXHAUSTED,
                          "cannot send the response", NULL, 0);
}

void *weir__ccall_decode(weir__grpc_call *call,
                         const ProtobufCMessageDescriptor *d, weir__cstatus *st)
{
    size_t len;
    const uint8_t *data = weir__grpc_request(call, &len);
    if (weir__wire_too_deep(data, len, WEIR_CONNECT_MAX_WIRE_DEPTH)) {
        weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT, "", "",
                          "the request is nested more than %d levels deep",
                          WEIR_CONNECT_MAX_WIRE_DEPTH);
        return NULL;
    }
    void *m = protobuf_c_message_unpack(d, NULL, len, data);
    if (!m)
        weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT, "", "",
                          "cannot decode the %s", d->short_name);
    return m;
}
