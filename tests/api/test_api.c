/*
 * Contract tests of the public C API (include/weir.h), linked against the
 * shared library like any user program: argument checking and NULL
 * handling, options versions, identifiers and read references, where SQL
 * errors point, definitions with schema, properties, partitions and
 * expectations, run options, the rules tying results and Arrow streams to
 * runs, and Arrow export running a statement exactly once. Each test works
 * in its own scratch folder.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include <weir.h>

/* A scratch folder per test, removed at the end. */
typedef struct scratch {
    char dir[64];
    char storage[128];
} scratch;

static void scratch_init(scratch *s)
{
    snprintf(s->dir, sizeof(s->dir), "/tmp/weir-test-api-XXXXXX");
    if (!mkdtemp(s->dir))
        abort();
    snprintf(s->storage, sizeof(s->storage), "%s/storage", s->dir);
}

static void scratch_free(scratch *s)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", s->dir);
}

static weir_pipeline *pipeline_at(weir_session *s, const scratch *sc)
{
    weir_pipeline_options o = WEIR_PIPELINE_OPTIONS_INIT;
    o.storage = sc ? sc->storage : NULL;
    o.root_dir = sc ? sc->dir : NULL;
    weir_pipeline *p = NULL;
    weir_error err;
    if (weir_pipeline_create(&p, s, &o, &err) != 0) {
        fprintf(stderr, "weir_pipeline_create: %s\n", err.message);
        abort();
    }
    return p;
}

/* The single value of a one-row, one-column query, copied into buf. */
static const char *scalar(weir_pipeline *p, const char *sql, char *buf,
                          size_t size)
{
    weir_result *r = NULL;
    weir_error err;
    snprintf(buf, size, "<error>");
    if (weir_pipeline_query(p, sql, &r, &err) != 0) {
        fprintf(stderr, "  query %s: %s\n", sql, err.message);
        return buf;
    }
    const char *v = weir_result_value(r, 0, 0);
    snprintf(buf, size, "%s", v ? v : "NULL");
    weir_result_free(r);
    return buf;
}

TEST(test_version)
{
    CHECK_STR(weir_version(), WEIR_VERSION);
    CHECK(WEIR_VERSION_NUMBER == WEIR_VERSION_MAJOR * 10000 +
                                     WEIR_VERSION_MINOR * 100 +
                                     WEIR_VERSION_PATCH);
    CHECK(weir_duckdb_version()[0] == 'v');
    CHECK_STR(weir_strerror(WEIR_OK), "success");
    CHECK_STR(weir_strerror(WEIR_EGRAPH), "invalid dataflow graph");
    CHECK_STR(weir_strerror(12345), "error");
    for (int code = WEIR_ECANCELED; code <= WEIR_OK; code++)
        CHECK(weir_strerror(code) != NULL && weir_strerror(code)[0]);
}

TEST(test_null_and_versions)
{
    weir_error err;
    CHECK_INT(weir_session_open(NULL, NULL, &err), WEIR_EINVAL);
    CHECK_INT(err.code, WEIR_EINVAL);
    weir_session_options so = WEIR_SESSION_OPTIONS_INIT;
    so.version = 99;
    weir_session *s = (weir_session *)&err; /* must be reset to NULL */
    CHECK_INT(weir_session_open(&s, &so, &err), WEIR_EINVAL);
    CHECK(s == NULL);
    CHECK_CONTAINS(err.message, "version");
    CHECK_INT(weir_session_open(&s, NULL, NULL), 0);

    weir_pipeline *p = NULL;
    CHECK_INT(weir_pipeline_create(&p, NULL, NULL, &err), WEIR_EINVAL);
    weir_pipeline_options po = WEIR_PIPELINE_OPTIONS_INIT;
    po.version = 0;
    CHECK_INT(weir_pipeline_create(&p, s, &po, &err), WEIR_EINVAL);
    CHECK(p == NULL);
    po = (weir_pipeline_options)WEIR_PIPELINE_OPTIONS_INIT;
    po.storage = "s3://bucket/x";
    CHECK_INT(weir_pipeline_create(&p, s, &po, &err), WEIR_EINVAL);
    CHECK_STR(err.error_class, "PIPELINE_STORAGE_ROOT_INVALID");
    po = (weir_pipeline_options)WEIR_PIPELINE_OPTIONS_INIT;
    po.catalog = "weir";
    CHECK_INT(weir_pipeline_create(&p, s, &po, &err), WEIR_EINVAL);

    p = pipeline_at(s, NULL);
    CHECK_STR(weir_pipeline_name(p), "pipeline");
    CHECK(weir_pipeline_storage(p) == NULL);
    CHECK(weir_pipeline_spec_path(p) == NULL);
    CHECK(weir_pipeline_name(NULL) == NULL);

    CHECK_INT(weir_pipeline_define_dataset(p, WEIR_MATERIALIZED_VIEW, NULL,
                                           NULL, &err),
              WEIR_EINVAL);
    weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
    d.name = "t";
    d.query = "SELECT 1 AS x";
    CHECK_INT(weir_pipeline_define_dataset(p, (weir_dataset_kind)9, &d, NULL,
                                           &err),
              WEIR_EINVAL);
    d.version = WEIR_DATASET_OPTIONS_VERSION + 1;
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err),
              WEIR_EINVAL);
    d.version = WEIR_DATASET_OPTIONS_VERSION;
    d.n_properties = 1; /* without the array */
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err),
              WEIR_EINVAL);
    d.n_properties = 0;
    weir_expectation bad_action = { "e", "x > 0", (weir_expectation_action)7 };
    d.expectations = &bad_action;
    d.n_expectations = 1;
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err),
              WEIR_EINVAL);

    weir_flow_options f = WEIR_FLOW_OPTIONS_INIT;
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), WEIR_EINVAL);
    f.name = "f";
    f.target = "t";
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), WEIR_EINVAL); /* no query */
    CHECK_INT(weir_pipeline_define_sql(p, NULL, "x.sql", &err), WEIR_EINVAL);

    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    ro.version = WEIR_RUN_OPTIONS_VERSION + 1;
    CHECK_INT(weir_pipeline_start_run(p, &ro, NULL, &err), WEIR_EINVAL);
    CHECK_INT(weir_pipeline_start_run(NULL, NULL, NULL, &err), WEIR_EINVAL);

    weir_result *r = (weir_result *)&err;
    CHECK_INT(weir_pipeline_query(p, "SELECT 1", &r, &err), WEIR_EINVAL);
    CHECK(r == NULL); /* no storage to query */
    struct ArrowArrayStream stream;
    CHECK_INT(weir_pipeline_query_arrow(p, "SELECT 1", &stream, NULL),
              WEIR_EINVAL);
    CHECK(stream.release == NULL);

    weir_graph_info g;
    CHECK_INT(weir_pipeline_describe(p, &g, &err), WEIR_EINVAL);
    CHECK_INT(weir_pipeline_diagnostics(NULL, NULL), 0);

    /* Destructors take NULL; accessors of NULL results are empty. */
    weir_result_free(NULL);
    weir_pipeline_drop(NULL);
    weir_session_close(NULL);
    CHECK_INT(weir_result_row_count(NULL), 0);
    CHECK(weir_result_value(NULL, 0, 0) == NULL);
    weir_pipeline_drop(p);
    weir_session_close(s);
}

