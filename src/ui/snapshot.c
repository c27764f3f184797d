/*
 * The UI's snapshot of a pipeline: the graph copied from
 * weir_pipeline_describe (datasets, outside inputs, one edge per input of
 * each flow, as `weir graph` draws it, with each dataset's table
 * properties), and the last updates from weir.updates with the
 * flow_progress events of weir.event_log folded per flow (states and their
 * times, rows, expectations, errors). Everything is read through the public
 * query API; the snapshot owns copies in its arena.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ui/ui.h"
#include "util/json.h"
#include "util/str.h"
#include "util/vec.h"

#define MAX_QUERY_LINES 200
#define MAX_QUERY_BYTES 16384

typedef WEIR_VEC(ui_flow_run) flow_vec;
typedef WEIR_VEC(ui_expectation) quality_vec;
typedef WEIR_VEC(ui_error) error_vec;

static char *dup(ui_snapshot *s, const char *text)
{
    return weir__arena_strdup(&s->arena, text);
}

static int oom(weir_error *err)
{
    return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
}

static int64_t to_i64(const char *text)
{
    return text ? strtoll(text, NULL, 10) : 0;
}

static int64_t json_i64(const weir_json *j)
{
    return j && j->type == WEIR_JSON_NUMBER ? strtoll(j->text, NULL, 10) : 0;
}

/* --- The graph ------------------------------------------------------------ */

static size_t node_for(ui_snapshot *s, const char *name, size_t cap)
{
    for (size_t i = 0; i < s->n_datasets; i++)
        if (strcmp(s->datasets[i].name, name) == 0)
            return i;
    if (s->n_datasets == cap)
        return SIZE_MAX;
    ui_dataset *d = &s->datasets[s->n_datasets];
    memset(d, 0, sizeof *d);
    d->name = dup(s, name);
    return s->n_datasets++;
}

static void add_edge(ui_snapshot *s, size_t from, size_t to,
                     const weir_flow_info *f)
{
    const char *flow = f->implicit ? NULL : f->name;
    for (size_t i = 0; i < s->n_edges; i++) {
        const ui_edge *o = &s->edges[i];
        if (o->from == from && o->to == to && o->streaming == f->streaming &&
            (o->flow == flow || (o->flow && flow && !strcmp(o->flow, flow))))
            return;
    }
    ui_edge *e = &s->edges[s->n_edges++];
    e->from = from;
    e->to = to;
    e->streaming = f->streaming;
    e->flow = flow ? dup(s, flow) : NULL;
}

static void find_prefix(ui_snapshot *s)
{
    const char *first = NULL;
    size_t len = 0;
    s->prefix = "";
    for (size_t i = 0; i < s->n_datasets; i++) {
        if (!s->datasets[i].kind)
            continue;
        const char *name = s->datasets[i].name, *dot = strrchr(name, '.');
        if (!dot)
            return;
        if (!first) {
            first = name;
            len = (size_t)(dot - name) + 1;
        } else if ((size_t)(dot - name) + 1 != len || strncmp(name, first, len)) {
            return;
        }
    }
    if (first)
        s->prefix = weir__arena_strndup(&s->arena, first, len);
}

/* The statement at line `line` of path: up to the first line ending in ';'
 * (SQL) or the first blank line (Python). */
static const char *read_query(ui_snapshot *s, const char *path, unsigned line)
{
    if (!path || !line || path[0] == '<')
        return NULL;
    char full[4096];
    if (path[0] == '/' || !s->spec_dir)
        snprintf(full, sizeof full, "%s", path);
    else
        snprintf(full, sizeof full, "%s/%s", s->spec_dir, path);
    FILE *f = fopen(full, "r");
    if (!f)
        return NULL;
    bool python = weir__str_ends(path, ".py");
    weir_buf b = WEIR_BUF_INIT;
    char text[4096];
    unsigned at = 0, taken = 0;
    while (fgets(text, sizeof text, f)) {
        if (++at < line)
            continue;
        size_t n = strlen(text);
        while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' ||
                     text[n - 1] == ' ' || text[n - 1] == '\t'))
            n--;
        if (python && n == 0 && taken)
            break;
        weir__buf_put(&b, text, n);
        weir__buf_putc(&b, '\n');
        if ((!python && n && text[n - 1] == ';') ||
            ++taken >= MAX_QUERY_LINES || b.len >= MAX_QUERY_BYTES)
            break;
    }
    fclose(f);
    const char *q = b.len && !b.failed ? dup(s, weir__buf_cstr(&b)) : NULL;
    weir__buf_free(&b);
    return q;
}

