/*
 * `weir graph`: resolve the pipeline with a silent dry run and print its
 * dataflow graph from weir_pipeline_describe, as text (datasets in
 * dependency order with their inputs), a Graphviz digraph or a Mermaid
 * flowchart. Nodes are datasets (shaped by kind) and the tables and files
 * the pipeline reads from outside; an edge goes from each input of a flow to
 * its target, dashed when the flow reads a stream.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef enum graph_format { GRAPH_TEXT, GRAPH_DOT, GRAPH_MERMAID } graph_format;

typedef struct node {
    const char *name;
    int kind; /* a weir_dataset_kind, or 0 for something outside */
} node;

typedef struct edge {
    size_t from, to;
    bool streaming;
    const char *flow; /* the flow's name when it is not the implicit one */
} edge;

typedef struct dag {
    node *nodes;
    edge *edges;
    size_t n_nodes, n_edges;
    char prefix[256]; /* "catalog.database." shared by the datasets, or "" */
} dag;

/* --- Building ------------------------------------------------------------------ */

static size_t node_for(dag *d, const char *name, int kind)
{
    for (size_t i = 0; i < d->n_nodes; i++)
        if (strcmp(d->nodes[i].name, name) == 0)
            return i;
    d->nodes[d->n_nodes].name = name;
    d->nodes[d->n_nodes].kind = kind;
    return d->n_nodes++;
}

static void add_edge(dag *d, const char *from, size_t to,
                     const weir_flow_info *f)
{
    edge e = { node_for(d, from, 0), to, f->streaming,
               f->implicit ? NULL : f->name };
    for (size_t i = 0; i < d->n_edges; i++) {
        const edge *o = &d->edges[i];
        if (o->from == e.from && o->to == e.to && o->streaming == e.streaming &&
            (o->flow == e.flow || (o->flow && e.flow && !strcmp(o->flow, e.flow))))
            return;
    }
    d->edges[d->n_edges++] = e;
}

/* The "catalog.database." prefix every qualified dataset name shares. */
static void find_prefix(dag *d, const weir_graph_info *g)
{
    d->prefix[0] = '\0';
    for (size_t i = 0; i < g->n_datasets; i++) {
        const char *name = g->datasets[i].name;
        const char *dot = strrchr(name, '.');
        if (!dot)
            continue;
        size_t len = (size_t)(dot - name) + 1;
        if (!d->prefix[0]) {
            if (len >= sizeof d->prefix)
                return;
            memcpy(d->prefix, name, len);
            d->prefix[len] = '\0';
        }
        if (strlen(d->prefix) != len || strncmp(name, d->prefix, len) != 0) {
            d->prefix[0] = '\0';
            return;
        }
    }
}

static bool dag_build(dag *d, const weir_graph_info *g)
{
    size_t max_nodes = g->n_datasets + g->n_flows, max_edges = 0;
    for (size_t i = 0; i < g->n_flows; i++)
        max_edges += g->flows[i].n_inputs + g->flows[i].n_external_inputs;
    max_nodes += max_edges;
    d->nodes = calloc(max_nodes + 1, sizeof *d->nodes);
    d->edges = calloc(max_edges + 1, sizeof *d->edges);
    d->n_nodes = d->n_edges = 0;
    if (!d->nodes || !d->edges)
        return false;
    for (size_t i = 0; i < g->n_datasets; i++)
        node_for(d, g->datasets[i].name, (int)g->datasets[i].kind);
    for (size_t i = 0; i < g->n_flows; i++) {
        const weir_flow_info *f = &g->flows[i];
        size_t to = node_for(d, f->target, 0);
        for (size_t j = 0; j < f->n_inputs; j++)
            add_edge(d, f->inputs[j], to, f);
        for (size_t j = 0; j < f->n_external_inputs; j++)
            add_edge(d, f->external_inputs[j], to, f);
    }
    find_prefix(d, g);
    return true;
}

/* A node's name without the shared prefix. */
static const char *label(const dag *d, const char *name)
{
    size_t len = strlen(d->prefix);
    if (len && strncmp(name, d->prefix, len) == 0 && !strchr(name + len, '.'))
        return name + len;
    return name;
}

static bool is_target(const dag *d, size_t n)
{
    for (size_t i = 0; i < d->n_edges; i++)
        if (d->edges[i].to == n)
            return true;
    return false;
}

/* --- Text ------------------------------------------------------------------------ */

static void print_text(const dag *d, FILE *out)
{
    for (size_t n = 0; n < d->n_nodes; n++) {
        if (d->nodes[n].kind == 0 && !is_target(d, n))
            continue; /* an outside source: shown under what reads it */
        int kind = d->nodes[n].kind;
        fprintf(out, "%s (%s)\n", d->nodes[n].name,
                kind ? weir_dataset_kind_name((weir_dataset_kind)kind)
                     : "outside the pipeline");
        bool any = false;
        for (size_t i = 0; i < d->n_edges; i++) {
            const edge *e = &d->edges[i];
            if (e->to != n)
                continue;
            const node *from = &d->nodes[e->from];
            int tags = 0;
            fprintf(out, "    <- %s", from->name);
            if (from->kind == 0)
                fprintf(out, "%sexternal", tags++ ? ", " : " (");
            if (e->streaming)
                fprintf(out, "%sstreaming", tags++ ? ", " : " (");
            if (e->flow)
                fprintf(out, "%sflow %s", tags++ ? ", " : " (", e->flow);
            fputs(tags ? ")\n" : "\n", out);
            any = true;
        }
        if (!any)
            fputs("    (no inputs)\n", out);
    }
}

