/*
 * Serving mode (`weir serve`): the dataflow graphs clients create, each a
 * fresh weir_pipeline with the registration of pipeline.c on top, and
 * their runs.
 *
 * A graph belongs to the client session that created it and is dropped
 * when that session ends (ReleaseSession), by DropDataflowGraph, or, when
 * MAX_GRAPHS exist, as the least recently used idle one. Definitions and
 * the run of one graph are serialised by the graph's own lock (weir's
 * pipeline-serial rule); different graphs proceed in parallel.
 *
 * StartRun runs the update on the calling worker thread and streams each
 * event to the client as Spark's PipelineEvent: the message, and the
 * error below it as "Error: [CLASS] message" (as Spark's event sender
 * does). The event of a FAILED run is not streamed: like Spark, the RPC
 * ends with that failure as its error status instead. A run is cancelled
 * when its client goes away (checked with every progress report, about
 * ten times a second) or the server shuts down; weir records it CANCELED.
 * Two runs on the same storage are refused: this server checks its own
 * runs, weir's storage lock those of other processes.
 *
 * Owns: the graphs (their pipelines and registration states).
 */
#include "connect/internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "connect/grpc.h"
#include "util/arena.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/str.h"
#include "util/vec.h"

#define MAX_GRAPHS 64
#define MAX_CONF 4096
#define SHUTDOWN_WAIT_S 120 /* for cancelled runs to end */
#define RELEASE_WAIT_MS 3000 /* for their clients to end their sessions */

#define SPARK_EXCEPTION "org.apache.spark.SparkException"

typedef struct cgraph {
    char id[40];
    char session[64];
    weir_pipeline *pipeline;
    weir__creg *reg;       /* borrows pipeline */
    pthread_mutex_t work;  /* one call on the pipeline at a time */
    unsigned users;        /* commands holding the graph (under s->lock) */
    bool running;          /* a run is in progress (under s->lock) */
    bool dropped;          /* freed once no command holds it */
    bool shut_down;        /* its run was cancelled by the shutdown */
    volatile int cancel;   /* the running update's cancel flag */
    char *storage;         /* the running update's storage, resolved */
    uint64_t used;         /* last use, for eviction */
} cgraph;

struct weir__cserve {
    weir_session *session;
    char *root, *name;
    /* weir serve --env/--conf: how the project loads (copied into arena),
     * and the project so loaded (its definition files not read), whose
     * storage, catalog, database and configuration every graph and run
     * takes over the client's; NULL = the client's. */
    weir_arena arena;
    weir_load_options load;
    weir_pipeline *project;
    weir__cquery *query;  /* interactive queries of the served project */
    weir_log_fn on_log;
    void *log_payload;
    pthread_mutex_t lock; /* graphs, their flags, running, stopping */
    pthread_cond_t changed; /* a run ended or a session was released */
    WEIR_VEC(cgraph *) graphs;
    uint64_t tick;
    unsigned running;
    bool stopping;
};

static void say(weir__cserve *s, const char *fmt, ...) WEIR_PRINTF(2, 3);

static void say(weir__cserve *s, const char *fmt, ...)
{
    if (!s->on_log)
        return;
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    s->on_log(line, s->log_payload);
}

/* ------------------------------------------------------------------------
 * Graphs
 * ------------------------------------------------------------------------ */

static void graph_free(cgraph *g)
{
    if (!g)
        return;
    weir__creg_free(g->reg);
    weir_pipeline_drop(g->pipeline);
    pthread_mutex_destroy(&g->work);
    free(g->storage);
    free(g);
}

/* Copy the environment and overrides of cfg into s->load. */
static bool copy_load(weir__cserve *s, const weir__cserve_config *cfg)
{
    weir_load_options lo = WEIR_LOAD_OPTIONS_INIT;
    s->load = lo;
    s->load.environment = cfg->environment
                              ? weir__arena_strdup(&s->arena, cfg->environment)
                              : NULL;
    weir_kv *conf = weir__arena_array(&s->arena, cfg->n_conf + 1, sizeof(*conf));
    for (size_t i = 0; conf && i < cfg->n_conf; i++) {
        conf[i].key = weir__arena_strdup(&s->arena, cfg->conf[i].key);
        conf[i].value = weir__arena_strdup(&s->arena, cfg->conf[i].value);
    }
    s->load.conf = conf;
    s->load.n_conf = cfg->n_conf;
    return !weir__arena_failed(&s->arena);
}

