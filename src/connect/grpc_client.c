/*
 * The client side of grpc.h: one gRPC call over h2c (HTTP/2 cleartext,
 * prior knowledge) on libnghttp2, blocking, on a connection of its own:
 * the transport weir needs to be a Spark Connect client (docs/spark.md).
 * The message prefix and base64 are grpc_frame.c's, shared with the server.
 * Owns the socket and the nghttp2 session for the length of the call.
 */
#include "connect/grpc.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>

#include "util/buf.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/str.h"

typedef struct client {
    int fd;
    int32_t stream;
    const uint8_t *req; /* prefix + request */
    size_t req_len, req_off;
    weir_buf in; /* response bytes not yet delivered */
    weir__grpc_message_fn on_message;
    void *payload;
    bool closed, cancelled, oom;
    int status; /* -1 until grpc-status is read */
    char message[512];
    uint8_t *details; /* grpc-status-details-bin, decoded */
    size_t details_len;
} client;

/* Connect within ms milliseconds; the socket stays non-blocking. */
static int connect_to(const weir__grpc_target *t, int *out, weir_error *err)
{
    char port[16];
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(port, sizeof port, "%u", t->port);
    int gai = getaddrinfo(t->host, port, &hints, &res);
    if (gai)
        return WEIR_ERR(err, WEIR_EIO, "CONNECT_FAILED", "cannot resolve %s: %s",
                        t->host, gai_strerror(gai));
    int ms = t->connect_ms ? (int)t->connect_ms : 10000, fd = -1, why = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0)
            continue;
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        int rc = connect(fd, a->ai_addr, a->ai_addrlen);
        if (rc && errno == EINPROGRESS) {
            struct pollfd p = { fd, POLLOUT, 0 };
            socklen_t sl = sizeof why;
            rc = poll(&p, 1, ms) == 1 &&
                         getsockopt(fd, SOL_SOCKET, SO_ERROR, &why, &sl) == 0 &&
                         why == 0
                     ? 0
                     : -1;
            if (rc && !why)
                why = ETIMEDOUT;
        } else if (rc) {
            why = errno;
        }
        if (rc) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        return WEIR_ERR(err, WEIR_EIO, "CONNECT_FAILED",
                        "cannot connect to %s:%u: %s", t->host, t->port,
                        why == ETIMEDOUT ? "no answer in time" : strerror(why));
    *out = fd;
    return 0;
}

static ssize_t read_request(nghttp2_session *s, int32_t stream,
                            uint8_t *buf, size_t length, uint32_t *flags,
                            nghttp2_data_source *src, void *user)
{
    (void)s;
    (void)stream;
    (void)src;
    client *c = user;
    size_t n = c->req_len - c->req_off;
    if (n > length)
        n = length;
    memcpy(buf, c->req + c->req_off, n);
    c->req_off += n;
    if (c->req_off == c->req_len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

/* Deliver the complete messages buffered in c->in. */
static void deliver(client *c)
{
    size_t off = 0;
    const uint8_t *p = (const uint8_t *)c->in.ptr;
    while (!c->cancelled && c->in.len - off >= WEIR_GRPC_PREFIX) {
        uint32_t n = weir__grpc_prefix_length(p + off);
        if (c->in.len - off - WEIR_GRPC_PREFIX < n)
            break;
        if (c->on_message &&
            c->on_message(c->payload, p + off + WEIR_GRPC_PREFIX, n))
            c->cancelled = true;
        off += WEIR_GRPC_PREFIX + n;
    }
    if (off) {
        memmove(c->in.ptr, c->in.ptr + off, c->in.len - off);
        c->in.len -= off;
    }
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t stream,
                   const uint8_t *data, size_t len, void *user)
{
    (void)s;
    (void)flags;
    client *c = user;
    if (stream != c->stream)
        return 0;
    weir__buf_put(&c->in, data, len);
    if (weir__buf_failed(&c->in)) {
        c->oom = true;
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    deliver(c);
    return 0;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *frame,
                     const uint8_t *name, size_t namelen, const uint8_t *value,
                     size_t valuelen, uint8_t flags, void *user)
{
    (void)s;
    (void)flags;
    client *c = user;
    if (frame->hd.stream_id != c->stream)
        return 0;
    if (namelen == 11 && memcmp(name, "grpc-status", 11) == 0) {
        char v[16];
        snprintf(v, sizeof v, "%.*s", (int)(valuelen < 15 ? valuelen : 15),
                 (const char *)value);
        c->status = atoi(v);
    } else if (namelen == 12 && memcmp(name, "grpc-message", 12) == 0) {
        /* Percent-decoded (the sender encodes what is not printable). */
        size_t o = 0;
        for (size_t i = 0; i < valuelen && o + 1 < sizeof c->message; i++) {
            int hi = -1, lo = -1;
            if (value[i] == '%' && i + 2 < valuelen) {
                hi = weir__str_hex_value((char)value[i + 1]);
                lo = hi < 0 ? -1 : weir__str_hex_value((char)value[i + 2]);
            }
            if (hi >= 0 && lo >= 0) {
                c->message[o++] = (char)(hi * 16 + lo);
                i += 2;
            } else {
                c->message[o++] = (char)value[i];
            }
        }
        c->message[o] = '\0';
    } else if (namelen == 23 &&
               memcmp(name, "grpc-status-details-bin", 23) == 0) {
        free(c->details);
        c->details = weir__grpc_unbase64((const char *)value, valuelen,
                                         &c->details_len);
    }
    return 0;
}

void weir__grpc_status_clear(weir__grpc_status *status)
{
    if (!status)
        return;
    free(status->details);
    status->details = NULL;
    status->details_len = 0;
}

static int on_close(nghttp2_session *s, int32_t stream, uint32_t code,
                    void *user)
{
    (void)s;
    (void)code;
    client *c = user;
    if (stream == c->stream)
        c->closed = true;
    return 0;
}

/* Write what the session wants to send; false on a socket error. */
static bool flush_out(nghttp2_session *s, client *c)
{
    for (;;) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(s, &data);
        if (n < 0)
            return false;
        if (n == 0)
            return true;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = send(c->fd, data + off, (size_t)(n - off), MSG_NOSIGNAL);
            if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
                struct pollfd p = { c->fd, POLLOUT, 0 };
                poll(&p, 1, 1000);
                continue;
            }
            if (w <= 0)
                return false;
            off += w;
        }
    }
}

