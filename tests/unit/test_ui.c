/*
 * Unit tests of the pipeline UI (src/ui): escaping, the Graphviz input and
 * its SVG, the pages of a snapshot built by hand (names that need escaping,
 * a failed flow, an expectation, an error with its place) and how the
 * flows of one dataset add up.
 */
#include "harness.h"

#include "ui/ui.h"

static ui_dataset datasets[3];
static ui_column columns[1] = { { "id", "bigint", "the <key>", false } };
static ui_edge edges[2] = { { 2, 0, true, NULL }, { 0, 1, false, "cat.db.backfill" } };
static ui_flow_run flows[3];
static ui_expectation quality[1] = {
    { "cat.db.we\"ird<x>", "valid_id", "drop", 9, 1 },
};
static ui_error errors[1];
static ui_update updates[2];

/* Two datasets and an outside source, one update with a failure. */
static void fixture(ui_snapshot *s)
{
    memset(s, 0, sizeof *s);
    weir__arena_init(&s->arena);
    memset(datasets, 0, sizeof datasets);
    datasets[0] = (ui_dataset){ "cat.db.bronze", WEIR_STREAMING_TABLE, columns,
                                1, "raw & ready", "duckdb",
                                "{\"quality\": \"bronze\"}", "a.sql", 1,
                                "CREATE STREAMING TABLE bronze AS ...;", 0 };
    datasets[1] = (ui_dataset){ "cat.db.we\"ird<x>", WEIR_MATERIALIZED_VIEW,
                                NULL, 0, NULL, NULL, "{}", "a.sql", 3, NULL, 1 };
    datasets[2] = (ui_dataset){ "files:/data", 0, NULL, 0, NULL, NULL, NULL,
                                NULL, 0, NULL, 0 };
    memset(flows, 0, sizeof flows);
    flows[0] = (ui_flow_run){ "cat.db.bronze", "cat.db.bronze", "COMPLETED",
                              1000, 0, 2000, 5000, 5, 3, 0, 0, 0,
                              12, 1, "2024-01-01T00:20:00.000Z" };
    flows[1] = (ui_flow_run){ "cat.db.backfill", "cat.db.bronze", "COMPLETED",
                              1000, 0, 2000, 4000, 7, 2, 0, 0, 0, -1, 0, NULL };
    flows[2] = (ui_flow_run){ "cat.db.we\"ird<x>", "cat.db.we\"ird<x>",
                              "FAILED", 1000, 1500, 5000, 9000, -1, -1, 0, 0, 1,
                              -1, 0, NULL };
    errors[0] = (ui_error){ 9000, "ERROR", "cat.db.we\"ird<x>",
                            "Flow has FAILED.", "CAST_INVALID_INPUT",
                            "bad <value>", "a.sql", 3, 7, false };
    memset(updates, 0, sizeof updates);
    updates[0] = (ui_update){ "u-2", "FAILED", NULL, 1000, 10000, 12,
                              flows, 3, quality, 1, errors, 1 };
    updates[1] = (ui_update){ "u-1", "COMPLETED", "{\"refresh\": [\"bronze\"], \"full_refresh\": [\"cat.db.x\"]}",
                              100, 900, 3, NULL, 0, NULL, 0, NULL, 0 };
    s->pipeline = "shop<1>";
    s->storage = "/tmp/st";
    s->datasets = datasets;
    s->n_datasets = 3;
    s->edges = edges;
    s->n_edges = 2;
    s->prefix = "cat.db.";
    s->updates = updates;
    s->n_updates = 2;
}

TEST(test_ui_escaping)
{
    weir_buf b = WEIR_BUF_INIT;
    ui_html_text(&b, "a&b<c>\"d'e");
    CHECK_STR(weir__buf_cstr(&b), "a&amp;b&lt;c&gt;&quot;d&#39;e");
    weir__buf_clear(&b);
    ui_url_value(&b, "cat.db.t x/&=?");
    CHECK_STR(weir__buf_cstr(&b), "cat.db.t%20x%2F%26%3D%3F");
    weir__buf_free(&b);
}

