/*
 * The pipeline client of remote.h: builds the ExecutePlan requests of a
 * remote run (CreateDataflowGraph, DefineSqlGraphElements, StartRun) from
 * a loaded weir_pipeline on the generated protobuf-c messages the server
 * side uses, sends each with weir__grpc_client_call, and turns the
 * answers (graph id, PipelineEvents, error statuses) into weir's types.
 * Owns the client's identity (session, user, graph id).
 */
#include "connect/connect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/grpc.h"
#include "connect/internal.h"
#include "spark/connect/base.pb-c.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/fs.h"

#define EXECUTE_PLAN "/spark.connect.SparkConnectService/ExecutePlan"
#define RELEASE_SESSION "/spark.connect.SparkConnectService/ReleaseSession"
#define CLIENT_TYPE "weir"

struct weir_remote {
    weir_remote_uri uri;
    weir__grpc_target target;
    char client_uri[1200];
    char graph_id[128];
    bool own_session; /* made here, so released by weir_remote_close */
};

int weir_remote_open(weir_remote **out, const char *uri, unsigned connect_ms,
                     const volatile int *cancel, weir_error *err)
{
    *out = NULL;
    weir_remote *r = calloc(1, sizeof *r);
    if (!r)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int rc = weir_remote_parse_uri(&r->uri, uri, err);
    if (rc) {
        free(r);
        return rc;
    }
    if (!r->uri.session_id[0]) {
        weir__uuid(r->uri.session_id);
        r->own_session = true;
    }
    if (!r->uri.user_id[0]) {
        const char *user = getenv("USER");
        snprintf(r->uri.user_id, sizeof r->uri.user_id, "%s",
                 user && user[0] && strlen(user) < sizeof r->uri.user_id
                     ? user
                     : "weir");
    }
    r->target.host = r->uri.host;
    r->target.port = r->uri.port;
    r->target.token = r->uri.token[0] ? r->uri.token : NULL;
    r->target.connect_ms = connect_ms;
    r->target.cancel = cancel;
    bool v6 = strchr(r->uri.host, ':') != NULL;
    snprintf(r->client_uri, sizeof r->client_uri,
             "sc://%s%s%s:%u/;user_id=%s;session_id=%s%s%s", v6 ? "[" : "",
             r->uri.host, v6 ? "]" : "", r->uri.port, r->uri.user_id,
             r->uri.session_id, r->uri.token[0] ? ";token=" : "",
             r->uri.token);
    *out = r;
    return 0;
}

const char *weir_remote_client_uri(const weir_remote *r)
{
    return r->client_uri;
}

const char *weir_remote_graph_id(const weir_remote *r)
{
    return r->graph_id;
}

typedef int (*response_fn)(void *payload,
                           const Spark__Connect__ExecutePlanResponse *resp);

typedef struct call_ctx {
    response_fn fn;
    void *payload;
    bool bad; /* a response that is not an ExecutePlanResponse */
} call_ctx;

static int on_message(void *payload, const uint8_t *msg, size_t len)
{
    call_ctx *x = payload;
    Spark__Connect__ExecutePlanResponse *resp =
        spark__connect__execute_plan_response__unpack(NULL, len, msg);
    if (!resp) {
        x->bad = true;
        return 1;
    }
    int stop = x->fn ? x->fn(x->payload, resp) : 0;
    spark__connect__execute_plan_response__free_unpacked(resp, NULL);
    return stop;
}

/* One pipeline command as an ExecutePlan call; each response goes to fn.
 * A non-OK status is the server's error (WEIR_EENGINE). */
