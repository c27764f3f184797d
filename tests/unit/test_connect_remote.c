/*
 * Unit tests for weir as a Spark Connect client (src/connect/remote.c,
 * remote_uri.c): sc:// connection strings, Spark's error statuses decoded
 * into weir_errors, and a whole remote run (graph, SQL files, StartRun
 * events, an error status) against weir's own server in serving mode, in
 * this process.
 */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connect/connect.h"
#include "connect/internal.h"
#include "google/rpc/error_details.pb-c.h"
#include "google/rpc/status.pb-c.h"

TEST(test_remote_uri__valid)
{
    weir_remote_uri u;
    weir_error err;
    CHECK_INT(weir_remote_parse_uri(&u, "sc://spark.example:443", &err), 0);
    CHECK_STR(u.host, "spark.example");
    CHECK_INT(u.port, 443);
    CHECK_STR(u.token, "");
    CHECK_INT(weir_remote_parse_uri(&u, "sc://h", &err), 0);
    CHECK_INT(u.port, 15002);
    CHECK_INT(weir_remote_parse_uri(&u, "sc://h/", &err), 0);
    CHECK_INT(weir_remote_parse_uri(
                  &u,
                  "sc://localhost:15002/;token=abc;user_id=ann;use_ssl=false;"
                  "user_agent=x;session_id=0b8d3a3e-8f0e-4a51-9a27-5b0e8f1c2d3e",
                  &err),
              0);
    CHECK_STR(u.host, "localhost");
    CHECK_STR(u.token, "abc");
    CHECK_STR(u.user_id, "ann");
    CHECK_STR(u.session_id, "0b8d3a3e-8f0e-4a51-9a27-5b0e8f1c2d3e");
    CHECK_INT(weir_remote_parse_uri(&u, "sc://[::1]:7/;token=t", &err), 0);
    CHECK_STR(u.host, "::1");
    CHECK_INT(u.port, 7);
    CHECK_INT(weir_remote_parse_uri(&u, "sc://127.0.0.1:9;token=t", &err), 0);
    CHECK_STR(u.token, "t");
}

