/*
 * The SparkConnectService on top of the gRPC transport (grpc.h): decode
 * each request, answer Config, AnalyzePlan, ExecutePlan, ReattachExecute,
 * ReleaseExecute, ReleaseSession, Interrupt and FetchErrorDetails, and
 * turn failures into the google.rpc.Status the PySpark client converts to
 * its exceptions. Pipeline commands go to pipeline.c.
 *
 * Owns: the transport, the session confs (confs.c), the responses of
 * recent operations (for ReattachExecute) and the registration state (one
 * pipeline) or, in serving mode, the graphs clients create (serve.c).
 * Two locks: `state` for operations (short sections, so
 * ReleaseExecute is answered while a command runs) and, in registration
 * mode, `work` around everything that touches the pipeline (the
 * pipeline-serial rule; serve.c has one such lock per graph).
 */
#include "connect/connect.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "connect/grpc.h"
#include "connect/internal.h"
#include "connect/plan.h"
#include "google/rpc/error_details.pb-c.h"
#include "google/rpc/status.pb-c.h"
#include "spark/connect/base.pb-c.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/str.h"
#include "util/vec.h"

#define SERVICE "/spark.connect.SparkConnectService/"
#define SPARK_VERSION "4.1.0"
#define MAX_OPS 64
#define MAX_OP_BYTES (16u << 20) /* responses kept per operation */

typedef struct stored_response {
    char id[40];
    uint8_t *data;
    size_t len;
} stored_response;

typedef struct operation {
    char id[64];
    WEIR_VEC(stored_response) responses;
    size_t bytes;
    bool done, failed, overflow;
} operation;

struct weir_connect_server {
    weir__grpc_server *grpc;
    weir_pipeline *pipeline;
    char ssid[37]; /* server_side_session_id, constant for the server */
    pthread_mutex_t state;
    weir__cconfs *confs; /* the confs of client sessions (confs.c) */
    WEIR_VEC(operation *) ops;
    pthread_mutex_t work;
    weir__creg *reg;     /* registration mode */
    weir__cserve *serve; /* serving mode */
    bool timing; /* WEIR_CONNECT_TIMING set: each call's time on stderr */
};


/* ------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------ */

/* Is the caller a client other than PySpark (client_type
 * "_SPARK_CONNECT_PYTHON ...")? */
static bool not_pyspark(bool has, const char *client_type)
{
    return has && client_type && !weir__str_starts(client_type, "_SPARK_CONNECT_PYTHON");
}

/* The PipelineAnalysisContext the client attaches while it registers
 * definitions; NULL when absent. The caller frees it. */
static Spark__Connect__PipelineAnalysisContext *
analysis_context(const Spark__Connect__UserContext *uc)
{
    static const char suffix[] = "/spark.connect.PipelineAnalysisContext";
    for (size_t i = 0; uc && i < uc->n_extensions; i++) {
        const Google__Protobuf__Any *a = uc->extensions[i];
        if (a->type_url && weir__str_ends(a->type_url, suffix))
            return spark__connect__pipeline_analysis_context__unpack(
                NULL, a->value.len, a->value.data);
    }
    return NULL;
}

/* Is a query function running (the client names its flow)? */
static bool in_query_function(const Spark__Connect__UserContext *uc)
{
    Spark__Connect__PipelineAnalysisContext *ctx = analysis_context(uc);
    bool in = false;
    if (ctx) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        in = (ctx->_flow_name_case && ctx->flow_name && *ctx->flow_name) ||
             ctx->_flow_identifier_case;
#pragma GCC diagnostic pop
        spark__connect__pipeline_analysis_context__free_unpacked(ctx, NULL);
    }
    return in;
}

static int analysis_in_query_function(weir__cstatus *st)
{
    return weir__cstatus_set(
        st, WEIR_GRPC_INTERNAL, "ATTEMPT_ANALYSIS_IN_PIPELINE_QUERY_FUNCTION",
        "0A000",
        "Operations that trigger DataFrame analysis or execution are not "
        "allowed in pipeline query functions. Move code outside of the "
        "pipeline query function.");
}

/* ------------------------------------------------------------------------
 * Config (the confs themselves: confs.c)
 * ------------------------------------------------------------------------ */

