/*
 * Spark's graph validations that need no schemas (GraphValidations: flow
 * streamingness, multiple flows into a materialized view, temporary objects
 * in persisted views, datasets without flows, resettable dependencies,
 * streaming aggregations) and each dataset's expectations, including
 * those declared as table properties.
 */
#include "graph/internal.h"

#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/str.h"

/* ---- expectations from table properties ------------------------------------ */

/* pipelines.expect.<name>, pipelines.expect_or_drop.<name>,
 * pipelines.expect_or_fail.<name>, pipelines.expect_or_quarantine.<name>
 * = '<condition>': the spellings of Python's @dp.expect* decorators. */
static bool property_action(const char *key, weir_sql_violation *action,
                            const char **name)
{
    static const struct {
        const char *prefix;
        weir_sql_violation action;
    } forms[] = { { "pipelines.expect.", WEIR_SQL_VIOLATION_WARN },
                  { "pipelines.expect_or_drop.", WEIR_SQL_VIOLATION_DROP },
                  { "pipelines.expect_or_fail.", WEIR_SQL_VIOLATION_FAIL },
                  { "pipelines.expect_or_quarantine.",
                    WEIR_SQL_VIOLATION_QUARANTINE } };
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        size_t n = strlen(forms[i].prefix);
        if (weir__str_ieqn(key, forms[i].prefix, n) && key[n]) {
            *action = forms[i].action;
            *name = key + n;
            return true;
        }
    }
    return false;
}

int weir__graph_dataset_expectations(builder *b, weir_gdataset *d)
{
    weir_graph *g = b->g;
    const weir_def_dataset *def = d->def;
    size_t n = def->n_expectations;
    for (size_t i = 0; i < def->n_properties; i++) {
        weir_sql_violation a;
        const char *name;
        n += property_action(def->properties[i].key, &a, &name);
    }
    d->expectations = def->expectations;
    d->n_expectations = def->n_expectations;
    if (n == def->n_expectations)
        return 0;
    weir_def_expectation *all = weir__arena_array(&g->arena, n + 1, sizeof(*all));
    if (!all)
        return WEIR_ENOMEM;
    if (def->n_expectations)
        memcpy(all, def->expectations, def->n_expectations * sizeof(*all));
    size_t k = def->n_expectations;
    for (size_t i = 0; i < def->n_properties; i++) {
        weir_sql_violation a;
        const char *name;
        if (!property_action(def->properties[i].key, &a, &name))
            continue;
        weir_sql_source *src = weir__arena_alloc(&g->arena, sizeof(*src));
        if (!src)
            return WEIR_ENOMEM;
        src->path = def->origin.src ? def->origin.src->path : "<properties>";
        src->text = def->properties[i].value ? def->properties[i].value : "";
        src->len = strlen(src->text);
        weir_sql_expr *cond = NULL;
        weir_error e;
        if (weir__sql_parse_expr(&cond, &g->arena, src, 0, src->len, &e)) {
            weir__graph_report(b, &def->origin, NULL, "INVALID_EXPECTATION",
                      "Expectation '%s' of %s (table property %s): %s", name,
                      d->display, def->properties[i].key, e.message);
            continue;
        }
        weir_def_expectation *x = &all[k++];
        x->name = name;
        x->condition = cond;
        x->condition_text = src->text;
        x->action = a;
        x->origin = def->origin;
    }
    d->expectations = all;
    d->n_expectations = k;
    /* Names are unique per dataset. */
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < i; j++)
            if (weir__str_ieq(all[i].name, all[j].name))
                weir__graph_report(b, &all[i].origin, NULL, "DUPLICATE_EXPECTATION_NAME",
                          "Expectation '%s' is declared twice for %s; "
                          "expectation names are unique per dataset",
                          all[i].name, d->display);
    return 0;
}

/* ---- validations -------------------------------------------------------- */

