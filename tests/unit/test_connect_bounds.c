/*
 * Unit tests for the gRPC server's bounds on connections (src/connect/
 * grpc.c): hundreds of idle or slow connections without the token do not
 * keep a client with it out, and are closed after auth_ms; an
 * authenticated connection left idle gets GOAWAY and is closed; an
 * endpoint for children only closes other processes' connections at once.
 * Waits are bounded generously; nothing here asserts on timings.
 */
#include "harness.h"

#include "connect/grpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>

#define IDLE_CONNECTIONS 300
#define SLOW_CONNECTIONS 40
#define PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

static void handler(weir__grpc_call *call, void *payload)
{
    (void)payload;
    weir__grpc_send(call, "ok", 2);
    weir__grpc_finish(call, WEIR_GRPC_OK, NULL, NULL, 0);
}

static int count(void *payload, const uint8_t *msg, size_t len)
{
    (void)msg;
    (void)len;
    (*(int *)payload)++;
    return 0;
}

static int tcp_connect(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Has the server closed fd (EOF or reset), reading and dropping whatever
 * it sent first? Waits at most ms. */
static bool closed_within(int fd, int ms)
{
    char buf[4096];
    for (int waited = 0; waited <= ms; waited += 50) {
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, 50) == 1) {
            ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
                return true;
        }
    }
    return false;
}

static int call_ok(unsigned port)
{
    weir__grpc_target t = { "127.0.0.1", port, "s3cret", 20000, NULL };
    weir__grpc_status st;
    weir_error err;
    int n = 0;
    int rc = weir__grpc_client_call(&t, "/t/x", "a", 1, count, &n, &st, &err);
    int code = rc ? -1 : st.code;
    weir__grpc_status_clear(&st);
    return rc == 0 && code == WEIR_GRPC_OK && n == 1;
}

TEST(test_bounds__idle_and_slow_connections)
{
    weir__grpc_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.token = "s3cret";
    cfg.handler = handler;
    cfg.auth_ms = 1000;
    weir__grpc_server *srv = NULL;
    weir_error err;
    CHECK_INT(weir__grpc_start(&srv, &cfg, &err), 0);
    if (!srv)
        return;
    unsigned port = weir__grpc_port(srv);
    static int idle[IDLE_CONNECTIONS], slow[SLOW_CONNECTIONS];
    int opened = 0;
    for (int i = 0; i < IDLE_CONNECTIONS; i++)
        opened += (idle[i] = tcp_connect(port)) >= 0;
    for (int i = 0; i < SLOW_CONNECTIONS; i++)
        opened += (slow[i] = tcp_connect(port)) >= 0;
    CHECK_INT(opened, IDLE_CONNECTIONS + SLOW_CONNECTIONS);
    /* The slow ones trickle the preface, a byte at a time. */
    for (int b = 0; b < 4; b++)
        for (int i = 0; i < SLOW_CONNECTIONS; i++)
            if (slow[i] >= 0)
                send(slow[i], PREFACE + b, 1, MSG_NOSIGNAL);
    /* A client with the token gets in, now and again later. */
    CHECK(call_ok(port));
    for (int b = 4; b < 8; b++)
        for (int i = 0; i < SLOW_CONNECTIONS; i++)
            if (slow[i] >= 0)
                send(slow[i], PREFACE + b, 1, MSG_NOSIGNAL);
    CHECK(call_ok(port));
    /* Every connection without the token is closed: evicted or past its
     * deadline. */
    int still_open = 0;
    for (int i = 0; i < IDLE_CONNECTIONS; i++)
        still_open += idle[i] >= 0 && !closed_within(idle[i], 30000);
    for (int i = 0; i < SLOW_CONNECTIONS; i++)
        still_open += slow[i] >= 0 && !closed_within(slow[i], 30000);
    CHECK_INT(still_open, 0);
    for (int i = 0; i < IDLE_CONNECTIONS; i++)
        if (idle[i] >= 0)
            close(idle[i]);
    for (int i = 0; i < SLOW_CONNECTIONS; i++)
        if (slow[i] >= 0)
            close(slow[i]);
    CHECK(call_ok(port));
    weir__grpc_stop(srv);
}

/* ---- an authenticated connection left idle -------------------------------- */

typedef struct h2 {
    int fd;
    bool goaway, done;
    int status;
} h2;

static ssize_t h2_send(nghttp2_session *s, const uint8_t *data, size_t len,
                       int flags, void *user)
{
    (void)s;
    (void)flags;
    h2 *c = user;
    ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL);
    return n < 0 ? NGHTTP2_ERR_CALLBACK_FAILURE : n;
}

static int h2_frame(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
    (void)s;
    h2 *c = user;
    if (f->hd.type == NGHTTP2_GOAWAY)
        c->goaway = true;
    return 0;
}

static int h2_close(nghttp2_session *s, int32_t id, uint32_t code, void *user)
{
    (void)s;
    (void)id;
    (void)code;
    ((h2 *)user)->done = true;
    return 0;
}