static int execute(weir_remote *r, Spark__Connect__PipelineCommand *pc,
                   response_fn fn, void *payload, weir_error *err)
{
    Spark__Connect__Command cmd = SPARK__CONNECT__COMMAND__INIT;
    cmd.command_type_case = SPARK__CONNECT__COMMAND__COMMAND_TYPE_PIPELINE_COMMAND;
    cmd.pipeline_command = pc;
    Spark__Connect__Plan plan = SPARK__CONNECT__PLAN__INIT;
    plan.op_type_case = SPARK__CONNECT__PLAN__OP_TYPE_COMMAND;
    plan.command = &cmd;
    Spark__Connect__UserContext user = SPARK__CONNECT__USER_CONTEXT__INIT;
    user.user_id = r->uri.user_id;
    user.user_name = r->uri.user_id;
    char op_id[37];
    weir__uuid(op_id);
    Spark__Connect__ExecutePlanRequest req =
        SPARK__CONNECT__EXECUTE_PLAN_REQUEST__INIT;
    req.session_id = r->uri.session_id;
    req.user_context = &user;
    req.plan = &plan;
    req._operation_id_case =
        SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID;
    req.operation_id = op_id;
    req._client_type_case =
        SPARK__CONNECT__EXECUTE_PLAN_REQUEST___CLIENT_TYPE_CLIENT_TYPE;
    req.client_type = (char *)CLIENT_TYPE;
    size_t len = spark__connect__execute_plan_request__get_packed_size(&req);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    spark__connect__execute_plan_request__pack(&req, buf);
    call_ctx x = { fn, payload, false };
    weir__grpc_status st;
    int rc = weir__grpc_client_call(&r->target, EXECUTE_PLAN, buf, len,
                                    on_message, &x, &st, err);
    free(buf);
    if (rc == WEIR_ECANCELED && x.bad)
        rc = WEIR_ERR(err, WEIR_EIO, "SPARK_CONNECT_ERROR",
                      "%s:%u answered a message that is not a Spark Connect "
                      "ExecutePlanResponse",
                      r->uri.host, r->uri.port);
    else if (rc == WEIR_ECANCELED)
        rc = WEIR_ERR(err, WEIR_ECANCELED, NULL, "cancelled");
    else if (!rc && st.code != WEIR_GRPC_OK) {
        weir__remote_status_error(err, st.code, st.message, st.details,
                                  st.details_len);
        rc = WEIR_EENGINE;
    }
    weir__grpc_status_clear(&st);
    return rc;
}

static int take_graph_id(void *payload,
                         const Spark__Connect__ExecutePlanResponse *resp)
{
    weir_remote *r = payload;
    const Spark__Connect__PipelineCommandResult *pr = resp->pipeline_command_result;
    if (resp->response_type_case ==
            SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_PIPELINE_COMMAND_RESULT &&
        pr &&
        pr->result_type_case ==
            SPARK__CONNECT__PIPELINE_COMMAND_RESULT__RESULT_TYPE_CREATE_DATAFLOW_GRAPH_RESULT &&
        pr->create_dataflow_graph_result &&
        pr->create_dataflow_graph_result->_dataflow_graph_id_case ==
            SPARK__CONNECT__PIPELINE_COMMAND_RESULT__CREATE_DATAFLOW_GRAPH_RESULT___DATAFLOW_GRAPH_ID_DATAFLOW_GRAPH_ID)
        snprintf(r->graph_id, sizeof r->graph_id, "%s",
                 pr->create_dataflow_graph_result->dataflow_graph_id);
    return 0;
}

static int create_graph(weir_remote *r, const weir_pipeline *p,
                        weir_error *err)
{
    size_t n = weir_pipeline_conf_at(p, 0, NULL, NULL);
    Spark__Connect__PipelineCommand__CreateDataflowGraph__SqlConfEntry *e =
        calloc(n ? n : 1, sizeof *e);
    Spark__Connect__PipelineCommand__CreateDataflowGraph__SqlConfEntry **ep =
        calloc(n ? n : 1, sizeof *ep);
    if (!e || !ep) {
        free(e);
        free(ep);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const char *k, *v;
        weir_pipeline_conf_at(p, i, &k, &v);
        spark__connect__pipeline_command__create_dataflow_graph__sql_conf_entry__init(&e[i]);
        e[i].key = (char *)k;
        e[i].value = (char *)v;
        ep[i] = &e[i];
    }
    Spark__Connect__PipelineCommand__CreateDataflowGraph g =
        SPARK__CONNECT__PIPELINE_COMMAND__CREATE_DATAFLOW_GRAPH__INIT;
    g._default_catalog_case =
        SPARK__CONNECT__PIPELINE_COMMAND__CREATE_DATAFLOW_GRAPH___DEFAULT_CATALOG_DEFAULT_CATALOG;
    g.default_catalog = (char *)weir_pipeline_catalog(p);
    g._default_database_case =
        SPARK__CONNECT__PIPELINE_COMMAND__CREATE_DATAFLOW_GRAPH___DEFAULT_DATABASE_DEFAULT_DATABASE;
    g.default_database = (char *)weir_pipeline_database(p);
    g.n_sql_conf = n;
    g.sql_conf = ep;
    Spark__Connect__PipelineCommand pc = SPARK__CONNECT__PIPELINE_COMMAND__INIT;
    pc.command_type_case =
        SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_CREATE_DATAFLOW_GRAPH;
    pc.create_dataflow_graph = &g;
    r->graph_id[0] = '\0';
    int rc = execute(r, &pc, take_graph_id, r, err);
    free(e);
    free(ep);
    if (!rc && !r->graph_id[0])
        rc = WEIR_ERR(err, WEIR_EIO, "SPARK_CONNECT_ERROR",
                      "%s:%u created no dataflow graph (does the server have "
                      "Spark Declarative Pipelines, Spark 4.1 or later?)",
                      r->uri.host, r->uri.port);
    return rc;
}