/* Table properties as the JSON object the page shows ("{}" for none). */
static const char *properties_json(ui_snapshot *s, const weir_kv *kv, size_t n)
{
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_putc(&b, '{');
    for (size_t i = 0; i < n; i++) {
        weir__buf_puts(&b, i ? ", " : "");
        weir__buf_put_json_string(&b, kv[i].key);
        weir__buf_puts(&b, ": ");
        weir__buf_put_json_string(&b, kv[i].value);
    }
    weir__buf_putc(&b, '}');
    const char *out = b.failed ? NULL : dup(s, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return out;
}

static int copy_graph(ui_snapshot *s, const weir_graph_info *g,
                      weir_error *err)
{
    size_t cap = g->n_datasets, n_edges = 0;
    for (size_t i = 0; i < g->n_flows; i++) {
        n_edges += g->flows[i].n_inputs + g->flows[i].n_external_inputs;
        cap += 1 + g->flows[i].n_inputs + g->flows[i].n_external_inputs;
    }
    s->datasets = weir__arena_array(&s->arena, cap + 1, sizeof *s->datasets);
    s->edges = weir__arena_array(&s->arena, n_edges + 1, sizeof *s->edges);
    if (!s->datasets || !s->edges)
        return oom(err);
    for (size_t i = 0; i < g->n_datasets; i++) {
        const weir_dataset_info *in = &g->datasets[i];
        size_t at = node_for(s, in->name, cap);
        ui_dataset *d = &s->datasets[at];
        ui_column *cols =
            weir__arena_array(&s->arena, in->n_columns + 1, sizeof *cols);
        if (!cols)
            return oom(err);
        for (size_t c = 0; c < in->n_columns; c++) {
            cols[c].name = dup(s, in->columns[c].name);
            cols[c].type = dup(s, in->columns[c].type);
            cols[c].comment = dup(s, in->columns[c].comment);
            cols[c].nullable = in->columns[c].nullable;
        }
        d->kind = (int)in->kind;
        d->columns = cols;
        d->n_columns = in->n_columns;
        d->comment = dup(s, in->comment);
        d->format = dup(s, in->format);
        d->source_path = dup(s, in->source_path);
        d->source_line = in->source_line;
        d->n_expectations = in->n_expectations;
        d->properties = properties_json(s, in->properties, in->n_properties);
        d->query = read_query(s, in->source_path, in->source_line);
    }
    for (size_t i = 0; i < g->n_flows; i++) {
        const weir_flow_info *f = &g->flows[i];
        size_t to = node_for(s, f->target, cap);
        for (size_t j = 0; j < f->n_inputs; j++)
            add_edge(s, node_for(s, f->inputs[j], cap), to, f);
        for (size_t j = 0; j < f->n_external_inputs; j++)
            add_edge(s, node_for(s, f->external_inputs[j], cap), to, f);
    }
    find_prefix(s);
    return weir__arena_failed(&s->arena) ? oom(err) : 0;
}

/* --- Queries ---------------------------------------------------------------- */

typedef struct reader {
    ui_snapshot *s;
    weir_pipeline *p;
    weir_error *err;
    bool busy;
} reader;

/* Run sql; a busy storage sets r->busy and returns 0 with *out NULL. */
static int query(reader *r, const char *sql, weir_result **out)
{
    *out = NULL;
    int rc = weir_pipeline_query(r->p, sql, out, r->err);
    if (rc == WEIR_EBUSY) {
        r->busy = true;
        r->s->busy = weir__arena_printf(
            &r->s->arena,
            "An update is running: %s. This page shows what was recorded "
            "before it and refreshes when it ends.",
            r->err->message);
        memset(r->err, 0, sizeof *r->err);
        return 0;
    }
    return rc;
}

static int read_updates(reader *r, size_t max_updates)
{
    char sql[400];
    weir_result *res;
    snprintf(sql, sizeof sql,
             "SELECT update_id, unix_micros(started_at), unix_micros(ended_at),"
             " state, options FROM weir.updates ORDER BY started_at DESC"
             " LIMIT %zu",
             max_updates);
    int rc = query(r, sql, &res);
    if (rc || !res)
        return rc;
    size_t n = weir_result_row_count(res);
    ui_snapshot *s = r->s;
    s->updates = calloc(n + 1, sizeof *s->updates);
    if (!s->updates) {
        weir_result_free(res);
        return oom(r->err);
    }
    for (size_t i = 0; i < n; i++) {
        ui_update *u = &s->updates[i];
        u->id = dup(s, weir_result_value(res, 0, i));
        u->start_us = to_i64(weir_result_value(res, 1, i));
        u->end_us = to_i64(weir_result_value(res, 2, i));
        u->state = dup(s, weir_result_value(res, 3, i));
        u->options = dup(s, weir_result_value(res, 4, i));
        u->rows_written = -1;
        if (!u->id)
            u->id = "";
        if (!u->state)
            u->state = "RUNNING";
    }
    s->n_updates = n;
    weir_result_free(res);
    return weir__arena_failed(&s->arena) ? oom(r->err) : 0;
}

/* Per update, while its events are folded. */
typedef struct folding {
    flow_vec flows;
    quality_vec quality;
    error_vec errors;
} folding;

static ui_flow_run *flow_run(weir_arena *a, flow_vec *v, const char *flow,
                             const char *dataset)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i].flow, flow) == 0)
            return &v->items[i];
    ui_flow_run fr;
    memset(&fr, 0, sizeof fr);
    fr.flow = weir__arena_strdup(a, flow);
    fr.dataset = weir__arena_strdup(a, dataset ? dataset : flow);
    fr.state = "QUEUED";
    fr.rows = fr.duration_ms = fr.state_rows = -1;
    if (!fr.flow || WEIR_VEC_PUSH(v, fr))
        return NULL;
    return &v->items[v->len - 1];
}

