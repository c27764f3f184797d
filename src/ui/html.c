/*
 * The UI's pages as HTML: the overview of an update (graph, datasets,
 * updates, flow timeline, errors, data quality with trends), a dataset's
 * page (schema, properties, defining query, upstream and downstream) and
 * the one-file report that holds them all. Plain semantic markup (headings,
 * tables with captions, lists, links), inline CSS only, numbers always as
 * text beside any bar; the server's pages add one small script of ours for
 * live refresh (ui_script).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ui/ui.h"
#include "util/json.h"

#define TREND_UPDATES 10

static const char css[] =
    ":root{--fg:#111827;--muted:#4b5563;--line:#d1d5db;--bg:#fff;"
    "--st:#dbeafe;--mv:#dcfce7;--view:#fef9c3;--sink:#fde68a;--ext:#f3f4f6}"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
    "color:var(--fg);background:var(--bg);margin:0 auto;max-width:1200px;"
    "padding:0 1rem 3rem}"
    "a{color:#1d4ed8}a:focus,summary:focus{outline:3px solid #f59e0b;"
    "outline-offset:2px}"
    ".skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;"
    "background:#fff;padding:.5rem}"
    "header{border-bottom:1px solid var(--line);margin-bottom:1rem}"
    "h1{font-size:1.5rem;margin:1rem 0 .25rem}h2{font-size:1.15rem;"
    "margin:1.75rem 0 .5rem}h3{font-size:1rem}"
    ".muted{color:var(--muted)}"
    "table{border-collapse:collapse;width:100%;margin:.25rem 0 1rem}"
    "caption{text-align:left;color:var(--muted);padding:.25rem 0}"
    "th,td{border-bottom:1px solid var(--line);padding:.3rem .5rem;"
    "text-align:left;vertical-align:top}td.num,th.num{text-align:right;"
    "font-variant-numeric:tabular-nums}"
    "tr[aria-current] td{background:#eff6ff;font-weight:600}"
    "figure{margin:0;overflow:auto;border:1px solid var(--line);"
    "padding:.5rem;border-radius:6px}svg.graph{max-width:100%;height:auto}"
    ".legend{display:flex;flex-wrap:wrap;gap:.75rem;padding:0;"
    "list-style:none;margin:.5rem 0}"
    ".sw{display:inline-block;width:.9em;height:.9em;border:1px solid #6b7280;"
    "vertical-align:middle;margin-right:.3em}"
    ".k-st{background:var(--st)}.k-mv{background:var(--mv)}"
    ".k-view{background:var(--view)}.k-sink{background:var(--sink)}"
    ".k-external{background:var(--ext)}"
    ".state{font-weight:600}.state-failed{color:#b91c1c}"
    ".state-skipped,.state-excluded,.state-idle{color:#6b7280}"
    ".state-completed{color:#15803d}.state-queued,.state-planning,"
    ".state-starting,.state-running{color:#1d4ed8}"
    ".bars{position:relative;height:1rem;background:#f9fafb;"
    "border:1px solid var(--line);min-width:12rem}"
    ".bars span{position:absolute;top:0;bottom:0}"
    ".p-queued{background:#d1d5db}.p-planning{background:#fcd34d}"
    ".p-running{background:#60a5fa}.p-failed{background:#f87171}"
    ".qbar{display:inline-block;height:.7rem;width:8rem;background:#dcfce7;"
    "border:1px solid var(--line);vertical-align:middle;position:relative}"
    ".qbar span{position:absolute;right:0;top:0;bottom:0;background:#ef4444}"
    "pre{background:#f9fafb;border:1px solid var(--line);padding:.75rem;"
    "overflow:auto;border-radius:6px}"
    "#live:not(:empty){background:#fef3c7;border:1px solid #f59e0b;"
    "padding:.5rem;border-radius:6px}"
    ".error pre{white-space:pre-wrap}"
    "dl.facts{display:grid;grid-template-columns:max-content 1fr;"
    "gap:.25rem 1rem}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}"
    ".vh{position:absolute;width:1px;height:1px;overflow:hidden;"
    "clip:rect(0 0 0 0);white-space:nowrap}";

const char ui_script[] =
    "/* weir ui: reload when the pipeline's state changes. */\n"
    "(function () {\n"
    "  var gen = document.body.getAttribute('data-generation');\n"
    "  var live = document.getElementById('live');\n"
    "  document.body.setAttribute('data-live', 'polling');\n"
    "  function poll() {\n"
    "    fetch('/api/state', {cache: 'no-store', credentials: 'same-origin'})\n"
    "      .then(function (r) { return r.ok ? r.json() : null; })\n"
    "      .then(function (s) {\n"
    "        if (!s) return;\n"
    "        if (String(s.generation) !== gen) { location.reload(); return; }\n"
    "        if (live) live.textContent = s.busy || '';\n"
    "      })\n"
    "      .catch(function () {})\n"
    "      .then(function () { setTimeout(poll, 2000); });\n"
    "  }\n"
    "  window.addEventListener('load', function () {\n"
    "    /* How long the page took, from navigation start (bench/ui.sh). */\n"
    "    document.body.setAttribute('data-load-ms',\n"
    "                               String(Math.round(performance.now())));\n"
    "  });\n"
    "  setTimeout(poll, 2000);\n"
    "})();\n";