static int define_sql(weir_remote *r, const char *dir, const char *rel,
                      weir_error *err)
{
    char *path = weir__path_join(dir, rel), *text = NULL;
    size_t len = 0;
    if (!path)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int rc = weir__fs_read(&text, &len, path, err);
    free(path);
    if (rc)
        return rc;
    Spark__Connect__PipelineCommand__DefineSqlGraphElements d =
        SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_SQL_GRAPH_ELEMENTS__INIT;
    d._dataflow_graph_id_case =
        SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_SQL_GRAPH_ELEMENTS___DATAFLOW_GRAPH_ID_DATAFLOW_GRAPH_ID;
    d.dataflow_graph_id = r->graph_id;
    d._sql_file_path_case =
        SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_SQL_GRAPH_ELEMENTS___SQL_FILE_PATH_SQL_FILE_PATH;
    d.sql_file_path = (char *)rel;
    d._sql_text_case =
        SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_SQL_GRAPH_ELEMENTS___SQL_TEXT_SQL_TEXT;
    d.sql_text = text;
    Spark__Connect__PipelineCommand pc = SPARK__CONNECT__PIPELINE_COMMAND__INIT;
    pc.command_type_case =
        SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_SQL_GRAPH_ELEMENTS;
    pc.define_sql_graph_elements = &d;
    rc = execute(r, &pc, NULL, NULL, err);
    if (rc == WEIR_EENGINE && err) {
        /* The file, and the line Spark's parser names, shown with a caret. */
        weir__error_at(err, rel, err->line, err->column);
        weir__error_set_line_of(err, text, strlen(text), err->line);
    }
    free(text);
    return rc;
}

int weir_remote_define(weir_remote *r, const weir_pipeline *p, weir_error *err)
{
    int rc = create_graph(r, p, err);
    const char *const *files = NULL;
    size_t n = rc ? 0 : weir_pipeline_sql_files(p, &files);
    if (!n)
        return rc;
    const char *spec = weir_pipeline_spec_path(p);
    char *dir = weir__path_dirname(spec ? spec : "./x");
    if (!dir)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n && !rc; i++)
        rc = define_sql(r, dir, files[i], err);
    free(dir);
    return rc;
}

/* --- StartRun and its events ---------------------------------------------- */

typedef struct run_ctx {
    const weir_run_options *opts;
    weir_run_result *out;
    bool ended; /* a "Run is ..." event arrived */
} run_ctx;

/* "Flow 'a.b.c' ..." or "Flow a.b.c is ...": the flow's name into buf. */
static const char *flow_of(const char *m, char *buf, size_t size)
{
    if (strncmp(m, "Flow ", 5) != 0)
        return NULL;
    m += 5;
    size_t n = m[0] == '\'' ? strcspn(m + 1, "'") : strcspn(m, " ");
    if (m[0] == '\'')
        m++;
    if (n == 0 || n >= size)
        return NULL;
    memcpy(buf, m, n);
    buf[n] = '\0';
    return buf;
}

static bool has(const char *s, const char *word)
{
    return strstr(s, word) != NULL;
}

static void on_event(run_ctx *x, const Spark__Connect__PipelineEvent *pe)
{
    const char *m = pe->_message_case ==
                            SPARK__CONNECT__PIPELINE_EVENT___MESSAGE_MESSAGE &&
                            pe->message
                        ? pe->message
                        : "";
    weir_event ev;
    memset(&ev, 0, sizeof ev);
    char id[37], flow[512];
    weir__uuid(id);
    ev.id = id;
    ev.update_id = x->out->update_id;
    if (pe->timestamp)
        ev.timestamp_us = pe->timestamp->seconds * 1000000 +
                          pe->timestamp->nanos / 1000;
    ev.message = m;
    ev.flow_name = flow_of(m, flow, sizeof flow);
    bool run = strncmp(m, "Run is ", 7) == 0;
    ev.event_type = ev.flow_name ? "flow_progress"
                    : run       ? "update_progress"
                                : "spark_event";
    if (has(m, "FAILED"))
        ev.level = WEIR_LEVEL_ERROR;
    else if (has(m, "SKIPPED") || has(m, "CANCELED"))
        ev.level = WEIR_LEVEL_WARN;
    if (run) {
        x->ended = true;
        x->out->state = has(m, "COMPLETED") ? WEIR_RUN_COMPLETED
                        : has(m, "CANCELED") ? WEIR_RUN_CANCELED
                                             : WEIR_RUN_FAILED;
    } else if (ev.flow_name && has(m, "has COMPLETED")) {
        x->out->flows_completed++;
    } else if (ev.flow_name && has(m, "has FAILED")) {
        x->out->flows_failed++;
    } else if (ev.flow_name && has(m, "SKIPPED")) {
        x->out->flows_skipped++;
    }
    if (x->opts && x->opts->on_event)
        x->opts->on_event(&ev, x->opts->event_payload);
}

