/*
 * PipelineCommand handlers in registration mode: the definitions a
 * pyspark.pipelines client sends (graph, outputs, flows, SQL files) become
 * weir_pipeline_define_* calls on the bound pipeline.
 *
 * Spark sends a dataset's output (DefineOutput) and its implicit flow
 * (DefineFlow with flow name == target) separately, in any order, while
 * weir registers a dataset together with its query. So an output waits
 * here until its implicit flow arrives (then both are registered as one
 * dataset); outputs that never get one (create_streaming_table, sinks) are
 * registered without a query by weir__creg_flush, at the end of the
 * client's session. Standalone flows are registered when they arrive.
 *
 * Problems in the user's definitions are recorded as diagnostics with the
 * Python file:line and also answered to the client as a Spark error.
 *
 * Owns: copies of the waiting definitions and the diagnostics.
 */
#include "connect/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/grpc.h"
#include "connect/plan.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/str.h"
#include "util/vec.h"

/* Limits on what one client can make the server keep. */
#define MAX_DEFINITIONS 100000
#define MAX_KV 4096

typedef WEIR_VEC(weir_kv) kv_list;
typedef WEIR_VEC(const char *) str_list;

typedef struct output {
    char *name;
    weir_dataset_kind kind;
    char *comment, *schema, *format;
    kv_list properties, options;
    str_list partition_cols, cluster_cols;
    char *file;
    unsigned line;
    bool registered;
    weir_expectation *exps; /* from the shim, on its flows (shim.c) */
    size_t n_exps;
} output;

/* A dataset's own flow that arrived before its output. */
typedef struct implicit_flow {
    char *target;
    char *query;
    kv_list conf;
    char *file;
    unsigned line;
    weir_expectation *exps; /* from the shim (shim.c) */
    size_t n_exps;
} implicit_flow;

struct weir__creg {
    weir_pipeline *pipeline;
    char graph_id[37];
    bool has_graph;
    kv_list graph_conf; /* CreateDataflowGraph.sql_conf, for every flow */
    WEIR_VEC(output *) outputs;
    WEIR_VEC(implicit_flow *) waiting;
    size_t n_definitions;
    weir__diags diags;
};

/* ------------------------------------------------------------------------
 * Copies
 * ------------------------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void kv_free(kv_list *l)
{
    for (size_t i = 0; i < l->len; i++) {
        free((char *)l->items[i].key);
        free((char *)l->items[i].value);
    }
    WEIR_VEC_FREE(l);
}

static void str_free(str_list *l)
{
    for (size_t i = 0; i < l->len; i++)
        free((char *)l->items[i]);
    WEIR_VEC_FREE(l);
}

/* Append key=value (replacing an earlier value of key). 0 or -1. */
static int kv_put(kv_list *l, const char *key, const char *value)
{
    for (size_t i = 0; i < l->len; i++)
        if (strcmp(l->items[i].key, key) == 0) {
            char *v = strdup(value ? value : "");
            if (!v)
                return -1;
            free((char *)l->items[i].value);
            l->items[i].value = v;
            return 0;
        }
    if (l->len >= MAX_KV)
        return -1;
    weir_kv kv = { strdup(key), strdup(value ? value : "") };
    if (!kv.key || !kv.value || WEIR_VEC_PUSH(l, kv)) {
        free((char *)kv.key);
        free((char *)kv.value);
        return -1;
    }
    return 0;
}

static int str_push(str_list *l, const char *s)
{
    char *c = strdup(s ? s : "");
    if (!c || l->len >= MAX_KV || WEIR_VEC_PUSH(l, c)) {
        free(c);
        return -1;
    }
    return 0;
}

static void output_free(output *o)
{
    if (!o)
        return;
    free(o->name);
    free(o->comment);
    free(o->schema);
    free(o->format);
    kv_free(&o->properties);
    kv_free(&o->options);
    str_free(&o->partition_cols);
    str_free(&o->cluster_cols);
    free(o->file);
    weir__shim_exps_free(o->exps, o->n_exps);
    free(o);
}

static void implicit_free(implicit_flow *f)
{
    if (!f)
        return;
    free(f->target);
    free(f->query);
    kv_free(&f->conf);
    free(f->file);
    weir__shim_exps_free(f->exps, f->n_exps);
    free(f);
}

weir__creg *weir__creg_new(weir_pipeline *pipeline)
{
    weir__creg *reg = calloc(1, sizeof *reg);
    if (reg)
        reg->pipeline = pipeline;
    return reg;
}

void weir__creg_free(weir__creg *reg)
{
    if (!reg)
        return;
    for (size_t i = 0; i < reg->outputs.len; i++)
        output_free(reg->outputs.items[i]);
    WEIR_VEC_FREE(&reg->outputs);
    for (size_t i = 0; i < reg->waiting.len; i++)
        implicit_free(reg->waiting.items[i]);
    WEIR_VEC_FREE(&reg->waiting);
    kv_free(&reg->graph_conf);
    weir__diags_free(&reg->diags);
    free(reg);
}