const char *ui_kind_name(int kind)
{
    return kind ? weir_dataset_kind_name((weir_dataset_kind)kind) : "external";
}

static const char *kind_class(int kind)
{
    switch (kind) {
    case WEIR_STREAMING_TABLE: return "st";
    case WEIR_MATERIALIZED_VIEW: return "mv";
    case WEIR_TEMPORARY_VIEW:
    case WEIR_PERSISTED_VIEW: return "view";
    case WEIR_SINK: return "sink";
    default: return "external";
    }
}

void ui_html_text(weir_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': weir__buf_puts(b, "&amp;"); break;
        case '<': weir__buf_puts(b, "&lt;"); break;
        case '>': weir__buf_puts(b, "&gt;"); break;
        case '"': weir__buf_puts(b, "&quot;"); break;
        case '\'': weir__buf_puts(b, "&#39;"); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
                weir__buf_putc(b, *s);
        }
    }
}

void ui_url_value(weir_buf *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
            c == '~')
            weir__buf_putc(b, (char)c);
        else
            weir__buf_put_percent(b, c);
    }
}

/* --- Small pieces -------------------------------------------------------- */

static void put_time(weir_buf *b, int64_t us)
{
    char text[32], iso[32];
    struct tm tm;
    time_t t = (time_t)(us / 1000000);
    if (!us || !gmtime_r(&t, &tm) ||
        !strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm) ||
        !strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm)) {
        weir__buf_puts(b, "–");
        return;
    }
    weir__buf_printf(b, "<time datetime=\"%s\">%s</time>", iso, text);
}

static void put_seconds(weir_buf *b, int64_t us)
{
    if (us < 0)
        weir__buf_puts(b, "–");
    else
        weir__buf_printf(b, "%.2f s", (double)us / 1e6);
}

static void put_count(weir_buf *b, int64_t n)
{
    if (n < 0)
        weir__buf_puts(b, "–");
    else
        weir__buf_printf(b, "%" PRId64, n);
}

static void put_state(weir_buf *b, const char *state)
{
    char cls[32];
    size_t i = 0;
    for (; state && state[i] && i + 1 < sizeof cls; i++)
        cls[i] = (char)(state[i] >= 'A' && state[i] <= 'Z' ? state[i] + 32
                                                           : state[i]);
    cls[i] = '\0';
    weir__buf_printf(b, "<span class=\"state state-%s\">", cls);
    ui_html_text(b, cls[0] ? cls : "–");
    weir__buf_puts(b, "</span>");
}

static void dataset_href(weir_buf *b, const ui_snapshot *s, size_t d,
                         const ui_update *u, ui_mode mode)
{
    if (mode == UI_REPORT) {
        weir__buf_printf(b, "#ds-%zu", d);
        return;
    }
    weir_buf url = WEIR_BUF_INIT;
    weir__buf_puts(&url, "/dataset?name=");
    ui_url_value(&url, s->datasets[d].name);
    if (u) {
        weir__buf_puts(&url, "&update=");
        ui_url_value(&url, u->id);
    }
    ui_html_text(b, weir__buf_cstr(&url));
    weir__buf_free(&url);
}

static void dataset_link(weir_buf *b, const ui_snapshot *s, const char *name,
                         const ui_update *u, ui_mode mode)
{
    size_t d = ui_snapshot_dataset(s, name);
    if (d == SIZE_MAX || !s->datasets[d].kind) {
        ui_html_text(b, ui_short(s, name));
        return;
    }
    weir__buf_puts(b, "<a href=\"");
    dataset_href(b, s, d, u, mode);
    weir__buf_puts(b, "\">");
    ui_html_text(b, ui_short(s, name));
    weir__buf_puts(b, "</a>");
}

