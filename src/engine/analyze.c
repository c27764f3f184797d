/*
 * Schema resolution of flows and datasets (see analyze.h).
 */
#include "analyze.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/cdc.h"
#include "engine/resolve.h"
#include "store/watch.h"
#include "sinks/sink.h"
#include "util/buf.h"
#include "util/str.h"

typedef struct analysis {
    weir_graph *g;
    weir_storage *st;
    weir_resolve_ctx rctx;
    weir__diags *diags;
    int rc;
    weir_buf direct, downstream; /* names for the summary */
    weir_failures found; /* flows failed on a source that could not be
                            reached (WEIR_EIO), and on anything else */
} analysis;

/* A finding: e names a server that did not answer (unreachable) or what
 * makes the graph invalid. */
static void add_finding(analysis *an, weir_error *e, bool unreachable)
{
    if (weir__diags_add(an->diags, e))
        an->rc = WEIR_ENOMEM;
    else if (!an->rc)
        an->rc = WEIR_EGRAPH;
    weir__failures_add(&an->found, unreachable);
}

static void add_diag(analysis *an, weir_error *e)
{
    add_finding(an, e, false);
}

static void note_name(weir_buf *b, const char *name)
{
    if (b->len)
        weir__buf_puts(b, ", ");
    weir__buf_puts(b, name);
}

static void fail_flow(analysis *an, weir_gflow *f, weir_error *e)
{
    f->failed = true;
    if (strcmp(e->error_class, WEIR_UPSTREAM_FAILURE) == 0) {
        note_name(&an->downstream, f->display);
        return;
    }
    if (!e->path[0])
        weir__origin_error_at(e, &f->origin);
    if (e->code == WEIR_EENGINE || !e->error_class[0])
        weir__error_prefix(e, "Failed to resolve flow '%s': ", f->display);
    bool io = e->code == WEIR_EIO;
    e->code = WEIR_EGRAPH;
    note_name(&an->direct, f->display);
    add_finding(an, e, io);
}

/* DuckDB cannot create columns of type NULL; Spark's void becomes INTEGER
 * in tables as DuckDB's own CREATE TABLE AS does. */
static const char *storable(const char *duck_type)
{
    return strcmp(duck_type, "\"NULL\"") == 0 ? "INTEGER" : duck_type;
}

static int to_schema(weir_schema *out, weir_arena *a,
                     const weir_db_column *cols, size_t n)
{
    out->cols = weir__arena_array(a, n + 1, sizeof(*out->cols));
    if (!out->cols)
        return WEIR_ENOMEM;
    out->n = n;
    for (size_t i = 0; i < n; i++) {
        weir_column *c = &out->cols[i];
        c->name = weir__arena_strdup(a, cols[i].name);
        c->duck_type = weir__arena_strdup(a, storable(cols[i].type));
        weir_buf sp = WEIR_BUF_INIT;
        weir__sql_duckdb_type_to_spark(&sp, cols[i].type);
        c->spark_type = weir__arena_strdup(a, weir__buf_cstr(&sp));
        weir__buf_free(&sp);
        c->nullable = true;
    }
    return weir__arena_failed(a) ? WEIR_ENOMEM : 0;
}

/* One flow's resolution: its DuckDB SQL (translated on the control
 * thread) and the output columns DuckDB's binder gives it. */
typedef struct job {
    weir_gflow *f;
    char *sql;
    int rc;
    weir_error e;
    weir_db_column *cols;
    size_t n;
} job;

typedef struct job_queue {
    weir_storage *st;
    job *jobs;
    size_t n_jobs, next;
    const weir_watch *cancel;
    pthread_mutex_t mu;
} job_queue;

