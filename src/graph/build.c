/*
 * Building the validated graph from definitions: qualified identifiers,
 * implicit flows, flow targets, each flow's inputs (pipeline datasets,
 * external tables, file sources), topological order, and the registration
 * and validation errors of Spark's GraphRegistrationContext and
 * GraphValidations that need no schemas (see docs/graph.md).
 */
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/str.h"
#include "util/vec.h"

typedef struct builder {
    weir_graph *g;
    const weir_defs *defs;
    weir__diags *diags;
    int rc; /* WEIR_EGRAPH once an error was reported, or a hard error */
} builder;

/* ---- small helpers ------------------------------------------------------ */

void weir__origin_error_at(weir_error *err, const weir_origin *o)
{
    if (o && o->src)
        weir__sql_error_at(err, o->src, o->pos);
}

static void report_at(builder *b, const weir_origin *o, const weir_sql_pos *pos,
                      const char *cls, const char *fmt, ...) WEIR_PRINTF(5, 6);

static void report_at(builder *b, const weir_origin *o, const weir_sql_pos *pos,
                      const char *cls, const char *fmt, ...)
{
    weir_error e;
    va_list ap;
    va_start(ap, fmt);
    weir__error_vset(&e, WEIR_EGRAPH, cls, __FILE__, __LINE__, fmt, ap);
    va_end(ap);
    if (o && o->src)
        weir__sql_error_at(&e, o->src, pos ? *pos : o->pos);
    if (weir__diags_add(b->diags, &e))
        b->rc = WEIR_ENOMEM;
    else if (!b->rc)
        b->rc = WEIR_EGRAPH;
}

const char *weir__kind_name(weir_dataset_kind kind)
{
    switch (kind) {
    case WEIR_STREAMING_TABLE: return "streaming table";
    case WEIR_MATERIALIZED_VIEW: return "materialized view";
    case WEIR_TEMPORARY_VIEW: return "temporary view";
    case WEIR_PERSISTED_VIEW: return "view";
    case WEIR_SINK: return "sink";
    }
    return "dataset";
}

const char *weir__kind_output_type(weir_dataset_kind kind)
{
    switch (kind) {
    case WEIR_STREAMING_TABLE:
    case WEIR_MATERIALIZED_VIEW: return "TABLE";
    case WEIR_SINK: return "SINK";
    default: return "VIEW";
    }
}

static bool is_table(weir_dataset_kind k)
{
    return k == WEIR_STREAMING_TABLE || k == WEIR_MATERIALIZED_VIEW;
}

static bool is_view(weir_dataset_kind k)
{
    return k == WEIR_TEMPORARY_VIEW || k == WEIR_PERSISTED_VIEW;
}

const char *weir__graph_qualify(weir_arena *arena, const weir_sql_name *name,
                                const char *catalog, const char *database)
{
    if (name->n >= 3)
        return weir__arena_printf(arena, "%s.%s.%s", name->parts[name->n - 3],
                                  name->parts[name->n - 2],
                                  name->parts[name->n - 1]);
    if (name->n == 2)
        return weir__arena_printf(arena, "%s.%s.%s", catalog, name->parts[0],
                                  name->parts[1]);
    if (name->n == 1 && database)
        return weir__arena_printf(arena, "%s.%s.%s", catalog, database,
                                  name->parts[0]);
    return NULL;
}

static const char *joined_name(weir_arena *a, const weir_sql_name *n)
{
    weir_buf b = WEIR_BUF_INIT;
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            weir__buf_putc(&b, '.');
        weir__buf_puts(&b, n->parts[i]);
    }
    const char *s = weir__arena_strdup(a, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return s;
}

