/*
 * weir's Spark Connect endpoint: a gRPC (HTTP/2) server speaking the Spark
 * Connect protocol, built on the public API only; and, at the end, weir as
 * a client of another Spark Connect server (`weir run --remote`).
 *
 * Two uses share it:
 *  - registration (issue 13): `weir run` on a project with Python files
 *    starts an endpoint bound to its weir_pipeline, runs the user's Python
 *    with the real pyspark-client against it, and every dataset and flow
 *    the client defines (DefineOutput / DefineFlow, plans turned into Spark
 *    SQL by plan.h) is registered into that pipeline through
 *    weir_pipeline_define_*; the CLI then validates and runs the pipeline
 *    as it does SQL projects;
 *  - serving (issue 14): `weir serve` answers the stock pipelines CLI
 *    (`python -m pyspark.pipelines.cli run|dry-run`): every
 *    CreateDataflowGraph gets a fresh weir_pipeline, definitions go into
 *    it as in registration mode, and StartRun runs it, streaming weir's
 *    events back as Spark's PipelineEvents; with a project (--spec),
 *    interactive DataFrame queries and spark.sql() run on its catalog and
 *    return Arrow IPC batches (query.c, arrow.c).
 *
 * Security: binds loopback unless told otherwise (or a unix-domain socket
 * that serves only this process's children: the one-time endpoint of
 * registration), every call must carry `authorization: Bearer <token>`
 * (otherwise UNAUTHENTICATED), connections that do not send it soon are
 * closed, at most a few such per peer (grpc.h), and message sizes,
 * nesting and per-client state are bounded.
 *
 * Threads: the server runs on its own thread(s) from weir_connect_start
 * until weir_connect_stop. In registration mode the pipeline is touched
 * only by the server's threads between start and stop (the caller must
 * not use it meanwhile), so the pipeline-serial rule of weir.h holds. In
 * serving mode each graph's pipeline is used by one call at a time; runs
 * of different graphs proceed in parallel, and two runs on the same
 * storage are refused (PIPELINE_STORAGE_BUSY).
 */
#ifndef WEIR_CONNECT_H
#define WEIR_CONNECT_H

#include <stdbool.h>
#include <stddef.h>

#include "weir.h"

typedef struct weir_connect_server weir_connect_server;

typedef struct weir_connect_options {
    const char *host;  /* address to bind; NULL = "127.0.0.1" (loopback) */
    unsigned port;     /* 0 = any free port (see weir_connect_port) */
    const char *token; /* required bearer token */
    size_t max_message; /* largest accepted gRPC message; 0 = 128 MiB */
    /* Listen on this unix-domain socket instead of host and port: a path
     * (the file is created and removed by weir_connect_stop; put it in a
     * folder only its user can enter) or "@name", an abstract name
     * (Linux; no file). Such an endpoint can serve the process's own
     * children only: */
    const char *unix_path;
    bool children_only; /* with unix_path: other processes are refused */
    /* Registration mode: definitions go into this pipeline (borrowed; must
     * outlive the server). NULL = serving mode. */
    weir_pipeline *pipeline;
    /* Serving mode only: */
    weir_session *session; /* required; borrowed, must outlive the server:
                              the graphs' pipelines are created from it */
    const char *root_dir;  /* base for relative paths the client sends
                              (StartRun.storage, files read by SQL and
                              DataFrame sources); NULL = current folder */
    const char *name;      /* pipeline name recorded with each update;
                              NULL = "pipeline" */
    const char *spec_path; /* the project whose catalog interactive
                              queries (spark.sql, spark.read.table,
                              collect, toPandas, ...) read and write;
                              NULL = queries are refused */
    /* The environment and overrides of the served project (weir serve
     * --env/--conf; spec_path required): interactive queries load the
     * project with them, and every graph and run takes the project's
     * resolved storage, default catalog and database and configuration
     * over what the client sends. NULL and 0 = the client's. Copied. */
    const char *environment;
    const weir_kv *conf;
    size_t n_conf;
    weir_log_fn on_log;    /* a line when a run starts and ends, and at
                              shutdown; called from the server's threads;
                              NULL = silent */
    void *log_payload;
} weir_connect_options;

/* Bind, listen and start serving on a background thread.
 * Ownership: *out is the caller's, released by weir_connect_stop.
 * Errors: WEIR_EINVAL (no token, bad host, serving mode without a
 * session), WEIR_EIO (bind/listen failed, message names the address),
 * WEIR_ENOMEM. */
int weir_connect_start(weir_connect_server **out,
                       const weir_connect_options *opts, weir_error *err);

/* The port the server listens on. */
unsigned weir_connect_port(const weir_connect_server *server);

/* Problems found while registering definitions that the client's calls
 * could not report back usefully (plans that cannot be translated, bad
 * options): each a weir_error whose path/line are the Python file and line
 * that defined the construct. Returns the count; *out (may be NULL) is
 * borrowed until the next call or weir_connect_stop. Call after the
 * client has finished (the server keeps adding while clients talk). */
