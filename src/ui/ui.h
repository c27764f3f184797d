/*
 * The pipeline UI (`weir ui`, `weir report --html`; docs/ui.md): a snapshot
 * of a pipeline's state read through the public API (the resolved graph from
 * weir_pipeline_describe, the event log and updates from weir_pipeline_query),
 * rendered as HTML pages with the dataflow graph laid out by Graphviz's C
 * library, and a read-only loopback HTTP server (libmicrohttpd) that serves
 * them and follows the event log. The module sits above the public API like
 * src/connect; it is the only one that links libgvc and libmicrohttpd.
 */
#ifndef WEIR_UI_H
#define WEIR_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"
#include "weir.h"

/* --- The snapshot (snapshot.c) ------------------------------------------- */

typedef struct ui_column {
    const char *name, *type, *comment; /* comment NULL if none */
    bool nullable;
} ui_column;

/* A node of the graph: a dataset of the pipeline, or a table or file it
 * reads from outside (kind 0). */
typedef struct ui_dataset {
    const char *name; /* qualified */
    int kind;         /* a weir_dataset_kind, or 0 outside the pipeline */
    const ui_column *columns;
    size_t n_columns;
    const char *comment, *format; /* NULL if none */
    const char *properties;       /* table properties as a JSON object */
    const char *source_path;      /* as the library reports it */
    unsigned source_line;
    const char *query; /* the defining statement's text, or NULL */
    size_t n_expectations;
} ui_dataset;

typedef struct ui_edge {
    size_t from, to; /* indexes into ui_snapshot.datasets */
    bool streaming;
    const char *flow; /* the flow's name unless it is the implicit one */
} ui_edge;

/* One flow in one update, folded from its flow_progress events. */
typedef struct ui_flow_run {
    const char *flow, *dataset;
    const char *state; /* its last status: COMPLETED, FAILED, SKIPPED, ... */
    int64_t queued_us, planning_us, starting_us, end_us; /* 0 = not seen */
    int64_t rows;        /* num_output_rows summed; -1 = none reported */
    int64_t duration_ms; /* -1 = none reported */
    int64_t dropped, quarantined;
    unsigned failures;   /* FAILED events (retries included) */
    /* A stateful streaming flow (docs/streaming.md): its state's rows
     * after the update (-1 = none reported), the late rows it dropped,
     * its watermark (NULL = none). */
    int64_t state_rows, late_rows;
    const char *watermark;
} ui_flow_run;

/* An expectation's records in one update (summed over its flows). */
typedef struct ui_expectation {
    const char *dataset, *name, *action;
    int64_t passed, failed;
} ui_expectation;

/* An event of the update that carries an error. */
typedef struct ui_error {
    int64_t ts_us;
    const char *level, *flow, *message;
    const char *cls, *text, *path; /* from its error JSON; may be NULL */
    unsigned line, column;
    bool at_definition; /* path:line is the flow's definition (the error
                           itself had no place in the source) */
} ui_error;

typedef struct ui_update {
    const char *id, *state;
    const char *options; /* JSON (refresh selection) or NULL */
    int64_t start_us, end_us; /* end 0 while running */
    int64_t rows_written;     /* -1 = unknown */
    ui_flow_run *flows;
    size_t n_flows;
    ui_expectation *quality;
    size_t n_quality;
    ui_error *errors;
    size_t n_errors;
} ui_update;

typedef struct ui_snapshot {
    weir_arena arena; /* owns everything below */
    const char *pipeline, *storage, *spec_dir;
    const char *graph_note; /* why there is no graph, or NULL */
    ui_dataset *datasets;   /* the pipeline's in topological order, then
                               the outside ones */
    size_t n_datasets;
    ui_edge *edges;
    size_t n_edges;
    const char *prefix; /* "catalog.database." shared by the datasets, or "" */
    ui_update *updates; /* newest first */
    size_t n_updates;
    const char *busy; /* the storage could not be read (an update holds
                         it): the message, or NULL */
    bool live;        /* updates[0] is the update holding the storage, read
                         from its live progress file by ui_snapshot_follow */
    weir_arena live_arena; /* owns the strings of that update */
} ui_snapshot;

/*
 * Build a snapshot of p: the graph from graph (NULL when the graph could not
 * be resolved; graph_note then says why), and the last max_updates updates
 * with their events from p's event log. The queries open p's storage; the
 * caller drops p (releasing its lock) right after. A storage held by an
 * update (WEIR_EBUSY) is not an error: the snapshot then has no updates and
 * busy says why.
 * Ownership: the caller owns *out and frees it with ui_snapshot_free; graph
 * is only read during the call.
 * Errors: WEIR_ENOMEM, or the query's error (other than WEIR_EBUSY).
 */
int ui_snapshot_build(ui_snapshot **out, weir_pipeline *p,
                      const weir_graph_info *graph, const char *graph_note,
                      size_t max_updates, weir_error *err);
void ui_snapshot_free(ui_snapshot *s);

/*
 * Follow the update that holds s's storage: read its live progress file
 * (WEIR_PROGRESS_FILE in the storage folder; docs/ui.md) and put it first
 * in s->updates as a RUNNING update with its flows folded so far,
 * replacing the one put there before. The file is trusted only when the
 * process it names is the one whose pid the storage's lock file holds (the
 * caller has seen the lock held), and not for an update already recorded.
 * Returns true when s changed. Never writes anything.
 */
bool ui_snapshot_follow(ui_snapshot *s);

/* The path of file name in the storage folder (NULL: the current one),
 * into out (size bytes). */
void ui_storage_path(char *out, size_t size, const char *storage,
                     const char *name);