/* Spark's quotedString of a display name: `cat`.`db`.`name`. */
static const char *quoted(weir_arena *a, const char *display)
{
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_putc(&b, '`');
    for (const char *p = display; *p; p++) {
        if (*p == '.')
            weir__buf_puts(&b, "`.`");
        else if (*p == '`')
            weir__buf_puts(&b, "``");
        else
            weir__buf_putc(&b, *p);
    }
    weir__buf_putc(&b, '`');
    const char *s = weir__arena_strdup(a, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return s;
}

int weir__graph_find_dataset(const weir_graph *g, const char *display)
{
    void *v = weir__map_get(&g->dataset_by_name, display);
    return v ? (int)((intptr_t)v - 1) : -1;
}

static int find_flow(const weir_graph *g, const char *display)
{
    void *v = weir__map_get(&g->flow_by_name, display);
    return v ? (int)((intptr_t)v - 1) : -1;
}

const char *weir__flow_conf(const weir_gflow *f, const char *key,
                            const char *dflt)
{
    for (size_t i = f->n_conf; i-- > 0;)
        if (weir__str_ieq(f->conf[i].key, key))
            return f->conf[i].value;
    return dflt;
}

const char *weir__dataset_property(const weir_gdataset *d, const char *key)
{
    if (!d->def)
        return NULL;
    for (size_t i = 0; i < d->def->n_properties; i++)
        if (weir__str_ieq(d->def->properties[i].key, key))
            return d->def->properties[i].value;
    return NULL;
}

/* ---- datasets ------------------------------------------------------------ */

static int dataset_expectations(builder *b, weir_gdataset *d);

static int add_datasets(builder *b)
{
    weir_graph *g = b->g;
    const weir_defs *defs = b->defs;
    g->datasets = weir__arena_array(&g->arena, defs->n_datasets + 1,
                                    sizeof(*g->datasets));
    if (!g->datasets)
        return WEIR_ENOMEM;
    for (size_t i = 0; i < defs->n_datasets; i++) {
        const weir_def_dataset *def = &defs->datasets[i];
        weir_gdataset *d = &g->datasets[g->n_datasets];
        memset(d, 0, sizeof(*d));
        d->kind = def->kind;
        d->def = def;
        d->order = -1;
        const weir_sql_name *n = &def->name;
        if (def->kind == WEIR_TEMPORARY_VIEW || def->kind == WEIR_SINK) {
            if (n->n != 1) {
                report_at(b, &def->origin, NULL,
                          def->kind == WEIR_SINK
                              ? "MULTIPART_SINK_NAME_NOT_SUPPORTED"
                              : "MULTIPART_TEMPORARY_VIEW_NAME_NOT_SUPPORTED",
                          "%s with multipart name '%s' is not supported.",
                          def->kind == WEIR_SINK ? "Sink" : "Temporary view",
                          joined_name(&g->arena, n));
                continue;
            }
            d->name = n->parts[0];
            d->display = n->parts[0];
        } else {
            const char *cat = n->n >= 3 ? n->parts[n->n - 3] : def->ctx_catalog;
            const char *db = n->n >= 2 ? n->parts[n->n - 2] : def->ctx_database;
            if (!db) {
                report_at(b, &def->origin, &n->pos, "PIPELINE_NO_CURRENT_DATABASE",
                          "Dataset '%s' is not fully qualified and no database "
                          "is selected (USE CATALOG clears it): add USE SCHEMA "
                          "or qualify the name.",
                          joined_name(&g->arena, n));
                continue;
            }
            d->catalog = cat;
            d->database = db;
            d->name = n->parts[n->n - 1];
            d->display = weir__arena_printf(&g->arena, "%s.%s.%s", cat, db,
                                            d->name);
        }
        if (!d->display)
            return WEIR_ENOMEM;
        int prev = weir__graph_find_dataset(g, d->display);
        if (prev >= 0) {
            const weir_gdataset *p = &g->datasets[prev];
            const char *t1 = weir__kind_output_type(p->kind);
            const char *t2 = weir__kind_output_type(d->kind);
            if (strcmp(t1, t2) > 0) {
                const char *t = t1;
                t1 = t2;
                t2 = t;
            }
            report_at(b, &def->origin, &n->pos,
                      "PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT",
                      "A duplicate identifier was found for elements "
                      "registered in the pipeline's dataflow graph. Attempted "
                      "to register a %s with identifier %s, but a %s has "
                      "already been registered with that identifier. Please "
                      "ensure all outputs created within this pipeline have "
                      "unique identifiers.",
                      weir__kind_output_type(d->kind), quoted(&g->arena, d->display),
                      weir__kind_output_type(p->kind));
            (void)t1;
            (void)t2;
            continue;
        }
        const char *rv = weir__dataset_property(d, "pipelines.reset.allowed");
        d->reset_allowed = true;
        if (rv && !weir__str_parse_bool(rv, &d->reset_allowed)) {
            report_at(b, &def->origin, NULL, "",
                      "Could not parse value '%s' for table property "
                      "'pipelines.reset.allowed'",
                      rv);
        }
        if (weir__map_put(&g->dataset_by_name, d->display,
                          (void *)(intptr_t)(g->n_datasets + 1)) ||
            dataset_expectations(b, d))
            return WEIR_ENOMEM;
        g->n_datasets++;
    }
    return 0;
}

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

static int dataset_expectations(builder *b, weir_gdataset *d)
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
            report_at(b, &def->origin, NULL, "INVALID_EXPECTATION",
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
                report_at(b, &all[i].origin, NULL, "DUPLICATE_EXPECTATION_NAME",
                          "Expectation '%s' is declared twice for %s; "
                          "expectation names are unique per dataset",
                          all[i].name, d->display);
    return 0;
}

/* ---- flows --------------------------------------------------------------- */

static int push_flow(builder *b, weir_gflow *f)
{
    weir_graph *g = b->g;
    int prev = find_flow(g, f->display);
    if (prev >= 0) {
        const weir_gflow *p = &g->flows[prev];
        report_at(b, &f->origin, NULL, "PIPELINE_DUPLICATE_IDENTIFIERS.FLOW",
                  "A duplicate identifier was found for elements registered "
                  "in the pipeline's dataflow graph. Flow %s was found in "
                  "multiple datasets: %s, %s",
                  quoted(&g->arena, f->display),
                  quoted(&g->arena, g->datasets[p->target].display),
                  quoted(&g->arena, g->datasets[f->target].display));
        return 0;
    }
    if (weir__map_put(&g->flow_by_name, f->display,
                      (void *)(intptr_t)(g->n_flows + 1)))
        return WEIR_ENOMEM;
    g->flows[g->n_flows++] = *f;
    return 0;
}

static int resolve_target(builder *b, const weir_def_flow *def)
{
    weir_graph *g = b->g;
    const weir_sql_name *t = &def->target;
    if (t->n == 1) {
        int i = weir__graph_find_dataset(g, t->parts[0]);
        if (i >= 0)
            return i; /* a temporary view or sink */
    }
    const char *q = weir__graph_qualify(&g->arena, t, def->ctx_catalog,
                                        def->ctx_database);
    int i = q ? weir__graph_find_dataset(g, q) : -1;
    if (i < 0)
        report_at(b, &def->origin, &t->pos,
                  "PIPELINE_FLOW_TARGET_NOT_FOUND",
                  "Flow '%s' writes to '%s', which is not defined in the "
                  "pipeline. Define it with CREATE STREAMING TABLE.",
                  joined_name(&g->arena, &def->name),
                  q ? q : joined_name(&g->arena, t));
    return i;
}

static const weir_kvpair *merge_conf(weir_arena *a, const weir_defs *defs,
                                     const weir_kvpair *conf, size_t n,
                                     size_t *n_out)
{
    size_t total = defs->n_conf + n;
    *n_out = total;
    if (!total)
        return NULL;
    weir_kvpair *out = weir__arena_array(a, total, sizeof(*out));
    if (!out)
        return NULL;
    if (defs->n_conf)
        memcpy(out, defs->conf, defs->n_conf * sizeof(*out));
    if (n)
        memcpy(out + defs->n_conf, conf, n * sizeof(*out));
    return out;
}

static int add_flows(builder *b)
{
    weir_graph *g = b->g;
    const weir_defs *defs = b->defs;
    g->flows = weir__arena_array(&g->arena, defs->n_datasets + defs->n_flows + 1,
                                 sizeof(*g->flows));
    if (!g->flows)
        return WEIR_ENOMEM;
    /* Implicit flows first, in definition order. */
    for (size_t i = 0; i < g->n_datasets; i++) {
        weir_gdataset *d = &g->datasets[i];
        if (!d->def->query)
            continue;
        weir_gflow f;
        memset(&f, 0, sizeof(f));
        f.catalog = d->catalog;
        f.database = d->database;
        f.name = d->name;
        f.display = d->display;
        f.implicit = true;
        f.target = (int)i;
        f.query = d->def->query;
        f.dataset_def = d->def;
        f.ctx_catalog = d->def->ctx_catalog;
        f.ctx_database = d->def->ctx_database;
        f.conf = merge_conf(&g->arena, defs, d->def->conf, d->def->n_conf,
                            &f.n_conf);
        f.origin = d->def->origin;
        int rc = push_flow(b, &f);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < defs->n_flows; i++) {
        const weir_def_flow *def = &defs->flows[i];
        weir_gflow f;
        memset(&f, 0, sizeof(f));
        f.def = def;
        f.origin = def->origin;
        if (def->name.n != 1) {
            report_at(b, &def->origin, NULL, "MULTIPART_FLOW_NAME_NOT_SUPPORTED",
                      "Flow with multipart name '%s' is not supported.",
                      joined_name(&g->arena, &def->name));
            continue;
        }
        int target = resolve_target(b, def);
        if (target < 0)
            continue;
        const weir_gdataset *t = &g->datasets[target];
        f.target = target;
        f.name = def->name.parts[0];
        if (t->kind == WEIR_SINK || t->kind == WEIR_TEMPORARY_VIEW) {
            f.display = f.name; /* flows into sinks are not qualified */
        } else {
            f.catalog = def->ctx_catalog;
            f.database = def->ctx_database;
            if (!f.database) {
                report_at(b, &def->origin, NULL, "PIPELINE_NO_CURRENT_DATABASE",
                          "Flow '%s' is not fully qualified and no database is "
                          "selected (USE CATALOG clears it): add USE SCHEMA.",
                          f.name);
                continue;
            }
            f.display = weir__arena_printf(&g->arena, "%s.%s.%s", f.catalog,
                                           f.database, f.name);
        }
        f.query = def->query;
        f.ctx_catalog = def->ctx_catalog;
        f.ctx_database = def->ctx_database;
        f.once = def->once;
        f.conf = merge_conf(&g->arena, defs, def->conf, def->n_conf, &f.n_conf);
        if (weir__graph_find_dataset(g, f.display) >= 0) {
            report_at(b, &def->origin, NULL, "FLOW_NAME_CONFLICTS_WITH_TABLE",
                      "Flow '%s' cannot be created because its name conflicts "
                      "with the table '%s'. Flow target: '%s'.",
                      f.name, f.display, t->display);
            continue;
        }
        int rc = push_flow(b, &f);
        if (rc)
            return rc;
    }
    /* Each dataset's flows. */
    for (size_t i = 0; i < g->n_flows; i++) {
        weir_gdataset *d = &g->datasets[g->flows[i].target];
        d->n_flows++;
    }
    for (size_t i = 0; i < g->n_datasets; i++) {
        weir_gdataset *d = &g->datasets[i];
        d->flows = weir__arena_array(&g->arena, d->n_flows + 1, sizeof(int));
        if (!d->flows)
            return WEIR_ENOMEM;
        d->n_flows = 0;
    }
    for (size_t i = 0; i < g->n_flows; i++) {
        weir_gdataset *d = &g->datasets[g->flows[i].target];
        d->flows[d->n_flows++] = (int)i;
    }
    return 0;
}

/* ---- inputs ------------------------------------------------------------- */

static bool is_format_prefix(const char *s)
{
    static const char *const formats[] = { "parquet", "json", "csv", "text",
                                           "orc", "avro", "delta" };
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (weir__str_ieq(s, formats[i]))
            return true;
    return false;
}

static int resolve_inputs(builder *b, weir_gflow *f)
{
    weir_graph *g = b->g;
    weir_error e;
    int rc = weir__sql_query_reads(&f->reads, &g->arena, f->query, &e);
    if (rc) {
        weir__diags_add(b->diags, &e);
        b->rc = b->rc ? b->rc : WEIR_EGRAPH;
        return rc == WEIR_ENOMEM ? rc : 0;
    }
    size_t n = f->reads.n_refs + f->reads.n_tvfs;
    f->inputs = weir__arena_array(&g->arena, n + 1, sizeof(*f->inputs));
    if (!f->inputs)
        return WEIR_ENOMEM;
    for (size_t i = 0; i < f->reads.n_refs; i++) {
        const weir_sql_relref *r = &f->reads.refs[i];
        weir_input *in = &f->inputs[f->n_inputs++];
        in->ref = r;
        in->streaming = r->streaming;
        in->dataset = -1;
        if (r->streaming)
            f->streaming = true;
        if (r->name.n == 1) {
            int t = weir__graph_find_dataset(g, r->name.parts[0]);
            if (t >= 0 && g->datasets[t].kind == WEIR_TEMPORARY_VIEW) {
                in->dataset = t;
                continue;
            }
        }
        if (r->name.n == 2 && is_format_prefix(r->name.parts[0])) {
            in->external = weir__arena_printf(&g->arena, "%s.`%s`",
                                              r->name.parts[0],
                                              r->name.parts[1]);
            continue;
        }
        const char *q = weir__graph_qualify(&g->arena, &r->name, f->ctx_catalog,
                                            f->ctx_database);
        if (!q) {
            report_at(b, &f->origin, &r->name.pos,
                      "PIPELINE_NO_CURRENT_DATABASE",
                      "Table '%s' is not qualified and no database is "
                      "selected (USE CATALOG clears it).",
                      r->name.parts[0]);
            continue;
        }
        int t = weir__graph_find_dataset(g, q);
        if (t >= 0 && g->datasets[t].kind != WEIR_SINK &&
            g->datasets[t].kind != WEIR_TEMPORARY_VIEW)
            in->dataset = t;
        else
            in->external = q;
    }
    for (size_t i = 0; i < f->reads.n_tvfs; i++) {
        const weir_sql_tvf *t = &f->reads.tvfs[i];
        if (t->streaming && weir__str_ieq(t->name, "range")) {
            weir_input *in = &f->inputs[f->n_inputs++];
            in->dataset = -1;
            in->tvf = t;
            in->is_range = true;
            in->streaming = true;
            weir_buf k = WEIR_BUF_INIT;
            weir__buf_puts(&k, "range(");
            for (size_t a = 0; a < t->n_args; a++)
                weir__buf_printf(&k, "%s%s", a ? ", " : "",
                                 t->args[a].text ? t->args[a].text : "?");
            weir__buf_putc(&k, ')');
            in->external = weir__arena_strdup(&g->arena, weir__buf_cstr(&k));
            weir__buf_free(&k);
            f->streaming = true;
            continue;
        }
        if (!weir__str_ieq(t->name, "read_files") &&
            !weir__str_ieq(t->name, "cloud_files")) {
            if (t->streaming) {
                report_at(b, &f->origin, &t->pos,
                          "UNSUPPORTED_STREAMING_SOURCE",
                          "STREAM %s(...) is not a streaming source: weir "
                          "streams from tables, read_files(...) and "
                          "range(...).",
                          t->name);
            }
            continue;
        }
        weir_input *in = &f->inputs[f->n_inputs++];
        in->dataset = -1;
        in->tvf = t;
        in->is_files = true;
        in->streaming = t->streaming;
        const char *path = weir__sql_read_files_path(t);
        in->external = path ? path : "";
        if (t->streaming)
            f->streaming = true;
    }
    return 0;
}

/* ---- order and cycles --------------------------------------------------- */

/* Datasets a dataset depends on: the internal inputs of its flows. */
static int topo_order(builder *b)
{
    weir_graph *g = b->g;
    size_t n = g->n_datasets;
    int *indeg = calloc(n + 1, sizeof(int));
    int *queue = calloc(n + 1, sizeof(int));
    if (!indeg || !queue) {
        free(indeg);
        free(queue);
        return WEIR_ENOMEM;
    }
    for (size_t f = 0; f < g->n_flows; f++)
        for (size_t i = 0; i < g->flows[f].n_inputs; i++)
            if (g->flows[f].inputs[i].dataset >= 0)
                indeg[g->flows[f].target]++;
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (!indeg[i])
            queue[tail++] = (int)i;
    g->dataset_order = weir__arena_array(&g->arena, n + 1, sizeof(int));
    g->flow_order = weir__arena_array(&g->arena, g->n_flows + 1, sizeof(int));
    if (!g->dataset_order || !g->flow_order) {
        free(indeg);
        free(queue);
        return WEIR_ENOMEM;
    }
    size_t placed = 0;
    while (head < tail) {
        int d = queue[head++];
        g->datasets[d].order = (int)placed;
        g->dataset_order[placed++] = d;
        /* Release datasets written by flows that read d. */
        for (size_t f = 0; f < g->n_flows; f++) {
            const weir_gflow *fl = &g->flows[f];
            for (size_t i = 0; i < fl->n_inputs; i++)
                if (fl->inputs[i].dataset == d && --indeg[fl->target] == 0)
                    queue[tail++] = fl->target;
        }
    }
    free(queue);
    free(indeg);
    size_t k = 0;
    for (size_t p = 0; p < placed; p++) {
        const weir_gdataset *d = &g->datasets[g->dataset_order[p]];
        for (size_t i = 0; i < d->n_flows; i++)
            g->flow_order[k++] = d->flows[i];
    }
    return placed == n ? 0 : 1; /* 1: a cycle remains */
}

/* Depth-first search for a back edge among the datasets left unplaced by
 * the topological sort; color: 0 new, 1 on the stack, 2 done. */
static bool find_cycle(builder *b, int d, char *color)
{
    weir_graph *g = b->g;
    color[d] = 1;
    const weir_gdataset *ds = &g->datasets[d];
    for (size_t k = 0; k < ds->n_flows; k++) {
        const weir_gflow *fl = &g->flows[ds->flows[k]];
        for (size_t i = 0; i < fl->n_inputs; i++) {
            int u = fl->inputs[i].dataset;
            if (u < 0 || g->datasets[u].order >= 0 || color[u] == 2)
                continue;
            if (color[u] == 1 || find_cycle(b, u, color)) {
                if (color[u] == 1) {
                    const char *up = ds->display;
                    const char *down = g->datasets[u].display;
                    report_at(b, &fl->origin,
                              fl->inputs[i].ref
                                  ? &fl->inputs[i].ref->name.pos
                                  : NULL,
                              "CIRCULAR_DEPENDENCY",
                              "The downstream table '%s' is referenced when "
                              "creating the upstream table or view '%s'. "
                              "Circular dependencies are not supported in a "
                              "pipeline. Please remove the dependency between "
                              "'%s' and '%s'.",
                              down, up, up, down);
                }
                return true;
            }
        }
    }
    color[d] = 2;
    return false;
}

static int report_cycle(builder *b)
{
    weir_graph *g = b->g;
    char *color = calloc(g->n_datasets + 1, 1);
    if (!color)
        return WEIR_ENOMEM;
    for (size_t d = 0; d < g->n_datasets; d++)
        if (g->datasets[d].order < 0 && !color[d] &&
            find_cycle(b, (int)d, color))
            break;
    free(color);
    return 0;
}

/* ---- validations -------------------------------------------------------- */

static void validate_flow(builder *b, const weir_gflow *f)
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
            report_at(b, &f->origin, pos, "INVALID_TEMP_OBJ_REFERENCE",
                      "Cannot create the persistent object %s of the type "
                      "VIEW because it references to the temporary object %s "
                      "of the type VIEW. Please make the temporary object %s "
                      "persistent, or make the persistent object %s "
                      "temporary.",
                      quoted(&g->arena, t->display), quoted(&g->arena, d->display),
                      quoted(&g->arena, d->display), quoted(&g->arena, t->display));
        if (is_view(d->kind) && d->n_flows) {
            bool view_streaming = g->flows[d->flows[0]].streaming;
            if (in->streaming && !view_streaming)
                report_at(b, &f->origin, pos, "INCOMPATIBLE_BATCH_VIEW_READ",
                          "View %s is a batch view and must be referenced "
                          "using SparkSession#read (in SQL: without STREAM). "
                          "This check can be disabled by setting Spark conf "
                          "pipelines.incompatibleViewCheck.enabled = false.",
                          quoted(&g->arena, d->display));
            else if (!in->streaming && view_streaming)
                report_at(b, &f->origin, pos, "INCOMPATIBLE_STREAMING_VIEW_READ",
                          "View %s is a streaming view and must be "
                          "referenced using SparkSession#readStream (in SQL: "
                          "STREAM %s). This check can be disabled by setting "
                          "Spark conf pipelines.incompatibleViewCheck.enabled "
                          "= false.",
                          quoted(&g->arena, d->display), d->name);
        }
        if (in->streaming && d->kind == WEIR_MATERIALIZED_VIEW)
            report_at(b, &f->origin, pos, "STREAMING_READ_OF_MATERIALIZED_VIEW",
                      "Flow '%s' reads the materialized view %s as a stream; "
                      "a materialized view is recomputed in every update and "
                      "cannot be a streaming source. Read it without STREAM "
                      "from a materialized view, or stream from a streaming "
                      "table.",
                      f->display, d->display);
    }
    const char *fq = quoted(&g->arena, f->display);
    if (f->once) {
        if (f->streaming)
            report_at(b, &f->origin, NULL,
                      "INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_ONCE_FLOW",
                      "Flow %s returns an invalid relation type. %s is an "
                      "append once-flow that is defined by a streaming "
                      "relation. Append once-flows may only be defined by or "
                      "return a batch relation.",
                      fq, fq);
        return;
    }
    if (t->kind == WEIR_STREAMING_TABLE && !f->streaming)
        report_at(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE",
                  "Flow %s returns an invalid relation type. Streaming tables "
                  "may only be defined by streaming relations, but the flow "
                  "%s attempts to write a batch relation to the streaming "
                  "table %s. Consider using the STREAM operator in Spark-SQL "
                  "to convert the batch relation into a streaming relation, "
                  "or populating the streaming table with an append "
                  "once-flow instead.",
                  fq, fq, quoted(&g->arena, t->display));
    else if (t->kind == WEIR_MATERIALIZED_VIEW && f->streaming)
        report_at(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_MATERIALIZED_VIEW",
                  "Flow %s returns an invalid relation type. Materialized "
                  "views may only be defined by a batch relation, but the "
                  "flow %s attempts to write a streaming relation to the "
                  "materialized view %s.",
                  fq, fq, quoted(&g->arena, t->display));
    else if (t->kind == WEIR_PERSISTED_VIEW && f->streaming)
        report_at(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_PERSISTED_VIEW",
                  "Flow %s returns an invalid relation type. Persisted views "
                  "may only be defined by a batch relation, but the flow %s "
                  "attempts to write a streaming relation to the persisted "
                  "view %s.",
                  fq, fq, quoted(&g->arena, t->display));
    else if (t->kind == WEIR_SINK && !f->streaming)
        report_at(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_SINK",
                  "Flow %s returns an invalid relation type. Sinks may only "
                  "be written by streaming append flows, but the flow %s "
                  "attempts to write a batch relation to the sink %s. Use "
                  "the STREAM operator to read its source as a stream.",
                  fq, fq, quoted(&g->arena, t->display));
    if (f->streaming && t->kind != WEIR_TEMPORARY_VIEW) {
        weir_sql_shape shape;
        weir__sql_query_shape(&shape, f->query);
        if (shape.aggregates)
            report_at(b, &f->origin, &shape.aggregate_pos,
                      "UNSUPPORTED_STREAMING_OPERATOR_WITHOUT_WATERMARK",
                      "Append output mode not supported when there are "
                      "streaming aggregations on streaming DataFrames/DataSets "
                      "without watermark (flow %s). Aggregate in a "
                      "materialized view that reads the streaming table "
                      "instead.",
                      fq);
    }
}