size_t weir_connect_diagnostics(weir_connect_server *server,
                                const weir_error **out);

/* Stop serving. In serving mode running updates are cancelled first and
 * waited for (they end CANCELED in their event logs and their clients get
 * the error), then the last responses are flushed. Then every connection
 * is closed, the threads are joined and the server freed. NULL is a
 * no-op. */
void weir_connect_stop(weir_connect_server *server);

/* --- Client of a remote Spark Connect server (remote.c, remote_uri.c) --
 *
 * weir as the client of a remote Spark Connect server with Spark
 * Declarative Pipelines (`weir run --remote sc://...`, docs/spark.md): the
 * sc:// connection string, and the pipeline commands a run sends, each one
 * ExecutePlan call on the transport of grpc.h: CreateDataflowGraph (the
 * pipeline's catalog, database and configuration), one
 * DefineSqlGraphElements per SQL file, then StartRun, whose streamed
 * PipelineEvents come back as weir_events. Python files are defined by the
 * stock pyspark client joining the same session and graph
 * (weir_remote_client_uri, weir_remote_graph_id).
 *
 * Errors the server answers (a non-OK gRPC status) become a weir_error
 * with Spark's error class and message, decoded from
 * grpc-status-details-bin (google.rpc.Status, ErrorInfo): WEIR_EENGINE.
 * A server that cannot be reached is WEIR_EIO within the connect bound; a
 * bad connection string WEIR_EINVAL.
 *
 * Threads: a weir_remote is used by one thread at a time. Owns: its
 * session id, graph id and the copies of the connection string's parts.
 */

#define WEIR_REMOTE_DEFAULT_PORT 15002

/* The parts of `sc://HOST[:PORT][/;key=value;...]` weir uses. */
typedef struct weir_remote_uri {
    char host[256];     /* without the brackets of an IPv6 address */
    unsigned port;      /* WEIR_REMOTE_DEFAULT_PORT when not given */
    char token[512];    /* "" when none */
    char user_id[128];  /* "" when none */
    char session_id[40]; /* "" when none */
} weir_remote_uri;

/*
 * Parse a Spark Connect connection string. Parameters: token, user_id,
 * session_id, user_agent (accepted, not used) and use_ssl=false;
 * use_ssl=true, a token for a host other than loopback (Spark's client
 * sends tokens only over TLS, which weir's client does not have), an
 * unknown parameter, a missing host, a bad port are WEIR_EINVAL with the
 * error class INVALID_REMOTE_URI and a message naming the part.
 */
int weir_remote_parse_uri(weir_remote_uri *out, const char *uri,
                          weir_error *err);

typedef struct weir_remote weir_remote;

/* Parse uri and prepare a client with a fresh session id (or the URI's).
 * Nothing is sent yet. connect_ms bounds each connection (0 = 10 s);
 * *cancel (may be NULL), when it becomes nonzero, stops the call in
 * progress within a second (WEIR_ECANCELED). *out is the caller's, freed
 * by weir_remote_close. Errors: WEIR_EINVAL, WEIR_ENOMEM. */
int weir_remote_open(weir_remote **out, const char *uri, unsigned connect_ms,
                     const volatile int *cancel, weir_error *err);

/* The connection string a pyspark client uses to join this client's
 * session on the server: host, port, token, user_id and session_id.
 * Borrowed from r. */
const char *weir_remote_client_uri(const weir_remote *r);

/* The graph id of weir_remote_define ("" before it). Borrowed from r. */
const char *weir_remote_graph_id(const weir_remote *r);

/*
 * Create the dataflow graph (the pipeline's default catalog and database,
 * its configuration as SQL confs) and send every SQL file of the pipeline
 * (weir_pipeline_sql_files, read from the spec's folder, unsubstituted:
 * Spark substitutes `${key}` itself), each with its path relative to that
 * folder. An error about a file names it in err->path.
 */
int weir_remote_define(weir_remote *r, const weir_pipeline *pipeline,
                       weir_error *err);

/*
 * StartRun on the defined graph with opts' dry, full_refresh_all, refresh
 * and full_refresh, and storage (opts->storage, else the pipeline's, sent
 * as a file:// URI); every PipelineEvent goes to opts->on_event as a
 * weir_event (timestamp and message from Spark; level, event type and flow
 * name read from the message; update_id the one in out). Blocks until the
 * server ends the run. Returns 0 when the run ended, out->state saying how
 * (from Spark's `Run is ...` event); a Spark error (the run could not
 * start, or ended with an error status) is WEIR_EENGINE.
 */
int weir_remote_start_run(weir_remote *r, const weir_pipeline *pipeline,
                          const weir_run_options *opts, weir_run_result *out,
                          weir_error *err);

/* Release the session on the server (best effort, bounded) and free r.
 * NULL is a no-op. */
void weir_remote_close(weir_remote *r);

#endif