size_t weir__creg_diagnostics(weir__creg *reg, const weir_error **out)
{
    if (out)
        *out = reg->diags.items;
    return reg->diags.len;
}

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

static int oom(weir__cstatus *st)
{
    return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                             "out of memory");
}

/* A Python file named as SQL files are: relative to the spec's folder
 * when it is below it (pyspark sends absolute paths). */
static const char *display_path(const weir__creg *reg, const char *file)
{
    const char *spec = weir_pipeline_spec_path(reg->pipeline);
    const char *slash = spec ? strrchr(spec, '/') : NULL;
    if (!file || !slash)
        return file;
    size_t n = (size_t)(slash - spec);
    if (n && strncmp(file, spec, n) == 0 && file[n] == '/' && file[n + 1])
        return file + n + 1;
    return file;
}

/* A problem in the user's definitions: recorded as a diagnostic at
 * file:line (file may be NULL) and answered to the client. */
static int diag(weir__creg *reg, weir__cstatus *st, int code,
                const char *error_class, const char *sql_state,
                const char *file, unsigned line, const char *fmt, ...)
    WEIR_PRINTF(8, 9);

static int diag(weir__creg *reg, weir__cstatus *st, int code,
                const char *error_class, const char *sql_state,
                const char *file, unsigned line, const char *fmt, ...)
{
    weir_error e;
    va_list ap;
    va_start(ap, fmt);
    weir__error_vset(&e, code, error_class, __FILE__, __LINE__, fmt, ap);
    va_end(ap);
    file = display_path(reg, file);
    if (file && *file)
        weir__error_at(&e, file, line, 0);
    weir__diags_add(&reg->diags, &e);
    if (file && *file)
        return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, error_class, sql_state,
                                 "%s (%s:%u)", e.message, file, line);
    return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, error_class, sql_state,
                             "%s", e.message);
}

/* A weir_error from the public API, relocated to the Python definition. */
static int diag_weir(weir__creg *reg, weir__cstatus *st, const weir_error *we,
                     const char *what, const char *file, unsigned line)
{
    const char *cls = we->error_class[0] ? we->error_class
                                         : "INVALID_PIPELINE_DEFINITION";
    return diag(reg, st, we->code ? we->code : WEIR_ERROR, cls, "42000", file,
                line, "%s: %s", what, we->message);
}

/* ------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

/* Parts of a name, counting dots outside backticks. */
static size_t name_parts(const char *s)
{
    size_t n = 1;
    bool quoted = false;
    for (; *s; s++) {
        if (*s == '`')
            quoted = !quoted;
        else if (*s == '.' && !quoted)
            n++;
    }
    return n;
}

static output *find_output(weir__creg *reg, const char *name)
{
    for (size_t i = 0; i < reg->outputs.len; i++)
        if (weir__str_ieq(reg->outputs.items[i]->name, name))
            return reg->outputs.items[i];
    return NULL;
}

static size_t find_waiting(weir__creg *reg, const char *target)
{
    for (size_t i = 0; i < reg->waiting.len; i++)
        if (weir__str_ieq(reg->waiting.items[i]->target, target))
            return i;
    return (size_t)-1;
}

static const char *kind_word(weir_dataset_kind k)
{
    switch (k) {
    case WEIR_STREAMING_TABLE: return "TABLE";
    case WEIR_MATERIALIZED_VIEW: return "MATERIALIZED_VIEW";
    case WEIR_TEMPORARY_VIEW: return "TEMPORARY_VIEW";
    case WEIR_SINK: return "SINK";
    default: return "VIEW";
    }
}

/* The pipeline's default catalog and database, read back through
 * weir_pipeline_read ("`cat`.`db`.`x`"). */