static void handle_config(weir_connect_server *srv, weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__ConfigRequest *req =
        weir__ccall_decode(call, &spark__connect__config_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    Spark__Connect__ConfigResponse resp = SPARK__CONNECT__CONFIG_RESPONSE__INIT;
    weir__cconfs_answer mem;
    if (weir__cconfs_config(srv->confs, req, &resp, &mem, &st)) {
        weir__ccall_fail(call, &st);
    } else {
        resp.session_id = req->session_id;
        resp.server_side_session_id = srv->ssid;
        weir__ccall_reply(call, &resp.base);
    }
    weir__cconfs_answer_free(&mem);
    spark__connect__config_request__free_unpacked(req, NULL);
}

/* ------------------------------------------------------------------------
 * Operations (responses kept for ReattachExecute)
 * ------------------------------------------------------------------------ */

static void op_free(operation *op)
{
    if (!op)
        return;
    for (size_t i = 0; i < op->responses.len; i++)
        free(op->responses.items[i].data);
    WEIR_VEC_FREE(&op->responses);
    free(op);
}

/* Caller holds `state`. */
static operation *op_find(weir_connect_server *srv, const char *id, size_t *at)
{
    for (size_t i = 0; i < srv->ops.len; i++)
        if (strcmp(srv->ops.items[i]->id, id) == 0) {
            if (at)
                *at = i;
            return srv->ops.items[i];
        }
    return NULL;
}

static void op_remove(weir_connect_server *srv, const char *id)
{
    size_t at;
    operation *op = op_find(srv, id, &at);
    if (!op)
        return;
    memmove(&srv->ops.items[at], &srv->ops.items[at + 1],
            (srv->ops.len - at - 1) * sizeof *srv->ops.items);
    srv->ops.len--;
    op_free(op);
}

static int op_begin(weir_connect_server *srv, const char *id, weir__cstatus *st)
{
    pthread_mutex_lock(&srv->state);
    int rc = 0;
    if (op_find(srv, id, NULL)) {
        rc = weir__cstatus_set(st, WEIR_GRPC_INTERNAL,
                               "INVALID_HANDLE.OPERATION_ALREADY_EXISTS", "HY000",
                               "The handle %s is invalid. Operation already exists.",
                               id);
    } else {
        /* Forget the oldest finished operation when full. */
        for (size_t i = 0; srv->ops.len >= MAX_OPS && i < srv->ops.len; i++)
            if (srv->ops.items[i]->done) {
                op_remove(srv, srv->ops.items[i]->id);
                break;
            }
        operation *op = calloc(1, sizeof *op);
        if (srv->ops.len >= MAX_OPS || !op || WEIR_VEC_PUSH(&srv->ops, op)) {
            free(op);
            rc = weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                   "too many operations in progress");
        } else
            snprintf(op->id, sizeof op->id, "%s", id);
    }
    pthread_mutex_unlock(&srv->state);
    return rc;
}

static void op_keep(weir_connect_server *srv, const char *id,
                    const char *response_id, const uint8_t *data, size_t len)
{
    pthread_mutex_lock(&srv->state);
    operation *op = op_find(srv, id, NULL);
    if (op && !op->overflow) {
        stored_response r;
        snprintf(r.id, sizeof r.id, "%s", response_id);
        r.len = len;
        r.data = op->bytes + len <= MAX_OP_BYTES ? malloc(len ? len : 1) : NULL;
        if (r.data && !WEIR_VEC_PUSH(&op->responses, r)) {
            memcpy(r.data, data, len);
            op->bytes += len;
        } else {
            free(r.data);
            op->overflow = true; /* cannot be reattached any more */
        }
    }
    pthread_mutex_unlock(&srv->state);
}

static void op_end(weir_connect_server *srv, const char *id, bool failed)
{
    pthread_mutex_lock(&srv->state);
    operation *op = op_find(srv, id, NULL);
    if (op) {
        op->done = true;
        op->failed = failed;
    }
    pthread_mutex_unlock(&srv->state);
}

/* ------------------------------------------------------------------------
 * ExecutePlan
 * ------------------------------------------------------------------------ */

typedef struct exec_ctx {
    weir_connect_server *srv;
    weir__grpc_call *call;
    const char *session_id;
    const char *op_id;
    int64_t rows_sent; /* result rows sent so far (Arrow batches) */
} exec_ctx;

/* Fill the envelope of r, send it and keep it for reattachment. */
static int exec_send(exec_ctx *x, Spark__Connect__ExecutePlanResponse *r)
{
    char rid[37];
    weir__uuid(rid);
    r->session_id = (char *)x->session_id;
    r->server_side_session_id = x->srv->ssid;
    r->operation_id = (char *)x->op_id;
    r->response_id = rid;
    size_t len = spark__connect__execute_plan_response__get_packed_size(r);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return -1;
    spark__connect__execute_plan_response__pack(r, buf);
    op_keep(x->srv, x->op_id, rid, buf, len);
    int rc = weir__grpc_send(x->call, buf, len);
    free(buf);
    return rc;
}

static int exec_event(void *ctx, int64_t ts_us, const char *message)
{
    Google__Protobuf__Timestamp ts = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    ts.seconds = ts_us / 1000000;
    ts.nanos = (int32_t)(ts_us % 1000000) * 1000;
    Spark__Connect__PipelineEvent ev = SPARK__CONNECT__PIPELINE_EVENT__INIT;
    ev.timestamp = &ts;
    ev._message_case = SPARK__CONNECT__PIPELINE_EVENT___MESSAGE_MESSAGE;
    ev.message = (char *)message;
    Spark__Connect__PipelineEventResult er = SPARK__CONNECT__PIPELINE_EVENT_RESULT__INIT;
    er.event = &ev;
    Spark__Connect__ExecutePlanResponse r = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
    r.response_type_case =
        SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_PIPELINE_EVENT_RESULT;
    r.pipeline_event_result = &er;
    return exec_send(ctx, &r);
}

