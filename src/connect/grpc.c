/*
 * gRPC over h2c on libnghttp2 (see grpc.h): the I/O thread, the per-stream
 * request assembly, the worker pool and the hand-back of responses.
 *
 * A call is shared by the I/O thread (which owns its stream) and a worker
 * (which runs its handler); it is reference counted, and everything the
 * two sides both touch (response bytes, the finished status, `closed`)
 * sits under the call's mutex. Fields marked "I/O" are touched by the I/O
 * thread only.
 */
#include "connect/grpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>

#include "util/buf.h"
#include "util/error.h"

#define DEFAULT_MAX_MESSAGE (128u << 20)
#define MAX_STREAMS_PER_CONN 32
#define MAX_HEADER_BYTES (16u << 10)
#define MAX_QUEUED_CALLS 256
#define MAX_PENDING_OUT (8u << 20) /* response bytes buffered per call */
#define READ_CHUNK 16384

typedef struct conn conn;
typedef struct stream stream;

struct weir__grpc_call {
    pthread_mutex_t lock;
    pthread_cond_t drained;
    atomic_int refs;
    weir__grpc_server *server;
    char *path;
    uint8_t *request;
    size_t request_len;
    /* Under lock. */
    weir_buf out; /* framed response messages not yet handed to nghttp2 */
    size_t out_off;
    bool finished, closed, ready_queued;
    int status;
    char *message;
    char *details_b64;
    /* I/O. */
    stream *stream;
    weir__grpc_call *next_ready;
    weir__grpc_call *next_job;
};

struct stream {
    int32_t id;
    conn *conn;
    weir_buf body; /* the request so far (prefix included) */
    char *path;
    size_t header_bytes;
    bool post, grpc_type, authorized, rejected, dispatched;
    weir__grpc_call *call; /* once dispatched, until the stream closes */
    bool submitted;        /* response headers submitted */
    stream *next;
};

struct conn {
    int fd;
    nghttp2_session *session;
    weir__grpc_server *server;
    stream *streams;
    size_t n_streams;
    size_t inbound; /* request bytes buffered across its streams */
    uint8_t *pending; /* serialized output the socket did not take yet */
    size_t pending_len;
    bool dead;
    conn *next;
};

struct weir__grpc_server {
    weir__grpc_config cfg;
    char *token;
    int listen_fd;
    unsigned port;
    int wake[2];
    pthread_t io_thread;
    pthread_t *workers;
    unsigned n_workers;
    conn *conns; /* I/O */
    size_t n_conns;
    pthread_mutex_t lock; /* jobs, ready list, stopping */
    pthread_cond_t job_ready;
    weir__grpc_call *jobs_head, *jobs_tail;
    size_t n_jobs;
    weir__grpc_call *ready;
    unsigned n_busy;      /* handlers running now (under lock) */
    atomic_bool stopping;
    atomic_bool io_idle;  /* the I/O thread has nothing left to write */
};

/* ------------------------------------------------------------------------
 * Encoding helpers
 * ------------------------------------------------------------------------ */

char *weir__grpc_percent_encode(const char *s)
{
    weir_buf b = WEIR_BUF_INIT;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p >= 0x20 && *p <= 0x7e && *p != '%')
            weir__buf_putc(&b, (char)*p);
        else
            weir__buf_printf(&b, "%%%02X", *p);
    }
    weir__buf_putc(&b, '\0');
    return weir__buf_detach(&b);
}

char *weir__grpc_base64(const void *data, size_t len)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *in = data;
    if (len > (SIZE_MAX / 4) * 3 - 3)
        return NULL;
    char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
    if (!out)
        return NULL;
    size_t i = 0;
    for (; i + 2 < len; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
        *o++ = tab[v >> 18];
        *o++ = tab[(v >> 12) & 63];
        *o++ = tab[(v >> 6) & 63];
        *o++ = tab[v & 63];
    }
    if (i < len) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)in[i + 1] << 8;
        *o++ = tab[v >> 18];
        *o++ = tab[(v >> 12) & 63];
        *o++ = i + 1 < len ? tab[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    return out;
}