static void head(weir_buf *b, const ui_snapshot *s, const char *title,
                 uint64_t generation, ui_mode mode)
{
    weir__buf_puts(b, "<!doctype html>\n<html lang=\"en\"><head>"
                      "<meta charset=\"utf-8\">"
                      "<meta name=\"viewport\" content=\"width=device-width, "
                      "initial-scale=1\"><title>");
    ui_html_text(b, title);
    weir__buf_puts(b, " · weir</title><style>");
    weir__buf_puts(b, css);
    weir__buf_printf(b, "</style></head>\n<body data-generation=\"%" PRIu64
                        "\" data-mode=\"%s\">"
                        "<a class=\"skip\" href=\"#main\">Skip to content</a>",
                     generation, mode == UI_REPORT ? "report" : "server");
    weir__buf_puts(b, "<header><h1>Pipeline <span id=\"pipeline\">");
    ui_html_text(b, s->pipeline);
    weir__buf_puts(b, "</span></h1><p class=\"muted\">Storage ");
    ui_html_text(b, s->storage ? s->storage : "(none)");
    if (mode == UI_SERVER && strcmp(title, s->pipeline ? s->pipeline : "") != 0)
        weir__buf_puts(b, " · <a href=\"/\">Overview</a>");
    weir__buf_puts(b, "</p></header><div id=\"live\" role=\"status\" "
                      "aria-live=\"polite\">");
    ui_html_text(b, ui_snapshot_busy_note(s));
    weir__buf_puts(b, "</div><main id=\"main\">");
}

static void foot(weir_buf *b, ui_mode mode)
{
    weir__buf_puts(b, "</main>");
    if (mode == UI_SERVER)
        weir__buf_puts(b, "<script src=\"/ui.js\"></script>");
    weir__buf_puts(b, "</body></html>\n");
}

/* --- Sections of the overview ------------------------------------------------ */

static void legend(weir_buf *b)
{
    static const int kinds[] = { WEIR_STREAMING_TABLE, WEIR_MATERIALIZED_VIEW,
                                 WEIR_PERSISTED_VIEW, WEIR_SINK, 0 };
    weir__buf_puts(b, "<ul class=\"legend\" aria-label=\"Legend\">");
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        weir__buf_printf(b, "<li><span class=\"sw k-%s\" aria-hidden=\"true\">"
                            "</span>%s</li>",
                         kind_class(kinds[i]), ui_kind_name(kinds[i]));
    weir__buf_puts(b, "<li>dashed edge: streaming read</li></ul>");
}

static void graph_section(weir_buf *b, const ui_snapshot *s,
                          const ui_update *u, ui_mode mode)
{
    weir__buf_puts(b, "<section aria-labelledby=\"h-graph\"><h2 id=\"h-graph\">"
                      "Dataflow graph</h2>");
    if (s->graph_note) {
        weir__buf_puts(b, "<p id=\"graph-note\">");
        ui_html_text(b, s->graph_note);
        weir__buf_puts(b, "</p>");
    }
    if (s->n_datasets) {
        legend(b);
        weir__buf_puts(b, "<figure id=\"graph\">");
        if (!ui_graph_svg(b, s, u, mode))
            weir__buf_puts(b, "<p>Graphviz could not lay out the graph.</p>");
        weir__buf_puts(b, "</figure>");
    }
    weir__buf_puts(b, "<table id=\"datasets\"><caption>Datasets");
    if (u) {
        weir__buf_puts(b, " in update ");
        ui_html_text(b, u->id);
    }
    weir__buf_puts(b, "</caption><thead><tr><th scope=\"col\">Dataset</th>"
                      "<th scope=\"col\">Kind</th><th scope=\"col\">State</th>"
                      "<th scope=\"col\" class=\"num\">Rows written</th>"
                      "<th scope=\"col\" class=\"num\">Duration</th></tr>"
                      "</thead><tbody>");
    for (size_t i = 0; i < s->n_datasets; i++) {
        const ui_dataset *d = &s->datasets[i];
        ui_dataset_run run;
        if (!d->kind)
            continue;
        ui_dataset_run_of(u, d->name, &run);
        weir__buf_puts(b, "<tr data-dataset=\"");
        ui_html_text(b, d->name);
        weir__buf_printf(b, "\" data-kind=\"%s\"><th scope=\"row\">",
                         kind_class(d->kind));
        dataset_link(b, s, d->name, u, mode);
        weir__buf_printf(b, "</th><td>%s</td><td>", ui_kind_name(d->kind));
        put_state(b, run.state ? run.state : "IDLE");
        weir__buf_puts(b, "</td><td class=\"num rows\">");
        put_count(b, run.rows);
        weir__buf_puts(b, "</td><td class=\"num\">");
        put_seconds(b, run.duration_ms < 0 ? -1 : run.duration_ms * 1000);
        weir__buf_puts(b, "</td></tr>");
    }
    weir__buf_puts(b, "</tbody></table></section>");
}

static void put_list(weir_buf *b, const ui_snapshot *s, const weir_json *list)
{
    for (size_t i = 0; list && list->type == WEIR_JSON_ARRAY && i < list->len; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (list->items[i]->type == WEIR_JSON_STRING)
            ui_html_text(b, ui_short(s, list->items[i]->text));
    }
}

/* weir.updates.options in words: "all", "full refresh of all", or the
 * datasets refreshed and fully refreshed. */