/* Describe queued jobs on connection c until none is left. */
static void describe_jobs(job_queue *q, weir_conn *c, weir_arena *arena)
{
    for (;;) {
        pthread_mutex_lock(&q->mu);
        size_t i = q->next++;
        pthread_mutex_unlock(&q->mu);
        if (i >= q->n_jobs)
            return;
        job *j = &q->jobs[i];
        if (!j->rc && weir__watch_stopped(q->cancel))
            j->rc = WEIR_ERR(&j->e, WEIR_ECANCELED, NULL, "cancelled");
        if (!j->rc)
            j->rc = weir__conn_describe(c, j->sql, &j->cols, &j->n, arena, &j->e);
    }
}

typedef struct helper {
    job_queue *q;
    weir_conn *conn;
    weir_arena arena;
    pthread_t thread;
    bool started;
} helper;

static void *helper_main(void *arg)
{
    helper *h = arg;
    describe_jobs(h->q, h->conn, &h->arena);
    return NULL;
}

/* Binding is the costly part of resolution: flows of one level of the
 * graph are independent, so their queries are described in parallel on
 * one connection per core. */
static void describe_level(analysis *an, job *jobs, size_t n,
                           helper *helpers, size_t n_helpers)
{
    job_queue q = { an->st, jobs, n, 0, an->rctx.cancel,
                    PTHREAD_MUTEX_INITIALIZER };
    size_t use = n >= 4 ? n_helpers : 0;
    for (size_t i = 0; i < use; i++) {
        helpers[i].q = &q;
        helpers[i].started =
            helpers[i].conn &&
            pthread_create(&helpers[i].thread, NULL, helper_main, &helpers[i]) == 0;
    }
    describe_jobs(&q, an->st->conn, &an->g->arena);
    for (size_t i = 0; i < use; i++)
        if (helpers[i].started)
            pthread_join(helpers[i].thread, NULL);
    pthread_mutex_destroy(&q.mu);
}

/* A dataset cannot have two columns of one name (case-insensitive, as
 * Spark's default spark.sql.caseSensitive=false): Spark refuses the query
 * at analysis (a join's `SELECT *` over two `id` columns, say), where
 * DuckDB would only fail the write. Temporary views are not written. */
static bool duplicate_column(analysis *an, job *j)
{
    const weir_gdataset *d = &an->g->datasets[j->f->target];
    if (d->kind == WEIR_TEMPORARY_VIEW)
        return false;
    for (size_t i = 1; i < j->n; i++)
        for (size_t k = 0; k < i; k++)
            if (weir__str_ieq(j->cols[i].name, j->cols[k].name)) {
                weir_error e;
                WEIR_ERR(&e, WEIR_EGRAPH, "COLUMN_ALREADY_EXISTS",
                         "The column `%s` already exists in the result of flow '%s'. "
                         "Choose another name or rename the existing column "
                         "(select the columns by name, or alias one of them).",
                         j->cols[i].name, j->f->display);
                fail_flow(an, j->f, &e);
                return true;
            }
    return false;
}

static int finish_job(analysis *an, job *j)
{
    if (j->rc == WEIR_ENOMEM || j->rc == WEIR_ECANCELED)
        return j->rc;
    if (j->rc) {
        fail_flow(an, j->f, &j->e);
        return 0;
    }
    if (duplicate_column(an, j))
        return 0;
    int rc = to_schema(&j->f->schema, &an->g->arena, j->cols, j->n);
    if (rc || !j->f->cdc)
        return rc;
    /* An AUTO CDC flow's query is its source: the target gets the chosen
     * columns (and SCD 2's validity columns). */
    weir_schema src = j->f->schema;
    weir_error e;
    weir__error_clear(&e);
    rc = weir__cdc_target_schema(&j->f->schema, &an->g->arena, an->rctx.probe,
                                 j->f, &src, j->sql, &e);
    if (rc == WEIR_ENOMEM)
        return rc;
    if (rc)
        fail_flow(an, j->f, &e);
    return 0;
}