static bool exec_gone(void *ctx)
{
    const exec_ctx *x = ctx;
    return weir__grpc_gone(x->call);
}

/* One Arrow IPC stream of a result as an ExecutePlanResponse. */
static int exec_arrow(void *ctx, const uint8_t *data, size_t n, int64_t rows)
{
    exec_ctx *x = ctx;
    Spark__Connect__ExecutePlanResponse__ArrowBatch b =
        SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;
    b.row_count = rows;
    b.data.data = (uint8_t *)data;
    b.data.len = n;
    b._start_offset_case =
        SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET;
    b.start_offset = x->rows_sent;
    x->rows_sent += rows;
    Spark__Connect__ExecutePlanResponse r = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
    r.response_type_case = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
    r.arrow_batch = &b;
    return exec_send(x, &r) ? -1 : 0;
}

/* Is rel a local relation of no columns (a statement's result)? */
static bool no_columns(const Spark__Connect__Relation *rel)
{
    return rel && rel->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION &&
           rel->local_relation && rel->local_relation->_data_case &&
           weir__arrow_ipc_is_no_columns(rel->local_relation->data.data,
                                         rel->local_relation->data.len);
}

/* A plan's root relation in serving mode: a query of the served project,
 * its rows streamed as Arrow batches. */
static int exec_query(exec_ctx *x, const Spark__Connect__Relation *rel,
                      weir__cstatus *st)
{
    /* A statement's result sent back: no columns, nothing to run. */
    if (no_columns(rel)) {
        uint8_t *bytes = NULL;
        size_t n = 0;
        if (weir__arrow_ipc_no_columns(&bytes, &n, st))
            return -1;
        int rc = exec_arrow(x, bytes, n, 0);
        free(bytes);
        return rc ? weir__cstatus_set(st, WEIR_GRPC_CANCELLED, "", "", "client gone") : 0;
    }
    const Spark__Connect__ShowString *show =
        rel->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_SHOW_STRING
            ? rel->show_string : NULL;
    if (show && !show->input)
        return weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT, "", "",
                                 "show() without a DataFrame");
    char *sql = NULL;
    weir__plan_error pe;
    memset(&pe, 0, sizeof pe);
    if (weir__plan_relation_sql(show ? show->input : rel, &sql, &pe))
        return weir__cstatus_set(st, WEIR_GRPC_UNIMPLEMENTED,
                                 pe.error_class[0] ? pe.error_class
                                                   : "UNSUPPORTED_FEATURE",
                                 "0A000", "%s", pe.message);
    weir__cquery *q = weir__cserve_query(x->srv->serve);
    int rc = show ? weir__cquery_show(q, sql, show->num_rows, show->truncate,
                                      show->vertical, exec_arrow, x, st)
                  : weir__cquery_collect(q, sql, exec_arrow, x, st);
    if (rc && !st->code)
        weir__cstatus_set(st, WEIR_GRPC_CANCELLED, "", "", "client gone");
    free(sql);
    return rc;
}

/* Is this SQL text a query (safe to hand back as a lazy relation)? */
static bool sql_is_query(const char *sql)
{
    while (*sql == ' ' || *sql == '\t' || *sql == '\n' || *sql == '\r' ||
           *sql == '(')
        sql++;
    static const char *const kw[] = { "SELECT", "WITH", "FROM", "VALUES",
                                      "TABLE" };
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++) {
        size_t n = strlen(kw[i]);
        if (weir__str_ieqn(sql, kw[i], n) &&
            !(sql[n] == '_' || (sql[n] >= '0' && sql[n] <= '9') ||
              ((sql[n] | 0x20) >= 'a' && (sql[n] | 0x20) <= 'z')))
            return true;
    }
    return false;
}

/* spark.sql(text): weir executes nothing while registering, so a query is
 * answered without a result and the client keeps it as a lazy
 * Relation.sql (as Spark does inside query functions); anything else is
 * refused like Spark refuses side effects in pipeline definitions. */
