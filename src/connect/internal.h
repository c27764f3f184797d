/*
 * Shared between the files of the Spark Connect endpoint (server*.c, the
 * RPC handlers; call.c, their answers; pipeline*.c, the PipelineCommand
 * handlers; wire.c): the error status a handler answers with, and the
 * registration state.
 */
#ifndef WEIR_CONNECT_INTERNAL_H
#define WEIR_CONNECT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "connect/grpc.h"
#include "spark/connect/base.pb-c.h"
#include "spark/connect/pipelines.pb-c.h"
#include "spark/connect/types.pb-c.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/vec.h"
#include "weir.h"

/* What a failed call answers: a gRPC code and, for Spark errors, the
 * error class the client turns into a pyspark exception. */
typedef struct weir__cstatus {
    int code;             /* WEIR_GRPC_*; 0 = OK */
    char error_class[96]; /* "" = a plain gRPC error without details */
    char sql_state[8];
    char message[1536];   /* without the "[CLASS] " prefix */
    char exception[64];   /* the JVM exception class the client maps to a
                             pyspark exception; "" = AnalysisException */
    bool class_in_text;   /* the client is not PySpark: the class goes in
                             the message text only (see call.c) */
} weir__cstatus;

/* Fill st (code, class, SQLSTATE, message) and return -1. */
int weir__cstatus_set(weir__cstatus *st, int code, const char *error_class,
                      const char *sql_state, const char *fmt, ...)
    WEIR_PRINTF(5, 6);

/* call.c: answering a call (weir__grpc_call, grpc.h). */
/* Decode the call's request as a d, refusing nesting the decoder would
 * recurse into too deeply; NULL with *st filled on failure. */
void *weir__ccall_decode(weir__grpc_call *call,
                         const ProtobufCMessageDescriptor *d, weir__cstatus *st);
/* Send m and end the call OK (RESOURCE_EXHAUSTED when m cannot be sent). */
void weir__ccall_reply(weir__grpc_call *call, const ProtobufCMessage *m);
/* End the call with st: a Spark error (an ErrorInfo the client maps to a
 * pyspark exception) when st has an error class, else a plain gRPC one. */
void weir__ccall_fail(weir__grpc_call *call, const weir__cstatus *st);

/* Largest nesting of length-delimited fields accepted in a request: the
 * generated decoder recurses once per level. */
#define WEIR_CONNECT_MAX_WIRE_DEPTH 2000

/* Does the protobuf message in p[0..n) nest deeper than max_depth (every
 * length-delimited field that parses as a message counts as a level)?
 * Linear in n; never recurses. */
bool weir__wire_too_deep(const uint8_t *p, size_t n, unsigned max_depth);

/* --- Registration (pipeline.c, pipeline_flow.c) ------------------------ */

typedef struct weir__creg weir__creg;

/* Receives what a command streams back before its end (start_run events
 * in serving mode). event returns 0, or -1 when the client has gone; gone
 * (may be NULL) tells, without sending, whether the client has gone or the
 * server is stopping. */
typedef struct weir__cemit {
    int (*event)(void *ctx, int64_t timestamp_us, const char *message);
    bool (*gone)(void *ctx);
    void *ctx;
} weir__cemit;

/* The state of registration into `pipeline` (borrowed). NULL on OOM. */
weir__creg *weir__creg_new(weir_pipeline *pipeline);
void weir__creg_free(weir__creg *reg);

/* Run one PipelineCommand. On success returns 0 and sets graph_id[0] to
 * '\0' or, for create_dataflow_graph, the new graph's id. On failure
 * returns -1 with *st filled (and, for problems in the user's definitions,
 * a diagnostic recorded with its Python location). */
int weir__creg_command(weir__creg *reg,
                       const Spark__Connect__PipelineCommand *cmd,
                       const weir__cemit *emit, char graph_id[40],
                       weir__cstatus *st);

/* Fill *st for a PipelineCommand of a type weir does not handle (cmd may
 * be NULL); returns -1. Shared by registration and serving mode. */
int weir__creg_unsupported(const Spark__Connect__PipelineCommand *cmd,
                           weir__cstatus *st);

/* Register what is still waiting (outputs whose implicit flow never came
 * are registered without a query; implicit flows without an output are
 * reported). Idempotent. */
void weir__creg_flush(weir__creg *reg);

size_t weir__creg_diagnostics(weir__creg *reg, const weir_error **out);

/* --- Session confs (confs.c) ------------------------------------------ */

/* The confs client sessions set, and the answers to Config requests.
 * Thread-safe. */
typedef struct weir__cconfs weir__cconfs;

/* What an answer's pairs point into, until weir__cconfs_answer_free. */
typedef struct weir__cconfs_pairs {
    WEIR_VEC(Spark__Connect__KeyValue) kv;
    WEIR_VEC(Spark__Connect__KeyValue *) ptr;
} weir__cconfs_pairs;
typedef struct weir__cconfs_answer {
    weir__cconfs_pairs p;
    char **dups;
    size_t n_dups;
} weir__cconfs_answer;

/* pipeline (borrowed, may be NULL): registration mode's, whose
 * configuration answers keys no session set. NULL on OOM. */
