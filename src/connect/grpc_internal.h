/*
 * Inside the gRPC server (grpc.h), shared by its two halves: grpc.c, the
 * transport (sockets, connections, the I/O thread, the workers, the
 * server's life), and grpc_call.c, gRPC on HTTP/2 streams (request
 * headers and bodies, the calls handlers see, responses and trailers).
 *
 * A call is shared by the I/O thread (which owns its stream) and a worker
 * (which runs its handler); it is reference counted, and everything the
 * two sides both touch (response bytes, the finished status, `closed`)
 * sits under the call's mutex. Fields marked "I/O" are touched by the I/O
 * thread only. Not for use outside src/connect/grpc*.c.
 */
#ifndef WEIR_CONNECT_GRPC_INTERNAL_H
#define WEIR_CONNECT_GRPC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>

#include "connect/grpc.h"
#include "util/buf.h"
#include "util/peer.h"

#define GRPC_MAX_STREAMS_PER_CONN 32
#define GRPC_MAX_HEADER_BYTES (16u << 10)

typedef struct grpc_conn grpc_conn;
typedef struct grpc_stream grpc_stream;

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
    grpc_stream *stream;
    weir__grpc_call *next_ready;
    weir__grpc_call *next_job;
};

struct grpc_stream {
    int32_t id;
    grpc_conn *conn;
    weir_buf body; /* the request so far (prefix included) */
    char *path;
    size_t header_bytes;
    bool post, grpc_type, authorized, rejected, dispatched;
    weir__grpc_call *call; /* once dispatched, until the stream closes */
    bool submitted;        /* response headers submitted */
    grpc_stream *next;
};

struct grpc_conn {
    int fd;
    nghttp2_session *session;
    weir__grpc_server *server;
    grpc_stream *streams;
    size_t n_streams;
    size_t inbound; /* request bytes buffered across its streams */
    uint8_t *pending; /* serialized output the socket did not take yet */
    size_t pending_len;
    int64_t born_ms;   /* accepted (monotonic clock) */
    int64_t active_ms; /* last read, or last moment a call was open */
    char peer[WEIR_PEER_KEY]; /* util/peer.h */
    bool authed;       /* a request on it carried the token */
    bool closing;      /* idle: GOAWAY sent, closed once it is out */
    bool dead;
    grpc_conn *next;
};

struct weir__grpc_server {
    weir__grpc_config cfg;
    char *token;
    char *unix_path; /* the socket file to remove at stop, or NULL */
    int listen_fd;
    unsigned port;
    int wake[2];
    pthread_t io_thread;
    pthread_t *workers;
    unsigned n_workers;
    grpc_conn *conns; /* I/O */
    size_t n_conns;
    pthread_mutex_t lock; /* jobs, ready list, stopping */
    pthread_cond_t job_ready;
    weir__grpc_call *jobs_head, *jobs_tail;
    size_t n_jobs;
    weir__grpc_call *ready;
    unsigned n_busy;      /* handlers running now (under lock) */
    atomic_bool stopping;
    atomic_bool io_idle;  /* the I/O thread has nothing left to write */
    atomic_bool settled;  /* no connection had a call for SETTLE_MS */
};

/* ---- the transport (grpc.c) ---- */

/* Wake the I/O thread: calls have news (the server's ready list). */
void weir__grpc_wake_io(weir__grpc_server *s);
/* Queue a complete call for the workers, taking a reference for the
 * worker; false when too many calls are waiting already. */
bool weir__grpc_enqueue(weir__grpc_server *s, weir__grpc_call *c);

/* ---- calls and streams (grpc_call.c) ---- */

/* Drop one reference; the last frees the call. NULL is a no-op. */
void weir__grpc_call_unref(weir__grpc_call *c);
/* I/O thread: a call has news; submit its headers, or resume its data. */
void weir__grpc_call_progress(weir__grpc_call *c);
/* Install the callbacks that turn a connection's HTTP/2 streams into
 * calls (user data: the grpc_conn). */
void weir__grpc_stream_callbacks(nghttp2_session_callbacks *cb);
/* Free a stream, closing its call (sends then fail). */
void weir__grpc_stream_release(grpc_conn *cn, grpc_stream *st);

#endif