int weir__cserve_new(weir__cserve **out, const weir__cserve_config *cfg,
                     weir_error *err)
{
    *out = NULL;
    weir__cserve *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    s->session = cfg->session;
    s->root = cfg->root_dir ? strdup(cfg->root_dir) : NULL;
    s->name = cfg->name ? strdup(cfg->name) : NULL;
    s->on_log = cfg->on_log;
    s->log_payload = cfg->log_payload;
    bool overrides = cfg->spec_path && (cfg->environment || cfg->n_conf);
    bool ok = !overrides || copy_load(s, cfg);
    s->query = weir__cquery_new(cfg->session, cfg->spec_path,
                                overrides ? &s->load : NULL);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    if (!ok || (cfg->root_dir && !s->root) || (cfg->name && !s->name) ||
        !s->query) {
        weir__cserve_free(s);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    if (overrides) {
        weir_load_options lo = s->load;
        lo.storage_only = true;
        int rc = weir_pipeline_load_with(&s->project, s->session,
                                         cfg->spec_path, &lo, err);
        if (rc) {
            weir__cserve_free(s);
            return rc;
        }
    }
    *out = s;
    return 0;
}

void weir__cserve_free(weir__cserve *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->graphs.len; i++)
        graph_free(s->graphs.items[i]);
    WEIR_VEC_FREE(&s->graphs);
    weir__cquery_free(s->query);
    weir_pipeline_drop(s->project);
    weir__arena_free(&s->arena);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s->root);
    free(s->name);
    free(s);
}

weir_pipeline *weir__cserve_project(weir__cserve *s)
{
    return s->project;
}

weir__cquery *weir__cserve_query(weir__cserve *s)
{
    return s->query;
}

bool weir__cserve_stopping(weir__cserve *s)
{
    pthread_mutex_lock(&s->lock);
    bool stopping = s->stopping;
    pthread_mutex_unlock(&s->lock);
    return stopping;
}

/* Take g out of the list if it is dropped and unused; the caller frees
 * what this returns (after unlocking). Caller holds s->lock. */
static cgraph *unlink_if_done(weir__cserve *s, cgraph *g)
{
    if (!g->dropped || g->users || g->running)
        return NULL;
    for (size_t i = 0; i < s->graphs.len; i++)
        if (s->graphs.items[i] == g) {
            s->graphs.items[i] = s->graphs.items[--s->graphs.len];
            return g;
        }
    return NULL;
}

/* The graph `id` of `session`, held for one command (release it). */
static cgraph *acquire(weir__cserve *s, const char *session, int is_set,
                       const char *id, weir__cstatus *st)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; is_set && id && i < s->graphs.len; i++) {
        cgraph *g = s->graphs.items[i];
        if (!g->dropped && strcmp(g->id, id) == 0 &&
            strcmp(g->session, session) == 0) {
            g->users++;
            g->used = ++s->tick;
            pthread_mutex_unlock(&s->lock);
            return g;
        }
    }
    pthread_mutex_unlock(&s->lock);
    weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "DATAFLOW_GRAPH_NOT_FOUND",
                      "42000", "Dataflow graph with id %.64s could not be found",
                      is_set && id ? id : "(none)");
    return NULL;
}

static void release(weir__cserve *s, cgraph *g)
{
    pthread_mutex_lock(&s->lock);
    g->users--;
    cgraph *done = unlink_if_done(s, g);
    pthread_mutex_unlock(&s->lock);
    graph_free(done);
}

static int shutting_down(weir__cstatus *st)
{
    return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "CONNECT_SERVER_SHUTDOWN",
                             "08006",
                             "The weir server is shutting down and takes no "
                             "new pipelines or runs.");
}

