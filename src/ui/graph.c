/*
 * The UI's dataflow graph: Graphviz input written from the snapshot (the
 * nodes and edges `weir graph --format dot` draws, with the palette of its
 * kinds), each node labelled with what the selected update did to it, then
 * laid out left to right and rendered to SVG by Graphviz's C library
 * (libgvc's "dot" layout and "svg" renderer) for inlining in a page.
 */
#include <stdio.h>
#include <string.h>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include "ui/ui.h"

typedef struct kind_style {
    const char *cls, *shape, *style, *fill, *line;
} kind_style;

static const kind_style styles[] = {
    [0] = { "external", "note", "dashed,filled", "#f3f4f6", "#6b7280" },
    [WEIR_STREAMING_TABLE] = { "st", "box", "rounded,filled", "#dbeafe",
                               "#2563eb" },
    [WEIR_MATERIALIZED_VIEW] = { "mv", "box", "filled", "#dcfce7", "#16a34a" },
    [WEIR_TEMPORARY_VIEW] = { "view", "ellipse", "dashed,filled", "#fefce8",
                              "#ca8a04" },
    [WEIR_PERSISTED_VIEW] = { "view", "ellipse", "filled", "#fef9c3",
                              "#ca8a04" },
    [WEIR_SINK] = { "sink", "cds", "filled", "#fde68a", "#d97706" },
};

/* Only the dot layout and the core renderers (svg), linked in: Graphviz
 * then loads no plugin from disk, and text is measured with its built-in
 * font metrics rather than through fontconfig. */
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;

static const lt_symlist_t builtins[] = {
    { "gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library },
    { "gvplugin_core_LTX_library", &gvplugin_core_LTX_library },
    { NULL, NULL },
};

static const kind_style *style_of(int kind)
{
    return &styles[kind > 0 && kind <= WEIR_SINK ? kind : 0];
}

static void dot_escaped(weir_buf *b, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            weir__buf_putc(b, '\\');
        if ((unsigned char)*s >= 0x20)
            weir__buf_putc(b, *s);
    }
}