void weir__graph_validate_flow(builder *b, const weir_gflow *f)
{
    weir_graph *g = b->g;
    const weir_gdataset *t = &g->datasets[f->target];
    for (size_t i = 0; i < f->n_inputs; i++) {
        const weir_input *in = &f->inputs[i];
        if (in->dataset < 0)
            continue;
        const weir_gdataset *d = &g->datasets[in->dataset];
        const weir_sql_pos *pos = in->ref ? &in->ref->name.pos : NULL;
        if (t->kind == WEIR_PERSISTED_VIEW && d->kind == WEIR_TEMPORARY_VIEW)
            weir__graph_report(b, &f->origin, pos, "INVALID_TEMP_OBJ_REFERENCE",
                      "Cannot create the persistent object %s of the type "
                      "VIEW because it references to the temporary object %s "
                      "of the type VIEW. Please make the temporary object %s "
                      "persistent, or make the persistent object %s "
                      "temporary.",
                      weir__graph_quoted(&g->arena, t->display), weir__graph_quoted(&g->arena, d->display),
                      weir__graph_quoted(&g->arena, d->display), weir__graph_quoted(&g->arena, t->display));
        if (weir__is_view(d->kind) && d->n_flows) {
            bool view_streaming = g->flows[d->flows[0]].streaming;
            if (in->streaming && !view_streaming)
                weir__graph_report(b, &f->origin, pos, "INCOMPATIBLE_BATCH_VIEW_READ",
                          "View %s is a batch view and must be referenced "
                          "using SparkSession#read (in SQL: without STREAM). "
                          "This check can be disabled by setting Spark conf "
                          "pipelines.incompatibleViewCheck.enabled = false.",
                          weir__graph_quoted(&g->arena, d->display));
            else if (!in->streaming && view_streaming)
                weir__graph_report(b, &f->origin, pos, "INCOMPATIBLE_STREAMING_VIEW_READ",
                          "View %s is a streaming view and must be "
                          "referenced using SparkSession#readStream (in SQL: "
                          "STREAM %s). This check can be disabled by setting "
                          "Spark conf pipelines.incompatibleViewCheck.enabled "
                          "= false.",
                          weir__graph_quoted(&g->arena, d->display), d->name);
        }
        if (in->streaming && d->kind == WEIR_MATERIALIZED_VIEW)
            weir__graph_report(b, &f->origin, pos, "STREAMING_READ_OF_MATERIALIZED_VIEW",
                      "Flow '%s' reads the materialized view %s as a stream; "
                      "a materialized view is recomputed in every update and "
                      "cannot be a streaming source. Read it without STREAM "
                      "from a materialized view, or stream from a streaming "
                      "table.",
                      f->display, d->display);
    }
    const char *fq = weir__graph_quoted(&g->arena, f->display);
    if (f->once) {
        if (f->streaming)
            weir__graph_report(b, &f->origin, NULL,
                      "INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_ONCE_FLOW",
                      "Flow %s returns an invalid relation type. %s is an "
                      "append once-flow that is defined by a streaming "
                      "relation. Append once-flows may only be defined by or "
                      "return a batch relation.",
                      fq, fq);
        return;
    }
    if (t->kind == WEIR_STREAMING_TABLE && !f->streaming)
        weir__graph_report(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE",
                  "Flow %s returns an invalid relation type. Streaming tables "
                  "may only be defined by streaming relations, but the flow "
                  "%s attempts to write a batch relation to the streaming "
                  "table %s. Consider using the STREAM operator in Spark-SQL "
                  "to convert the batch relation into a streaming relation, "
                  "or populating the streaming table with an append "
                  "once-flow instead.",
                  fq, fq, weir__graph_quoted(&g->arena, t->display));
    else if (t->kind == WEIR_MATERIALIZED_VIEW && f->streaming)
        weir__graph_report(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_MATERIALIZED_VIEW",
                  "Flow %s returns an invalid relation type. Materialized "
                  "views may only be defined by a batch relation, but the "
                  "flow %s attempts to write a streaming relation to the "
                  "materialized view %s.",
                  fq, fq, weir__graph_quoted(&g->arena, t->display));
    else if (t->kind == WEIR_PERSISTED_VIEW && f->streaming)
        weir__graph_report(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_PERSISTED_VIEW",
                  "Flow %s returns an invalid relation type. Persisted views "
                  "may only be defined by a batch relation, but the flow %s "
                  "attempts to write a streaming relation to the persisted "
                  "view %s.",
                  fq, fq, weir__graph_quoted(&g->arena, t->display));
    else if (t->kind == WEIR_SINK && !f->streaming)
        weir__graph_report(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_SINK",
                  "Flow %s returns an invalid relation type. Sinks may only "
                  "be written by streaming append flows, but the flow %s "
                  "attempts to write a batch relation to the sink %s. Use "
                  "the STREAM operator to read its source as a stream.",
                  fq, fq, weir__graph_quoted(&g->arena, t->display));
    if (f->streaming && t->kind != WEIR_TEMPORARY_VIEW) {
        weir_sql_shape shape;
        weir__sql_query_shape(&shape, f->query);
        if (shape.aggregates)
            weir__graph_report(b, &f->origin, &shape.aggregate_pos,
                      "UNSUPPORTED_STREAMING_OPERATOR_WITHOUT_WATERMARK",
                      "Append output mode not supported when there are "
                      "streaming aggregations on streaming DataFrames/DataSets "
                      "without watermark (flow %s). Aggregate in a "
                      "materialized view that reads the streaming table "
                      "instead.",
                      fq);
    }
}