static void validate_datasets(builder *b)
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
                report_at(b, &d->def->origin, NULL,
                          "MATERIALIZED_VIEW_WITH_MULTIPLE_QUERIES",
                          "Invalid destination %s with multiple flows: %s.",
                          quoted(&g->arena, d->display), weir__buf_cstr(&q));
                weir__buf_free(&q);
            }
        }
        bool quarantine = false;
        for (size_t k = 0; k < d->n_expectations; k++)
            quarantine |= d->expectations[k].action ==
                          WEIR_SQL_VIOLATION_QUARANTINE;
        if (quarantine && !is_table(d->kind))
            report_at(b, &d->def->origin, NULL, "INVALID_EXPECTATION",
                      "ON VIOLATION QUARANTINE needs a streaming table or "
                      "materialized view to put the rows beside; %s is a %s.",
                      d->display, weir__kind_name(d->kind));
        if (quarantine && d->catalog) {
            char name[800];
            snprintf(name, sizeof(name), "%s_quarantine", d->display);
            if (weir__graph_find_dataset(g, name) >= 0)
                report_at(b, &d->def->origin, NULL,
                          "PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT",
                          "The quarantine table of %s would be %s, which the "
                          "pipeline already defines.",
                          d->display, name);
        }
        if ((is_table(d->kind) || is_view(d->kind)) && d->n_flows == 0)
            report_at(b, &d->def->origin, NULL, "PIPELINE_DATASET_WITHOUT_FLOW",
                      "Pipeline dataset %s does not have any defined flows. "
                      "Please attach a query with the dataset's definition, "
                      "or explicitly define at least one flow that writes to "
                      "the dataset.",
                      quoted(&g->arena, d->display));
        if (is_table(d->kind) && !d->reset_allowed) {
            /* Spark's best-effort INVALID_RESETTABLE_DEPENDENCY. */
            for (size_t k = 0; k < d->n_flows; k++) {
                const weir_gflow *f = &g->flows[d->flows[k]];
                for (size_t j = 0; f->streaming && j < f->n_inputs; j++) {
                    int u = f->inputs[j].dataset;
                    if (u < 0 || !f->inputs[j].streaming ||
                        !is_table(g->datasets[u].kind) ||
                        !g->datasets[u].reset_allowed)
                        continue;
                    report_at(b, &d->def->origin, NULL,
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

int weir__graph_build(weir_graph **out, const weir_defs *defs,
                      weir__diags *diags, weir_error *err)
{
    *out = NULL;
    weir_graph *g = calloc(1, sizeof(*g));
    if (!g)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir__arena_init(&g->arena);
    weir__map_init(&g->dataset_by_name, true);
    weir__map_init(&g->flow_by_name, true);
    g->default_catalog = defs->default_catalog;
    g->default_database = defs->default_database;
    builder b = { g, defs, diags, 0 };

    int rc = add_datasets(&b);
    if (!rc)
        rc = add_flows(&b);
    bool outputs = false;
    for (size_t i = 0; !rc && i < g->n_datasets; i++)
        if (g->datasets[i].kind != WEIR_TEMPORARY_VIEW)
            outputs = true;
    if (!rc && !outputs)
        report_at(&b, NULL, NULL, "RUN_EMPTY_PIPELINE",
                  "Pipelines are expected to have at least one non-temporary "
                  "dataset defined (tables, persisted views) but no "
                  "non-temporary datasets were found in your pipeline. "
                  "Please verify that you have included the expected source "
                  "files, and that your source code includes table "
                  "definitions (e.g., CREATE MATERIALIZED VIEW in SQL "
                  "code).");
    for (size_t i = 0; !rc && i < g->n_flows; i++)
        rc = resolve_inputs(&b, &g->flows[i]);
    if (!rc) {
        int cyc = topo_order(&b);
        if (cyc < 0)
            rc = cyc;
        else if (cyc)
            rc = report_cycle(&b);
    }
    if (!rc) {
        for (size_t i = 0; i < g->n_flows; i++)
            validate_flow(&b, &g->flows[i]);
        validate_datasets(&b);
    }
    if (!rc && weir__arena_failed(&g->arena))
        rc = WEIR_ENOMEM;
    if (rc == WEIR_ENOMEM || (rc && rc != WEIR_EGRAPH)) {
        weir__graph_free(g);
        return WEIR_ERR(err, rc, NULL, "out of memory building the graph");
    }
    *out = g;
    if (b.rc == WEIR_ENOMEM)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (b.rc)
        return WEIR_ERR(err, WEIR_EGRAPH, NULL, "the dataflow graph is invalid");
    return 0;
}

void weir__graph_free(weir_graph *g)
{
    if (!g)
        return;
    weir__map_free(&g->dataset_by_name);
    weir__map_free(&g->flow_by_name);
    weir__arena_free(&g->arena);
    free(g);
}
