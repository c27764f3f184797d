/*
 * "Defining a graph from SQL" in C: the `events` table registered through
 * a C call, the `daily_counts` materialized view through defineSql, as in
 * Spark's listing, plus a temporary view and a once-flow written in SQL.
 * Then what the file name passed to defineSql is for: a statement that does
 * not parse and a query that reads an unknown table are reported at their
 * file, line and column. Results are read both as text (weir_result) and as
 * Arrow arrays. Exit status 0 only when every check matched.
 *
 *   cc define_sql.c $(pkg-config --cflags --libs weir) -o define_sql
 */
#define _POSIX_C_SOURCE 200809L
#include "example.h"

/* The definitions of one SQL file, as a program would read them from disk. */
static const char daily_counts_sql[] =
    "-- Event counts per day, and the events that carry a value.\n"
    "CREATE MATERIALIZED VIEW daily_counts\n"
    "COMMENT 'Event counts per day' AS\n"
    "SELECT date(ts) AS day, count(*) AS n\n"
    "FROM events\n"
    "GROUP BY date(ts);\n"
    "\n"
    "CREATE TEMPORARY VIEW clean_events AS\n"
    "SELECT * FROM events WHERE value IS NOT NULL;\n"
    "\n"
    "CREATE MATERIALIZED VIEW clean_count AS\n"
    "SELECT count(*) AS n FROM clean_events;\n"
    "\n"
    "CREATE FLOW events_backfill AS INSERT INTO ONCE events BY NAME\n"
    "SELECT ts, value FROM read_files('backfill', format => 'json');\n";

/* Statement 2 has a syntax error at line 4, column 8 ("FROM FROM"). */
static const char broken_sql[] =
    "CREATE MATERIALIZED VIEW ok AS SELECT 1 AS x;\n"
    "\n"
    "CREATE MATERIALIZED VIEW broken AS\n"
    "SELECT ) FROM events;\n";

/* Parses, but reads a table that does not exist (line 2, column 15). */
static const char unknown_sql[] =
    "CREATE MATERIALIZED VIEW totals AS\n"
    "SELECT n FROM missing_table;\n";

static weir_pipeline *new_pipeline(weir_session *s, const char *dir,
                                   const char *storage)
{
    weir_error err;
    weir_pipeline_options po = WEIR_PIPELINE_OPTIONS_INIT;
    po.database = "analytics";
    po.storage = storage;
    po.root_dir = dir;
    weir_pipeline *p;
    CHECK(weir_pipeline_create(&p, s, &po, &err), err);
    return p;
}

/* Errors carry the file name given to defineSql, line, column and text. */
static void check_error_locations(weir_session *session, const char *dir)
{
    weir_error err;
    weir_pipeline *p = new_pipeline(session, dir, NULL);
    int rc = weir_pipeline_define_sql(p, broken_sql,
                                      "transformations/broken.sql", &err);
    example_expect(rc == WEIR_ESQL, "a syntax error is WEIR_ESQL (%d)", rc);
    example_expect(strcmp(err.path, "transformations/broken.sql") == 0 &&
                       err.line == 4 && err.column == 8,
                   "located at transformations/broken.sql:4:8, got %s:%u:%u",
                   err.path, err.line, err.column);
    example_expect(strcmp(err.line_text, "SELECT ) FROM events;") == 0,
                   "line text: %s", err.line_text);
    const weir_error *diags;
    size_t n = weir_pipeline_diagnostics(p, &diags);
    example_expect(n == 1 && diags[0].line == 4, "one diagnostic (%zu)", n);
    fprintf(stderr, "as expected: %s:%u:%u: [%s] %s\n  %s\n", err.path,
            err.line, err.column, err.error_class, err.message, err.line_text);
    weir_pipeline_drop(p);

    /* Graph errors are found when a run resolves the graph: a dry run. */
    p = new_pipeline(session, dir, NULL);
    CHECK(weir_pipeline_define_sql(p, unknown_sql, "transformations/totals.sql",
                                   &err),
          err);
    weir_run_options dry = WEIR_RUN_OPTIONS_INIT;
    dry.dry = true;
    rc = weir_pipeline_start_run(p, &dry, NULL, &err);
    example_expect(rc == WEIR_EGRAPH, "an unknown table is WEIR_EGRAPH (%d)",
                   rc);
    example_expect(strcmp(err.path, "transformations/totals.sql") == 0 &&
                       err.line == 2 && err.column == 15,
                   "located at transformations/totals.sql:2:15, got %s:%u:%u",
                   err.path, err.line, err.column);
    fprintf(stderr, "as expected: %s:%u:%u: [%s] %s\n", err.path, err.line,
            err.column, err.error_class, err.message);
    weir_pipeline_drop(p);
}