static int on_run_response(void *payload,
                           const Spark__Connect__ExecutePlanResponse *resp)
{
    run_ctx *x = payload;
    if (resp->response_type_case ==
            SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_PIPELINE_EVENT_RESULT &&
        resp->pipeline_event_result && resp->pipeline_event_result->event)
        on_event(x, resp->pipeline_event_result->event);
    return 0;
}

int weir_remote_start_run(weir_remote *r, const weir_pipeline *p,
                          const weir_run_options *opts, weir_run_result *out,
                          weir_error *err)
{
    weir_run_result local;
    if (!out)
        out = &local;
    memset(out, 0, sizeof *out);
    weir__uuid(out->update_id);
    out->state = WEIR_RUN_FAILED;
    const char *st = opts && opts->storage ? opts->storage
                                           : weir_pipeline_storage(p);
    char *storage = NULL;
    if (st) {
        size_t n = strlen(st) + 8;
        storage = malloc(n);
        if (!storage)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        snprintf(storage, n, "%s%s", strstr(st, "://") ? "" : "file://", st);
    }
    Spark__Connect__PipelineCommand__StartRun s =
        SPARK__CONNECT__PIPELINE_COMMAND__START_RUN__INIT;
    s._dataflow_graph_id_case =
        SPARK__CONNECT__PIPELINE_COMMAND__START_RUN___DATAFLOW_GRAPH_ID_DATAFLOW_GRAPH_ID;
    s.dataflow_graph_id = r->graph_id;
    if (storage) {
        s._storage_case =
            SPARK__CONNECT__PIPELINE_COMMAND__START_RUN___STORAGE_STORAGE;
        s.storage = storage;
    }
    if (opts && opts->dry) {
        s._dry_case = SPARK__CONNECT__PIPELINE_COMMAND__START_RUN___DRY_DRY;
        s.dry = true;
    }
    if (opts && opts->full_refresh_all) {
        s._full_refresh_all_case =
            SPARK__CONNECT__PIPELINE_COMMAND__START_RUN___FULL_REFRESH_ALL_FULL_REFRESH_ALL;
        s.full_refresh_all = true;
    }
    if (opts) {
        s.n_refresh_selection = opts->n_refresh;
        s.refresh_selection = (char **)opts->refresh;
        s.n_full_refresh_selection = opts->n_full_refresh;
        s.full_refresh_selection = (char **)opts->full_refresh;
    }
    Spark__Connect__PipelineCommand pc = SPARK__CONNECT__PIPELINE_COMMAND__INIT;
    pc.command_type_case = SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_START_RUN;
    pc.start_run = &s;
    run_ctx x = { opts, out, false };
    int rc = execute(r, &pc, on_run_response, &x, err);
    free(storage);
    if (rc == WEIR_ECANCELED)
        out->state = WEIR_RUN_CANCELED;
    if (!rc && !x.ended)
        out->state = WEIR_RUN_COMPLETED; /* a dry run ends without one */
    return rc;
}

void weir_remote_close(weir_remote *r)
{
    if (!r)
        return;
    if (r->graph_id[0] && r->own_session) {
        Spark__Connect__UserContext user = SPARK__CONNECT__USER_CONTEXT__INIT;
        user.user_id = r->uri.user_id;
        user.user_name = r->uri.user_id;
        Spark__Connect__ReleaseSessionRequest req =
            SPARK__CONNECT__RELEASE_SESSION_REQUEST__INIT;
        req.session_id = r->uri.session_id;
        req.user_context = &user;
        req._client_type_case =
            SPARK__CONNECT__RELEASE_SESSION_REQUEST___CLIENT_TYPE_CLIENT_TYPE;
        req.client_type = (char *)CLIENT_TYPE;
        size_t len = spark__connect__release_session_request__get_packed_size(&req);
        uint8_t *buf = malloc(len ? len : 1);
        weir__grpc_target t = r->target;
        t.connect_ms = 2000;
        t.cancel = NULL;
        if (buf) {
            spark__connect__release_session_request__pack(&req, buf);
            weir__grpc_status st;
            weir_error ignored;
            if (weir__grpc_client_call(&t, RELEASE_SESSION, buf, len, NULL,
                                       NULL, &st, &ignored) == 0)
                weir__grpc_status_clear(&st);
        }
        free(buf);
    }
    free(r);
}
