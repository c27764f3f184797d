/*
 * The transport of the gRPC server (see grpc.h): the listening socket, the
 * connections and their nghttp2 sessions, the I/O thread that polls them,
 * the worker threads that run handlers, and the server's start, drain and
 * stop. What happens on a connection's streams is grpc_call.c.
 */
#define _GNU_SOURCE /* accept4 */
#include "connect/grpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "connect/grpc_internal.h"
#include "util/clock.h"
#include "util/error.h"

#define DEFAULT_MAX_MESSAGE (128u << 20)
#define DEFAULT_MAX_CONNECTIONS 256
#define DEFAULT_AUTH_MS 10000
#define DEFAULT_IDLE_MS (5 * 60 * 1000)
#define MAX_PENDING 128        /* connections without a token yet */
#define MAX_PENDING_PER_PEER 64
#define MAX_QUEUED_CALLS 256
#define READ_CHUNK 16384
#define SETTLE_MS 2000 /* a client reacts to a call's status within this:
                          PySpark turns an error into an exception with
                          two more calls (Config) */

static int64_t now_ms(void)
{
    return weir__monotonic_us() / 1000;
}

void weir__grpc_wake_io(weir__grpc_server *s)
{
    char x = 1;
    ssize_t rc;
    do
        rc = write(s->wake[1], &x, 1);
    while (rc < 0 && errno == EINTR);
    /* EAGAIN: the pipe already holds a wake-up. */
}

/* ------------------------------------------------------------------------
 * Connections (I/O thread)
 * ------------------------------------------------------------------------ */

static void conn_free(grpc_conn *cn)
{
    /* nghttp2_session_del does not call on_stream_close: release here. */
    for (grpc_stream *st = cn->streams, *next; st; st = next) {
        next = st->next;
        weir__grpc_stream_release(cn, st);
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

static grpc_conn *conn_new(weir__grpc_server *s, int fd)
{
    grpc_conn *cn = calloc(1, sizeof *cn);
    nghttp2_session_callbacks *cb = NULL;
    if (!cn || nghttp2_session_callbacks_new(&cb)) {
        free(cn);
        return NULL;
    }
    cn->fd = fd;
    cn->server = s;
    weir__grpc_stream_callbacks(cb);
    int rc = nghttp2_session_server_new(&cn->session, cb, cn);
    nghttp2_session_callbacks_del(cb);
    if (rc) {
        free(cn);
        return NULL;
    }
    nghttp2_settings_entry iv[] = {
        { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, GRPC_MAX_STREAMS_PER_CONN },
        { NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, GRPC_MAX_HEADER_BYTES },
    };
    nghttp2_submit_settings(cn->session, NGHTTP2_FLAG_NONE, iv, 2);
    return cn;
}

/* Write what nghttp2 has to say; false when the connection is finished. */
static bool conn_flush(grpc_conn *cn)
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

static bool conn_read(grpc_conn *cn)
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
        cn->active_ms = now_ms();
        ssize_t used = nghttp2_session_mem_recv(cn->session, buf, (size_t)n);
        if (used < 0)
            return false; /* not HTTP/2: drop the connection */
        if ((size_t)n < sizeof buf)
            return true;
    }
}

/* Make room for a connection from peer: when that peer holds too many
 * connections without the token, its oldest goes; else, when too many
 * connections lack it in all, or the server is full, the oldest of them
 * goes (a client with the token sends it at once: it is the youngest).
 * False when the server is full of authenticated connections. */
static bool make_room(weir__grpc_server *s, const char *peer)
{
    size_t total = 0, pending = 0, mine = 0;
    grpc_conn *oldest = NULL, *my_oldest = NULL;
    for (grpc_conn *cn = s->conns; cn; cn = cn->next) {
        if (cn->dead)
            continue;
        total++;
        if (cn->authed)
            continue;
        pending++;
        if (!oldest || cn->born_ms < oldest->born_ms)
            oldest = cn;
        if (strcmp(cn->peer, peer) == 0) {
            mine++;
            if (!my_oldest || cn->born_ms < my_oldest->born_ms)
                my_oldest = cn;
        }
    }
    grpc_conn *victim = mine >= MAX_PENDING_PER_PEER ? my_oldest
                        : pending >= MAX_PENDING ||
                                total >= s->cfg.max_connections
                            ? oldest
                            : NULL;
    if (victim) {
        victim->dead = true;
        total--;
    }
    return total < s->cfg.max_connections;
}