static bool add_expectation(weir_arena *a, quality_vec *v, const weir_json *e)
{
    const char *dataset = weir__json_get_str(e, "dataset");
    const char *name = weir__json_get_str(e, "name");
    const char *action = weir__json_get_str(e, "action");
    if (!dataset || !name)
        return true;
    ui_expectation *x = NULL;
    for (size_t i = 0; i < v->len && !x; i++)
        if (!strcmp(v->items[i].dataset, dataset) && !strcmp(v->items[i].name, name))
            x = &v->items[i];
    if (!x) {
        ui_expectation ne = { weir__arena_strdup(a, dataset), weir__arena_strdup(a, name),
                              weir__arena_strdup(a, action ? action : "warn"), 0, 0 };
        if (WEIR_VEC_PUSH(v, ne))
            return false;
        x = &v->items[v->len - 1];
    }
    x->passed += json_i64(weir__json_get(e, "passed_records"));
    x->failed += json_i64(weir__json_get(e, "failed_records"));
    return true;
}

static bool is_end(const char *status)
{
    static const char *const ends[] = { "COMPLETED", "FAILED", "SKIPPED",
                                        "EXCLUDED", "IDLE", "STOPPED" };
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        if (strcmp(status, ends[i]) == 0)
            return true;
    return false;
}

