/*
 * weir_pipeline_describe: the resolved graph as the public, borrowed
 * structures of weir.h.
 */
#include "api/internal.h"

#include <string.h>

static const char *path_of(const weir_origin *o)
{
    return o->src ? o->src->path : NULL;
}

static int fill_dataset(weir_arena *a, weir_dataset_info *di,
                        const weir_gdataset *d)
{
    di->name = d->display;
    di->kind = d->kind;
    di->comment = d->def->comment;
    di->format = d->format;
    di->source_path = path_of(&d->def->origin);
    di->source_line = d->def->origin.pos.line;
    di->n_expectations = d->def->n_expectations;
    di->properties = d->def->properties;
    di->n_properties = d->def->n_properties;
    di->n_columns = d->schema.n;
    weir_column_info *cols = weir__arena_array(a, d->schema.n + 1, sizeof(*cols));
    if (!cols)
        return WEIR_ENOMEM;
    for (size_t i = 0; i < d->schema.n; i++) {
        cols[i].name = d->schema.cols[i].name;
        cols[i].type = d->schema.cols[i].spark_type;
        cols[i].nullable = d->schema.cols[i].nullable;
        cols[i].comment = d->schema.cols[i].comment;
    }
    di->columns = cols;
    return 0;
}

static int fill_flow(weir_arena *a, const weir_graph *g, weir_flow_info *fi,
                     const weir_gflow *f)
{
    fi->name = f->display;
    fi->target = g->datasets[f->target].display;
    fi->streaming = f->streaming;
    fi->once = f->once;
    fi->implicit = f->implicit;
    fi->auto_cdc = f->cdc ? f->cdc->scd_type : 0;
    fi->source_path = path_of(&f->origin);
    fi->source_line = f->origin.pos.line;
    const char **in = weir__arena_array(a, f->n_inputs + 1, sizeof(*in));
    const char **ex = weir__arena_array(a, f->n_inputs + 1, sizeof(*ex));
    if (!in || !ex)
        return WEIR_ENOMEM;
    for (size_t i = 0; i < f->n_inputs; i++) {
        const weir_input *x = &f->inputs[i];
        if (x->dataset >= 0) {
            const char *name = g->datasets[x->dataset].display;
            bool dup = false;
            for (size_t k = 0; k < fi->n_inputs; k++)
                dup |= strcmp(in[k], name) == 0;
            if (!dup)
                in[fi->n_inputs++] = name;
        } else {
            const char *name =
                x->source == WEIR_INPUT_FILES ? weir__arena_printf(a, "read_files(%s)", x->external)
                            : x->external;
            bool dup = false;
            for (size_t k = 0; k < fi->n_external_inputs; k++)
                dup |= strcmp(ex[k], name) == 0;
            if (!dup)
                ex[fi->n_external_inputs++] = name;
        }
    }
    fi->inputs = in;
    fi->external_inputs = ex;
    return weir__arena_failed(a) ? WEIR_ENOMEM : 0;
}

int weir_pipeline_describe(const weir_pipeline *cp, weir_graph_info *out,
                           weir_error *err)
{
    if (!cp || !out)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "pipeline and out are required");
    weir_pipeline *p = (weir_pipeline *)cp; /* the cache is not observable */
    const weir_graph *g = p->graph;
    if (!g || !p->resolved)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "the graph has not been resolved: start a (dry) run "
                        "first");
    if (!p->described) {
        weir__arena_free(&p->info_arena);
        weir_arena *a = &p->info_arena;
        weir_dataset_info *ds = weir__arena_array(a, g->n_datasets + 1, sizeof(*ds));
        weir_flow_info *fs = weir__arena_array(a, g->n_flows + 1, sizeof(*fs));
        if (!ds || !fs)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        for (size_t k = 0; k < g->n_datasets; k++)
            if (fill_dataset(a, &ds[k], &g->datasets[g->dataset_order[k]]))
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        for (size_t k = 0; k < g->n_flows; k++)
            if (fill_flow(a, g, &fs[k], &g->flows[g->flow_order[k]]))
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        p->info.datasets = ds;
        p->info.n_datasets = g->n_datasets;
        p->info.flows = fs;
        p->info.n_flows = g->n_flows;
        p->described = true;
    }
    *out = p->info;
    return 0;
}