static void put_selection(weir_buf *b, const ui_snapshot *s, const char *json)
{
    weir_arena scratch;
    weir_json *j = NULL;
    weir__arena_init(&scratch);
    if (!json || weir__json_parse(&j, &scratch, json, strlen(json), NULL) != 0 ||
        !j || j->type != WEIR_JSON_OBJECT) {
        weir__buf_puts(b, json ? "" : "all");
        ui_html_text(b, json);
    } else if (weir__json_get(j, "full_refresh_all")) {
        weir__buf_puts(b, "full refresh of all");
    } else {
        const weir_json *r = weir__json_get(j, "refresh");
        const weir_json *f = weir__json_get(j, "full_refresh");
        if (r) {
            weir__buf_puts(b, "refresh ");
            put_list(b, s, r);
        }
        if (f) {
            weir__buf_puts(b, r ? "; full refresh " : "full refresh ");
            put_list(b, s, f);
        }
    }
    weir__arena_free(&scratch);
}

static void updates_section(weir_buf *b, const ui_snapshot *s,
                            const ui_update *sel, ui_mode mode)
{
    weir__buf_puts(b, "<section aria-labelledby=\"h-updates\"><h2 "
                      "id=\"h-updates\">Updates</h2>");
    if (!s->n_updates) {
        weir__buf_puts(b, "<p>No updates recorded yet: run the pipeline "
                          "with <code>weir run</code>.</p></section>");
        return;
    }
    weir__buf_puts(b, "<table id=\"updates\"><caption>Most recent first"
                      "</caption><thead><tr><th scope=\"col\">Update</th>"
                      "<th scope=\"col\">Start (UTC)</th>"
                      "<th scope=\"col\" class=\"num\">Duration</th>"
                      "<th scope=\"col\">State</th>"
                      "<th scope=\"col\" class=\"num\">Rows written</th>"
                      "<th scope=\"col\">Refresh selection</th></tr></thead>"
                      "<tbody>");
    for (size_t i = 0; i < s->n_updates; i++) {
        const ui_update *u = &s->updates[i];
        weir__buf_puts(b, "<tr data-update=\"");
        ui_html_text(b, u->id);
        weir__buf_puts(b, "\"");
        if (u == sel)
            weir__buf_puts(b, " aria-current=\"true\"");
        weir__buf_puts(b, "><th scope=\"row\">");
        if (mode == UI_SERVER) {
            weir__buf_puts(b, "<a href=\"/?update=");
            ui_url_value(b, u->id);
            weir__buf_puts(b, "\">");
        }
        weir__buf_put(b, u->id, strlen(u->id) < 8 ? strlen(u->id) : 8);
        weir__buf_puts(b, mode == UI_SERVER ? "</a></th><td>" : "</th><td>");
        put_time(b, u->start_us);
        weir__buf_puts(b, "</td><td class=\"num\">");
        put_seconds(b, u->end_us ? u->end_us - u->start_us : -1);
        weir__buf_puts(b, "</td><td>");
        put_state(b, u->state);
        weir__buf_puts(b, "</td><td class=\"num\">");
        put_count(b, u->rows_written);
        weir__buf_puts(b, "</td><td class=\"selection\">");
        put_selection(b, s, u->options);
        weir__buf_puts(b, "</td></tr>");
    }
    weir__buf_puts(b, "</tbody></table></section>");
}

static void bar(weir_buf *b, const char *cls, int64_t from, int64_t to,
                int64_t t0, int64_t span, const char *what)
{
    if (!from || to < from)
        return;
    double left = 100.0 * (double)(from - t0) / (double)span;
    double width = 100.0 * (double)(to - from) / (double)span;
    if (width < 0.5)
        width = 0.5;
    if (left + width > 100.0)
        left = 100.0 - width;
    weir__buf_printf(b, "<span class=\"p-%s\" style=\"left:%.2f%%;width:%.2f%%\""
                        " title=\"%s %.3f s\"></span>",
                     cls, left < 0 ? 0 : left, width, what,
                     (double)(to - from) / 1e6);
}