static bool fold_progress(weir_arena *a, folding *f, const weir_json *fp,
                          const char *flow, const char *dataset, int64_t ts)
{
    const char *status = weir__json_get_str(fp, "status");
    if (!flow || !status)
        return true;
    ui_flow_run *fr = flow_run(a, &f->flows, flow, dataset);
    if (!fr)
        return false;
    if (!strcmp(status, "QUEUED") && !fr->queued_us)
        fr->queued_us = ts;
    else if (!strcmp(status, "PLANNING") && !fr->planning_us)
        fr->planning_us = ts;
    else if ((!strcmp(status, "STARTING") || !strcmp(status, "RUNNING")) &&
             !fr->starting_us)
        fr->starting_us = ts;
    if (is_end(status))
        fr->end_us = ts;
    if (!strcmp(status, "FAILED"))
        fr->failures++;
    fr->state = weir__arena_strdup(a, status);
    const weir_json *rows =
        weir__json_get(weir__json_get(fp, "metrics"), "num_output_rows");
    if (rows)
        fr->rows = (fr->rows < 0 ? 0 : fr->rows) + json_i64(rows);
    const weir_json *ms = weir__json_get(fp, "duration_ms");
    if (ms)
        fr->duration_ms = (fr->duration_ms < 0 ? 0 : fr->duration_ms) + json_i64(ms);
    fr->quarantined += json_i64(weir__json_get(fp, "quarantined_records"));
    const weir_json *ops = weir__json_get(fp, "state_operators");
    if (ops && ops->type == WEIR_JSON_ARRAY && ops->len) {
        fr->state_rows = json_i64(weir__json_get(ops->items[0], "numRowsTotal"));
        fr->late_rows += json_i64(weir__json_get(ops->items[0],
                                                 "numRowsDroppedByWatermark"));
        const char *wm = weir__json_get_str(weir__json_get(fp, "event_time"),
                                            "watermark");
        if (wm && !(fr->watermark = weir__arena_strdup(a, wm)))
            return false;
    }
    const weir_json *dq = weir__json_get(fp, "data_quality");
    fr->dropped += json_i64(weir__json_get(dq, "dropped_records"));
    const weir_json *list = weir__json_get(dq, "expectations");
    for (size_t i = 0; list && list->type == WEIR_JSON_ARRAY && i < list->len; i++)
        if (!add_expectation(a, &f->quality, list->items[i]))
            return false;
    return true;
}

/* An event as the log stores it, from a row of weir.event_log or a line of
 * the live progress file: details, error and origin parsed (NULL when
 * absent); everything borrowed. */
typedef struct event_row {
    int64_t ts;
    const char *level, *type, *message, *flow, *dataset;
    const weir_json *details, *error, *origin;
} event_row;

static bool fold_error(weir_arena *a, folding *f, const event_row *ev)
{
    ui_error e;
    const weir_json *j = ev->error, *origin = ev->origin;
    memset(&e, 0, sizeof e);
    e.ts_us = ev->ts;
    e.level = weir__arena_strdup(a, ev->level ? ev->level : "ERROR");
    e.flow = weir__arena_strdup(a, ev->flow);
    e.message = weir__arena_strdup(a, ev->message);
    if (j && j->type == WEIR_JSON_OBJECT) {
        e.cls = weir__arena_strdup(a, weir__json_get_str(j, "class"));
        e.text = weir__arena_strdup(a, weir__json_get_str(j, "message"));
        e.path = weir__arena_strdup(a, weir__json_get_str(j, "path"));
        e.line = (unsigned)json_i64(weir__json_get(j, "line"));
        e.column = (unsigned)json_i64(weir__json_get(j, "column"));
    }
    /* A failure at run time has no place in the SQL: point at the
     * definition of the flow instead. */
    if (!e.path && origin && origin->type == WEIR_JSON_OBJECT) {
        e.path = weir__arena_strdup(a, weir__json_get_str(origin, "path"));
        e.line = (unsigned)json_i64(weir__json_get(origin, "line"));
        e.column = 0;
        e.at_definition = e.path != NULL;
    }
    return WEIR_VEC_PUSH(&f->errors, e) == 0;
}

/* Fold one event into its update u; strings are copied into a. */
static bool fold_event(weir_arena *a, folding *f, ui_update *u,
                       const event_row *ev)
{
    const char *type = ev->type;
    bool ok = true;
    if (ev->details && type && !strcmp(type, "flow_progress"))
        ok = fold_progress(a, f, weir__json_get(ev->details, "flow_progress"),
                           ev->flow, ev->dataset, ev->ts);
    else if (ev->details && type && !strcmp(type, "update_summary"))
        u->rows_written = json_i64(weir__json_get(
            weir__json_get(ev->details, "update_summary"), "rows_written"));
    if (ok && ev->error && ev->error->type != WEIR_JSON_NULL)
        ok = fold_error(a, f, ev);
    return ok;
}