weir__cconfs *weir__cconfs_new(weir_pipeline *pipeline);
void weir__cconfs_free(weir__cconfs *c);
/* The value session set for key (a copy the caller frees), or NULL. */
char *weir__cconfs_session_value(weir__cconfs *c, const char *session, const char *key);
/* Set key = value for session, as its Config set would (a SET statement
 * of the session). 0, or -1 with *st filled. */
int weir__cconfs_session_set(weir__cconfs *c, const char *session, const char *key,
                             const char *value, weir__cstatus *st);
/* A client session ended: its confs go. */
void weir__cconfs_drop_session(weir__cconfs *c, const char *session);
/* Answer req (of session req->session_id) into resp's pairs; mem holds
 * what they point to (always free it). 0 or -1 with *st filled. */
int weir__cconfs_config(weir__cconfs *c, const Spark__Connect__ConfigRequest *req,
                        Spark__Connect__ConfigResponse *resp,
                        weir__cconfs_answer *mem, weir__cstatus *st);
void weir__cconfs_answer_free(weir__cconfs_answer *mem);

/* --- Serving mode (serve.c) ------------------------------------------- */

/* The dataflow graphs clients create in serving mode, each a fresh
 * weir_pipeline of its own, and their runs. */
typedef struct weir__cserve weir__cserve;

typedef struct weir__cquery weir__cquery;

typedef struct weir__cserve_config {
    weir_session *session; /* borrowed; outlives the server */
    const char *spec_path; /* the project interactive queries read; NULL =
                              none (queries are refused) */
    const char *root_dir;  /* base of relative storage and source paths */
    const char *name;      /* pipeline name for updates; NULL = "pipeline" */
    weir_log_fn on_log;    /* one line per run start and end; may be NULL */
    void *log_payload;
    const char *environment; /* weir_connect_options' */
    const weir_kv *conf;
    size_t n_conf;
} weir__cserve_config;

/* The config's strings are copied. Errors: WEIR_ENOMEM, and those of
 * weir_pipeline_load_with when the project does not load with the
 * config's environment and overrides. */
int weir__cserve_new(weir__cserve **out, const weir__cserve_config *cfg,
                     weir_error *err);
/* The served project as --env/--conf load it (its configuration is what
 * clients' confs fall back on), or NULL without them. */
weir_pipeline *weir__cserve_project(weir__cserve *s);
/* Drop every graph. No command may be running. NULL is a no-op. */
void weir__cserve_free(weir__cserve *s);

/* Run one PipelineCommand of client session session_id: graphs belong to
 * the session that created them. start_run blocks for the whole run,
 * streaming its events through emit. Returns 0 (graph_id set for
 * create_dataflow_graph, '\0' otherwise) or -1 with *st filled. */
int weir__cserve_command(weir__cserve *s, const char *session_id,
                         const Spark__Connect__PipelineCommand *cmd,
                         const weir__cemit *emit, char graph_id[40],
                         weir__cstatus *st);

/* The client ended its session: drop its graphs (a running one when its
 * run ends). */
void weir__cserve_release_session(weir__cserve *s, const char *session_id);

/* The interactive query state (query.c) of the server. */
weir__cquery *weir__cserve_query(weir__cserve *s);

/* Refuse new runs, cancel the running ones and wait (bounded) until they
 * have ended and reported to their clients. Returns how many were
 * cancelled. */
unsigned weir__cserve_shutdown(weir__cserve *s);
/* Has the shutdown begun (running queries stop)? */
bool weir__cserve_stopping(weir__cserve *s);

/* --- Interactive queries in serving mode (query.c, arrow.c) ------------ */

/* Receives one Arrow IPC stream (schema, one record batch of `rows` rows,
 * end of stream) of a result; returns 0, or -1 with the status filled by
 * the caller's context (client gone). */
typedef int (*weir__arrow_emit)(void *ctx, const uint8_t *data, size_t n,
                                int64_t rows);

/* Encode every batch of `in` (not released here) and emit each; an empty
 * result is one batch of 0 rows, so the client learns its schema. Returns
 * 0 or -1 with *st filled (or emit's -1). */
int weir__arrow_ipc_each(struct ArrowArrayStream *in, weir__arrow_emit emit,
                         void *ctx, weir__cstatus *st);

/* The result of a statement (CREATE, INSERT, ...): no columns, no rows, as
 * an Arrow IPC stream (*out malloc'd). 0 or -1 with *st filled. */
int weir__arrow_ipc_no_columns(uint8_t **out, size_t *n, weir__cstatus *st);
/* A reader of the Arrow IPC stream in data[0..n) (copied): 0, or an errno
 * value with out->release NULL or set (release it either way when set). */
int weir__arrow_ipc_open(struct ArrowArrayStream *out, const uint8_t *data,
                         size_t n);
/* Is data an Arrow IPC stream of no columns (such a result sent back)? */
bool weir__arrow_ipc_is_no_columns(const uint8_t *data, size_t n);

/* The Spark type of an Arrow schema (a struct for a result's columns), in
 * arena a. Returns 0 or -1 with *st filled (a type Spark lacks). */