/* ------------------------------------------------------------------------
 * Calls
 * ------------------------------------------------------------------------ */

static void call_unref(weir__grpc_call *c)
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

static void wake_io(weir__grpc_server *s)
{
    char x = 1;
    ssize_t rc;
    do
        rc = write(s->wake[1], &x, 1);
    while (rc < 0 && errno == EINTR);
    /* EAGAIN: the pipe already holds a wake-up. */
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
    wake_io(s);
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
static void reply_status(conn *cn, stream *st, int code, const char *message)
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
static void call_progress(weir__grpc_call *c)
{
    stream *st = c->stream;
    if (!st)
        return;
    conn *cn = st->conn;
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

static void enqueue_job(weir__grpc_server *s, weir__grpc_call *c)
{
    c->next_job = NULL;
    if (s->jobs_tail)
        s->jobs_tail->next_job = c;
    else
        s->jobs_head = c;
    s->jobs_tail = c;
    s->n_jobs++;
    pthread_cond_signal(&s->job_ready);
}

/* The request is complete: check its framing and hand it to a worker. */
static void dispatch(conn *cn, stream *st)
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
        call_unref(c);
        reply_status(cn, st, WEIR_GRPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    memcpy(c->request, p + 5, mlen);
    cn->inbound -= st->body.len;
    weir__buf_free(&st->body);
    pthread_mutex_lock(&s->lock);
    bool full = s->n_jobs >= MAX_QUEUED_CALLS;
    if (!full) {
        atomic_fetch_add(&c->refs, 1); /* the worker's */
        c->stream = st;
        st->call = c;
        enqueue_job(s, c);
    }
    pthread_mutex_unlock(&s->lock);
    if (full) {
        call_unref(c);
        reply_status(cn, st, WEIR_GRPC_RESOURCE_EXHAUSTED,
                     "too many calls in progress");
    }
}

static stream *find_stream(conn *cn, int32_t id)
{
    return nghttp2_session_get_stream_user_data(cn->session, id);
}

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame,
                            void *user_data)
{
    conn *cn = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS ||
        frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    if (cn->n_streams >= MAX_STREAMS_PER_CONN) {
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                  NGHTTP2_REFUSED_STREAM);
        return 0;
    }
    stream *st = calloc(1, sizeof *st);
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
    conn *cn = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS)
        return 0;
    stream *st = find_stream(cn, frame->hd.stream_id);
    if (!st)
        return 0;
    st->header_bytes += namelen + valuelen + 32;
    if (st->header_bytes > MAX_HEADER_BYTES)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* resets the stream */
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
static void check_headers(conn *cn, stream *st)
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
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame,
                         void *user_data)
{
    (void)session;
    conn *cn = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)
        return 0;
    stream *st = find_stream(cn, frame->hd.stream_id);
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
    conn *cn = user_data;
    stream *st = find_stream(cn, stream_id);
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

