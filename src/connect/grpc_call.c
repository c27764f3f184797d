/*
 * gRPC on the HTTP/2 streams of a connection (see grpc.h): request headers
 * (method, path, content type, the bearer token) and bodies assembled under
 * the size limits, a complete request checked for its single message and
 * handed to the workers as a call; the call functions handlers use; and the
 * responses: headers, framed messages, and the grpc-status trailers.
 * Everything here but the call functions runs on the I/O thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/grpc_internal.h"

#define MAX_PENDING_OUT (8u << 20) /* response bytes buffered per call */

/* ------------------------------------------------------------------------
 * Calls
 * ------------------------------------------------------------------------ */

void weir__grpc_call_unref(weir__grpc_call *c)
{
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->drained);
    weir__buf_free(&c->out);
    free(c->path);
    free(c->request);
    free(c->message);
    free(c->details_b64);
    free(c);
}

/* Tell the I/O thread the call has news (caller holds c->lock). */
static void mark_ready(weir__grpc_call *c)
{
    if (c->ready_queued || c->closed)
        return;
    c->ready_queued = true;
    atomic_fetch_add(&c->refs, 1);
    weir__grpc_server *s = c->server;
    pthread_mutex_lock(&s->lock);
    c->next_ready = s->ready;
    s->ready = c;
    pthread_mutex_unlock(&s->lock);
    weir__grpc_wake_io(s);
}

const char *weir__grpc_method(const weir__grpc_call *c)
{
    return c->path;
}

const uint8_t *weir__grpc_request(const weir__grpc_call *c, size_t *len)
{
    *len = c->request_len;
    return c->request;
}

bool weir__grpc_gone(weir__grpc_call *c)
{
    pthread_mutex_lock(&c->lock);
    bool gone = c->closed || atomic_load(&c->server->stopping);
    pthread_mutex_unlock(&c->lock);
    return gone;
}