void weir__graph_validate_datasets(builder *b)
{
    weir_graph *g = b->g;
    for (size_t i = 0; i < g->n_datasets; i++) {
        const weir_gdataset *d = &g->datasets[i];
        if (d->kind == WEIR_MATERIALIZED_VIEW || d->kind == WEIR_STREAMING_TABLE) {
            size_t batch = 0, regular = 0;
            for (size_t k = 0; k < d->n_flows; k++) {
                const weir_gflow *f = &g->flows[d->flows[k]];
                if (f->once)
                    continue;
                regular++;
                if (!f->streaming)
                    batch++;
            }
            if (regular > 1 && (batch || d->kind == WEIR_MATERIALIZED_VIEW)) {
                weir_buf q = WEIR_BUF_INIT;
                for (size_t k = 0; k < d->n_flows; k++) {
                    if (k)
                        weir__buf_puts(&q, ", ");
                    weir__buf_puts(&q, g->flows[d->flows[k]].display);
                }
                weir__graph_report(b, &d->def->origin, NULL,
                          "MATERIALIZED_VIEW_WITH_MULTIPLE_QUERIES",
                          "Invalid destination %s with multiple flows: %s.",
                          weir__graph_quoted(&g->arena, d->display), weir__buf_cstr(&q));
                weir__buf_free(&q);
            }
        }
        bool quarantine = false;
        for (size_t k = 0; k < d->n_expectations; k++)
            quarantine |= d->expectations[k].action ==
                          WEIR_SQL_VIOLATION_QUARANTINE;
        if (quarantine && !weir__is_table(d->kind))
            weir__graph_report(b, &d->def->origin, NULL, "INVALID_EXPECTATION",
                      "ON VIOLATION QUARANTINE needs a streaming table or "
                      "materialized view to put the rows beside; %s is a %s.",
                      d->display, weir__kind_name(d->kind));
        if (quarantine && d->catalog) {
            char name[800];
            snprintf(name, sizeof(name), "%s_quarantine", d->display);
            if (weir__graph_find_dataset(g, name) >= 0)
                weir__graph_report(b, &d->def->origin, NULL,
                          "PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT",
                          "The quarantine table of %s would be %s, which the "
                          "pipeline already defines.",
                          d->display, name);
        }
        if ((weir__is_table(d->kind) || weir__is_view(d->kind)) && d->n_flows == 0)
            weir__graph_report(b, &d->def->origin, NULL, "PIPELINE_DATASET_WITHOUT_FLOW",
                      "Pipeline dataset %s does not have any defined flows. "
                      "Please attach a query with the dataset's definition, "
                      "or explicitly define at least one flow that writes to "
                      "the dataset.",
                      weir__graph_quoted(&g->arena, d->display));
        if (weir__is_table(d->kind) && !d->reset_allowed) {
            /* Spark's best-effort INVALID_RESETTABLE_DEPENDENCY. */
            for (size_t k = 0; k < d->n_flows; k++) {
                const weir_gflow *f = &g->flows[d->flows[k]];
                for (size_t j = 0; f->streaming && j < f->n_inputs; j++) {
                    int u = f->inputs[j].dataset;
                    if (u < 0 || !f->inputs[j].streaming ||
                        !weir__is_table(g->datasets[u].kind) ||
                        !g->datasets[u].reset_allowed)
                        continue;
                    weir__graph_report(b, &d->def->origin, NULL,
                              "INVALID_RESETTABLE_DEPENDENCY",
                              "Tables %s are resettable but have a "
                              "non-resettable downstream dependency '%s'. "
                              "`reset` will fail as Spark Streaming does not "
                              "support deleted source data. You can either "
                              "remove the pipelines.reset.allowed=false "
                              "property from '%s' or add it to its upstream "
                              "dependencies.",
                              g->datasets[u].display, d->display, d->display);
                }
            }
        }
    }
}