int weir__check_time_zone(weir_conn *c, const char *id, weir_error *err)
{
    char duck[128];
    int rc = weir__sql_zone_duck(duck, sizeof(duck), id);
    if (!rc && duck[0] && duck[0] != '+' && duck[0] != '-') {
        weir_buf q = WEIR_BUF_INIT;
        weir__buf_puts(&q, "SELECT timezone(");
        weir__buf_put_sql_string(&q, duck);
        weir__buf_puts(&q, ", TIMESTAMPTZ '2000-01-01 00:00:00+00')");
        weir_error ignore;
        rc = q.failed ? WEIR_ENOMEM : weir__conn_exec(c, weir__buf_cstr(&q), NULL, &ignore);
        weir__buf_free(&q);
        if (rc == WEIR_ENOMEM)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    if (rc)
        return WEIR_ERR(err, WEIR_ESQL, "INVALID_CONF_VALUE.TIME_ZONE",
                        "The value '%s' in the config "
                        "\"spark.sql.session.timeZone\" is invalid. Cannot "
                        "resolve the given timezone.",
                        id);
    return 0;
}

static int translate_job(analysis *an, job *j)
{
    weir_buf sql = WEIR_BUF_INIT;
    weir__error_clear(&j->e);
    const char *zone = weir__flow_time_zone(j->f);
    if (zone && an->st && weir__check_time_zone(an->st->conn, zone, &j->e)) {
        j->rc = j->e.code;
        return j->rc == WEIR_ENOMEM ? WEIR_ENOMEM : 0;
    }
    j->rc = weir__resolve_flow_sql(&sql, &an->rctx, j->f, &j->e);
    if (!j->rc && sql.failed)
        j->rc = WEIR_ERR(&j->e, WEIR_ENOMEM, NULL, "out of memory");
    j->sql = weir__buf_detach(&sql);
    if (!j->rc && !j->sql)
        j->rc = WEIR_ERR(&j->e, WEIR_ENOMEM, NULL, "out of memory");
    /* what the cancel made fail is no failure of the flow */
    if (weir__watch_stopped(an->rctx.cancel))
        j->rc = WEIR_ECANCELED;
    return j->rc == WEIR_ENOMEM || j->rc == WEIR_ECANCELED ? j->rc : 0;
}

static bool same_name(const char *a, const char *b)
{
    return weir__str_ieq(a, b);
}

static const weir_column *find_col(const weir_schema *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (same_name(s->cols[i].name, name))
            return &s->cols[i];
    return NULL;
}

static void schema_text(weir_buf *b, const weir_schema *s)
{
    for (size_t i = 0; i < s->n; i++) {
        weir__buf_printf(b, "%s%s %s", i ? ", " : "", s->cols[i].name,
                         s->cols[i].spark_type);
        if (!s->cols[i].nullable)
            weir__buf_puts(b, " NOT NULL");
    }
}

/* Types an inferred column may have when the user declared `declared`:
 * equal, or a widening DuckDB performs losslessly on insert. */
static int int_rank(const char *t)
{
    static const char *const ints[] = { "TINYINT", "SMALLINT", "INTEGER",
                                        "BIGINT", "HUGEINT" };
    for (int i = 0; i < 5; i++)
        if (strcmp(t, ints[i]) == 0)
            return i + 1;
    return 0;
}

static bool compatible(const char *declared, const char *inferred)
{
    if (weir__str_ieq(declared, inferred) || strcmp(inferred, "\"NULL\"") == 0)
        return true;
    int d = int_rank(declared), i = int_rank(inferred);
    if (d && i)
        return i <= d;
    if (i && (weir__str_istarts(declared, "DECIMAL") ||
              strcmp(declared, "DOUBLE") == 0))
        return true;
    if (strcmp(inferred, "FLOAT") == 0 && strcmp(declared, "DOUBLE") == 0)
        return true;
    return false;
}

static int user_schema(weir_schema *out, weir_arena *a,
                       const weir_def_dataset *def)
{
    out->cols = weir__arena_array(a, def->n_columns + 1, sizeof(*out->cols));
    if (!out->cols)
        return WEIR_ENOMEM;
    out->n = def->n_columns;
    for (size_t i = 0; i < def->n_columns; i++) {
        const weir_sql_column *c = &def->columns[i];
        weir_column *o = &out->cols[i];
        weir_buf t = WEIR_BUF_INIT;
        weir__sql_type_to_duckdb(&t, c->type);
        o->name = c->name;
        o->duck_type = weir__arena_strdup(a, weir__buf_cstr(&t));
        weir__buf_clear(&t);
        weir__sql_type_to_spark(&t, c->type);
        o->spark_type = weir__arena_strdup(a, weir__buf_cstr(&t));
        weir__buf_free(&t);
        o->nullable = !c->not_null;
        o->comment = c->comment;
    }
    return weir__arena_failed(a) ? WEIR_ENOMEM : 0;
}

static void report_dataset(analysis *an, weir_gdataset *d, const char *cls,
                           const weir_buf *msg)
{
    weir_error e;
    WEIR_ERR(&e, WEIR_EGRAPH, cls, "%s", weir__buf_cstr(msg));
    weir__origin_error_at(&e, &d->def->origin);
    add_diag(an, &e);
}

/* Merge the schemas of a table's flows (or check them against the declared
 * schema) into d->schema. */
static int dataset_schema(analysis *an, weir_gdataset *d)
{
    weir_arena *a = &an->g->arena;
    for (size_t k = 0; k < d->n_flows; k++)
        if (an->g->flows[d->flows[k]].failed)
            return 0; /* unresolved: readers become downstream failures */
    weir_schema merged = { NULL, 0 };
    size_t total = 0;
    for (size_t k = 0; k < d->n_flows; k++)
        total += an->g->flows[d->flows[k]].schema.n;
    merged.cols = weir__arena_array(a, total + 1, sizeof(*merged.cols));
    if (!merged.cols)
        return WEIR_ENOMEM;
    for (size_t k = 0; k < d->n_flows; k++) {
        const weir_schema *fs = &an->g->flows[d->flows[k]].schema;
        for (size_t i = 0; i < fs->n; i++) {
            const weir_column *have = find_col(&merged, fs->cols[i].name);
            if (!have) {
                merged.cols[merged.n++] = fs->cols[i];
            } else if (!weir__str_ieq(have->duck_type, fs->cols[i].duck_type)) {
                weir_buf m = WEIR_BUF_INIT;
                weir__buf_printf(&m,
                                 "Failed to infer the schema for table %s "
                                 "from its upstream flows. Please modify the "
                                 "flows that write to this table to make "
                                 "their schemas compatible. Inferred schema "
                                 "so far: ",
                                 d->display);
                schema_text(&m, &merged);
                weir__buf_puts(&m, ". Incompatible schema: ");
                schema_text(&m, fs);
                weir__buf_putc(&m, '.');
                report_dataset(an, d, "UNABLE_TO_INFER_PIPELINE_TABLE_SCHEMA",
                               &m);
                weir__buf_free(&m);
                return 0;
            }
        }
    }
    if (!d->def->n_columns) {
        d->schema = merged;
        d->resolved = true;
        return 0;
    }
    weir_schema declared;
    int rc = user_schema(&declared, a, d->def);
    if (rc)
        return rc;
    bool ok = true;
    for (size_t i = 0; i < merged.n && ok; i++) {
        const weir_column *c = find_col(&declared, merged.cols[i].name);
        ok = c && compatible(c->duck_type, merged.cols[i].duck_type);
    }
    if (!ok) {
        const char *hint =
            d->kind == WEIR_STREAMING_TABLE
                ? " Streaming tables are stateful and remember data that has "
                  "already been processed. If you want to recompute the "
                  "table from scratch, please full refresh the table."
                : "";
        weir_buf m = WEIR_BUF_INIT;
        weir__buf_printf(&m,
                         "Table '%s' has a user-specified schema that is "
                         "incompatible with the schema inferred from its "
                         "query.%s Declared schema: ",
                         d->display, hint);
        schema_text(&m, &declared);
        weir__buf_puts(&m, ". Inferred schema: ");
        schema_text(&m, &merged);
        weir__buf_putc(&m, '.');
        report_dataset(an, d, "USER_SPECIFIED_AND_INFERRED_SCHEMA_NOT_COMPATIBLE",
                       &m);
        weir__buf_free(&m);
        return 0;
    }
    d->schema = declared;
    d->resolved = true;
    return 0;
}

/* Expectation conditions must resolve against the flow's output and hold
 * no subquery. */
static void check_expectations(analysis *an, weir_gdataset *d)
{
    for (size_t i = 0; i < d->n_expectations; i++) {
        const weir_def_expectation *x = &d->expectations[i];
        weir_error e;
        if (weir__sql_expr_has_subquery(x->condition)) {
            WEIR_ERR(&e, WEIR_EGRAPH, "INVALID_EXPECTATION",
                     "Expectation '%s' of %s contains a subquery; "
                     "expectations check one record at a time",
                     x->name, d->display);
            weir__origin_error_at(&e, &x->origin);
            add_diag(an, &e);
            continue;
        }
        weir_buf sql = WEIR_BUF_INIT;
        weir__buf_puts(&sql, "SELECT (");
        int rc = weir__sql_translate_expr(&sql, x->condition,
                                          weir__dataset_time_zone(an->g, d), &e);
        weir__buf_puts(&sql, ") FROM ");
        weir__resolve_table_name(&sql, &an->rctx, d);
        weir_db_column *cols;
        size_t n;
        if (!rc)
            rc = weir__conn_describe(an->st->conn, weir__buf_cstr(&sql), &cols,
                                     &n, &an->g->arena, &e);
        weir__buf_free(&sql);
        if (rc) {
            weir__error_prefix(&e, "Expectation '%s' of %s: ", x->name,
                               d->display);
            e.code = WEIR_EGRAPH;
            weir__origin_error_at(&e, &x->origin);
            add_diag(an, &e);
        }
    }
}

/* PARTITIONED BY and CLUSTER BY name columns of the table. */
static void check_layout_columns(analysis *an, weir_gdataset *d,
                                 const char *what, const char **cols, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (find_col(&d->schema, cols[i]))
            continue;
        weir_buf m = WEIR_BUF_INIT;
        weir__buf_printf(&m,
                         "The %s column `%s` is not defined in table %s, "
                         "defined table columns are: ",
                         what, cols[i], d->display);
        for (size_t k = 0; k < d->schema.n; k++)
            weir__buf_printf(&m, "%s`%s`", k ? ", " : "", d->schema.cols[k].name);
        weir__buf_putc(&m, '.');
        report_dataset(an, d, "COLUMN_NOT_DEFINED_IN_TABLE", &m);
        weir__buf_free(&m);
    }
}

