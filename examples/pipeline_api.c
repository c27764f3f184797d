/*
 * The Scala listings of Spark's "Declarative Pipelines" page, in C: a
 * pipeline with default catalog and database, an `events` streaming table
 * read from JSON files, a `daily_counts` materialized view over it, a
 * `clean_events` temporary view, an `events_backfill` once-flow, runs with
 * the startRun options (plain, dry, refresh, full refresh of everything,
 * full refresh of one table into another storage), results read as Arrow
 * arrays, and drop. It works in a scratch folder of real files and checks
 * every result: the exit status is 0 only when everything matched.
 *
 *   cc pipeline_api.c $(pkg-config --cflags --libs weir) -o pipeline_api
 */
#define _POSIX_C_SOURCE 200809L
#include "example.h"

#include <time.h>

/* What the event callback saw during one run. */
typedef struct run_log {
    unsigned events, flow_completed, errors;
} run_log;

/* events.foreach(e => println(s"${e.timestamp}: ${e.message}")) */
static void on_event(const weir_event *e, void *payload)
{
    run_log *log = (run_log *)payload;
    log->events++;
    if (e->level == WEIR_LEVEL_ERROR)
        log->errors++;
    if (e->details_json && strstr(e->details_json, "\"COMPLETED\"") &&
        strcmp(e->event_type, "flow_progress") == 0)
        log->flow_completed++;
    time_t seconds = (time_t)(e->timestamp_us / 1000000);
    struct tm tm;
    char when[32];
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", gmtime_r(&seconds, &tm));
    printf("%s.%06dZ: %s\n", when, (int)(e->timestamp_us % 1000000),
           e->message);
}

/* pipeline.startRun(...) with the given options; returns the outcome. */
static weir_run_result start_run(weir_pipeline *p, weir_run_options *opts,
                                 run_log *log)
{
    weir_error err;
    weir_run_result result;
    memset(log, 0, sizeof(*log));
    opts->on_event = on_event;
    opts->event_payload = log;
    CHECK(weir_pipeline_start_run(p, opts, &result, &err), err);
    example_expect(result.state == WEIR_RUN_COMPLETED,
                   "the run should complete (state %d)", (int)result.state);
    example_expect(log->events > 0 && log->errors == 0,
                   "%u events, %u errors", log->events, log->errors);
    return result;
}