static int run(nghttp2_session *s, client *c, const weir__grpc_target *t,
               weir_error *err)
{
    /* An HTTP/2 server sends its SETTINGS at once: silence means it is
     * not one (or is wedged), found within the connect bound. */
    int64_t ms = t->connect_ms ? t->connect_ms : 10000;
    int64_t deadline = weir__monotonic_us() / 1000 + ms;
    bool heard = false;
    while (!c->closed && !c->cancelled) {
        if (t->cancel && *t->cancel) {
            c->cancelled = true;
            break;
        }
        if (!heard && weir__monotonic_us() / 1000 > deadline)
            return WEIR_ERR(err, WEIR_EIO, "CONNECT_FAILED",
                            "%s:%u accepted the connection but sent nothing "
                            "in %lld ms (is it a Spark Connect server?)",
                            t->host, t->port, (long long)ms);
        if (!flush_out(s, c))
            return WEIR_ERR(err, WEIR_EIO, "CONNECTION_LOST",
                            "the connection to %s:%u failed", t->host, t->port);
        struct pollfd p = { c->fd, POLLIN, 0 };
        int r = poll(&p, 1, heard ? 1000 : 100);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        uint8_t buf[16384];
        ssize_t n = recv(c->fd, buf, sizeof buf, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n > 0)
            heard = true;
        if (n <= 0 || nghttp2_session_mem_recv(s, buf, (size_t)n) < 0) {
            if (c->oom)
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            return WEIR_ERR(err, WEIR_EIO, "CONNECTION_LOST",
                            "the connection to %s:%u closed before the call "
                            "ended",
                            t->host, t->port);
        }
    }
    return c->cancelled ? WEIR_ECANCELED : 0;
}

#define HDR(n, v)                                                             \
    { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v),               \
      NGHTTP2_NV_FLAG_NONE }

int weir__grpc_client_call(const weir__grpc_target *t, const char *method,
                           const void *request, size_t len,
                           weir__grpc_message_fn on_message, void *payload,
                           weir__grpc_status *status, weir_error *err)
{
    client c;
    memset(&c, 0, sizeof c);
    c.status = -1;
    c.on_message = on_message;
    c.payload = payload;
    memset(status, 0, sizeof *status);
    status->code = WEIR_GRPC_UNKNOWN;
    uint8_t *req = malloc(len + WEIR_GRPC_PREFIX);
    if (!req)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir__grpc_put_prefix(req, len);
    if (len)
        memcpy(req + WEIR_GRPC_PREFIX, request, len);
    c.req = req;
    c.req_len = len + WEIR_GRPC_PREFIX;
    int rc = connect_to(t, &c.fd, err);
    if (rc) {
        free(req);
        return rc;
    }
    nghttp2_session_callbacks *cb = NULL;
    nghttp2_session *s = NULL;
    char authority[300], bearer[1100];
    snprintf(authority, sizeof authority, "%s:%u", t->host, t->port);
    snprintf(bearer, sizeof bearer, "Bearer %s", t->token ? t->token : "");
    nghttp2_nv hdrs[] = {
        HDR(":method", "POST"),
        HDR(":scheme", "http"),
        HDR(":path", method),
        HDR(":authority", authority),
        HDR("content-type", "application/grpc"),
        HDR("te", "trailers"),
        HDR("authorization", bearer),
    };
    size_t n_hdrs = sizeof hdrs / sizeof hdrs[0] - (t->token ? 0 : 1);
    nghttp2_data_provider body;
    body.source.ptr = NULL;
    body.read_callback = read_request;
    if (nghttp2_session_callbacks_new(&cb) == 0) {
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
        nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
        nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
        if (nghttp2_session_client_new(&s, cb, &c) != 0)
            s = NULL;
        nghttp2_session_callbacks_del(cb);
    }
    if (!s || nghttp2_submit_settings(s, NGHTTP2_FLAG_NONE, NULL, 0) != 0 ||
        (c.stream = nghttp2_submit_request(s, NULL, hdrs, n_hdrs, &body, NULL)) < 0)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "cannot start an HTTP/2 session");
    else
        rc = run(s, &c, t, err);
    nghttp2_session_del(s);
    close(c.fd);
    free(req);
    weir__buf_free(&c.in);
    if (!rc && c.status < 0)
        rc = WEIR_ERR(err, WEIR_EIO, "CONNECTION_LOST",
                      "the call to %s:%u ended without a gRPC status",
                      t->host, t->port);
    if (rc) {
        free(c.details);
        return rc;
    }
    status->code = c.status;
    snprintf(status->message, sizeof status->message, "%s", c.message);
    status->details = c.details;
    status->details_len = c.details_len;
    return 0;
}