TEST(test_ui_dataset_run_adds_flows)
{
    ui_snapshot s;
    ui_dataset_run r;
    fixture(&s);
    ui_dataset_run_of(&updates[0], "cat.db.bronze", &r);
    CHECK_STR(r.state, "COMPLETED");
    CHECK_INT(r.rows, 12);
    CHECK_INT(r.duration_ms, 5);
    ui_dataset_run_of(&updates[0], "cat.db.we\"ird<x>", &r);
    CHECK_STR(r.state, "FAILED");
    CHECK_INT(r.rows, -1);
    ui_dataset_run_of(&updates[1], "cat.db.bronze", &r);
    CHECK(r.state == NULL);
    CHECK(ui_snapshot_update(&s, NULL) == &updates[0]);
    CHECK(ui_snapshot_update(&s, "u-1") == &updates[1]);
    CHECK(ui_snapshot_update(&s, "nope") == NULL);
    CHECK_STR(ui_short(&s, "cat.db.bronze"), "bronze");
    CHECK_STR(ui_short(&s, "files:/data"), "files:/data");
    weir__arena_free(&s.arena);
}

TEST(test_ui_graph_dot_and_svg)
{
    ui_snapshot s;
    weir_buf b = WEIR_BUF_INIT;
    fixture(&s);
    ui_graph_dot(&b, &s, &updates[0], UI_REPORT);
    CHECK_CONTAINS(weir__buf_cstr(&b), "rankdir=LR");
    CHECK_CONTAINS(weir__buf_cstr(&b), "label=\"we\\\"ird<x>\\nmaterialized view\\nfailed\"");
    CHECK_CONTAINS(weir__buf_cstr(&b), "class=\"ds mv state-failed\"");
    CHECK_CONTAINS(weir__buf_cstr(&b), "12 rows · completed · 0.01 s");
    CHECK_CONTAINS(weir__buf_cstr(&b), "URL=\"#ds-1\"");
    CHECK_CONTAINS(weir__buf_cstr(&b),
                   "\"files:/data\" -> \"cat.db.bronze\" [class=\"streaming\", style=dashed]");
    /* Nodes are named by their dataset (the SVG titles assistive technology
     * reads) and their links' titles say what the label says. */
    CHECK_CONTAINS(weir__buf_cstr(&b), "\"cat.db.we\\\"ird<x>\" [id=\"node-1\"");
    CHECK_CONTAINS(weir__buf_cstr(&b),
                   "tooltip=\"cat.db.bronze, streaming table, 12 rows · completed · 0.01 s\"");
    CHECK_CONTAINS(weir__buf_cstr(&b), "label=\"backfill\"");
    weir__buf_clear(&b);
    ui_graph_dot(&b, &s, &updates[0], UI_SERVER);
    CHECK_CONTAINS(weir__buf_cstr(&b),
                   "URL=\"/dataset?name=cat.db.we%22ird%3Cx%3E&update=u-2\"");
    weir__buf_clear(&b);
    CHECK(ui_graph_svg(&b, &s, &updates[0], UI_REPORT));
    const char *svg = weir__buf_cstr(&b);
    CHECK(strncmp(svg, "<svg role=\"group\" aria-label=\"Dataflow graph\"", 45) == 0);
    CHECK_CONTAINS(svg, "class=\"node ds mv state&#45;failed\"");
    CHECK_CONTAINS(svg, "we&quot;ird&lt;x&gt;");
    CHECK(strstr(svg, "<x>") == NULL);
    CHECK(strstr(svg, "<?xml") == NULL);
    weir__buf_free(&b);
    weir__arena_free(&s.arena);
}