static void stream_release(conn *cn, stream *st)
{
    weir__grpc_call *c = st->call;
    if (c) {
        pthread_mutex_lock(&c->lock);
        c->closed = true;
        c->stream = NULL;
        pthread_cond_broadcast(&c->drained);
        pthread_mutex_unlock(&c->lock);
        call_unref(c);
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
    conn *cn = user_data;
    stream *st = find_stream(cn, stream_id);
    if (!st)
        return 0;
    nghttp2_session_set_stream_user_data(session, stream_id, NULL);
    for (stream **pp = &cn->streams; *pp; pp = &(*pp)->next)
        if (*pp == st) {
            *pp = st->next;
            break;
        }
    cn->n_streams--;
    stream_release(cn, st);
    return 0;
}

/* ------------------------------------------------------------------------
 * Connections (I/O thread)
 * ------------------------------------------------------------------------ */

static void conn_free(conn *cn)
{
    /* nghttp2_session_del does not call on_stream_close: release here. */
    for (stream *st = cn->streams, *next; st; st = next) {
        next = st->next;
        stream_release(cn, st);
    }
    nghttp2_session_del(cn->session);
    close(cn->fd);
    free(cn->pending);
    free(cn);
}

static int set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static conn *conn_new(weir__grpc_server *s, int fd)
{
    conn *cn = calloc(1, sizeof *cn);
    nghttp2_session_callbacks *cb = NULL;
    if (!cn || nghttp2_session_callbacks_new(&cb)) {
        free(cn);
        return NULL;
    }
    cn->fd = fd;
    cn->server = s;
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    int rc = nghttp2_session_server_new(&cn->session, cb, cn);
    nghttp2_session_callbacks_del(cb);
    if (rc) {
        free(cn);
        return NULL;
    }
    nghttp2_settings_entry iv[] = {
        { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, MAX_STREAMS_PER_CONN },
        { NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, MAX_HEADER_BYTES },
    };
    nghttp2_submit_settings(cn->session, NGHTTP2_FLAG_NONE, iv, 2);
    return cn;
}

/* Write what nghttp2 has to say; false when the connection is finished. */
static bool conn_flush(conn *cn)
{
    for (;;) {
        if (cn->pending_len) {
            ssize_t n = send(cn->fd, cn->pending, cn->pending_len, MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return errno == EAGAIN || errno == EWOULDBLOCK;
            }
            memmove(cn->pending, cn->pending + n, cn->pending_len - (size_t)n);
            cn->pending_len -= (size_t)n;
            if (cn->pending_len)
                return true;
        }
        const uint8_t *data;
        ssize_t len = nghttp2_session_mem_send(cn->session, &data);
        if (len < 0)
            return false;
        if (len == 0)
            break;
        ssize_t n;
        do
            n = send(cn->fd, data, (size_t)len, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return false;
        if (n < 0)
            n = 0;
        if (n < len) {
            size_t rest = (size_t)(len - n);
            uint8_t *p = malloc(rest);
            if (!p)
                return false;
            memcpy(p, data + n, rest);
            free(cn->pending);
            cn->pending = p;
            cn->pending_len = rest;
            return true;
        }
    }
    return nghttp2_session_want_read(cn->session) ||
           nghttp2_session_want_write(cn->session);
}

static bool conn_read(conn *cn)
{
    uint8_t buf[READ_CHUNK];
    for (;;) {
        ssize_t n = recv(cn->fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK;
        if (n == 0)
            return false;
        ssize_t used = nghttp2_session_mem_recv(cn->session, buf, (size_t)n);
        if (used < 0)
            return false; /* not HTTP/2: drop the connection */
        if ((size_t)n < sizeof buf)
            return true;
    }
}

static void accept_all(weir__grpc_server *s)
{
    for (;;) {
        int fd = accept(s->listen_fd, NULL, NULL);
        if (fd < 0)
            return;
        if (s->n_conns >= s->cfg.max_connections || set_nonblocking(fd)) {
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn *cn = conn_new(s, fd);
        if (!cn) {
            close(fd);
            continue;
        }
        cn->next = s->conns;
        s->conns = cn;
        s->n_conns++;
    }
}

static void drain_ready(weir__grpc_server *s)
{
    char junk[64];
    while (read(s->wake[0], junk, sizeof junk) > 0)
        ;
    pthread_mutex_lock(&s->lock);
    weir__grpc_call *list = s->ready;
    s->ready = NULL;
    if (list)
        atomic_store(&s->io_idle, false);
    pthread_mutex_unlock(&s->lock);
    while (list) {
        weir__grpc_call *c = list;
        list = c->next_ready;
        pthread_mutex_lock(&c->lock);
        c->ready_queued = false;
        pthread_mutex_unlock(&c->lock);
        call_progress(c);
        call_unref(c);
    }
}

static void *io_main(void *arg)
{
    weir__grpc_server *s = arg;
    struct pollfd *fds = NULL;
    conn **owners = NULL;
    size_t cap = 0;
    while (!atomic_load(&s->stopping)) {
        size_t need = s->n_conns + 2;
        if (need > cap) {
            struct pollfd *f = realloc(fds, need * sizeof *f);
            if (f)
                fds = f;
            conn **o = realloc(owners, need * sizeof *o);
            if (o)
                owners = o;
            if (!f || !o) {
                struct timespec pause = { 0, 10000000 };
                nanosleep(&pause, NULL);
                continue;
            }
            cap = need;
        }
        size_t n = 0;
        fds[n++] = (struct pollfd){ s->wake[0], POLLIN, 0 };
        fds[n++] = (struct pollfd){ s->listen_fd, POLLIN, 0 };
        for (conn *cn = s->conns; cn; cn = cn->next) {
            short ev = POLLIN;
            if (cn->pending_len || nghttp2_session_want_write(cn->session))
                ev |= POLLOUT;
            owners[n] = cn;
            fds[n++] = (struct pollfd){ cn->fd, ev, 0 };
        }
        if (poll(fds, (nfds_t)n, 1000) < 0 && errno != EINTR)
            break;
        if (fds[0].revents)
            drain_ready(s);
        for (size_t i = 2; i < n; i++) {
            conn *cn = owners[i];
            if (fds[i].revents & (POLLERR | POLLNVAL))
                cn->dead = true;
            else if ((fds[i].revents & (POLLIN | POLLHUP)) && !conn_read(cn))
                cn->dead = true;
        }
        if (fds[1].revents & POLLIN)
            accept_all(s);
        bool idle = true;
        for (conn **pp = &s->conns; *pp;) {
            conn *cn = *pp;
            if (!cn->dead && !conn_flush(cn))
                cn->dead = true;
            if (cn->dead) {
                *pp = cn->next;
                s->n_conns--;
                conn_free(cn);
            } else {
                idle &= !cn->pending_len &&
                        !nghttp2_session_want_write(cn->session);
                pp = &cn->next;
            }
        }
        atomic_store(&s->io_idle, idle);
    }
    while (s->conns) {
        conn *cn = s->conns;
        s->conns = cn->next;
        conn_free(cn);
    }
    s->n_conns = 0;
    free(fds);
    free(owners);
    return NULL;
}

/* ------------------------------------------------------------------------
 * Workers
 * ------------------------------------------------------------------------ */

static void *worker_main(void *arg)
{
    weir__grpc_server *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        while (!s->jobs_head && !atomic_load(&s->stopping))
            pthread_cond_wait(&s->job_ready, &s->lock);
        weir__grpc_call *c = s->jobs_head;
        if (!c) {
            pthread_mutex_unlock(&s->lock);
            return NULL;
        }
        s->jobs_head = c->next_job;
        if (!s->jobs_head)
            s->jobs_tail = NULL;
        s->n_jobs--;
        s->n_busy++;
        pthread_mutex_unlock(&s->lock);
        if (!weir__grpc_gone(c))
            s->cfg.handler(c, s->cfg.payload);
        weir__grpc_finish(c, WEIR_GRPC_INTERNAL, "the call ended without a status",
                          NULL, 0);
        call_unref(c);
        pthread_mutex_lock(&s->lock);
        s->n_busy--;
        pthread_mutex_unlock(&s->lock);
    }
}

/* ------------------------------------------------------------------------
 * Server
 * ------------------------------------------------------------------------ */

static int listen_on(weir__grpc_server *s, weir_error *err)
{
    const char *host = s->cfg.host ? s->cfg.host : "127.0.0.1";
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    if (strcmp(host, "localhost") != 0)
        hints.ai_flags |= AI_NUMERICHOST;
    char port[8];
    snprintf(port, sizeof port, "%u", s->cfg.port);
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "cannot use address '%s': %s",
                        host, gai_strerror(rc));
    int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 64) ||
        set_nonblocking(fd)) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot listen on %s:%u: %s", host,
                        s->cfg.port, strerror(e));
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    s->port = ss.ss_family == AF_INET6
                  ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                  : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    s->listen_fd = fd;
    return 0;
}

