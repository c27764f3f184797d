/*
 * Unit tests for the gRPC client (src/connect/grpc_client.c) against weir's
 * own gRPC server (grpc.c) in this process: a server-streaming call, a
 * failing status, the bearer token, and an unreachable server.
 */
#include "harness.h"

#include "connect/grpc.h"

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

TEST_MAIN(RUN(test_grpc_client__calls))