/* Parsed text, or NULL (absent or not JSON). */
static const weir_json *parse(weir_arena *scratch, const char *text)
{
    weir_json *j = NULL;
    if (!text || weir__json_parse(&j, scratch, text, strlen(text), NULL) != 0)
        return NULL;
    return j;
}

static void settle(ui_update *u, folding *f)
{
    u->flows = f->flows.items;
    u->n_flows = f->flows.len;
    u->quality = f->quality.items;
    u->n_quality = f->quality.len;
    u->errors = f->errors.items;
    u->n_errors = f->errors.len;
}

static int read_events(reader *r, size_t max_updates)
{
    char sql[600];
    weir_result *res;
    ui_snapshot *s = r->s;
    snprintf(sql, sizeof sql,
             "SELECT update_id, unix_micros(`timestamp`), level, event_type,"
             " message, flow_name, dataset_name, details, error, origin"
             " FROM weir.event_log WHERE update_id IN (SELECT update_id FROM"
             " weir.updates ORDER BY started_at DESC LIMIT %zu)"
             " ORDER BY sequence",
             max_updates);
    int rc = query(r, sql, &res);
    if (rc || !res)
        return rc;
    folding *fs = calloc(s->n_updates + 1, sizeof *fs);
    bool ok = fs != NULL;
    size_t n = weir_result_row_count(res);
    for (size_t i = 0; ok && i < n; i++) {
        const char *id = weir_result_value(res, 0, i);
        for (size_t k = 0; id && k < s->n_updates; k++)
            if (strcmp(s->updates[k].id, id) == 0) {
                weir_arena scratch;
                weir__arena_init(&scratch);
                event_row ev = {
                    to_i64(weir_result_value(res, 1, i)),
                    weir_result_value(res, 2, i),
                    weir_result_value(res, 3, i),
                    weir_result_value(res, 4, i),
                    weir_result_value(res, 5, i),
                    weir_result_value(res, 6, i),
                    parse(&scratch, weir_result_value(res, 7, i)),
                    parse(&scratch, weir_result_value(res, 8, i)),
                    parse(&scratch, weir_result_value(res, 9, i)),
                };
                ok = fold_event(&s->arena, &fs[k], &s->updates[k], &ev);
                weir__arena_free(&scratch);
                break;
            }
    }
    for (size_t k = 0; fs && k < s->n_updates; k++)
        settle(&s->updates[k], &fs[k]);
    free(fs);
    weir_result_free(res);
    return ok && !weir__arena_failed(&s->arena) ? 0 : oom(r->err);
}

/* --- The snapshot -------------------------------------------------------------- */

static bool storage_exists(const char *storage)
{
    struct stat st;
    char path[4096];
    if (!storage)
        return false;
    snprintf(path, sizeof path, "%s/weir.duckdb", storage);
    return stat(path, &st) == 0;
}