static int exec_sql_command(exec_ctx *x, const Spark__Connect__SqlCommand *cmd,
                            weir__cstatus *st)
{
    const char *sql = NULL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    const char *legacy = cmd->sql; /* clients before 3.5 */
#pragma GCC diagnostic pop
    if (cmd->input && cmd->input->rel_type_case ==
                          SPARK__CONNECT__RELATION__REL_TYPE_SQL)
        sql = cmd->input->sql->query;
    else if (legacy && *legacy)
        sql = legacy;
    if (!sql)
        return weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT, "", "",
                                 "the SQL command has no text");
    bool query = sql_is_query(sql);
    if (!x->srv->serve) {
        if (!query)
            return weir__cstatus_set(
                st, WEIR_GRPC_INTERNAL, "UNSUPPORTED_PIPELINE_SPARK_SQL_COMMAND",
                "0A000",
                "'%.200s' is not supported in spark.sql(\"...\") API in a "
                "pipeline definition: weir only takes queries there.",
                sql);
        return 0;
    }
    /* Serving: as Spark, a query comes back as the relation to run (the
     * JVM client requires it), a statement runs now and comes back as
     * its (empty) result. */
    Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
    Spark__Connect__SQL text;
    spark__connect__sql__init(&text); /* the INIT macro names deprecated fields */
    Spark__Connect__LocalRelation lr = SPARK__CONNECT__LOCAL_RELATION__INIT;
    Spark__Connect__Relation *result = &rel;
    uint8_t *empty = NULL;
    if (query && cmd->input) {
        result = cmd->input;
    } else if (query) {
        text.query = (char *)sql;
        rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
        rel.sql = &text;
    } else {
        if (weir__cquery_statement(weir__cserve_query(x->srv->serve), sql, st))
            return -1;
        size_t n = 0;
        if (weir__arrow_ipc_no_columns(&empty, &n, st))
            return -1;
        lr._data_case = SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
        lr.data.data = empty;
        lr.data.len = n;
        rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
        rel.local_relation = &lr;
    }
    Spark__Connect__ExecutePlanResponse__SqlCommandResult res =
        SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__SQL_COMMAND_RESULT__INIT;
    res.relation = result;
    Spark__Connect__ExecutePlanResponse r = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
    r.response_type_case =
        SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_SQL_COMMAND_RESULT;
    r.sql_command_result = &res;
    int rc = exec_send(x, &r);
    free(empty);
    if (rc)
        return weir__cstatus_set(st, WEIR_GRPC_CANCELLED, "", "", "client gone");
    return 0;
}