int weir__grpc_start(weir__grpc_server **out, const weir__grpc_config *cfg,
                     weir_error *err)
{
    *out = NULL;
    if (!cfg || !cfg->token || !*cfg->token || !cfg->handler)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "a token and a handler are required");
    if (cfg->port > 65535)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "port %u is out of range",
                        cfg->port);
    weir__grpc_server *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    s->cfg = *cfg;
    s->cfg.host = NULL;
    if (!s->cfg.max_message)
        s->cfg.max_message = DEFAULT_MAX_MESSAGE;
    if (!s->cfg.workers)
        s->cfg.workers = 4;
    if (!s->cfg.max_connections)
        s->cfg.max_connections = 64;
    s->listen_fd = s->wake[0] = s->wake[1] = -1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->job_ready, NULL);
    atomic_init(&s->stopping, false);
    atomic_init(&s->io_idle, true);
    s->token = strdup(cfg->token);
    s->workers = calloc(s->cfg.workers, sizeof *s->workers);
    if (!s->token || !s->workers) {
        weir__grpc_stop(s);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    s->cfg.host = cfg->host;
    int rc = listen_on(s, err);
    s->cfg.host = NULL;
    if (rc) {
        weir__grpc_stop(s);
        return rc;
    }
    if (pipe(s->wake) || set_nonblocking(s->wake[0]) ||
        set_nonblocking(s->wake[1])) {
        weir__grpc_stop(s);
        return WEIR_ERR(err, WEIR_EIO, NULL, "pipe: %s", strerror(errno));
    }
    for (unsigned i = 0; i < s->cfg.workers; i++) {
        if (pthread_create(&s->workers[i], NULL, worker_main, s))
            break;
        s->n_workers++;
    }
    if (s->n_workers < s->cfg.workers ||
        pthread_create(&s->io_thread, NULL, io_main, s)) {
        s->cfg.workers = 0; /* marks: no I/O thread to join */
        weir__grpc_stop(s);
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot start the server threads");
    }
    *out = s;
    return 0;
}