static int summarize(analysis *an)
{
    if (!an->direct.len && !an->downstream.len)
        return 0;
    weir_error e;
    WEIR_ERR(&e, WEIR_EGRAPH, "",
             "Failed to resolve flows in the pipeline. A flow can fail to "
             "resolve because the flow itself contains errors or because it "
             "reads from an upstream flow which failed to resolve. Flows with "
             "errors: %s. Flows that failed due to upstream errors: %s.",
             an->direct.len ? weir__buf_cstr(&an->direct) : "(none)",
             an->downstream.len ? weir__buf_cstr(&an->downstream) : "(none)");
    add_diag(an, &e);
    return 0;
}

/* Depth of each dataset: 0 without internal inputs, else one more than
 * its deepest input. */
static int *levels(const weir_graph *g, int *max_out)
{
    int *lv = calloc(g->n_datasets + 1, sizeof(int));
    if (!lv)
        return NULL;
    int max = 0;
    for (size_t k = 0; k < g->n_datasets; k++) {
        int di = g->dataset_order[k];
        const weir_gdataset *d = &g->datasets[di];
        for (size_t i = 0; i < d->n_flows; i++) {
            const weir_gflow *f = &g->flows[d->flows[i]];
            for (size_t j = 0; j < f->n_inputs; j++)
                if (f->inputs[j].dataset >= 0 &&
                    lv[f->inputs[j].dataset] + 1 > lv[di])
                    lv[di] = lv[f->inputs[j].dataset] + 1;
        }
        if (lv[di] > max)
            max = lv[di];
    }
    *max_out = max;
    return lv;
}