static void handle_execute(weir_connect_server *srv, weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__ExecutePlanRequest *req =
        weir__ccall_decode(call, &spark__connect__execute_plan_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    st.class_in_text = not_pyspark(req->_client_type_case, req->client_type);
    char op_id[64];
    if (req->_operation_id_case && req->operation_id && *req->operation_id)
        snprintf(op_id, sizeof op_id, "%s", req->operation_id);
    else
        weir__uuid(op_id);
    exec_ctx x = { srv, call, req->session_id, op_id, 0 };
    int rc = op_begin(srv, op_id, &st);
    const Spark__Connect__Plan *plan = req->plan;
    const Spark__Connect__Command *cmd =
        plan && plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_COMMAND
            ? plan->command
            : NULL;
    if (rc) {
        /* the id belongs to another operation: leave it alone */
        weir__ccall_fail(call, &st);
        spark__connect__execute_plan_request__free_unpacked(req, NULL);
        return;
    }
    if (!plan || plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE__NOT_SET) {
        rc = weir__cstatus_set(&st, WEIR_GRPC_INVALID_ARGUMENT, "", "",
                               "the request has no plan");
    } else if (plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_COMPRESSED_OPERATION) {
        rc = weir__cstatus_set(&st, WEIR_GRPC_UNIMPLEMENTED,
                               "UNSUPPORTED_FEATURE.CONNECT_PLAN_COMPRESSION",
                               "0A000",
                               "Compressed plans are not supported: set "
                               "spark.connect.session.planCompression.threshold "
                               "to -1.");
    } else if (plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT) {
        rc = in_query_function(req->user_context)
                 ? analysis_in_query_function(&st)
             : srv->serve
                 ? exec_query(&x, plan->root, &st)
                 : weir__cstatus_set(
                       &st, WEIR_GRPC_UNIMPLEMENTED,
                       "UNSUPPORTED_FEATURE.CONNECT_QUERY", "0A000",
                       "This weir endpoint registers pipeline definitions "
                       "only; it does not run queries (collect, show, "
                       "toPandas, count).");
    } else if (cmd->command_type_case ==
               SPARK__CONNECT__COMMAND__COMMAND_TYPE_PIPELINE_COMMAND) {
        char graph_id[40];
        weir__cemit emit = { exec_event, exec_gone, &x };
        if (srv->serve) {
            /* Graphs lock themselves: runs of different graphs overlap. */
            rc = weir__cserve_command(srv->serve, req->session_id,
                                      cmd->pipeline_command, &emit, graph_id,
                                      &st);
        } else {
            pthread_mutex_lock(&srv->work);
            rc = weir__creg_command(srv->reg, cmd->pipeline_command, &emit,
                                    graph_id, &st);
            pthread_mutex_unlock(&srv->work);
        }
        if (!rc && graph_id[0]) {
            Spark__Connect__PipelineCommandResult__CreateDataflowGraphResult g =
                SPARK__CONNECT__PIPELINE_COMMAND_RESULT__CREATE_DATAFLOW_GRAPH_RESULT__INIT;
            g._dataflow_graph_id_case =
                SPARK__CONNECT__PIPELINE_COMMAND_RESULT__CREATE_DATAFLOW_GRAPH_RESULT___DATAFLOW_GRAPH_ID_DATAFLOW_GRAPH_ID;
            g.dataflow_graph_id = graph_id;
            Spark__Connect__PipelineCommandResult pr =
                SPARK__CONNECT__PIPELINE_COMMAND_RESULT__INIT;
            pr.result_type_case =
                SPARK__CONNECT__PIPELINE_COMMAND_RESULT__RESULT_TYPE_CREATE_DATAFLOW_GRAPH_RESULT;
            pr.create_dataflow_graph_result = &g;
            Spark__Connect__ExecutePlanResponse r =
                SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
            r.response_type_case =
                SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_PIPELINE_COMMAND_RESULT;
            r.pipeline_command_result = &pr;
            rc = exec_send(&x, &r);
            if (rc)
                weir__cstatus_set(&st, WEIR_GRPC_CANCELLED, "", "", "client gone");
        }
    } else if (cmd->command_type_case ==
               SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND) {
        rc = exec_sql_command(&x, cmd->sql_command, &st);
    } else {
        rc = weir__cstatus_set(&st, WEIR_GRPC_UNIMPLEMENTED,
                               "UNSUPPORTED_FEATURE.CONNECT_COMMAND", "0A000",
                               "Command kind %d is not supported by weir.",
                               (int)cmd->command_type_case);
    }
    if (!rc) {
        Spark__Connect__ExecutePlanResponse__ResultComplete done =
            SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESULT_COMPLETE__INIT;
        Spark__Connect__ExecutePlanResponse r = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
        r.response_type_case =
            SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_RESULT_COMPLETE;
        r.result_complete = &done;
        rc = exec_send(&x, &r);
        if (rc)
            weir__cstatus_set(&st, WEIR_GRPC_CANCELLED, "", "", "client gone");
    }
    op_end(srv, op_id, rc != 0);
    if (rc)
        weir__ccall_fail(call, &st);
    else
        weir__grpc_finish(call, WEIR_GRPC_OK, NULL, NULL, 0);
    spark__connect__execute_plan_request__free_unpacked(req, NULL);
}

/* The responses after last_response_id (all without it), then the end. */
static void handle_reattach(weir_connect_server *srv, weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__ReattachExecuteRequest *req =
        weir__ccall_decode(call, &spark__connect__reattach_execute_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    WEIR_VEC(stored_response) copy = WEIR_VEC_INIT;
    int rc = 0;
    pthread_mutex_lock(&srv->state);
    operation *op = op_find(srv, req->operation_id, NULL);
    if (!op)
        rc = weir__cstatus_set(&st, WEIR_GRPC_INTERNAL,
                               "INVALID_HANDLE.OPERATION_NOT_FOUND", "HY000",
                               "The handle %.64s is invalid. Operation not found.",
                               req->operation_id);
    else if (!op->done || op->overflow)
        rc = weir__cstatus_set(&st, WEIR_GRPC_INTERNAL,
                               "INVALID_CURSOR.NOT_REATTACHABLE", "HY109",
                               "The cursor is invalid. The operation %.64s "
                               "cannot be reattached while it runs.",
                               req->operation_id);
    else {
        size_t from = 0;
        if (req->_last_response_id_case && req->last_response_id) {
            from = op->responses.len; /* unknown id: nothing to resend */
            for (size_t i = 0; i < op->responses.len; i++)
                if (strcmp(op->responses.items[i].id, req->last_response_id) == 0)
                    from = i + 1;
        }
        for (size_t i = from; !rc && i < op->responses.len; i++) {
            stored_response r = op->responses.items[i];
            r.data = malloc(r.len ? r.len : 1);
            if (!r.data || WEIR_VEC_PUSH(&copy, r)) {
                free(r.data);
                rc = weir__cstatus_set(&st, WEIR_GRPC_RESOURCE_EXHAUSTED, "",
                                       "", "out of memory");
            } else
                memcpy(r.data, op->responses.items[i].data, r.len);
        }
    }
    pthread_mutex_unlock(&srv->state);
    for (size_t i = 0; !rc && i < copy.len; i++)
        if (weir__grpc_send(call, copy.items[i].data, copy.items[i].len))
            rc = weir__cstatus_set(&st, WEIR_GRPC_CANCELLED, "", "", "client gone");
    if (rc)
        weir__ccall_fail(call, &st);
    else
        weir__grpc_finish(call, WEIR_GRPC_OK, NULL, NULL, 0);
    for (size_t i = 0; i < copy.len; i++)
        free(copy.items[i].data);
    WEIR_VEC_FREE(&copy);
    spark__connect__reattach_execute_request__free_unpacked(req, NULL);
}

static void handle_release_execute(weir_connect_server *srv,
                                   weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__ReleaseExecuteRequest *req =
        weir__ccall_decode(call, &spark__connect__release_execute_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    pthread_mutex_lock(&srv->state);
    operation *op = op_find(srv, req->operation_id, NULL);
    if (op && req->release_case ==
                  SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_ALL) {
        op_remove(srv, req->operation_id);
    } else if (op && req->release_case ==
                         SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_UNTIL) {
        const char *until = req->release_until->response_id;
        for (size_t i = 0; i < op->responses.len; i++)
            if (strcmp(op->responses.items[i].id, until) == 0) {
                for (size_t j = 0; j <= i; j++) {
                    op->bytes -= op->responses.items[j].len;
                    free(op->responses.items[j].data);
                }
                memmove(op->responses.items, op->responses.items + i + 1,
                        (op->responses.len - i - 1) * sizeof *op->responses.items);
                op->responses.len -= i + 1;
                break;
            }
    }
    pthread_mutex_unlock(&srv->state);
    Spark__Connect__ReleaseExecuteResponse resp =
        SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE__INIT;
    resp.session_id = req->session_id;
    resp.server_side_session_id = srv->ssid;
    resp._operation_id_case =
        SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE___OPERATION_ID_OPERATION_ID;
    resp.operation_id = req->operation_id;
    weir__ccall_reply(call, &resp.base);
    spark__connect__release_execute_request__free_unpacked(req, NULL);
}

static void handle_release_session(weir_connect_server *srv,
                                   weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__ReleaseSessionRequest *req =
        weir__ccall_decode(call, &spark__connect__release_session_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    weir__cconfs_drop_session(srv->confs, req->session_id);
    if (srv->serve) {
        /* Its graphs go (a running one when its run ends). */
        weir__cserve_release_session(srv->serve, req->session_id);
    } else {
        /* The client is done defining: register what still waits. */
        pthread_mutex_lock(&srv->work);
        if (srv->reg)
            weir__creg_flush(srv->reg);
        pthread_mutex_unlock(&srv->work);
    }
    Spark__Connect__ReleaseSessionResponse resp =
        SPARK__CONNECT__RELEASE_SESSION_RESPONSE__INIT;
    resp.session_id = req->session_id;
    resp.server_side_session_id = srv->ssid;
    weir__ccall_reply(call, &resp.base);
    spark__connect__release_session_request__free_unpacked(req, NULL);
}

static void handle_interrupt(weir_connect_server *srv, weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__InterruptRequest *req =
        weir__ccall_decode(call, &spark__connect__interrupt_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    /* Registration commands are short and not interruptible: nothing is
     * reported as interrupted. */
    Spark__Connect__InterruptResponse resp = SPARK__CONNECT__INTERRUPT_RESPONSE__INIT;
    resp.session_id = req->session_id;
    resp.server_side_session_id = srv->ssid;
    weir__ccall_reply(call, &resp.base);
    spark__connect__interrupt_request__free_unpacked(req, NULL);
}

static void handle_fetch_error_details(weir_connect_server *srv,
                                       weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__FetchErrorDetailsRequest *req =
        weir__ccall_decode(call, &spark__connect__fetch_error_details_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    /* weir puts everything into the status itself and never hands out
     * error ids, so there is nothing more to fetch: an empty answer makes
     * the client use the status it has. */
    Spark__Connect__FetchErrorDetailsResponse resp =
        SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__INIT;
    resp.session_id = req->session_id;
    resp.server_side_session_id = srv->ssid;
    weir__ccall_reply(call, &resp.base);
    spark__connect__fetch_error_details_request__free_unpacked(req, NULL);
}

/* ------------------------------------------------------------------------
 * AnalyzePlan
 * ------------------------------------------------------------------------ */

/* Does any Read in the message tree stream? (A generic walk over the
 * generated descriptors: it sees every relation kind, known or not.) */
static bool reads_stream(const ProtobufCMessage *m, unsigned depth)
{
    if (!m || depth > WEIR_CONNECT_MAX_WIRE_DEPTH)
        return false;
    if (m->descriptor == &spark__connect__read__descriptor &&
        ((const Spark__Connect__Read *)m)->is_streaming)
        return true;
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        const char *base = (const char *)m;
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            uint32_t which = *(const uint32_t *)(base + f->quantifier_offset);
            if (which != f->id)
                continue;
        }
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + f->quantifier_offset);
            ProtobufCMessage *const *v = *(ProtobufCMessage *const *const *)(base + f->offset);
            for (size_t k = 0; k < n; k++)
                if (reads_stream(v[k], depth + 1))
                    return true;
        } else if (reads_stream(*(ProtobufCMessage *const *)(base + f->offset),
                                depth + 1))
            return true;
    }
    return false;
}

/* df.schema / df.columns in serving mode: the query's result columns. */
static int analyze_schema(weir_connect_server *srv, const Spark__Connect__Plan *plan,
                          weir_arena *a, Spark__Connect__DataType **out,
                          weir__cstatus *st)
{
    if (!plan || plan->op_type_case != SPARK__CONNECT__PLAN__OP_TYPE_ROOT)
        return weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT, "", "",
                                 "the schema request has no relation");
    if (no_columns(plan->root)) {
        Spark__Connect__DataType *t = weir__arena_alloc(a, sizeof *t);
        Spark__Connect__DataType__Struct *none = weir__arena_alloc(a, sizeof *none);
        if (!t || !none)
            return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                     "out of memory");
        spark__connect__data_type__init(t);
        spark__connect__data_type__struct__init(none);
        t->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_STRUCT;
        t->struct_ = none;
        *out = t;
        return 0;
    }
    char *sql = NULL;
    weir__plan_error pe;
    memset(&pe, 0, sizeof pe);
    if (weir__plan_relation_sql(plan->root, &sql, &pe))
        return weir__cstatus_set(st, WEIR_GRPC_UNIMPLEMENTED,
                                 pe.error_class[0] ? pe.error_class
                                                   : "UNSUPPORTED_FEATURE",
                                 "0A000", "%s", pe.message);
    int rc = weir__cquery_schema(weir__cserve_query(srv->serve), sql, a, out, st);
    free(sql);
    return rc;
}