int ui_snapshot_build(ui_snapshot **out, weir_pipeline *p,
                      const weir_graph_info *graph, const char *graph_note,
                      size_t max_updates, weir_error *err)
{
    ui_snapshot *s = calloc(1, sizeof *s);
    int rc = 0;

    *out = NULL;
    if (!s)
        return oom(err);
    weir__arena_init(&s->arena);
    weir__arena_init(&s->live_arena);
    s->prefix = "";
    s->pipeline = dup(s, weir_pipeline_name(p));
    s->storage = dup(s, weir_pipeline_storage(p));
    const char *spec = weir_pipeline_spec_path(p);
    const char *slash = spec ? strrchr(spec, '/') : NULL;
    if (slash)
        s->spec_dir = weir__arena_strndup(&s->arena, spec, (size_t)(slash - spec));
    s->graph_note = dup(s, graph_note);
    if (graph)
        rc = copy_graph(s, graph, err);
    reader r = { s, p, err, false };
    if (!rc && storage_exists(s->storage)) {
        rc = read_updates(&r, max_updates ? max_updates : 20);
        if (!rc && !r.busy)
            rc = read_events(&r, max_updates ? max_updates : 20);
    }
    if (!rc && weir__arena_failed(&s->arena))
        rc = oom(err);
    if (rc) {
        ui_snapshot_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* --- The update holding the storage ----------------------------------------- */

#define MAX_PROGRESS_BYTES (256u << 20)

void ui_storage_path(char *out, size_t size, const char *storage,
                     const char *name)
{
    snprintf(out, size, "%s/%s", storage ? storage : ".", name);
}

/* The pid the storage's lock file names, or 0. */
static long lock_holder(const char *storage)
{
    char path[4096], text[32] = "";
    ui_storage_path(path, sizeof path, storage, "weir.lock");
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (!fgets(text, sizeof text, f))
        text[0] = 0;
    fclose(f);
    return strtol(text, NULL, 10);
}

/* The progress file's text up to its last complete line, or NULL. */
static char *read_progress(const char *storage, size_t *len)
{
    char path[4096];
    ui_storage_path(path, sizeof path, storage, WEIR_PROGRESS_FILE);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    weir_buf b = WEIR_BUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && !b.failed &&
           b.len < MAX_PROGRESS_BYTES)
        weir__buf_put(&b, chunk, n);
    fclose(f);
    size_t whole = b.failed ? 0 : b.len;
    while (whole && b.ptr[whole - 1] != '\n')
        whole--; /* a line still being written */
    if (!whole) {
        weir__buf_free(&b);
        return NULL;
    }
    *len = whole;
    return weir__buf_detach(&b);
}

static void drop_live(ui_snapshot *s)
{
    if (!s->live)
        return;
    ui_update *u = &s->updates[0];
    free(u->flows);
    free(u->quality);
    free(u->errors);
    memmove(s->updates, s->updates + 1, (s->n_updates - 1) * sizeof *u);
    s->n_updates--;
    weir__arena_free(&s->live_arena);
    s->live = false;
}

/* The header of the progress file, when it names the lock's holder and an
 * update not recorded yet. */
static bool trusted_header(const ui_snapshot *s, const weir_json *h)
{
    const char *id = weir__json_get_str(h, "update_id");
    long pid = (long)json_i64(weir__json_get(h, "pid"));
    if (!id || !*id || json_i64(weir__json_get(h, "weir_progress")) != 1 ||
        pid <= 0 || pid != lock_holder(s->storage))
        return false;
    return ui_snapshot_update(s, id) == NULL;
}

/* Fold the events of text (one JSON object a line, after the header) into
 * u, its strings in a. */
static bool fold_lines(weir_arena *a, folding *f, ui_update *u,
                       const char *text, const char *end)
{
    bool ok = true;
    while (ok && text < end) {
        const char *nl = memchr(text, '\n', (size_t)(end - text));
        weir_arena scratch;
        weir_json *j = NULL;
        weir__arena_init(&scratch);
        if (weir__json_parse(&j, &scratch, text, (size_t)(nl - text), NULL) == 0 &&
            j && j->type == WEIR_JSON_OBJECT) {
            event_row ev = {
                json_i64(weir__json_get(j, "timestamp_us")),
                weir__json_get_str(j, "level"),
                weir__json_get_str(j, "event_type"),
                weir__json_get_str(j, "message"),
                weir__json_get_str(j, "flow_name"),
                weir__json_get_str(j, "dataset_name"),
                weir__json_get(j, "details"),
                weir__json_get(j, "error"),
                weir__json_get(j, "origin"),
            };
            ok = fold_event(a, f, u, &ev);
        }
        weir__arena_free(&scratch);
        text = nl + 1;
    }
    return ok;
}

bool ui_snapshot_follow(ui_snapshot *s)
{
    bool had = s->live;
    drop_live(s);
    size_t len = 0;
    char *text = read_progress(s->storage, &len);
    if (!text)
        return had;
    const char *end = text + len, *nl = memchr(text, '\n', len);
    weir_arena *a = &s->live_arena;
    weir_arena scratch;
    weir_json *h = NULL;
    ui_update u;
    folding f;
    bool ok = false;
    memset(&u, 0, sizeof u);
    memset(&f, 0, sizeof f);
    weir__arena_init(a);
    weir__arena_init(&scratch);
    if (weir__json_parse(&h, &scratch, text, (size_t)(nl - text), NULL) == 0 &&
        h && trusted_header(s, h)) {
        u.id = weir__arena_strdup(a, weir__json_get_str(h, "update_id"));
        u.state = "RUNNING";
        u.start_us = json_i64(weir__json_get(h, "started_at_us"));
        u.rows_written = -1;
        ok = fold_lines(a, &f, &u, nl + 1, end);
        settle(&u, &f);
        /* Rows as they land, until the update's summary says. */
        int64_t rows = -1;
        for (size_t i = 0; i < u.n_flows; i++)
            if (u.flows[i].rows >= 0)
                rows = (rows < 0 ? 0 : rows) + u.flows[i].rows;
        if (u.rows_written < 0)
            u.rows_written = rows;
    }
    weir__arena_free(&scratch);
    free(text);
    ui_update *grown = NULL;
    if (ok && !weir__arena_failed(a))
        grown = realloc(s->updates, (s->n_updates + 2) * sizeof *grown);
    if (!grown) {
        free(u.flows);
        free(u.quality);
        free(u.errors);
        weir__arena_free(a);
        return had;
    }
    memmove(grown + 1, grown, s->n_updates * sizeof *grown);
    grown[0] = u;
    s->updates = grown;
    s->n_updates++;
    s->live = true;
    return true;
}

const char *ui_snapshot_busy_note(const ui_snapshot *s)
{
    if (s->busy && s->live)
        return "An update is running: this page follows its progress and "
               "shows its whole record when it ends.";
    return s->busy;
}

void ui_snapshot_free(ui_snapshot *s)
{
    if (!s)
        return;
    weir__arena_free(&s->live_arena);
    for (size_t i = 0; i < s->n_updates; i++) {
        free(s->updates[i].flows);
        free(s->updates[i].quality);
        free(s->updates[i].errors);
    }
    free(s->updates);
    weir__arena_free(&s->arena);
    free(s);
}

const ui_update *ui_snapshot_update(const ui_snapshot *s, const char *id)
{
    if (!id)
        return s->n_updates ? &s->updates[0] : NULL;
    for (size_t i = 0; i < s->n_updates; i++)
        if (strcmp(s->updates[i].id, id) == 0)
            return &s->updates[i];
    return NULL;
}

size_t ui_snapshot_dataset(const ui_snapshot *s, const char *name)
{
    for (size_t i = 0; name && i < s->n_datasets; i++)
        if (strcmp(s->datasets[i].name, name) == 0)
            return i;
    return SIZE_MAX;
}

const char *ui_short(const ui_snapshot *s, const char *name)
{
    size_t len = strlen(s->prefix);
    if (len && strncmp(name, s->prefix, len) == 0 && !strchr(name + len, '.'))
        return name + len;
    return name;
}

/* Higher ranks win when flows of one dataset disagree. */
static int state_rank(const char *state)
{
    static const char *const order[] = { "EXCLUDED", "IDLE",    "COMPLETED",
                                         "QUEUED",   "PLANNING", "STARTING",
                                         "RUNNING",  "SKIPPED", "STOPPED",
                                         "FAILED" };
    for (int i = 0; i < (int)(sizeof order / sizeof order[0]); i++)
        if (strcmp(state, order[i]) == 0)
            return i;
    return 0;
}

void ui_dataset_run_of(const ui_update *u, const char *dataset,
                       ui_dataset_run *out)
{
    out->state = NULL;
    out->rows = out->duration_ms = -1;
    for (size_t i = 0; u && i < u->n_flows; i++) {
        const ui_flow_run *f = &u->flows[i];
        if (strcmp(f->dataset, dataset) != 0)
            continue;
        if (!out->state || state_rank(f->state) > state_rank(out->state))
            out->state = f->state;
        if (f->rows >= 0)
            out->rows = (out->rows < 0 ? 0 : out->rows) + f->rows;
        if (f->duration_ms >= 0)
            out->duration_ms =
                (out->duration_ms < 0 ? 0 : out->duration_ms) + f->duration_ms;
    }
}