int main(void)
{
    char dir[] = "/tmp/weir-example-XXXXXX";
    example_expect(mkdtemp(dir) != NULL, "cannot create a scratch folder");
    example_write(dir, "incoming", "part-0.json",
                  "{\"ts\": \"2024-03-01 08:00:00\", \"value\": \"a\"}\n"
                  "{\"ts\": \"2024-03-01 09:00:00\", \"value\": null}\n"
                  "{\"ts\": \"2024-03-02 10:00:00\", \"value\": \"b\"}\n");
    example_write(dir, "backfill", "february.json",
                  "{\"ts\": \"2024-02-29 12:00:00\", \"value\": \"leap\"}\n");

    weir_error err;
    weir_session *session;
    CHECK(weir_session_open(&session, NULL, &err), err);
    weir_pipeline *pipeline =
        new_pipeline(session, dir, example_path(0, dir, "storage"));

    /* The streaming table from C, as in the first listing. */
    weir_dataset_options events = WEIR_DATASET_OPTIONS_INIT;
    events.name = "events";
    events.query = "SELECT ts, value FROM STREAM read_files('incoming', "
                   "format => 'json')";
    events.comment = "Raw event records";
    CHECK(weir_pipeline_create_table(pipeline, &events, NULL, &err), err);

    /* pipeline.defineSql("""CREATE MATERIALIZED VIEW daily_counts ...""") */
    CHECK(weir_pipeline_define_sql(pipeline, daily_counts_sql,
                                   "transformations/daily_counts.sql", &err),
          err);

    weir_run_result r;
    CHECK(weir_pipeline_start_run(pipeline, NULL, &r, &err), err);
    example_expect(r.state == WEIR_RUN_COMPLETED, "run state %d", (int)r.state);

    /* The definition's comment and source are in the resolved graph. */
    weir_graph_info graph;
    CHECK(weir_pipeline_describe(pipeline, &graph, &err), err);
    const weir_dataset_info *daily = NULL;
    for (size_t i = 0; i < graph.n_datasets; i++)
        if (strcmp(graph.datasets[i].name, "spark_catalog.analytics.daily_counts") == 0)
            daily = &graph.datasets[i];
    example_expect(daily && daily->kind == WEIR_MATERIALIZED_VIEW &&
                       daily->comment &&
                       strcmp(daily->comment, "Event counts per day") == 0 &&
                       daily->source_path &&
                       strcmp(daily->source_path,
                              "transformations/daily_counts.sql") == 0 &&
                       daily->source_line == 2 && daily->n_columns == 2,
                   "daily_counts as described");

    /* Results as text ... */
    weir_result *res;
    CHECK(weir_pipeline_query(pipeline,
                              "SELECT day, n FROM daily_counts ORDER BY day",
                              &res, &err),
          err);
    example_expect(weir_result_row_count(res) == 3 &&
                       weir_result_column_count(res) == 2,
                   "3 rows of 2 columns");
    example_expect(strcmp(weir_result_column_type(res, 0), "date") == 0 &&
                       strcmp(weir_result_column_type(res, 1), "bigint") == 0,
                   "Spark types date, bigint: %s, %s",
                   weir_result_column_type(res, 0),
                   weir_result_column_type(res, 1));
    example_expect(strcmp(weir_result_value(res, 0, 0), "2024-02-29") == 0 &&
                       strcmp(weir_result_value(res, 1, 1), "2") == 0,
                   "values as text");
    weir_result_free(res);

    /* ... and as Arrow arrays. */
    example_expect_query(pipeline, "SELECT day, n FROM daily_counts ORDER BY day",
                         "day,n\n2024-02-29,1\n2024-03-01,2\n2024-03-02,1\n");
    example_expect_query(pipeline, "SELECT n FROM clean_count", "n\n3\n");

    check_error_locations(session, dir);

    weir_pipeline_drop(pipeline);
    weir_session_close(session);
    example_remove(dir);
    puts("define_sql: all checks passed");
    return 0;
}