int weir__grpc_send(weir__grpc_call *c, const void *msg, size_t len)
{
    if (len > UINT32_MAX)
        return -1;
    pthread_mutex_lock(&c->lock);
    while (!c->closed && !c->finished && !atomic_load(&c->server->stopping) &&
           c->out.len - c->out_off > MAX_PENDING_OUT)
        pthread_cond_wait(&c->drained, &c->lock);
    if (c->closed || c->finished || atomic_load(&c->server->stopping)) {
        pthread_mutex_unlock(&c->lock);
        return -1;
    }
    uint8_t prefix[WEIR_GRPC_PREFIX];
    weir__grpc_put_prefix(prefix, len);
    weir__buf_put(&c->out, prefix, sizeof prefix);
    weir__buf_put(&c->out, msg, len);
    int rc = weir__buf_failed(&c->out) ? -1 : 0;
    if (rc) {
        /* Out of memory: the stream cannot be continued consistently. */
        c->finished = true;
        c->status = WEIR_GRPC_RESOURCE_EXHAUSTED;
        weir__buf_clear(&c->out);
        c->out.failed = false;
        c->out_off = 0;
    }
    mark_ready(c);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

void weir__grpc_finish(weir__grpc_call *c, int status, const char *message,
                       const void *details, size_t details_len)
{
    pthread_mutex_lock(&c->lock);
    if (!c->finished) {
        c->finished = true;
        c->status = status;
        c->message = message && *message ? weir__grpc_percent_encode(message)
                                         : NULL;
        c->details_b64 = details && details_len
                             ? weir__grpc_base64(details, details_len)
                             : NULL;
        mark_ready(c);
    }
    pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------------------------------------
 * Responses (I/O thread)
 * ------------------------------------------------------------------------ */

#define NV(n, v)                                                              \
    { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v),              \
      NGHTTP2_NV_FLAG_NONE }

/* Status headers of a finished call (trailers, or trailers-only). */
static size_t status_nv(nghttp2_nv *nv, size_t at, char code[12],
                        const char *message, const char *details)
{
    nghttp2_nv a = NV("grpc-status", code);
    nv[at++] = a;
    if (message) {
        nghttp2_nv m = NV("grpc-message", message);
        nv[at++] = m;
    }
    if (details) {
        nghttp2_nv d = NV("grpc-status-details-bin", details);
        nv[at++] = d;
    }
    return at;
}

/* Respond now with headers only (no message), ending the stream. */
static void reply_status(grpc_conn *cn, grpc_stream *st, int code, const char *message)
{
    if (st->submitted)
        return;
    st->submitted = true;
    char *msg = weir__grpc_percent_encode(message);
    char num[12];
    snprintf(num, sizeof num, "%d", code);
    nghttp2_nv nv[5] = { NV(":status", "200"),
                         NV("content-type", "application/grpc") };
    size_t n = status_nv(nv, 2, num, msg, NULL);
    nghttp2_submit_response(cn->session, st->id, nv, n, NULL);
    free(msg);
}

static ssize_t read_response(nghttp2_session *session, int32_t stream_id,
                             uint8_t *buf, size_t length, uint32_t *flags,
                             nghttp2_data_source *source, void *user_data)
{
    (void)user_data;
    weir__grpc_call *c = source->ptr;
    pthread_mutex_lock(&c->lock);
    size_t avail = c->out.len - c->out_off;
    size_t n = avail < length ? avail : length;
    if (n) {
        memcpy(buf, c->out.ptr + c->out_off, n);
        c->out_off += n;
        if (c->out_off == c->out.len) {
            weir__buf_clear(&c->out);
            c->out_off = 0;
        }
        pthread_cond_broadcast(&c->drained);
    }
    if (n == avail && c->finished) {
        *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
        char num[12];
        snprintf(num, sizeof num, "%d", c->status);
        nghttp2_nv nv[3];
        size_t k = status_nv(nv, 0, num, c->message, c->details_b64);
        nghttp2_submit_trailer(session, stream_id, nv, k);
    } else if (!n) {
        pthread_mutex_unlock(&c->lock);
        return NGHTTP2_ERR_DEFERRED;
    }
    pthread_mutex_unlock(&c->lock);
    return (ssize_t)n;
}

/* A call has news: submit its headers, or resume its data. */
void weir__grpc_call_progress(weir__grpc_call *c)
{
    grpc_stream *st = c->stream;
    if (!st)
        return;
    grpc_conn *cn = st->conn;
    if (st->submitted) {
        nghttp2_session_resume_data(cn->session, st->id);
        return;
    }
    pthread_mutex_lock(&c->lock);
    bool trailers_only = c->finished && c->out.len == c->out_off;
    char num[12];
    snprintf(num, sizeof num, "%d", c->status);
    nghttp2_nv nv[5] = { NV(":status", "200"),
                         NV("content-type", "application/grpc") };
    st->submitted = true;
    if (trailers_only) {
        size_t n = status_nv(nv, 2, num, c->message, c->details_b64);
        nghttp2_submit_response(cn->session, st->id, nv, n, NULL);
    } else {
        nghttp2_data_provider prd;
        prd.source.ptr = c;
        prd.read_callback = read_response;
        nghttp2_submit_response(cn->session, st->id, nv, 2, &prd);
    }
    pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------------------------------------
 * Requests (I/O thread)
 * ------------------------------------------------------------------------ */

/* The request is complete: check its framing and hand it to a worker. */
static void dispatch(grpc_conn *cn, grpc_stream *st)
{
    weir__grpc_server *s = cn->server;
    if (st->rejected || st->submitted || st->dispatched)
        return;
    st->dispatched = true;
    const uint8_t *p = (const uint8_t *)st->body.ptr;
    size_t len = st->body.len;
    if (len < 5) {
        reply_status(cn, st, WEIR_GRPC_INTERNAL, "missing request message");
        return;
    }
    uint32_t mlen = weir__grpc_prefix_length(p);
    if (p[0] & 1) {
        reply_status(cn, st, WEIR_GRPC_UNIMPLEMENTED,
                     "compressed messages are not supported");
        return;
    }
    if (p[0] != 0 || (size_t)mlen != len - 5) {
        reply_status(cn, st, WEIR_GRPC_UNIMPLEMENTED,
                     "expected exactly one request message");
        return;
    }
    weir__grpc_call *c = calloc(1, sizeof *c);
    if (!c) {
        reply_status(cn, st, WEIR_GRPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->drained, NULL);
    atomic_init(&c->refs, 1);
    c->server = s;
    c->path = st->path;
    st->path = NULL;
    c->request_len = mlen;
    c->request = malloc(mlen ? mlen : 1);
    if (!c->request) {
        weir__grpc_call_unref(c);
        reply_status(cn, st, WEIR_GRPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    memcpy(c->request, p + 5, mlen);
    cn->inbound -= st->body.len;
    weir__buf_free(&st->body);
    c->stream = st;
    st->call = c;
    if (!weir__grpc_enqueue(s, c)) {
        c->stream = NULL;
        st->call = NULL;
        weir__grpc_call_unref(c);
        reply_status(cn, st, WEIR_GRPC_RESOURCE_EXHAUSTED,
                     "too many calls in progress");
    }
}

static grpc_stream *find_stream(grpc_conn *cn, int32_t id)
{
    return nghttp2_session_get_stream_user_data(cn->session, id);
}

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame,
                            void *user_data)
{
    grpc_conn *cn = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS ||
        frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    if (cn->n_streams >= GRPC_MAX_STREAMS_PER_CONN) {
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                  NGHTTP2_REFUSED_STREAM);
        return 0;
    }
    grpc_stream *st = calloc(1, sizeof *st);
    if (!st)
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    st->id = frame->hd.stream_id;
    st->conn = cn;
    st->next = cn->streams;
    cn->streams = st;
    cn->n_streams++;
    nghttp2_session_set_stream_user_data(session, st->id, st);
    return 0;
}

/* Compare without leaking the position of the first difference. */
static bool token_ok(const char *want, const uint8_t *got, size_t len)
{
    static const char prefix[] = "Bearer ";
    size_t plen = sizeof prefix - 1, wlen = strlen(want);
    if (len != plen + wlen || memcmp(got, prefix, plen) != 0)
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < wlen; i++)
        diff |= (unsigned char)want[i] ^ got[plen + i];
    return diff == 0;
}

static bool name_is(const uint8_t *name, size_t len, const char *want)
{
    return len == strlen(want) && memcmp(name, want, len) == 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame,
                     const uint8_t *name, size_t namelen, const uint8_t *value,
                     size_t valuelen, uint8_t flags, void *user_data)
{
    (void)session;
    (void)flags;
    grpc_conn *cn = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS)
        return 0;
    grpc_stream *st = find_stream(cn, frame->hd.stream_id);
    if (!st)
        return 0;
    st->header_bytes += namelen + valuelen + 32;
    if (st->header_bytes > GRPC_MAX_HEADER_BYTES)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* resets the grpc_stream */
    if (name_is(name, namelen, ":method"))
        st->post = valuelen == 4 && memcmp(value, "POST", 4) == 0;
    else if (name_is(name, namelen, ":path")) {
        free(st->path);
        st->path = strndup((const char *)value, valuelen);
        if (!st->path)
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    } else if (name_is(name, namelen, "content-type"))
        st->grpc_type = valuelen >= 16 &&
                        memcmp(value, "application/grpc", 16) == 0 &&
                        (valuelen == 16 || value[16] == '+' || value[16] == ';');
    else if (name_is(name, namelen, "authorization"))
        st->authorized = token_ok(cn->server->token, value, valuelen);
    return 0;
}

/* Headers are complete: refuse what cannot be served before any body. */
static void check_headers(grpc_conn *cn, grpc_stream *st)
{
    if (!st->post || !st->path) {
        st->rejected = true;
        nghttp2_nv nv[1] = { NV(":status", "405") };
        st->submitted = true;
        nghttp2_submit_response(cn->session, st->id, nv, 1, NULL);
    } else if (!st->grpc_type) {
        st->rejected = true;
        nghttp2_nv nv[1] = { NV(":status", "415") };
        st->submitted = true;
        nghttp2_submit_response(cn->session, st->id, nv, 1, NULL);
    } else if (!st->authorized) {
        st->rejected = true;
        reply_status(cn, st, WEIR_GRPC_UNAUTHENTICATED,
                     "missing or invalid bearer token");
    }
    if (st->authorized)
        cn->authed = true; /* no longer bound by auth_ms (grpc.c) */
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame,
                         void *user_data)
{
    (void)session;
    grpc_conn *cn = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)
        return 0;
    grpc_stream *st = find_stream(cn, frame->hd.stream_id);
    if (!st)
        return 0;
    if (frame->hd.type == NGHTTP2_HEADERS &&
        frame->headers.cat == NGHTTP2_HCAT_REQUEST)
        check_headers(cn, st);
    if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)
        dispatch(cn, st);
    return 0;
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags,
                         int32_t stream_id, const uint8_t *data, size_t len,
                         void *user_data)
{
    (void)session;
    (void)flags;
    grpc_conn *cn = user_data;
    grpc_stream *st = find_stream(cn, stream_id);
    if (!st || st->rejected || st->dispatched)
        return 0;
    size_t max = cn->server->cfg.max_message;
    if (st->body.len + len > max + 5 || cn->inbound + len > max + (1u << 20)) {
        st->rejected = true;
        cn->inbound -= st->body.len;
        weir__buf_free(&st->body);
        char msg[96];
        snprintf(msg, sizeof msg,
                 "request message larger than the limit of %zu bytes", max);
        reply_status(cn, st, WEIR_GRPC_RESOURCE_EXHAUSTED, msg);
        return 0;
    }
    weir__buf_put(&st->body, data, len);
    if (weir__buf_failed(&st->body)) {
        st->rejected = true;
        weir__buf_free(&st->body);
        reply_status(cn, st, WEIR_GRPC_RESOURCE_EXHAUSTED, "out of memory");
        return 0;
    }
    cn->inbound += len;
    return 0;
}

void weir__grpc_stream_release(grpc_conn *cn, grpc_stream *st)
{
    weir__grpc_call *c = st->call;
    if (c) {
        pthread_mutex_lock(&c->lock);
        c->closed = true;
        c->stream = NULL;
        pthread_cond_broadcast(&c->drained);
        pthread_mutex_unlock(&c->lock);
        weir__grpc_call_unref(c);
    }
    cn->inbound -= st->body.len;
    weir__buf_free(&st->body);
    free(st->path);
    free(st);
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id,
                           uint32_t error_code, void *user_data)
{
    (void)error_code;
    grpc_conn *cn = user_data;
    grpc_stream *st = find_stream(cn, stream_id);
    if (!st)
        return 0;
    nghttp2_session_set_stream_user_data(session, stream_id, NULL);
    for (grpc_stream **pp = &cn->streams; *pp; pp = &(*pp)->next)
        if (*pp == st) {
            *pp = st->next;
            break;
        }
    cn->n_streams--;
    weir__grpc_stream_release(cn, st);
    return 0;
}

void weir__grpc_stream_callbacks(nghttp2_session_callbacks *cb)
{
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
}
