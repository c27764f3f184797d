/*
 * Refresh selection (see select.h and Spark's PipelinesHandler /
 * PipelineUpdateContext).
 */
#include "select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/str.h"

int weir__selection_check(const weir_run_options *run, weir_error *err)
{
    if (run->full_refresh_all && run->n_full_refresh)
        return WEIR_ERR(err, WEIR_EINVAL, "CONFLICTING_PIPELINE_REFRESH_OPTIONS",
                        "--full-refresh-all option conflicts with "
                        "--full_refresh. The --full-refresh-all option "
                        "performs a full refresh of all datasets, so "
                        "specifying individual datasets with --full_refresh "
                        "is not allowed.");
    if (run->full_refresh_all && run->n_refresh)
        return WEIR_ERR(err, WEIR_EINVAL, "CONFLICTING_PIPELINE_REFRESH_OPTIONS",
                        "--full-refresh-all option conflicts with --refresh. "
                        "The --full-refresh-all option performs a full "
                        "refresh of all datasets, so specifying individual "
                        "datasets with --refresh is not allowed.");
    return 0;
}

/* Split "a.`b.c`.d" into parts (backticks quote dots). */
static size_t split_name(char parts[3][256], const char *s)
{
    size_t n = 0, o = 0;
    bool quote = false;
    for (; *s; s++) {
        if (*s == '`') {
            if (quote && s[1] == '`') {
                if (o < 255)
                    parts[n][o++] = '`';
                s++;
                continue;
            }
            quote = !quote;
            continue;
        }
        if (*s == '.' && !quote) {
            parts[n][o] = '\0';
            if (++n >= 3)
                return 4; /* too many parts */
            o = 0;
            continue;
        }
        if (o < 255)
            parts[n][o++] = *s;
    }
    parts[n][o] = '\0';
    return n + 1;
}

/* The dataset a user-given name means, or -1. */
static int lookup(const weir_graph *g, const char *name)
{
    char parts[3][256];
    size_t n = split_name(parts, name);
    char q[800];
    if (n == 1) {
        int d = weir__graph_find_dataset(g, parts[0]);
        if (d >= 0)
            return d; /* sinks and temporary views are single-part */
        snprintf(q, sizeof(q), "%s.%s.%s", g->default_catalog,
                 g->default_database, parts[0]);
    } else if (n == 2) {
        snprintf(q, sizeof(q), "%s.%s.%s", g->default_catalog, parts[0],
                 parts[1]);
    } else if (n == 3) {
        snprintf(q, sizeof(q), "%s.%s.%s", parts[0], parts[1], parts[2]);
    } else {
        return -1;
    }
    return weir__graph_find_dataset(g, q);
}

static int warn(weir_selection *s, const char *msg)
{
    char **w = realloc(s->warnings, (s->n_warnings + 1) * sizeof(*w));
    if (!w)
        return WEIR_ENOMEM;
    s->warnings = w;
    w[s->n_warnings] = strdup(msg);
    if (!w[s->n_warnings])
        return WEIR_ENOMEM;
    s->n_warnings++;
    return 0;
}

static bool is_output(weir_dataset_kind k)
{
    return k == WEIR_STREAMING_TABLE || k == WEIR_MATERIALIZED_VIEW ||
           k == WEIR_SINK;
}

static int mark(weir_selection *s, const weir_graph *g, const char *const *names,
                size_t n, bool full, const char *flag, bool *needed)
{
    for (size_t i = 0; i < n; i++) {
        int d = lookup(g, names[i]);
        /* A persisted view fully refreshed drops the streaming table its
         * dataset was before (engine/materialize.c). */
        bool view = d >= 0 && g->datasets[d].kind == WEIR_PERSISTED_VIEW;
        if (view && full)
            s->reset[d] = true;
        if (d >= 0 && needed && !is_output(g->datasets[d].kind)) {
            needed[d] = true; /* a view: what it reads is refreshed */
            continue;
        }
        if (view && full)
            continue;
        if (d < 0 || !is_output(g->datasets[d].kind)) {
            char msg[600];
            snprintf(msg, sizeof(msg),
                     "Dataset '%s' given to %s is not a table or sink of this "
                     "pipeline; it is ignored.",
                     names[i], flag);
            if (warn(s, msg))
                return WEIR_ENOMEM;
            continue;
        }
        s->dataset_selected[d] = true;
        if (!full)
            continue;
        const weir_gdataset *ds = &g->datasets[d];
        if (ds->kind != WEIR_SINK && !ds->reset_allowed) {
            s->not_resettable = true;
            WEIR_ERR(&s->not_resettable_err, WEIR_ERROR, "TABLE_NOT_RESETTABLE",
                     "Table %s cannot be fully refreshed because its table "
                     "property pipelines.reset.allowed is false.",
                     ds->display);
            continue;
        }
        s->reset[d] = true;
    }
    return 0;
}