static void accept_all(weir__grpc_server *s)
{
    for (;;) {
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return;
        char peer[WEIR_PEER_KEY];
        weir__peer_key(fd, peer);
        if ((s->cfg.children_only && !weir__peer_is_child(fd)) ||
            !make_room(s, peer) || set_nonblocking(fd)) {
            close(fd);
            continue;
        }
        if (!s->unix_path) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        grpc_conn *cn = conn_new(s, fd);
        if (!cn) {
            close(fd);
            continue;
        }
        cn->born_ms = cn->active_ms = now_ms();
        memcpy(cn->peer, peer, sizeof peer);
        cn->next = s->conns;
        s->conns = cn;
        s->n_conns++;
        /* A client sends its first request as it connects: read it now,
         * so that a burst of connections accepted after it does not take
         * it for one that never sends the token. */
        if (!conn_read(cn))
            cn->dead = true;
    }
}

/* A connection that never sent the token in time is closed; one with the
 * token but no call for idle_ms says GOAWAY (the client opens a new one
 * when it needs it), and closes once that is out. */
static void check_deadlines(weir__grpc_server *s, grpc_conn *cn, int64_t now)
{
    if (cn->dead || cn->closing)
        return;
    if (!cn->authed) {
        if (now - cn->born_ms > (int64_t)s->cfg.auth_ms)
            cn->dead = true;
    } else if (cn->n_streams || cn->pending_len) {
        cn->active_ms = now;
    } else if (now - cn->active_ms > (int64_t)s->cfg.idle_ms) {
        cn->closing = true;
        if (nghttp2_session_terminate_session(cn->session, NGHTTP2_NO_ERROR))
            cn->dead = true;
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
        weir__grpc_call_progress(c);
        weir__grpc_call_unref(c);
    }
}

static void *io_main(void *arg)
{
    weir__grpc_server *s = arg;
    struct pollfd *fds = NULL;
    grpc_conn **owners = NULL;
    size_t cap = 0;
    while (!atomic_load(&s->stopping)) {
        size_t need = s->n_conns + 2;
        if (need > cap) {
            struct pollfd *f = realloc(fds, need * sizeof *f);
            if (f)
                fds = f;
            grpc_conn **o = realloc(owners, need * sizeof *o);
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
        for (grpc_conn *cn = s->conns; cn; cn = cn->next) {
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
            grpc_conn *cn = owners[i];
            if (fds[i].revents & (POLLERR | POLLNVAL))
                cn->dead = true;
            else if ((fds[i].revents & (POLLIN | POLLHUP)) && !conn_read(cn))
                cn->dead = true;
        }
        if (fds[1].revents & POLLIN)
            accept_all(s);
        bool idle = true, settled = true;
        int64_t now = now_ms();
        for (grpc_conn **pp = &s->conns; *pp;) {
            grpc_conn *cn = *pp;
            check_deadlines(s, cn, now);
            if (!cn->dead && !conn_flush(cn))
                cn->dead = true;
            if (cn->dead) {
                *pp = cn->next;
                s->n_conns--;
                conn_free(cn);
            } else {
                idle &= !cn->pending_len &&
                        !nghttp2_session_want_write(cn->session);
                settled &= !cn->n_streams && now - cn->active_ms >= SETTLE_MS;
                pp = &cn->next;
            }
        }
        atomic_store(&s->io_idle, idle);
        atomic_store(&s->settled, settled);
    }
    while (s->conns) {
        grpc_conn *cn = s->conns;
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
        weir__grpc_call_unref(c);
        pthread_mutex_lock(&s->lock);
        s->n_busy--;
        pthread_mutex_unlock(&s->lock);
    }
}

bool weir__grpc_enqueue(weir__grpc_server *s, weir__grpc_call *c)
{
    pthread_mutex_lock(&s->lock);
    bool full = s->n_jobs >= MAX_QUEUED_CALLS;
    if (!full) {
        atomic_fetch_add(&c->refs, 1); /* the worker's */
        c->next_job = NULL;
        if (s->jobs_tail)
            s->jobs_tail->next_job = c;
        else
            s->jobs_head = c;
        s->jobs_tail = c;
        s->n_jobs++;
        pthread_cond_signal(&s->job_ready);
    }
    pthread_mutex_unlock(&s->lock);
    return !full;
}

/* ------------------------------------------------------------------------
 * Server
 * ------------------------------------------------------------------------ */

/* Listen on s->unix_path: a fresh socket file (an old one is an error:
 * another server may use it), or, for "@name", the abstract name (Linux:
 * no file, gone with the socket). */
static int listen_unix(weir__grpc_server *s, weir_error *err)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    size_t n = strlen(s->unix_path);
    bool abstract = s->unix_path[0] == '@';
    if (n >= sizeof sa.sun_path)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "the socket path %s is longer than %zu bytes",
                        s->unix_path, sizeof sa.sun_path - 1);
    memcpy(sa.sun_path, s->unix_path, n);
    if (abstract)
        sa.sun_path[0] = '\0';
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
                                !abstract);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) || listen(fd, 256) ||
        set_nonblocking(fd)) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        WEIR_ERR(err, WEIR_EIO, NULL, "cannot listen on %s: %s", s->unix_path,
                 strerror(e));
        free(s->unix_path);
        s->unix_path = NULL; /* not ours to remove */
        return WEIR_EIO;
    }
    s->listen_fd = fd;
    return 0;
}

