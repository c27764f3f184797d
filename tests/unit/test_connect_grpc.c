/*
 * Unit tests for the gRPC client (src/connect/grpc_client.c) against weir's
 * own gRPC server (grpc.c) in this process: a server-streaming call, a
 * failing status, the bearer token, and an unreachable server.
 */
#include "harness.h"

#include "connect/grpc.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* /t/echo: the request twice, then OK; anything else: FAILED_PRECONDITION. */
static void handler(weir__grpc_call *call, void *payload)
{
    (void)payload;
    size_t len;
    const uint8_t *req = weir__grpc_request(call, &len);
    if (strcmp(weir__grpc_method(call), "/t/echo") == 0) {
        weir__grpc_send(call, req, len);
        weir__grpc_send(call, req, len);
        weir__grpc_finish(call, WEIR_GRPC_OK, NULL, NULL, 0);
        return;
    }
    weir__grpc_finish(call, WEIR_GRPC_FAILED_PRECONDITION, "no such\nmethod: 100% é",
                      NULL, 0);
}

typedef struct got {
    char text[256];
    int n;
} got;

static int collect(void *payload, const uint8_t *msg, size_t len)
{
    got *g = payload;
    size_t used = strlen(g->text);
    snprintf(g->text + used, sizeof g->text - used, "[%.*s]", (int)len,
             (const char *)msg);
    g->n++;
    return 0;
}

static int stop_at_first(void *payload, const uint8_t *msg, size_t len)
{
    collect(payload, msg, len);
    return 1;
}

TEST(test_grpc_client__calls)
{
    weir__grpc_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.token = "s3cret";
    cfg.handler = handler;
    weir__grpc_server *srv = NULL;
    weir_error err;
    CHECK_INT(weir__grpc_start(&srv, &cfg, &err), 0);
    if (!srv)
        return;
    weir__grpc_target t = { "127.0.0.1", weir__grpc_port(srv), "s3cret", 0, NULL };
    weir__grpc_status st;
    got g = { "", 0 };
    CHECK_INT(weir__grpc_client_call(&t, "/t/echo", "hello", 5, collect, &g,
                                     &st, &err),
              0);
    CHECK_INT(st.code, WEIR_GRPC_OK);
    CHECK_INT(g.n, 2);
    CHECK_STR(g.text, "[hello][hello]");

    /* An empty request message is one message too. */
    memset(&g, 0, sizeof g);
    CHECK_INT(weir__grpc_client_call(&t, "/t/echo", NULL, 0, collect, &g,
                                     &st, &err),
              0);
    CHECK_INT(g.n, 2);

    CHECK_INT(weir__grpc_client_call(&t, "/t/other", "x", 1, collect, &g,
                                     &st, &err),
              0);
    CHECK_INT(st.code, WEIR_GRPC_FAILED_PRECONDITION);
    CHECK_STR(st.message, "no such\nmethod: 100% é"); /* percent-decoded */

    /* The receiver can stop a call. */
    memset(&g, 0, sizeof g);
    CHECK_INT(weir__grpc_client_call(&t, "/t/echo", "a", 1, stop_at_first, &g,
                                     &st, &err),
              WEIR_ECANCELED);
    CHECK_INT(g.n, 1);

    /* A wrong token is the server's UNAUTHENTICATED. */
    weir__grpc_target bad = t;
    bad.token = "wrong";
    CHECK_INT(weir__grpc_client_call(&bad, "/t/echo", "a", 1, collect, &g,
                                     &st, &err),
              0);
    CHECK_INT(st.code, WEIR_GRPC_UNAUTHENTICATED);
    unsigned port = weir__grpc_port(srv);
    weir__grpc_stop(srv);

    /* Nobody listens there any more: a clear error, at once. */
    weir__grpc_target gone = { "127.0.0.1", port, NULL, 2000, NULL };
    CHECK_INT(weir__grpc_client_call(&gone, "/t/echo", "a", 1, collect, &g,
                                     &st, &err),
              WEIR_EIO);
    CHECK_STR(err.error_class, "CONNECT_FAILED");
    CHECK_CONTAINS(err.message, "cannot connect to 127.0.0.1:");
}

/* A loopback socket that listens and never answers: connections are
 * accepted by the kernel (from the backlog). Returns it, *port its port. */
static int silent_listener(unsigned *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
          listen(fd, 4) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* A server that accepts the connection and never answers: an error within
 * the connect bound. */
TEST(test_grpc_client__silent_server)
{
    unsigned port = 0;
    int fd = silent_listener(&port);
    weir__grpc_target t = { "127.0.0.1", port, NULL, 300, NULL };
    weir__grpc_status st;
    weir_error err;
    got g = { "", 0 };
    CHECK_INT(weir__grpc_client_call(&t, "/t/echo", "a", 1, collect, &g, &st,
                                     &err),
              WEIR_EIO);
    CHECK_STR(err.error_class, "CONNECT_FAILED");
    CHECK_CONTAINS(err.message, "sent nothing in 300 ms");
    close(fd);
}

/* *cancel stops a call that is waiting for the server. */
TEST(test_grpc_client__cancel)
{
    unsigned port = 0;
    int fd = silent_listener(&port);
    volatile int stop = 1;
    weir__grpc_target t = { "127.0.0.1", port, NULL, 60000, &stop };
    weir__grpc_status st;
    weir_error err;
    got g = { "", 0 };
    CHECK_INT(weir__grpc_client_call(&t, "/t/echo", "a", 1, collect, &g, &st,
                                     &err),
              WEIR_ECANCELED);
    close(fd);
}

/* grpc-status-details-bin is base64 with or without padding. */
TEST(test_grpc_client__unbase64)
{
    size_t n = 0;
    uint8_t *d = weir__grpc_unbase64("aGVsbG8", 7, &n);
    CHECK(d != NULL && n == 5 && memcmp(d, "hello", 5) == 0);
    free(d);
    d = weir__grpc_unbase64("aGVsbG8=", 8, &n);
    CHECK(d != NULL && n == 5 && memcmp(d, "hello", 5) == 0);
    free(d);
    char *enc = weir__grpc_base64("\x00\xff\x10", 3);
    d = enc ? weir__grpc_unbase64(enc, strlen(enc), &n) : NULL;
    CHECK(d != NULL && n == 3 && memcmp(d, "\x00\xff\x10", 3) == 0);
    free(d);
    free(enc);
    CHECK(weir__grpc_unbase64("a", 1, &n) == NULL);
    CHECK(weir__grpc_unbase64("ab!d", 4, &n) == NULL);
}

TEST_MAIN(RUN(test_grpc_client__calls); RUN(test_grpc_client__silent_server);
          RUN(test_grpc_client__cancel); RUN(test_grpc_client__unbase64))