/* A sink's format must exist and accept its options; with its schema
 * resolved, the options must fit its columns too. False after an error. */
static bool check_sink(analysis *an, const weir_gdataset *d, bool columns)
{
    weir_error e;
    const weir_sink_format *fmt = weir__sink_format(d->def->format);
    if (!fmt) {
        WEIR_ERR(&e, WEIR_EGRAPH, "UNSUPPORTED_SINK_FORMAT",
                 "Sink %s uses format '%s', which weir does not support",
                 d->display, d->def->format ? d->def->format : "");
    } else if (!columns &&
               fmt->validate(d->def->options, d->def->n_options, &e)) {
        e.code = WEIR_EGRAPH;
        weir__error_prefix(&e, "Sink %s: ", d->display);
    } else if (!columns) {
        return true;
    } else {
        int rc = fmt->check_columns
                     ? fmt->check_columns(d->def->options, d->def->n_options,
                                          d->schema.cols, d->schema.n, &e)
                     : 0;
        if (!rc)
            return true;
        e.code = WEIR_EGRAPH;
        weir__error_prefix(&e, "Sink %s: ", d->display);
    }
    weir__origin_error_at(&e, &d->def->origin);
    add_diag(an, &e);
    return false;
}

static int dataset_done(analysis *an, weir_gdataset *d)
{
    weir_graph *g = an->g;
    int rc = 0;
    bool sink_ok = d->kind == WEIR_SINK && check_sink(an, d, false);
    if (d->kind == WEIR_TEMPORARY_VIEW || d->kind == WEIR_PERSISTED_VIEW) {
        if (d->n_flows && !g->flows[d->flows[0]].failed) {
            d->schema = g->flows[d->flows[0]].schema;
            d->resolved = true;
        }
        return 0;
    }
    if (!d->n_flows && d->def->n_columns) {
        rc = user_schema(&d->schema, &g->arena, d->def);
        d->resolved = !rc;
    } else {
        rc = dataset_schema(an, d);
    }
    if (!rc && d->resolved && sink_ok)
        check_sink(an, d, true);
    if (!rc && d->resolved && d->kind != WEIR_SINK) {
        check_expectations(an, d);
        check_layout_columns(an, d, "partition", d->def->partition_cols,
                             d->def->n_partition_cols);
        check_layout_columns(an, d, "clustering", d->def->cluster_cols,
                             d->def->n_cluster_cols);
    }
    return rc;
}