/* --- Graphviz -------------------------------------------------------------------- */

static void dot_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        if (*s == '\n')
            fputs("\\n", out);
        else if ((unsigned char)*s >= 0x20)
            fputc(*s, out);
    }
}

static void dot_string(FILE *out, const char *s)
{
    fputc('"', out);
    dot_escaped(out, s);
    fputc('"', out);
}

static const char *dot_style(int kind)
{
    switch (kind) {
    case WEIR_STREAMING_TABLE:
        return "shape=box, style=\"rounded,filled\", fillcolor=\"#dbeafe\", "
               "color=\"#2563eb\"";
    case WEIR_MATERIALIZED_VIEW:
        return "shape=box, style=filled, fillcolor=\"#dcfce7\", "
               "color=\"#16a34a\"";
    case WEIR_TEMPORARY_VIEW:
        return "shape=ellipse, style=dashed, color=\"#ca8a04\"";
    case WEIR_PERSISTED_VIEW:
        return "shape=ellipse, style=filled, fillcolor=\"#fef9c3\", "
               "color=\"#ca8a04\"";
    case WEIR_SINK:
        return "shape=cds, style=filled, fillcolor=\"#fde68a\", "
               "color=\"#d97706\"";
    default:
        return "shape=note, style=dashed, color=\"#6b7280\", "
               "fontcolor=\"#374151\"";
    }
}

static const char *kind_label(int kind)
{
    return kind ? weir_dataset_kind_name((weir_dataset_kind)kind) : "external";
}

static void dot_edge(const dag *d, const edge *e, FILE *out)
{
    fprintf(out, "  n%zu -> n%zu", e->from, e->to);
    if (e->streaming && e->flow)
        fputs(" [style=dashed, label=", out);
    else if (e->flow)
        fputs(" [label=", out);
    else if (e->streaming)
        fputs(" [style=dashed", out);
    if (e->flow)
        dot_string(out, label(d, e->flow));
    fputs(e->streaming || e->flow ? "];\n" : ";\n", out);
}

static void print_dot(const dag *d, const char *pipeline, FILE *out)
{
    fputs("digraph ", out);
    dot_string(out, pipeline);
    fputs(" {\n", out);
    if (d->prefix[0])
        fprintf(out, "  // unqualified names are in %.*s\n",
                (int)strlen(d->prefix) - 1, d->prefix);
    fputs("  rankdir=LR;\n"
          "  node [fontname=\"Helvetica\", fontsize=11];\n"
          "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#4b5563\"];\n",
          out);
    for (size_t n = 0; n < d->n_nodes; n++) {
        const node *nd = &d->nodes[n];
        fprintf(out, "  n%zu [label=\"", n);
        dot_escaped(out, label(d, nd->name));
        fputs("\\n", out);
        dot_escaped(out, kind_label(nd->kind));
        fputs("\", tooltip=", out);
        dot_string(out, nd->name);
        fprintf(out, ", %s];\n", dot_style(nd->kind));
    }
    for (size_t i = 0; i < d->n_edges; i++)
        dot_edge(d, &d->edges[i], out);
    fputs("}\n", out);
}

/* --- Mermaid --------------------------------------------------------------------- */

/* Text inside a quoted Mermaid label: entity codes for what Mermaid or its
 * HTML labels would interpret. */
static void mermaid_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '"': fputs("#quot;", out); break;
        case '#': fputs("#35;", out); break;
        case '<': fputs("#60;", out); break;
        case '>': fputs("#62;", out); break;
        case '&': fputs("#38;", out); break;
        case '`': fputs("#96;", out); break;
        case '\n': fputc(' ', out); break;
        default:
            if ((unsigned char)*s >= 0x20)
                fputc(*s, out);
        }
    }
}

/* The brackets of a node's shape and its class, by dataset kind (0 for
 * an outside source). */
typedef struct mermaid_shape {
    const char *open, *close, *cls;
} mermaid_shape;

static const mermaid_shape shapes[] = {
    [0] = { "[/\"", "\"/]", "ext" },
    [WEIR_STREAMING_TABLE] = { "[(\"", "\")]", "st" },
    [WEIR_MATERIALIZED_VIEW] = { "[[\"", "\"]]", "mv" },
    [WEIR_TEMPORARY_VIEW] = { "(\"", "\")", "view" },
    [WEIR_PERSISTED_VIEW] = { "([\"", "\"])", "view" },
    [WEIR_SINK] = { ">\"", "\"]", "sink" },
};