/* The answer to an analysis weir cannot give: inside a pipeline query
 * function Spark's own refusal, otherwise (registering a pipeline, or a kind
 * of analysis weir does not implement) UNSUPPORTED_FEATURE. */
static int analysis_refused(const Spark__Connect__AnalyzePlanRequest *req,
                            weir__cstatus *st)
{
    if (in_query_function(req->user_context))
        return analysis_in_query_function(st);
    return weir__cstatus_set(
        st, WEIR_GRPC_UNIMPLEMENTED, "UNSUPPORTED_FEATURE.CONNECT_ANALYSIS",
        "0A000",
        "weir cannot analyze DataFrames while it registers a pipeline "
        "(schema, explain, DDL parsing): schemas are resolved when the "
        "pipeline runs.");
}

static void handle_analyze(weir_connect_server *srv, weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__AnalyzePlanRequest *req =
        weir__ccall_decode(call, &spark__connect__analyze_plan_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    st.class_in_text = not_pyspark(req->_client_type_case, req->client_type);
    Spark__Connect__AnalyzePlanResponse resp = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__INIT;
    resp.session_id = req->session_id;
    resp.server_side_session_id = srv->ssid;
    Spark__Connect__AnalyzePlanResponse__SparkVersion ver =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__SPARK_VERSION__INIT;
    Spark__Connect__AnalyzePlanResponse__IsStreaming iss =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__IS_STREAMING__INIT;
    Spark__Connect__AnalyzePlanResponse__Schema sch =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__SCHEMA__INIT;
    Spark__Connect__AnalyzePlanResponse__DDLParse ddl =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__DDLPARSE__INIT;
    weir_arena arena;
    weir__arena_init(&arena);
    int rc = 0;
    switch (req->analyze_case) {
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SPARK_VERSION:
        ver.version = (char *)SPARK_VERSION;
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SPARK_VERSION;
        resp.spark_version = &ver;
        break;
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_IS_STREAMING:
        /* Answered from the plan alone: no analysis needed. */
        iss.is_streaming = req->is_streaming->plan &&
                           reads_stream(&req->is_streaming->plan->base, 0);
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_IS_STREAMING;
        resp.is_streaming = &iss;
        break;
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SCHEMA:
        if (srv->serve && !in_query_function(req->user_context)) {
            rc = analyze_schema(srv, req->schema->plan, &arena, &sch.schema,
                                &st);
            resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SCHEMA;
            resp.schema = &sch;
        } else {
            rc = analysis_refused(req, &st);
        }
        break;
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_DDL_PARSE:
        if (srv->serve && !in_query_function(req->user_context)) {
            rc = weir__cquery_ddl(weir__cserve_query(srv->serve),
                                  req->ddl_parse->ddl_string ? req->ddl_parse->ddl_string : "",
                                  &arena, &ddl.parsed, &st);
            resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_DDL_PARSE;
            resp.ddl_parse = &ddl;
        } else {
            rc = analysis_refused(req, &st);
        }
        break;
    default:
        rc = analysis_refused(req, &st);
    }
    if (rc)
        weir__ccall_fail(call, &st);
    else
        weir__ccall_reply(call, &resp.base);
    weir__arena_free(&arena);
    spark__connect__analyze_plan_request__free_unpacked(req, NULL);
}

/* ------------------------------------------------------------------------
 * Dispatch and life cycle
 * ------------------------------------------------------------------------ */

static void dispatch(weir_connect_server *srv, weir__grpc_call *call,
                     const char *m);

static void handle(weir__grpc_call *call, void *payload)
{
    weir_connect_server *srv = payload;
    const char *path = weir__grpc_method(call);
    const char *m = weir__str_starts(path, SERVICE) ? path + strlen(SERVICE) : "";
    struct timespec t0 = { 0, 0 };
    if (srv->timing)
        clock_gettime(CLOCK_MONOTONIC, &t0);
    dispatch(srv, call, m);
    if (srv->timing) {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        fprintf(stderr, "weir-connect: %s %.3f ms\n", *m ? m : path, ms);
    }
}

static void dispatch(weir_connect_server *srv, weir__grpc_call *call,
                     const char *m)
{
    if (strcmp(m, "ExecutePlan") == 0)
        handle_execute(srv, call);
    else if (strcmp(m, "Config") == 0)
        handle_config(srv, call);
    else if (strcmp(m, "AnalyzePlan") == 0)
        handle_analyze(srv, call);
    else if (strcmp(m, "ReleaseExecute") == 0)
        handle_release_execute(srv, call);
    else if (strcmp(m, "ReleaseSession") == 0)
        handle_release_session(srv, call);
    else if (strcmp(m, "ReattachExecute") == 0)
        handle_reattach(srv, call);
    else if (strcmp(m, "Interrupt") == 0)
        handle_interrupt(srv, call);
    else if (strcmp(m, "FetchErrorDetails") == 0)
        handle_fetch_error_details(srv, call);
    else
        weir__grpc_finish(call, WEIR_GRPC_UNIMPLEMENTED,
                          "method not implemented by weir", NULL, 0);
}

int weir_connect_start(weir_connect_server **out,
                       const weir_connect_options *opts, weir_error *err)
{
    if (!out)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "out is required");
    *out = NULL;
    if (!opts || !opts->token || !*opts->token)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "the Spark Connect endpoint needs a token");
    if (!opts->pipeline && !opts->session)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "serving mode (no pipeline) needs a weir_session");
    weir_connect_server *srv = calloc(1, sizeof *srv);
    if (!srv)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    pthread_mutex_init(&srv->state, NULL);
    pthread_mutex_init(&srv->work, NULL);
    srv->pipeline = opts->pipeline;
    const char *timing = getenv("WEIR_CONNECT_TIMING");
    srv->timing = timing && *timing && strcmp(timing, "0") != 0;
    weir__uuid(srv->ssid);
    if (opts->pipeline) {
        srv->reg = weir__creg_new(opts->pipeline);
    } else {
        weir__cserve_config sc = { opts->session,     opts->spec_path,
                                   opts->root_dir,    opts->name,
                                   opts->on_log,      opts->log_payload,
                                   opts->environment, opts->conf,
                                   opts->n_conf };
        int rc = weir__cserve_new(&srv->serve, &sc, err);
        if (rc && rc != WEIR_ENOMEM) {
            weir_connect_stop(srv);
            return rc;
        }
    }
    /* Confs over the registered pipeline's configuration, or the served
     * project's as --env/--conf made it (so spark.conf.get in a client's
     * Python files sees them). */
    srv->confs = weir__cconfs_new(
        opts->pipeline ? opts->pipeline
                       : srv->serve ? weir__cserve_project(srv->serve) : NULL);
    if ((!srv->reg && !srv->serve) || !srv->confs) {
        weir_connect_stop(srv);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir__grpc_config cfg = { 0 };
    cfg.host = opts->host;
    cfg.port = opts->port;
    cfg.token = opts->token;
    cfg.max_message = opts->max_message;
    /* Serving: every running update holds a worker for its whole run. */
    cfg.workers = srv->serve ? 16 : 0;
    cfg.handler = handle;
    cfg.payload = srv;
    int rc = weir__grpc_start(&srv->grpc, &cfg, err);
    if (rc) {
        weir_connect_stop(srv);
        return rc;
    }
    *out = srv;
    return 0;
}