static int create_graph(weir__cserve *s, const char *session,
                        const Spark__Connect__PipelineCommand *cmd,
                        char graph_id[40], weir__cstatus *st)
{
    const Spark__Connect__PipelineCommand__CreateDataflowGraph *c =
        cmd->create_dataflow_graph;
    pthread_mutex_lock(&s->lock);
    bool stopping = s->stopping;
    pthread_mutex_unlock(&s->lock);
    if (stopping)
        return shutting_down(st);
    if (c->n_sql_conf > MAX_CONF)
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "too many confs in the dataflow graph");
    /* The client's confs, then the served project's over them. */
    size_t n_project = weir_pipeline_conf_at(s->project, 0, NULL, NULL);
    weir_kv *conf = calloc(c->n_sql_conf + n_project + 1, sizeof *conf);
    if (!conf)
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "out of memory");
    size_t n_conf = 0;
    for (size_t i = 0; i < c->n_sql_conf; i++) {
        const char *key = c->sql_conf[i]->key;
        if (s->project && key && weir_pipeline_conf_get(s->project, key))
            continue;
        conf[n_conf].key = key;
        conf[n_conf++].value = c->sql_conf[i]->value;
    }
    for (size_t i = 0; i < n_project; i++, n_conf++)
        weir_pipeline_conf_at(s->project, i, &conf[n_conf].key,
                              &conf[n_conf].value);
    weir_pipeline_options po = WEIR_PIPELINE_OPTIONS_INIT;
    po.name = s->name;
    if (c->_default_catalog_case && c->default_catalog && *c->default_catalog)
        po.catalog = c->default_catalog;
    if (c->_default_database_case && c->default_database && *c->default_database)
        po.database = c->default_database;
    if (s->project) {
        po.catalog = weir_pipeline_catalog(s->project);
        po.database = weir_pipeline_database(s->project);
    }
    po.configuration = conf;
    po.n_configuration = n_conf;
    po.root_dir = s->root;
    cgraph *g = calloc(1, sizeof *g);
    weir_error e;
    memset(&e, 0, sizeof e);
    int rc = g ? weir_pipeline_create(&g->pipeline, s->session, &po, &e)
               : WEIR_ENOMEM;
    free(conf);
    if (!g || rc == WEIR_ENOMEM) {
        free(g);
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "out of memory");
    }
    pthread_mutex_init(&g->work, NULL);
    if (rc) {
        graph_free(g);
        return weir__cstatus_set(st, WEIR_GRPC_INTERNAL,
                                 e.error_class[0] ? e.error_class
                                                  : "INVALID_PIPELINE_DEFINITION",
                                 "42000", "%s", e.message);
    }
    g->reg = weir__creg_new(g->pipeline);
    if (!g->reg) {
        graph_free(g);
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "out of memory");
    }
    /* The registration state records the graph (its id, its confs). */
    if (weir__creg_command(g->reg, cmd, NULL, graph_id, st)) {
        graph_free(g);
        return -1;
    }
    snprintf(g->id, sizeof g->id, "%s", graph_id);
    snprintf(g->session, sizeof g->session, "%s", session);

    cgraph *evicted = NULL;
    pthread_mutex_lock(&s->lock);
    size_t live = 0, lru = (size_t)-1;
    for (size_t i = 0; i < s->graphs.len; i++) {
        cgraph *o = s->graphs.items[i];
        if (o->dropped)
            continue;
        live++;
        if (!o->users && !o->running &&
            (lru == (size_t)-1 || o->used < s->graphs.items[lru]->used))
            lru = i;
    }
    if (live >= MAX_GRAPHS && lru != (size_t)-1) {
        evicted = s->graphs.items[lru];
        s->graphs.items[lru] = s->graphs.items[--s->graphs.len];
        live--;
    }
    g->used = ++s->tick;
    rc = live >= MAX_GRAPHS || WEIR_VEC_PUSH(&s->graphs, g) ? -1 : 0;
    pthread_mutex_unlock(&s->lock);
    graph_free(evicted);
    if (rc) {
        graph_free(g);
        graph_id[0] = '\0';
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "too many dataflow graphs are in use (%d)",
                                 MAX_GRAPHS);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Runs
 * ------------------------------------------------------------------------ */

#define MAX_FLOW_ERRORS 32