static void flows_section(weir_buf *b, const ui_snapshot *s, const ui_update *u,
                          ui_mode mode)
{
    weir__buf_puts(b, "<section aria-labelledby=\"h-flows\"><h2 id=\"h-flows\">"
                      "Flows of this update</h2>");
    if (!u || !u->n_flows) {
        weir__buf_puts(b, "<p>No flows ran.</p></section>");
        return;
    }
    int64_t t0 = u->start_us, t1 = u->end_us;
    for (size_t i = 0; i < u->n_flows; i++) {
        const ui_flow_run *f = &u->flows[i];
        int64_t first = f->queued_us ? f->queued_us : f->starting_us;
        if (first && (!t0 || first < t0))
            t0 = first;
        /* A running update has no end yet: up to its latest event. */
        int64_t last[] = { f->end_us, f->starting_us, f->planning_us, first };
        for (size_t k = 0; k < sizeof last / sizeof last[0]; k++)
            if (last[k] > t1)
                t1 = last[k];
    }
    int64_t span = t1 > t0 ? t1 - t0 : 1;
    weir__buf_puts(b, "<ul class=\"legend\" aria-label=\"Timeline legend\">"
                      "<li><span class=\"sw p-queued\" aria-hidden=\"true\">"
                      "</span>queued</li><li><span class=\"sw p-planning\" "
                      "aria-hidden=\"true\"></span>planning</li><li><span "
                      "class=\"sw p-running\" aria-hidden=\"true\"></span>"
                      "running</li></ul>");
    weir__buf_puts(b, "<table id=\"flows\"><caption>Timeline of the flows, "
                      "from the update's start</caption><thead><tr>"
                      "<th scope=\"col\">Flow</th><th scope=\"col\">State</th>"
                      "<th scope=\"col\">Timeline</th>"
                      "<th scope=\"col\" class=\"num\">Rows</th>"
                      "<th scope=\"col\" class=\"num\">Duration</th></tr>"
                      "</thead><tbody>");
    for (size_t i = 0; i < u->n_flows; i++) {
        const ui_flow_run *f = &u->flows[i];
        int64_t end = f->end_us ? f->end_us : t1;
        int64_t run_from = f->starting_us;
        int64_t plan_to = run_from ? run_from : end;
        int64_t queue_to = f->planning_us ? f->planning_us : plan_to;
        weir__buf_puts(b, "<tr data-flow=\"");
        ui_html_text(b, f->flow);
        weir__buf_puts(b, "\" data-state=\"");
        ui_html_text(b, f->state);
        weir__buf_puts(b, "\"><th scope=\"row\">");
        dataset_link(b, s, f->dataset, u, mode);
        if (strcmp(f->flow, f->dataset) != 0) {
            weir__buf_puts(b, " <span class=\"muted\">(flow ");
            ui_html_text(b, ui_short(s, f->flow));
            weir__buf_puts(b, ")</span>");
        }
        weir__buf_puts(b, "</th><td>");
        put_state(b, f->state);
        if (f->failures > 1)
            weir__buf_printf(b, " <span class=\"muted\">(%u attempts failed)"
                                "</span>",
                             f->failures);
        if (f->state_rows >= 0) {
            /* A stateful streaming flow: its state after the update. */
            weir__buf_printf(b, " <span class=\"muted stream-state\">(state: "
                                "%" PRId64 " rows",
                             f->state_rows);
            if (f->watermark) {
                weir__buf_puts(b, ", watermark ");
                ui_html_text(b, f->watermark);
            }
            if (f->late_rows)
                weir__buf_printf(b, ", %" PRId64 " late rows dropped",
                                 f->late_rows);
            weir__buf_puts(b, ")</span>");
        }
        weir__buf_puts(b, "</td><td><div class=\"bars\" aria-hidden=\"true\">");
        bar(b, "queued", f->queued_us, queue_to, t0, span, "queued");
        bar(b, "planning", f->planning_us, plan_to, t0, span, "planning");
        bar(b, strcmp(f->state, "FAILED") ? "running" : "failed", run_from, end,
            t0, span, "running");
        weir__buf_puts(b, "</div></td><td class=\"num\">");
        put_count(b, f->rows);
        weir__buf_puts(b, "</td><td class=\"num\">");
        put_seconds(b, run_from && f->end_us ? f->end_us - run_from : -1);
        weir__buf_puts(b, "</td></tr>");
    }
    weir__buf_puts(b, "</tbody></table></section>");
}

static void errors_section(weir_buf *b, const ui_snapshot *s,
                           const ui_update *u)
{
    weir__buf_puts(b, "<section aria-labelledby=\"h-errors\"><h2 "
                      "id=\"h-errors\">Errors</h2>");
    if (!u || !u->n_errors) {
        weir__buf_puts(b, "<p id=\"no-errors\">No errors in this update.</p>"
                          "</section>");
        return;
    }
    weir__buf_puts(b, "<ul id=\"errors\">");
    for (size_t i = 0; i < u->n_errors; i++) {
        const ui_error *e = &u->errors[i];
        weir__buf_puts(b, "<li class=\"error\" data-level=\"");
        ui_html_text(b, e->level);
        weir__buf_puts(b, "\"><p><strong>");
        ui_html_text(b, e->level);
        weir__buf_puts(b, "</strong> ");
        put_time(b, e->ts_us);
        if (e->flow) {
            weir__buf_puts(b, " · ");
            ui_html_text(b, ui_short(s, e->flow));
        }
        weir__buf_puts(b, ": ");
        ui_html_text(b, e->message);
        weir__buf_puts(b, "</p><pre>");
        if (e->path) {
            weir__buf_puts(b, "<span class=\"loc\">");
            ui_html_text(b, e->path);
            if (e->line)
                weir__buf_printf(b, ":%u", e->line);
            if (e->line && e->column)
                weir__buf_printf(b, ":%u", e->column);
            weir__buf_puts(b, e->at_definition ? "</span> (the flow's "
                                                 "definition): "
                                               : "</span>: ");
        }
        if (e->cls) {
            weir__buf_puts(b, "[");
            ui_html_text(b, e->cls);
            weir__buf_puts(b, "] ");
        }
        ui_html_text(b, e->text);
        weir__buf_puts(b, "</pre></li>");
    }
    weir__buf_puts(b, "</ul></section>");
}