static int listen_on(weir__grpc_server *s, weir_error *err)
{
    if (s->unix_path)
        return listen_unix(s, err);
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
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 256) ||
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
        s->cfg.max_connections = DEFAULT_MAX_CONNECTIONS;
    if (!s->cfg.auth_ms)
        s->cfg.auth_ms = DEFAULT_AUTH_MS;
    if (!s->cfg.idle_ms)
        s->cfg.idle_ms = DEFAULT_IDLE_MS;
    s->cfg.unix_path = NULL;
    s->cfg.children_only = cfg->children_only && cfg->unix_path;
    s->listen_fd = s->wake[0] = s->wake[1] = -1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->job_ready, NULL);
    atomic_init(&s->stopping, false);
    atomic_init(&s->io_idle, true);
    atomic_init(&s->settled, true);
    s->token = strdup(cfg->token);
    s->unix_path = cfg->unix_path ? strdup(cfg->unix_path) : NULL;
    s->workers = calloc(s->cfg.workers, sizeof *s->workers);
    if (!s->token || !s->workers || (cfg->unix_path && !s->unix_path)) {
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

bool weir__grpc_drain(weir__grpc_server *s, unsigned timeout_ms, bool settle)
{
    if (!s || !s->cfg.workers)
        return true;
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    for (unsigned waited = 0;; waited += 10) {
        pthread_mutex_lock(&s->lock);
        bool quiet = !s->jobs_head && !s->n_busy && !s->ready;
        pthread_mutex_unlock(&s->lock);
        if (quiet && atomic_load(&s->io_idle) &&
            (!settle || atomic_load(&s->settled)))
            return true;
        if (waited >= timeout_ms)
            return false;
        weir__grpc_wake_io(s);
        nanosleep(&tick, NULL);
    }
}

void weir__grpc_stop(weir__grpc_server *s)
{
    if (!s)
        return;
    atomic_store(&s->stopping, true);
    if (s->wake[1] >= 0 && s->cfg.workers)
        weir__grpc_wake_io(s);
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
        weir__grpc_call_unref(c);
    }
    while (s->ready) {
        weir__grpc_call *c = s->ready;
        s->ready = c->next_ready;
        weir__grpc_call_unref(c);
    }
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    if (s->unix_path && s->unix_path[0] != '@' && s->listen_fd >= 0)
        unlink(s->unix_path);
    free(s->unix_path);
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
