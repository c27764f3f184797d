/*
 * AnalyzePlan: the Spark version, is_streaming from the plan alone, and in
 * serving mode a query's schema and DDL parsing; everything else is
 * refused as Spark refuses it inside a pipeline query function, or as not
 * supported.
 */
#include <stdlib.h>
#include <string.h>

#include "connect/plan.h"
#include "connect/server_internal.h"
#include "util/arena.h"

#define SPARK_VERSION "4.1.0"

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

/* Must a schema's query stop: its client gone (the call closed) or the
 * server shutting down? Asked from the query's watcher thread. */
typedef struct analyze_ctx {
    weir_connect_server *srv;
    weir__grpc_call *call;
} analyze_ctx;

static bool analyze_stop(void *ctx)
{
    const analyze_ctx *x = ctx;
    return weir__grpc_gone(x->call) || weir__cserve_stopping(x->srv->serve);
}

/* df.schema / df.columns in serving mode: the query's result columns. */
static int analyze_schema(weir_connect_server *srv, weir__grpc_call *call, const char *session,
                          const Spark__Connect__Plan *plan, weir_arena *a,
                          Spark__Connect__DataType **out, weir__cstatus *st)
{
    if (!plan || plan->op_type_case != SPARK__CONNECT__PLAN__OP_TYPE_ROOT)
        return weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT, "", "",
                                 "the schema request has no relation");
    if (weir__csrv_no_columns(plan->root)) {
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
    if (weir__plan_relation_sql_limit(plan->root, 0, &sql, &pe))
        return weir__cstatus_set(st, WEIR_GRPC_UNIMPLEMENTED,
                                 pe.error_class[0] ? pe.error_class
                                                   : "UNSUPPORTED_FEATURE",
                                 "0A000", "%s", pe.message);
    char *zone = weir__cconfs_session_value(srv->confs, session, "spark.sql.session.timeZone");
    analyze_ctx x = { srv, call };
    int rc = weir__cquery_schema(weir__cserve_query(srv->serve), sql, zone, a, out,
                                 analyze_stop, &x, st);
    free(zone);
    free(sql);
    return rc;
}


/* The answer to an analysis weir cannot give: inside a pipeline query
 * function Spark's own refusal, otherwise (registering a pipeline, or a kind
 * of analysis weir does not implement) UNSUPPORTED_FEATURE. */
static int analysis_refused(const Spark__Connect__AnalyzePlanRequest *req,
                            weir__cstatus *st)
{
    if (weir__csrv_in_query_function(req->user_context))
        return weir__csrv_analysis_in_query_function(st);
    return weir__cstatus_set(
        st, WEIR_GRPC_UNIMPLEMENTED, "UNSUPPORTED_FEATURE.CONNECT_ANALYSIS",
        "0A000",
        "weir cannot analyze DataFrames while it registers a pipeline "
        "(schema, explain, DDL parsing): schemas are resolved when the "
        "pipeline runs.");
}

void weir__csrv_analyze(weir_connect_server *srv, weir__grpc_call *call)
{
    weir__cstatus st = { 0 };
    Spark__Connect__AnalyzePlanRequest *req =
        weir__ccall_decode(call, &spark__connect__analyze_plan_request__descriptor, &st);
    if (!req) {
        weir__ccall_fail(call, &st);
        return;
    }
    st.class_in_text = weir__csrv_not_pyspark(req->_client_type_case, req->client_type);
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
        if (srv->serve && !weir__csrv_in_query_function(req->user_context)) {
            rc = analyze_schema(srv, call, req->session_id, req->schema->plan, &arena,
                                &sch.schema, &st);
            resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SCHEMA;
            resp.schema = &sch;
        } else {
            rc = analysis_refused(req, &st);
        }
        break;
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_DDL_PARSE:
        if (srv->serve && !weir__csrv_in_query_function(req->user_context)) {
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