/* The failed share of an expectation in update u, or -1 when it did not
 * report there. */
static double failed_share(const ui_update *u, const ui_expectation *x)
{
    for (size_t i = 0; i < u->n_quality; i++) {
        const ui_expectation *y = &u->quality[i];
        if (!strcmp(y->dataset, x->dataset) && !strcmp(y->name, x->name)) {
            int64_t all = y->passed + y->failed;
            return all > 0 ? (double)y->failed / (double)all : 0.0;
        }
    }
    return -1;
}

/* A sparkline of the failed share over the updates up to u (oldest left),
 * with the numbers as text for screen readers. */
static void trend(weir_buf *b, const ui_snapshot *s, const ui_update *u,
                  const ui_expectation *x)
{
    size_t at = (size_t)(u - s->updates), n = 0;
    double v[TREND_UPDATES];
    for (size_t k = at; k < s->n_updates && n < TREND_UPDATES; k++) {
        double share = failed_share(&s->updates[k], x);
        if (share >= 0)
            v[n++] = share;
    }
    weir__buf_puts(b, "<svg class=\"trend\" width=\"90\" height=\"20\" "
                      "viewBox=\"0 0 90 20\" aria-hidden=\"true\">"
                      "<polyline fill=\"none\" stroke=\"#b91c1c\" "
                      "stroke-width=\"1.5\" points=\"");
    for (size_t i = 0; i < n; i++) {
        double xpos = n > 1 ? 2.0 + 86.0 * (double)i / (double)(n - 1) : 45.0;
        weir__buf_printf(b, "%s%.1f,%.1f", i ? " " : "", xpos,
                         18.0 - 16.0 * v[n - 1 - i]);
    }
    weir__buf_puts(b, "\"/>");
    for (size_t i = 0; i < n; i++)
        weir__buf_printf(b, "<circle r=\"2\" fill=\"#b91c1c\" cx=\"%.1f\" "
                            "cy=\"%.1f\"/>",
                         n > 1 ? 2.0 + 86.0 * (double)i / (double)(n - 1) : 45.0,
                         18.0 - 16.0 * v[n - 1 - i]);
    weir__buf_puts(b, "</svg><span class=\"vh\">failed share, oldest "
                      "first:");
    for (size_t i = 0; i < n; i++)
        weir__buf_printf(b, " %.1f%%", 100.0 * v[n - 1 - i]);
    weir__buf_puts(b, "</span>");
}

static void quality_table(weir_buf *b, const ui_snapshot *s, const ui_update *u,
                          const char *only, ui_mode mode)
{
    size_t shown = 0;
    for (size_t i = 0; u && i < u->n_quality; i++)
        shown += !only || !strcmp(u->quality[i].dataset, only);
    if (!shown) {
        weir__buf_puts(b, "<p>No expectations reported in this update.</p>");
        return;
    }
    weir__buf_printf(b, "<table %s><caption>Records per expectation; the "
                        "trend is the failed share over the last updates"
                        "</caption><thead><tr>",
                     only ? "class=\"quality\"" : "id=\"quality\" class=\"quality\"");
    if (!only)
        weir__buf_puts(b, "<th scope=\"col\">Dataset</th>");
    weir__buf_puts(b, "<th scope=\"col\">Expectation</th>"
                      "<th scope=\"col\">Action</th>"
                      "<th scope=\"col\" class=\"num\">Passed</th>"
                      "<th scope=\"col\" class=\"num\">Failed</th>"
                      "<th scope=\"col\" class=\"num\">Dropped</th>"
                      "<th scope=\"col\" class=\"num\">Quarantined</th>"
                      "<th scope=\"col\">Failed share</th>"
                      "<th scope=\"col\">Trend</th></tr></thead><tbody>");
    for (size_t i = 0; i < u->n_quality; i++) {
        const ui_expectation *x = &u->quality[i];
        if (only && strcmp(x->dataset, only) != 0)
            continue;
        int64_t all = x->passed + x->failed;
        double share = all ? (double)x->failed / (double)all : 0.0;
        bool drop = !strcmp(x->action, "drop");
        bool quarantine = !strcmp(x->action, "quarantine");
        weir__buf_puts(b, "<tr data-dataset=\"");
        ui_html_text(b, x->dataset);
        weir__buf_puts(b, "\" data-expectation=\"");
        ui_html_text(b, x->name);
        weir__buf_puts(b, "\">");
        if (!only) {
            weir__buf_puts(b, "<td>");
            dataset_link(b, s, x->dataset, u, mode);
            weir__buf_puts(b, "</td>");
        }
        weir__buf_puts(b, "<th scope=\"row\">");
        ui_html_text(b, x->name);
        weir__buf_puts(b, "</th><td>");
        ui_html_text(b, x->action);
        weir__buf_printf(b, "</td><td class=\"num passed\">%" PRId64 "</td>"
                            "<td class=\"num failed\">%" PRId64 "</td>"
                            "<td class=\"num dropped\">%" PRId64 "</td>"
                            "<td class=\"num quarantined\">%" PRId64 "</td>",
                         x->passed, x->failed, drop ? x->failed : 0,
                         quarantine ? x->failed : 0);
        weir__buf_printf(b, "<td><span class=\"qbar\" aria-hidden=\"true\">"
                            "<span style=\"width:%.1f%%\"></span></span> "
                            "%.1f%%</td><td>",
                         100.0 * share, 100.0 * share);
        trend(b, s, u, x);
        weir__buf_puts(b, "</td></tr>");
    }
    weir__buf_puts(b, "</tbody></table>");
}