/* What the pages say about an update holding the storage, or NULL. */
const char *ui_snapshot_busy_note(const ui_snapshot *s);

/* The update with this id, or NULL (id NULL: the newest). */
const ui_update *ui_snapshot_update(const ui_snapshot *s, const char *id);
/* The index of the dataset named name, or SIZE_MAX. */
size_t ui_snapshot_dataset(const ui_snapshot *s, const char *name);
/* A name without the shared "catalog.database." prefix. */
const char *ui_short(const ui_snapshot *s, const char *name);

/* What the flows writing one dataset did in an update. */
typedef struct ui_dataset_run {
    const char *state;   /* the most telling state of its flows, or NULL
                            when no flow of the update wrote it */
    int64_t rows;        /* -1 = none reported */
    int64_t duration_ms; /* -1 = none reported */
} ui_dataset_run;

void ui_dataset_run_of(const ui_update *u, const char *dataset,
                       ui_dataset_run *out);

/* --- Graph layout (graph.c) ---------------------------------------------- */

/* How pages link to each other: routes of the server, or anchors inside
 * one report file. */
typedef enum ui_mode { UI_SERVER, UI_REPORT } ui_mode;

/*
 * Append the dataflow graph as an inline <svg> element, laid out left to
 * right by Graphviz (libgvc, "dot"): nodes coloured by kind and labelled
 * with the rows, state and duration of update u (may be NULL), each a link
 * to its dataset page. Not thread-safe (Graphviz keeps global state):
 * callers serialize. Returns false when Graphviz failed (nothing appended).
 */
bool ui_graph_svg(weir_buf *out, const ui_snapshot *s, const ui_update *u,
                  ui_mode mode);

/* The Graphviz input of the same graph, for tests. */
void ui_graph_dot(weir_buf *out, const ui_snapshot *s, const ui_update *u,
                  ui_mode mode);

/* --- Pages (html.c) ------------------------------------------------------- */

/* The overview of update id (NULL = newest): graph, updates, flow
 * timeline, errors, data quality. */
void ui_page_overview(weir_buf *out, const ui_snapshot *s, const char *id,
                      ui_mode mode, uint64_t generation);
/* The page of dataset d (an index into s->datasets) in update id. */
void ui_page_dataset(weir_buf *out, const ui_snapshot *s, size_t d,
                     const char *id, uint64_t generation);
/* One self-contained document: the overview of the newest update and every
 * dataset page as sections. */
void ui_page_report(weir_buf *out, const ui_snapshot *s);

/* Spark's words for a dataset kind ("streaming table"); "external" for 0. */
const char *ui_kind_name(int kind);

/* Text as HTML (escaping & < > " '); NULL appends nothing. */
void ui_html_text(weir_buf *out, const char *s);
/* Text percent-encoded for a URL query value. */
void ui_url_value(weir_buf *out, const char *s);

/* The small script of the server's pages (live refresh). */
extern const char ui_script[];

/* --- The server (server.c) ------------------------------------------------ */

/* Builds a fresh snapshot (the CLI loads the pipeline, resolves its graph
 * and drops it again). Returns 0 or an exit code; called from the server's
 * refresh thread only. */
typedef int (*ui_loader_fn)(void *payload, ui_snapshot **out);

typedef struct ui_server_options {
    const char *host;  /* numeric IPv4 or IPv6 address to bind */
    unsigned port;     /* 0 = any free port */
    const char *token; /* every request must present it (query ?token=,
                          cookie or Authorization: Bearer) */
    const char *watch; /* the storage folder whose weir.duckdb is watched */
    ui_loader_fn load;
    void *load_payload;
    unsigned poll_ms;  /* how often to look for changes; 0 = 1000 */
} ui_server_options;

typedef struct ui_server ui_server;

/*
 * Start serving first (the server takes ownership of it, even on failure)
 * with the options (copied). The server runs on its own threads until
 * ui_server_stop.
 * Errors: WEIR_EINVAL (a host that is not a numeric address), WEIR_EIO
 * (the address could not be bound), WEIR_ENOMEM.
 */
int ui_server_start(ui_server **out, ui_snapshot *first,
                    const ui_server_options *opts, weir_error *err);
/* The port bound. */
unsigned ui_server_port(const ui_server *s);
/* Stop and free. NULL is a no-op. */
void ui_server_stop(ui_server *s);

/* --- The module (module.c) ------------------------------------------------ */

/*
 * The CLI loads the UI as a shared module (libweir-ui.so, beside the weir
 * binary or its libweir.so) only for the commands that render pages, so
 * every other command starts without Graphviz, libmicrohttpd and GnuTLS
 * (~2.5 ms a process). The module exports one symbol, UI_MODULE_SYMBOL, a
 * function returning the entry points the CLI calls; each is the function
 * of the same name above.
 */
typedef struct ui_module {
    int (*snapshot_build)(ui_snapshot **out, weir_pipeline *p,
                          const weir_graph_info *graph,
                          const char *graph_note, size_t max_updates,
                          weir_error *err);
    void (*snapshot_free)(ui_snapshot *s);
    void (*page_report)(weir_buf *out, const ui_snapshot *s);
    int (*server_start)(ui_server **out, ui_snapshot *first,
                        const ui_server_options *opts, weir_error *err);
    unsigned (*server_port)(const ui_server *s);
    void (*server_stop)(ui_server *s);
} ui_module;

#define UI_MODULE_FILE "libweir-ui.so"
#define UI_MODULE_SYMBOL "weir_ui_module"
/* The module's table (static: never freed). */
const ui_module *weir_ui_module(void);

#endif /* WEIR_UI_H */