/* The latest error of a flow, for the status of a FAILED run. */
typedef struct flow_error {
    char flow[256];
    char cls[96];
    char message[1536];
} flow_error;

typedef struct run_ctx {
    weir__cserve *srv;
    cgraph *g;
    const weir__cemit *emit;
    bool client_gone;
    flow_error errors[MAX_FLOW_ERRORS]; /* [0]: the first flow that failed */
    size_t n_errors;
    flow_error run_error;     /* the FAILED run event's own error */
    char failed_message[512]; /* the FAILED run event's message */
} run_ctx;

static void keep_error(run_ctx *x, const char *flow, const char *cls,
                       const char *msg)
{
    flow_error *slot = NULL;
    for (size_t i = 0; i < x->n_errors && !slot; i++)
        if (strcmp(x->errors[i].flow, flow) == 0)
            slot = &x->errors[i];
    if (!slot && x->n_errors < MAX_FLOW_ERRORS)
        slot = &x->errors[x->n_errors++];
    if (!slot)
        return;
    snprintf(slot->flow, sizeof slot->flow, "%s", flow);
    snprintf(slot->cls, sizeof slot->cls, "%s", cls);
    snprintf(slot->message, sizeof slot->message, "%s", msg);
}

/* The error that failed the run: the run event's own, else that of the
 * flow its message names ("... since flow 'X' has failed ..."), else the
 * first flow's that failed. NULL when no event carried one. */
static const flow_error *run_failure(const run_ctx *x)
{
    if (x->run_error.message[0] || x->run_error.cls[0])
        return &x->run_error;
    const char *q = strstr(x->failed_message, "flow '");
    if (q) {
        q += strlen("flow '");
        size_t n = strcspn(q, "'");
        for (size_t i = 0; i < x->n_errors; i++)
            if (strlen(x->errors[i].flow) == n &&
                strncmp(x->errors[i].flow, q, n) == 0)
                return &x->errors[i];
    }
    return x->n_errors ? &x->errors[0] : NULL;
}

/* "class" and "message" of an event's error object. */
static void event_error(const char *json, char *cls, size_t cls_size,
                        char *msg, size_t msg_size)
{
    cls[0] = msg[0] = '\0';
    weir_arena a;
    weir__arena_init(&a);
    weir_json *root = NULL;
    weir_error e;
    if (weir__json_parse(&root, &a, json, strlen(json), &e) == 0 && root) {
        const char *c = weir__json_get_str(root, "class");
        const char *m = weir__json_get_str(root, "message");
        snprintf(cls, cls_size, "%s", c ? c : "");
        snprintf(msg, msg_size, "%s", m ? m : "");
    } else {
        snprintf(msg, msg_size, "%s", json);
    }
    weir__arena_free(&a);
}

/* The update_progress event of a FAILED run (not streamed). */
static bool run_failed_event(const weir_event *ev)
{
    return ev->event_type && strcmp(ev->event_type, "update_progress") == 0 &&
           ev->details_json && strstr(ev->details_json, "\"FAILED\"");
}

static void on_event(const weir_event *ev, void *payload)
{
    run_ctx *x = payload;
    if (ev->level == WEIR_LEVEL_METRICS)
        return;
    char cls[96], msg[1536];
    cls[0] = msg[0] = '\0';
    if (ev->error_json)
        event_error(ev->error_json, cls, sizeof cls, msg, sizeof msg);
    if (run_failed_event(ev)) {
        snprintf(x->failed_message, sizeof x->failed_message, "%s",
                 ev->message ? ev->message : "");
        if (ev->error_json) {
            snprintf(x->run_error.cls, sizeof x->run_error.cls, "%s", cls);
            snprintf(x->run_error.message, sizeof x->run_error.message, "%s",
                     msg);
        }
        return;
    }
    if (ev->error_json)
        keep_error(x, ev->flow_name ? ev->flow_name : "", cls, msg);
    if (x->client_gone)
        return;
    char text[4096];
    if (ev->error_json)
        snprintf(text, sizeof text, "%s\nError: %s%s%s%s",
                 ev->message ? ev->message : "", cls[0] ? "[" : "", cls,
                 cls[0] ? "] " : "", msg);
    else
        snprintf(text, sizeof text, "%s", ev->message ? ev->message : "");
    if (x->emit && x->emit->event(x->emit->ctx, ev->timestamp_us, text)) {
        x->client_gone = true;
        x->g->cancel = 1;
    }
}

