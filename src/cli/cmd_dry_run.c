/*
 * `weir dry-run`: load the pipeline and resolve it without touching data
 * (StartRun with dry=true), print the events like `weir run`, then the
 * resolved graph: each dataset in dependency order with its kind, source
 * location and schema, and each flow with its target, mode and inputs.
 * With --json the graph is one {"graph": ...} object after the events.
 * With --target spark, what open-source Apache Spark 4.1 would reject or
 * run differently is printed instead of the graph (docs/spark.md), and a
 * project that is not portable exits 2.
 */
#include <string.h>

#include "cli.h"

/* --- Text ---------------------------------------------------------------------- */

/* Spaces from column used to column to. */
static void pad(FILE *out, size_t used, size_t to)
{
    for (; used < to; used++)
        fputc(' ', out);
}

static void print_columns(FILE *out, const weir_dataset_info *d)
{
    size_t name_w = 0, type_w = 0;
    bool any_not_null = false;

    if (d->n_columns == 0) {
        fputs("    (schema unknown)\n", out);
        return;
    }
    for (size_t i = 0; i < d->n_columns; i++) {
        size_t nw = text_width(d->columns[i].name);
        size_t tw = text_width(d->columns[i].type);
        name_w = nw > name_w ? nw : name_w;
        type_w = tw > type_w ? tw : type_w;
        any_not_null |= !d->columns[i].nullable;
    }
    for (size_t i = 0; i < d->n_columns; i++) {
        const weir_column_info *col = &d->columns[i];
        bool not_null = !col->nullable, comment = col->comment != NULL;
        fputs("    ", out);
        pad(out, text_put(out, col->name, SIZE_MAX), name_w + 2);
        size_t w = text_put(out, col->type, SIZE_MAX);
        if (not_null || comment)
            pad(out, w, type_w + 2);
        if (not_null)
            fputs("not null", out);
        if (comment) {
            if (any_not_null)
                pad(out, not_null ? 8 : 0, 10);
            fprintf(out, "-- %s", col->comment);
        }
        fputc('\n', out);
    }
}

static void print_dataset(FILE *out, const weir_dataset_info *d)
{
    fprintf(out, "%s %s", weir_dataset_kind_name(d->kind), d->name);
    if (d->source_path && d->source_line)
        fprintf(out, "  (%s:%u)", d->source_path, d->source_line);
    else if (d->source_path)
        fprintf(out, "  (%s)", d->source_path);
    fputc('\n', out);
    if (d->comment)
        fprintf(out, "    comment: %s\n", d->comment);
    if (d->format)
        fprintf(out, "    format: %s\n", d->format);
    if (d->n_expectations)
        fprintf(out, "    expectations: %zu\n", d->n_expectations);
    print_columns(out, d);
    fputc('\n', out);
}

static void print_list(FILE *out, const char *label, const char *const *items,
                       size_t n)
{
    if (n == 0)
        return;
    fprintf(out, "      %s: ", label);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? ", " : "", items[i]);
    fputc('\n', out);
}

static void print_flows(FILE *out, const weir_graph_info *g)
{
    size_t name_w = 0, target_w = 0;
    for (size_t i = 0; i < g->n_flows; i++) {
        size_t nw = text_width(g->flows[i].name);
        size_t tw = text_width(g->flows[i].target);
        name_w = nw > name_w ? nw : name_w;
        target_w = tw > target_w ? tw : target_w;
    }
    fprintf(out, "Flows (%zu):\n", g->n_flows);
    for (size_t i = 0; i < g->n_flows; i++) {
        const weir_flow_info *f = &g->flows[i];
        fputs("  ", out);
        pad(out, text_put(out, f->name, SIZE_MAX), name_w);
        fputs(" -> ", out);
        pad(out, text_put(out, f->target, SIZE_MAX), target_w);
        if (f->auto_cdc)
            fprintf(out, "  %s, auto cdc flow (SCD type %d)\n",
                    f->streaming ? "streaming" : "batch", f->auto_cdc);
        else
            fprintf(out, "  %s%s\n",
                    f->once ? "once" : f->streaming ? "streaming" : "batch",
                    f->implicit ? "" : ", append flow");
        print_list(out, "inputs", f->inputs, f->n_inputs);
        print_list(out, "external inputs", f->external_inputs,
                   f->n_external_inputs);
    }
}