TEST(test_ui_overview_page)
{
    ui_snapshot s;
    weir_buf b = WEIR_BUF_INIT;
    fixture(&s);
    ui_page_overview(&b, &s, NULL, UI_SERVER, 7);
    const char *html = weir__buf_cstr(&b);
    CHECK(strncmp(html, "<!doctype html>", 15) == 0);
    CHECK_CONTAINS(html, "<html lang=\"en\">");
    CHECK_CONTAINS(html, "data-generation=\"7\"");
    CHECK_CONTAINS(html, "Pipeline <span id=\"pipeline\">shop&lt;1&gt;</span>");
    CHECK(strstr(html, "<x>") == NULL);
    CHECK(strstr(html, "<1>") == NULL);
    CHECK_CONTAINS(html, "<tr data-flow=\"cat.db.we&quot;ird&lt;x&gt;\" data-state=\"FAILED\">");
    /* A stateful streaming flow's state after the update. */
    CHECK_CONTAINS(html, "<span class=\"muted stream-state\">(state: 12 rows, "
                         "watermark 2024-01-01T00:20:00.000Z, 1 late rows dropped)"
                         "</span>");
    CHECK_CONTAINS(html, "<td class=\"num rows\">12</td>");
    CHECK_CONTAINS(html, "<span class=\"loc\">a.sql:3:7</span>: [CAST_INVALID_INPUT] bad &lt;value&gt;");
    CHECK_CONTAINS(html, "<td class=\"num passed\">9</td><td class=\"num failed\">1</td>"
                         "<td class=\"num dropped\">1</td>");
    CHECK_CONTAINS(html, "10.0%");
    CHECK_CONTAINS(html, "<tr data-update=\"u-2\" aria-current=\"true\">");
    CHECK_CONTAINS(html, "<a href=\"/?update=u-1\">u-1</a>");
    CHECK_CONTAINS(html, "<td class=\"selection\">refresh bronze; full refresh x</td>");
    CHECK_CONTAINS(html, "<td class=\"selection\">all</td>");
    CHECK_CONTAINS(html, "<script src=\"/ui.js\"></script>");
    /* Another update is selected by its id; the failure is not in it. */
    weir__buf_clear(&b);
    ui_page_overview(&b, &s, "u-1", UI_SERVER, 7);
    CHECK_CONTAINS(weir__buf_cstr(&b), "<tr data-update=\"u-1\" aria-current=\"true\">");
    CHECK_CONTAINS(weir__buf_cstr(&b), "No errors in this update.");
    weir__buf_free(&b);
    weir__arena_free(&s.arena);
}

TEST(test_ui_dataset_page_and_report)
{
    ui_snapshot s;
    weir_buf b = WEIR_BUF_INIT;
    fixture(&s);
    ui_page_dataset(&b, &s, 0, NULL, 1);
    const char *html = weir__buf_cstr(&b);
    CHECK_CONTAINS(html, "<dd class=\"defined-at\">a.sql:1</dd>");
    CHECK_CONTAINS(html, "raw &amp; ready");
    CHECK_CONTAINS(html, "<th scope=\"row\">id</th><td>bigint</td><td>no</td><td>the &lt;key&gt;</td>");
    CHECK_CONTAINS(html, "<th scope=\"row\">quality</th><td>bronze</td>");
    CHECK_CONTAINS(html, "CREATE STREAMING TABLE bronze AS ...;");
    CHECK_CONTAINS(html, "<ul class=\"upstream\"><li>files:/data <span class=\"muted\">(outside the pipeline)</span>");
    CHECK_CONTAINS(html, "<ul class=\"downstream\"><li><a href=\"/dataset?name=cat.db.we%22ird%3Cx%3E&amp;update=u-2\">");
    weir__buf_clear(&b);
    ui_page_report(&b, &s);
    html = weir__buf_cstr(&b);
    CHECK_CONTAINS(html, "<section class=\"dataset\" id=\"ds-0\"");
    CHECK_CONTAINS(html, "<section class=\"dataset\" id=\"ds-1\"");
    CHECK(strstr(html, "id=\"ds-2\"") == NULL); /* outside the pipeline */
    CHECK(strstr(html, "<script") == NULL);
    CHECK(strstr(html, "href=\"/") == NULL); /* anchors only */
    CHECK_CONTAINS(html, "data-mode=\"report\"");
    weir__buf_free(&b);
    weir__arena_free(&s.arena);
}

TEST_MAIN(RUN(test_ui_escaping); RUN(test_ui_dataset_run_adds_flows);
          RUN(test_ui_graph_dot_and_svg); RUN(test_ui_overview_page);
          RUN(test_ui_dataset_page_and_report);)