static bool pipeline_defaults(weir_pipeline *p, char *cat, size_t cat_size,
                              char *db, size_t db_size)
{
    const char *ref = NULL;
    if (weir_pipeline_read(p, "weir_probe", false, &ref, NULL) || !ref)
        return false;
    char *parts[2] = { cat, db };
    size_t sizes[2] = { cat_size, db_size };
    const char *s = ref;
    for (int i = 0; i < 2; i++) {
        if (*s++ != '`')
            return false;
        size_t n = 0;
        for (; *s && !(*s == '`' && s[1] != '`'); s++) {
            if (*s == '`')
                s++;
            if (n + 1 < sizes[i])
                parts[i][n++] = *s;
        }
        parts[i][n] = '\0';
        if (*s++ != '`' || *s++ != '.')
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------------
 * Registration into the pipeline
 * ------------------------------------------------------------------------ */

/* Flow confs: the graph's, then the flow's own (which win). */
static int merged_conf(weir__creg *reg, const kv_list *own, kv_list *out)
{
    for (size_t i = 0; i < reg->graph_conf.len; i++)
        if (kv_put(out, reg->graph_conf.items[i].key, reg->graph_conf.items[i].value))
            return -1;
    for (size_t i = 0; own && i < own->len; i++)
        if (kv_put(out, own->items[i].key, own->items[i].value))
            return -1;
    return 0;
}

/* Register an output as a dataset, with its implicit flow when given. */
static int register_output(weir__creg *reg, output *o, const implicit_flow *f,
                           weir__cstatus *st)
{
    o->registered = true; /* once, whatever the outcome */
    kv_list conf = WEIR_VEC_INIT;
    if (f && merged_conf(reg, &f->conf, &conf)) {
        kv_free(&conf);
        return oom(st);
    }
    weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
    d.name = o->name;
    d.query = f ? f->query : NULL;
    d.comment = o->comment;
    d.schema = o->schema;
    d.format = o->format;
    d.properties = o->properties.items;
    d.n_properties = o->properties.len;
    d.partition_cols = o->partition_cols.items;
    d.n_partition_cols = o->partition_cols.len;
    d.cluster_cols = o->cluster_cols.items;
    d.n_cluster_cols = o->cluster_cols.len;
    d.options = o->options.items;
    d.n_options = o->options.len;
    /* Expectations (weir's shim) on the dataset's flows belong to it. */
    weir_expectation *exps = NULL;
    size_t n_exps = 0;
    if (weir__shim_exps_append(&exps, &n_exps, o->exps, o->n_exps) ||
        (f && weir__shim_exps_append(&exps, &n_exps, f->exps, f->n_exps))) {
        weir__shim_exps_free(exps, n_exps);
        kv_free(&conf);
        return oom(st);
    }
    d.expectations = exps;
    d.n_expectations = n_exps;
    /* Errors and events name the Python definition (the flow's when the
     * query came with one: that is where a bad query was written),
     * relative to the spec's folder as SQL files are. */
    d.source_path = display_path(reg, f && f->file ? f->file : o->file);
    d.source_line = f && f->file ? f->line : o->line;
    d.conf = conf.items;
    d.n_conf = conf.len;
    weir_error e;
    int rc = weir_pipeline_define_dataset(reg->pipeline, o->kind, &d, NULL, &e);
    weir__shim_exps_free(exps, n_exps);
    kv_free(&conf);
    if (rc == WEIR_ENOMEM)
        return oom(st);
    if (rc) {
        char what[600];
        snprintf(what, sizeof what, "cannot register %s '%s'", kind_word(o->kind),
                 o->name);
        return diag_weir(reg, st, &e, what, f ? f->file : o->file,
                         f ? f->line : o->line);
    }
    return 0;
}

void weir__creg_flush(weir__creg *reg)
{
    weir__cstatus st;
    for (size_t i = 0; i < reg->outputs.len; i++) {
        output *o = reg->outputs.items[i];
        if (!o->registered)
            register_output(reg, o, NULL, &st);
    }
    for (size_t i = 0; i < reg->waiting.len; i++) {
        implicit_flow *f = reg->waiting.items[i];
        diag(reg, &st, WEIR_EGRAPH, "PIPELINE_FLOW_TARGET_NOT_DEFINED", "42000",
             f->file, f->line,
             "Flow '%s' writes to '%s', which is not defined in the pipeline",
             f->target, f->target);
        implicit_free(f);
    }
    reg->waiting.len = 0;
}

/* ------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------ */

static const char *opt_str(int is_set, const char *s)
{
    return is_set ? s : NULL;
}

static void location(const Spark__Connect__SourceCodeLocation *loc,
                     const char **file, unsigned *line)
{
    *file = NULL;
    *line = 0;
    if (!loc)
        return;
    if (loc->_file_name_case && loc->file_name && *loc->file_name)
        *file = loc->file_name;
    if (loc->_line_number_case && loc->line_number > 0)
        *line = (unsigned)loc->line_number;
}

static int check_graph(weir__creg *reg, int is_set, const char *id,
                       weir__cstatus *st)
{
    if (reg->has_graph && is_set && id && strcmp(id, reg->graph_id) == 0)
        return 0;
    return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "DATAFLOW_GRAPH_NOT_FOUND",
                             "42000",
                             "Dataflow graph with id %.64s could not be found",
                             is_set && id ? id : "(none)");
}

static int create_graph(weir__creg *reg,
                        const Spark__Connect__PipelineCommand__CreateDataflowGraph *c,
                        char graph_id[40], weir__cstatus *st)
{
    if (reg->has_graph)
        return weir__cstatus_set(
            st, WEIR_GRPC_FAILED_PRECONDITION,
            "UNSUPPORTED_FEATURE.CONNECT_SECOND_GRAPH", "0A000",
            "This weir endpoint registers one dataflow graph (%s) and it "
            "exists already.",
            reg->graph_id);
    const char *cat = opt_str(c->_default_catalog_case, c->default_catalog);
    const char *db = opt_str(c->_default_database_case, c->default_database);
    char pcat[256], pdb[256];
    if ((cat || db) &&
        pipeline_defaults(reg->pipeline, pcat, sizeof pcat, pdb, sizeof pdb) &&
        ((cat && *cat && strcmp(cat, pcat) != 0) ||
         (db && *db && strcmp(db, pdb) != 0)))
        return weir__cstatus_set(
            st, WEIR_GRPC_FAILED_PRECONDITION,
            "CONNECT_GRAPH_DEFAULTS_MISMATCH", "42000",
            "The dataflow graph asks for default catalog '%s' and database "
            "'%s', but the pipeline weir registers into uses '%s' and '%s'.",
            cat ? cat : pcat, db ? db : pdb, pcat, pdb);
    for (size_t i = 0; i < c->n_sql_conf; i++)
        if (kv_put(&reg->graph_conf, c->sql_conf[i]->key, c->sql_conf[i]->value))
            return oom(st);
    weir__uuid(reg->graph_id);
    reg->has_graph = true;
    snprintf(graph_id, 40, "%s", reg->graph_id);
    return 0;
}

/* Fill o from TableDetails / SinkDetails. */
static int output_details(weir__creg *reg, output *o,
                          const Spark__Connect__PipelineCommand__DefineOutput *d,
                          weir__cstatus *st)
{
    if (d->details_case ==
        SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__DETAILS_TABLE_DETAILS) {
        const Spark__Connect__PipelineCommand__DefineOutput__TableDetails *t =
            d->table_details;
        for (size_t i = 0; i < t->n_table_properties; i++)
            if (kv_put(&o->properties, t->table_properties[i]->key,
                       t->table_properties[i]->value))
                return oom(st);
        for (size_t i = 0; i < t->n_partition_cols; i++)
            if (str_push(&o->partition_cols, t->partition_cols[i]))
                return oom(st);
        for (size_t i = 0; i < t->n_clustering_columns; i++)
            if (str_push(&o->cluster_cols, t->clustering_columns[i]))
                return oom(st);
        if (t->_format_case && t->format && *t->format &&
            !(o->format = strdup(t->format)))
            return oom(st);
        if (t->schema_case ==
                SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__TABLE_DETAILS__SCHEMA_SCHEMA_STRING &&
            t->schema_string && *t->schema_string) {
            if (!(o->schema = strdup(t->schema_string)))
                return oom(st);
        } else if (t->schema_case ==
                   SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__TABLE_DETAILS__SCHEMA_SCHEMA_DATA_TYPE) {
            weir__plan_error pe;
            if (weir__plan_datatype_ddl(t->schema_data_type, 1, &o->schema, &pe))
                return diag(reg, st, WEIR_EINVAL,
                            pe.error_class[0] ? pe.error_class
                                              : "INVALID_SCHEMA",
                            "42000", o->file, o->line,
                            "the schema of '%s' cannot be used: %s", o->name,
                            pe.message);
        }
    } else if (d->details_case ==
               SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__DETAILS_SINK_DETAILS) {
        const Spark__Connect__PipelineCommand__DefineOutput__SinkDetails *s =
            d->sink_details;
        if (s->_format_case && s->format && *s->format &&
            !(o->format = strdup(s->format)))
            return oom(st);
        for (size_t i = 0; i < s->n_options; i++)
            if (kv_put(&o->options, s->options[i]->key, s->options[i]->value))
                return oom(st);
    } else if (d->details_case ==
               SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__DETAILS_EXTENSION) {
        return diag(reg, st, WEIR_EINVAL, "UNSUPPORTED_FEATURE.CONNECT_EXTENSION",
                    "0A000", o->file, o->line,
                    "output '%s' uses a details extension weir does not know",
                    o->name);
    }
    if (o->kind == WEIR_SINK && !o->format)
        return diag(reg, st, WEIR_EINVAL, "INVALID_SINK_FORMAT", "42000",
                    o->file, o->line, "sink '%s' needs a format", o->name);
    return 0;
}

static int define_output(weir__creg *reg,
                         const Spark__Connect__PipelineCommand__DefineOutput *d,
                         weir__cstatus *st)
{
    if (check_graph(reg, d->_dataflow_graph_id_case, d->dataflow_graph_id, st))
        return -1;
    const char *file;
    unsigned line;
    location(d->_source_code_location_case ? d->source_code_location : NULL,
             &file, &line);
    const char *name = opt_str(d->_output_name_case, d->output_name);
    if (!name || !*name)
        return diag(reg, st, WEIR_EINVAL, "INVALID_PIPELINE_DEFINITION", "42000",
                    file, line, "an output needs a name");
    weir_dataset_kind kind;
    switch (d->_output_type_case ? d->output_type : 0) {
    case SPARK__CONNECT__OUTPUT_TYPE__TABLE: kind = WEIR_STREAMING_TABLE; break;
    case SPARK__CONNECT__OUTPUT_TYPE__MATERIALIZED_VIEW:
        kind = WEIR_MATERIALIZED_VIEW;
        break;
    case SPARK__CONNECT__OUTPUT_TYPE__TEMPORARY_VIEW: kind = WEIR_TEMPORARY_VIEW; break;
    case SPARK__CONNECT__OUTPUT_TYPE__SINK: kind = WEIR_SINK; break;
    default:
        return diag(reg, st, WEIR_EINVAL, "UNSUPPORTED_PIPELINES_DATASET_TYPE",
                    "0A000", file, line, "output '%s' has an unknown type %d",
                    name, d->_output_type_case ? (int)d->output_type : 0);
    }
    if (kind == WEIR_TEMPORARY_VIEW && name_parts(name) > 1)
        return diag(reg, st, WEIR_EINVAL,
                    "MULTIPART_TEMPORARY_VIEW_NAME_NOT_SUPPORTED", "0A000", file,
                    line, "Temporary view name '%s' must be a single part", name);
    if (kind == WEIR_SINK && name_parts(name) > 1)
        return diag(reg, st, WEIR_EINVAL, "MULTIPART_SINK_NAME_NOT_SUPPORTED",
                    "0A000", file, line, "Sink name '%s' must be a single part",
                    name);
    const char *ref;
    weir_error e;
    if (weir_pipeline_read(reg->pipeline, name, false, &ref, &e))
        return diag_weir(reg, st, &e, "invalid output name", file, line);
    output *prev = find_output(reg, name);
    if (prev)
        return diag(reg, st, WEIR_EGRAPH, "PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT",
                    "42710", file, line,
                    "Output '%s' is defined twice (as %s, first at %s:%u, and as %s)",
                    name, kind_word(prev->kind), prev->file ? prev->file : "?",
                    prev->line, kind_word(kind));
    if (reg->n_definitions >= MAX_DEFINITIONS)
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "too many definitions");
    output *o = calloc(1, sizeof *o);
    if (!o)
        return oom(st);
    o->kind = kind;
    o->name = strdup(name);
    o->file = dup_or_null(file);
    o->line = line;
    const char *comment = opt_str(d->_comment_case, d->comment);
    if (comment)
        o->comment = strdup(comment);
    if (!o->name || (file && !o->file) || (comment && !o->comment)) {
        output_free(o);
        return oom(st);
    }
    int rc = output_details(reg, o, d, st);
    if (!rc && WEIR_VEC_PUSH(&reg->outputs, o))
        rc = oom(st);
    if (rc) {
        output_free(o);
        return rc;
    }
    reg->n_definitions++;
    size_t w = find_waiting(reg, name);
    if (w != (size_t)-1) {
        implicit_flow *f = reg->waiting.items[w];
        reg->waiting.items[w] = reg->waiting.items[--reg->waiting.len];
        rc = register_output(reg, o, f, st);
        implicit_free(f);
    }
    return rc;
}