static void print_graph_text(FILE *out, const weir_graph_info *g)
{
    fprintf(out, "\nDatasets (%zu, in dependency order):\n\n", g->n_datasets);
    for (size_t i = 0; i < g->n_datasets; i++)
        print_dataset(out, &g->datasets[i]);
    print_flows(out, g);
}

/* --- JSON ------------------------------------------------------------------------ */

static void json_strings(FILE *out, const char *const *items, size_t n)
{
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        json_put_string(out, items[i]);
    }
    fputc(']', out);
}

static void json_dataset(FILE *out, const weir_dataset_info *d)
{
    fputs("{\"name\":", out);
    json_put_string(out, d->name);
    fputs(",\"kind\":", out);
    json_put_string(out, weir_dataset_kind_name(d->kind));
    fputs(",\"comment\":", out);
    json_put_string(out, d->comment);
    fputs(",\"format\":", out);
    json_put_string(out, d->format);
    fputs(",\"source_path\":", out);
    json_put_string(out, d->source_path);
    fprintf(out, ",\"source_line\":%u,\"expectations\":%zu,\"columns\":[",
            d->source_line, d->n_expectations);
    for (size_t i = 0; i < d->n_columns; i++) {
        const weir_column_info *col = &d->columns[i];
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        json_put_string(out, col->name);
        fputs(",\"type\":", out);
        json_put_string(out, col->type);
        fprintf(out, ",\"nullable\":%s,\"comment\":",
                col->nullable ? "true" : "false");
        json_put_string(out, col->comment);
        fputc('}', out);
    }
    fputs("]}", out);
}

static void json_flow(FILE *out, const weir_flow_info *f)
{
    fputs("{\"name\":", out);
    json_put_string(out, f->name);
    fputs(",\"target\":", out);
    json_put_string(out, f->target);
    fprintf(out, ",\"streaming\":%s,\"once\":%s,\"implicit\":%s,",
            f->streaming ? "true" : "false", f->once ? "true" : "false",
            f->implicit ? "true" : "false");
    if (f->auto_cdc)
        fprintf(out, "\"auto_cdc\":{\"scd_type\":%d},", f->auto_cdc);
    fputs("\"inputs\":", out);
    json_strings(out, f->inputs, f->n_inputs);
    fputs(",\"external_inputs\":", out);
    json_strings(out, f->external_inputs, f->n_external_inputs);
    fputs(",\"source_path\":", out);
    json_put_string(out, f->source_path);
    fprintf(out, ",\"source_line\":%u}", f->source_line);
}

static void print_graph_json(FILE *out, const weir_graph_info *g)
{
    fputs("{\"graph\":{\"datasets\":[", out);
    for (size_t i = 0; i < g->n_datasets; i++) {
        if (i)
            fputc(',', out);
        json_dataset(out, &g->datasets[i]);
    }
    fputs("],\"flows\":[", out);
    for (size_t i = 0; i < g->n_flows; i++) {
        if (i)
            fputc(',', out);
        json_flow(out, &g->flows[i]);
    }
    fputs("]}}\n", out);
}

/* --- Portability to Spark ------------------------------------------------------ */

static void print_spark_text(const cli *c, const weir_spark_report *r)
{
    for (size_t i = 0; i < r->n_findings; i++) {
        const weir_spark_finding *f = &r->findings[i];
        char label[160];
        snprintf(label, sizeof label, "Spark %s %s%s",
                 f->rejected ? "rejects" : "runs", f->construct,
                 f->rejected ? "" : " differently");
        fputc('\n', stdout);
        print_located(stdout, c->color_out, &f->at, label);
        fprintf(stdout, "      = portable: %s\n", f->portable);
    }
    if (r->n_findings)
        fprintf(stdout, "\n%zu construct%s that Apache Spark 4.1 rejects or "
                        "runs differently (docs/spark.md).\n",
                r->n_findings, r->n_findings == 1 ? "" : "s");
    else
        fputs("\nPortable: nothing Apache Spark 4.1 would reject or run "
              "differently.\n",
              stdout);
}