/* Refresh, besides the datasets selected and the views named, every
 * table and sink they read, directly or through views: walking the
 * datasets from the last in dependency order to the first, each one
 * needed makes the inputs of its flows needed. */
static void select_upstream(weir_selection *s, const weir_graph *g,
                            bool *needed)
{
    for (size_t d = 0; d < g->n_datasets; d++)
        needed[d] |= s->dataset_selected[d];
    for (size_t k = g->n_datasets; k-- > 0;) {
        int di = g->dataset_order[k];
        if (!needed[di])
            continue;
        const weir_gdataset *ds = &g->datasets[di];
        for (size_t i = 0; i < ds->n_flows; i++) {
            const weir_gflow *f = &g->flows[ds->flows[i]];
            for (size_t j = 0; j < f->n_inputs; j++)
                if (f->inputs[j].dataset >= 0)
                    needed[f->inputs[j].dataset] = true;
        }
        if (is_output(ds->kind))
            s->dataset_selected[di] = true;
    }
}

int weir__selection_build(weir_selection *s, const weir_graph *g,
                          const weir_run_options *run, weir_error *err)
{
    memset(s, 0, sizeof(*s));
    s->dataset_selected = calloc(g->n_datasets + 1, sizeof(bool));
    s->reset = calloc(g->n_datasets + 1, sizeof(bool));
    s->flow_selected = calloc(g->n_flows + 1, sizeof(bool));
    if (!s->dataset_selected || !s->reset || !s->flow_selected)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    bool all = !run->n_refresh && !run->n_full_refresh;
    if (all) {
        for (size_t d = 0; d < g->n_datasets; d++) {
            const weir_gdataset *ds = &g->datasets[d];
            if (ds->kind == WEIR_PERSISTED_VIEW)
                s->reset[d] = run->full_refresh_all;
            if (!is_output(ds->kind))
                continue;
            s->dataset_selected[d] = true;
            if (!run->full_refresh_all)
                continue;
            if (ds->kind == WEIR_SINK || ds->reset_allowed) {
                s->reset[d] = true;
                continue;
            }
            char msg[600];
            snprintf(msg, sizeof(msg),
                     "Skipping full refresh of %s because "
                     "pipelines.reset.allowed is false; it gets a normal "
                     "refresh.",
                     ds->display);
            if (warn(s, msg))
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        }
    } else {
        bool up = run->version >= 5 && run->refresh_upstream;
        bool *needed = up ? calloc(g->n_datasets + 1, sizeof(bool)) : NULL;
        int rc = up && !needed ? WEIR_ENOMEM
                               : mark(s, g, run->refresh, run->n_refresh, false,
                                      "--refresh", needed);
        if (!rc)
            rc = mark(s, g, run->full_refresh, run->n_full_refresh, true,
                      "--full-refresh", NULL);
        if (!rc && up)
            select_upstream(s, g, needed);
        free(needed);
        if (rc)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        weir_buf overlap = WEIR_BUF_INIT;
        for (size_t i = 0; i < run->n_refresh; i++) {
            int a = lookup(g, run->refresh[i]);
            for (size_t k = 0; a >= 0 && k < run->n_full_refresh; k++) {
                if (lookup(g, run->full_refresh[k]) == a) {
                    if (overlap.len)
                        weir__buf_puts(&overlap, ", ");
                    weir__buf_puts(&overlap, g->datasets[a].display);
                    break;
                }
            }
        }
        if (overlap.len) {
            WEIR_ERR(err, WEIR_EINVAL, "CONFLICTING_PIPELINE_REFRESH_OPTIONS",
                     "Datasets specified for refresh and full refresh cannot "
                     "overlap: %s",
                     weir__buf_cstr(&overlap));
            weir__buf_free(&overlap);
            return WEIR_EINVAL;
        }
        weir__buf_free(&overlap);
    }
    for (size_t f = 0; f < g->n_flows; f++)
        s->flow_selected[f] = s->dataset_selected[g->flows[f].target];
    return 0;
}

void weir__selection_free(weir_selection *s)
{
    if (!s)
        return;
    free(s->dataset_selected);
    free(s->reset);
    free(s->flow_selected);
    for (size_t i = 0; i < s->n_warnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    memset(s, 0, sizeof(*s));
}