int weir__arrow_spark_schema(weir_arena *a, const struct ArrowSchema *s,
                             Spark__Connect__DataType **out, weir__cstatus *st);

/* The served project's queries. spec_path NULL: every query is refused
 * with a clear error. load (may be NULL; borrowed, outlives the queries):
 * how the project is loaded (its environment and overrides). NULL on
 * OOM. */
weir__cquery *weir__cquery_new(weir_session *session, const char *spec_path,
                               const weir_load_options *load);
void weir__cquery_free(weir__cquery *q);
/* Close the project's storage (before a run that needs it). */
void weir__cquery_release(weir__cquery *q);
/* Wait until no query runs (one that was running has returned, and its
 * handler can answer its client), at most until the CLOCK_REALTIME time
 * until; false when one still runs then. The server's shutdown, once its
 * queries are told to stop. */
bool weir__cquery_wait_idle(weir__cquery *q, const struct timespec *until);
/* Run a Spark SQL query and emit its result as Arrow IPC batches. While
 * it runs, stop(ctx) (may be NULL) is asked from another thread whether
 * its client has gone: then the query stops, failing with
 * OPERATION_CANCELED (weir_pipeline_set_query_cancel). The same for the
 * two below. zone: the client session's spark.sql.session.timeZone (NULL:
 * it set none; the project's configuration, else UTC), here and below. */
int weir__cquery_collect(weir__cquery *q, const char *sql, const char *zone,
                         weir__arrow_emit emit, bool (*stop)(void *ctx),
                         void *ctx, weir__cstatus *st);
/* Run statements for their effect (DDL, DML). zone_out (may be NULL): the
 * time zone a statement that mentions one left (SET TIME ZONE ..), for the
 * session's confs; malloc'd, NULL when none. */
int weir__cquery_statement(weir__cquery *q, const char *sql, const char *zone,
                           char **zone_out, bool (*stop)(void *ctx), void *ctx,
                           weir__cstatus *st);
/* DataFrame.show(): the first num_rows rows of a query (which reads at
 * most num_rows + 1: one more tells there are more) as Spark's text table,
 * emitted as a one-row result with the column show_string. */
int weir__cquery_show(weir__cquery *q, const char *sql, const char *zone, int num_rows,
                      int truncate, bool vertical, weir__arrow_emit emit,
                      bool (*stop)(void *ctx), void *ctx, weir__cstatus *st);
/* Spark's showString of r's first num_rows rows (r may hold one more, to
 * tell that there are more); *out is malloc'd. 0 or -1 (OOM). */
int weir__show_string(const weir_result *r, size_t num_rows, int truncate,
                      bool vertical, char **out);
/* A one-row, one-string-column result as an Arrow IPC stream. */
int weir__arrow_ipc_string(const char *name, const char *value,
                           weir__arrow_emit emit, void *ctx, weir__cstatus *st);

/* A schema or type in DDL ("a INT, b STRING", "ARRAY<INT>") as a Spark
 * type (a struct for a column list), in arena a. */
int weir__cquery_ddl(weir__cquery *q, const char *ddl, weir_arena *a,
                     Spark__Connect__DataType **out, weir__cstatus *st);

/* The result schema of a query (LIMIT 0: it is run), in arena a, in time
 * zone `zone` (NULL: the pipeline's). It stops (OPERATION_CANCELED),
 * planned or run, once stop(ctx) says so (stop may be NULL), as
 * weir__cquery_collect. */
int weir__cquery_schema(weir__cquery *q, const char *sql, const char *zone, weir_arena *a,
                        Spark__Connect__DataType **out,
                        bool (*stop)(void *ctx), void *ctx, weir__cstatus *st);

/* --- weir's shim keys in DefineFlow.sql_conf (shim.c) ----------------- */

typedef struct weir__shim_flow {
    bool once;               /* weir.flow.once */
    weir_expectation *exps;  /* weir.expectations (malloc'd strings) */
    size_t n_exps;
    char *import_checkpoint; /* weir.flow.import_checkpoint */
} weir__shim_flow;

/* If key is one of weir's shim keys (docs/python.md), take its value into
 * sf and set *taken. Returns 0, or -1 with a one-line reason in msg for a
 * malformed value. */
int weir__shim_take(weir__shim_flow *sf, const char *key, const char *value,
                    bool *taken, char *msg, size_t size);
void weir__shim_flow_free(weir__shim_flow *sf);
/* Append copies of add[0..n_add) to the malloc'd array *items. 0 or -1. */
int weir__shim_exps_append(weir_expectation **items, size_t *n,
                           const weir_expectation *add, size_t n_add);
void weir__shim_exps_free(weir_expectation *items, size_t n);

/* remote_uri.c: a google.rpc.Status (grpc-status-details-bin) as a weir_error: Spark's
 * error class (ErrorInfo metadata errorClass, else the message's "[CLASS]"
 * prefix) and message; fallback the grpc-message. */
void weir__remote_status_error(weir_error *err, int code,
                               const char *grpc_message,
                               const uint8_t *details, size_t details_len);

#endif