static void on_progress(const weir_progress *pr, void *payload)
{
    (void)pr;
    run_ctx *x = payload;
    if (!x->client_gone && x->emit && x->emit->gone &&
        x->emit->gone(x->emit->ctx)) {
        x->client_gone = true;
        x->g->cancel = 1;
    }
}

/* "path:line:col: " for an error with a location, else "". */
static void location_prefix(char *buf, size_t size, const weir_error *e)
{
    buf[0] = '\0';
    if (!e->path[0])
        return;
    if (e->line && e->column)
        snprintf(buf, size, "%s:%u:%u: ", e->path, e->line, e->column);
    else if (e->line)
        snprintf(buf, size, "%s:%u: ", e->path, e->line);
    else
        snprintf(buf, size, "%s: ", e->path);
}

/* An invalid graph: every diagnostic, the first one's class. */
static int graph_errors(weir__cstatus *st, const weir_error *list, size_t n,
                        const weir_error *fallback)
{
    if (!n) {
        list = fallback;
        n = 1;
    }
    char text[sizeof st->message];
    size_t len = 0;
    for (size_t i = 0; i < n && len + 1 < sizeof text; i++) {
        char where[600];
        location_prefix(where, sizeof where, &list[i]);
        int w;
        if (i == 0)
            w = snprintf(text + len, sizeof text - len, "%s%s", where,
                         list[i].message);
        else
            w = snprintf(text + len, sizeof text - len, "\n%s%s%s%s%s", where,
                         list[i].error_class[0] ? "[" : "",
                         list[i].error_class,
                         list[i].error_class[0] ? "] " : "", list[i].message);
        if (w < 0)
            break;
        len += (size_t)w;
        if (len >= sizeof text)
            len = sizeof text - 1;
    }
    text[len] = '\0';
    /* weir's errors carry no SQLSTATE: none rather than a wrong one. */
    return weir__cstatus_set(st, WEIR_GRPC_INTERNAL,
                             list[0].error_class[0] ? list[0].error_class
                                                    : "INVALID_PIPELINE_GRAPH",
                             "", "%s", text);
}

/* The storage a run would use, as an absolute path (for comparing). */
static char *resolve_storage(const char *root, const char *storage)
{
    const char *p = storage;
    if (weir__str_istarts(p, "file://"))
        p += strlen("file://");
    char *abs = weir__path_absolute(p, root);
    if (!abs)
        return NULL;
    size_t n = strlen(abs);
    while (n > 1 && abs[n - 1] == '/')
        abs[--n] = '\0';
    return abs;
}