int main(void)
{
    char dir[] = "/tmp/weir-example-XXXXXX";
    example_expect(mkdtemp(dir) != NULL, "cannot create a scratch folder");
    example_write(dir, "incoming", "part-0.json",
                  "{\"ts\": \"2024-01-01 10:00:00\", \"value\": \"a\"}\n"
                  "{\"ts\": \"2024-01-01 11:30:00\", \"value\": null}\n"
                  "{\"ts\": \"2024-01-02 09:15:00\", \"value\": \"b\"}\n");
    example_write(dir, "backfill", "2023.json",
                  "{\"ts\": \"2023-12-31 23:00:00\", \"value\": \"old\"}\n");

    weir_error err;
    weir_session *session;
    CHECK(weir_session_open(&session, NULL, &err), err);

    /* Pipeline.create(spark, defaultCatalog = Some("spark_catalog"),
     *                 defaultDatabase = Some("analytics")) */
    weir_pipeline_options po = WEIR_PIPELINE_OPTIONS_INIT;
    po.name = "analytics";
    po.catalog = "spark_catalog";
    po.database = "analytics";
    po.storage = example_path(0, dir, "storage");
    po.root_dir = dir; /* relative file paths in queries start here */
    weir_pipeline *pipeline;
    CHECK(weir_pipeline_create(&pipeline, session, &po, &err), err);

    /* val events = pipeline.createTable(name = "events", df = Some(
     *   spark.read.format("json").load("/data/incoming")),
     *   comment = Some("Raw event records")) */
    weir_dataset_options events = WEIR_DATASET_OPTIONS_INIT;
    events.name = "events";
    events.query = "SELECT ts, value FROM STREAM read_files('incoming', "
                   "format => 'json')";
    events.comment = "Raw event records";
    const char *events_id;
    CHECK(weir_pipeline_create_table(pipeline, &events, &events_id, &err), err);
    example_expect(strcmp(events_id, "spark_catalog.analytics.events") == 0,
                   "resolved identifier %s", events_id);

    /* pipeline.createMaterializedView(name = "daily_counts", df = Some(
     *   pipeline.read("events").groupBy(to_date(col("ts")).as("day"))
     *     .agg(count("*").as("n"))), comment = Some("Event counts per day")) */
    const char *events_ref;
    CHECK(weir_pipeline_read(pipeline, "events", false, &events_ref, &err), err);
    char query[512];
    snprintf(query, sizeof(query),
             "SELECT to_date(ts) AS day, count(*) AS n FROM %s "
             "GROUP BY to_date(ts)",
             events_ref);
    weir_dataset_options daily = WEIR_DATASET_OPTIONS_INIT;
    daily.name = "daily_counts";
    daily.query = query;
    daily.comment = "Event counts per day";
    CHECK(weir_pipeline_create_materialized_view(pipeline, &daily, NULL, &err),
          err);

    /* pipeline.createTemporaryView(name = "clean_events", df = Some(
     *   pipeline.read("events").where(col("value").isNotNull))) */
    snprintf(query, sizeof(query), "SELECT * FROM %s WHERE value IS NOT NULL",
             events_ref);
    weir_dataset_options clean = WEIR_DATASET_OPTIONS_INIT;
    clean.name = "clean_events";
    clean.query = query;
    const char *clean_id;
    CHECK(weir_pipeline_create_temporary_view(pipeline, &clean, &clean_id, &err),
          err);
    example_expect(strcmp(clean_id, "clean_events") == 0,
                   "temporary views keep one part: %s", clean_id);

    /* A temporary view is not published: a materialized view over it makes
     * its rows visible to the checks below. */
    const char *clean_ref;
    CHECK(weir_pipeline_read(pipeline, "clean_events", false, &clean_ref, &err),
          err);
    example_expect(strcmp(clean_ref, "`clean_events`") == 0,
                   "reference to a temporary view: %s", clean_ref);
    snprintf(query, sizeof(query), "SELECT count(*) AS n FROM %s", clean_ref);
    weir_dataset_options clean_count = WEIR_DATASET_OPTIONS_INIT;
    clean_count.name = "clean_count";
    clean_count.query = query;
    CHECK(weir_pipeline_create_materialized_view(pipeline, &clean_count, NULL,
                                                 &err),
          err);

    /* pipeline.defineFlow(name = "events_backfill",
     *   df = spark.read.format("json").load("/data/backfill"),
     *   target = Some("events"))  -- a batch read: a once-flow */
    weir_flow_options backfill = WEIR_FLOW_OPTIONS_INIT;
    backfill.name = "events_backfill";
    backfill.target = "events";
    backfill.query = "SELECT ts, value FROM read_files('backfill', "
                     "format => 'json')";
    backfill.once = true;
    CHECK(weir_pipeline_define_flow(pipeline, &backfill, &err), err);

    /* val events = pipeline.startRun() */
    run_log log;
    weir_run_options plain = WEIR_RUN_OPTIONS_INIT;
    weir_run_result r = start_run(pipeline, &plain, &log);
    /* Four flows run: a temporary view is computed inside its readers. */
    example_expect(r.flows_completed == 4 && log.flow_completed == 4,
                   "4 flows complete (%u, %u events)", r.flows_completed,
                   log.flow_completed);
    example_expect_query(pipeline,
                         "SELECT day, n FROM daily_counts ORDER BY day",
                         "day,n\n2023-12-31,1\n2024-01-01,2\n2024-01-02,1\n");
    example_expect_query(pipeline, "SELECT n FROM clean_count", "n\n3\n");

    /* New data arrives. */
    example_write(dir, "incoming", "part-1.json",
                  "{\"ts\": \"2024-01-02 18:00:00\", \"value\": \"c\"}\n"
                  "{\"ts\": \"2024-01-03 07:45:00\", \"value\": \"d\"}\n");

    /* pipeline.startRun(dry = true): validates, writes nothing. */
    weir_run_options dry = WEIR_RUN_OPTIONS_INIT;
    dry.dry = true;
    start_run(pipeline, &dry, &log);
    example_expect_query(pipeline, "SELECT count(*) AS n FROM events",
                         "n\n4\n");

    /* The graph as resolved: datasets with their schemas. */
    weir_graph_info graph;
    CHECK(weir_pipeline_describe(pipeline, &graph, &err), err);
    example_expect(graph.n_datasets == 4 && graph.n_flows == 5,
                   "4 datasets, 5 flows (%zu, %zu)", graph.n_datasets,
                   graph.n_flows);

    /* pipeline.startRun(refresh = Seq("daily_counts")): only daily_counts
     * is recomputed; events does not read the new file. */
    const char *only_daily[] = { "daily_counts" };
    weir_run_options refresh = WEIR_RUN_OPTIONS_INIT;
    refresh.refresh = only_daily;
    refresh.n_refresh = 1;
    r = start_run(pipeline, &refresh, &log);
    example_expect(r.flows_completed == 1 && r.flows_excluded == 3,
                   "refresh runs one flow (%u completed, %u excluded)",
                   r.flows_completed, r.flows_excluded);
    example_expect_query(pipeline, "SELECT count(*) AS n FROM events",
                         "n\n4\n");

    /* A plain run reads only the new file; the backfill does not run again
     * (it is IDLE until a full refresh of events). */
    r = start_run(pipeline, &plain, &log);
    example_expect(r.flows_idle == 1, "the backfill is idle (%u)", r.flows_idle);
    example_expect_query(pipeline,
                         "SELECT day, n FROM daily_counts ORDER BY day",
                         "day,n\n2023-12-31,1\n2024-01-01,2\n2024-01-02,2\n"
                         "2024-01-03,1\n");

    /* pipeline.startRun(fullRefreshAll = true): reset and recompute
     * everything, the backfill included, without duplicating a row. */
    weir_run_options all = WEIR_RUN_OPTIONS_INIT;
    all.full_refresh_all = true;
    start_run(pipeline, &all, &log);
    example_expect_query(pipeline, "SELECT count(*) AS n FROM events",
                         "n\n6\n");
    example_expect_query(pipeline, "SELECT n FROM clean_count", "n\n5\n");

    /* pipeline.startRun(fullRefresh = Seq("events"),
     *                   storage = Some("/pipelines/analytics")) */
    const char *only_events[] = { "events" };
    weir_run_options moved = WEIR_RUN_OPTIONS_INIT;
    moved.full_refresh = only_events;
    moved.n_full_refresh = 1;
    moved.storage = example_path(1, dir, "pipelines/analytics");
    r = start_run(pipeline, &moved, &log);
    example_expect(r.flows_completed == 2, "events and its backfill ran (%u)",
                   r.flows_completed);

    /* Queries read the pipeline's own storage; a second pipeline on the
     * other storage reads what that run wrote. */
    weir_pipeline_options other = WEIR_PIPELINE_OPTIONS_INIT;
    other.database = "analytics";
    other.storage = moved.storage;
    weir_pipeline *reader;
    CHECK(weir_pipeline_create(&reader, session, &other, &err), err);
    example_expect_query(reader,
                         "SELECT value FROM events ORDER BY ts",
                         "value\nold\na\nNULL\nb\nc\nd\n");
    weir_pipeline_drop(reader);

    /* The event log of every run is a table too. */
    example_expect_query(pipeline,
                         "SELECT count(DISTINCT update_id) AS updates "
                         "FROM event_log()",
                         "updates\n4\n");

    /* pipeline.drop() */
    weir_pipeline_drop(pipeline);
    weir_session_close(session);
    example_remove(dir);
    puts("pipeline_api: all checks passed");
    return 0;
}