static void lower(char *dst, size_t size, const char *s)
{
    size_t i = 0;
    for (; s && s[i] && i + 1 < size; i++)
        dst[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    dst[i] = '\0';
}

/* A flow of the update holding the storage, not done yet. */
static bool in_progress(const char *state)
{
    return !strcmp(state, "QUEUED") || !strcmp(state, "PLANNING") ||
           !strcmp(state, "STARTING") || !strcmp(state, "RUNNING");
}

static void dataset_link(weir_buf *b, const ui_snapshot *s, size_t i,
                         const ui_update *u, ui_mode mode)
{
    if (mode == UI_REPORT) {
        weir__buf_printf(b, "#ds-%zu", i);
        return;
    }
    weir_buf url = WEIR_BUF_INIT;
    weir__buf_puts(&url, "/dataset?name=");
    ui_url_value(&url, s->datasets[i].name);
    if (u) {
        weir__buf_puts(&url, "&update=");
        ui_url_value(&url, u->id);
    }
    dot_escaped(b, weir__buf_cstr(&url));
    weir__buf_free(&url);
}

static void node(weir_buf *b, const ui_snapshot *s, size_t i,
                 const ui_update *u, ui_mode mode)
{
    const ui_dataset *d = &s->datasets[i];
    const kind_style *st = style_of(d->kind);
    ui_dataset_run run;
    char state[32];

    ui_dataset_run_of(u, d->name, &run);
    lower(state, sizeof state, run.state ? run.state : (d->kind ? "idle" : ""));
    /* Named by the dataset, so the SVG's node titles (what assistive
     * technology reads for the group) are its name, not an id. */
    weir__buf_putc(b, '"');
    dot_escaped(b, d->name);
    weir__buf_printf(b, "\" [id=\"node-%zu\", class=\"ds %s%s%s\", label=\"",
                     i, st->cls, state[0] ? " state-" : "", state);
    /* The label's lines, then the same words as the link's title. */
    for (int as_title = 0; as_title < 2; as_title++) {
        const char *sep = as_title ? ", " : "\\n";
        if (as_title)
            weir__buf_puts(b, "\", tooltip=\"");
        dot_escaped(b, as_title ? d->name : ui_short(s, d->name));
        weir__buf_puts(b, sep);
        weir__buf_puts(b, ui_kind_name(d->kind));
        if (run.state) {
            weir__buf_puts(b, sep);
            if (run.rows >= 0)
                weir__buf_printf(b, "%lld rows · ", (long long)run.rows);
            weir__buf_puts(b, state);
            if (run.duration_ms >= 0)
                weir__buf_printf(b, " · %.2f s",
                                 (double)run.duration_ms / 1000.0);
        }
    }
    weir__buf_printf(b, "\", shape=%s, style=\"%s\", fillcolor=\"%s\", "
                        "color=\"%s\"",
                     st->shape, st->style, st->fill, st->line);
    if (run.state && !strcmp(run.state, "FAILED"))
        weir__buf_puts(b, ", color=\"#b91c1c\", penwidth=3");
    else if (run.state && (!strcmp(run.state, "SKIPPED") ||
                           !strcmp(run.state, "EXCLUDED")))
        weir__buf_puts(b, ", style=\"dashed,filled\", fillcolor=\"#e5e7eb\", "
                          "fontcolor=\"#374151\"");
    else if (run.state && in_progress(run.state))
        weir__buf_puts(b, ", color=\"#1d4ed8\", penwidth=3");
    weir__buf_puts(b, ", URL=\"");
    dataset_link(b, s, i, u, mode);
    weir__buf_puts(b, "\"];\n");
}

void ui_graph_dot(weir_buf *b, const ui_snapshot *s, const ui_update *u,
                  ui_mode mode)
{
    weir__buf_puts(b, "digraph pipeline {\n"
                      "  rankdir=LR; bgcolor=\"transparent\";\n"
                      "  node [fontname=\"Helvetica\", fontsize=11];\n"
                      "  edge [fontname=\"Helvetica\", fontsize=9, "
                      "color=\"#4b5563\"];\n");
    for (size_t i = 0; i < s->n_datasets; i++)
        node(b, s, i, u, mode);
    for (size_t i = 0; i < s->n_edges; i++) {
        const ui_edge *e = &s->edges[i];
        weir__buf_puts(b, "  \"");
        dot_escaped(b, s->datasets[e->from].name);
        weir__buf_puts(b, "\" -> \"");
        dot_escaped(b, s->datasets[e->to].name);
        weir__buf_printf(b, "\" [class=\"%s\"",
                         e->streaming ? "streaming" : "batch");
        if (e->streaming)
            weir__buf_puts(b, ", style=dashed");
        if (e->flow) {
            weir__buf_puts(b, ", label=\"");
            dot_escaped(b, ui_short(s, e->flow));
            weir__buf_putc(b, '"');
        }
        weir__buf_puts(b, "];\n");
    }
    weir__buf_puts(b, "}\n");
}

bool ui_graph_svg(weir_buf *out, const ui_snapshot *s, const ui_update *u,
                  ui_mode mode)
{
    weir_buf dot = WEIR_BUF_INIT;
    char *data = NULL;
    unsigned len = 0;
    bool ok = false;

    ui_graph_dot(&dot, s, u, mode);
    if (dot.failed) {
        weir__buf_free(&dot);
        return false;
    }
    GVC_t *gvc = gvContextPlugins(builtins, 0);
    Agraph_t *g = gvc ? agmemread(weir__buf_cstr(&dot)) : NULL;
    if (g && gvLayout(gvc, g, "dot") == 0) {
        if (gvRenderData(gvc, g, "svg", &data, &len) == 0 && data) {
            const char *svg = strstr(data, "<svg");
            if (svg) {
                /* The graph's links stay reachable by keyboard and screen
                 * reader: a named group, not an image. */
                weir__buf_puts(out, "<svg role=\"group\" aria-label=\"Dataflow "
                                    "graph\" class=\"graph\"");
                weir__buf_put(out, svg + 4, len - (size_t)(svg + 4 - data));
                ok = true;
            }
            gvFreeRenderData(data);
        }
        gvFreeLayout(gvc, g);
    }
    if (g)
        agclose(g);
    if (gvc)
        gvFreeContext(gvc);
    weir__buf_free(&dot);
    return ok;
}
