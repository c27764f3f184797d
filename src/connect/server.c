/*
 * The SparkConnectService on top of the gRPC transport (grpc.h): decode
 * each request and dispatch it by method, answer Config, ReleaseSession,
 * Interrupt and FetchErrorDetails here, ExecutePlan (server_exec.c),
 * ReattachExecute and ReleaseExecute (server_ops.c) and AnalyzePlan
 * (server_analyze.c) there, and turn failures into the google.rpc.Status
 * the PySpark client converts to its exceptions. Pipeline commands go to
 * pipeline.c. The server's state and locks: server_internal.h.
 */
#include "connect/connect.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "connect/server_internal.h"
#include "util/clock.h"
#include "util/str.h"

#define SERVICE "/spark.connect.SparkConnectService/"

/* ------------------------------------------------------------------------
 * Shared by the handlers
 * ------------------------------------------------------------------------ */

/* Is the caller a client other than PySpark (client_type
 * "_SPARK_CONNECT_PYTHON ...")? */
bool weir__csrv_not_pyspark(bool has, const char *client_type)
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
bool weir__csrv_in_query_function(const Spark__Connect__UserContext *uc)
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

int weir__csrv_analysis_in_query_function(weir__cstatus *st)
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
 * Sessions, interrupts, error details
 * ------------------------------------------------------------------------ */

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
    /* Serving: the running queries named stop where they are
     * (server_exec.c). Registration commands are short and not
     * interruptible, nor are runs (their client's going cancels them):
     * nothing is reported for those. */
    char *ids[64];
    size_t n = srv->serve ? weir__csrv_op_interrupt(srv, req, ids, 64) : 0;
    Spark__Connect__InterruptResponse resp = SPARK__CONNECT__INTERRUPT_RESPONSE__INIT;
    resp.session_id = req->session_id;
    resp.server_side_session_id = srv->ssid;
    resp.n_interrupted_ids = n;
    resp.interrupted_ids = n ? ids : NULL;
    weir__ccall_reply(call, &resp.base);
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
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
        weir__csrv_execute(srv, call);
    else if (strcmp(m, "Config") == 0)
        handle_config(srv, call);
    else if (strcmp(m, "AnalyzePlan") == 0)
        weir__csrv_analyze(srv, call);
    else if (strcmp(m, "ReleaseExecute") == 0)
        weir__csrv_release_execute(srv, call);
    else if (strcmp(m, "ReleaseSession") == 0)
        handle_release_session(srv, call);
    else if (strcmp(m, "ReattachExecute") == 0)
        weir__csrv_reattach(srv, call);
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
    cfg.unix_path = opts->unix_path;
    cfg.children_only = opts->children_only;
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
        weir__grpc_drain(srv->grpc, 10000, true);
    }
    weir__grpc_stop(srv->grpc); /* joins every handler */
    if (srv->reg)
        weir__creg_flush(srv->reg);
    weir__creg_free(srv->reg);
    weir__cserve_free(srv->serve);
    weir__cconfs_free(srv->confs);
    weir__csrv_ops_free(srv);
    pthread_mutex_destroy(&srv->state);
    pthread_mutex_destroy(&srv->work);
    free(srv);
}