unsigned weir__grpc_port(const weir__grpc_server *s)
{
    return s ? s->port : 0;
}

bool weir__grpc_drain(weir__grpc_server *s, unsigned timeout_ms)
{
    if (!s || !s->cfg.workers)
        return true;
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    for (unsigned waited = 0;; waited += 10) {
        pthread_mutex_lock(&s->lock);
        bool quiet = !s->jobs_head && !s->n_busy && !s->ready;
        pthread_mutex_unlock(&s->lock);
        if (quiet && atomic_load(&s->io_idle))
            return true;
        if (waited >= timeout_ms)
            return false;
        wake_io(s);
        nanosleep(&tick, NULL);
    }
}

void weir__grpc_stop(weir__grpc_server *s)
{
    if (!s)
        return;
    atomic_store(&s->stopping, true);
    if (s->wake[1] >= 0 && s->cfg.workers)
        wake_io(s);
    if (s->n_workers && s->cfg.workers)
        pthread_join(s->io_thread, NULL);
    pthread_mutex_lock(&s->lock);
    pthread_cond_broadcast(&s->job_ready);
    pthread_mutex_unlock(&s->lock);
    for (unsigned i = 0; i < s->n_workers; i++)
        pthread_join(s->workers[i], NULL);
    /* Left-overs: queued jobs never run, news never delivered. */
    while (s->jobs_head) {
        weir__grpc_call *c = s->jobs_head;
        s->jobs_head = c->next_job;
        call_unref(c);
    }
    while (s->ready) {
        weir__grpc_call *c = s->ready;
        s->ready = c->next_ready;
        call_unref(c);
    }
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    if (s->wake[0] >= 0)
        close(s->wake[0]);
    if (s->wake[1] >= 0)
        close(s->wake[1]);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->job_ready);
    free(s->workers);
    free(s->token);
    free(s);
}

void weir__grpc_put_prefix(uint8_t out[WEIR_GRPC_PREFIX], size_t len)
{
    out[0] = 0; /* not compressed */
    out[1] = (uint8_t)(len >> 24);
    out[2] = (uint8_t)(len >> 16);
    out[3] = (uint8_t)(len >> 8);
    out[4] = (uint8_t)len;
}

uint32_t weir__grpc_prefix_length(const uint8_t p[WEIR_GRPC_PREFIX])
{
    return (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 |
           p[4];
}