static void quality_section(weir_buf *b, const ui_snapshot *s,
                            const ui_update *u, ui_mode mode)
{
    weir__buf_puts(b, "<section aria-labelledby=\"h-quality\"><h2 "
                      "id=\"h-quality\">Data quality</h2>");
    quality_table(b, s, u, NULL, mode);
    weir__buf_puts(b, "</section>");
}

static void overview_body(weir_buf *b, const ui_snapshot *s,
                          const ui_update *u, ui_mode mode)
{
    if (u) {
        weir__buf_puts(b, "<p id=\"selected\">Update <code>");
        ui_html_text(b, u->id);
        weir__buf_puts(b, "</code>, ");
        put_state(b, u->state);
        weir__buf_puts(b, ", started ");
        put_time(b, u->start_us);
        weir__buf_puts(b, " UTC.</p>");
    }
    graph_section(b, s, u, mode);
    updates_section(b, s, u, mode);
    flows_section(b, s, u, mode);
    errors_section(b, s, u);
    quality_section(b, s, u, mode);
}

void ui_page_overview(weir_buf *b, const ui_snapshot *s, const char *id,
                      ui_mode mode, uint64_t generation)
{
    head(b, s, s->pipeline ? s->pipeline : "pipeline", generation, mode);
    overview_body(b, s, ui_snapshot_update(s, id), mode);
    foot(b, mode);
}

/* --- The dataset page ------------------------------------------------------- */

static void properties(weir_buf *b, const char *json)
{
    weir_arena scratch;
    weir_json *j = NULL;
    weir__arena_init(&scratch);
    if (json && weir__json_parse(&j, &scratch, json, strlen(json), NULL) == 0 &&
        j && j->type == WEIR_JSON_OBJECT && j->len) {
        weir__buf_puts(b, "<table class=\"properties\"><caption>Table "
                          "properties</caption><thead><tr><th scope=\"col\">"
                          "Key</th><th scope=\"col\">Value</th></tr></thead>"
                          "<tbody>");
        for (size_t i = 0; i < j->len; i++) {
            weir__buf_puts(b, "<tr><th scope=\"row\">");
            ui_html_text(b, j->keys[i]);
            weir__buf_puts(b, "</th><td>");
            ui_html_text(b, j->items[i]->text);
            weir__buf_puts(b, "</td></tr>");
        }
        weir__buf_puts(b, "</tbody></table>");
    } else {
        weir__buf_puts(b, "<p>No table properties.</p>");
    }
    weir__arena_free(&scratch);
}

static void neighbours(weir_buf *b, const ui_snapshot *s, size_t d,
                       const ui_update *u, ui_mode mode, bool up)
{
    size_t n = 0;
    weir__buf_printf(b, "<h3>%s</h3><ul class=\"%s\">",
                     up ? "Upstream" : "Downstream", up ? "upstream" : "downstream");
    for (size_t i = 0; i < s->n_edges; i++) {
        const ui_edge *e = &s->edges[i];
        if ((up ? e->to : e->from) != d)
            continue;
        const char *other = s->datasets[up ? e->from : e->to].name;
        weir__buf_puts(b, "<li>");
        dataset_link(b, s, other, u, mode);
        if (!s->datasets[up ? e->from : e->to].kind)
            weir__buf_puts(b, " <span class=\"muted\">(outside the pipeline)"
                              "</span>");
        if (e->streaming)
            weir__buf_puts(b, " <span class=\"muted\">(streaming)</span>");
        weir__buf_puts(b, "</li>");
        n++;
    }
    weir__buf_puts(b, n ? "</ul>" : "<li>none</li></ul>");
}