static void print_mermaid(const dag *d, FILE *out)
{
    fputs("flowchart LR\n", out);
    if (d->prefix[0])
        fprintf(out, "  %%%% unqualified names are in %.*s\n",
                (int)strlen(d->prefix) - 1, d->prefix);
    for (size_t n = 0; n < d->n_nodes; n++) {
        int kind = d->nodes[n].kind;
        const mermaid_shape *sh =
            &shapes[kind > 0 && kind <= WEIR_SINK ? kind : 0];
        fprintf(out, "  n%zu%s", n, sh->open);
        mermaid_text(out, label(d, d->nodes[n].name));
        fputs("<br/><small>", out);
        mermaid_text(out, kind_label(d->nodes[n].kind));
        fprintf(out, "</small>%s:::%s\n", sh->close, sh->cls);
    }
    for (size_t i = 0; i < d->n_edges; i++) {
        const edge *e = &d->edges[i];
        fprintf(out, "  n%zu %s", e->from, e->streaming ? "-.->" : "-->");
        if (e->flow) {
            fputs("|\"", out);
            mermaid_text(out, label(d, e->flow));
            fputs("\"|", out);
        }
        fprintf(out, " n%zu\n", e->to);
    }
    fputs("  classDef st fill:#dbeafe,stroke:#2563eb\n"
          "  classDef mv fill:#dcfce7,stroke:#16a34a\n"
          "  classDef view fill:#fef9c3,stroke:#ca8a04\n"
          "  classDef sink fill:#fde68a,stroke:#d97706\n"
          "  classDef ext fill:#f3f4f6,stroke:#6b7280,stroke-dasharray:4 3\n",
          out);
}

/* --- The command ------------------------------------------------------------------ */

/* Resolve the graph without printing events (errors go to stderr). */
static int resolve(const cli *c, project *p, weir_graph_info *graph)
{
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    weir_run_result result;
    weir_error err;
    event_printer ep;

    event_printer_init(&ep, c, EVENTS_ERRORS_ONLY);
    ro.dry = true;
    event_printer_attach(&ep, &ro);
    memset(&result, 0, sizeof result);
    memset(&err, 0, sizeof err);
    int rc = weir_pipeline_start_run(p->pipeline, &ro, &result, &err);
    event_printer_finish(&ep);
    if (rc == 0 && result.state != WEIR_RUN_COMPLETED)
        return EXIT_USAGE;
    if (rc == 0)
        rc = weir_pipeline_describe(p->pipeline, graph, &err);
    if (rc != 0) {
        print_failure(c, p->pipeline, rc, &err);
        return exit_code_for(rc);
    }
    return EXIT_OK;
}

static int render(const cli *c, project *p, graph_format fmt)
{
    weir_graph_info graph;
    dag d;
    int code = resolve(c, p, &graph);

    if (code != EXIT_OK)
        return code;
    if (!dag_build(&d, &graph)) {
        print_error(c, "out of memory");
        code = EXIT_FAILED;
    } else if (fmt == GRAPH_DOT) {
        print_dot(&d, weir_pipeline_name(p->pipeline), stdout);
    } else if (fmt == GRAPH_MERMAID) {
        print_mermaid(&d, stdout);
    } else {
        print_text(&d, stdout);
    }
    free(d.nodes);
    free(d.edges);
    return code;
}

static bool parse_graph_format(const char *s, graph_format *out)
{
    if (strcmp(s, "text") == 0)
        *out = GRAPH_TEXT;
    else if (strcmp(s, "dot") == 0)
        *out = GRAPH_DOT;
    else if (strcmp(s, "mermaid") == 0)
        *out = GRAPH_MERMAID;
    else
        return false;
    return true;
}

int cmd_graph(const cli *c, int argc, char **argv)
{
    static const opt_def defs[] = {
        { "spec", true }, { "format", true }, { "conf", true },
        { "env", true }, { NULL, false },
    };
    const char *spec = NULL, *value = NULL;
    graph_format fmt = GRAPH_TEXT;
    load_args load;
    int code = -1;
    opt_iter it;
    project p;
    int id;

    memset(&load, 0, sizeof load);
    opt_init(&it, argv[0], argc, argv);
    while (code < 0 && (id = opt_next(&it, defs, &value)) != OPT_END) {
        switch (id) {
        case OPT_HELP: help_command(stdout, "graph"); code = EXIT_OK; break;
        case OPT_ERROR: code = EXIT_USAGE; break;
        case OPT_POSITIONAL: code = opt_unexpected(&it, value); break;
        case 0: spec = value; break;
        case 1:
            if (!parse_graph_format(value, &fmt)) {
                print_error(c, "unknown graph format '%s' (use text, dot or "
                               "mermaid)", value);
                code = EXIT_USAGE;
            }
            break;
        case 2: code = load_args_conf(c, &load, value); break;
        case 3: load.env = value; break;
        default: break;
        }
    }
    if (code >= 0) {
        load_args_free(&load);
        return code;
    }
    code = project_open_with(&p, c, spec, &load, NULL, NULL);
    if (code == EXIT_OK)
        code = project_define_python(&p, NULL);
    if (code == EXIT_OK)
        code = render(c, &p, fmt);
    project_close(&p);
    load_args_free(&load);
    return code;
}