/* The flow's query as Spark SQL, or a diagnostic at the construct that
 * cannot be translated (its own call site when the plan knows it). */
static int flow_query(weir__creg *reg, const char *flow, const char *file,
                      unsigned line,
                      const Spark__Connect__PipelineCommand__DefineFlow *d,
                      char **out, weir__cstatus *st)
{
    *out = NULL;
    if (d->details_case !=
            SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_FLOW__DETAILS_RELATION_FLOW_DETAILS ||
        !d->relation_flow_details->_relation_case ||
        !d->relation_flow_details->relation)
        return diag(reg, st, WEIR_EINVAL, "INVALID_PIPELINE_DEFINITION", "42000",
                    file, line, "Flow '%s' has no query", flow);
    weir__plan_error pe;
    if (weir__plan_relation_sql(d->relation_flow_details->relation, out, &pe)) {
        bool at_origin = pe.origin.file[0] != '\0';
        return diag(reg, st, WEIR_ESQL,
                    pe.error_class[0] ? pe.error_class : "UNSUPPORTED_FEATURE",
                    "0A000", at_origin ? pe.origin.file : file,
                    at_origin ? pe.origin.line : line,
                    "the query of flow '%s' cannot be translated: %s", flow,
                    pe.message);
    }
    return 0;
}

