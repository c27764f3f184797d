/*
 * ExecutePlan: pipeline commands (registration, or serving's graphs and
 * runs, their events streamed back), spark.sql commands, and in serving
 * mode queries of the served project, their rows as Arrow batches. Every
 * response is kept for reattachment (server_ops.c) and the stream ends
 * with result_complete.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan.h"
#include "connect/server_internal.h"
#include "util/clock.h"
#include "util/str.h"

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
    weir__csrv_op_keep(x->srv, x->op_id, rid, buf, len);
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

/* Must a query stop: its client gone (the call closed), the server
 * shutting down, or Interrupt naming it? Asked from the query's watcher
 * thread (weir_pipeline_set_query_cancel). Runs have their own rules
 * (serve.c): the shutdown cancels them and lets them tell their clients. */
static bool exec_query_stop(void *ctx)
{
    const exec_ctx *x = ctx;
    return weir__grpc_gone(x->call) || weir__cserve_stopping(x->srv->serve) ||
           weir__csrv_op_interrupted(x->srv, x->op_id);
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
bool weir__csrv_no_columns(const Spark__Connect__Relation *rel)
{
    return rel && rel->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION &&
           rel->local_relation && rel->local_relation->_data_case &&
           weir__arrow_ipc_is_no_columns(rel->local_relation->data.data,
                                         rel->local_relation->data.len);
}

/* A plan's root relation in serving mode: a query of the served project,
 * its rows streamed as Arrow batches. */
#define ZONE_KEY "spark.sql.session.timeZone"

/* A command as the user wrote it, for errors: the PySpark calls behind the
 * usual ones, else the protocol's name of its kind. */
static const char *command_name(const Spark__Connect__Command *cmd)
{
    switch (cmd->command_type_case) {
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_CREATE_DATAFRAME_VIEW:
        return "create_dataframe_view (DataFrame.createTempView, "
               "createOrReplaceTempView, createGlobalTempView)";
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_WRITE_OPERATION:
        return "write_operation (DataFrame.write: saveAsTable, insertInto, save)";
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_WRITE_OPERATION_V2:
        return "write_operation_v2 (DataFrame.writeTo)";
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_WRITE_STREAM_OPERATION_START:
        return "write_stream_operation_start (DataFrame.writeStream.start)";
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_REGISTER_FUNCTION:
        return "register_function (spark.udf.register)";
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_MERGE_INTO_TABLE_COMMAND:
        return "merge_into_table (DataFrame.mergeInto)";
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_CHECKPOINT_COMMAND:
        return "checkpoint_command (DataFrame.checkpoint, localCheckpoint)";
    default: {
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
            &spark__connect__command__descriptor, (unsigned)cmd->command_type_case);
        return f ? f->name : "(unknown)";
    }
    }
}

static int exec_query(exec_ctx *x, const Spark__Connect__Relation *rel,
                      weir__cstatus *st)
{
    /* A statement's result sent back: no columns, nothing to run. */
    if (weir__csrv_no_columns(rel)) {
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
    /* show(n) reads one row more than it shows: it tells there are more */
    long long limit = !show ? -1 : show->num_rows > 0 ? (long long)show->num_rows + 1 : 1;
    if (weir__plan_relation_sql_limit(show ? show->input : rel, limit, &sql, &pe))
        return weir__cstatus_set(st, WEIR_GRPC_UNIMPLEMENTED,
                                 pe.error_class[0] ? pe.error_class
                                                   : "UNSUPPORTED_FEATURE",
                                 "0A000", "%s", pe.message);
    weir__cquery *q = weir__cserve_query(x->srv->serve);
    weir__csrv_op_is_query(x->srv, x->op_id);
    char *zone = weir__cconfs_session_value(x->srv->confs, x->session_id, ZONE_KEY);
    int rc = show ? weir__cquery_show(q, sql, zone, show->num_rows, show->truncate,
                                      show->vertical, exec_arrow,
                                      exec_query_stop, x, st)
                  : weir__cquery_collect(q, sql, zone, exec_arrow, exec_query_stop,
                                         x, st);
    free(zone);
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
        weir__csrv_op_is_query(x->srv, x->op_id);
        /* SET TIME ZONE is the session's conf from then on, as in Spark. */
        char *zone = weir__cconfs_session_value(x->srv->confs, x->session_id, ZONE_KEY);
        char *set_zone = NULL;
        int qrc = weir__cquery_statement(weir__cserve_query(x->srv->serve), sql, zone,
                                         &set_zone, exec_query_stop, x, st);
        free(zone);
        if (!qrc && set_zone)
            qrc = weir__cconfs_session_set(x->srv->confs, x->session_id, ZONE_KEY,
                                           set_zone, st);
        free(set_zone);
        if (qrc)
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

void weir__csrv_execute(weir_connect_server *srv, weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__ExecutePlanRequest *req =
        weir__ccall_decode(call, &spark__connect__execute_plan_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    st.class_in_text = weir__csrv_not_pyspark(req->_client_type_case, req->client_type);
    char op_id[64];
    if (req->_operation_id_case && req->operation_id && *req->operation_id)
        snprintf(op_id, sizeof op_id, "%s", req->operation_id);
    else
        weir__uuid(op_id);
    exec_ctx x = { srv, call, req->session_id, op_id, 0 };
    int rc = weir__csrv_op_begin(srv, op_id, req->session_id, req->tags,
                                 req->n_tags, &st);
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
        rc = weir__csrv_in_query_function(req->user_context)
                 ? weir__csrv_analysis_in_query_function(&st)
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
                               "The Spark Connect command %s is not supported by weir "
                               "yet.",
                               command_name(cmd));
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
    weir__csrv_op_end(srv, op_id, rc != 0);
    if (rc)
        weir__ccall_fail(call, &st);
    else
        weir__grpc_finish(call, WEIR_GRPC_OK, NULL, NULL, 0);
    spark__connect__execute_plan_request__free_unpacked(req, NULL);
}
