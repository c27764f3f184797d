/*
 * A small gRPC server over HTTP/2 cleartext (h2c, prior knowledge) on
 * libnghttp2: the transport under the Spark Connect endpoint.
 *
 * nghttp2 does HTTP/2 (framing, HPACK, flow control, pings, GOAWAY); this
 * module adds what gRPC puts on top: the 5-byte message prefix, the
 * `application/grpc` content type, the bearer-token check, and the
 * `grpc-status` / `grpc-message` / `grpc-status-details-bin` trailers. It
 * serves unary and server-streaming calls (one request message each).
 *
 * Threads: one I/O thread owns the sockets and every nghttp2 session. A
 * complete request becomes a call, run by a handler on one of a few worker
 * threads; the handler's responses go back to the I/O thread through a
 * locked queue and a wake-up pipe, so calls on other streams (and other
 * connections) are answered while one handler is busy.
 *
 * Bounds: connections, concurrent streams per connection, request size
 * (max_message), header bytes, queued calls and response bytes buffered per
 * call are all limited; garbage on a connection closes that connection. A
 * connection that has sent no request with the token within auth_ms is
 * closed, and at most a few such connections are kept per peer (the user
 * of a local process, else the address) and in all: the oldest goes when
 * a new one comes, so a client with the token gets in however many idle
 * or slow connections others hold. An authenticated connection without a
 * call for idle_ms is closed with GOAWAY.
 *
 * Owns: the listening socket, the connections, the threads and every call.
 */
#ifndef WEIR_CONNECT_GRPC_H
#define WEIR_CONNECT_GRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir.h"

/* gRPC status codes (grpc/doc/statuscodes.md). */
enum {
    WEIR_GRPC_OK = 0,
    WEIR_GRPC_CANCELLED = 1,
    WEIR_GRPC_UNKNOWN = 2,
    WEIR_GRPC_INVALID_ARGUMENT = 3,
    WEIR_GRPC_NOT_FOUND = 5,
    WEIR_GRPC_ALREADY_EXISTS = 6,
    WEIR_GRPC_RESOURCE_EXHAUSTED = 8,
    WEIR_GRPC_FAILED_PRECONDITION = 9,
    WEIR_GRPC_UNIMPLEMENTED = 12,
    WEIR_GRPC_INTERNAL = 13,
    WEIR_GRPC_UNAVAILABLE = 14,
    WEIR_GRPC_UNAUTHENTICATED = 16
};

typedef struct weir__grpc_server weir__grpc_server;
typedef struct weir__grpc_call weir__grpc_call;

/* Runs one call on a worker thread. It sends any number of response
 * messages, then ends the call with weir__grpc_finish (if it returns
 * without, the transport ends it with INTERNAL). The call stays valid until
 * the handler returns. */
typedef void (*weir__grpc_handler_fn)(weir__grpc_call *call, void *payload);

typedef struct weir__grpc_config {
    const char *host;   /* numeric address or "localhost"; NULL = 127.0.0.1 */
    unsigned port;      /* 0 = a free port */
    const char *token;  /* required bearer token (non-empty) */
    size_t max_message; /* largest request message; 0 = 128 MiB */
    unsigned workers;   /* handler threads; 0 = 4 */
    unsigned max_connections; /* 0 = 256 */
    /* Listen on this unix-domain socket (created, removed by
     * weir__grpc_stop; its folder's permissions say who may connect), or
     * for "@name" on that abstract name (no file; anyone may connect:
     * children_only), instead of host and port. */
    const char *unix_path;
    /* With unix_path: serve only descendants of this process (of this
     * user; SO_PEERCRED and /proc), other connections are closed at once. */
    bool children_only;
    unsigned auth_ms;  /* until the first request with the token; 0 = 10 s */
    unsigned idle_ms;  /* authenticated, without calls; 0 = 5 minutes */
    weir__grpc_handler_fn handler;
    void *payload;
} weir__grpc_config;

/* Bind, listen and start the threads. *out is the caller's, released by
 * weir__grpc_stop. Errors: WEIR_EINVAL (no token or handler, bad host),
 * WEIR_EIO (socket, bind or listen failed), WEIR_ENOMEM. */
int weir__grpc_start(weir__grpc_server **out, const weir__grpc_config *cfg,
                     weir_error *err);

unsigned weir__grpc_port(const weir__grpc_server *server);