/* Append one expression of an AUTO CDC flow as Spark SQL. */
static int cdc_expr(weir_buf *b, const Spark__Connect__Expression *e,
                    weir__plan_error *pe)
{
    char *sql = NULL;
    if (weir__plan_expression_sql(e, &sql, pe))
        return -1;
    weir__buf_puts(b, sql);
    free(sql);
    return 0;
}

static int cdc_list(weir_buf *b, const char *clause,
                    Spark__Connect__Expression *const *cols, size_t n,
                    weir__plan_error *pe)
{
    weir__buf_printf(b, " %s (", clause);
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (cdc_expr(b, cols[i], pe))
            return -1;
    }
    weir__buf_putc(b, ')');
    return 0;
}

/* create_auto_cdc_flow's details as the clauses of an AUTO CDC flow in
 * SQL (docs/auto-cdc.md), which weir_flow_options.auto_cdc takes. The
 * graph checks them like those of a SQL file. */
static int flow_cdc(weir__creg *reg, const char *flow, const char *file,
                    unsigned line,
                    const Spark__Connect__PipelineCommand__DefineFlow__AutoCdcFlowDetails *c,
                    char **out, weir__cstatus *st)
{
    *out = NULL;
    if (!c->_source_case || !c->source || !*c->source)
        return diag(reg, st, WEIR_EINVAL, "AUTOCDC_MISSING_SOURCE", "42000",
                    file, line, "AUTO CDC flow '%s' has no source", flow);
    if (c->n_column_list && c->n_except_column_list)
        return diag(reg, st, WEIR_EINVAL,
                    "AUTOCDC_BOTH_COLUMN_LIST_AND_EXCEPT_COLUMN_LIST", "42000",
                    file, line,
                    "AUTO CDC flow '%s' has both column_list and "
                    "except_column_list; give one of them",
                    flow);
    if (c->n_ignore_null_updates_column_list ||
        c->n_ignore_null_updates_except_column_list)
        return diag(reg, st, WEIR_EINVAL,
                    "UNSUPPORTED_FEATURE.AUTOCDC_IGNORE_NULL_UPDATES_COLUMNS",
                    "0A000", file, line,
                    "AUTO CDC flow '%s': ignore_null_updates column lists are "
                    "not supported",
                    flow);
    weir_buf b = WEIR_BUF_INIT;
    weir__plan_error pe;
    memset(&pe, 0, sizeof pe);
    weir__buf_puts(&b, "FROM STREAM(");
    weir__buf_puts(&b, c->source); /* a table name as Python wrote it */
    weir__buf_putc(&b, ')');
    int rc = cdc_list(&b, "KEYS", c->keys, c->n_keys, &pe);
    if (!rc && c->_apply_as_deletes_case && c->apply_as_deletes) {
        weir__buf_puts(&b, " APPLY AS DELETE WHEN ");
        rc = cdc_expr(&b, c->apply_as_deletes, &pe);
    }
    if (!rc && c->_apply_as_truncates_case && c->apply_as_truncates) {
        weir__buf_puts(&b, " APPLY AS TRUNCATE WHEN ");
        rc = cdc_expr(&b, c->apply_as_truncates, &pe);
    }
    if (!rc && c->_sequence_by_case && c->sequence_by) {
        weir__buf_puts(&b, " SEQUENCE BY ");
        rc = cdc_expr(&b, c->sequence_by, &pe);
    }
    if (!rc && c->n_column_list)
        rc = cdc_list(&b, "COLUMNS", c->column_list, c->n_column_list, &pe);
    if (!rc && c->n_except_column_list)
        rc = cdc_list(&b, "COLUMNS * EXCEPT", c->except_column_list,
                      c->n_except_column_list, &pe);
    if (!rc && (int)c->stored_as_scd_type > 1) /* later clients: SCD_TYPE_2 */
        weir__buf_printf(&b, " STORED AS SCD TYPE %d", (int)c->stored_as_scd_type);
    if (rc) {
        weir__buf_free(&b);
        return diag(reg, st, WEIR_ESQL,
                    pe.error_class[0] ? pe.error_class : "UNSUPPORTED_FEATURE",
                    "0A000", file, line,
                    "AUTO CDC flow '%s' cannot be translated: %s", flow,
                    pe.message);
    }
    *out = weir__buf_detach(&b);
    return *out ? 0 : oom(st);
}