TEST(test_names_and_references)
{
    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline_options po = WEIR_PIPELINE_OPTIONS_INIT;
    po.catalog = "cat";
    po.database = "db";
    weir_pipeline *p;
    CHECK_INT(weir_pipeline_create(&p, s, &po, &err), 0);

    const char *ref;
    CHECK_INT(weir_pipeline_read(p, "events", false, &ref, &err), 0);
    CHECK_STR(ref, "`cat`.`db`.`events`");
    CHECK_INT(weir_pipeline_read(p, "other.events", true, &ref, &err), 0);
    CHECK_STR(ref, "STREAM `cat`.`other`.`events`");
    CHECK_INT(weir_pipeline_read(p, "c.d.t", false, &ref, &err), 0);
    CHECK_STR(ref, "`c`.`d`.`t`");
    CHECK_INT(weir_pipeline_read(p, "`odd.name`", false, &ref, &err), 0);
    CHECK_STR(ref, "`cat`.`db`.`odd.name`");
    CHECK_INT(weir_pipeline_read(p, "`tick``s`", false, &ref, &err), 0);
    CHECK_STR(ref, "`cat`.`db`.`tick``s`");
    const char *bad[] = { "", "a.b.c.d", "t WHERE 1 = 1", "`open", "t;",
                          "range(3)", "a b" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ref = "x";
        CHECK_INT(weir_pipeline_read(p, bad[i], false, &ref, &err), WEIR_EINVAL);
        CHECK(ref == NULL);
    }
    CHECK_INT(weir_pipeline_read(p, NULL, false, &ref, &err), WEIR_EINVAL);

    /* Resolved identifiers; temporary views keep one part. */
    weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
    const char *id = NULL;
    d.name = "t";
    d.query = "SELECT 1 AS x";
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, &id, &err), 0);
    CHECK_STR(id, "cat.db.t");
    d.name = "sch.t2";
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, &id, &err), 0);
    CHECK_STR(id, "cat.sch.t2");
    d.name = "v";
    CHECK_INT(weir_pipeline_create_temporary_view(p, &d, &id, &err), 0);
    CHECK_STR(id, "v");
    CHECK_INT(weir_pipeline_read(p, "v", false, &ref, &err), 0);
    CHECK_STR(ref, "`v`");
    CHECK_INT(weir_pipeline_read(p, "V", true, &ref, &err), 0);
    CHECK_STR(ref, "STREAM `V`");
    d.name = "x y";
    CHECK_INT(weir_pipeline_create_table(p, &d, &id, &err), WEIR_EINVAL);
    CHECK(id == NULL);
    weir_pipeline_drop(p);
    weir_session_close(s);
}

TEST(test_sql_error_locations)
{
    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline *p = pipeline_at(s, NULL);

    /* A query given through C: located in its own text, named <name>. */
    weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
    d.name = "bad";
    d.query = "SELECT a,\n  FROM t";
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err),
              WEIR_ESQL);
    CHECK_INT(err.code, WEIR_ESQL);
    CHECK_STR(err.path, "<bad>");
    CHECK_INT(err.line, 2);
    CHECK(err.column > 0);
    CHECK_STR(err.line_text, "  FROM t");
    const weir_error *diags;
    CHECK_INT(weir_pipeline_diagnostics(p, &diags), 1);

    /* Defined elsewhere (a Python file): errors name that file and line. */
    d.source_path = "transformations/defs.py";
    d.source_line = 12;
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err),
              WEIR_ESQL);
    CHECK_STR(err.path, "transformations/defs.py");
    CHECK_INT(err.line, 12);
    CHECK_INT(err.column, 0);
    CHECK_STR(err.line_text, "");
    d.source_path = NULL;
    d.source_line = 0;

    /* A bad schema. */
    d.query = "SELECT 1 AS a";
    d.schema = "a BIGINT,,";
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err),
              WEIR_ESQL);

    /* SQL text: every bad statement is a diagnostic; the good ones stay. */
    CHECK_INT(weir_pipeline_define_sql(p,
                                       "CREATE MATERIALIZED VIEW a AS SELEC 1;\n"
                                       "CREATE MATERIALIZED VIEW ok AS SELECT 1 AS x;\n"
                                       "CREATE MATERIALIZED VIEW b AS SELECT (;\n",
                                       "defs.sql", &err),
              WEIR_ESQL);
    CHECK_STR(err.path, "defs.sql");
    CHECK_INT(err.line, 1);
    CHECK_INT(weir_pipeline_diagnostics(p, &diags), 2);
    CHECK_INT(diags[1].line, 3);
    CHECK_INT(weir_pipeline_define_sql(p, "CREATE MATERIALIZED VIEW c AS SELEC 1",
                                       NULL, &err),
              WEIR_ESQL);
    CHECK_STR(err.path, "<sql>");

    /* Graph errors of C definitions point into their query text. */
    weir_pipeline_drop(p);
    p = pipeline_at(s, NULL);
    d = (weir_dataset_options)WEIR_DATASET_OPTIONS_INIT;
    d.name = "m";
    d.query = "SELECT *\nFROM nowhere";
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err), 0);
    weir_run_options dry = WEIR_RUN_OPTIONS_INIT;
    dry.dry = true;
    CHECK_INT(weir_pipeline_start_run(p, &dry, NULL, &err), WEIR_EGRAPH);
    CHECK_STR(err.path, "<m>");
    CHECK_INT(err.line, 2);
    CHECK_INT(err.column, 6);
    weir_pipeline_drop(p);
    weir_session_close(s);
}

/* Events seen by a run. */
typedef struct seen {
    int events, completed, progress;
    char update_id[40];
} seen;

static void count_event(const weir_event *e, void *payload)
{
    seen *s = (seen *)payload;
    s->events++;
    if (strstr(e->message, "has COMPLETED"))
        s->completed++;
    snprintf(s->update_id, sizeof(s->update_id), "%s", e->update_id);
}

static void count_progress(const weir_progress *pr, void *payload)
{
    (void)pr;
    ((seen *)payload)->progress++;
}