static int analyze_levels(analysis *an, helper *helpers, size_t n_helpers)
{
    weir_graph *g = an->g;
    int max = 0;
    int *lv = levels(g, &max);
    job *jobs = calloc(g->n_flows + 1, sizeof(*jobs));
    int rc = (!lv || !jobs) ? WEIR_ENOMEM : 0;
    for (int level = 0; !rc && level <= max; level++) {
        size_t n = 0;
        for (size_t k = 0; !rc && k < g->n_datasets; k++) {
            const weir_gdataset *d = &g->datasets[g->dataset_order[k]];
            if (lv[g->dataset_order[k]] != level)
                continue;
            for (size_t i = 0; !rc && i < d->n_flows; i++) {
                memset(&jobs[n], 0, sizeof(jobs[n]));
                jobs[n].f = &g->flows[d->flows[i]];
                rc = translate_job(an, &jobs[n++]);
            }
        }
        if (!rc)
            describe_level(an, jobs, n, helpers, n_helpers);
        for (size_t i = 0; i < n; i++) {
            if (!rc)
                rc = finish_job(an, &jobs[i]);
            free(jobs[i].sql);
        }
        for (size_t k = 0; !rc && k < g->n_datasets; k++)
            if (lv[g->dataset_order[k]] == level)
                rc = dataset_done(an, &g->datasets[g->dataset_order[k]]);
    }
    free(jobs);
    free(lv);
    return rc;
}