static int define_flow(weir__creg *reg,
                       const Spark__Connect__PipelineCommand__DefineFlow *d,
                       weir__cstatus *st)
{
    if (check_graph(reg, d->_dataflow_graph_id_case, d->dataflow_graph_id, st))
        return -1;
    const char *file;
    unsigned line;
    location(d->_source_code_location_case ? d->source_code_location : NULL,
             &file, &line);
    const char *name = opt_str(d->_flow_name_case, d->flow_name);
    const char *target = opt_str(d->_target_dataset_name_case, d->target_dataset_name);
    if (!name || !*name || !target || !*target)
        return diag(reg, st, WEIR_EINVAL, "INVALID_PIPELINE_DEFINITION", "42000",
                    file, line, "a flow needs a name and a target");
    bool cdc = d->details_case ==
               SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_FLOW__DETAILS_AUTO_CDC_FLOW_DETAILS;
    bool named_like_target = weir__str_ieq(name, target);
    /* An AUTO CDC flow named like its target is registered as a flow: the
     * graph makes it the target's own (create_streaming_table made the
     * target, without a query). */
    bool implicit = named_like_target && !cdc;
    if (!named_like_target && name_parts(name) > 1)
        return diag(reg, st, WEIR_EINVAL, "MULTIPART_FLOW_NAME_NOT_SUPPORTED",
                    "0A000", file, line, "Flow name '%s' must be a single part",
                    name);
    /* weir's shim keys come out of the confs (shim.c, docs/python.md). */
    weir__shim_flow sf;
    memset(&sf, 0, sizeof sf);
    kv_list conf = WEIR_VEC_INIT;
    for (size_t i = 0; i < d->n_sql_conf; i++) {
        char why[300];
        bool taken = false;
        if (weir__shim_take(&sf, d->sql_conf[i]->key, d->sql_conf[i]->value,
                            &taken, why, sizeof why)) {
            weir__shim_flow_free(&sf);
            kv_free(&conf);
            return diag(reg, st, WEIR_EINVAL, "INVALID_PIPELINE_DEFINITION",
                        "42000", file, line, "Flow '%s': %s", name, why);
        }
        if (!taken && kv_put(&conf, d->sql_conf[i]->key, d->sql_conf[i]->value)) {
            weir__shim_flow_free(&sf);
            kv_free(&conf);
            return oom(st);
        }
    }
    bool once = (d->_once_case && d->once) || sf.once;
    int rc = 0;
    char *query = NULL;
    if (sf.import_checkpoint && (once || implicit)) {
        rc = diag(reg, st, WEIR_EINVAL, "IMPORT_CHECKPOINT_NOT_SUPPORTED",
                  "0A000", file, line,
                  "Flow '%s' cannot import a checkpoint: import_checkpoint is "
                  "supported only on streaming append flows (append_flow "
                  "without once=True)",
                  name);
        goto out;
    }
    if (once && implicit) {
        rc = diag(reg, st, WEIR_EINVAL, "DEFINE_FLOW_ONCE_OPTION_NOT_SUPPORTED",
                  "0A000", file, line,
                  "Flow '%s' is a dataset's own flow and cannot be a once flow",
                  name);
        goto out;
    }
    if (reg->n_definitions >= MAX_DEFINITIONS) {
        rc = weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                               "too many definitions");
        goto out;
    }
    char *cdc_text = NULL;
    if (cdc && (once || sf.import_checkpoint || sf.n_exps)) {
        rc = diag(reg, st, WEIR_EINVAL, "INVALID_PIPELINE_DEFINITION", "42000",
                  file, line,
                  "AUTO CDC flow '%s' cannot be a once flow, import a "
                  "checkpoint or carry expectations",
                  name);
        goto out;
    }
    rc = cdc ? flow_cdc(reg, name, file, line, d->auto_cdc_flow_details,
                        &cdc_text, st)
             : flow_query(reg, name, file, line, d, &query, st);
    if (rc)
        goto out;
    if (cdc)
        query = cdc_text;
    reg->n_definitions++;
    if (implicit) {
        output *o = find_output(reg, target);
        if (o && o->registered) {
            rc = diag(reg, st, WEIR_EGRAPH, "PIPELINE_DUPLICATE_IDENTIFIERS.FLOW",
                      "42710", file, line,
                      "Flow '%s' is defined twice (the dataset's own flow)", name);
            goto out;
        }
        if (find_waiting(reg, target) != (size_t)-1) {
            rc = diag(reg, st, WEIR_EGRAPH, "PIPELINE_DUPLICATE_IDENTIFIERS.FLOW",
                      "42710", file, line, "Flow '%s' is defined twice", name);
            goto out;
        }
        implicit_flow *f = calloc(1, sizeof *f);
        if (!f) {
            rc = oom(st);
            goto out;
        }
        f->target = strdup(target);
        f->query = query;
        query = NULL;
        f->conf = conf;
        conf = (kv_list)WEIR_VEC_INIT;
        f->file = dup_or_null(file);
        f->line = line;
        f->exps = sf.exps;
        f->n_exps = sf.n_exps;
        sf.exps = NULL;
        sf.n_exps = 0;
        if (!f->target || (file && !f->file)) {
            implicit_free(f);
            rc = oom(st);
        } else if (o) {
            rc = register_output(reg, o, f, st);
            implicit_free(f);
        } else if (WEIR_VEC_PUSH(&reg->waiting, f)) {
            implicit_free(f);
            rc = oom(st);
        }
        goto out;
    }
    if (sf.n_exps) {
        /* weir's expectations belong to datasets: those written on an
         * append flow go to its target, while it waits for registration. */
        output *o = find_output(reg, target);
        if (!o || o->registered) {
            rc = diag(reg, st, WEIR_EINVAL, "EXPECTATIONS_NOT_SUPPORTED",
                      "0A000", file, line,
                      "Expectations on flow '%s' need its target '%s' to be a "
                      "table created with create_streaming_table (weir keeps "
                      "expectations on datasets); put them on the dataset "
                      "instead",
                      name, target);
            goto out;
        }
        if (weir__shim_exps_append(&o->exps, &o->n_exps, sf.exps, sf.n_exps)) {
            rc = oom(st);
            goto out;
        }
    }
    kv_list all = WEIR_VEC_INIT;
    if (merged_conf(reg, &conf, &all)) {
        kv_free(&all);
        rc = oom(st);
        goto out;
    }
    weir_flow_options fo = WEIR_FLOW_OPTIONS_INIT;
    fo.name = name;
    fo.target = target;
    fo.query = cdc ? NULL : query;
    fo.auto_cdc = cdc ? query : NULL;
    fo.once = once;
    fo.conf = all.items;
    fo.n_conf = all.len;
    fo.source_path = display_path(reg, file);
    fo.source_line = line;
    fo.import_checkpoint = sf.import_checkpoint;
    weir_error e;
    int wrc = weir_pipeline_define_flow(reg->pipeline, &fo, &e);
    kv_free(&all);
    if (wrc == WEIR_ENOMEM)
        rc = oom(st);
    else if (wrc) {
        char what[600];
        snprintf(what, sizeof what, "cannot register flow '%s'", name);
        rc = diag_weir(reg, st, &e, what, file, line);
    }