unsigned weir_connect_port(const weir_connect_server *srv)
{
    return srv ? weir__grpc_port(srv->grpc) : 0;
}

size_t weir_connect_diagnostics(weir_connect_server *srv, const weir_error **out)
{
    if (out)
        *out = NULL;
    if (!srv || !srv->reg)
        return 0;
    pthread_mutex_lock(&srv->work);
    weir__creg_flush(srv->reg);
    size_t n = weir__creg_diagnostics(srv->reg, out);
    pthread_mutex_unlock(&srv->work);
    return n;
}

void weir_connect_stop(weir_connect_server *srv)
{
    if (!srv)
        return;
    if (srv->serve && srv->grpc) {
        /* Cancel the running updates and let them tell their clients. */
        weir__cserve_shutdown(srv->serve);
        weir__grpc_drain(srv->grpc, 2000);
    }
    weir__grpc_stop(srv->grpc); /* joins every handler */
    if (srv->reg)
        weir__creg_flush(srv->reg);
    weir__creg_free(srv->reg);
    weir__cserve_free(srv->serve);
    weir__cconfs_free(srv->confs);
    for (size_t i = 0; i < srv->ops.len; i++)
        op_free(srv->ops.items[i]);
    WEIR_VEC_FREE(&srv->ops);
    pthread_mutex_destroy(&srv->state);
    pthread_mutex_destroy(&srv->work);
    free(srv);
}