static int start_run(weir__cserve *s, const char *session,
                     const Spark__Connect__PipelineCommand__StartRun *r,
                     const weir__cemit *emit, weir__cstatus *st)
{
    cgraph *g = acquire(s, session, r->_dataflow_graph_id_case,
                        r->dataflow_graph_id, st);
    if (!g)
        return -1;
    const char *storage = r->_storage_case ? r->storage : NULL;
    if (s->project && weir_pipeline_storage(s->project))
        storage = weir_pipeline_storage(s->project); /* --env's */
    if (!storage || !*storage) {
        release(s, g);
        return weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT,
                                 "PIPELINE_STORAGE_ROOT_INVALID", "42000",
                                 "Pipeline storage root must be given: set "
                                 "`storage` in the pipeline spec.");
    }
    char *resolved = resolve_storage(s->root, storage);
    if (!resolved) {
        release(s, g);
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "out of memory");
    }
    /* A dry run writes nothing and takes no lock: it may overlap. */
    bool dry = r->_dry_case && r->dry;
    int rc = 0;
    pthread_mutex_lock(&s->lock);
    if (s->stopping)
        rc = shutting_down(st);
    else if (g->running)
        rc = weir__cstatus_set(st, WEIR_GRPC_FAILED_PRECONDITION,
                               "PIPELINE_GRAPH_ALREADY_RUNNING", "42000",
                               "Dataflow graph %s is already running.", g->id);
    for (size_t i = 0; !rc && !dry && i < s->graphs.len; i++) {
        const cgraph *o = s->graphs.items[i];
        if (o->running && o->storage && strcmp(o->storage, resolved) == 0)
            rc = weir__cstatus_set(
                st, WEIR_GRPC_FAILED_PRECONDITION, "PIPELINE_STORAGE_BUSY",
                "55000",
                "Storage %s is in use by another update running on this weir "
                "server (dataflow graph %s); wait for it to finish.",
                resolved, o->id);
    }
    if (!rc) {
        g->running = true;
        g->cancel = 0;
        if (!dry) {
            g->storage = resolved;
            resolved = NULL;
        }
        s->running++;
    }
    pthread_mutex_unlock(&s->lock);
    free(resolved);
    if (rc) {
        release(s, g);
        return rc;
    }

    /* The update needs the storage interactive queries may hold open. */
    if (!dry)
        weir__cquery_release(s->query);
    pthread_mutex_lock(&g->work);
    /* Outputs without a flow are registered now; what that finds wrong
     * was not reported to the client yet. */
    size_t before = weir__creg_diagnostics(g->reg, NULL);
    weir__creg_flush(g->reg);
    const weir_error *diags = NULL;
    size_t after = weir__creg_diagnostics(g->reg, &diags);
    if (after > before) {
        rc = graph_errors(st, diags + before, after - before, NULL);
    } else {
        run_ctx x;
        memset(&x, 0, sizeof x);
        x.srv = s;
        x.g = g;
        x.emit = emit;
        weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
        ro.dry = dry;
        ro.full_refresh_all = r->_full_refresh_all_case && r->full_refresh_all;
        ro.refresh = (const char *const *)r->refresh_selection;
        ro.n_refresh = r->n_refresh_selection;
        ro.full_refresh = (const char *const *)r->full_refresh_selection;
        ro.n_full_refresh = r->n_full_refresh_selection;
        ro.storage = storage;
        ro.on_event = on_event;
        ro.event_payload = &x;
        ro.on_progress = on_progress;
        ro.progress_payload = &x;
        ro.cancel = &g->cancel;
        if (dry)
            say(s, "Graph %.8s: dry run", g->id);
        else
            say(s, "Graph %.8s: starting run (storage %s)", g->id, g->storage);
        weir_run_result res;
        weir_error e;
        memset(&res, 0, sizeof res);
        memset(&e, 0, sizeof e);
        int wrc = weir_pipeline_start_run(g->pipeline, &ro, &res, &e);
        bool shut_down = false;
        pthread_mutex_lock(&s->lock);
        shut_down = s->stopping;
        pthread_mutex_unlock(&s->lock);
        if (wrc == 0 && res.state == WEIR_RUN_COMPLETED) {
            say(s, "Graph %.8s: %s COMPLETED (update %.8s)", g->id,
                dry ? "dry run" : "run", res.update_id);
        } else if (wrc == 0 && res.state == WEIR_RUN_FAILED) {
            say(s, "Graph %.8s: run FAILED (update %.8s)", g->id, res.update_id);
            const flow_error *fe = run_failure(&x);
            rc = weir__cstatus_set(
                st, WEIR_GRPC_INTERNAL,
                fe && fe->cls[0] ? fe->cls : "PIPELINE_RUN_FAILED", "", "%s",
                fe && fe->message[0] ? fe->message
                : x.failed_message[0] ? x.failed_message
                                      : "The update failed.");
            snprintf(st->exception, sizeof st->exception, "%s", SPARK_EXCEPTION);
        } else if ((wrc == 0 && res.state == WEIR_RUN_CANCELED) ||
                   wrc == WEIR_ECANCELED) {
            say(s, "Graph %.8s: run CANCELED (update %.8s)%s", g->id,
                res.update_id,
                x.client_gone ? ": the client went away"
                : shut_down   ? ": the server is shutting down"
                              : "");
            rc = weir__cstatus_set(
                st, WEIR_GRPC_INTERNAL, "OPERATION_CANCELED", "HY008",
                "Operation has been canceled%s. The update was recorded as "
                "CANCELED; the next run continues from the last completed "
                "flows.",
                shut_down ? ": the weir server is shutting down" : "");
            snprintf(st->exception, sizeof st->exception, "%s", SPARK_EXCEPTION);
            pthread_mutex_lock(&s->lock);
            g->shut_down = shut_down;
            pthread_mutex_unlock(&s->lock);
        } else if (wrc == WEIR_EGRAPH || wrc == WEIR_ESQL) {
            say(s, "Graph %.8s: the graph is invalid", g->id);
            const weir_error *list = NULL;
            size_t n = weir_pipeline_diagnostics(g->pipeline, &list);
            rc = graph_errors(st, list, n, &e);
        } else {
            say(s, "Graph %.8s: cannot run: %s", g->id, e.message);
            char where[600];
            location_prefix(where, sizeof where, &e);
            rc = weir__cstatus_set(
                st, wrc == WEIR_EINVAL ? WEIR_GRPC_INVALID_ARGUMENT
                                       : WEIR_GRPC_INTERNAL,
                e.error_class[0]    ? e.error_class
                : wrc == WEIR_EBUSY ? "PIPELINE_STORAGE_BUSY"
                                    : "PIPELINE_RUN_ERROR",
                "", "%s%s", where, e.message);
            if (wrc != WEIR_EINVAL)
                snprintf(st->exception, sizeof st->exception, "%s",
                         SPARK_EXCEPTION);
        }
    }
    pthread_mutex_unlock(&g->work);

    pthread_mutex_lock(&s->lock);
    g->running = false;
    free(g->storage);
    g->storage = NULL;
    s->running--;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    release(s, g);
    return rc;
}