static void print_spark_json(FILE *out, const weir_spark_report *r)
{
    fprintf(out, "{\"spark\":{\"portable\":%s,\"findings\":[",
            r->n_findings ? "false" : "true");
    for (size_t i = 0; i < r->n_findings; i++) {
        const weir_spark_finding *f = &r->findings[i];
        fputs(i ? ",{\"construct\":" : "{\"construct\":", out);
        json_put_string(out, f->construct);
        fprintf(out, ",\"rejected\":%s,\"path\":", f->rejected ? "true" : "false");
        json_put_string(out, f->at.path);
        fprintf(out, ",\"line\":%u,\"column\":%u,\"error_class\":",
                f->at.line, f->at.column);
        json_put_string(out, f->at.error_class[0] ? f->at.error_class : NULL);
        fputs(",\"spark\":", out);
        json_put_string(out, f->at.message);
        fputs(",\"portable\":", out);
        json_put_string(out, f->portable);
        fputc('}', out);
    }
    fputs("]}}\n", out);
}

/* --- The command -------------------------------------------------------------- */

static int dry_run(const cli *c, project *p, bool json, bool spark)
{
    weir_spark_report report;
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    weir_run_result result;
    weir_graph_info graph;
    weir_error err;
    event_printer ep;

    if (p->log)
        print_logline(p->log, "Starting run...");
    event_printer_init(&ep, c, json ? EVENTS_JSON : EVENTS_TEXT);
    ro.dry = true;
    event_printer_attach(&ep, &ro);
    memset(&result, 0, sizeof result);
    memset(&err, 0, sizeof err);
    int rc = weir_pipeline_start_run(p->pipeline, &ro, &result, &err);
    event_printer_finish(&ep);
    if (rc == 0 && result.state != WEIR_RUN_COMPLETED)
        return EXIT_USAGE; /* the events said why */
    if (rc == 0 && spark)
        rc = weir_pipeline_check_spark(p->pipeline, &report, &err);
    else if (rc == 0)
        rc = weir_pipeline_describe(p->pipeline, &graph, &err);
    if (rc != 0) {
        print_failure(c, p->pipeline, rc, &err);
        if (json)
            print_failure_json(stdout, p->pipeline, rc, &err);
        return exit_code_for(rc);
    }
    if (spark && json)
        print_spark_json(stdout, &report);
    else if (spark)
        print_spark_text(c, &report);
    else if (json)
        print_graph_json(stdout, &graph);
    else
        print_graph_text(stdout, &graph);
    return spark && report.n_findings ? EXIT_USAGE : EXIT_OK;
}

int cmd_dry_run(const cli *c, int argc, char **argv)
{
    static const opt_def defs[] = {
        { "spec", true }, { "json", false }, { "conf", true },
        { "env", true }, { "target", true }, { "remote", true },
        { NULL, false },
    };
    const char *spec = NULL, *value = NULL, *remote = NULL;
    bool json = false, spark = false;
    load_args load;
    int code = -1;
    opt_iter it;
    project p;
    int id;

    memset(&load, 0, sizeof load);
    opt_init(&it, argv[0], argc, argv);
    while (code < 0 && (id = opt_next(&it, defs, &value)) != OPT_END) {
        switch (id) {
        case OPT_HELP: help_command(stdout, "dry-run"); code = EXIT_OK; break;
        case OPT_ERROR: code = EXIT_USAGE; break;
        case OPT_POSITIONAL: code = opt_unexpected(&it, value); break;
        case 0: spec = value; break;
        case 1: json = true; break;
        case 2: code = load_args_conf(c, &load, value); break;
        case 3: load.env = value; break;
        case 4:
            if (strcmp(value, "spark") == 0) {
                spark = true;
            } else {
                print_error(c, "dry-run: unknown --target '%s' (the one "
                               "target is spark: open-source Apache Spark "
                               "4.1)",
                            value);
                code = EXIT_USAGE;
            }
            break;
        case 5:
            remote = value;
            if (!remote_uri_check(c, value))
                code = EXIT_USAGE;
            break;
        default: break;
        }
    }
    if (code < 0 && remote && spark) {
        print_error(c, "dry-run: --target spark checks the project here; "
                       "it cannot be combined with --remote");
        code = EXIT_USAGE;
    }
    if (code >= 0) {
        load_args_free(&load);
        return code;
    }
    code = project_open_with(&p, c, spec, &load, json ? stderr : stdout,
                             json ? stdout : NULL);
    if (code == EXIT_OK && remote) {
        weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
        ro.dry = true;
        code = run_remote(c, &p, remote, &ro, json ? EVENTS_JSON : EVENTS_TEXT);
    } else {
        if (code == EXIT_OK)
            code = project_define_python(&p, json ? stdout : NULL);
        if (code == EXIT_OK)
            code = dry_run(c, &p, json, spark);
    }
    project_close(&p);
    load_args_free(&load);
    return code;
}