out:
    free(query);
    kv_free(&conf);
    weir__shim_flow_free(&sf);
    return rc;
}

static int define_sql(weir__creg *reg,
                      const Spark__Connect__PipelineCommand__DefineSqlGraphElements *d,
                      weir__cstatus *st)
{
    if (check_graph(reg, d->_dataflow_graph_id_case, d->dataflow_graph_id, st))
        return -1;
    const char *path = opt_str(d->_sql_file_path_case, d->sql_file_path);
    const char *text = opt_str(d->_sql_text_case, d->sql_text);
    if (!text)
        return weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT,
                                 "INVALID_PIPELINE_DEFINITION", "42000",
                                 "SQL file %s comes without its text",
                                 path ? path : "(unnamed)");
    weir_error e;
    int rc = weir_pipeline_define_sql(reg->pipeline, text, path, &e);
    if (rc == WEIR_ENOMEM)
        return oom(st);
    if (!rc)
        return 0;
    /* Keep every problem: the pipeline's own list lasts one call only. */
    const weir_error *list = NULL;
    size_t n = weir_pipeline_diagnostics(reg->pipeline, &list);
    if (!n) {
        list = &e;
        n = 1;
    }
    for (size_t i = 0; i < n; i++)
        weir__diags_add(&reg->diags, &list[i]);
    const weir_error *first = &list[0];
    return weir__cstatus_set(st, WEIR_GRPC_INTERNAL,
                             first->error_class[0] ? first->error_class
                                                   : "PARSE_SYNTAX_ERROR",
                             "42000", "%s:%u:%u: %s", first->path, first->line,
                             first->column, first->message);
}

