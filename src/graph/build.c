/*
 * Building the graph from definitions: qualified identifiers, implicit
 * flows, flow targets, each flow's inputs (pipeline datasets, external
 * tables, file sources), topological order and cycles, and Spark's
 * registration errors. The validations that follow are in validate.c.
 */
#include "graph/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "util/buf.h"
#include "util/str.h"
#include "util/vec.h"


/* ---- small helpers ------------------------------------------------------ */

void weir__origin_error_at(weir_error *err, const weir_origin *o)
{
    if (o && o->src)
        weir__sql_error_at(err, o->src, o->pos);
}

void weir__graph_report(builder *b, const weir_origin *o, const weir_sql_pos *pos,
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

#define DEFAULT_FORMAT_KEY "spark.sql.sources.default"

/* What weir__gdataset.format says (graph.h). */
static const char *dataset_format(const weir_graph *g, const weir_gdataset *d)
{
    const weir_def_dataset *def = d->def;
    if (!def || (d->kind != WEIR_STREAMING_TABLE &&
                 d->kind != WEIR_MATERIALIZED_VIEW))
        return def ? def->format : NULL;
    if (def->format)
        return def->format;
    const char *p = weir__dataset_property(d, "provider");
    if (p)
        return p;
    for (size_t i = def->n_conf; i-- > 0;)
        if (def->conf[i].key && weir__str_ieq(def->conf[i].key, DEFAULT_FORMAT_KEY))
            return def->conf[i].value;
    for (size_t i = g->n_conf; i-- > 0;)
        if (g->conf[i].key && weir__str_ieq(g->conf[i].key, DEFAULT_FORMAT_KEY))
            return g->conf[i].value;
    return NULL;
}

const char *weir__dataset_batch_key(const weir_gdataset *d)
{
    return d->kind == WEIR_SINK ? d->name : d->display;
}

bool weir__dataset_delta(const weir_gdataset *d)
{
    return (d->kind == WEIR_STREAMING_TABLE ||
            d->kind == WEIR_MATERIALIZED_VIEW) &&
           d->format && weir__str_ieq(d->format, "delta");
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
const char *weir__graph_quoted(weir_arena *a, const char *display)
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

#define TIME_ZONE_KEY "spark.sql.session.timeZone"

const char *weir__flow_time_zone(const weir_gflow *f)
{
    return weir__flow_conf(f, TIME_ZONE_KEY, NULL);
}

const char *weir__dataset_time_zone(const weir_graph *g,
                                    const weir_gdataset *d)
{
    if (d->n_flows > 0)
        return weir__flow_time_zone(&g->flows[d->flows[0]]);
    for (size_t i = g->n_conf; i-- > 0;)
        if (weir__str_ieq(g->conf[i].key, TIME_ZONE_KEY))
            return g->conf[i].value;
    return NULL;
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

bool weir__graph_uses_kafka(const weir_graph *g)
{
    for (size_t i = 0; i < g->n_datasets; i++) {
        const weir_gdataset *d = &g->datasets[i];
        if (d->kind == WEIR_SINK && d->def && d->def->format &&
            weir__str_ieq(d->def->format, "kafka"))
            return true;
    }
    for (size_t f = 0; f < g->n_flows; f++)
        for (size_t i = 0; i < g->flows[f].n_inputs; i++)
            if (g->flows[f].inputs[i].source == WEIR_INPUT_KAFKA)
                return true;
    return false;
}

/* ---- datasets ------------------------------------------------------------ */


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
        if (n->n >= 4) {
            weir__graph_report(b, &def->origin, &n->pos,
                               "REQUIRES_SINGLE_PART_NAMESPACE",
                               "4+ part table identifier %s is not supported.",
                               joined_name(&g->arena, n));
            continue;
        }
        if (def->kind == WEIR_TEMPORARY_VIEW || def->kind == WEIR_SINK) {
            if (n->n != 1) {
                weir__graph_report(b, &def->origin, &n->pos,
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
                weir__graph_report(b, &def->origin, &n->pos, "PIPELINE_NO_CURRENT_DATABASE",
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
            weir__graph_report(b, &def->origin, &n->pos,
                      "PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT",
                      "A duplicate identifier was found for elements "
                      "registered in the pipeline's dataflow graph. Attempted "
                      "to register a %s with identifier %s, but a %s has "
                      "already been registered with that identifier. Please "
                      "ensure all outputs created within this pipeline have "
                      "unique identifiers.",
                      weir__kind_output_type(d->kind), weir__graph_quoted(&g->arena, d->display),
                      weir__kind_output_type(p->kind));
            (void)t1;
            (void)t2;
            continue;
        }
        const char *rv = weir__dataset_property(d, "pipelines.reset.allowed");
        d->reset_allowed = true;
        if (rv && !weir__str_parse_bool(rv, &d->reset_allowed)) {
            weir__graph_report(b, &def->origin, NULL, "",
                      "Could not parse value '%s' for table property "
                      "'pipelines.reset.allowed'",
                      rv);
        }
        const char *sv = weir__dataset_property(d, "pipelines.skipChangeCommits");
        d->skip_change_commits = false;
        if (sv && !weir__str_parse_bool(sv, &d->skip_change_commits)) {
            weir__graph_report(b, &def->origin, NULL, "",
                      "Could not parse value '%s' for table property "
                      "'pipelines.skipChangeCommits'",
                      sv);
        }
        d->format = dataset_format(g, d);
        d->location = weir__dataset_property(d, "location");
        if (d->location && weir__str_starts(d->location, "file://"))
            d->location += 7;
        else if (d->location && weir__str_starts(d->location, "file:"))
            d->location += 5;
        /* engine/mv.c: incremental refresh of a materialized view. */
        const char *iv = weir__dataset_property(d, "pipelines.incremental");
        bool incremental;
        if (iv && !weir__str_parse_bool(iv, &incremental)) {
            weir__graph_report(b, &def->origin, NULL, "",
                      "Could not parse value '%s' for table property "
                      "'pipelines.incremental'",
                      iv);
        }
        if (weir__map_put(&g->dataset_by_name, d->display,
                          (void *)(intptr_t)(g->n_datasets + 1)) ||
            weir__graph_dataset_expectations(b, d))
            return WEIR_ENOMEM;
        g->n_datasets++;
    }
    return 0;
}

/* ---- flows --------------------------------------------------------------- */

static int push_flow(builder *b, weir_gflow *f)
{
    weir_graph *g = b->g;
    int prev = find_flow(g, f->display);
    if (prev >= 0) {
        const weir_gflow *p = &g->flows[prev];
        weir__graph_report(b, &f->origin, NULL, "PIPELINE_DUPLICATE_IDENTIFIERS.FLOW",
                  "A duplicate identifier was found for elements registered "
                  "in the pipeline's dataflow graph. Flow %s was found in "
                  "multiple datasets: %s,%s",
                  f->display,
                  weir__graph_quoted(&g->arena, g->datasets[p->target].display),
                  weir__graph_quoted(&g->arena, g->datasets[f->target].display));
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
    if (t->n >= 4) {
        weir__graph_report(b, &def->origin, &t->pos,
                           "REQUIRES_SINGLE_PART_NAMESPACE",
                           "4+ part table identifier %s is not supported.",
                           joined_name(&g->arena, t));
        return -1;
    }
    if (t->n == 1) {
        int i = weir__graph_find_dataset(g, t->parts[0]);
        if (i >= 0)
            return i; /* a temporary view or sink */
    }
    const char *q = weir__graph_qualify(&g->arena, t, def->ctx_catalog,
                                        def->ctx_database);
    int i = q ? weir__graph_find_dataset(g, q) : -1;
    if (i < 0)
        weir__graph_report(b, &def->origin, &t->pos,
                  "PIPELINE_FLOW_TARGET_NOT_FOUND",
                  "Flow '%s' writes to '%s', which is not defined in the "
                  "pipeline. Define it with CREATE STREAMING TABLE.",
                  joined_name(&g->arena, &def->name),
                  q ? q : joined_name(&g->arena, t));
    return i;
}

static const weir_kv *merge_conf(weir_arena *a, const weir_defs *defs,
                                 const weir_kv *conf, size_t n,
                                 size_t *n_out)
{
    size_t total = defs->n_conf + n;
    *n_out = total;
    if (!total)
        return NULL;
    weir_kv *out = weir__arena_array(a, total, sizeof(*out));
    if (!out)
        return NULL;
    if (defs->n_conf)
        memcpy(out, defs->conf, defs->n_conf * sizeof(*out));
    if (n)
        memcpy(out + defs->n_conf, conf, n * sizeof(*out));
    return out;
}

/* A definition's own confs (Python's spark_conf, the C API's; a SQL
 * file's SETs were checked at the statement, the pipeline's where it was
 * configured): a key weir reads needs a value it can use. */
static void check_conf(builder *b, const weir_origin *o,
                       const weir_kv *conf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char why[300];
        int bad = conf[i].key ? weir__spec_check_setting(conf[i].key,
                                                         conf[i].value, why,
                                                         sizeof(why))
                              : 0;
        if (bad)
            weir__graph_report(b, o, NULL,
                               bad == 2 ? "UNKNOWN_CONF" : "INVALID_CONF_VALUE",
                               "%s.", why);
    }
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
        f.cdc = d->def->cdc;
        f.dataset_def = d->def;
        f.ctx_catalog = d->def->ctx_catalog;
        f.ctx_database = d->def->ctx_database;
        f.conf = merge_conf(&g->arena, defs, d->def->conf, d->def->n_conf,
                            &f.n_conf);
        f.origin = d->def->origin;
        if (!d->def->origin.sql)
            check_conf(b, &d->def->origin, d->def->conf, d->def->n_conf);
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
            weir__graph_report(b, &def->origin, &def->name.pos,
                               "MULTIPART_FLOW_NAME_NOT_SUPPORTED",
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
                weir__graph_report(b, &def->origin, NULL, "PIPELINE_NO_CURRENT_DATABASE",
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
        f.cdc = def->cdc;
        f.conf = merge_conf(&g->arena, defs, def->conf, def->n_conf, &f.n_conf);
        if (!def->origin.sql)
            check_conf(b, &def->origin, def->conf, def->n_conf);
        /* An AUTO CDC flow named like its target (APPLY CHANGES INTO t,
         * Python's default name) is the target's own flow, as in Spark. */
        if (f.cdc && find_flow(g, f.display) < 0 &&
            weir__str_ieq(f.display, t->display))
            f.implicit = true;
        /* A dataset's implicit flow already owns the name: Spark's
         * registration finds the duplicate flow identifier first. Only a
         * dataset without a query leaves the name to the table check. */
        if (!f.implicit && find_flow(g, f.display) < 0 &&
            weir__graph_find_dataset(g, f.display) >= 0) {
            weir__graph_report(b, &def->origin, NULL, "FLOW_NAME_CONFLICTS_WITH_TABLE",
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

/* Whether name is a database catalog declared in the configuration
 * (weir.catalogs.<name>.url: docs/databases.md). */
static bool db_catalog(const weir_graph *g, const char *name)
{
    char key[320];
    snprintf(key, sizeof(key), "weir.catalogs.%s.url", name);
    return weir__kv_get(g->conf, g->n_conf, key) != NULL;
}

/* A read_jdbc(...) input (docs/databases.md): its options are checked
 * here, so that a dry run reports them (a stream needs a cursorColumn, a
 * batch read takes none); it shows as read_jdbc(the database and table),
 * which names no secret. */
static int jdbc_input(builder *b, weir_gflow *f, const weir_sql_tvf *t)
{
    weir_graph *g = b->g;
    weir_input *in = &f->inputs[f->n_inputs++];
    in->dataset = -1;
    in->tvf = t;
    in->source = WEIR_INPUT_JDBC;
    in->streaming = t->streaming;
    weir_arena a = WEIR_ARENA_INIT;
    weir_jdbc_opts o;
    weir_error e;
    memset(&e, 0, sizeof(e));
    weir_buf d = WEIR_BUF_INIT;
    if (weir__sql_jdbc_opts(&o, &a, t, &e)) {
        weir_sql_pos at = o.error_pos.line ? o.error_pos : t->pos;
        weir__graph_report(b, &f->origin, &at, e.error_class, "%s", e.message);
        /* The source line shown may hold the password (substituted). */
        for (size_t i = 0; b->diags && i < b->diags->len; i++) {
            weir_error *x = &b->diags->items[i];
            weir__sql_jdbc_mask(o.password, x->line_text, sizeof(x->line_text));
            weir__sql_jdbc_mask(o.password, x->message, sizeof(x->message));
        }
        weir__buf_puts(&d, "read_jdbc(?)");
    } else {
        weir__buf_puts(&d, "read_jdbc(");
        weir__sql_jdbc_describe(&o, &d);
        weir__buf_putc(&d, ')');
        if (t->streaming && !o.cursor)
            weir__graph_report(b, &f->origin, &t->pos, "INVALID_JDBC_OPTION",
                      "read_jdbc(): a streaming read of a database pulls the "
                      "rows past a cursor column: name it (cursorColumn => "
                      "'updated_at'), or read the table without STREAM.");
        else if (!t->streaming && o.cursor)
            weir__graph_report(b, &f->origin, &o.cursor_pos, "INVALID_JDBC_OPTION",
                      "read_jdbc(): cursorColumn is for streaming reads "
                      "(STREAM read_jdbc(...), spark.readStream); a batch read "
                      "reads the whole table.");
    }
    in->external = weir__arena_strdup(&g->arena, weir__buf_cstr(&d));
    weir__buf_free(&d);
    weir__arena_free(&a);
    if (t->streaming)
        f->streaming = true;
    return in->external ? 0 : -1;
}

/* How a Kafka input shows in descriptions: read_kafka(subscribe => 'a,b'),
 * its subscription only. */
static const char *kafka_display(weir_arena *a, const weir_sql_tvf *t)
{
    static const char *const subs[] = { "subscribe", "subscribePattern",
                                        "assign" };
    weir_buf k = WEIR_BUF_INIT;
    weir__buf_puts(&k, "read_kafka(");
    size_t shown = 0;
    for (size_t i = 0; i < t->n_args; i++)
        for (size_t s = 0; s < 3; s++)
            if (t->args[i].name && weir__str_ieq(t->args[i].name, subs[s])) {
                weir__buf_printf(&k, "%s%s => ", shown++ ? ", " : "", subs[s]);
                weir__buf_put_sql_string(&k, t->args[i].text ? t->args[i].text
                                                             : "");
            }
    weir__buf_putc(&k, ')');
    const char *out = k.failed ? NULL : weir__arena_strdup(a, weir__buf_cstr(&k));
    weir__buf_free(&k);
    return out;
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
        if (r->name.n == 3 && db_catalog(g, r->name.parts[0])) {
            /* A database catalog of the configuration: read-only. */
            in->source = WEIR_INPUT_JDBC;
            in->external = weir__arena_printf(&g->arena, "%s.%s.%s", r->name.parts[0],
                                              r->name.parts[1], r->name.parts[2]);
            if (r->streaming)
                weir__graph_report(b, &f->origin, &r->name.pos, "INVALID_JDBC_OPTION",
                          "%s is a table of the database catalog %s, which is "
                          "read in batch: stream it with STREAM read_jdbc(..., "
                          "cursorColumn => ...).",
                          in->external ? in->external : "", r->name.parts[0]);
            continue;
        }
        if (r->name.n == 2 && is_format_prefix(r->name.parts[0])) {
            if (r->streaming && weir__str_ieq(r->name.parts[0], "delta"))
                in->source = WEIR_INPUT_DELTA;
            in->external = weir__arena_printf(&g->arena, "%s.`%s`",
                                              r->name.parts[0],
                                              r->name.parts[1]);
            continue;
        }
        const char *q = weir__graph_qualify(&g->arena, &r->name, f->ctx_catalog,
                                            f->ctx_database);
        if (!q) {
            weir__graph_report(b, &f->origin, &r->name.pos,
                      "PIPELINE_NO_CURRENT_DATABASE",
                      "Table '%s' is not qualified and no database is "
                      "selected (USE CATALOG clears it).",
                      r->name.parts[0]);
            continue;
        }
        int t = weir__graph_find_dataset(g, q);
        if (t >= 0 && g->datasets[t].kind != WEIR_SINK &&
            g->datasets[t].kind != WEIR_TEMPORARY_VIEW) {
            in->dataset = t;
            if (r->streaming && weir__dataset_delta(&g->datasets[t]))
                in->source = WEIR_INPUT_DELTA;
        } else
            in->external = q;
    }
    for (size_t i = 0; i < f->reads.n_tvfs; i++) {
        const weir_sql_tvf *t = &f->reads.tvfs[i];
        if (t->streaming && weir__str_ieq(t->name, "range")) {
            weir_input *in = &f->inputs[f->n_inputs++];
            in->dataset = -1;
            in->tvf = t;
            in->source = WEIR_INPUT_RANGE;
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
        if (weir__str_ieq(t->name, "read_kafka")) {
            weir_input *in = &f->inputs[f->n_inputs++];
            in->dataset = -1;
            in->tvf = t;
            in->source = WEIR_INPUT_KAFKA;
            in->streaming = t->streaming;
            in->external = kafka_display(&g->arena, t);
            if (!in->external)
                return WEIR_ENOMEM;
            if (t->streaming)
                f->streaming = true;
            else
                weir__graph_report(b, &f->origin, &t->pos,
                          "UNSUPPORTED_KAFKA_BATCH_READ",
                          "read_kafka(...) without STREAM (a batch read of "
                          "Kafka) is not supported: read it as STREAM "
                          "read_kafka(...) in a streaming table or flow.");
            continue;
        }
        if (weir__str_ieq(t->name, "read_jdbc")) {
            if (jdbc_input(b, f, t))
                return WEIR_ENOMEM;
            continue;
        }
        if (!weir__str_ieq(t->name, "read_files") &&
            !weir__str_ieq(t->name, "cloud_files")) {
            if (t->streaming) {
                weir__graph_report(b, &f->origin, &t->pos,
                          "UNSUPPORTED_STREAMING_SOURCE",
                          "STREAM %s(...) is not a streaming source: weir "
                          "streams from tables, read_files(...), "
                          "read_kafka(...) and range(...).",
                          t->name);
            }
            continue;
        }
        weir_input *in = &f->inputs[f->n_inputs++];
        in->dataset = -1;
        in->tvf = t;
        in->source = WEIR_INPUT_FILES;
        in->streaming = t->streaming;
        const char *path = weir__sql_read_files_path(t);
        in->external = path ? path : "";
        if (t->streaming)
            f->streaming = true;
    }
    return 0;
}

/* ---- order and cycles --------------------------------------------------- */

/* Datasets a dataset depends on: the internal inputs of its flows. Kahn's
 * algorithm over the edges input -> flow target (a flow reading d twice
 * holds two edges), in linear time: readers[first[d] .. first[d + 1]) are
 * the targets of the flows that read dataset d. */
static int topo_order(builder *b)
{
    weir_graph *g = b->g;
    size_t n = g->n_datasets, n_edges = 0;
    for (size_t f = 0; f < g->n_flows; f++)
        for (size_t i = 0; i < g->flows[f].n_inputs; i++)
            if (g->flows[f].inputs[i].dataset >= 0)
                n_edges++;
    int *indeg = calloc(n + 1, sizeof(int));
    int *queue = calloc(n + 1, sizeof(int));
    size_t *first = calloc(n + 1, sizeof(size_t));
    size_t *fill = calloc(n + 1, sizeof(size_t));
    int *readers = calloc(n_edges + 1, sizeof(int));
    int rc = WEIR_ENOMEM;
    g->dataset_order = weir__arena_array(&g->arena, n + 1, sizeof(int));
    g->flow_order = weir__arena_array(&g->arena, g->n_flows + 1, sizeof(int));
    if (!indeg || !queue || !first || !fill || !readers || !g->dataset_order ||
        !g->flow_order)
        goto out;
    for (size_t f = 0; f < g->n_flows; f++)
        for (size_t i = 0; i < g->flows[f].n_inputs; i++) {
            int d = g->flows[f].inputs[i].dataset;
            if (d >= 0) {
                indeg[g->flows[f].target]++;
                first[d + 1]++;
            }
        }
    for (size_t d = 0; d < n; d++) {
        first[d + 1] += first[d];
        fill[d] = first[d];
    }
    for (size_t f = 0; f < g->n_flows; f++)
        for (size_t i = 0; i < g->flows[f].n_inputs; i++) {
            int d = g->flows[f].inputs[i].dataset;
            if (d >= 0)
                readers[fill[d]++] = g->flows[f].target;
        }
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (!indeg[i])
            queue[tail++] = (int)i;
    size_t placed = 0;
    while (head < tail) {
        int d = queue[head++];
        g->datasets[d].order = (int)placed;
        g->dataset_order[placed++] = d;
        /* Release datasets written by flows that read d. */
        for (size_t e = first[d]; e < first[d + 1]; e++)
            if (--indeg[readers[e]] == 0)
                queue[tail++] = readers[e];
    }
    size_t k = 0;
    for (size_t p = 0; p < placed; p++) {
        const weir_gdataset *d = &g->datasets[g->dataset_order[p]];
        for (size_t i = 0; i < d->n_flows; i++)
            g->flow_order[k++] = d->flows[i];
    }
    rc = placed == n ? 0 : 1; /* 1: a cycle remains */
out:
    free(readers);
    free(fill);
    free(first);
    free(queue);
    free(indeg);
    return rc;
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
                    weir__graph_report(b, &fl->origin,
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
    g->conf = defs->conf;
    g->n_conf = defs->n_conf;
    builder b = { g, defs, diags, 0 };

    int rc = add_datasets(&b);
    if (!rc) {
        weir__graph_validate_definitions(&b);
        weir__graph_validate_names(&b);
        rc = add_flows(&b);
    }
    bool outputs = false;
    for (size_t i = 0; !rc && i < g->n_datasets; i++)
        if (g->datasets[i].kind != WEIR_TEMPORARY_VIEW)
            outputs = true;
    if (!rc && !outputs)
        weir__graph_report(&b, NULL, NULL, "RUN_EMPTY_PIPELINE",
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
            weir__graph_validate_flow(&b, &g->flows[i]);
        weir__graph_validate_datasets(&b);
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