static ssize_t h2_body(nghttp2_session *s, int32_t id, uint8_t *buf,
                       size_t len, uint32_t *flags, nghttp2_data_source *src,
                       void *user)
{
    (void)s;
    (void)id;
    (void)src;
    (void)user;
    static const uint8_t msg[] = { 0, 0, 0, 0, 1, 'a' };
    CHECK(len >= sizeof msg);
    memcpy(buf, msg, sizeof msg);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return sizeof msg;
}

/* Pump the session until stop() or the peer closes; false on timeout. */
static bool h2_pump(nghttp2_session *s, h2 *c, bool (*stop)(const h2 *),
                    int ms, bool *eof)
{
    *eof = false;
    for (int waited = 0; waited <= ms && !stop(c); waited += 50) {
        nghttp2_session_send(s);
        struct pollfd p = { c->fd, POLLIN, 0 };
        if (poll(&p, 1, 50) != 1)
            continue;
        uint8_t buf[16384];
        ssize_t n = recv(c->fd, buf, sizeof buf, 0);
        if (n <= 0) {
            *eof = true;
            return true;
        }
        nghttp2_session_mem_recv(s, buf, (size_t)n);
    }
    return stop(c);
}

static bool call_done(const h2 *c)
{
    return c->done;
}

static bool never(const h2 *c)
{
    (void)c;
    return false;
}

TEST(test_bounds__idle_authenticated_connection)
{
    weir__grpc_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.token = "s3cret";
    cfg.handler = handler;
    cfg.idle_ms = 300;
    weir__grpc_server *srv = NULL;
    weir_error err;
    CHECK_INT(weir__grpc_start(&srv, &cfg, &err), 0);
    if (!srv)
        return;
    h2 c = { tcp_connect(weir__grpc_port(srv)), false, false, 0 };
    CHECK(c.fd >= 0);
    nghttp2_session_callbacks *cb;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_send_callback(cb, h2_send);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, h2_frame);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, h2_close);
    nghttp2_session *s;
    nghttp2_session_client_new(&s, cb, &c);
    nghttp2_session_callbacks_del(cb);
    nghttp2_submit_settings(s, NGHTTP2_FLAG_NONE, NULL, 0);
#define NV(n, v)                                                              \
    { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1,          \
      NGHTTP2_NV_FLAG_NONE }
    nghttp2_nv nv[] = { NV(":method", "POST"), NV(":scheme", "http"),
                        NV(":path", "/t/x"), NV(":authority", "localhost"),
                        NV("content-type", "application/grpc"),
                        NV("te", "trailers"),
                        NV("authorization", "Bearer s3cret") };
    nghttp2_data_provider body = { { 0 }, h2_body };
    CHECK(nghttp2_submit_request(s, NULL, nv, sizeof nv / sizeof *nv, &body,
                                 NULL) > 0);
    bool eof;
    CHECK(h2_pump(s, &c, call_done, 20000, &eof));
    CHECK(!eof);
    /* Then nothing: the server says GOAWAY and closes the connection. */
    h2_pump(s, &c, never, 30000, &eof);
    CHECK(c.goaway);
    CHECK(eof);
    nghttp2_session_del(s);
    close(c.fd);
    weir__grpc_stop(srv);
}

/* ---- children only ---------------------------------------------------------- */

static int unix_connect(const char *name)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    size_t n = strlen(name);
    memcpy(a.sun_path, name, n);
    a.sun_path[0] = '\0'; /* "@name": abstract */
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 &&
        connect(fd, (struct sockaddr *)&a,
                (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

TEST(test_bounds__children_only)
{
    char name[64];
    snprintf(name, sizeof name, "@weir-test-bounds-%ld", (long)getpid());
    weir__grpc_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.token = "s3cret";
    cfg.handler = handler;
    cfg.unix_path = name;
    cfg.children_only = true;
    weir__grpc_server *srv = NULL;
    weir_error err;
    CHECK_INT(weir__grpc_start(&srv, &cfg, &err), 0);
    if (!srv)
        return;
    /* This process is not its own child: closed before a byte is sent. */
    int fd = unix_connect(name);
    CHECK(fd >= 0);
    char byte;
    struct pollfd p = { fd, POLLIN, 0 };
    CHECK(poll(&p, 1, 30000) == 1);
    CHECK(recv(fd, &byte, 1, 0) == 0);
    close(fd);
    /* A child is served: the server's SETTINGS come. */
    pid_t pid = fork();
    if (pid == 0) {
        int cfd = unix_connect(name);
        char buf[64];
        struct pollfd cp = { cfd, POLLIN, 0 };
        bool got = cfd >= 0 && send(cfd, PREFACE, strlen(PREFACE), 0) > 0 &&
                   poll(&cp, 1, 30000) == 1 && recv(cfd, buf, sizeof buf, 0) >= 9;
        _exit(got ? 0 : 1);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    weir__grpc_stop(srv);
}

TEST_MAIN(RUN(test_bounds__idle_and_slow_connections);
          RUN(test_bounds__idle_authenticated_connection);
          RUN(test_bounds__children_only))