TEST(test_full_definition)
{
    scratch sc;
    scratch_init(&sc);
    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline *p = pipeline_at(s, &sc);

    /* Schema, comment, properties, partitions and expectations. */
    weir_kv props[] = { { "quality", "silver" } };
    const char *parts[] = { "kind" };
    weir_expectation exps[] = {
        { "positive", "id > 0", WEIR_EXPECT_DROP },
        { "named", "name IS NOT NULL", WEIR_EXPECT_WARN },
    };
    weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
    d.name = "items";
    d.query = "SELECT id, CASE WHEN id = 2 THEN NULL ELSE 'n' || id END AS name, "
              "id % 2 AS kind FROM range(-1, 5) AS r(id)";
    d.schema = "id BIGINT COMMENT 'the key', name STRING, kind BIGINT";
    d.comment = "Items";
    d.properties = props;
    d.n_properties = 1;
    d.partition_cols = parts;
    d.n_partition_cols = 1;
    d.expectations = exps;
    d.n_expectations = 2;
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err), 0);

    /* A materialized view without a query, written by a standalone flow
     * (Spark's df = None plus defineFlow). */
    weir_dataset_options m = WEIR_DATASET_OPTIONS_INIT;
    m.name = "totals";
    CHECK_INT(weir_pipeline_create_materialized_view(p, &m, NULL, &err), 0);
    weir_flow_options f = WEIR_FLOW_OPTIONS_INIT;
    f.name = "totals_flow";
    f.target = "totals";
    f.query = "SELECT count(*) AS n FROM items";
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), 0);

    /* A streaming table with a schema and no query, filled by a once-flow;
     * a flow needs a name, a target and a query. */
    weir_dataset_options st = WEIR_DATASET_OPTIONS_INIT;
    st.name = "log";
    st.schema = "id BIGINT";
    CHECK_INT(weir_pipeline_create_table(p, &st, NULL, &err), 0);
    weir_flow_options lf = WEIR_FLOW_OPTIONS_INIT;
    lf.name = "log_backfill";
    lf.query = "SELECT id FROM range(3) AS r(id)";
    lf.once = true;
    CHECK_INT(weir_pipeline_define_flow(p, &lf, &err), WEIR_EINVAL);
    lf.target = "log";
    CHECK_INT(weir_pipeline_define_flow(p, &lf, &err), 0);

    seen ev = { 0, 0, 0, "" };
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    ro.on_event = count_event;
    ro.event_payload = &ev;
    ro.on_progress = count_progress;
    ro.progress_payload = &ev;
    weir_run_result r;
    CHECK_INT(weir_pipeline_start_run(p, &ro, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);
    CHECK_INT(r.flows_completed, 3);
    CHECK_INT(ev.completed, 3);
    CHECK_STR(ev.update_id, r.update_id);

    char buf[64];
    /* id -1 and 0 dropped by the expectation; the NULL name only warned. */
    CHECK_STR(scalar(p, "SELECT count(*) FROM items", buf, sizeof(buf)), "4");
    CHECK_STR(scalar(p, "SELECT n FROM totals", buf, sizeof(buf)), "4");
    CHECK_STR(scalar(p, "SELECT count(*) FROM log", buf, sizeof(buf)), "3");

    weir_graph_info g;
    CHECK_INT(weir_pipeline_describe(p, &g, &err), 0);
    const weir_dataset_info *items = NULL;
    for (size_t i = 0; i < g.n_datasets; i++)
        if (strcmp(g.datasets[i].name, "spark_catalog.default.items") == 0)
            items = &g.datasets[i];
    CHECK(items != NULL);
    if (items) {
        CHECK_INT(items->n_expectations, 2);
        CHECK_STR(items->comment, "Items");
        CHECK_INT(items->n_columns, 3);
        CHECK_STR(items->columns[0].comment, "the key");
        CHECK_STR(items->columns[0].type, "bigint");
        CHECK_STR(items->source_path, "<items>");
    }
    int flows_with_target = 0;
    for (size_t i = 0; i < g.n_flows; i++)
        if (strcmp(g.flows[i].target, "spark_catalog.default.log") == 0)
            flows_with_target += g.flows[i].once;
    CHECK_INT(flows_with_target, 1);

    /* Spark 4.1 has neither the expectations nor the once flow. */
    weir_spark_report sr;
    CHECK_INT(weir_pipeline_check_spark(NULL, &sr, &err), WEIR_EINVAL);
    CHECK_INT(weir_pipeline_check_spark(p, &sr, &err), 0);
    size_t expect = 0, once = 0;
    for (size_t i = 0; i < sr.n_findings; i++) {
        CHECK(sr.findings[i].rejected);
        CHECK_INT(sr.findings[i].at.code, 0);
        expect += strcmp(sr.findings[i].construct, "dp.expect*") == 0;
        once += strcmp(sr.findings[i].construct, "append_flow(once=True)") == 0;
    }
    CHECK_INT(expect, 2);
    CHECK_INT(once, 1);
    CHECK_INT(sr.n_findings, 3);

    /* A new definition invalidates the description. */
    weir_dataset_options more = WEIR_DATASET_OPTIONS_INIT;
    more.name = "more";
    more.query = "SELECT 1 AS x";
    CHECK_INT(weir_pipeline_create_materialized_view(p, &more, NULL, &err), 0);
    CHECK_INT(weir_pipeline_describe(p, &g, &err), WEIR_EINVAL);
    CHECK_INT(weir_pipeline_check_spark(p, &sr, &err), WEIR_EINVAL);

    weir_pipeline_drop(p);
    weir_session_close(s);
    scratch_free(&sc);
}