/* Resolution asks DuckDB for types only, which binding fixes; its
 * optimizer (a fifth of a dry run's instructions) is off meanwhile. */
static int optimizer(weir_conn *c, bool on)
{
    weir_error ignore;
    return weir__conn_exec(c, on ? "PRAGMA enable_optimizer"
                                 : "PRAGMA disable_optimizer",
                           NULL, &ignore);
}

int weir__analyze(weir_graph *g, weir_storage *st, const char *root_dir,
                  bool input_tables, struct weir_infer_cache *infer,
                  const struct weir_watch *cancel, weir__diags *diags,
                  weir_error *err)
{
    analysis an;
    memset(&an, 0, sizeof(an));
    an.g = g;
    an.st = st;
    an.diags = diags;
    an.rctx.mode = WEIR_RESOLVE_ANALYZE;
    an.rctx.g = g;
    an.rctx.st = st;
    an.rctx.root_dir = root_dir;
    an.rctx.infer = infer;
    an.rctx.input_tables = input_tables;
    an.rctx.probe = st ? st->conn : NULL;
    an.rctx.cancel = cancel;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n_helpers = cpus > 1 ? (size_t)(cpus > 8 ? 7 : cpus - 1) : 0;
    helper helpers[8];
    memset(helpers, 0, sizeof(helpers));
    for (size_t i = 0; i < n_helpers; i++) {
        weir__arena_init(&helpers[i].arena);
        weir_error ignore;
        if (weir__db_connect(&helpers[i].conn, st->db, &ignore) ||
            optimizer(helpers[i].conn, false)) {
            weir__conn_close(helpers[i].conn);
            helpers[i].conn = NULL;
        }
    }
    bool unoptimized = st && !optimizer(st->conn, false);
    int rc = analyze_levels(&an, helpers, n_helpers);
    if (unoptimized)
        optimizer(st->conn, true);
    for (size_t i = 0; i < n_helpers; i++) {
        weir__conn_close(helpers[i].conn);
        weir__arena_free(&helpers[i].arena);
    }
    /* Only sources that could not be reached (a database server down):
     * the update failed, the graph is not invalid (the summary is no
     * finding of its own). */
    int code = an.rc ? weir__failures_code(&an.found) : 0;
    if (!rc)
        summarize(&an);
    weir__buf_free(&an.direct);
    weir__buf_free(&an.downstream);
    if (rc == WEIR_ECANCELED)
        return WEIR_ERR(err, rc, NULL, "cancelled while the graph was resolved");
    if (rc)
        return WEIR_ERR(err, rc, NULL, "out of memory");
    if (an.rc == WEIR_ENOMEM)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (code == WEIR_EIO)
        return WEIR_ERR(err, WEIR_EIO, NULL, "a source of the pipeline could not be read");
    if (an.rc)
        return WEIR_ERR(err, WEIR_EGRAPH, NULL, "the dataflow graph is invalid");
    return 0;
}

void weir__failures_add(weir_failures *f, bool unreachable)
{
    if (unreachable)
        f->unreachable++;
    else
        f->invalid++;
}

int weir__failures_code(const weir_failures *f)
{
    if (f->invalid)
        return WEIR_EGRAPH;
    return f->unreachable ? WEIR_EIO : 0;
}