static void dataset_body(weir_buf *b, const ui_snapshot *s, size_t di,
                         const ui_update *u, ui_mode mode, int level)
{
    const ui_dataset *d = &s->datasets[di];
    ui_dataset_run run;
    ui_dataset_run_of(u, d->name, &run);
    weir__buf_printf(b, "<h%d class=\"dataset-name\">", level);
    ui_html_text(b, d->name);
    weir__buf_printf(b, "</h%d><dl class=\"facts\"><dt>Kind</dt><dd class="
                        "\"kind\">%s</dd>",
                     level, ui_kind_name(d->kind));
    if (d->comment) {
        weir__buf_puts(b, "<dt>Comment</dt><dd>");
        ui_html_text(b, d->comment);
        weir__buf_puts(b, "</dd>");
    }
    if (d->format) {
        weir__buf_puts(b, "<dt>Format</dt><dd>");
        ui_html_text(b, d->format);
        weir__buf_puts(b, "</dd>");
    }
    weir__buf_puts(b, "<dt>Defined at</dt><dd class=\"defined-at\">");
    if (d->source_path) {
        ui_html_text(b, d->source_path);
        if (d->source_line)
            weir__buf_printf(b, ":%u", d->source_line);
    } else {
        weir__buf_puts(b, "–");
    }
    weir__buf_puts(b, "</dd><dt>In this update</dt><dd>");
    put_state(b, run.state ? run.state : "IDLE");
    weir__buf_puts(b, ", ");
    put_count(b, run.rows);
    weir__buf_puts(b, " rows</dd></dl>");
    weir__buf_printf(b, "<h%d>Schema</h%d>", level + 1, level + 1);
    if (d->n_columns) {
        weir__buf_puts(b, "<table class=\"schema\"><caption>Columns</caption>"
                          "<thead><tr><th scope=\"col\">Column</th><th "
                          "scope=\"col\">Type</th><th scope=\"col\">Nullable"
                          "</th><th scope=\"col\">Comment</th></tr></thead>"
                          "<tbody>");
        for (size_t c = 0; c < d->n_columns; c++) {
            weir__buf_puts(b, "<tr><th scope=\"row\">");
            ui_html_text(b, d->columns[c].name);
            weir__buf_puts(b, "</th><td>");
            ui_html_text(b, d->columns[c].type);
            weir__buf_printf(b, "</td><td>%s</td><td>",
                             d->columns[c].nullable ? "yes" : "no");
            ui_html_text(b, d->columns[c].comment);
            weir__buf_puts(b, "</td></tr>");
        }
        weir__buf_puts(b, "</tbody></table>");
    } else {
        weir__buf_puts(b, "<p>No resolved schema.</p>");
    }
    weir__buf_printf(b, "<h%d>Properties</h%d>", level + 1, level + 1);
    properties(b, d->properties);
    weir__buf_printf(b, "<h%d>Defining query</h%d>", level + 1, level + 1);
    if (d->query) {
        weir__buf_puts(b, "<figure class=\"query\"><figcaption>");
        ui_html_text(b, d->source_path);
        weir__buf_printf(b, ":%u</figcaption><pre><code>", d->source_line);
        ui_html_text(b, d->query);
        weir__buf_puts(b, "</code></pre></figure>");
    } else {
        weir__buf_puts(b, "<p>Not available.</p>");
    }
    weir__buf_printf(b, "<h%d>Lineage</h%d>", level + 1, level + 1);
    neighbours(b, s, di, u, mode, true);
    neighbours(b, s, di, u, mode, false);
    weir__buf_printf(b, "<h%d>Data quality</h%d>", level + 1, level + 1);
    quality_table(b, s, u, d->name, mode);
}

void ui_page_dataset(weir_buf *b, const ui_snapshot *s, size_t d,
                     const char *id, uint64_t generation)
{
    head(b, s, s->datasets[d].name, generation, UI_SERVER);
    dataset_body(b, s, d, ui_snapshot_update(s, id), UI_SERVER, 2);
    foot(b, UI_SERVER);
}

void ui_page_report(weir_buf *b, const ui_snapshot *s)
{
    const ui_update *u = ui_snapshot_update(s, NULL);
    head(b, s, s->pipeline ? s->pipeline : "pipeline", 0, UI_REPORT);
    overview_body(b, s, u, UI_REPORT);
    weir__buf_puts(b, "<h2 id=\"h-datasets\">Datasets</h2>");
    for (size_t i = 0; i < s->n_datasets; i++) {
        if (!s->datasets[i].kind)
            continue;
        weir__buf_printf(b, "<section class=\"dataset\" id=\"ds-%zu\" "
                            "aria-label=\"",
                         i);
        ui_html_text(b, s->datasets[i].name);
        weir__buf_puts(b, "\">");
        dataset_body(b, s, i, u, UI_REPORT, 3);
        weir__buf_puts(b, "</section>");
    }
    foot(b, UI_REPORT);
}