TEST(test_remote_uri__invalid)
{
    static const struct {
        const char *uri, *says;
    } bad[] = {
        { "http://h:1", "is not a Spark Connect URI" },
        { "sc://", "has no host" },
        { "sc://:15002", "has no host" },
        { "sc://h:", "the port is empty" },
        { "sc://h:0", "from 1 to 65535" },
        { "sc://h:65536", "from 1 to 65535" },
        { "sc://h:12x", "from 1 to 65535" },
        { "sc://h:99999999999999999999", "from 1 to 65535" },
        { "sc://[::1", "closing ']'" },
        { "sc://[::1]x", "expected ':PORT'" },
        { "sc://h/path", "has no path" },
        { "sc://h/;use_ssl=true", "use_ssl=true is not supported" },
        { "sc://h/;color=red", "unknown parameter 'color'" },
        { "sc://h/;token", "is not key=value" },
        { "sc://h/;=x", "is not key=value" },
        { "sc://localhost/;token=", "empty or too long" },
        { "sc://h/;session_id=42", "must be a UUID" },
        { "sc://spark.example/;token=s3cret", "only to a loopback host" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        weir_remote_uri u;
        weir_error err;
        memset(&err, 0, sizeof err);
        CHECK_INT(weir_remote_parse_uri(&u, bad[i].uri, &err), WEIR_EINVAL);
        CHECK_STR(err.error_class, "INVALID_REMOTE_URI");
        CHECK_CONTAINS(err.message, bad[i].says);
    }
}

/* A serialized google.rpc.Status as Spark sends it; malloc'ed. */
static uint8_t *spark_status(const char *message, const char *error_class,
                             size_t *len)
{
    Google__Rpc__ErrorInfo__MetadataEntry md =
        GOOGLE__RPC__ERROR_INFO__METADATA_ENTRY__INIT, *mdp = &md;
    md.key = (char *)"errorClass";
    md.value = (char *)error_class;
    Google__Rpc__ErrorInfo info = GOOGLE__RPC__ERROR_INFO__INIT;
    info.reason = (char *)"org.apache.spark.sql.catalyst.parser.ParseException";
    info.domain = (char *)"org.apache.spark";
    info.n_metadata = error_class ? 1 : 0;
    info.metadata = &mdp;
    uint8_t ibuf[512];
    size_t ilen = google__rpc__error_info__pack(&info, ibuf);
    Google__Protobuf__Any any = GOOGLE__PROTOBUF__ANY__INIT, *anyp = &any;
    any.type_url = (char *)"type.googleapis.com/google.rpc.ErrorInfo";
    any.value.data = ibuf;
    any.value.len = ilen;
    Google__Rpc__Status st = GOOGLE__RPC__STATUS__INIT;
    st.code = 13;
    st.message = (char *)message;
    st.n_details = 1;
    st.details = &anyp;
    *len = google__rpc__status__get_packed_size(&st);
    uint8_t *buf = malloc(*len);
    if (buf)
        google__rpc__status__pack(&st, buf);
    return buf;
}

TEST(test_remote_status__decoded)
{
    weir_error err;
    size_t len = 0;
    /* Spark's parser error: a leading newline, the class, the position. */
    uint8_t *d = spark_status(
        "\n[PARSE_SYNTAX_ERROR] Syntax error at or near 'REFRESH'. SQLSTATE: "
        "42601 (line 4, pos 10)\n\n== SQL ==\nCREATE OR REFRESH\n",
        "PARSE_SYNTAX_ERROR", &len);
    CHECK(d != NULL);
    weir__remote_status_error(&err, 13, "", d, len);
    CHECK_INT(err.code, WEIR_EENGINE);
    CHECK_STR(err.error_class, "PARSE_SYNTAX_ERROR");
    CHECK_STR(err.message,
              "Syntax error at or near 'REFRESH'. SQLSTATE: 42601");
    CHECK_INT(err.line, 4);
    CHECK_INT(err.column, 11);
    free(d);

    /* No errorClass: the message's own "[CLASS]" prefix. */
    d = spark_status("[CAST_INVALID_INPUT] The value 'x' cannot be cast.", NULL,
                     &len);
    weir__remote_status_error(&err, 13, NULL, d, len);
    CHECK_STR(err.error_class, "CAST_INVALID_INPUT");
    CHECK_STR(err.message, "The value 'x' cannot be cast.");
    CHECK_INT(err.line, 0);
    free(d);

    /* No details: grpc-message; nothing at all: the status code. */
    weir__remote_status_error(&err, 14, "server shutting down", NULL, 0);
    CHECK_STR(err.error_class, "SPARK_CONNECT_ERROR");
    CHECK_STR(err.message, "server shutting down");
    weir__remote_status_error(&err, 14, "", NULL, 0);
    CHECK_CONTAINS(err.message, "gRPC status 14 without a message");
    /* Bytes that are not a Status. */
    weir__remote_status_error(&err, 2, "fallback", (const uint8_t *)"\xff\xff", 2);
    CHECK_STR(err.message, "fallback");
}

/* --- A remote run against weir's own server ------------------------------- */

typedef struct seen {
    char text[4096];
    int n, errors;
} seen;

static void on_event(const weir_event *ev, void *payload)
{
    seen *s = payload;
    size_t used = strlen(s->text);
    snprintf(s->text + used, sizeof s->text - used, "%s|", ev->message);
    s->n++;
    s->errors += ev->level == WEIR_LEVEL_ERROR;
}

static void put(const char *dir, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(test_remote_run__against_weir)
{
    char dir[] = "/tmp/weir-remote-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char sub[600];
    snprintf(sub, sizeof sub, "%s/transformations", dir);
    CHECK_INT(mkdir(sub, 0755), 0);
    put(dir, "spark-pipeline.yml",
        "name: remote_test\nstorage: local-storage\nconfiguration:\n"
        "  my.key: \"7\"\nlibraries:\n  - glob:\n"
        "      include: transformations/**\n");
    put(dir, "transformations/a.sql",
        "CREATE MATERIALIZED VIEW a AS SELECT id FROM range(3);\n");
    put(dir, "transformations/b.sql",
        "CREATE MATERIALIZED VIEW b AS SELECT count(*) AS n FROM a;\n");

    weir_session_options so = WEIR_SESSION_OPTIONS_INIT;
    so.threads = 1;
    weir_session *session = NULL;
    weir_error err;
    CHECK_INT(weir_session_open(&session, &so, &err), 0);
    weir_connect_options co;
    memset(&co, 0, sizeof co);
    co.token = "tok";
    co.session = session;
    co.root_dir = dir;
    weir_connect_server *server = NULL;
    CHECK_INT(weir_connect_start(&server, &co, &err), 0);
    char spec[600];
    snprintf(spec, sizeof spec, "%s/spark-pipeline.yml", dir);
    weir_pipeline *p = NULL;
    CHECK_INT(weir_pipeline_load(&p, session, spec, &err), 0);
    if (!server || !p)
        return;

    char uri[128];
    snprintf(uri, sizeof uri, "sc://localhost:%u/;token=tok",
             weir_connect_port(server));
    weir_remote *r = NULL;
    CHECK_INT(weir_remote_open(&r, uri, 0, NULL, &err), 0);
    CHECK_CONTAINS(weir_remote_client_uri(r), ";session_id=");
    CHECK_CONTAINS(weir_remote_client_uri(r), ";token=tok");
    CHECK_STR(weir_remote_graph_id(r), "");
    CHECK_INT(weir_remote_define(r, p, &err), 0);
    CHECK_INT(strlen(weir_remote_graph_id(r)), 36);

    /* The remote storage is another folder than the pipeline's. */
    char storage[600];
    snprintf(storage, sizeof storage, "%s/remote-storage", dir);
    seen s;
    memset(&s, 0, sizeof s);
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    ro.storage = storage;
    ro.on_event = on_event;
    ro.event_payload = &s;
    weir_run_result res;
    CHECK_INT(weir_remote_start_run(r, p, &ro, &res, &err), 0);
    CHECK_INT(res.state, WEIR_RUN_COMPLETED);
    CHECK_INT(res.flows_completed, 2);
    CHECK_INT(strlen(res.update_id), 36);
    CHECK_CONTAINS(s.text, "has COMPLETED.|");
    CHECK_CONTAINS(s.text, "|Run is COMPLETED.|");
    CHECK_INT(s.errors, 0);
    struct stat st;
    CHECK_INT(stat(storage, &st), 0); /* written by the server */

    /* A dry run of a graph that reads a missing table: the server says so
     * in an error status, decoded with its class. */
    weir_remote_close(r);
    put(dir, "transformations/c.sql",
        "CREATE MATERIALIZED VIEW c AS SELECT * FROM missing_table;\n");
    weir_pipeline_drop(p);
    p = NULL;
    CHECK_INT(weir_pipeline_load(&p, session, spec, &err), 0);
    CHECK_INT(weir_remote_open(&r, uri, 0, NULL, &err), 0);
    CHECK_INT(weir_remote_define(r, p, &err), 0);
    memset(&s, 0, sizeof s);
    ro.dry = true;
    memset(&err, 0, sizeof err);
    int rc = weir_remote_start_run(r, p, &ro, &res, &err);
    CHECK(rc == WEIR_EENGINE || res.state == WEIR_RUN_FAILED);
    if (rc == WEIR_EENGINE)
        CHECK_CONTAINS(err.message, "missing_table");
    else
        CHECK_CONTAINS(s.text, "missing_table");
    weir_remote_close(r);

    /* A wrong token: the server's UNAUTHENTICATED as an error. */
    snprintf(uri, sizeof uri, "sc://localhost:%u/;token=wrong",
             weir_connect_port(server));
    CHECK_INT(weir_remote_open(&r, uri, 0, NULL, &err), 0);
    CHECK_INT(weir_remote_define(r, p, &err), WEIR_EENGINE);
    weir_remote_close(r);

    weir_pipeline_drop(p);
    weir_connect_stop(server);
    weir_session_close(session);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

TEST_MAIN(RUN(test_remote_uri__valid); RUN(test_remote_uri__invalid);
          RUN(test_remote_status__decoded); RUN(test_remote_run__against_weir))