int weir__creg_unsupported(const Spark__Connect__PipelineCommand *cmd,
                           weir__cstatus *st)
{
    return weir__cstatus_set(st, WEIR_GRPC_UNIMPLEMENTED,
                             "UNSUPPORTED_FEATURE.CONNECT_PIPELINE_COMMAND",
                             "0A000", "Pipeline command %d is not supported by weir.",
                             cmd ? (int)cmd->command_type_case : 0);
}

int weir__creg_command(weir__creg *reg, const Spark__Connect__PipelineCommand *cmd,
                       const weir__cemit *emit, char graph_id[40],
                       weir__cstatus *st)
{
    (void)emit; /* start_run streams events in serving mode (later) */
    graph_id[0] = '\0';
    switch (cmd ? cmd->command_type_case : 0) {
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_CREATE_DATAFLOW_GRAPH:
        return create_graph(reg, cmd->create_dataflow_graph, graph_id, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_OUTPUT:
        return define_output(reg, cmd->define_output, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_FLOW:
        return define_flow(reg, cmd->define_flow, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_SQL_GRAPH_ELEMENTS:
        return define_sql(reg, cmd->define_sql_graph_elements, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_START_RUN: {
        const Spark__Connect__PipelineCommand__StartRun *r = cmd->start_run;
        if (check_graph(reg, r->_dataflow_graph_id_case, r->dataflow_graph_id, st))
            return -1;
        weir__creg_flush(reg);
        return weir__cstatus_set(
            st, WEIR_GRPC_FAILED_PRECONDITION,
            "UNSUPPORTED_FEATURE.CONNECT_START_RUN", "0A000",
            "This weir endpoint only registers the pipeline's definitions; "
            "weir itself validates and runs it (weir run / weir dry-run).");
    }
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DROP_DATAFLOW_GRAPH:
        return weir__cstatus_set(
            st, WEIR_GRPC_FAILED_PRECONDITION,
            "UNSUPPORTED_FEATURE.CONNECT_DROP_GRAPH", "0A000",
            "A graph being registered into a weir pipeline cannot be dropped.");
    default:
        return weir__creg_unsupported(cmd, st);
    }
}
