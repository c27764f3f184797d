/*
 * Inside the SparkConnectService (server.c): the server's state and what
 * its RPC handlers share. ExecutePlan is server_exec.c, the operations
 * kept for ReattachExecute and ReleaseExecute server_ops.c, AnalyzePlan
 * server_analyze.c; server.c has the rest of the service, the dispatch and
 * the server's life. Not for use outside src/connect/server*.c.
 */
#ifndef WEIR_CONNECT_SERVER_INTERNAL_H
#define WEIR_CONNECT_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "connect/connect.h"
#include "connect/grpc.h"
#include "connect/internal.h"
#include "spark/connect/base.pb-c.h"
#include "util/vec.h"

/*
 * Owns: the transport, the session confs (confs.c), the responses of
 * recent operations (for ReattachExecute) and the registration state (one
 * pipeline) or, in serving mode, the graphs clients create (serve.c).
 * Two locks: `state` for operations (short sections, so
 * ReleaseExecute is answered while a command runs) and, in registration
 * mode, `work` around everything that touches the pipeline (the
 * pipeline-serial rule; serve.c has one such lock per graph).
 */
struct weir_connect_server {
    weir__grpc_server *grpc;
    weir_pipeline *pipeline;
    char ssid[37]; /* server_side_session_id, constant for the server */
    pthread_mutex_t state;
    weir__cconfs *confs; /* the confs of client sessions (confs.c) */
    WEIR_VEC(struct csrv_operation *) ops; /* under state (server_ops.c) */
    pthread_mutex_t work;
    weir__creg *reg;     /* registration mode */
    weir__cserve *serve; /* serving mode */
    bool timing; /* WEIR_CONNECT_TIMING set: each call's time on stderr */
};

/* ---- shared by the handlers (server.c) ---- */

/* Is the caller a client other than PySpark (client_type
 * "_SPARK_CONNECT_PYTHON ...")? */
bool weir__csrv_not_pyspark(bool has, const char *client_type);
/* Is a query function running (the client names its flow)? */
bool weir__csrv_in_query_function(const Spark__Connect__UserContext *uc);
/* Spark's refusal of analysis inside a query function; returns -1. */
int weir__csrv_analysis_in_query_function(weir__cstatus *st);

/* ---- ExecutePlan (server_exec.c) ---- */
void weir__csrv_execute(weir_connect_server *srv, weir__grpc_call *call);
/* Is rel a local relation of no columns (a statement's result)? */
bool weir__csrv_no_columns(const Spark__Connect__Relation *rel);

/* ---- operations (server_ops.c) ---- */
/* Start keeping the responses of operation id, of session with its tags
 * (both copied); fails when the id is in use or too many operations are
 * kept. */
int weir__csrv_op_begin(weir_connect_server *srv, const char *id,
                        const char *session, char *const *tags, size_t n_tags,
                        weir__cstatus *st);
/* Operation id runs a query: Interrupt may name it. */
void weir__csrv_op_is_query(weir_connect_server *srv, const char *id);
/* Has Interrupt named operation id while it ran? */
bool weir__csrv_op_interrupted(weir_connect_server *srv, const char *id);
/* Interrupt: mark the running queries req names (its session's: all, by
 * tag or by id); their ids, at most max_ids, into ids (malloc'd, the
 * caller frees them). Returns how many ids. */
size_t weir__csrv_op_interrupt(weir_connect_server *srv,
                               const Spark__Connect__InterruptRequest *req,
                               char **ids, size_t max_ids);
/* Keep one response (a copy) of operation id, within its byte budget. */
void weir__csrv_op_keep(weir_connect_server *srv, const char *id,
                        const char *response_id, const uint8_t *data,
                        size_t len);
void weir__csrv_op_end(weir_connect_server *srv, const char *id, bool failed);
/* Free every kept operation (the server is stopping). */
void weir__csrv_ops_free(weir_connect_server *srv);
void weir__csrv_reattach(weir_connect_server *srv, weir__grpc_call *call);
void weir__csrv_release_execute(weir_connect_server *srv,
                                weir__grpc_call *call);

/* ---- AnalyzePlan (server_analyze.c) ---- */
void weir__csrv_analyze(weir_connect_server *srv, weir__grpc_call *call);

#endif