/* Wait at most timeout_ms until no call is queued or running and every
 * response has been handed to the sockets (so the last statuses reach
 * their clients before weir__grpc_stop closes the connections); with
 * settle, also until no connection has had a call for two seconds (a
 * client answered with an error may make a few calls while it raises it:
 * PySpark reads two confs with Config; if those found the server gone it
 * would retry them for minutes). Calls keep being served meanwhile. True
 * when that point was reached. */
bool weir__grpc_drain(weir__grpc_server *server, unsigned timeout_ms,
                      bool settle);

/* Close every connection, end the calls still running (their sends fail),
 * join the threads and free everything. NULL is a no-op. */
void weir__grpc_stop(weir__grpc_server *server);

/* --- For handlers (worker thread, during the call) ---------------------- */

/* The request's :path, e.g. "/spark.connect.SparkConnectService/Config". */
const char *weir__grpc_method(const weir__grpc_call *call);

/* The request message (without its prefix); borrowed for the call. */
const uint8_t *weir__grpc_request(const weir__grpc_call *call, size_t *len);

/* Queue one response message. Blocks while too many bytes of this call are
 * waiting to be written. Returns 0, or -1 when the client has gone (reset
 * the stream, closed the connection) or the server is stopping. */
int weir__grpc_send(weir__grpc_call *call, const void *msg, size_t len);

/* End the call with a status, a message (may be NULL) and the serialized
 * google.rpc.Status for grpc-status-details-bin (may be NULL). Only the
 * first finish counts. */
void weir__grpc_finish(weir__grpc_call *call, int status, const char *message,
                       const void *details, size_t details_len);

/* True once the client has gone or the server is stopping. */
bool weir__grpc_gone(weir__grpc_call *call);

/* --- Framing, shared with the client (grpc_frame.c) ----------------------- */

/* A gRPC message on the wire: a flag byte (bit 0: compressed) and the
 * length, big-endian, then the message. */
#define WEIR_GRPC_PREFIX 5
void weir__grpc_put_prefix(uint8_t out[WEIR_GRPC_PREFIX], size_t len);
uint32_t weir__grpc_prefix_length(const uint8_t p[WEIR_GRPC_PREFIX]);

/* grpc-message value: bytes outside printable ASCII and '%' become %XX.
 * Returns a malloc'ed string or NULL. */
char *weir__grpc_percent_encode(const char *s);

/* Standard base64 with padding; malloc'ed, NULL on failure. */
char *weir__grpc_base64(const void *data, size_t len);

/* Standard base64 (padding optional, as gRPC sends binary headers)
 * decoded into a malloc'ed buffer; NULL on bad input or no memory. */
uint8_t *weir__grpc_unbase64(const char *text, size_t len, size_t *out_len);

/* --- Client: one call to a gRPC server over h2c (grpc_client.c) --------- */

typedef struct weir__grpc_target {
    const char *host;        /* name or numeric address */
    unsigned port;
    const char *token;       /* bearer token, or NULL */
    unsigned connect_ms;     /* connecting gives up after this; 0 = 10 s */
    /* When *cancel becomes nonzero (a signal handler may set it), the call
     * stops within a second: WEIR_ECANCELED. NULL = not cancellable. */
    const volatile int *cancel;
} weir__grpc_target;

/* How a call ended: its trailers. */
typedef struct weir__grpc_status {
    int code;          /* grpc-status */
    char message[512]; /* grpc-message, percent-decoded, truncated */
    /* grpc-status-details-bin, base64-decoded (a serialized
     * google.rpc.Status), malloc'ed, NULL when absent or undecodable;
     * freed by weir__grpc_status_clear. */
    uint8_t *details;
    size_t details_len;
} weir__grpc_status;

void weir__grpc_status_clear(weir__grpc_status *status);

/* Called for each response message in order; nonzero cancels the call. */
typedef int (*weir__grpc_message_fn)(void *payload, const uint8_t *msg,
                                     size_t len);

/*
 * Send one request message to method (e.g.
 * "/spark.connect.SparkConnectService/ExecutePlan") and deliver every
 * response message to on_message until the server ends the call. *status
 * gets the call's trailers (release with weir__grpc_status_clear, also
 * after a failed call). Returns 0 when the call ended with a status
 * (whatever it is), WEIR_EIO when the server cannot be reached within
 * connect_ms or the connection fails (err says which), WEIR_ECANCELED when
 * on_message or target->cancel cancelled, WEIR_ENOMEM. Blocking; one
 * connection per call.
 */
int weir__grpc_client_call(const weir__grpc_target *target, const char *method,
                           const void *request, size_t len,
                           weir__grpc_message_fn on_message, void *payload,
                           weir__grpc_status *status, weir_error *err);

#endif