TEST(test_run_options)
{
    scratch sc;
    scratch_init(&sc);
    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline *p = pipeline_at(s, NULL);
    weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
    d.name = "t";
    d.query = "SELECT 1 AS x";
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err), 0);

    /* No storage: a dry run is fine, a run is not. */
    weir_run_options dry = WEIR_RUN_OPTIONS_INIT;
    dry.dry = true;
    weir_run_result r;
    CHECK_INT(weir_pipeline_start_run(p, &dry, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);
    CHECK_INT(weir_pipeline_start_run(p, NULL, &r, &err), WEIR_EINVAL);
    CHECK_STR(err.error_class, "PIPELINE_STORAGE_ROOT_INVALID");

    /* Conflicting selections. */
    const char *t[] = { "t" };
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    ro.storage = sc.storage;
    ro.full_refresh_all = true;
    ro.refresh = t;
    ro.n_refresh = 1;
    CHECK_INT(weir_pipeline_start_run(p, &ro, &r, &err), WEIR_EINVAL);
    ro.full_refresh_all = false;
    ro.full_refresh = t;
    ro.n_full_refresh = 1;
    CHECK_INT(weir_pipeline_start_run(p, &ro, &r, &err), WEIR_EINVAL);
    ro.n_refresh = 0;
    ro.refresh = NULL;
    CHECK_INT(weir_pipeline_start_run(p, &ro, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);

    /* Cancelled before it starts: nothing runs. */
    volatile int cancel = 1;
    weir_run_options cr = WEIR_RUN_OPTIONS_INIT;
    cr.storage = sc.storage;
    cr.cancel = &cancel;
    CHECK_INT(weir_pipeline_start_run(p, &cr, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_CANCELED);

    /* A sample run (version 2) writes beside the storage, never in it; a
     * negative sample is refused; version 1 structs have no sample. */
    char sample_dir[160];
    snprintf(sample_dir, sizeof(sample_dir), "%s-sample/weir.duckdb",
             sc.storage);
    weir_run_options sr = WEIR_RUN_OPTIONS_INIT;
    sr.storage = sc.storage;
    sr.sample_rows = -1;
    CHECK_INT(weir_pipeline_start_run(p, &sr, &r, &err), WEIR_EINVAL);
    sr.version = 1;
    CHECK_INT(weir_pipeline_start_run(p, &sr, &r, &err), 0);
    CHECK_INT(access(sample_dir, F_OK) == 0, 0);
    sr.version = WEIR_RUN_OPTIONS_VERSION;
    sr.sample_rows = 3;
    CHECK_INT(weir_pipeline_start_run(p, &sr, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);
    CHECK_INT(access(sample_dir, F_OK) == 0, 1);
    weir_pipeline_drop(p);
    weir_session_close(s);
    scratch_free(&sc);
}

/* refresh_upstream (version 5): the datasets of refresh and every table
 * they read, through views too; the rest is EXCLUDED. */
TEST(test_refresh_upstream)
{
    scratch sc;
    scratch_init(&sc);
    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline *p = pipeline_at(s, &sc);
    const char *defs[][2] = { { "a", "SELECT 1 AS x" },
                              { "b", "SELECT x FROM v" },
                              { "c", "SELECT 2 AS y" } };
    for (size_t i = 0; i < 3; i++) {
        weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
        d.name = defs[i][0];
        d.query = defs[i][1];
        CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err), 0);
    }
    weir_dataset_options v = WEIR_DATASET_OPTIONS_INIT;
    v.name = "v";
    v.query = "SELECT x FROM a";
    CHECK_INT(weir_pipeline_create_temporary_view(p, &v, NULL, &err), 0);

    const char *b[] = { "b" }, *view[] = { "v" };
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    ro.refresh = b;
    ro.n_refresh = 1;
    ro.refresh_upstream = true;
    weir_run_result r;
    CHECK_INT(weir_pipeline_start_run(p, &ro, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);
    CHECK_INT(r.flows_completed, 2); /* a through v, and b */
    CHECK_INT(r.flows_excluded, 1);  /* c */
    /* A view named: what it reads. */
    ro.refresh = view;
    CHECK_INT(weir_pipeline_start_run(p, &ro, &r, &err), 0);
    CHECK_INT(r.flows_completed, 1);
    CHECK_INT(r.flows_excluded, 2);
    /* Without it (or in a version 4 struct), Spark's selection. */
    ro.refresh = b;
    ro.version = 4;
    CHECK_INT(weir_pipeline_start_run(p, &ro, &r, &err), 0);
    CHECK_INT(r.flows_completed, 1);
    CHECK_INT(r.flows_excluded, 2);
    ro.version = WEIR_RUN_OPTIONS_VERSION;
    ro.refresh_upstream = false;
    CHECK_INT(weir_pipeline_start_run(p, &ro, &r, &err), 0);
    CHECK_INT(r.flows_completed, 1);
    weir_pipeline_drop(p);
    weir_session_close(s);
    scratch_free(&sc);
}

TEST(test_results_and_streams)
{
    scratch sc;
    scratch_init(&sc);
    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline *p = pipeline_at(s, &sc);
    weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
    d.name = "t";
    d.query = "SELECT id FROM src";
    CHECK_INT(weir_pipeline_create_materialized_view(p, &d, NULL, &err), 0);

    /* Arrow export runs the last statement once: an INSERT is not
     * repeated. */
    struct ArrowArrayStream st;
    CHECK_INT(weir_pipeline_query_arrow(
                  p, "CREATE TABLE src AS SELECT 1 AS id; "
                     "INSERT INTO src VALUES (2)",
                  &st, &err),
              0);
    struct ArrowSchema schema;
    struct ArrowArray batch;
    CHECK_INT(st.get_schema(&st, &schema), 0);
    CHECK_STR(schema.format, "+s");
    schema.release(&schema);
    CHECK_INT(st.get_next(&st, &batch), 0);
    CHECK(batch.release != NULL);
    if (batch.release)
        batch.release(&batch);

    /* Open streams and results hold the storage: runs wait for them. */
    CHECK_INT(weir_pipeline_start_run(p, NULL, NULL, &err), WEIR_EBUSY);
    st.release(&st);
    CHECK(st.release == NULL);
    char buf[64];
    CHECK_STR(scalar(p, "SELECT count(*) FROM src", buf, sizeof(buf)), "2");
    weir_result *res;
    CHECK_INT(weir_pipeline_query(p, "SELECT 1", &res, &err), 0);
    CHECK_INT(weir_pipeline_start_run(p, NULL, NULL, &err), WEIR_EBUSY);
    weir_result_free(res);
    weir_run_result r;
    CHECK_INT(weir_pipeline_start_run(p, NULL, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);

    /* Stream contents: several types, NULLs, batches until release NULL. */
    CHECK_INT(weir_pipeline_query_arrow(
                  p, "SELECT id, CAST(id AS STRING) AS s, "
                     "CASE WHEN id % 2 = 0 THEN NULL ELSE id END AS odd "
                     "FROM range(5000) AS r(id)",
                  &st, &err),
              0);
    CHECK_INT(st.get_schema(&st, &schema), 0);
    CHECK_INT(schema.n_children, 3);
    CHECK_STR(schema.children[0]->name, "id");
    CHECK_STR(schema.children[0]->format, "l");
    CHECK_STR(schema.children[1]->format, "u");
    schema.release(&schema);
    int64_t rows = 0, nulls = 0, batches = 0;
    for (;;) {
        CHECK_INT(st.get_next(&st, &batch), 0);
        if (!batch.release)
            break;
        batches++;
        rows += batch.length;
        nulls += batch.children[2]->null_count;
        batch.release(&batch);
    }
    CHECK_INT(rows, 5000);
    CHECK_INT(nulls, 2500);
    CHECK(batches >= 2);
    CHECK(st.get_last_error(&st) == NULL);
    st.release(&st);

#ifdef WEIR_TEST_HOOKS
    /* A fetch that fails part way (DuckDB's NULL, as when a spilled block
     * cannot be pinned) is an error, never a short result. */
    setenv("WEIR_TEST_FETCH_FAIL_AFTER", "1", 1);
    CHECK_INT(weir_pipeline_query_arrow(p, "SELECT id FROM range(5000) AS r(id)",
                                        &st, &err),
              0);
    CHECK_INT(st.get_next(&st, &batch), 0);
    CHECK(batch.release != NULL);
    if (batch.release)
        batch.release(&batch);
    CHECK(st.get_next(&st, &batch) != 0);
    CHECK(st.get_last_error(&st) != NULL &&
          strstr(st.get_last_error(&st), "of its 5000 rows") != NULL);
    st.release(&st);
    unsetenv("WEIR_TEST_FETCH_FAIL_AFTER");
#endif

    /* Query errors: unknown tables are SQL errors, whether or not err is
     * given; a failed stream is not set. */
    CHECK_INT(weir_pipeline_query(p, "SELECT * FROM nowhere", &res, &err),
              WEIR_ESQL);
    CHECK_STR(err.error_class, "TABLE_OR_VIEW_NOT_FOUND");
    CHECK_INT(weir_pipeline_query(p, "SELECT * FROM nowhere", &res, NULL),
              WEIR_ESQL);
    CHECK_INT(weir_pipeline_query_arrow(p, "SELEC 1", &st, &err), WEIR_ESQL);
    CHECK(st.release == NULL);
    CHECK_INT(weir_pipeline_query(p, "  ", &res, &err), WEIR_ESQL);

    /* The text form of a result. */
    CHECK_INT(weir_pipeline_query(p,
                                  "SELECT 1 AS a, 'x' AS b, CAST(NULL AS INT) AS c",
                                  &res, &err),
              0);
    CHECK_INT(weir_result_column_count(res), 3);
    CHECK_INT(weir_result_row_count(res), 1);
    CHECK_STR(weir_result_column_name(res, 1), "b");
    CHECK_STR(weir_result_column_type(res, 0), "int");
    CHECK(weir_result_column_is_numeric(res, 0));
    CHECK(!weir_result_column_is_numeric(res, 1));
    CHECK_STR(weir_result_value(res, 1, 0), "x");
    CHECK(weir_result_value(res, 2, 0) == NULL);
    CHECK(weir_result_value(res, 3, 0) == NULL);
    CHECK(weir_result_column_name(res, 3) == NULL);
    weir_result_free(res);

    /* Streams and their batches outlive each other in either order. */
    CHECK_INT(weir_pipeline_query_arrow(p, "SELECT 42 AS answer", &st, &err), 0);
    CHECK_INT(st.get_next(&st, &batch), 0);
    st.release(&st);
    CHECK_INT(batch.length, 1);
    CHECK_INT(((const int32_t *)batch.children[0]->buffers[1])[0], 42);
    batch.release(&batch);

    weir_pipeline_drop(p);
    weir_session_close(s);
    scratch_free(&sc);
}

static void put_file(const char *dir, const char *rel, const char *text);

/* A cancel callback that says yes from its nth call on, counting calls
 * (asked from weir's watcher thread). */
typedef struct cancel_after {
    atomic_int calls;
    int nth;
} cancel_after;

static bool cancel_now(void *payload)
{
    cancel_after *c = payload;
    return atomic_fetch_add(&c->calls, 1) + 1 >= c->nth;
}

/* Runs for hours unless stopped. */
#define ENDLESS "SELECT count(*) FROM range(100000000) a CROSS JOIN " \
                "range(100000000) b WHERE a.id + b.id < 0"

TEST(test_query_cancel)
{
    scratch sc;
    scratch_init(&sc);
    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline *p = pipeline_at(s, &sc);
    char buf[64];
    weir_result *res = NULL;
    CHECK_INT(weir_pipeline_query(p, "CREATE TABLE t AS SELECT 1 AS id", &res,
                                  &err),
              0);
    weir_result_free(res);
    CHECK_INT(weir_pipeline_set_query_cancel(NULL, NULL, NULL), WEIR_EINVAL);

    /* Stopped wherever it is once the callback says so (its third answer,
     * a moment after the start), as text and as Arrow. */
    cancel_after later = { 0, 3 };
    CHECK_INT(weir_pipeline_set_query_cancel(p, cancel_now, &later), 0);
    CHECK_INT(weir_pipeline_query(p, ENDLESS, &res, &err), WEIR_ECANCELED);
    CHECK(res == NULL);
    CHECK_STR(err.error_class, "OPERATION_CANCELED");
    CHECK(atomic_load(&later.calls) >= 3);
    atomic_store(&later.calls, 0);
    struct ArrowArrayStream st;
    CHECK_INT(weir_pipeline_query_arrow(p, ENDLESS, &st, &err), WEIR_ECANCELED);
    CHECK(st.release == NULL);

    /* A writing statement stopped leaves its table as it was; a callback
     * that says yes at once stops a script before its first statement. */
    atomic_store(&later.calls, 0);
    CHECK_INT(weir_pipeline_query(p, "INSERT INTO t " ENDLESS, &res, &err),
              WEIR_ECANCELED);
    cancel_after at_once = { 0, 1 };
    CHECK_INT(weir_pipeline_set_query_cancel(p, cancel_now, &at_once), 0);
    CHECK_INT(weir_pipeline_query(p, "INSERT INTO t VALUES (2); SELECT 1",
                                  &res, &err),
              WEIR_ECANCELED);

    /* Without a callback (or one that says no) queries run as before, on
     * the same storage. */
    cancel_after never = { 0, 1 << 30 };
    CHECK_INT(weir_pipeline_set_query_cancel(p, cancel_now, &never), 0);
    CHECK_STR(scalar(p, "SELECT count(*) FROM t", buf, sizeof buf), "1");
    CHECK_INT(weir_pipeline_set_query_cancel(p, NULL, NULL), 0);
    CHECK_STR(scalar(p, "SELECT sum(id) FROM t", buf, sizeof buf), "1");
    weir_pipeline_drop(p);
    weir_session_close(s);
    scratch_free(&sc);
}

TEST(test_load_spec)
{
    scratch sc;
    scratch_init(&sc);
    char path[256];
    snprintf(path, sizeof(path), "%s/spark-pipeline.yml", sc.dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("name: from_spec\nstorage: storage\nlibraries:\n"
          "  - glob:\n      include: transformations/**\n",
          f);
    fclose(f);
    char tdir[256];
    snprintf(tdir, sizeof(tdir), "%s/transformations", sc.dir);
    CHECK_INT(mkdir(tdir, 0755), 0);
    snprintf(path, sizeof(path), "%s/transformations/t.sql", sc.dir);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("CREATE MATERIALIZED VIEW t AS SELECT 7 AS x;\n", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/transformations/p.py", sc.dir);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("from pyspark import pipelines as dp\n", f);
    fclose(f);

    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    snprintf(path, sizeof(path), "%s/spark-pipeline.yml", sc.dir);
    weir_pipeline *p = NULL;
    CHECK_INT(weir_pipeline_load(&p, s, path, &err), 0);
    CHECK_STR(weir_pipeline_name(p), "from_spec");
    CHECK_STR(weir_pipeline_spec_path(p), path);
    CHECK_STR(weir_pipeline_storage(p), sc.storage);
    const char *const *py = NULL;
    CHECK_INT(weir_pipeline_python_files(p, &py), 1);
    CHECK(py != NULL);
    if (py)
        CHECK_STR(py[0], "transformations/p.py");
    CHECK_INT(weir_pipeline_python_files(NULL, &py), 0);
    CHECK(py == NULL);
    const char *const *sql = NULL;
    CHECK_INT(weir_pipeline_sql_files(p, &sql), 1);
    if (sql)
        CHECK_STR(sql[0], "transformations/t.sql");
    CHECK_INT(weir_pipeline_sql_files(NULL, &sql), 0);
    CHECK_STR(weir_pipeline_catalog(p), "spark_catalog");
    CHECK_STR(weir_pipeline_database(p), "default");
    CHECK(weir_pipeline_catalog(NULL) == NULL);
    CHECK(sql == NULL);
    weir_run_result r;
    CHECK_INT(weir_pipeline_start_run(p, NULL, &r, &err), 0);
    char buf[32];
    CHECK_STR(scalar(p, "SELECT x FROM t", buf, sizeof(buf)), "7");
    weir_pipeline_drop(p);

    /* Load options version 2: another root keeps the spec's relative
     * storage in the spec's folder; a storage override replaces it. */
    char root[256], other[256];
    snprintf(root, sizeof(root), "%s/root", sc.dir);
    snprintf(other, sizeof(other), "%s/other", sc.dir);
    weir_load_options lo = WEIR_LOAD_OPTIONS_INIT;
    lo.root_dir = root;
    CHECK_INT(weir_pipeline_load_with(&p, s, path, &lo, &err), 0);
    CHECK_STR(weir_pipeline_storage(p), sc.storage);
    weir_pipeline_drop(p);
    lo.storage = other;
    CHECK_INT(weir_pipeline_load_with(&p, s, path, &lo, &err), 0);
    CHECK_STR(weir_pipeline_storage(p), other);
    weir_pipeline_drop(p);
    lo.version = 1; /* the fields of version 2 are not read */
    CHECK_INT(weir_pipeline_load_with(&p, s, path, &lo, &err), 0);
    CHECK_STR(weir_pipeline_storage(p), sc.storage);
    weir_pipeline_drop(p);

    /* Version 3, storage only: the definition files are not read (a broken
     * one does not matter), the storage can be queried, running refuses. */
    lo = (weir_load_options)WEIR_LOAD_OPTIONS_INIT;
    lo.storage_only = true;
    put_file(sc.dir, "transformations/broken.sql", "SELEC 1;\n");
    CHECK(weir_pipeline_load(&p, s, path, &err) < 0);
    weir_pipeline_drop(p);
    p = NULL;
    CHECK_INT(weir_pipeline_load_with(&p, s, path, &lo, &err), 0);
    CHECK_INT(weir_pipeline_python_files(p, &py), 0);
    CHECK_STR(scalar(p, "SELECT x FROM t", buf, sizeof(buf)), "7");
    CHECK_INT(weir_pipeline_start_run(p, NULL, &r, &err), WEIR_EINVAL);
    weir_pipeline_drop(p);
    lo.version = 2; /* storage_only is not read */
    CHECK(weir_pipeline_load_with(&p, s, path, &lo, &err) < 0);
    weir_pipeline_drop(p);

    snprintf(path, sizeof(path), "%s/missing.yml", sc.dir);
    p = (weir_pipeline *)&err;
    CHECK(weir_pipeline_load(&p, s, path, &err) < 0);
    CHECK(p == NULL);
    weir_session_close(s);
    scratch_free(&sc);
}

/* Write text to dir/rel (folders made). */
static void put_file(const char *dir, const char *rel, const char *text)
{
    char path[512], cmd[600];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
    if (system(cmd) != 0)
        abort();
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
}

/* weir_pipeline_copy_definitions: what C calls defined in one pipeline
 * (datasets with their options, flows, SQL text) is defined again in
 * another, in order; nothing else of the source comes along. */
TEST(test_copy_definitions)
{
    scratch sc, sc2;
    scratch_init(&sc);
    scratch_init(&sc2);
    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline *src = pipeline_at(s, &sc), *dst = pipeline_at(s, &sc2);
    weir_expectation ex[] = { { "positive", "x > 0", WEIR_EXPECT_DROP } };
    weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
    d.name = "base";
    d.query = "SELECT * FROM VALUES (1), (-2), (3) AS v(x)";
    d.expectations = ex;
    d.n_expectations = 1;
    d.comment = "copied";
    CHECK_INT(weir_pipeline_create_materialized_view(src, &d, NULL, &err), 0);
    weir_dataset_options t = WEIR_DATASET_OPTIONS_INIT;
    t.name = "sums";
    t.schema = "total BIGINT";
    CHECK_INT(weir_pipeline_create_table(src, &t, NULL, &err), 0);
    weir_flow_options f = WEIR_FLOW_OPTIONS_INIT;
    f.name = "add_once";
    f.target = "sums";
    f.query = "SELECT sum(x) AS total FROM base";
    f.once = true;
    CHECK_INT(weir_pipeline_define_flow(src, &f, &err), 0);
    /* An AUTO CDC flow (options version 4) is copied with its clauses. */
    weir_dataset_options l = WEIR_DATASET_OPTIONS_INIT;
    l.name = "latest";
    CHECK_INT(weir_pipeline_create_table(src, &l, NULL, &err), 0);
    weir_flow_options cdc = WEIR_FLOW_OPTIONS_INIT;
    cdc.name = "apply";
    cdc.target = "latest";
    cdc.auto_cdc = "FROM STREAM(base) KEYS (x) SEQUENCE BY x";
    CHECK_INT(weir_pipeline_define_flow(src, &cdc, &err), 0);
    CHECK_INT(weir_pipeline_define_sql(src, "CREATE MATERIALIZED VIEW twice AS "
                                            "SELECT total * 2 AS t FROM sums;",
                                       "extra.sql", &err),
              0);
    /* A failed call is not copied. */
    weir_dataset_options bad = WEIR_DATASET_OPTIONS_INIT;
    bad.name = "bad";
    bad.query = "SELEC nothing";
    CHECK(weir_pipeline_create_materialized_view(src, &bad, NULL, &err) != 0);

    CHECK_INT(weir_pipeline_copy_definitions(NULL, src, &err), WEIR_EINVAL);
    CHECK_INT(weir_pipeline_copy_definitions(src, src, &err), WEIR_EINVAL);
    CHECK_INT(weir_pipeline_copy_definitions(dst, src, &err), 0);
    weir_run_result r;
    CHECK_INT(weir_pipeline_start_run(dst, NULL, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);
    char buf[64];
    CHECK_STR(scalar(dst, "SELECT t FROM twice", buf, sizeof(buf)), "8");
    CHECK_STR(scalar(dst, "SELECT count(*) FROM base", buf, sizeof(buf)), "2");
    CHECK_STR(scalar(dst, "SELECT sum(x) FROM latest", buf, sizeof(buf)), "4");
    /* The source was only read: it runs on its own storage as before. */
    CHECK_INT(weir_pipeline_start_run(src, NULL, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);
    CHECK_STR(scalar(src, "SELECT t FROM twice", buf, sizeof(buf)), "8");
    weir_pipeline_drop(src);
    weir_pipeline_drop(dst);
    weir_session_close(s);
    scratch_free(&sc);
    scratch_free(&sc2);
}

/* Load options version 4, keep_storage_open: queries and updates share one
 * open storage, which stays open (and locked) after an update; weir's own
 * state stays read-only to the queries after it. */
TEST(test_keep_storage_open)
{
    scratch sc;
    scratch_init(&sc);
    put_file(sc.dir, "spark-pipeline.yml",
             "name: kept\nstorage: storage\nlibraries:\n"
             "  - glob:\n      include: transformations/**\n");
    put_file(sc.dir, "transformations/t.sql",
             "CREATE MATERIALIZED VIEW t AS SELECT sum(x) * 2 AS y FROM src;\n");
    char path[256], buf[64];
    snprintf(path, sizeof(path), "%s/spark-pipeline.yml", sc.dir);
    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_load_options lo = WEIR_LOAD_OPTIONS_INIT;
    lo.keep_storage_open = true;
    weir_pipeline *p = NULL, *other = NULL;
    CHECK_INT(weir_pipeline_load_with(&p, s, path, &lo, &err), 0);
    CHECK_STR(scalar(p, "CREATE TABLE src AS SELECT 1 AS x; SELECT count(*) "
                        "FROM src", buf, sizeof(buf)), "1");
    weir_run_result r;
    CHECK_INT(weir_pipeline_start_run(p, NULL, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);
    /* Still held after the update: another pipeline cannot open it. */
    CHECK_INT(weir_pipeline_load(&other, s, path, &err), 0);
    weir_result *res = NULL;
    CHECK_INT(weir_pipeline_query(other, "SELECT 1", &res, &err), WEIR_EBUSY);
    CHECK_STR(scalar(p, "SELECT y FROM t", buf, sizeof(buf)), "2");
    CHECK_INT(weir_pipeline_query(p, "INSERT INTO weir.main.updates SELECT * "
                                     "FROM weir.main.updates", &res, &err),
              WEIR_ESQL);
    CHECK_STR(err.error_class, "PIPELINE_STATE_READ_ONLY");
    CHECK_STR(scalar(p, "INSERT INTO src VALUES (4); SELECT count(*) FROM src",
                     buf, sizeof(buf)), "2");
    CHECK_INT(weir_pipeline_start_run(p, NULL, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);
    CHECK_STR(scalar(p, "SELECT y FROM t", buf, sizeof(buf)), "10");
    CHECK_STR(scalar(p, "SELECT count(DISTINCT update_id) FROM event_log()",
                     buf, sizeof(buf)), "2");
    weir_pipeline_drop(p);
    CHECK_STR(scalar(other, "SELECT y FROM t", buf, sizeof(buf)), "10");
    weir_pipeline_drop(other);
    other = NULL;

    /* An update without a query before it opens the storage and keeps it. */
    p = NULL;
    CHECK_INT(weir_pipeline_load_with(&p, s, path, &lo, &err), 0);
    CHECK_INT(weir_pipeline_start_run(p, NULL, &r, &err), 0);
    CHECK_INT(weir_pipeline_load(&other, s, path, &err), 0);
    CHECK_INT(weir_pipeline_query(other, "SELECT 1", &res, &err), WEIR_EBUSY);
    CHECK_STR(scalar(p, "SELECT y FROM t", buf, sizeof(buf)), "10");
    weir_pipeline_drop(p);
    weir_pipeline_drop(other);

    /* Version 3 does not read it: the update releases the storage. */
    lo.version = 3;
    CHECK_INT(weir_pipeline_load_with(&p, s, path, &lo, &err), 0);
    CHECK_INT(weir_pipeline_start_run(p, NULL, &r, &err), 0);
    CHECK_INT(weir_pipeline_load(&other, s, path, &err), 0);
    CHECK_STR(scalar(other, "SELECT y FROM t", buf, sizeof(buf)), "10");
    weir_pipeline_drop(other);
    weir_pipeline_drop(p);
    weir_session_close(s);
    scratch_free(&sc);
}

/* weir_pipeline_record_update: an update that ran elsewhere (weir run
 * --remote) lands in a storage's event log with its own timestamps. */
TEST(test_record_update)
{
    scratch sc;
    scratch_init(&sc);
    weir_error err;
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline_options po = WEIR_PIPELINE_OPTIONS_INIT;
    po.storage = sc.storage;
    weir_pipeline *p = NULL;
    CHECK_INT(weir_pipeline_create(&p, s, &po, &err), 0);
    weir_event ev[2];
    memset(ev, 0, sizeof(ev));
    ev[0].timestamp_us = 1767225600000000LL; /* 2026-01-01 00:00:00 UTC */
    ev[0].event_type = "flow_progress";
    ev[0].flow_name = "spark_catalog.default.t";
    ev[0].message = "Flow spark_catalog.default.t has COMPLETED.";
    ev[1].timestamp_us = ev[0].timestamp_us + 1000000;
    ev[1].level = WEIR_LEVEL_ERROR;
    ev[1].message = "Run is FAILED.";
    char id[40] = "";
    CHECK_INT(weir_pipeline_record_update(p, NULL, ev, 2, id, &err), 0);
    CHECK_INT(strlen(id), 36);
    /* The id the events came with is kept. */
    char again[40] = "";
    ev[0].update_id = "0b8d3a3e-8f0e-4a51-9a27-5b0e8f1c2d3e";
    CHECK_INT(weir_pipeline_record_update(p, NULL, ev, 1, again, &err), 0);
    CHECK_STR(again, "0b8d3a3e-8f0e-4a51-9a27-5b0e8f1c2d3e");
    ev[0].update_id = "x'; DROP TABLE t; --";
    CHECK_INT(weir_pipeline_record_update(p, NULL, ev, 1, again, &err), 0);
    CHECK(strcmp(again, "0b8d3a3e-8f0e-4a51-9a27-5b0e8f1c2d3e") != 0);
    CHECK_INT(strlen(again), 36);
    ev[0].update_id = NULL;
    char sql[320], buf[256];
    static const char *const want[] = {
        "INFO flow_progress spark_catalog.default.t 2026-01-01 00:00:00",
        "ERROR spark_event - 2026-01-01 00:00:01",
    };
    for (int i = 0; i < 2; i++) {
        snprintf(sql, sizeof(sql),
                 "SELECT concat(level, ' ', event_type, ' ', "
                 "coalesce(flow_name, '-'), ' ', CAST(`timestamp` AS STRING)) "
                 "FROM event_log() WHERE update_id = '%s' AND sequence = %d",
                 id, i);
        CHECK_STR(scalar(p, sql, buf, sizeof(buf)), want[i]);
    }
    /* Another storage, relative to the root; errors. */
    CHECK_INT(weir_pipeline_record_update(p, "elsewhere", ev, 1, NULL, &err), 0);
    CHECK_INT(weir_pipeline_record_update(p, NULL, NULL, 1, NULL, &err),
              WEIR_EINVAL);
    CHECK_INT(weir_pipeline_record_update(NULL, NULL, ev, 1, NULL, &err),
              WEIR_EINVAL);
    weir_pipeline *none = NULL;
    CHECK_INT(weir_pipeline_create(&none, s, NULL, &err), 0);
    CHECK_INT(weir_pipeline_record_update(none, NULL, ev, 1, NULL, &err),
              WEIR_EINVAL);
    weir_pipeline_drop(none);
    weir_pipeline_drop(p);
    weir_session_close(s);
    scratch_free(&sc);
}

/* weir_flow_options.import_checkpoint: the flow starts after the files a
 * Structured Streaming checkpoint lists (docs/import-checkpoint.md). */
TEST(test_import_checkpoint)
{
    weir_error err;
    scratch sc;
    scratch_init(&sc);
    put_file(sc.dir, "in/a.json", "{\"id\":1}\n{\"id\":2}\n");
    put_file(sc.dir, "in/b.json", "{\"id\":3}\n");
    char entry[512];
    snprintf(entry, sizeof(entry),
             "v1\n{\"path\":\"file://%s/in/a.json\",\"timestamp\":1,"
             "\"batchId\":0}\n", sc.dir);
    put_file(sc.dir, "cp/metadata", "{\"id\":\"q\"}");
    put_file(sc.dir, "cp/offsets/0",
             "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1}\n"
             "{\"logOffset\":0}\n");
    put_file(sc.dir, "cp/commits/0", "v1\n{\"nextBatchWatermarkMs\":0}");
    put_file(sc.dir, "cp/sources/0/0", entry);
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline *p = pipeline_at(s, &sc);
    weir_dataset_options t = WEIR_DATASET_OPTIONS_INIT;
    t.name = "t";
    CHECK_INT(weir_pipeline_create_table(p, &t, NULL, &err), 0);
    weir_flow_options f = WEIR_FLOW_OPTIONS_INIT;
    f.name = "migrate";
    f.target = "t";
    f.query = "SELECT id FROM STREAM read_files('in', format => 'json', "
              "schema => 'id BIGINT')";
    f.import_checkpoint = "";
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), WEIR_EINVAL);
    f.import_checkpoint = "cp";
    f.once = true;
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), WEIR_EINVAL);
    CHECK_CONTAINS(err.message, "a once flow cannot import a checkpoint");
    f.once = false;
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), 0);
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    weir_run_result r;
    CHECK_INT(weir_pipeline_start_run(p, &ro, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);
    char buf[64];
    CHECK_STR(scalar(p, "SELECT concat_ws(',', collect_list(id)) FROM t", buf,
                     sizeof(buf)),
              "3");
    CHECK_STR(scalar(p, "SELECT count(*) FROM event_log() WHERE details "
                        "LIKE '%import_checkpoint%'",
                     buf, sizeof(buf)),
              "1");
    weir_pipeline_drop(p);
    weir_session_close(s);
    scratch_free(&sc);
}

/* weir_flow_options.auto_cdc: an AUTO CDC flow from its SQL clauses; one
 * named like its target is the target's own flow. */
TEST(test_auto_cdc)
{
    weir_error err;
    scratch sc;
    scratch_init(&sc);
    put_file(sc.dir, "in/a.json",
             "{\"id\":1,\"seq\":2,\"op\":\"U\",\"v\":\"new\"}\n"
             "{\"id\":1,\"seq\":1,\"op\":\"U\",\"v\":\"old\"}\n"
             "{\"id\":2,\"seq\":3,\"op\":\"U\",\"v\":\"x\"}\n"
             "{\"id\":2,\"seq\":4,\"op\":\"D\",\"v\":null}\n");
    weir_session *s;
    CHECK_INT(weir_session_open(&s, NULL, &err), 0);
    weir_pipeline *p = pipeline_at(s, &sc);
    weir_dataset_options t = WEIR_DATASET_OPTIONS_INIT;
    t.name = "t";
    CHECK_INT(weir_pipeline_create_table(p, &t, NULL, &err), 0);
    weir_flow_options f = WEIR_FLOW_OPTIONS_INIT;
    f.name = "t";
    f.target = "t";
    f.query = "SELECT 1";
    f.auto_cdc = "FROM STREAM read_files('in', format => 'json') KEYS (id) "
                 "APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq "
                 "COLUMNS * EXCEPT (op, _rescued_data)";
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), WEIR_EINVAL); /* both */
    f.query = NULL;
    f.once = true;
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), WEIR_EINVAL);
    f.once = false;
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), 0);
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    weir_run_result r;
    CHECK_INT(weir_pipeline_start_run(p, &ro, &r, &err), 0);
    CHECK_INT(r.state, WEIR_RUN_COMPLETED);
    weir_graph_info g;
    CHECK_INT(weir_pipeline_describe(p, &g, &err), 0);
    CHECK_INT(g.n_flows, 1);
    if (g.n_flows == 1) {
        CHECK_INT(g.flows[0].auto_cdc, 1);
        CHECK(g.flows[0].implicit);
    }
    char buf[64];
    CHECK_STR(scalar(p, "SELECT concat_ws(',', collect_list(v)) FROM t", buf,
                     sizeof(buf)),
              "new");
    weir_pipeline_drop(p);
    /* Clauses that do not parse: the SQL error, with its class. */
    p = pipeline_at(s, &sc);
    f.auto_cdc = "FROM STREAM x KEYS (id) SEQUENCE";
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), WEIR_ESQL);
    CHECK_STR(err.error_class, "PARSE_SYNTAX_ERROR");
    weir_pipeline_drop(p);
    weir_session_close(s);
    scratch_free(&sc);
}

TEST_MAIN(RUN(test_version); RUN(test_null_and_versions);
          RUN(test_names_and_references); RUN(test_sql_error_locations);
          RUN(test_full_definition); RUN(test_run_options);
          RUN(test_refresh_upstream);
          RUN(test_results_and_streams); RUN(test_query_cancel);
          RUN(test_load_spec);
          RUN(test_import_checkpoint); RUN(test_auto_cdc);
          RUN(test_keep_storage_open); RUN(test_copy_definitions);
          RUN(test_record_update);)