/* ------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------ */

/* A definition (or anything else registration handles) on graph id. */
static int on_graph(weir__cserve *s, const char *session, int is_set,
                    const char *id, const Spark__Connect__PipelineCommand *cmd,
                    const weir__cemit *emit, char graph_id[40],
                    weir__cstatus *st)
{
    cgraph *g = acquire(s, session, is_set, id, st);
    if (!g)
        return -1;
    pthread_mutex_lock(&s->lock);
    bool running = g->running;
    pthread_mutex_unlock(&s->lock);
    int rc;
    if (running) {
        rc = weir__cstatus_set(st, WEIR_GRPC_FAILED_PRECONDITION,
                               "PIPELINE_GRAPH_ALREADY_RUNNING", "42000",
                               "Dataflow graph %s is running; it takes no new "
                               "definitions until the run ends.",
                               g->id);
    } else {
        pthread_mutex_lock(&g->work);
        rc = weir__creg_command(g->reg, cmd, emit, graph_id, st);
        pthread_mutex_unlock(&g->work);
    }
    release(s, g);
    return rc;
}

static int drop_graph(weir__cserve *s, const char *session,
                      const Spark__Connect__PipelineCommand__DropDataflowGraph *d,
                      weir__cstatus *st)
{
    cgraph *g = acquire(s, session, d->_dataflow_graph_id_case,
                        d->dataflow_graph_id, st);
    if (!g)
        return -1;
    int rc = 0;
    pthread_mutex_lock(&s->lock);
    if (g->running)
        rc = weir__cstatus_set(st, WEIR_GRPC_FAILED_PRECONDITION,
                               "PIPELINE_GRAPH_ALREADY_RUNNING", "42000",
                               "Dataflow graph %s is running and cannot be "
                               "dropped.",
                               g->id);
    else
        g->dropped = true;
    pthread_mutex_unlock(&s->lock);
    release(s, g);
    return rc;
}

int weir__cserve_command(weir__cserve *s, const char *session_id,
                         const Spark__Connect__PipelineCommand *cmd,
                         const weir__cemit *emit, char graph_id[40],
                         weir__cstatus *st)
{
    graph_id[0] = '\0';
    const char *session = session_id ? session_id : "";
    switch (cmd ? cmd->command_type_case : 0) {
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_CREATE_DATAFLOW_GRAPH:
        return create_graph(s, session, cmd, graph_id, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_OUTPUT:
        return on_graph(s, session, cmd->define_output->_dataflow_graph_id_case,
                        cmd->define_output->dataflow_graph_id, cmd, emit,
                        graph_id, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_FLOW:
        return on_graph(s, session, cmd->define_flow->_dataflow_graph_id_case,
                        cmd->define_flow->dataflow_graph_id, cmd, emit,
                        graph_id, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_SQL_GRAPH_ELEMENTS:
        return on_graph(s, session,
                        cmd->define_sql_graph_elements->_dataflow_graph_id_case,
                        cmd->define_sql_graph_elements->dataflow_graph_id, cmd,
                        emit, graph_id, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_START_RUN:
        return start_run(s, session, cmd->start_run, emit, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DROP_DATAFLOW_GRAPH:
        return drop_graph(s, session, cmd->drop_dataflow_graph, st);
    default:
        return weir__creg_unsupported(cmd, st);
    }
}

void weir__cserve_release_session(weir__cserve *s, const char *session_id)
{
    WEIR_VEC(cgraph *) done = WEIR_VEC_INIT;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->graphs.len;) {
        cgraph *g = s->graphs.items[i];
        if (strcmp(g->session, session_id ? session_id : "") == 0)
            g->dropped = true;
        if (g->dropped && !g->users && !g->running &&
            WEIR_VEC_PUSH(&done, g) == 0) {
            s->graphs.items[i] = s->graphs.items[--s->graphs.len];
            continue;
        }
        i++;
    }
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    for (size_t i = 0; i < done.len; i++)
        graph_free(done.items[i]);
    WEIR_VEC_FREE(&done);
}

/* now + ms as an absolute CLOCK_REALTIME time. */
static struct timespec deadline_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

unsigned weir__cserve_shutdown(weir__cserve *s)
{
    if (!s)
        return 0;
    unsigned n = 0;
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    for (size_t i = 0; i < s->graphs.len; i++)
        if (s->graphs.items[i]->running) {
            s->graphs.items[i]->cancel = 1;
            n++;
        }
    pthread_mutex_unlock(&s->lock);
    if (n)
        say(s, "Cancelling %u running update%s...", n, n == 1 ? "" : "s");
    pthread_mutex_lock(&s->lock);
    struct timespec until = deadline_ms(SHUTDOWN_WAIT_S * 1000L);
    while (s->running &&
           pthread_cond_timedwait(&s->changed, &s->lock, &until) == 0)
        ;
    bool stuck = s->running > 0;
    /* Give the clients of cancelled runs a moment to end their sessions:
     * a client whose ReleaseSession finds the server gone retries for
     * minutes. */
    until = deadline_ms(RELEASE_WAIT_MS);
    for (;;) {
        bool waiting = false;
        for (size_t i = 0; i < s->graphs.len; i++)
            waiting |= s->graphs.items[i]->shut_down &&
                       !s->graphs.items[i]->dropped;
        if (!waiting ||
            pthread_cond_timedwait(&s->changed, &s->lock, &until) != 0)
            break;
    }
    size_t held = 0;
    for (size_t i = 0; i < s->graphs.len; i++)
        held += !s->graphs.items[i]->dropped;
    pthread_mutex_unlock(&s->lock);
    if (stuck)
        say(s, "Some updates did not stop within %d seconds", SHUTDOWN_WAIT_S);
    /* The query running sees the server stopping (server_exec.c) at its
     * next type probe or DuckDB's interrupt: wait for it to return, so
     * that its client hears OPERATION_CANCELED before the connections
     * close (a client whose call finds the server gone retries for
     * minutes). */
    until = deadline_ms(SHUTDOWN_WAIT_S * 1000L);
    if (!weir__cquery_wait_idle(s->query, &until))
        say(s, "A query did not stop within %d seconds", SHUTDOWN_WAIT_S);
    /* Graphs of sessions that never ended (clients that died): kept until
     * evicted (at most MAX_GRAPHS) or now. */
    say(s, "%zu dataflow graph%s of unreleased sessions dropped", held,
        held == 1 ? "" : "s");
    return n;
}
